"""Reading and recording the routing logs at the fleet root (`kb-misroutes.txt`,
`kb-abstentions.txt`), safely under concurrent writers.

How a record is made safe: an exclusive lock file (`<log>.lock`, created with O_EXCL, the
marker the miss log uses) held while the log is read, folded by kb.pure.routelogs and
rewritten whole (temp file + fsync + rename). Not a bare O_APPEND of one line: the format
keeps one counted row per fault, sorted by count, and a person is told to delete the row
once the fault is fixed; appended duplicates would scatter one fault over many rows. The
rename means a reader sees the old log or the new one, never half a line, and the lock
means two agents filing at once lose neither filing. A lock left by a writer that died is
taken over (kb.io.lockfile).

Waiting differs by caller: `kb misroute` is a deliberate act and waits up to 5 s for the
lock (losing a filing is worse than a pause); `kb boot` runs on every prompt and waits
0.5 s, as the miss log does, then reports the failure and carries on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from kb.io.atomic import write_atomic
from kb.io.lockfile import LockBusy, lock_path, locked, read_or_empty
from kb.pure import routelogs

MISROUTE_LOCK_WAIT_S = 5.0
ABSTENTION_LOCK_WAIT_S = 0.5


def misroutes_path(root: str) -> Path:
    return Path(root) / routelogs.MISROUTES_NAME


def abstentions_path(root: str) -> Path:
    return Path(root) / routelogs.ABSTENTIONS_NAME


def _update(path: Path, change: Callable[[str], str], wait_s: float) -> str | None:
    """Rewrite `path` as `change(old text)` under the lock; None, or why it was not written."""
    try:
        with locked(lock_path(path), wait_s):
            write_atomic(path, change(read_or_empty(path)))
        return None
    except LockBusy as e:
        return str(e)
    except OSError as e:
        return f"could not write {path}: {e.strerror or e}"


def record_misroute(path: Path, filing: routelogs.Filing, today: str) -> str | None:
    """File one misroute; None on success, else the one-line reason nothing was written."""

    def change(text: str) -> str:
        rows = routelogs.parse_misroutes(text)
        updated = routelogs.record_misroute(
            rows, filing.message, filing.chose, filing.owner, filing.why, today
        )
        return routelogs.render_misroutes(updated)

    return _update(path, change, MISROUTE_LOCK_WAIT_S)


def record_abstention(
    path: Path,
    coverage: str,
    nearest: str | None,
    subject: str,
    message: str,
    reason: str,
    totals: Sequence[tuple[str, float]],
    today: str,
) -> str | None:
    """Record one abstention (for `kb boot`); None on success, else why it was not written.
    The arguments are `kb.pure.routelogs.abstention_line`'s."""
    new = routelogs.new_abstention(coverage, nearest, subject, message, reason, totals, today)

    def change(text: str) -> str:
        return routelogs.render_abstentions(
            routelogs.record_abstention(routelogs.parse_abstentions(text), new)
        )

    return _update(path, change, ABSTENTION_LOCK_WAIT_S)


def load_misroutes(path: Path) -> list[routelogs.Misroute]:
    """The log in rank order; an absent log is empty. Other read errors raise OSError."""
    return routelogs.parse_misroutes(read_or_empty(path))


def load_abstentions(path: Path) -> list[routelogs.Abstention]:
    """The log in rank order; an absent log is empty. Other read errors raise OSError."""
    return routelogs.parse_abstentions(read_or_empty(path))
