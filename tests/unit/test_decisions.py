"""Direct tests of the decisions only golden files used to touch (issue 25): fusion and the
keyword share, the evidence the verdict reads and the facts it keeps, the chunker's overlap
and heading paths, the text scorer's formulas, and alias expansion. Each test names the
rule it protects; each was checked to fail when that rule is broken (tests/mutation)."""

from __future__ import annotations

import itertools
import math

import pytest
from attrs import evolve

from kb.pure.answering.aliases import expand, expand_query, expansion_sources
from kb.pure.answering.entries import Entry
from kb.pure.answering.fusion import (
    EXCERPT_WORDS,
    KEYWORD_SHARE,
    Found,
    Passage,
    TextHit,
    fuse,
    keyword_share,
    looks_stale,
    no_agreement,
    opening_excerpt,
)
from kb.pure.answering.keyword import KeywordHit
from kb.pure.answering.textrank import (
    K1,
    W_HEADING,
    B,
    Candidate,
    TextStats,
    counts_of,
    evidence_weights,
    fleet_stats,
    idf,
    score_chunks,
    term_weights,
)
from kb.pure.answering.verdict import (
    DECLARED_HIT_WORDS,
    HIT_COVERAGE,
    HIT_KEYWORD_LEAD,
    HIT_TEXT_LEAD,
    NO_EVIDENCE,
    NOTHING_MARGIN,
    SCORE_FLOOR,
    Confidence,
    Evidence,
    confidence_of,
    coverage_of,
    evidence_for,
    evidence_none,
    floor_for,
    idf_unique,
    judged,
    refused_as_unknown,
    unknown_to_fleet,
    verdict_of,
)
from kb.pure.notes.chunking import MAX_CHARS, OVERLAP_CHARS, chunk, windows


def entry(rel: str, keys: tuple[str, ...] = (), derived: bool = False, base: str = "ada") -> Entry:
    stem = rel.rsplit("/", 1)[-1].removesuffix(".md")
    return Entry(base, rel, stem, f"Title of {stem}", keys, f"purpose of {stem}", derived)


def khit(rel: str, score: float, matched: tuple[str, ...], **kw: object) -> KeywordHit:
    return KeywordHit(entry(rel, **kw), score, matched)  # type: ignore[arg-type]


def thit(path: str, score: float, matched: tuple[str, ...] = (), base: str = "ada") -> TextHit:
    return TextHit(
        base, path, f"H {path}", f"ex {path}", f"text {path}", None, None, None,
        score=score, matched=matched,
    )  # fmt: skip


# -- the original's floor and facts ------------------------------------------------------


def test_the_floor_is_the_originals_at_its_calibration_size() -> None:
    assert floor_for(226) == pytest.approx(SCORE_FLOOR)
    assert floor_for(0) == 0.0 and floor_for(-3) == 0.0
    assert floor_for(11) < floor_for(226) < floor_for(10_000)
    assert idf_unique(226) == pytest.approx(math.log(1 + 113))


def test_the_keyword_facts_agreement_margin_and_the_floor_verdict() -> None:
    assert confidence_of([], set(), 226) == Confidence("nothing", 0, 0.0, 0.0, floor_for(226))
    hits = [khit("knowledge/a.md", 30.0, ("a",)), khit("knowledge/b.md", 10.0, ("b",))]
    c = confidence_of(hits, {("ada", "knowledge/a.md")}, 226)
    assert (c.verdict, c.agreement, c.keyword_score, c.margin) == ("hit", 2, 30.0, 3.0)
    c = confidence_of(hits, {("ada", "knowledge/b.md")}, 226)
    assert c.agreement == 1
    alone = confidence_of(hits[:1], set(), 226)
    assert alone.margin == 1.0  # no runner-up
    assert confidence_of([khit("knowledge/a.md", 1.0, ("a",))], set(), 226).verdict == "guess"
    # below two entries nothing is a floor hit, whatever it scores
    assert confidence_of(hits, set(), 1).verdict == "guess"


def test_judged_keeps_the_keyword_facts_and_takes_the_evidence_verdict() -> None:
    hits = [khit("knowledge/a.md", 30.0, ("a",)), khit("knowledge/b.md", 10.0, ("b",))]
    evidence = Evidence(0.05, 1, 4, 0.0, 3.0, False, 226, 0.2, 0.7)
    c = judged(hits, {("ada", "knowledge/a.md")}, 226, evidence)
    assert c.verdict == "nothing"  # the floor alone would have said hit
    assert (c.agreement, c.keyword_score, c.margin, c.floor) == (2, 30.0, 3.0, floor_for(226))
    assert (c.coverage, c.known, c.known_line) == (0.05, 0.2, 0.7)


# -- the evidence ---------------------------------------------------------------------------


WEIGHTS = {"backup": 2.0, "restore": 1.0, "test": 1.0}


def test_no_file_or_no_weight_is_no_evidence() -> None:
    assert evidence_for(None, [], [], WEIGHTS, {}, 10, 4.0) == evidence_none(10, 3)
    assert evidence_none(10, 3) == Evidence(0.0, 0, 3, 0.0, 0.0, False, 10)
    assert NO_EVIDENCE.asked == 0 and NO_EVIDENCE.coverage == 0.0


def _found(path: str, matched: tuple[str, ...] = ()) -> Found:
    return Found("ada", path, "long", "", "", 1.0, 0.0, (), matched, ())


def test_coverage_counts_what_the_files_keys_and_text_hold() -> None:
    top = _found("knowledge/a.md")
    text = [thit("knowledge/a.md", 3.0, ("backup",)), thit("knowledge/b.md", 1.0, ("test",))]
    e = evidence_for(top, [], text, WEIGHTS, {}, 10, 4.0, known=0.9, known_line=0.5)
    assert (e.matched, e.asked) == (1, 3)
    assert e.coverage == pytest.approx(2.0 / 4.0)
    assert e.text_lead == pytest.approx((3.0 - 1.0) / 4.0)
    assert (e.known, e.known_line) == (0.9, 0.5)
    assert e.passage_coverage == pytest.approx(0.5)
    # a word inside a several-word key counts as held; only the first text hit is a passage
    keys = [khit("knowledge/a.md", 9.0, ("zero downtime",), keys=("restore drill",))]
    text = [thit("knowledge/a.md", 3.0, ("backup",)), thit("knowledge/a.md", 2.0, ("test",))]
    e = evidence_for(top, keys, text, WEIGHTS, {}, 10, 4.0)
    assert e.matched == 3 and e.coverage == 1.0
    # its keys hold restore, its best passage backup; test is only in its second passage
    assert e.passage_coverage == pytest.approx(3.0 / 4.0)
    # the text of another file never counts for this one
    e = evidence_for(top, [], [thit("knowledge/b.md", 3.0, ("backup",))], WEIGHTS, {}, 10, 4.0)
    assert e.matched == 0 and e.text_lead == pytest.approx(-3.0 / 4.0)


def test_a_word_an_alias_added_counts_for_the_question_words_behind_it() -> None:
    top = _found("knowledge/a.md")
    text = [thit("knowledge/a.md", 3.0, ("kubernetes",))]
    e = evidence_for(top, [], text, {"k8s": 1.0}, {"kubernetes": ("k8s",)}, 10, 1.0)
    assert e.matched == 1 and e.coverage == 1.0


def test_the_keyword_lead_and_declared_words_are_the_keyword_tops_only() -> None:
    top = _found("knowledge/a.md")
    declared = [
        khit("knowledge/a.md", 30.0, ("backup", "restore"), keys=("backup", "restore drill")),
        khit("knowledge/b.md", 10.0, ("backup",), keys=("backup",)),
    ]
    e = evidence_for(top, declared, [], WEIGHTS, {}, 10, 4.0)
    assert (e.declared, e.keyword_lead, e.declared_words) == (True, 3.0, 2)
    alone = evidence_for(top, declared[:1], [], WEIGHTS, {}, 10, 4.0)
    assert alone.keyword_lead == math.inf
    derived = [khit("knowledge/a.md", 30.0, ("backup",), keys=("backup",), derived=True)]
    e = evidence_for(top, derived, [], WEIGHTS, {}, 10, 4.0)
    assert (e.declared, e.declared_words) == (False, 0)
    second = evidence_for(_found("knowledge/b.md"), declared, [], WEIGHTS, {}, 10, 4.0)
    assert (second.declared, second.keyword_lead) == (False, 0.0)
    assert evidence_for(top, [], [], WEIGHTS, {}, 10, 0.0).text_lead == 0.0


# -- fusion ---------------------------------------------------------------------------------


def test_derived_keys_weigh_the_fixed_share_and_declared_ones_grow_with_coverage() -> None:
    weights = {"backup": 3.0, "restore": 1.0}
    derived = khit("knowledge/a.md", 5.0, ("backup",), derived=True)
    assert keyword_share(derived, weights) == KEYWORD_SHARE
    declared = khit("knowledge/a.md", 5.0, ("backup",), keys=("backup",))
    assert keyword_share(declared, None) == KEYWORD_SHARE
    assert keyword_share(declared, weights) == pytest.approx(
        KEYWORD_SHARE + (1 - KEYWORD_SHARE) * 0.75**2
    )
    whole = khit("knowledge/a.md", 5.0, ("backup restore",), keys=("backup restore",))
    assert keyword_share(whole, weights) == pytest.approx(1.0)
    assert keyword_share(declared, {"backup": 0.0}) == KEYWORD_SHARE


def test_a_file_scores_once_for_text_at_its_best_chunk_and_keeps_every_passage() -> None:
    text = [
        thit("knowledge/a.md", 4.0, ("backup",)),
        thit("knowledge/b.md", 3.0, ("backup",)),
        thit("knowledge/a.md", 3.5, ("restore",)),
    ]
    fused = fuse([], text, 5, {"backup": 2.0, "restore": 2.0})
    first = fused[0]
    assert first.path == "knowledge/a.md"
    assert first.score == pytest.approx(4.0 / 4.0)  # not 4 + 3.5
    assert first.why == ("text #1",)
    assert [p.heading_path for p in first.passages] == ["H knowledge/a.md", "H knowledge/a.md"]
    assert fused[1].score == pytest.approx(3.0 / 4.0)


def test_the_text_scale_is_at_least_a_complete_answer_and_file_scores_replace_chunks() -> None:
    text = [thit("knowledge/a.md", 1.0)]
    assert fuse([], text, 5, {"w": 10.0})[0].score == pytest.approx(0.1)
    assert fuse([], text, 5, None)[0].score == pytest.approx(1.0)
    page = fuse([], text, 5, {"w": 10.0}, 0.0, {("ada", "knowledge/a.md"): 5.0})
    assert page[0].score == pytest.approx(0.5)


def test_keyword_and_text_shares_add_over_their_own_scales() -> None:
    keyword = [khit("knowledge/a.md", 10.0, ("a",), derived=True)]
    text = [thit("knowledge/a.md", 2.0), thit("knowledge/b.md", 2.0)]
    fused = fuse(keyword, text, 5, {"a": 2.0}, 20.0)
    a = next(f for f in fused if f.path == "knowledge/a.md")
    assert a.score == pytest.approx(KEYWORD_SHARE * 10.0 / 20.0 + 1.0)
    assert a.why == ("keywords #1", "text #1")
    assert (a.title, a.purpose, a.keyword_score) == ("Title of a", "purpose of a", 10.0)
    assert fused[0].path == "knowledge/a.md"


def test_ties_sort_by_path_then_base_and_top_cuts_the_list() -> None:
    text = [
        thit("knowledge/b.md", 1.0, base="bruno"),
        thit("knowledge/a.md", 1.0, base="clara"),
        thit("knowledge/a.md", 1.0, base="ada"),
    ]
    fused = fuse([], text, 2, {"w": 1.0})
    assert [(f.path, f.base) for f in fused] == [
        ("knowledge/a.md", "ada"),
        ("knowledge/a.md", "clara"),
    ]
    # a hit built without a score falls back to its rank
    unscored = [thit("knowledge/a.md", 0.0), thit("knowledge/b.md", 0.0)]
    assert [f.score for f in fuse([], unscored, 5)] == [1.0, 0.5]
    # a keyword hit with no file (the map) is never a result
    assert fuse([khit("", 5.0, ("a",))], [], 5) == []


def test_keyword_matches_merge_without_repeats() -> None:
    one = khit("knowledge/a.md", 10.0, ("backup", "restore"))
    fused = fuse([one], [], 5, {"backup": 1.0, "restore": 1.0})
    assert fused[0].matched == ("backup", "restore")
    # declared keys covering the whole question weigh a whole share
    assert fused[0].score == pytest.approx(1.0)
    # a file two entries lead to adds both shares, and repeats no word either named
    other = khit("knowledge/a.md", 5.0, ("restore", "drill"), derived=True)
    both = fuse([one, other], [], 5, {"backup": 1.0, "restore": 1.0, "drill": 1.0})
    assert len(both) == 1
    assert both[0].matched == ("backup", "restore", "drill")
    assert both[0].why == ("keywords #1", "keywords #2")
    assert both[0].score == pytest.approx(
        keyword_share(one, {"backup": 1.0, "restore": 1.0, "drill": 1.0})
        + KEYWORD_SHARE * 5.0 / 10.0
    )


def test_agreement_staleness_and_excerpts() -> None:
    one = Found("ada", "a.md", "long", "", "", 1.0, 0.0, ("text #1",), (), ())
    two = Found("ada", "b.md", "long", "", "", 1.0, 0.0, ("keywords #1", "text #2"), (), ())
    assert no_agreement([one]) and not no_agreement([one, two]) and not no_agreement([])
    passage = Passage("H", "t", "e", None, None)
    assert looks_stale([one]) and not looks_stale([])
    assert not looks_stale([Found("ada", "a.md", "long", "", "", 1, 0, (), (), (passage,))])
    words = " ".join(f"w{i}" for i in range(EXCERPT_WORDS + 3))
    assert opening_excerpt(words) == " ".join(words.split()[:EXCERPT_WORDS]) + " ... "
    assert opening_excerpt("a b") == "a b"


# -- the text scorer ------------------------------------------------------------------------


def test_bm25_idf_never_goes_negative_and_falls_with_frequency() -> None:
    assert idf(100, 100) > 0.0
    assert idf(100, 1) > idf(100, 10) > idf(100, 90)
    assert idf(100, 1) == pytest.approx(math.log(1 + (100 - 1 + 0.5) / 1.5))
    stats = TextStats(100, 1000, (("common", 90), ("rare", 1)))
    weights = term_weights(["common", "rare", "absent"], stats)
    assert weights["absent"] == pytest.approx(idf(100, 0))
    assert weights["rare"] > weights["common"]
    ev = evidence_weights(["common", "absent"], stats)
    assert ev["absent"] == pytest.approx(math.log(1 + 100))
    assert ev["common"] == pytest.approx(math.log(1 + 100 / 91))
    assert term_weights(["x"], TextStats(0, 0, ()))["x"] == pytest.approx(idf(1, 0))


def test_fleet_stats_sum_every_part() -> None:
    parts = [TextStats(2, 20, (("a", 1), ("b", 2))), TextStats(3, 30, (("a", 4),))]
    assert fleet_stats(parts) == TextStats(5, 50, (("a", 5), ("b", 2)))
    assert fleet_stats(parts) == parts[0].plus(parts[1])


def test_a_chunk_is_scored_by_bm25_with_its_heading_weighted() -> None:
    counts = counts_of("Backups", "backup backup restore")
    stats = TextStats(10, 40, (("backup", 2), ("restore", 5)))
    chunk_ = Candidate("ada", "knowledge/a.md", 1, 0, "Backups", "", counts)
    [scored] = score_chunks(["backup", "restore"], [chunk_], stats, {})
    weights = term_weights(["backup", "restore"], stats)
    norm = K1 * (1 - B + B * (4 / 4.0))
    tf_backup = 2 + W_HEADING * 0  # heading word is `backups`, another form
    want = weights["backup"] * tf_backup * (K1 + 1) / (tf_backup + norm)
    want += weights["restore"] * 1 * (K1 + 1) / (1 + norm)
    assert scored.score == pytest.approx(want)
    assert scored.matched == ("backup", "restore")
    forms = {"backup": frozenset({"backup", "backups"})}
    [stemmed] = score_chunks(["backup"], [chunk_], stats, forms)
    tf = 2 + W_HEADING * 1
    assert stemmed.score == pytest.approx(weights["backup"] * tf * (K1 + 1) / (tf + norm))
    # without known variants, a chunk's words sharing the stem count
    [own] = score_chunks(["backup"], [chunk_], stats)
    assert own.score == pytest.approx(stemmed.score)
    assert score_chunks(["absent"], [chunk_], stats, {}) == []


# -- chunking -------------------------------------------------------------------------------


def test_long_sections_are_cut_into_windows_that_overlap_by_the_overlap() -> None:
    paragraph = "word " * 60
    body = "\n\n".join(f"{i} {paragraph}" for i in range(20))
    parts = windows(body)
    assert len(parts) > 2
    assert all(len(p) <= MAX_CHARS for p in parts)
    for a, b in itertools.pairwise(parts):
        tail = a[-OVERLAP_CHARS // 2 :]
        assert tail.strip()[:40] in b, "the next window starts inside the previous one"
    assert windows("short") == ["short"]


def test_a_window_overlaps_its_predecessor_by_about_the_overlap() -> None:
    body = "".join(f"{i:05d} " for i in range(1000))  # no paragraph break: hard cuts
    parts = windows(body)
    for a, b in itertools.pairwise(parts):
        shared = len(set(a.split()) & set(b.split()))
        assert OVERLAP_CHARS // 6 - 2 <= shared <= OVERLAP_CHARS // 6 + 2


def test_heading_paths_follow_the_heading_stack() -> None:
    text = (
        "# Title\n\nintro\n\n## One\n\nfirst\n\n### Deeper\n\ndeep\n\n## Two\n\nsecond\n\n"
        "```\n# not a heading\n```\n"
    )
    paths = [(c.heading_path, c.text.splitlines()[0]) for c in chunk(text)]
    assert paths == [
        ("Title", "intro"),
        ("Title > One", "first"),
        ("Title > One > Deeper", "deep"),
        ("Title > Two", "second"),
    ]


def test_keyword_lines_never_reach_the_text_index() -> None:
    text = "# T\n\n**Search for:** `secret`, `key`\n\nbody\n\n## Search for\n\n- hidden\n"
    joined = " ".join(c.text for c in chunk(text))
    assert "secret" not in joined and "hidden" not in joined and "body" in joined


# -- aliases --------------------------------------------------------------------------------


ALIASES = (("k8s", "kubernetes"), ("zero downtime", "rollout canary"), ("db", "database"))


def test_aliases_add_canonical_words_once_never_transitively() -> None:
    assert expand(["k8s", "crash"], ALIASES) == ["k8s", "crash", "kubernetes"]
    assert expand(["kubernetes"], ALIASES) == ["kubernetes"]  # one direction only
    chained = (("a1", "b1"), ("b1", "c1"))
    assert expand(["a1"], chained) == ["a1", "b1"]  # b1 added by a line triggers nothing
    assert expand(["k8s", "kubernetes"], ALIASES) == ["k8s", "kubernetes"]
    assert expand_query("plan a zero downtime deploy", ALIASES)[-2:] == ["rollout", "canary"]
    assert expand(["zero"], ALIASES) == ["zero"]  # a phrase needs its whole run


def test_expansion_sources_name_the_question_words_behind_each_added_word() -> None:
    sources = expansion_sources(["zero", "downtime", "k8s"], ALIASES)
    assert sources == {
        "rollout": ("zero", "downtime"),
        "canary": ("zero", "downtime"),
        "kubernetes": ("k8s",),
    }
    assert expansion_sources(["kubernetes", "k8s"], ALIASES) == {}


# -- the verdict's lines, at their boundaries ----------------------------------------------

SOLID = Evidence(0.8, 3, 3, 0.5, 0.0, False, 100, 1.0, 0.7, 0, 0.8)


def test_the_floor_starts_at_one_entry() -> None:
    assert floor_for(1) > 0.0
    assert floor_for(1) == pytest.approx(floor_for(226) * idf_unique(1) / idf_unique(226))


def test_the_margin_is_taken_over_any_positive_runner_up_and_a_tie_with_the_floor_is_a_hit() -> (
    None
):
    hits = [khit("knowledge/a.md", 0.3, ("a",)), khit("knowledge/b.md", 0.6, ("b",))]
    assert confidence_of(hits, set(), 226).margin == pytest.approx(0.5)
    at_floor = [khit("knowledge/a.md", floor_for(2), ("a",))]
    assert confidence_of(at_floor, set(), 2).verdict == "hit"  # two entries, at the floor


def test_coverage_is_zero_for_a_weightless_question_and_never_above_one() -> None:
    assert coverage_of({}, {"a"}) == 0.0
    assert coverage_of({"a": 0.0}, {"a"}) == 0.0
    assert coverage_of({"a": 1.0}, {"a"}) == 1.0
    assert coverage_of({"a": -1.0, "b": 2.0}, {"b"}) == 1.0  # capped, whatever the weights


def test_the_nothing_line_is_strict_a_question_on_it_is_served() -> None:
    on = evolve(SOLID, known=0.5, coverage=SOLID.known_line + NOTHING_MARGIN - 0.5)
    assert not unknown_to_fleet(on)
    assert verdict_of(on) != "nothing"
    assert unknown_to_fleet(evolve(on, coverage=on.coverage - 1e-9))


def test_a_refusal_is_told_apart_by_why_it_was_refused() -> None:
    line = 0.7 + NOTHING_MARGIN
    unknown = Confidence("nothing", 0, 0.0, 0.0, 1.0, 0.3, 0.2, 0.7)
    assert refused_as_unknown(unknown)
    assert not refused_as_unknown(evolve(unknown, verdict="guess"))
    assert not refused_as_unknown(evolve(unknown, coverage=line - 0.2))  # exactly on the line
    assert refused_as_unknown(evolve(unknown, coverage=line - 0.2 - 1e-9))
    assert not refused_as_unknown(evolve(unknown, known=0.9, coverage=0.9))


def test_no_matched_weight_is_nothing_even_with_matched_words() -> None:
    assert verdict_of(evolve(SOLID, coverage=0.0)) == "nothing"
    assert verdict_of(evolve(SOLID, coverage=1e-9, known=1.0, known_line=0.0)) != "nothing"


def test_two_entries_are_enough_for_either_kind_of_hit() -> None:
    assert verdict_of(evolve(SOLID, entries=2)) == "hit"
    keys = evolve(
        SOLID, entries=2, declared=True, keyword_lead=HIT_KEYWORD_LEAD,
        declared_words=DECLARED_HIT_WORDS, text_lead=0.0, coverage=0.1, known=0.1,
    )  # fmt: skip
    assert verdict_of(keys) == "hit"
    assert verdict_of(evolve(keys, entries=1)) != "hit"


def test_a_hit_needs_exactly_two_matched_words_and_a_passage_at_the_line() -> None:
    assert verdict_of(evolve(SOLID, matched=2, asked=5)) == "hit"
    assert verdict_of(evolve(SOLID, matched=1, asked=5)) == "guess"
    assert verdict_of(evolve(SOLID, matched=1, asked=1, coverage=1.0)) == "hit"
    assert verdict_of(evolve(SOLID, passage_coverage=HIT_COVERAGE)) == "hit"
    assert verdict_of(evolve(SOLID, text_lead=HIT_TEXT_LEAD)) == "hit"
    # a passage holding none of the question is never a hit, whatever the file covers
    assert verdict_of(evolve(SOLID, passage_coverage=0.0)) == "guess"
    # an evidence built without a passage figure falls back to the file's coverage
    assert verdict_of(evolve(SOLID, passage_coverage=-1.0)) == "hit"
    assert verdict_of(evolve(SOLID, passage_coverage=-1.0, coverage=0.39)) == "guess"


def test_the_evidence_reads_the_files_own_matches_and_its_best_passage_score() -> None:
    top = _found("knowledge/a.md", matched=("restore",))
    text = [
        thit("knowledge/a.md", 0.6, ("backup",)),
        thit("knowledge/b.md", 0.2, ("test",)),
        thit("knowledge/a.md", 0.3, ("test",)),
    ]
    e = evidence_for(top, [], text, WEIGHTS, {}, 10, 1.0, known=0.9, known_line=0.5)
    assert e.matched == 3  # restore from its own matches, backup and test from its passages
    assert e.text_lead == pytest.approx(0.6 - 0.2)  # its best passage, not its last
    nothing = evidence_for(None, [], [], WEIGHTS, {}, 10, 1.0, known=0.9, known_line=0.5)
    assert (nothing.known, nothing.known_line) == (0.9, 0.5)


def test_alias_words_count_for_declared_keys_and_passages_too() -> None:
    top = _found("knowledge/a.md")
    keys = [
        khit("knowledge/a.md", 30.0, ("kubernetes",), keys=("kubernetes",)),
        khit("knowledge/b.md", 5.0, ("x",)),
    ]
    sources: dict[str, tuple[str, ...]] = {"kubernetes": ("k8s",)}
    e = evidence_for(top, keys, [], {"k8s": 1.0, "deploy": 1.0}, sources, 10, 1.0)
    assert e.declared_words == 1
    text = [thit("knowledge/a.md", 1.0, ("kubernetes",))]
    e = evidence_for(top, [], text, {"k8s": 1.0, "deploy": 1.0}, sources, 10, 1.0)
    assert e.passage_coverage == pytest.approx(0.5)


def test_an_empty_question_weight_is_nothing_even_on_a_fleet_with_no_line() -> None:
    assert verdict_of(evolve(SOLID, coverage=0.0, known_line=0.0)) == "nothing"
    assert floor_for(0) == 0.0


def test_a_lone_file_leads_by_its_whole_score_and_a_small_runner_up_still_divides() -> None:
    top = _found("knowledge/a.md")
    e = evidence_for(top, [], [thit("knowledge/a.md", 0.5, ("backup",))], WEIGHTS, {}, 7, 1.0)
    assert e.text_lead == pytest.approx(0.5)
    assert e.entries == 7
    keys = [
        khit("knowledge/a.md", 2.0, ("backup",), keys=("backup",)),
        khit("knowledge/b.md", 0.5, ("backup",), keys=("backup",)),
    ]
    assert evidence_for(top, keys, [], WEIGHTS, {}, 7, 1.0).keyword_lead == pytest.approx(4.0)


def test_declared_words_count_only_when_the_file_is_the_keyword_top() -> None:
    top = _found("knowledge/b.md")
    keys = [
        khit("knowledge/a.md", 9.0, ("backup",), keys=("backup",)),
        khit("knowledge/b.md", 3.0, ("backup", "restore"), keys=("backup", "restore")),
    ]
    e = evidence_for(top, keys, [], WEIGHTS, {}, 10, 1.0)
    assert (e.declared, e.declared_words) == (False, 0)
    assert e.matched == 2  # its keys still hold the words


def test_a_text_only_result_starts_empty_and_keeps_its_passages_whole() -> None:
    hit = TextHit("ada", "inbox/x.md", "H", "ex", "body", "human", "raw", None, score=1.0)
    [f] = fuse([], [hit], 5, {"w": 1.0})
    assert (f.layer, f.title, f.purpose, f.keyword_score, f.matched) == ("short", "", "", 0.0, ())
    assert f.passages == (Passage("H", "body", "ex", "human", "raw"),)


def test_a_file_less_keyword_hit_is_skipped_not_the_end_of_the_list() -> None:
    keyword = [khit("", 9.0, ("a",)), khit("knowledge/b.md", 3.0, ("a",), derived=True)]
    fused = fuse(keyword, [], 5, {"a": 1.0}, 0.0)
    assert [f.path for f in fused] == ["knowledge/b.md"]
    assert fused[0].score == pytest.approx(KEYWORD_SHARE * 3.0 / 9.0)


def test_the_scales_fall_back_to_what_was_found() -> None:
    # no keyword hit, no complete score: the text alone decides, on its own best
    [f] = fuse([], [thit("knowledge/a.md", 0.5)], 5, None)
    assert f.score == pytest.approx(1.0)
    # a keyword scale of zero adds nothing rather than dividing by it
    [g] = fuse([khit("knowledge/a.md", 0.0, ("a",), derived=True)], [], 5, {"a": 1.0}, 0.0)
    assert g.score == 0.0
    # small keyword scores are shares of the best, not of one
    [h] = fuse([khit("knowledge/a.md", 0.5, ("a",), derived=True)], [], 5, {"a": 1.0})
    assert h.score == pytest.approx(KEYWORD_SHARE)
    # a declared key covering a small-weighted question still counts its coverage
    small = khit("knowledge/a.md", 1.0, ("alpha",), keys=("alpha",))
    assert keyword_share(small, {"alpha": 0.5, "beta": 0.5}) == pytest.approx(
        KEYWORD_SHARE + (1 - KEYWORD_SHARE) * 0.25
    )
    # file scores replace a chunk's score; a file they do not name keeps its chunk's
    text = [thit("knowledge/a.md", 0.25), thit("knowledge/b.md", 0.5)]
    fused = fuse([], text, 5, {"w": 1.0}, 0.0, {("ada", "knowledge/a.md"): 1.0})
    assert [(f.path, f.score) for f in fused] == [("knowledge/a.md", 1.0), ("knowledge/b.md", 0.5)]


def test_an_excerpt_of_exactly_the_limit_is_not_marked_as_cut() -> None:
    words = " ".join(f"w{i}" for i in range(EXCERPT_WORDS))
    assert opening_excerpt(words) == words


def test_a_longer_chunk_than_the_mean_scores_lower_for_the_same_counts() -> None:
    stats = TextStats(10, 100, (("backup", 2),))  # mean chunk length 10
    short = Candidate("ada", "a.md", 1, 0, "", "", ({}, {"backup": 1}, 5))
    long = Candidate("ada", "b.md", 2, 0, "", "", ({}, {"backup": 1}, 20))
    scored = score_chunks(["backup"], [long, short], stats, {})
    assert [s.candidate.path for s in scored] == ["a.md", "b.md"]  # best first
    w = term_weights(["backup"], stats)["backup"]
    norm = K1 * (1 - B + B * 5 / 10)
    assert scored[0].score == pytest.approx(w * 1 * (K1 + 1) / (1 + norm))
    # no length statistics: no length normalisation
    flat = score_chunks(["backup"], [long, short], TextStats(10, 0, (("backup", 2),)), {})
    assert flat[0].score == pytest.approx(flat[1].score)
    assert flat[0].score == pytest.approx(w * (K1 + 1) / (1 + K1))
    # ties order by path, then base, then rowid
    twins = [
        Candidate("bruno", "a.md", 9, 0, "", "", ({}, {"backup": 1}, 5)),
        Candidate("ada", "a.md", 8, 0, "", "", ({}, {"backup": 1}, 5)),
        Candidate("ada", "a.md", 3, 0, "", "", ({}, {"backup": 1}, 5)),
    ]
    order = [
        (s.candidate.base, s.candidate.rowid) for s in score_chunks(["backup"], twins, stats, {})
    ]
    assert order == [("ada", 3), ("ada", 8), ("bruno", 9)]


def test_a_chunk_without_stored_counts_is_counted_from_its_text_and_heading() -> None:
    stats = TextStats(10, 100, (("backup", 2),))
    bare = Candidate("ada", "a.md", 1, 0, "Backup", "backup plan", None)
    stored = Candidate("ada", "a.md", 1, 0, "", "", counts_of("Backup", "backup plan"))
    [one] = score_chunks(["backup"], [bare], stats, {})
    [two] = score_chunks(["backup"], [stored], stats, {})
    assert one.score == pytest.approx(two.score)
    assert (
        one.score
        > score_chunks(["backup"], [Candidate("ada", "a.md", 1, 0, "", "backup plan")], stats, {})[
            0
        ].score
    )


def test_a_page_is_normalised_by_its_length_against_the_mean_page() -> None:
    from kb.pure.answering.textrank import page_score

    weights = {"backup": 2.0}
    forms = {"backup": frozenset({"backup"})}
    short, _ = page_score(({}, {"backup": 2}, 50), weights, forms, 100.0)
    long, _ = page_score(({}, {"backup": 2}, 200), weights, forms, 100.0)
    assert short > long
    assert short == pytest.approx(2.0 * 2 * (K1 + 1) / (2 + K1 * (1 - B + B * 0.5)))
    flat, held = page_score(({}, {"backup": 2}, 200), weights, forms, 0.0)
    assert flat == pytest.approx(2.0 * 2 * (K1 + 1) / (2 + K1)) and held == {"backup"}


def test_evidence_weights_of_an_empty_fleet_count_it_as_one_chunk() -> None:
    weights = evidence_weights(["alpha"], TextStats(0, 0, ()))
    assert weights["alpha"] == pytest.approx(math.log(2.0))


def test_a_section_of_exactly_the_limit_is_one_window_and_the_windows_cover_the_body() -> None:
    exact = "x" * MAX_CHARS
    assert windows(exact) == [exact]
    body = "y" * (MAX_CHARS + 1)
    parts = windows(body)
    assert len(parts) == 2 and parts[0] == "y" * MAX_CHARS
    assert parts[1] == "y" * (OVERLAP_CHARS + 1)  # the cut overlaps by the overlap
    assert "".join(p for p in parts)[0] == "y"


def test_a_window_breaks_at_the_last_paragraph_break_past_a_third() -> None:
    from kb.pure.notes.chunking import MIN_BREAK_BYTES

    first = "a" * (MIN_BREAK_BYTES + 10)
    second = "b" * 200
    third = "c" * (MAX_CHARS)
    body = f"{first}\n\n{second}\n\n{third}"
    parts = windows(body)
    assert parts[0] == f"{first}\n\n{second}"  # the last break, not the first
    # a break before the first third is not used: the window is cut hard
    early = "d" * (MIN_BREAK_BYTES - 10)
    hard = windows(f"{early}\n\n{'e' * (MAX_CHARS * 2)}")
    assert len(hard[0]) == MAX_CHARS
    # a break exactly at a third is not past it
    at = "f" * MIN_BREAK_BYTES
    cut = windows(f"{at}\n\n{'g' * (MAX_CHARS * 2)}")
    assert len(cut[0]) == MAX_CHARS


def test_the_next_window_starts_one_overlap_before_the_cut() -> None:
    body = "".join(chr(ord("a") + i % 26) for i in range(MAX_CHARS * 2))
    parts = windows(body)
    assert parts[1].startswith(body[MAX_CHARS - OVERLAP_CHARS : MAX_CHARS - OVERLAP_CHARS + 20])
    assert parts[0] == body[:MAX_CHARS]


def test_headings_are_one_to_six_hashes_then_a_space() -> None:
    text = "# T\n\nintro\n\n###### Six\n\nsix\n\n####### Seven\n\nseven\n\n#NoSpace\n\nafter\n"
    paths = [(c.heading_path, c.text) for c in chunk(text)]
    assert paths[0] == ("T", "intro")
    assert paths[1][0] == "T > Six"
    assert "####### Seven" in paths[1][1] and "#NoSpace" in paths[1][1]


def test_fences_of_either_kind_hide_headings_and_keyword_lines() -> None:
    text = (
        "# T\n\n~~~\n# not a heading\nSearch for: inside a fence\n~~~\n\n"
        "  ```python\n## also not\n  ```\n\nafter\n"
    )
    [only] = chunk(text)
    assert only.heading_path == "T"
    assert "# not a heading" in only.text and "## also not" in only.text
    assert "after" in only.text


def test_portuguese_keyword_lines_and_sections_are_left_out_too() -> None:
    text = (
        "# T\n\n**Buscar por:** `segredo`\n\ncorpo\n\n## Buscar por\n\n- oculto\n\n"
        "## Depois\n\nfim\n"
    )
    joined = " ".join(c.text for c in chunk(text))
    assert "segredo" not in joined and "oculto" not in joined
    assert "corpo" in joined and "fim" in joined


def test_front_matter_is_skipped_and_text_before_any_heading_is_kept() -> None:
    text = "---\ntitle: x\n---\nloose line\n\n# T\n\nbody\n"
    parts = [(c.heading_path, c.text) for c in chunk(text)]
    assert parts == [("", "loose line"), ("T", "body")]


def test_an_alias_of_no_words_is_skipped_and_the_next_line_still_applies() -> None:
    aliases = (("the", "nothing"), ("k8s", "kubernetes"))
    assert expand(["k8s"], aliases) == ["k8s", "kubernetes"]


def test_a_one_word_alias_matches_a_whole_word_only() -> None:
    assert expand(["dbx"], (("db", "database"),)) == ["dbx"]
    assert expand(["db"], (("db", "database"),)) == ["db", "database"]


def test_a_word_two_lines_add_is_added_once() -> None:
    aliases = (("k8s", "kubernetes cluster"), ("kube", "kubernetes"))
    assert expand(["k8s", "kube"], aliases) == ["k8s", "kube", "kubernetes", "cluster"]


def test_the_last_window_ends_at_the_body_without_a_search_for_a_break() -> None:
    body = "a" * 1700 + "\n\n" + "b" * 1000 + "\n\n" + "c" * 300
    parts = windows(body)
    assert len(parts) == 2
    assert parts[1].endswith("c" * 300) and parts[1].startswith("a" * 300)


def test_triple_backticks_inside_a_line_open_no_fence() -> None:
    text = "# T\n\nsay ```x``` here\n\n## After\n\nbody\n"
    assert [c.heading_path for c in chunk(text)] == ["T", "T > After"]


def test_no_chunks_or_tokens_means_no_length_normalisation() -> None:
    cand = Candidate("ada", "a.md", 1, 0, "", "", ({}, {"backup": 1}, 7))
    for stats in (TextStats(0, 0, ()), TextStats(0, 5, ()), TextStats(3, 0, ())):
        [s] = score_chunks(["backup"], [cand], stats, {})
        w = term_weights(["backup"], stats)["backup"]
        assert s.score == pytest.approx(w * (K1 + 1) / (1 + K1))


def test_a_page_counts_a_question_word_with_no_known_variants_as_itself() -> None:
    from kb.pure.answering.textrank import page_score

    score, held = page_score(({}, {"backup": 1}, 10), {"backup": 1.0}, {}, 10.0)
    assert score > 0 and held == {"backup"}


def test_short_windows_of_wide_characters_do_not_creep_one_character_at_a_time() -> None:
    """A break just past a third of a span (in bytes) can lie fewer characters ahead than the
    overlap when each character takes three bytes: the next window must still move on."""
    # 250 three-byte characters: 750 bytes, past a third of a span, but fewer characters
    # than the overlap; before the fix this body made 52 windows, 250, 249, 248, ... long
    body = "語" * 250 + "\n\n" + "x" * 3000
    parts = windows(body)
    # the second window starts right after the first (its leading blank line stripped); the
    # third starts one overlap before the second's end and runs to the end of the body
    second_end = 250 + MAX_CHARS
    assert [len(p) for p in parts] == [250, MAX_CHARS - 2, len(body) - (second_end - OVERLAP_CHARS)]
    assert parts[1].startswith("x") and "".join(parts).count("語") == 250


def test_a_page_counts_every_form_of_a_question_word() -> None:
    """A question word's forms (its stem's spellings on the page) all count toward the page's
    score, as they do for a chunk: `backups` on the page answers `backup`."""
    from kb.pure.answering.textrank import page_score

    forms = {"backup": frozenset({"backup", "backups"})}
    with_forms, held = page_score(({}, {"backups": 2}, 10), {"backup": 1.0}, forms, 10.0)
    without, _ = page_score(({}, {"backups": 2}, 10), {"backup": 1.0}, {}, 10.0)
    assert with_forms > 0.0 and held == frozenset({"backup"}) and without == 0.0


def test_a_body_that_fits_one_window_is_kept_as_it_is() -> None:
    body = "x" * (MAX_CHARS - 1) + " "
    assert windows(body) == [body]  # not stripped, not split: one window, the body itself


def test_a_window_exactly_one_overlap_long_moves_on() -> None:
    # 300 three-byte characters pass a third of a span in bytes: the break after them ends a
    # window exactly one overlap long, and the next must start after it, not at it again
    body = "語" * OVERLAP_CHARS + "\n\n" + "x" * 3000
    parts = windows(body)
    assert parts[0] == "語" * OVERLAP_CHARS and parts[1].startswith("x")
    assert "".join(parts).count("語") == OVERLAP_CHARS
