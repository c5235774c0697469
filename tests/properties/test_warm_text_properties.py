"""A warm Memory answers exactly as a cold one (kb.pure.answering.held.warmtext against
kb.io.store's SQL).

The in-memory copy of each base's text index must give every question the answer the FTS5
path gives: the same files, scores, passages, verdict and keyword hits, public and `--all`,
and with the stem-class and pruning bounds set small enough that a tiny generated fleet
reaches every one of them. A write after warming must never be answered from the stale
copy: until it is read again the base answers from SQLite, and after that from memory,
the same either way.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kb.io.answering.memory as memory_module
import kb.io.store.vocabulary as store_module
from kb.io.answering.memory import Answer, Memory
from kb.io.notes.indexer import index_bases
from kb.io.store import postingsfile
from tests.properties.strategies import PLAIN_WORDS, examples, fleets, write_fleet

# Question words: the fleet's own, words sharing a stem or a prefix with them, words no
# note holds, and stopwords, so stem classes, variants and refusals all come up.
question_words = st.sampled_from(
    (*PLAIN_WORDS, "floors", "routers", "kernels", "harbour", "lant", "flo", "zzq", "the", "how")
)
questions = st.lists(
    st.lists(question_words, min_size=1, max_size=4).map(" ".join), min_size=1, max_size=4
)

# Notes written beside the generated ones: several words of one stem class (`floor`,
# `floors`, `flooring`), so the class bounds below bind, in heading and text, some private.
VARIANTS = (
    "floor", "floors", "flooring", "floored", "router", "routers", "routing", "routed",
    "kernel", "kernels", "lantern", "lanterns", "harbor", "harbors", "harboring",
)  # fmt: skip
variant_notes = st.lists(
    st.tuples(
        st.sampled_from(("knowledge", "records", "tools")),
        st.lists(st.sampled_from(VARIANTS), min_size=1, max_size=3).map(" ".join),
        st.lists(st.sampled_from(VARIANTS), min_size=1, max_size=12).map(" ".join),
    ),
    max_size=4,
)
# (STEM_SCAN_MAX, STEM_CLASS_MAX, PRUNE_MIN_CHUNKS, BASE_CANDIDATES): kb's own, and small
# enough to bind on a few notes (one candidate a base: a private chunk ranked first would
# push out the public one a public question must get)
bounds = st.sampled_from(
    ((2000, 16, 10_000, 15), (2, 1, 1, 1), (1, 2, 3, 2), (3, 1, 2, 1), (2000, 16, 10_000, 1))
)


def _set_mapped(monkeypatch: pytest.MonkeyPatch, mapped: bool) -> None:
    """Every base held from a postings file (decision 0053), however small, or none (a
    file needs numpy, which the test extras install; without it none is made)."""
    monkeypatch.setattr(postingsfile, "MAPPED_MIN_POSTINGS", 0 if mapped else 1 << 62)


def _facts(answer: Answer) -> tuple[object, ...]:
    return (
        answer.terms,
        tuple(
            (f.base, f.path, f.score, f.title, tuple((p.heading_path, p.text) for p in f.passages))
            for f in answer.found
        ),
        answer.confidence,
        answer.keyword_top,
        tuple((h.entry.base, h.entry.rel, h.score) for h in answer.keyword_hits),
    )


@pytest.fixture
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="kbwarm-") as d:
        yield Path(d)


def _set_bounds(monkeypatch: pytest.MonkeyPatch, found: tuple[int, int, int, int]) -> None:
    scan, cap, prune, candidates = found
    monkeypatch.setattr(store_module, "STEM_SCAN_MAX", scan)
    monkeypatch.setattr(store_module, "STEM_CLASS_MAX", cap)
    monkeypatch.setattr(store_module, "PRUNE_MIN_CHUNKS", prune)
    monkeypatch.setattr(memory_module, "BASE_CANDIDATES", candidates)


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    fleet=fleets(),
    extra=variant_notes,
    asked=questions,
    found=bounds,
    index_all=st.booleans(),
    include_private=st.booleans(),
    top=st.sampled_from((1, 5)),
    mapped=st.booleans(),
)
def test_a_warm_memory_answers_as_a_cold_one(
    monkeypatch: pytest.MonkeyPatch,
    fleet: object,
    extra: list[tuple[str, str, str]],
    asked: list[str],
    found: tuple[int, int, int, int],
    index_all: bool,
    include_private: bool,
    top: int,
    mapped: bool,
) -> None:
    _set_bounds(monkeypatch, found)
    _set_mapped(monkeypatch, mapped)
    with tempfile.TemporaryDirectory(prefix="kbwarm-") as d:
        root = Path(d)
        write_fleet(root, fleet)  # type: ignore[arg-type]
        base = sorted((root / "fleet").iterdir())[0]
        for n, (folder, title, body) in enumerate(extra):
            note = base / folder / f"variants-{n}.md"
            note.parent.mkdir(parents=True, exist_ok=True)
            note.write_text(f"# {title}\n\n{body}\n\n## {title} again\n\n{body} {title}\n")
        fleet_root = str(root / "fleet")
        # an index written with `--all` holds the private chunks, flagged: a public open
        # must leave them out of each base's own ranking, as FTS5's path does
        index_bases([fleet_root], index_all)
        with Memory.open(fleet_root, all=include_private) as cold:
            expected = [_facts(cold.ask(q, top)) for q in asked]
        # mapped: the first open makes each base's postings file, the second maps it
        for _ in range(2 if mapped else 1):
            with Memory.open(fleet_root, all=include_private) as warm:
                held = warm.warm()
                assert held == len(warm.bases)  # every base of a fresh index is held
                assert warm.is_warm
                assert [_facts(warm.ask(q, top)) for q in asked] == expected


@settings(
    max_examples=examples(10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(fleet=fleets(), asked=questions, word=st.sampled_from(PLAIN_WORDS), mapped=st.booleans())
def test_a_write_after_warming_is_never_answered_from_the_stale_copy(
    monkeypatch: pytest.MonkeyPatch, fleet: object, asked: list[str], word: str, mapped: bool
) -> None:
    _set_mapped(monkeypatch, mapped)
    with tempfile.TemporaryDirectory(prefix="kbwarm-") as d:
        root = Path(d)
        write_fleet(root, fleet)  # type: ignore[arg-type]
        fleet_root = str(root / "fleet")
        index_bases([fleet_root], False)
        cold = Memory.open(fleet_root)
        warm = Memory.open(fleet_root)
        try:
            warm.warm()
            # another writer adds a note holding the asked words to the first base's index
            base = sorted((root / "fleet").iterdir())[0]
            note = base / "knowledge" / f"late-{word}.md"
            note.parent.mkdir(parents=True, exist_ok=True)
            note.write_text(f"# Late {word}\n\n{' '.join(asked)} {word} {word}\n")
            index_bases([fleet_root], False)
            again = [*asked, word]
            expected = [_facts(cold.ask(q)) for q in again]
            # stale: answered from SQLite, the copy read again in the background
            assert [_facts(warm.ask(q)) for q in again] == expected
            warm.warm()  # and once read again, from memory: the same
            assert warm.is_warm
            assert [_facts(warm.ask(q)) for q in again] == expected
        finally:
            cold.release()
            warm.release()
