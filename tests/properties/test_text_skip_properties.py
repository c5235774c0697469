"""A question skips work on a base only where the skip is proved not to change the answer.

Two shortcuts of issue 15: a stem class that `text_words` proves empty is not scanned in the
FTS5 vocabulary, and a base whose text index provably holds none of a question's words is not
asked to rank (`Store.holds_none`). Neither may change an answer: on generated fleets, before
and after edits made behind kb's back, every question gets exactly the answer of a separate
open that scans every stem and ranks in every base, including after an index written by a kb
that does not keep `text_words` (its stamp then no longer matches). After `kb index`,
`text_words` holds exactly the index's vocabulary, under its stamp.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.io import store
from kb.io.answering.memory import Memory
from kb.io.notes.indexer import index_bases
from kb.pure.notes.tokens import stem
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


@contextmanager
def _no_shortcuts() -> Iterator[None]:
    """Every stem scanned in the vocabulary and every base asked to rank."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(store.Store, "holds_none", lambda self, terms: False)
        mp.setattr(store.Store, "_text_words_current", lambda self: False)
        yield


def _agree(root: Path, include_private: bool, questions: list[str]) -> None:
    with _no_shortcuts(), Memory.open([str(root)], all=include_private) as memory:
        expected = [memory.ask(q) for q in questions]
    with Memory.open([str(root)], all=include_private) as memory:
        for q, answer in zip(questions, expected, strict=True):
            assert memory.ask(q) == answer, q
            terms = memory.terms(q)
            for s in memory._stores:
                _, variants = s.text_stats(terms)
                words = [w for t in terms for w in variants.get(t, (t,))]
                if s.holds_none(words):
                    assert s.rank(words, 1000, True)[1] == [], (q, words)


def _vocabulary_kept(root: Path) -> None:
    """Each index's `text_words` is its vocabulary, each word under its stem, stamped with
    the structure record it was read at."""
    for db in root.glob("fleet/*/.kb/index.db"):
        conn = sqlite3.connect(db)
        try:
            conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, chunks, 'row')")
            vocabulary = {str(t) for (t,) in conn.execute("SELECT term FROM temp.v")}
            kept = {(str(a), str(b)) for a, b in conn.execute("SELECT stem, word FROM text_words")}
            assert kept == {(stem(w), w) for w in vocabulary}, db
            structure = conn.execute("SELECT block FROM chunks_data WHERE id = 10").fetchone()
            stamp = conn.execute("SELECT structure FROM text_words_stamp").fetchone()
            assert stamp is not None
            assert bytes(stamp[0]) == (bytes(structure[0]) if structure else b"")
        finally:
            conn.close()


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
        _vocabulary_kept(root)
        _agree(root, include_private, questions)
        apply(root, fleet, per_base)
        # indexed by a kb that keeps no `text_words`: the old table must not be trusted
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(store.Store, "refresh_text_words", lambda self: False)
            index_bases([str(root)], include_private)
        _agree(root, include_private, questions)
        index_bases([str(root)], include_private)
        _vocabulary_kept(root)
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
