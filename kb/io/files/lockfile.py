"""One lock-file discipline for every shared file a fleet's agents rewrite.

A writer creates `<file>.lock` exclusively (O_EXCL), rewrites the file atomically, then
removes the lock. Used by the miss log, the rejections log, the misroute and abstention logs,
the panel ledger and every base's map (`kb write`).

A writer that dies (kill -9) leaves its lock behind, and the next writer has to tell that
lock from a live one. Going by age alone (the original: older than 30 s is dead) breaks in
both directions: a live writer that was merely slow (a stopped process, a stalled disk) had
its lock taken and then removed its successor's lock on the way out, and two waiters judging
the same dead lock at once could each remove it, the second removing the first one's fresh
lock, so both wrote. So, where the platform has `flock`, the holder also keeps an exclusive
`flock` on its lock file for as long as it holds it. The kernel drops that flock when the
holder exits or dies, so a lock file whose flock a waiter can take has no living holder; a
waiter may remove a lock file only while holding that flock and only while the path still
names the file it locked, and a holder removes only the lock file it created. A live holder
is never broken, however slow. The one moment a lock file exists unflocked is between its
creation and its holder's flock call, so a lock younger than `grace_s` is never judged dead.
Without `flock` (Windows, a file system that refuses it) the age rule is kept: older than
`stale_s` is dead.

Readers never need the lock: every rewrite is a rename, so they see the old file or the new.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

STALE_LOCK_S = 30.0  # without flock: far longer than any rewrite of a log takes
DEAD_LOCK_GRACE_S = 2.0  # with flock: a holder flocks its lock microseconds after creating it
LOCK_POLL_S = 0.005


class LockBusy(Exception):
    """The lock could not be taken in time (or at all); the message says which."""


class LockUnavailable(LockBusy):
    """The lock file cannot be created at all (no permission, a read-only disk): no wait
    would help, so a caller reports it rather than waiting for a turn."""


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only

    def _flock(fd: int, wait: bool) -> bool | None:
        return None  # no flock: the age rule decides

    def _unflock(fd: int) -> None:
        return None

else:
    import fcntl

    def _flock(fd: int, wait: bool) -> bool | None:
        """True when the flock is ours, False when someone holds it, None when unsupported."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        except OSError:
            return None
        return True

    def _unflock(fd: int) -> None:
        with suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)


def _names(lock: Path, fd: int) -> bool:
    """Whether the path `lock` still names the open file `fd`."""
    try:
        here, mine = os.stat(lock), os.fstat(fd)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)


def _break_if_dead(lock: Path, stale_s: float, grace_s: float) -> bool:
    """Remove `lock` when its holder is gone. True: look again at once (removed, or already
    released); False: a holder may be alive, wait."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        held = _flock(fd, wait=False)
        if held is False:
            return False  # a living holder keeps its flock, however long it takes
        if not _names(lock, fd):
            return True  # released or replaced since we opened it
        age = time.time() - os.fstat(fd).st_mtime
        if age <= (grace_s if held else stale_s):
            return False
        # With the flock held, nobody else can be removing this file: its holder is gone
        # and any other waiter is blocked on the flock we hold.
        with suppress(FileNotFoundError):
            os.unlink(lock)
        return True
    finally:
        _unflock(fd)
        os.close(fd)


def take_lock(
    lock: Path, wait_s: float, stale_s: float | None = None, grace_s: float | None = None
) -> int:
    """Create `lock` exclusively and return its descriptor, waiting up to `wait_s`. Keep the
    descriptor open while the lock is held and give it back with `release_lock`.

    `stale_s` and `grace_s` default to STALE_LOCK_S and DEAD_LOCK_GRACE_S as they are at the
    call (so a test may set the module's figures for every writer at once)."""
    stale_s = STALE_LOCK_S if stale_s is None else stale_s
    grace_s = DEAD_LOCK_GRACE_S if grace_s is None else grace_s
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644)
        except FileExistsError:
            if _break_if_dead(lock, stale_s, grace_s):
                continue
            if time.monotonic() > deadline:
                raise LockBusy(
                    f"another writer held {lock} for longer than {int(wait_s * 1000)}ms"
                ) from None
            time.sleep(LOCK_POLL_S)
            continue
        except OSError as e:
            raise LockUnavailable(f"could not take {lock}: {e.strerror or e}") from e
        # Blocking: a waiter probing this fresh lock lets go of it at once.
        _flock(fd, wait=True)
        if _names(lock, fd):
            return fd
        # Judged dead between our create and our flock (we were descheduled past the
        # grace period): the path is no longer ours, so start again.
        _unflock(fd)
        os.close(fd)


def release_lock(lock: Path, fd: int) -> None:
    """Remove `lock` if it is still the one `fd` created, then drop the flock."""
    try:
        if _names(lock, fd):
            with suppress(FileNotFoundError):
                os.unlink(lock)
    finally:
        _unflock(fd)
        os.close(fd)


@contextmanager
def locked(
    lock: Path, wait_s: float, stale_s: float | None = None, grace_s: float | None = None
) -> Iterator[None]:
    """Hold `lock` for the body (raises LockBusy when it cannot be taken in `wait_s`)."""
    fd = take_lock(lock, wait_s, stale_s, grace_s)
    try:
        yield
    finally:
        release_lock(lock, fd)


def lock_path(path: Path) -> Path:
    """The lock file of `path`: `<name>.lock` beside it."""
    return path.with_name(path.name + ".lock")


def read_or_empty(path: Path) -> str:
    """The file as text (undecodable bytes replaced); an absent file reads as empty."""
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def held_by_live(lock: Path) -> bool:
    """Whether a living process holds `lock` now: its flock is taken. False for a lock whose
    holder died (however young the file) and for no lock at all; where `flock` is missing,
    any lock file counts as held."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        held = _flock(fd, wait=False)
        return held is not True
    finally:
        _unflock(fd)
        os.close(fd)
