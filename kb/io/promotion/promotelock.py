"""The `.kb-promote.lock` marker on disk (kb.pure.promotion.promotelock holds the rules and words).

Taking it: create the file with O_EXCL, write `pid {pid}`, fsync, and hold an advisory
`flock` on it for the whole run. The file is the contract (it survives a crash, and its age
decides staleness); the flock is a second guard the kernel keeps honest: it is dropped the
moment the holder dies, so a marker whose flock is still held has a live holder and is
never taken over, and two runs that find the same stale marker at once cannot both take it
(only one gets the flock on the old file; the other sees a holder and declines).

Releasing it: delete the file only if it is still the one this run created (a run that was
taken over must not delete its successor's marker), then close it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from attrs import frozen

from kb.pure.promotion import promotelock as rules


@frozen
class Held:
    path: Path
    fd: int
    ident: tuple[int, int]  # (st_dev, st_ino) of the file this run created
    took_over: str | None  # the stderr line, when a stale marker was taken over


@frozen
class Declined:
    line: str  # the stdout line; the run reads and writes nothing


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only

    def _try_flock(fd: int) -> bool | None:
        return None  # no advisory lock: only the age can tell

    def _flock(fd: int) -> None:
        return None

else:
    import fcntl

    def _try_flock(fd: int) -> bool | None:
        """True when the flock is ours, False when a holder keeps it, None when the file
        system refuses flock (then only the age can tell)."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError:
            return None
        return True

    def _flock(fd: int) -> None:
        # Blocking: someone checking the new marker holds its flock for microseconds.
        fcntl.flock(fd, fcntl.LOCK_EX)


def _alive(pid: int) -> bool:
    """Whether a process with this pid exists on this machine (one we may not signal does)."""
    if pid <= 0:
        return True  # not a pid that names one process: assume the holder lives
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def lock_path(root: str) -> Path:
    return Path(root) / rules.LOCK_NAME


def take(root: str, pid: int) -> Held | Declined:
    path = lock_path(root)
    for _ in range(3):  # a marker released between our create and our open: try again
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            found = _existing(path, pid)
            if found is None:
                continue
            return found
        except OSError as e:
            return Declined(rules.could_not_write(str(path), e.strerror or str(e)))
        return _hold(path, fd, pid, None)
    return Declined(rules.busy(str(path), None))


def _hold(path: Path, fd: int, pid: int, took_over: str | None) -> Held | Declined:
    try:
        # The flock first, then the pid: a marker that names a pid had its flock taken, so a
        # free flock on it means its holder is gone (`_existing`).
        _flock(fd)
        os.write(fd, rules.marker_text(pid).encode("utf-8"))
        os.fsync(fd)
        st = os.fstat(fd)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
        return Declined(rules.could_not_write(str(path), e.strerror or str(e)))
    return Held(path, fd, (st.st_dev, st.st_ino), took_over)


def _existing(path: Path, pid: int) -> Held | Declined | None:
    """A marker is there: decline, or take it over when it is stale and nobody holds it.
    None when it vanished before it could be read (the caller tries again)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except OSError as e:
        age = _age(path)
        return Declined(
            rules.busy(str(path), age)
            if age is not None
            else rules.could_not_write(str(path), e.strerror or str(e))
        )
    try:
        flocked = _try_flock(fd)
        if flocked is False:
            return Declined(rules.busy(str(path), _age(path)))
        st = os.fstat(fd)
        age = max(0.0, time.time() - st.st_mtime)
        try:
            content = os.read(fd, 4096).decode("utf-8", "replace")
        except OSError:
            content = ""
        named = rules.holder_pid(content)
        dead = flocked is True and named is not None and named != pid and not _alive(named)
        if not dead and not rules.is_stale(age):
            return Declined(rules.busy(str(path), age))
        try:
            now = os.stat(path)
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                return None  # replaced while we looked: start over
            path.unlink()
            new = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileNotFoundError:
            return None
        except OSError as e:
            return Declined(rules.retake_failed(str(path), e.strerror or str(e)))
        said = rules.took_over_dead(content) if dead else rules.took_over(age, content)
        return _hold(path, new, pid, said)
    finally:
        os.close(fd)  # drops our flock on the old marker


def _age(path: Path) -> float | None:
    try:
        return max(0.0, time.time() - path.stat().st_mtime)
    except OSError:
        return None


def _ours(held: Held) -> bool:
    try:
        st = os.stat(held.path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == held.ident


def touch(held: Held) -> None:
    """Say the run is alive: the marker's mtime is what staleness is measured from."""
    if _ours(held):
        with contextlib.suppress(OSError):
            os.utime(held.path)


def release(held: Held) -> None:
    try:
        if _ours(held):
            with contextlib.suppress(OSError):
                held.path.unlink()
    finally:
        with contextlib.suppress(OSError):
            os.close(held.fd)
