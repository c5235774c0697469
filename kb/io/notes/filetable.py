"""The files of one walk in scope, held as columns.

An open fleet holds every in-scope file's path, size, mtime and privacy until it closes. As a
`FileStat` each, with its two integers, they were 14.3 of the 38 MB a one-shot `kb route`
traced at 100,000 notes, and the stat pass's map from path to file another 2.7. Here a walk
is a tuple of its path strings, two 64-bit columns, a byte of privacy a file and the rare
problems by place; a `FileStat` is made when someone asks for one. The walk gives each path
once, in ascending order, so a path is found by bisection.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import compress
from typing import overload

from attrs import frozen


@frozen
class FileStat:
    rel: str
    size: int
    mtime_ns: int
    private: bool
    # Why the file is not read (a refused name, BAD_NAME, or past MAX_NOTE_BYTES); None for
    # every ordinary file. Readers report it instead of opening the file.
    problem: str | None = None


class FileTable(Sequence[FileStat]):
    """A walk's files in scope, in path order: a sequence of `FileStat` made on demand from
    columns (`of` builds one). Equal to another table with the same files."""

    __slots__ = ("_mtimes", "_places", "_private", "_problems", "_sizes", "rels")

    def __init__(
        self,
        rels: tuple[str, ...],
        sizes: array[int],
        mtimes: array[int],
        private: bytes,
        problems: dict[int, str],
    ) -> None:
        self.rels = rels
        self._sizes = sizes
        self._mtimes = mtimes
        self._private = private
        self._problems = problems  # place -> why the file is not read, for the few
        # Paths out of order or repeated (no walk gives them): found through a dict.
        self._places: dict[str, int] | None = None
        if not all(map(str.__lt__, rels, rels[1:])):
            self._places = {rel: i for i, rel in enumerate(rels)}

    @classmethod
    def of(cls, files: Iterable[FileStat]) -> FileTable:
        """The columns of these files, in their order."""
        listed = list(files)
        problems = [f.problem for f in listed]
        return cls(
            tuple(f.rel for f in listed),
            array("q", (f.size for f in listed)),
            array("q", (f.mtime_ns for f in listed)),
            bytes(f.private for f in listed),
            {i: p for i, p in enumerate(problems) if p is not None},
        )

    # -- one file ------------------------------------------------------------------------

    def _file(self, i: int) -> FileStat:
        return FileStat(
            self.rels[i],
            self._sizes[i],
            self._mtimes[i],
            bool(self._private[i]),
            self._problems.get(i),
        )

    def place(self, rel: str) -> int | None:
        """The place of the file at `rel`, or None when the walk found no such file."""
        if self._places is not None:
            return self._places.get(rel)
        i = bisect_left(self.rels, rel)
        return i if i < len(self.rels) and self.rels[i] == rel else None

    def get(self, rel: str) -> FileStat | None:
        """The file at `rel`, or None."""
        i = self.place(rel)
        return None if i is None else self._file(i)

    def by_rel(self) -> Mapping[str, FileStat]:
        """The files by path, looked up in the columns (no dict is built)."""
        return _ByRel(self)

    # -- every file ----------------------------------------------------------------------

    def stat_lines(self) -> Iterator[str]:
        """Each file's path, size, mtime_ns, privacy and problem, TAB-separated, in order:
        what a stat pass's digest is made of (kb.io.store.headers.stat_digest), read from
        the columns without making a `FileStat`."""
        problems = self._problems
        for i, (rel, size, mtime, private) in enumerate(
            zip(self.rels, self._sizes, self._mtimes, self._private, strict=True)
        ):
            yield f"{rel}\t{size}\t{mtime}\t{private}\t{problems.get(i) or ''}"

    # -- the sequence --------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.rels)

    @overload
    def __getitem__(self, i: int) -> FileStat: ...

    @overload
    def __getitem__(self, i: slice) -> list[FileStat]: ...

    def __getitem__(self, i: int | slice) -> FileStat | list[FileStat]:
        if isinstance(i, slice):
            return [self._file(j) for j in range(*i.indices(len(self.rels)))]
        if i < 0:
            i += len(self.rels)
        if not 0 <= i < len(self.rels):
            raise IndexError("file index out of range")
        return self._file(i)

    def __iter__(self) -> Iterator[FileStat]:
        return map(self._file, range(len(self.rels)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FileTable):
            return len(self) == len(other) and all(map(FileStat.__eq__, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FileTable({list(self)!r})"


def table_of(
    rels: Sequence[str],
    sizes: Iterable[int],
    mtimes: Iterable[int],
    private: Iterable[bool],
    problems: Sequence[str | None],
) -> FileTable:
    """A table from its columns, each in path order."""
    return FileTable(
        tuple(rels),
        array("q", sizes),
        array("q", mtimes),
        bytes(map(bool, private)),
        {i: p for i in compress(range(len(problems)), problems) if (p := problems[i])},
    )


class _ByRel(Mapping[str, FileStat]):
    """`FileTable.by_rel`: path -> file."""

    __slots__ = ("_table",)

    def __init__(self, table: FileTable) -> None:
        self._table = table

    def __getitem__(self, rel: str) -> FileStat:
        found = self._table.get(rel)
        if found is None:
            raise KeyError(rel)
        return found

    def __contains__(self, rel: object) -> bool:
        return isinstance(rel, str) and self._table.place(rel) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(self._table.rels))

    def __len__(self) -> int:
        return len(dict.fromkeys(self._table.rels))
