"""Whether a file kb has opened may be read: the judgement of kb.io.notes.safe_read, made on the
file the descriptor holds, never on the path that was asked for.

Rules of this module (`refusal`), in order; the first that applies refuses:
1. Only a regular file is read (not a folder, a FIFO, a device, a socket).
2. Its real path (the descriptor's, links and renamed folders resolved) must lie inside the
   base's real root: a link out of the base could serve anything.
3. Without `--all`, the real path must not be private, compared as people see names
   (kb.pure.notes.manifest.PrivateLayer.covers): a note swapped for a link into `records/`, a
   folder swapped for a link to `records/`, a private folder renamed to `Records/`, are
   all judged where the file really is.
4. Without `--all`, the file must not be one the walk judged private under another name
   (its device and inode among the private files' identities): a hard link to a private
   note, or a private note moved over a public name, is still that note.
5. Without `--all`, a file with more than one name (`st_nlink > 1`) is read only when the
   walk found it under exactly this name as this same file (device and inode): its other
   names cannot be judged by any path, and a hard link made after the walk may be one
   into the private layer that the walk never saw. A multiply-linked file the walk did
   find under this name was judged by the walk, which compares every name it finds
   (kb.io.notes.walk).
Anything else is read: a public note replaced by another regular file with one name (an
editor's save writes a new file and renames it over the old) is what that name now holds.
"""

from __future__ import annotations

from attrs import frozen

from kb.pure.notes.manifest import PrivateLayer


@frozen
class Walked:
    """What the walk found under the name that was opened."""

    dev: int
    ino: int
    linked: bool  # the name was a link (to a file inside the base)


@frozen
class Held:
    """What the descriptor holds, from `fstat` and the descriptor's own path."""

    regular: bool
    dev: int
    ino: int
    nlink: int
    real_rel: str | None  # relative to the base's real root; None when outside it


NOT_A_FILE = "it is not a regular file"
OUTSIDE = (
    "it leads outside this base, which kb does not read (privacy is judged on what a file "
    "really is)"
)
PRIVATE_NOW = "it is in the private layer where it really is, so it is not read without --all"
PRIVATE_TWIN = "it is a private note under another name, so it is not read without --all"
NEW_LINK = (
    "it has other names the walk did not find it under (a hard link made since), which no "
    "path can judge, so it is not read; kb reads it again once it has one name"
)


def refusal(
    walked: Walked | None,
    held: Held,
    layer: PrivateLayer,
    include_private: bool,
    private_ids: frozenset[tuple[int, int]],
) -> str | None:
    """Why the opened file may not be read, or None when it may (the rules above)."""
    if not held.regular:
        return NOT_A_FILE
    if held.real_rel is None:
        return OUTSIDE
    if include_private:
        return None
    if layer.covers(held.real_rel):
        return PRIVATE_NOW
    if (held.dev, held.ino) in private_ids:
        return PRIVATE_TWIN
    if held.nlink > 1 and (walked is None or (walked.dev, walked.ino) != (held.dev, held.ino)):
        return NEW_LINK
    return None


def relative_inside(real: str, real_root: str, sep: str = "/") -> str | None:
    """`real` relative to `real_root` with `/` between segments, or None when it is not
    inside (the root itself is not a file inside it)."""
    prefix = real_root.rstrip(sep) + sep
    if not real.startswith(prefix):
        return None
    rest = real[len(prefix) :]
    return rest.replace(sep, "/") if sep != "/" else rest
