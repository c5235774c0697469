"""Appending a refused question to `kb-misses.txt`, safely under concurrent writers.

The file is rewritten whole (temp file + rename) under an exclusive lock file, so a reader
never sees half a file and two agents refusing at once lose neither question. A lock left by
a writer that died is taken over, a live writer's never (kb.io.lockfile). A failed write never
fails the query: it is reported back as a message.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from kb.io.atomic import write_atomic
from kb.io.lockfile import LockBusy, lock_path, locked, read_or_empty
from kb.pure import misslog

LOCK_WAIT_S = 0.5


def log_path(root: str) -> Path:
    override = os.environ.get("KB_MISSES_PATH", "").strip()
    if override:
        return Path(override)
    return Path(root) / misslog.LOG_NAME


def record(path: Path, question: str, looked_like: Sequence[str], today: str) -> str | None:
    """Record one refusal; None on success, else the one-line reason it was not recorded."""
    if not question.strip():
        return None
    try:
        with locked(lock_path(path), LOCK_WAIT_S):
            old = misslog.parse(read_or_empty(path))
            write_atomic(path, misslog.render(misslog.record(old, question, looked_like, today)))
        return None
    except LockBusy as e:
        return str(e)
    except OSError as e:
        return f"could not write {path}: {e.strerror or e}"


def load(path: Path) -> list[misslog.Miss]:
    """The log in priority order; an absent log is empty, not an error."""
    return misslog.parse(read_or_empty(path))
