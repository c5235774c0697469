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
from collections.abc import Iterable, Iterator, Sequence
from itertools import compress

from attrs import frozen

from kb.pure.notes.pathcolumns import PathColumns


@frozen
class FileStat:
    rel: str
    size: int
    mtime_ns: int
    private: bool
    # Why the file is not read (a refused name, BAD_NAME, or past MAX_NOTE_BYTES); None for
    # every ordinary file. Readers report it instead of opening the file.
    problem: str | None = None


class FileTable(PathColumns[FileStat]):
    """A walk's files in scope, in path order: a sequence of `FileStat` made on demand from
    columns (`of` builds one), found by path (kb.pure.notes.pathcolumns)."""

    __slots__ = ("_mtimes", "_private", "_problems", "_sizes")

    def __init__(
        self,
        rels: tuple[str, ...],
        sizes: array[int],
        mtimes: array[int],
        private: bytes,
        problems: dict[int, str],
    ) -> None:
        super().__init__(rels)
        self._sizes = sizes
        self._mtimes = mtimes
        self._private = private
        self._problems = problems  # place -> why the file is not read, for the few

    @classmethod
    def of(cls, files: Iterable[FileStat]) -> FileTable:
        """The columns of these files, in their order."""
        listed = list(files)
        return table_of(
            [f.rel for f in listed],
            [f.size for f in listed],
            [f.mtime_ns for f in listed],
            [f.private for f in listed],
            [f.problem for f in listed],
        )

    def _row(self, i: int) -> FileStat:
        return FileStat(
            self.rels[i],
            self._sizes[i],
            self._mtimes[i],
            bool(self._private[i]),
            self._problems.get(i),
        )

    def stat_lines(self) -> Iterator[str]:
        """Each file's path, size, mtime_ns, privacy and problem, TAB-separated, in order:
        what a stat pass's digest is made of (kb.io.store.headers.stat_digest), read from
        the columns without making a `FileStat`."""
        problems = self._problems
        for i, (rel, size, mtime, private) in enumerate(
            zip(self.rels, self._sizes, self._mtimes, self._private, strict=True)
        ):
            yield f"{rel}\t{size}\t{mtime}\t{private}\t{problems.get(i) or ''}"


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
