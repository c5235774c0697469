"""A held base ranked by numpy (kb.pure.answering.held.densetext) keeps exactly the chunks and the
scores, to the bit, that the Python ranking keeps: repeated and absent words, ties at the
limit broken by rowid, private chunks left out or kept."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kb.pure.answering.held.warmtext import WarmText
from tests.properties.test_warm_text_early_stop import EARLY, WORDS, bases

densetext = pytest.importorskip("kb.pure.answering.held.densetext")

asked = st.lists(st.sampled_from((*WORDS, "absent")), min_size=0, max_size=6)


def _dense(base: WarmText) -> WarmText:
    return attrs.evolve(
        base,
        dense=densetext.dense_of(base.post_chunk, base.post_weight, base.private, len(base.rowids)),
    )


@EARLY
@given(base=bases(), words=asked, limit=st.integers(-2, 40), include_private=st.booleans())
def test_numpy_keeps_what_python_keeps(
    base: WarmText, words: list[str], limit: int, include_private: bool
) -> None:
    fast = _dense(base)
    assert fast.dense is not None
    spans = [(base.at[i], base.at[i + 1], idf) for i, idf in base._weighted(words)]
    kept = fast.dense.top(spans, limit, include_private)
    if limit <= 0:
        assert kept == []  # no room keeps nothing
    else:
        expected = base.top_of_every_score(words, limit, include_private)
        assert [j for j, _ in kept] == [j for j, _ in expected]
        # the same floats, not merely close ones: fusion ranks files by them afterwards
        assert [s.hex() for _, s in kept] == [s.hex() for _, s in expected]
    assert fast.rank(words, limit, include_private) == base.rank(words, limit, include_private)


@EARLY
@given(base=bases(), words=asked, include_private=st.booleans())
def test_summing_the_postings_gives_what_summing_every_chunk_gives(
    base: WarmText, words: list[str], include_private: bool
) -> None:
    # `top` picks one way by the postings' share of the base (SPARSE_BELOW); both must find
    # the same chunks with the same floats, whichever it picks
    dense = _dense(base).dense
    assert dense is not None
    spans = [(base.at[i], base.at[i + 1], idf) for i, idf in base._weighted(words)]
    if not spans:
        return
    held, values = dense._sums_of_postings(spans, include_private)
    every_held, every_values = dense._sums_of_every_chunk(spans, include_private)
    assert held.tolist() == every_held.tolist()
    assert [v.hex() for v in values.tolist()] == [v.hex() for v in every_values.tolist()]
