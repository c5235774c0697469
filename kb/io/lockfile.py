"""One lock-file discipline for every shared file a fleet's agents append to.

A writer creates `<file>.lock` exclusively (O_EXCL), rewrites the file atomically, then
removes the lock. A lock older than `stale_s` belongs to a writer that crashed and is taken
over, so a kill -9 never blocks a log forever. Used by the miss log, the rejections log,
the misroute and abstention logs and the panel ledger.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

STALE_LOCK_S = 30.0  # far longer than any rewrite of a log takes
LOCK_POLL_S = 0.005


class LockBusy(Exception):
    """The lock could not be taken in time (or at all); the message says which."""


def take_lock(lock: Path, wait_s: float, stale_s: float = STALE_LOCK_S) -> int:
    """Create `lock` exclusively and return its descriptor, waiting up to `wait_s`."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                if time.time() - lock.stat().st_mtime > stale_s:
                    lock.unlink(missing_ok=True)
                    continue
            except FileNotFoundError:
                continue  # released between our open and our stat: try again at once
            if time.monotonic() > deadline:
                raise LockBusy(
                    f"another writer held {lock} for longer than {int(wait_s * 1000)}ms"
                ) from None
            time.sleep(LOCK_POLL_S)
        except OSError as e:
            raise LockBusy(f"could not take {lock}: {e.strerror or e}") from e


def read_or_empty(path: Path) -> str:
    """The file as text (undecodable bytes replaced); an absent file reads as empty."""
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""
