"""The pure parts of `kb eval` on hand-made values: the gold parser, the counting rules, the
fused fold and the triad's arithmetic."""

from __future__ import annotations

import math

from returns.result import Failure, Success

from kb.pure.answering.election import choose_agent_fused
from kb.pure.answering.fusion import Found
from kb.pure.answering.verdict import Verdict
from kb.pure.fleet import evaluation, gold, triad
from kb.pure.fleet.evaluation import ClassifierVerdict, RowFacts
from kb.pure.fleet.gold import GoldRow


def test_gold_parse_rules() -> None:
    text = "# comment\r\n\n  q one  \t a/x.md | | b/y.md \r\nq two\t-\n#\tnot a row either\n"
    assert gold.parse(text, "g.tsv") == Success(
        (GoldRow(3, "q one", ("a/x.md", "b/y.md")), GoldRow(4, "q two", ()))
    )
    assert gold.parse("q\n", "g.tsv") == Failure("g.tsv:1: no tab, so this row has no answer")
    assert gold.parse("# only\n", "g.tsv") == Failure("g.tsv has no gradeable rows")
    assert isinstance(gold.parse("\ta/x.md\n", "g.tsv"), Failure)
    assert isinstance(gold.parse("q\t|\n", "g.tsv"), Failure)


def test_stale_answers_in_order_once() -> None:
    rows = (
        GoldRow(1, "a", ("ada/k/x.md", "ada/k/gone.md")),
        GoldRow(2, "b", ("ada/k/gone.md", "plain.md", "/lead.md")),
        GoldRow(3, "c", ()),
    )
    existing = frozenset({("ada", "k/x.md")})
    assert gold.stale_answers(rows, existing) == [
        "ada/k/gone.md",
        "plain.md (not in agent/path form)",
        "/lead.md (not in agent/path form)",
    ]
    assert gold.answer_key("ADA/k/x.md") == ("ada", "k/x.md")


def _found(base: str, path: str, score: float) -> Found:
    return Found(
        base=base,
        path=path,
        layer="long",
        title="",
        purpose="",
        score=score,
        keyword_score=0.0,
        why=(),
        matched=(),
        passages=(),
    )


def test_fused_fold_sums_files_and_skips_unroutable() -> None:
    found = [_found("a", "x.md", 0.03), _found("b", "y.md", 0.02), _found("b", "z.md", 0.02)]
    choice = choose_agent_fused(found, ["A", "b"])
    assert choice is not None
    assert (choice.agent, choice.files, choice.contenders) == ("b", 2, 2)
    assert math.isclose(choice.margin, 0.04 / 0.03)
    only_a = choose_agent_fused(found, ["a"])
    assert only_a is not None and only_a.margin == math.inf
    # an empty roster keeps every base
    anyone = choose_agent_fused(found, [])
    assert anyone is not None and anyone.agent == "b"
    assert choose_agent_fused([], ["a"]) is None


def _facts(
    answers: tuple[str, ...],
    top: str | None,
    verdict: Verdict = "hit",
    score: float = 10.0,
    keyword_agent: str | None = None,
    routable: tuple[str, ...] = ("ada", "bruno"),
    rank: int | None = None,
    classifier: ClassifierVerdict | None = None,
) -> RowFacts:
    return RowFacts(
        row=GoldRow(1, "q", answers),
        top=top,
        keyword_top=top,
        rank=rank,
        verdict=verdict,
        keyword_score=score,
        margin=1.0,
        keyword_agent=keyword_agent,
        fused_agent=keyword_agent,
        routable=routable,
        fused_us=10,
        keyword_us=3,
        classifier=classifier,
    )


def test_summary_counts() -> None:
    facts = [
        _facts(("ada/a.md",), "ada/a.md", "hit", 30.0, "ada", rank=1),
        _facts(("ada/b.md",), "ada/b.md", "guess", 5.0, "ada", rank=1),  # demoted
        _facts(("bruno/c.md",), "ada/a.md", "guess", 4.0, "ada", rank=2),  # flagged
        _facts(("bruno/d.md",), "ada/x.md", "hit", 20.0, "ada"),  # a confident miss
        _facts(("person/e.md",), "person/e.md", "hit", 25.0, None, rank=1),  # not ownable
        _facts((), None, "nothing", 0.0),
        _facts((), "ada/a.md", "guess", 3.0, "ada"),
        _facts((), "ada/a.md", "hit", 40.0, "ada"),
    ]
    s = evaluation.summarise(facts)
    assert (s.rows, s.answerable, s.ownable) == (8, 5, 4)
    assert (s.file_fused, s.file_keyword) == (3, 3)
    assert (s.agent_keyword, s.agent_routes) == (2, 1)
    assert (s.baseline, s.baseline_hits) == ("ada", 2)  # ada and bruno tie at 2: by name
    assert (s.flagged, s.misses, s.demoted, s.hits) == (1, 2, 1, 3)
    assert (s.declines, s.refused, s.hedged, s.answered) == (3, 1, 1, 1)
    assert s.hit_range == evaluation.ScoreRange(5.0, 30.0)
    assert s.miss_range == evaluation.ScoreRange(4.0, 20.0)
    assert s.separates is False
    assert s.mrr is not None and math.isclose(s.mrr, (1 + 1 + 0.5 + 0 + 1) / 5)
    assert s.no_answer_accuracy is not None and math.isclose(s.no_answer_accuracy, 1 / 3)
    assert (s.fused_us, s.keyword_us) == (10, 3)
    assert [evaluation.marks(f) for f in facts[-3:]] == [
        ("ok", "-", "-"),
        ("ok", "-", "-"),
        ("BAD", "-", "-"),
    ]
    text = evaluation.render(evaluation.Report("g", 5, 9, 3, 7.0, "CPython", tuple(facts), s, None))
    assert "       (1 question excluded: answered only from an attached base" in text
    assert "       routing beats the fixed choice by -1 question\n" in text
    assert "       OVERLAPS: no floor tells a hit from a miss on this set.\n" in text
    assert "       hit scores  5.00 to 30.00\n       miss scores 4.00 to 20.00\n" in text


def test_separates_says_where_the_floor_sits() -> None:
    facts = [
        _facts(("ada/a.md",), "ada/a.md", "hit", 30.0, "ada"),
        _facts(("ada/b.md",), "ada/x.md", "guess", 5.0, "ada"),
    ]
    s = evaluation.summarise(facts)
    assert s.separates is True

    def report(floor: float) -> str:
        return evaluation.render(evaluation.Report("g", 5, 9, 3, floor, "X", tuple(facts), s))

    assert "SEPARATES: every hit outscored every miss. Floor 7.0 sits in the gap." in report(7.0)
    assert "but the floor 40.0 sits outside the gap (5.00 to 30.00)." in report(40.0)


def test_classifier_seam_routes_by_its_owner() -> None:
    covered = ClassifierVerdict("bruno", True, 100)
    declined = ClassifierVerdict("bruno", False, 100)
    row = _facts(("bruno/c.md",), "ada/a.md", "hit", 9.0, "ada", classifier=covered)
    assert evaluation.routed(row) == "bruno"
    row = _facts(("bruno/c.md",), "ada/a.md", "hit", 9.0, "ada", classifier=declined)
    assert evaluation.routed(row) is None
    assert evaluation.routed(_facts(("ada/a.md",), None, "guess", 1.0, "ada")) is None


def test_no_rows_to_decline_or_answer() -> None:
    s = evaluation.summarise([_facts((), None, "nothing", 0.0)])
    assert (s.mrr, s.no_answer_accuracy) == (None, 1.0)
    s = evaluation.summarise([_facts(("ada/a.md",), "ada/a.md", "hit", 9.0, "ada", rank=1)])
    assert (s.mrr, s.no_answer_accuracy) == (1.0, None)
    assert evaluation.pct(0, 0) == "0"


def test_round2_is_half_away_from_zero() -> None:
    assert triad.round2(0.125) == 0.13  # exactly representable: banker's would give 0.12
    assert triad.round2(0.375) == 0.38
    assert triad.round2(1 / 3) == 0.33
    assert triad.round2(0.285) == 0.28  # 0.285 is 28.4999... hundredths in binary, as in Rust


def test_triad_scores() -> None:
    assert triad.score("anything", triad.REFUSAL, []) == triad.TriadScore(1.0, 1.0, 1.0, 1.0)
    assert triad.score("anything", triad.REFUSAL, ["x"]) == triad.TriadScore(1.0, 0.0, 0.5, 0.5)
    context = [
        "Backups run nightly. Restore tests run monthly; keep them in a safe place.",
        "tiny.",
    ]
    s = triad.score("how often restore backups", "Restore tests run monthly", context)
    # answer tokens restore, tests, run, monthly: all in context; question tokens often,
    # restore, backups: only restore in the answer; of the 3 pieces of 10 bytes or more, two
    # mention a question token
    assert s == triad.TriadScore(1.0, 0.33, 0.67, 0.67)
    assert triad.content_tokens("The API's big-data, ok?") == ["api", "data"]
    assert triad.served_text("guess", [], "ada/x.md") == "ada/x.md"
    assert triad.served_text("hit", ["p1", "p2"], "ada/x.md") == "p1"
    assert triad.served_text("nothing", ["p1"], "ada/x.md") == triad.REFUSAL
