"""The disk half of `kb capture` and `kb handoff`: files under `{root}/.kb/sessions/`.

No decisions here: kb.pure.sessions.session names the files and parses the events,
kb.pure.sessions.capture decides what each deposit says, kb.pure.sessions.handoff decides every
state change.

- Events: appended one line at a time with O_APPEND (a line never interleaves with another
  writer's), read whole, and removed only after every deposit is on disk. A line appended
  by `kb boot` while the deposits were being written is kept, not deleted with the rest.
- Deposits: created without ever replacing a file (kb.io.writing.notewrite.create_new: temp file,
  fsync, hard link into place).
- Handoff records: every change (save, claim, complete) is a read, a pure step and an
  atomic write done while holding an exclusive `flock` on `.kb/sessions/handoff.lock`. The
  kernel drops that lock when its holder exits or dies, so there is no stale lock to break
  and no window in which two claimers can both read "pending". Readers take no lock: the
  record is replaced by rename, so they see the old text or the new, never half.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from returns.result import Failure, Result, Success

from kb.io.files.atomic import crash_point, sweep_temps, write_atomic
from kb.io.notes.safe_read import Refused, read_named
from kb.pure.sessions import handoff as ho
from kb.pure.sessions.session import SESSIONS_DIR, Event, event_line, events_name, safe_session

LOCK_NAME = "handoff.lock"
# A change holds the lock for milliseconds; ten seconds of waiting means a holder is stuck
# (stopped in a debugger, a frozen disk), and saying so beats hanging an agent forever.
LOCK_WAIT_S = 10.0
LOCK_POLL_S = 0.002


def sessions_dir(root: str) -> Path:
    return Path(root).joinpath(*SESSIONS_DIR)


# -- events ----------------------------------------------------------------------------------


def events_path(root: str, session: str) -> Path:
    return sessions_dir(root) / events_name(session)


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or b"" when it does not exist (raises OSError when it cannot be
    read). Read through kb.io.notes.safe_read as a file of kb's own: a link or a FIFO in its place
    is refused, never followed (what capture reads becomes a deposit in the inbox)."""
    got = read_named(path, own=True)
    if isinstance(got, Refused):
        if got.raced and not path.is_symlink():
            return b""  # absent
        raise OSError(got.reason)
    return got.data


def decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def append_event(root: str, session: str, event: Event) -> None:
    """Append one event line (raises OSError). A torn last line gets its newline first, so
    the new event never fuses with it."""
    path = events_path(root, session)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        line = event_line(event).encode("utf-8")
        if size:
            with open(path, "rb") as fh:
                fh.seek(size - 1)
                if fh.read(1) != b"\n":
                    line = b"\n" + line
        os.write(fd, line)
    finally:
        os.close(fd)
    crash_point("events.appended")


def read_boot_agent(root: str, session: str) -> str | None:
    """The agent `kb boot` last routed this session to (`.kb/sessions/{safe}`), if any."""
    try:
        name = decode((sessions_dir(root) / safe_session(session)).read_bytes()).strip()
    except OSError:
        return None
    return name or None


def finish_events(path: Path, read: bytes, keep: str) -> None:
    """Replace the record by `keep` (delete it when `keep` is empty), keeping whatever was
    appended after `read` was taken. A record changed in any other way is left alone."""
    crash_point("events.finishing")
    now = read_bytes(path)
    if not now.startswith(read):
        return
    tail = decode(now[len(read) :])
    text = keep + tail
    if text.strip():
        write_atomic(path, text)
    else:
        path.unlink(missing_ok=True)
    sweep_temps(path.parent)


# -- deposits --------------------------------------------------------------------------------


def place_deposit(inbox: Path, names: Iterator[str], text: str) -> Path:
    """Create the deposit under the first name that is free, or that already holds exactly
    this text (a capture repeated after a crash). Raises OSError with `.filename` set."""
    from kb.io.writing.notewrite import create_new  # capture only: boot reads records, never this

    for name in names:
        path = inbox / name
        try:
            create_new(path, text)
            sweep_temps(inbox)
            return path
        except FileExistsError:
            try:
                if path.read_bytes() == text.encode("utf-8"):
                    return path
            except OSError:
                pass
            continue
        except OSError as e:
            e.filename = str(path)
            raise
    raise FileExistsError(f"no free deposit name in {inbox}")


# -- handoff records -------------------------------------------------------------------------


def record_path(root: str, session: str) -> Path:
    return sessions_dir(root) / f"{safe_session(session)}.handoff.md"


def load(root: str, session: str) -> ho.Record | None:
    try:
        return ho.parse(decode(record_path(root, session).read_bytes()))
    except OSError:
        return None


def latest(root: str) -> ho.Record | None:
    """The session named in `latest-handoff.txt`; else the newest record file by mtime."""
    folder = sessions_dir(root)
    try:
        named = decode((folder / ho.LATEST_NAME).read_bytes()).strip()
    except OSError:
        named = ""
    if named:
        record = load(root, named)
        if record is not None:
            return record
    candidates: list[tuple[int, str, Path]] = []
    try:
        for entry in os.scandir(folder):
            if entry.name.endswith(".handoff.md") and entry.is_file():
                with contextlib.suppress(OSError):
                    candidates.append((entry.stat().st_mtime_ns, entry.name, Path(entry.path)))
    except OSError:
        return None
    for _, _, path in sorted(candidates, reverse=True):
        try:
            record = ho.parse(decode(path.read_bytes()))
        except OSError:
            continue
        if record is not None:
            return record
    return None


class LockTimeout(Exception):
    pass


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while not _try_lock(fd):
            if time.monotonic() > deadline:
                raise LockTimeout(
                    f"another kb handoff held {folder / LOCK_NAME} for {LOCK_WAIT_S:.0f} s"
                )
            time.sleep(LOCK_POLL_S)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _store(root: str, record: ho.Record) -> Path:
    path = record_path(root, record.session)
    write_atomic(path, ho.render(record))
    write_atomic(path.parent / ho.LATEST_NAME, record.session.strip())
    return path


def change(
    root: str, session: str | None, move: Callable[[ho.Record | None], ho.Move]
) -> Result[tuple[ho.Record, Path], str]:
    """Under the lock: find the record (that session's, or the latest when `session` is
    None), build the move from it, take the pure step, write the result.

    Failure carries the refusal line. Raises OSError or LockTimeout when the disk fails."""
    with _locked(sessions_dir(root)):
        current = load(root, session) if session is not None else latest(root)
        stepped = ho.step(current, move(current))
        if isinstance(stepped, Failure):
            return Failure(stepped.failure())
        record = stepped.unwrap()
        return Success((record, _store(root, record)))
