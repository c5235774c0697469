"""A base whose text index provably holds none of a question's words is not asked to rank.

`Store.holds_none` decides from the stem scans `text_stats` already made (issue 15: the
ranking query was a third of a refused question's cost). Skipping must never change an
answer: on generated fleets, before and after edits made behind kb's back, every question
gets exactly the answer the always-ranking path gives, and a base judged to hold none of
the words really returns no row when asked.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.io import store
from kb.io.indexer import index_bases
from kb.io.memory import Answer, Memory
from tests.properties.strategies import PLAIN_WORDS, FleetSpec, files_of, fleets, write_files
from tests.properties.test_cache_properties import Change, apply, changes

# Words a question may hold: the notes' own words, forms that share or just miss their stem
# (`floors`, `floored`, `floo`), words no note holds, non-ASCII and mixed forms the tokenizer
# may read otherwise than the scorer does, and numbers.
_forms = st.builds(
    lambda w, suffix: w + suffix,
    st.sampled_from(PLAIN_WORDS),
    st.sampled_from(("", "s", "es", "ing", "ed", "e", "y", "ies")),
)
question_word = st.one_of(
    _forms,
    st.sampled_from(PLAIN_WORDS).map(lambda w: w[:-1]),
    st.text(alphabet="abcdefgiklnoprstuxyz019", min_size=1, max_size=9),
    st.sampled_from(("ação", "rápida", "über", "café", "tide_pool", "q4", "2024", "flöor")),
)
question = st.lists(question_word, min_size=1, max_size=4).map(" ".join)

SKIP = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _always_ranked(memory: Memory, q: str) -> Answer:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(store.Store, "holds_none", lambda self, terms: False)
        return memory.ask(q)


def _agree(root: Path, include_private: bool, questions: list[str]) -> None:
    with Memory.open([str(root)], all=include_private) as memory:
        for q in questions:
            assert memory.ask(q) == _always_ranked(memory, q), q
            terms = memory.terms(q)
            for s in memory._stores:
                _, variants = s.text_stats(terms)
                words = [w for t in terms for w in variants.get(t, (t,))]
                if s.holds_none(words):
                    assert s.rank(words, 1000, True)[1] == [], (q, words)


@SKIP
@given(
    fleet=fleets(),
    per_base=st.lists(changes(maps=False), min_size=3, max_size=3),
    include_private=st.booleans(),
    questions=st.lists(question, min_size=1, max_size=6),
)
def test_skipping_a_base_that_holds_no_word_never_changes_an_answer(
    fleet: FleetSpec, per_base: list[Change], include_private: bool, questions: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for base in fleet.bases:
            write_files(root / "fleet" / base.name, files_of(base))
        index_bases([str(root)], include_private)
        _agree(root, include_private, questions)
        apply(root, fleet, per_base)
        index_bases([str(root)], include_private)
        _agree(root, include_private, questions)


def test_a_word_no_base_holds_skips_every_ranking(tmp_path: Path) -> None:
    """The case the skip exists for, so the property above cannot pass vacuously: a
    question of words no note holds asks no base to rank, and is still refused."""
    base = tmp_path / "fleet" / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = Ada\n")
    (base / "knowledge" / "tide.md").write_text(
        "# Tide tables\n\n**Search for:** tide, harbour pilot\n\nThe moon pulls the sea.\n"
    )
    index_bases([str(tmp_path)], False)
    ranked: list[object] = []
    with Memory.open([str(tmp_path)]) as memory, pytest.MonkeyPatch.context() as mp:
        real = store.Store.rank

        def counted(self: store.Store, *args: Any) -> Any:
            ranked.append(args)
            return real(self, *args)

        mp.setattr(store.Store, "rank", counted)
        assert not memory.ask("quixotry zeugma").found
        assert ranked == []
        assert memory.ask("moon tides").found  # a held word is still ranked
        assert len(ranked) == 1
        assert not memory.ask("東京 quixotry").found  # not plain ASCII: asked, to be sure
        assert len(ranked) == 2
