"""One base's entries by their place in the fleet's entry order: the keyword ranking's last
tie-break, and how the persisted postings' rows (a base and a path) find their entry.

A dict from path to place cost an open fleet 5.4 MB at 100,000 notes (its table and an
integer per entry). The stat pass lists a base's files in walk order, which is path order,
so the entries' paths come sorted: a tuple of them (the walk's own strings) and a bisection
answer the same. Paths that are not strictly ascending (no walk makes them) keep a dict.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence


class EntryOrder(Mapping[str, int]):
    """path -> place, for the entries of one base (each path once): `first` is the first
    entry's place, and the others follow in the order given."""

    __slots__ = ("_first", "_places", "_rels")

    def __init__(self, first: int, rels: Sequence[str]) -> None:
        self._first = first
        self._rels = tuple(rels)
        self._places: dict[str, int] | None = None
        if not all(map(str.__lt__, rels, rels[1:])):
            self._places = {rel: first + n for n, rel in enumerate(rels)}

    def get_place(self, rel: str) -> int | None:
        """The place of `rel`, or None when it is no entry of this base."""
        if self._places is not None:
            return self._places.get(rel)
        i = bisect_left(self._rels, rel)
        return self._first + i if i < len(self._rels) and self._rels[i] == rel else None

    def __getitem__(self, rel: str) -> int:
        found = self.get_place(rel)
        if found is None:
            raise KeyError(rel)
        return found

    def __contains__(self, rel: object) -> bool:
        return isinstance(rel, str) and self.get_place(rel) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._rels)

    def __len__(self) -> int:
        return len(self._rels)
