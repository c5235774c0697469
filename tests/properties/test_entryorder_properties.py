"""kb.pure.answering.entryorder.EntryOrder answers as the dict it stands in for, whether the
paths come sorted (a tuple and a bisection) or not (a dict)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kb.pure.answering.entryorder import EntryOrder

paths = st.lists(st.text(min_size=1, max_size=8), unique=True, max_size=30)


@given(paths, st.integers(min_value=0, max_value=10_000), st.booleans(), st.text(max_size=8))
def test_entry_order_is_the_dict_of_places(
    rels: list[str], first: int, sort: bool, other: str
) -> None:
    if sort:
        rels = sorted(rels)
    order = EntryOrder(first, rels)
    expected = {rel: first + n for n, rel in enumerate(rels)}
    assert dict(order.items()) == expected
    assert list(order) == list(expected)
    assert len(order) == len(expected)
    for rel, place in expected.items():
        assert rel in order
        assert order[rel] == place
        assert order.get_place(rel) == place
    if other not in expected:
        assert other not in order
        assert order.get_place(other) is None
        with pytest.raises(KeyError) as refused:
            order[other]
        assert refused.value.args == (other,)


def test_a_path_that_is_not_a_string_is_not_held() -> None:
    held: object = 3
    assert held not in EntryOrder(0, ["a", "b"])
