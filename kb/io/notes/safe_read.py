"""One way to read a note: open it first, then judge the file that was opened.

Every surface that reads a note's bytes (the header cache and the text index behind route,
serve, ui and list; promote's and consolidate's deposits; ingest's source; boot's and
answer's served files; the graph, the blocks, kb check) reads through `read_note`. Nothing
is checked by path and then opened: the path is opened, and what the descriptor holds is
judged (kb.pure.notes.reading.refusal), so a link, a hard link, a swapped file or a renamed private
folder is judged at the moment of reading, however late it was swapped in.

How a note is opened and judged:
- `O_NOFOLLOW` unless the walk found this very name as a link (a link to a file inside the
  base, which the walk judged by its target): a name that became a link since is refused.
- `O_NONBLOCK`, so a FIFO swapped in cannot hang the reader; `fstat` of the descriptor says
  whether it is a regular file, its device, inode and link count.
- The descriptor's own path (on Linux `/proc/self/fd/N`, on macOS `F_GETPATH`; elsewhere
  the path's real path, the one step that is judged after the open) is the file's real
  path: it is held to the base's real root and to the private layer.
- The bytes come from that same descriptor, up to kb.io.notes.walk.MAX_NOTE_BYTES: what a caller
  hashes, parses or indexes is exactly what was judged.

A refusal is a value, never an exception: the caller sets the file aside as unreadable
with the reason, as it does a file that is not UTF-8. A refusal marked `raced` says the file
changed under kb since the walk (gone, a link, another file); such a refusal describes a
moment, so the header cache never remembers it.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

from kb.io.notes.walk import MAX_NOTE_BYTES, BaseSnapshot, looks_like_a_base, too_large
from kb.io.notes.walk import OUTSIDE as WALKED_OUTSIDE
from kb.pure.notes import reading
from kb.pure.notes.manifest import PrivateLayer, private_layer
from kb.pure.notes.reading import Held, Walked, refusal, relative_inside


@frozen
class Read:
    """A note's bytes, read from the descriptor that was judged, with its `fstat`."""

    data: bytes
    size: int
    mtime_ns: int
    dev: int
    ino: int
    real: str = ""  # the descriptor's real path

    def text(self) -> str | None:
        """The bytes as UTF-8 text, or None when they are not."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError:
            return None


@frozen
class Refused:
    reason: str
    raced: bool = False  # changed under kb since the walk: a moment, not a state


GONE = "it is gone since the fleet was read"
BECAME_LINK = "it is a link now, where the walk found a file, so it is not read"

_BASE_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_NONBLOCK", 0)
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_PROC_FD = os.path.isdir("/proc/self/fd")
if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    _F_GETPATH: int | None = None
else:
    import fcntl

    _F_GETPATH = getattr(fcntl, "F_GETPATH", None)
_READ_CHUNK = 1 << 20


def _fd_path(fd: int, opened: str | Path) -> str:
    """The real path of the file `fd` holds."""
    if _PROC_FD:
        real = os.readlink(f"/proc/self/fd/{fd}")
        return real.removesuffix(" (deleted)")
    if _F_GETPATH is not None:  # pragma: no cover - macOS
        raw = fcntl.fcntl(fd, _F_GETPATH, bytes(1024))
        return os.fsdecode(raw.split(b"\0", 1)[0])
    return os.path.realpath(opened)  # pragma: no cover - no way to ask the descriptor


def _read_all(fd: int, size: int, limit: int) -> bytes | None:
    """Everything `fd` holds, or None past `limit` bytes."""
    parts: list[bytes] = []
    total = 0
    want = min(max(size + 1, 4096), limit + 1)
    while True:
        got = os.read(fd, want)
        if not got:
            return b"".join(parts)
        parts.append(got)
        total += len(got)
        if total > limit:
            return None
        want = min(_READ_CHUNK, limit + 1 - total)


def read_file(
    root: Path,
    real_root: str,
    rel: str,
    layer: PrivateLayer,
    include_private: bool,
    private_ids: frozenset[tuple[int, int]],
    walked: Walked | None,
    content: bool = True,
    limit: int = MAX_NOTE_BYTES,
) -> Read | Refused:
    """`root / rel`, opened and judged as the module docstring says. With `content` False
    the file is only judged (a Read with no bytes)."""
    path = os.path.join(root, rel)  # a string: a Path built per read was a tenth of its cost
    flags = _BASE_FLAGS | (0 if walked is not None and walked.linked else _NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ENOENT:
            return Refused(GONE, raced=True)
        if e.errno in (errno.ELOOP, errno.EMLINK) and flags & _NOFOLLOW:
            return Refused(BECAME_LINK, raced=True)
        return Refused(e.strerror or str(e), raced=walked is None)
    try:
        st = os.fstat(fd)
        regular = stat.S_ISREG(st.st_mode)
        real = _fd_path(fd, path) if regular else ""
        real_rel = relative_inside(real, real_root, os.sep) if regular else None
        held = Held(regular, st.st_dev, st.st_ino, st.st_nlink, real_rel)
        why = refusal(walked, held, layer, include_private, private_ids)
        if why is not None:
            changed = walked is None or (walked.dev, walked.ino) != (st.st_dev, st.st_ino)
            return Refused(why, raced=changed)
        if not content:
            return Read(b"", st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino, real)
        data = _read_all(fd, st.st_size, limit)
        if data is None:
            return Refused(too_large(st.st_size))
        return Read(data, st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino, real)
    except OSError as e:
        return Refused(e.strerror or str(e))
    finally:
        os.close(fd)


def read_note(snap: BaseSnapshot, rel: str, content: bool = True) -> Read | Refused:
    """The note at `rel` in the base `snap` walked, judged against that walk: the one way
    every surface reads a note. `rel` need not be a file the walk found (a deposit's `.txt`,
    a file `blocks.txt` lists): then there is no walk to hold it to, and rules 2 to 5 of
    kb.pure.notes.reading still apply."""
    found = snap.found(rel)
    if found is not None and found[3] is not None:
        return Refused(found[3])
    walked = Walked(found[0], found[1], found[2]) if found is not None else None
    return read_file(
        snap.root,
        snap.real_root,
        rel,
        snap.private,
        snap.include_private,
        snap.private_ids,
        walked,
        content,
    )


def read_named(path: Path, limit: int = MAX_NOTE_BYTES, own: bool = False) -> Read | Refused:
    """A file a person named themselves (a line of blocks.txt read by `kb blocks`, a
    document given to `kb ingest`), opened and read from one descriptor: only a regular
    file, never hanging on a FIFO, never past `limit`. No privacy is judged here: the
    caller asked for this very file (`private_owner` says whether it is private). With
    `own` (a file kb writes itself: a session's events, its boot state) the name may not be
    a link, since kb never makes one there."""
    try:
        fd = os.open(path, _BASE_FLAGS | (_NOFOLLOW if own else 0))
    except OSError as e:
        return Refused(e.strerror or str(e), raced=e.errno == errno.ENOENT)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Refused(reading.NOT_A_FILE)
        data = _read_all(fd, st.st_size, limit)
        if data is None:
            return Refused(too_large(st.st_size))
        return Read(data, st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino, _fd_path(fd, path))
    except OSError as e:
        return Refused(e.strerror or str(e))
    finally:
        os.close(fd)


def private_owner(read: Read, bases: Sequence[BaseSnapshot]) -> str | None:
    """The name of the base whose private layer holds the file `read` came from, judged on
    that descriptor's real path and identity (a link to a record, a hard link to one, a
    record reached through a renamed folder), or None when no base's private layer holds it.
    Every open base is asked, and then every folder above the file that is a base of its own
    (a record in a base this run did not open is still private)."""
    for snap in bases:
        rel = relative_inside(read.real, snap.real_root, os.sep)
        if (rel is not None and snap.private.covers(rel)) or (
            read.dev,
            read.ino,
        ) in snap.private_ids:
            return snap.name
    path = Path(read.real)
    for folder in path.parents:
        if not looks_like_a_base(folder):
            continue
        agent = read_named(folder / "agent.txt")
        text = agent.text() if isinstance(agent, Read) else None
        layer = private_layer(text, folder.name)
        rel = relative_inside(read.real, str(folder), os.sep)
        if rel is not None and layer.covers(rel):
            return folder.name
    return None


# A refusal that means "not in the public scope" (private where it really is, a link the walk
# never judged, outside the base), as against "not there" or "not readable": a listed file
# refused for one of these is withheld, never named as missing.
OUT_OF_SCOPE = frozenset(
    {
        reading.PRIVATE_NOW,
        reading.PRIVATE_TWIN,
        reading.NEW_LINK,
        reading.OUTSIDE,
        BECAME_LINK,
        WALKED_OUTSIDE.format(what="a file"),  # the walk found a link out of the base
    }
)


def listed_rel(listed: str) -> str:
    """A path as a person lists it (`./MAP.md`, `knowledge//x.md`) the way the walk names
    the same file, so the walk's record of it is found; a path that climbs out is kept."""
    rel = os.path.normpath(listed).replace(os.sep, "/")
    return listed if rel.startswith("../") or rel == ".." or rel.startswith("/") else rel


def note_text(snap: BaseSnapshot, rel: str) -> str | None:
    """The note as UTF-8 text, or None when it is refused or not UTF-8."""
    got = read_note(snap, rel)
    return got.text() if isinstance(got, Read) else None
