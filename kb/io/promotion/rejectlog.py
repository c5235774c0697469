"""Reading and recording `kb-rejections.txt` at the fleet root, safely under concurrent
writers (kb.pure.promotion.rejections holds the format and the counting).

A refusal is recorded by taking an exclusive lock file (`kb-rejections.txt.lock`, created
with O_EXCL, the marker kb-misses.txt uses), reading the log, counting the refusal in, and
rewriting the whole file (temp file, fsync, rename). A reader sees the old log or the new,
never half; two runs refusing at once lose neither refusal. A lock left by a writer that
died is taken over, a live writer's never (kb.io.files.lockfile). A promotion run is a deliberate
act, so it waits up to 5 s for the lock; past that the refusal is deferred and folded in by
the next writer (kb.io.files.deferred), never dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kb.io.files import deferred
from kb.pure.logs.logbounds import loggable
from kb.pure.promotion import rejections

LOCK_WAIT_S = 5.0


def log_path(root: str) -> Path:
    return Path(root) / rejections.LOG_NAME


def load(path: Path) -> tuple[rejections.Row, ...]:
    """The rows in file order; an absent log has none. Raises OSError when it is unreadable."""
    return rejections.parse(deferred.read_folded(path, _fold))


def record(path: Path, agent: str, slug: str, lens: str, reason: str, today: str) -> str | None:
    """Count one refusal in; None on success, else why it was not recorded (one line)."""
    # a model's reason may quote what it reviewed: scrubbed before anything is written
    record = {"agent": agent, "slug": slug, "lens": lens, "reason": loggable(reason), "date": today}
    return deferred.update(path, record, _fold, LOCK_WAIT_S)


def _fold(text: str, records: Sequence[deferred.Record]) -> str:
    rows = rejections.parse(text)
    for r in records:
        rows = rejections.record(
            rows,
            str(r.get("agent", "")),
            str(r.get("slug", "")),
            str(r.get("lens", "")),
            str(r.get("reason", "")),
            str(r.get("date", "")),
        )
    return rejections.render(rows)
