"""A stat pass's light headers, held as columns.

An open fleet holds one light header per file of every base until it closes. As one object
each (a path, a privacy flag, a bucket, a 16-character content hash, a note) they were 13.4
of the 52 MB a one-shot `kb route` traced at 100,000 notes, and the map from path to light
header a question builds another 2.3. Here a pass is a tuple of the walk's own path strings,
one byte of privacy and one of bucket a file, the hashes joined into one string, and the
rare notes by place; a `LightHeader` is made when someone asks for one. The walk gives the
paths in ascending order, so a path is found by bisection; paths out of order (no walk makes
them) are found through a dict instead.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import compress
from typing import overload

from attrs import frozen

from kb.pure.answering.entries import Bucket

# Every content hash kb writes is 16 hexadecimal characters (`content_hash`: blake2b, 8
# bytes). A pass holding a hash of another length (an index from an older kb) keeps a tuple.
HASH_WIDTH = 16


@frozen
class LightHeader:
    """What the stat pass knows of a file without decoding its header: enough to count
    entries, place a file in scope and say why one is unreadable (`note`, empty otherwise)."""

    rel: str
    private: bool
    bucket: Bucket | str
    hash: str
    note: str


class Lights(Sequence[LightHeader]):
    """One base's light headers in walk order: a sequence of `LightHeader`, made on demand
    from columns (`of` builds one). Equal to another pass with the same headers."""

    __slots__ = ("_buckets", "_codes", "_hashes", "_notes", "_places", "_private", "rels")

    def __init__(
        self,
        rels: tuple[str, ...],
        private: bytes,
        codes: bytes,
        buckets: tuple[str, ...],
        hashes: str | tuple[str, ...],
        notes: dict[int, str],
    ) -> None:
        self.rels = rels
        self._private = private
        self._codes = codes  # by place: the bucket's place in `_buckets`
        self._buckets = buckets
        self._hashes = hashes  # joined at HASH_WIDTH, or one string a file
        self._notes = notes  # place -> note, for the files that have one
        self._places: dict[str, int] | None = None
        if not all(map(str.__lt__, rels, rels[1:])):
            self._places = {rel: i for i, rel in enumerate(rels)}

    @classmethod
    def of(cls, headers: Iterable[LightHeader]) -> Lights:
        """The columns of these light headers, in their order."""
        listed = list(headers)
        return cls.from_columns(
            tuple(h.rel for h in listed),
            (h.private for h in listed),
            (h.bucket for h in listed),
            [h.hash for h in listed],
            [h.note for h in listed],
        )

    @classmethod
    def from_columns(
        cls,
        rels: tuple[str, ...],
        private: Iterable[object],
        buckets: Iterable[str],
        hashes: Sequence[str],
        notes: Sequence[str],
    ) -> Lights:
        """A pass from its columns, each in walk order: each distinct bucket is held once.
        Raises ValueError past 256 distinct buckets (kb writes four)."""
        table: dict[str, int] = {}
        codes = bytes(table.setdefault(b, len(table)) for b in buckets)
        joined: str | tuple[str, ...] = tuple(hashes)
        if all(len(h) == HASH_WIDTH for h in hashes):
            joined = "".join(hashes)
        return cls(
            rels,
            bytes(map(bool, private)),
            codes,
            tuple(table),
            joined,
            {i: notes[i] for i in compress(range(len(notes)), notes)},
        )

    # -- one file ------------------------------------------------------------------------

    def _hash(self, i: int) -> str:
        if isinstance(self._hashes, str):
            return self._hashes[i * HASH_WIDTH : (i + 1) * HASH_WIDTH]
        return self._hashes[i]

    def _header(self, i: int) -> LightHeader:
        return LightHeader(
            self.rels[i],
            bool(self._private[i]),
            self._buckets[self._codes[i]],
            self._hash(i),
            self._notes.get(i, ""),
        )

    def place(self, rel: str) -> int | None:
        """The place of the file at `rel`, or None when the pass holds no such file."""
        if self._places is not None:
            return self._places.get(rel)
        i = bisect_left(self.rels, rel)
        return i if i < len(self.rels) and self.rels[i] == rel else None

    def get(self, rel: str) -> LightHeader | None:
        """The light header of the file at `rel`, or None."""
        i = self.place(rel)
        return None if i is None else self._header(i)

    def by_rel(self) -> Mapping[str, LightHeader]:
        """The light headers by path, looked up in the columns (no dict is built)."""
        return _ByRel(self)

    # -- every file ----------------------------------------------------------------------

    def buckets(self) -> Iterator[tuple[str, str, str]]:
        """(path, bucket, note) of every file, in order, making no `LightHeader`."""
        names, notes = self._buckets, self._notes
        for i, (rel, code) in enumerate(zip(self.rels, self._codes, strict=True)):
            yield rel, names[code], notes.get(i, "")

    # -- the sequence --------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.rels)

    @overload
    def __getitem__(self, i: int) -> LightHeader: ...

    @overload
    def __getitem__(self, i: slice) -> list[LightHeader]: ...

    def __getitem__(self, i: int | slice) -> LightHeader | list[LightHeader]:
        if isinstance(i, slice):
            return [self._header(j) for j in range(*i.indices(len(self.rels)))]
        if i < 0:
            i += len(self.rels)
        if not 0 <= i < len(self.rels):
            raise IndexError("light header index out of range")
        return self._header(i)

    def __iter__(self) -> Iterator[LightHeader]:
        return map(self._header, range(len(self.rels)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Lights):
            return len(self) == len(other) and all(map(LightHeader.__eq__, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Lights({list(self)!r})"


class _ByRel(Mapping[str, LightHeader]):
    """`Lights.by_rel`: path -> light header."""

    __slots__ = ("_lights",)

    def __init__(self, lights: Lights) -> None:
        self._lights = lights

    def __getitem__(self, rel: str) -> LightHeader:
        found = self._lights.get(rel)
        if found is None:
            raise KeyError(rel)
        return found

    def __contains__(self, rel: object) -> bool:
        return isinstance(rel, str) and self._lights.place(rel) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(self._lights.rels))

    def __len__(self) -> int:
        return len(dict.fromkeys(self._lights.rels))
