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

from collections.abc import Iterable, Iterator, Sequence
from itertools import compress

from attrs import frozen

from kb.pure.answering.entries import Bucket
from kb.pure.notes.pathcolumns import PathColumns

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


class Lights(PathColumns[LightHeader]):
    """One base's light headers in walk order: a sequence of `LightHeader`, made on demand
    from columns (`of` builds one), found by path (kb.pure.notes.pathcolumns)."""

    __slots__ = ("_buckets", "_codes", "_hashes", "_notes", "_private")

    def __init__(
        self,
        rels: tuple[str, ...],
        private: bytes,
        codes: bytes,
        buckets: tuple[str, ...],
        hashes: str | tuple[str, ...],
        notes: dict[int, str],
    ) -> None:
        super().__init__(rels)
        self._private = private
        self._codes = codes  # by place: the bucket's place in `_buckets`
        self._buckets = buckets
        self._hashes = hashes  # joined at HASH_WIDTH, or one string a file
        self._notes = notes  # place -> note, for the files that have one

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

    def _hash(self, i: int) -> str:
        if isinstance(self._hashes, str):
            return self._hashes[i * HASH_WIDTH : (i + 1) * HASH_WIDTH]
        return self._hashes[i]

    def _row(self, i: int) -> LightHeader:
        return LightHeader(
            self.rels[i],
            bool(self._private[i]),
            self._buckets[self._codes[i]],
            self._hash(i),
            self._notes.get(i, ""),
        )

    def buckets(self) -> Iterator[tuple[str, str, str]]:
        """(path, bucket, note) of every file, in order, making no `LightHeader`."""
        names, notes = self._buckets, self._notes
        for i, (rel, code) in enumerate(zip(self.rels, self._codes, strict=True)):
            yield rel, names[code], notes.get(i, "")
