"""Reading and recording `kb-rejections.txt` at the fleet root, safely under concurrent
writers (kb.pure.rejections holds the format and the counting).

A refusal is recorded by taking an exclusive lock file (`kb-rejections.txt.lock`, created
with O_EXCL, the marker kb-misses.txt uses), reading the log, counting the refusal in, and
rewriting the whole file (temp file, fsync, rename). A reader sees the old log or the new,
never half; two runs refusing at once lose neither refusal. A lock left by a writer that
died is taken over, a live writer's never (kb.io.lockfile). A promotion run is a deliberate
act, so it waits up to 5 s for the lock before it reports the log unwritable.
"""

from __future__ import annotations

from pathlib import Path

from kb.io.atomic import write_atomic
from kb.io.lockfile import LockBusy, lock_path, locked, read_or_empty
from kb.pure import rejections

LOCK_WAIT_S = 5.0


def log_path(root: str) -> Path:
    return Path(root) / rejections.LOG_NAME


def load(path: Path) -> tuple[rejections.Row, ...]:
    """The rows in file order; an absent log has none. Raises OSError when it is unreadable."""
    return rejections.parse(read_or_empty(path))


def record(path: Path, agent: str, slug: str, lens: str, reason: str, today: str) -> str | None:
    """Count one refusal in; None on success, else why it was not recorded (one line)."""
    try:
        with locked(lock_path(path), LOCK_WAIT_S):
            rows = rejections.record(
                rejections.parse(read_or_empty(path)), agent, slug, lens, reason, today
            )
            write_atomic(path, rejections.render(rows))
        return None
    except LockBusy as e:
        return str(e)
    except OSError as e:
        return f"could not write {path}: {e.strerror or e}"
