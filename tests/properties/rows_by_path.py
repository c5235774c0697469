"""What every table of kb.pure.notes.pathcolumns must answer, checked against the list of
rows it was made from: by place, by slice, by path, and for a path it does not hold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kb.pure.notes.pathcolumns import PathColumns


def check_rows_by_path(table: PathColumns[Any], listed: Sequence[Any], other: str) -> None:
    """`table` holds exactly `listed` (rows with a `rel`), in order; `other` is any path."""
    assert list(table) == list(listed)
    assert len(table) == len(listed)
    assert table.rels == tuple(row.rel for row in listed)
    assert [table[i] for i in range(len(listed))] == list(listed)
    assert [table[i] for i in range(-len(listed), 0)] == list(listed)
    assert table[1:4] == list(listed[1:4])
    last = {row.rel: row for row in listed}  # as a dict built from the rows keeps them
    view = table.by_rel()
    for rel, row in last.items():
        assert rel in view
        assert view[rel] == row
        assert table.get(rel) == row
    assert set(view) == set(last)
    assert len(view) == len(last)
    if other not in last:
        assert other not in view
        assert table.get(other) is None
        assert table.place(other) is None
        with pytest.raises(KeyError):
            view[other]
    with pytest.raises(IndexError):
        table[len(listed)]
