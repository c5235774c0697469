"""`kb merge-driver`: the three files git hands a merge driver, merged into the second.

git runs `kb merge-driver <kind> %O %A %B %P` for a file whose `merge=` attribute names a kb
driver (kb.pure.syncplan). %O is the common ancestor, %A this side, %B the other side, %P the
path in the tree. The merge is kb.pure.merge's; the result replaces %A atomically (a temp
file beside it, fsync, rename), as git reads %A back for the merged text.

A file that is not UTF-8 is not merged at all: %A is left as it is and the merge reports a
conflict, so git shows the person both sides rather than kb guessing at bytes.
"""

from __future__ import annotations

from pathlib import Path

from kb.io.atomic import write_atomic
from kb.pure.merge import Merged, merge


class DriverError(Exception):
    """A file could not be read or written; the message names it."""


def _read(path: str) -> str | None:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise DriverError(f"cannot read {path}: {e.strerror or e}") from e
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def merge_files(kind: str, base: str, ours: str, theirs: str, name: str | None) -> Merged | None:
    """Merge the three files into `ours`; None when one of them is not UTF-8 text (nothing
    was written)."""
    texts = [_read(p) for p in (base, ours, theirs)]
    if any(t is None for t in texts):
        return None
    b, o, t = (x or "" for x in texts)
    merged = merge(kind, b, o, t, name)
    if merged.text != o:
        try:
            write_atomic(Path(ours), merged.text)
        except OSError as e:
            raise DriverError(f"cannot write {ours}: {e.strerror or e}") from e
    return merged
