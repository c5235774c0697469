"""Rows of one walk held as columns and found by path: what an open fleet keeps per file.

An open fleet holds a few facts for every file of every base until it closes. As one
object a file (a `FileStat`, a `LightHeader`) they were most of what a one-shot `kb route`
held at 100,000 notes (decision 0049). A subclass keeps each fact as a column in walk order
and makes a row only when one is asked for (`_row`); this class answers the sequence and
the lookup by path for all of them.

Rules of this module:
- `rels` is the paths in walk order, each once: the walk sorts what it finds by path, so a
  path is found by bisection. Paths out of order or repeated (no walk gives them) are found
  through a dict instead, the last place of a repeated path winning, as a dict built from
  the rows would keep it.
- Two tables are equal when they are of the same class and hold equal rows in the same
  order.
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from typing import TypeVar, overload

_Row = TypeVar("_Row")


class PathColumns(Sequence[_Row]):
    """A walk's rows by place and by path; a subclass holds the columns and makes a row."""

    __slots__ = ("_places", "rels")

    def __init__(self, rels: tuple[str, ...]) -> None:
        self.rels = rels
        self._places: dict[str, int] | None = None
        if not all(map(str.__lt__, rels, rels[1:])):
            self._places = {rel: i for i, rel in enumerate(rels)}

    def _row(self, i: int) -> _Row:
        """The row at place `i` (0 <= i < len), made from the columns."""
        raise NotImplementedError

    def place(self, rel: str) -> int | None:
        """The place of the row at `rel`, or None when there is none."""
        if self._places is not None:
            return self._places.get(rel)
        i = bisect_left(self.rels, rel)
        return i if i < len(self.rels) and self.rels[i] == rel else None

    def get(self, rel: str) -> _Row | None:
        """The row at `rel`, or None."""
        i = self.place(rel)
        return None if i is None else self._row(i)

    def by_rel(self) -> Mapping[str, _Row]:
        """The rows by path, looked up in the columns (no dict is built)."""
        return ByPath(self)

    def __len__(self) -> int:
        return len(self.rels)

    @overload
    def __getitem__(self, i: int) -> _Row: ...

    @overload
    def __getitem__(self, i: slice) -> list[_Row]: ...

    def __getitem__(self, i: int | slice) -> _Row | list[_Row]:
        if isinstance(i, slice):
            return [self._row(j) for j in range(*i.indices(len(self.rels)))]
        if i < 0:
            i += len(self.rels)
        if not 0 <= i < len(self.rels):
            raise IndexError(f"{type(self).__name__} index out of range")
        return self._row(i)

    def __iter__(self) -> Iterator[_Row]:
        return map(self._row, range(len(self.rels)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PathColumns) or type(other) is not type(self):
            return NotImplemented
        return len(self) == len(other) and all(map(operator.eq, self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class ByPath(Mapping[str, _Row]):
    """`PathColumns.by_rel`: path -> row."""

    __slots__ = ("_table",)

    def __init__(self, table: PathColumns[_Row]) -> None:
        self._table = table

    def __getitem__(self, rel: str) -> _Row:
        i = self._table.place(rel)
        if i is None:
            raise KeyError(rel)
        return self._table[i]

    def __contains__(self, rel: object) -> bool:
        return isinstance(rel, str) and self._table.place(rel) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(self._table.rels))

    def __len__(self) -> int:
        return len(dict.fromkeys(self._table.rels))
