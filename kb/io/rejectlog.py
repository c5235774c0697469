"""Reading and recording `kb-rejections.txt` at the fleet root, safely under concurrent
writers (kb.pure.rejections holds the format and the counting).

A refusal is recorded by taking an exclusive lock file (`kb-rejections.txt.lock`, created
with O_EXCL, the marker kb-misses.txt uses), reading the log, counting the refusal in, and
rewriting the whole file (temp file, fsync, rename). A reader sees the old log or the new,
never half; two runs refusing at once lose neither refusal. A lock older than 30 s belongs
to a writer that died (a rewrite takes milliseconds) and is taken over. A promotion run is a
deliberate act, so it waits up to 5 s for the lock before it reports the log unwritable.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from kb.io.atomic import write_atomic
from kb.pure import rejections

STALE_LOCK_S = 30.0
LOCK_WAIT_S = 5.0
LOCK_POLL_S = 0.005


def log_path(root: str) -> Path:
    return Path(root) / rejections.LOG_NAME


class LockBusy(Exception):
    pass


def _take_lock(lock: Path) -> int:
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            return os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                if time.time() - lock.stat().st_mtime > STALE_LOCK_S:
                    lock.unlink(missing_ok=True)
                    continue
            except FileNotFoundError:
                continue  # released between our open and our stat: try again at once
            if time.monotonic() > deadline:
                raise LockBusy(
                    f"another writer held {lock} for longer than {LOCK_WAIT_S:.0f} s"
                ) from None
            time.sleep(LOCK_POLL_S)
        except OSError as e:
            raise LockBusy(f"could not take {lock}: {e.strerror or e}") from e


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def load(path: Path) -> tuple[rejections.Row, ...]:
    """The rows in file order; an absent log has none. Raises OSError when it is unreadable."""
    return rejections.parse(_read(path))


def record(path: Path, agent: str, slug: str, lens: str, reason: str, today: str) -> str | None:
    """Count one refusal in; None on success, else why it was not recorded (one line)."""
    lock = path.with_name(path.name + ".lock")
    try:
        fd = _take_lock(lock)
    except LockBusy as e:
        return str(e)
    try:
        os.close(fd)
        rows = rejections.record(rejections.parse(_read(path)), agent, slug, lens, reason, today)
        write_atomic(path, rejections.render(rows))
        return None
    except OSError as e:
        return f"could not write {path}: {e.strerror or e}"
    finally:
        lock.unlink(missing_ok=True)
