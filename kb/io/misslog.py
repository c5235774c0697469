"""Appending a refused question to `kb-misses.txt`, safely under concurrent writers.

The file is rewritten whole (temp file + rename) under an exclusive lock file, so a reader
never sees half a file and two agents refusing at once lose neither question. A lock older
than 30 s is a crashed writer's and is taken over. A failed write never fails the query: it
is reported back as a message.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from kb.io.atomic import write_atomic
from kb.io.lockfile import LockBusy, take_lock
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
    lock = path.with_name(path.name + ".lock")
    try:
        fd = take_lock(lock, LOCK_WAIT_S)
    except LockBusy as e:
        return str(e)
    try:
        os.close(fd)
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except FileNotFoundError:
            text = ""
        updated = misslog.record(misslog.parse(text), question, looked_like, today)
        write_atomic(path, misslog.render(updated))
        return None
    except OSError as e:
        return f"could not write {path}: {e.strerror or e}"
    finally:
        lock.unlink(missing_ok=True)


def load(path: Path) -> list[misslog.Miss]:
    """The log in priority order; an absent log is empty, not an error."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    return misslog.parse(text)
