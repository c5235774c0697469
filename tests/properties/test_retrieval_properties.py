"""Properties of the retrieval changes for real vaults (issue 13, decision 0016): question
hygiene, Unicode folding, light stemming, derived keys, the fleet-wide text scale, coverage
and the evidence verdict."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.io.answering.memory import Memory
from kb.io.notes.indexer import index_bases
from kb.pure.answering.textrank import Candidate, TextStats, score_chunks
from kb.pure.answering.verdict import Evidence, Verdict, coverage_of, verdict_of
from kb.pure.notes.header import derived_keys
from kb.pure.notes.tokens import MAX_QUESTION_CHARS, fold, normalise, question_terms, stem

PURE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REPO = Path(__file__).resolve().parents[2]

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzçãéíóúßМосква", min_size=1, max_size=12)


@PURE
@given(st.lists(words, min_size=1, max_size=12), st.integers(min_value=2, max_value=5))
def test_repeating_a_question_s_words_changes_nothing(ws: list[str], times: int) -> None:
    question = " ".join(ws)
    repeated = " ".join(w for w in ws for _ in range(times))
    assert question_terms(repeated) == question_terms(question)


@PURE
@given(st.text(max_size=200))
def test_a_question_s_terms_are_distinct_and_come_from_its_head(text: str) -> None:
    terms = question_terms(text + " tail" * 1000)
    assert len(terms) == len(set(terms))
    assert set(question_terms(text[:MAX_QUESTION_CHARS])) <= set(terms)


def test_folding_is_full_unicode_for_keys_and_questions_alike() -> None:
    assert normalise("Москва") == normalise("москва") == ["москва"]
    assert normalise("AÇÃO Straße ÉCOLE") == ["acao", "strasse", "ecole"]
    assert fold("ǅemal") == fold("ǆemal")


@PURE
@given(st.text(max_size=60))
def test_folding_is_idempotent(text: str) -> None:
    assert fold(fold(text)) == fold(text)


@PURE
@given(st.from_regex(r"[a-z]{1,14}", fullmatch=True))
def test_a_stem_is_a_prefix_never_shorter_than_three_letters(word: str) -> None:
    root = stem(word)
    assert word.startswith(root)
    assert len(root) >= min(3, len(word))


def test_stemming_joins_the_forms_of_a_word() -> None:
    assert {stem(w) for w in ("commit", "commits", "committed", "committing")} == {"commit"}
    assert stem("files") == stem("file")
    assert stem("queries") == stem("query")
    assert stem("string") == "string"


note_text = st.lists(
    st.one_of(
        st.text(max_size=40),
        st.sampled_from(["---", "# Title", "## Section", "tags: [a, b]", "  - item", "```"]),
    ),
    max_size=12,
).map("\n".join)


@PURE
@given(note_text)
def test_derived_keys_come_only_from_the_note_s_own_text(text: str) -> None:
    for key in derived_keys(text):
        assert key and key in text


def test_derived_keys_read_front_matter_lists_and_headings() -> None:
    text = (
        "---\ntitle: Rebase notes\ntags: [git, 'history']\naliases:\n  - rewrite commits\n---\n"
        "# Rebase\n\nbody\n\n## Squash fixups\n```\n# not a heading\n```\n"
    )
    assert derived_keys(text) == (
        "Rebase notes",
        "rewrite commits",
        "git",
        "history",
        "Squash fixups",
    )


weights = st.dictionaries(
    st.from_regex(r"[a-z]{2,6}", fullmatch=True),
    st.floats(min_value=0, max_value=50, allow_nan=False),
    max_size=8,
)


@PURE
@given(weights, st.sets(st.from_regex(r"[a-z]{2,6}", fullmatch=True), max_size=8))
def test_coverage_stays_between_zero_and_one(ws: dict[str, float], matched: set[str]) -> None:
    assert 0.0 <= coverage_of(ws, matched) <= 1.0


evidence = st.builds(
    Evidence,
    coverage=st.floats(min_value=0, max_value=1),
    matched=st.integers(min_value=0, max_value=8),
    asked=st.integers(min_value=0, max_value=8),
    text_lead=st.floats(min_value=-5, max_value=5),
    keyword_lead=st.floats(min_value=0, max_value=100),
    declared=st.booleans(),
    entries=st.integers(min_value=0, max_value=5000),
)


@PURE
@given(evidence)
def test_no_hit_on_one_word_of_several_or_below_two_entries(e: Evidence) -> None:
    if verdict_of(e) == "hit":
        assert e.entries >= 2
        assert e.matched >= min(2, e.asked)
        assert e.coverage >= 0.4


candidate = st.builds(
    Candidate,
    base=st.sampled_from(["ada", "bruno", "clara"]),
    path=st.from_regex(r"knowledge/[a-z]{1,8}\.md", fullmatch=True),
    rowid=st.integers(min_value=1, max_value=10_000),
    source=st.just(0),
    heading_path=st.text(alphabet="abc xyz", max_size=20),
    text=st.text(alphabet="abc xyz\n", max_size=80),
)


@PURE
@given(st.lists(candidate, max_size=12, unique_by=lambda c: (c.base, c.path)), st.randoms())
def test_the_text_ranking_ignores_the_order_candidates_arrive_in(
    cands: list[Candidate], rnd: object
) -> None:
    stats = TextStats(100, 2000, (("abc", 10), ("xyz", 40)))
    shuffled = list(cands)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    a = [
        (s.candidate.base, s.candidate.path, s.score)
        for s in score_chunks(["abc", "xyz"], cands, stats)
    ]
    b = [
        (s.candidate.base, s.candidate.path, s.score)
        for s in score_chunks(["abc", "xyz"], shuffled, stats)
    ]
    assert a == b


QUESTIONS = (
    "how often should I run a backup restore test",
    "where do I see the p99 latency on the grafana dashboard",
    "cheap flights with a short layover",
    "how long can leftovers stay outside the fridge",
    "how far away is the andromeda galaxy",
)


def _example(tmp: Path) -> Path:
    dst = tmp / "fleet"
    shutil.copytree(REPO / "examples" / "fleet", dst, ignore=shutil.ignore_patterns(".kb"))
    return dst


def _answers(
    paths: list[str], renames: dict[str, str]
) -> list[tuple[Verdict, list[tuple[str, str]]]]:
    back = {new: old for old, new in renames.items()}
    out = []
    with Memory.open(paths) as memory:
        for q in QUESTIONS:
            a = memory.ask(q)
            out.append(
                (a.confidence.verdict, [(back.get(f.base, f.base), f.path) for f in a.found])
            )
    return out


def test_base_order_and_base_names_never_change_what_is_returned(tmp_path: Path) -> None:
    root = _example(tmp_path)
    bases = sorted(str(p) for p in (root / "fleet").iterdir() if p.is_dir())
    index_bases(bases, False)
    forward = _answers(bases, {})
    assert _answers(list(reversed(bases)), {}) == forward
    # Rename every agent base (its folder name is its base name; `person` is a role, kept)
    # and map the names back.
    renames = {Path(b).name: f"zz-{Path(b).name}" for b in bases if Path(b).name != "person"}
    renamed = []
    for b in bases:
        target = Path(b).with_name(renames.get(Path(b).name, Path(b).name))
        Path(b).rename(target)
        shutil.rmtree(target / ".kb", ignore_errors=True)
        renamed.append(str(target))
    index_bases(renamed, False)
    assert _answers(list(reversed(renamed)), renames) == forward
