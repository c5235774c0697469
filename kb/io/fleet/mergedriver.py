"""`kb merge-driver`: the three files git hands a merge driver, merged into the second.

git runs `kb merge-driver <kind> %O %A %B %P` for a file whose `merge=` attribute names a kb
driver (kb.pure.fleet.syncplan). %O is the common ancestor, %A this side, %B the other side, %P the
path in the tree. The merge is kb.pure.fleet.merge's; the result replaces %A atomically (a temp
file beside it, fsync, rename), as git reads %A back for the merged text.

Rules of this module:
- A driver merges only its own files: when git names the path (%P), its last part must be
  one of the kind's file names (`MAP.md` for `map`, `kb-misses.txt` for `misses`, a counted
  log for `log`). Any other path reached it through a `.gitattributes` line kb did not
  write: %A is left as it is and the merge is a conflict, so git shows the person both
  sides, never a note cut down to what a log parser keeps (issue 24, F2).
- Bytes that are not UTF-8 are kept: the files are decoded with `surrogateescape` and the
  merge written back the same way, so one stray byte neither stops the merge nor is lost.
- A count kb refuses (kb.pure.fleet.merge.count_problem) leaves %A as it is: a conflict, and one
  line that names the file, the side and the line.
"""

from __future__ import annotations

from pathlib import Path

from kb.io.files.atomic import write_atomic
from kb.pure.fleet.merge import Merged, merge, owns


class DriverError(Exception):
    """A file could not be read or written; the message names it."""


def _read(path: str) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise DriverError(f"cannot read {path}: {e.strerror or e}") from e
    return data.decode("utf-8", errors="surrogateescape")


def merge_files(kind: str, base: str, ours: str, theirs: str, name: str | None) -> Merged | None:
    """Merge the three files into `ours`; None when `name` is not a file of this kind (then
    nothing was written)."""
    if name is not None and not owns(kind, name):
        return None
    b, o, t = (_read(p) for p in (base, ours, theirs))
    merged = merge(kind, b, o, t, name)
    if merged.text != o and not merged.problem:
        try:
            write_atomic(Path(ours), merged.text, errors="surrogateescape")
        except OSError as e:
            raise DriverError(f"cannot write {ours}: {e.strerror or e}") from e
    return merged
