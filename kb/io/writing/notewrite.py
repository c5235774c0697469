"""The disk half of `kb write`: read the body from stdin, then write the note and the map as
one act. Every decision (what the note says, where the entry goes) was made in
kb.pure.writing.notewrite before anything here runs.

One act means: the note is created without ever replacing a file (a hard link from a
finished temp file, so a note already there is never overwritten and a reader never sees
half of one), then the map is replaced atomically. If the map cannot be written, the note
and any folder made for it are removed again, so the tree is byte for byte what it was.

The map is read, placed into and rewritten under its lock (`map_locked`): without it, two
agents writing into one base at once each rewrote the map they had read, and the entry of
whichever renamed first was lost (measured: 4 processes x 50 writes kept 62 of 200 entries).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

from kb.io.files import atomic
from kb.io.files.atomic import crash_point, make_dirs, remove_dirs, sweep_temps


class StdinError(Exception):
    """stdin could not be read as UTF-8 text."""


class WriteFailed(Exception):
    """Writing `path` failed; nothing this call made is left on disk."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(f"{path}: {error}")
        self.path = path
        self.error = error

    @property
    def reason(self) -> str:
        return self.error.strerror or str(self.error)


def read_stdin() -> str:
    """All of stdin as text. A terminal gives "" at once instead of waiting for a keyboard:
    the body is meant to be piped in, and the empty-body refusal says so."""
    stream = sys.stdin
    if stream is None:
        return ""
    try:
        if stream.isatty():
            return ""
        data = stream.buffer.read()
    except (OSError, ValueError) as e:
        raise StdinError(str(e)) from e
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise StdinError(f"it is not UTF-8 text (byte {e.start} cannot be decoded)") from e


# A write holds its map's lock for milliseconds; `kb write` is a deliberate act, so it waits
# long for a busy map rather than fail (a dead writer's lock is taken over within seconds).
# `kb sync` holds every map while it rebases (kb.io.fleet.sync): measured up to 6 s on a 2-core box
# at load 7, and past 10 s at load 11, where the former 10 s wait failed 13 writes in four
# minutes (tests/sync/test_three_clones.py, long form).
MAP_LOCK_WAIT_S = 60.0


@contextlib.contextmanager
def map_locked(map_path: Path) -> Iterator[None]:
    """Hold `MAP.md.lock` while the map is read, the entry placed and the map rewritten, so
    two agents writing into one base at once both stay listed (raises LockBusy)."""
    from kb.io.files.lockfile import lock_path, locked

    with locked(lock_path(map_path), MAP_LOCK_WAIT_S):
        yield


def write_note_and_map(note: Path, note_text: str, map_path: Path, map_text: str) -> None:
    """Create `note` (FileExistsError if it exists), then replace `map_path`.

    Raises WriteFailed naming the file that could not be written."""
    made = _make_dirs(note.parent)
    try:
        create_new(note, note_text)
    except FileExistsError:
        remove_dirs(made)
        raise
    except OSError as e:
        remove_dirs(made)
        raise WriteFailed(note, e) from e
    crash_point("notewrite.note-placed")
    try:
        write_map(map_path, map_text)
    except OSError as e:
        with contextlib.suppress(OSError):
            note.unlink()
        remove_dirs(made)
        raise WriteFailed(map_path, e) from e
    # what earlier runs killed mid-write left behind in the two folders this act wrote
    sweep_temps(note.parent)
    if map_path.parent != note.parent:
        sweep_temps(map_path.parent)


def create_new(path: Path, text: str) -> None:
    """Write `text` to a temp file beside `path`, fsync it, then hard-link it into place:
    the link fails if `path` exists, so nothing is ever overwritten."""
    tmp = _new_temp(path)
    try:
        with os.fdopen(os.open(tmp, os.O_WRONLY), "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        crash_point("create.temp-written")
        try:
            os.link(tmp, path)
        except OSError as e:
            if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            # a file system without hard links: exclusive create is still never an overwrite
            _write_exclusive(path, text)
        crash_point("create.linked")
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def write_map(path: Path, text: str) -> None:
    """Replace the map atomically, keeping its permissions (the temp file starts as 0600)."""
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = None
    atomic.write_atomic(path, text)
    if mode is not None:
        with contextlib.suppress(OSError):
            os.chmod(path, mode)


def _new_temp(path: Path) -> Path:
    # 0o666 through the umask, like any file the user creates (mkstemp would make 0600)
    for _ in range(16):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return tmp
    raise FileExistsError(path.parent / f".{path.name}.*.tmp")


def _write_exclusive(path: Path, text: str) -> None:
    try:
        with open(path, "x", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    except FileExistsError:
        raise
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


def _make_dirs(folder: Path) -> list[Path]:
    try:
        return make_dirs(folder)
    except OSError as e:
        raise WriteFailed(folder, e) from e
