"""Updating a shared log so that no caller fails and no record is lost, however many write.

A log (the miss log, the misroutes, the abstentions, the rejections) is rewritten whole
under its lock file (kb.io.files.lockfile). When the lock is busy for longer than the caller can
wait, the record is not dropped: it is written as one small file of its own into a hidden
folder beside the log, `.<log name>.pending/`, created complete under a temporary name and
renamed in, so it is either there whole or not at all. The next writer that holds the lock
folds every pending record into the log, in the order they were deferred, writes the log,
and only then removes the records it folded. Readers fold the pending records too, so a
deferred record is visible at once.

A kill between writing the log and removing its pending records makes the next writer fold
them again (counted twice): a record is never lost, and at worst counted once more after a
crash. Measured before: 40 concurrent refused routes kept 24 of 40 questions in the miss log.

A resident kb (kb.shell.daemon) defers every record on purpose and folds them once it has
replied (`fold_after_reply`, `fold_now`): the lock, the rewrite and its fsync, and the
watcher's reports of them (nine events for a write in the watched fleet) cost a refusal
0.8 ms of the 1.7 ms its reply took at the example fleet, and a hook waits for the reply, not
for the log. Every reader folds pending records, so what kb shows is the same at once; the
file itself has the record a moment after the reply (decision 0056).
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kb.io.files.atomic import before_write, write_atomic
from kb.io.files.lockfile import LockBusy, LockUnavailable, lock_path, locked, read_or_empty

Record = dict[str, Any]
# Applies records to the log's text, returning the new text.
Fold = Callable[[str, Sequence[Record]], str]


# The fold of each log a record was deferred to, for the resident kb to run after its reply;
# None in every other process, which folds in line.
_after_reply: dict[Path, Fold] | None = None


def fold_after_reply(enabled: bool) -> None:
    """From now on (`enabled`) defer every record and leave the folding to `fold_now`,
    which the caller runs once its reply is out; `False` folds in line again."""
    global _after_reply
    _after_reply = {} if enabled else None


def fold_now() -> int:
    """Fold the records deferred since the last call into their logs; how many logs were
    written. It never waits for a lock: a log whose lock is busy is tried again at the next
    call (its holder folds what it finds pending meanwhile), and one that cannot be written
    keeps its records pending, which every reader folds. Nothing here raises an OSError."""
    waiting = _after_reply
    if not waiting:
        return 0
    logs = list(waiting.items())
    waiting.clear()
    written = 0
    for path, fold in logs:
        try:
            with locked(lock_path(path), 0.0):
                written += fold_pending(path, fold) > 0
        except LockUnavailable:
            continue
        except LockBusy:
            waiting.setdefault(path, fold)
        except OSError:
            continue
    return written


def _deferrable(path: Path) -> bool:
    """Whether deferring to `path` can stand for writing it: its folder is writable and the
    log is a file or absent. Otherwise the write in line words why it fails, as a process
    without a resident kb would (a folder in the log's place, a folder kb may not write)."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        pass
    except OSError:
        return False
    else:
        if not stat.S_ISREG(st.st_mode):
            return False
    return os.access(path.parent, os.W_OK | os.X_OK)


def pending_dir(path: Path) -> Path:
    return path.parent / f".{path.name}.pending"


def pending(path: Path) -> list[tuple[Path, Record]]:
    """The records deferred for `path`, oldest first; a damaged one is skipped (and left)."""
    folder = pending_dir(path)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError:
        return []
    out: list[tuple[Path, Record]] = []
    for name in names:
        file = folder / name
        try:
            value = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(value, dict):
            out.append((file, value))
    return out


def defer(path: Path, record: Record) -> None:
    """Write `record` as a pending file for `path`: complete, or not at all."""
    folder = pending_dir(path)
    folder.mkdir(exist_ok=True)
    # Nanoseconds first, so names sort in the order records were deferred.
    import secrets  # hmac, base64, random: only a deferred write pays for them

    name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(4)}"
    tmp = folder / f".{name}.tmp"
    tmp.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, folder / f"{name}.json")


def read_folded(path: Path, fold: Fold) -> str:
    """The log's text with every pending record folded in (what a reader should see)."""
    deferred = [r for _, r in pending(path)]
    text = read_or_empty(path)
    return fold(text, deferred) if deferred else text


def update(path: Path, record: Record, fold: Fold, wait_s: float) -> str | None:
    """Fold `record` (after any pending ones) into the log at `path`. None when the record
    is in the log, or deferred because another writer held the lock; else the one-line
    reason the log could not be written.

    Deferring is for a busy lock, which the next writer resolves. A log that cannot be
    written (a folder in its place, no permission, a read-only disk) is not busy: waiting
    fixes nothing, so the reason is returned on every call, to be reported (`miss.error`,
    one stderr line) rather than the record sitting in the pending folder with
    `recorded: true` forever (issue 24, part 7). The record is still deferred when the
    pending folder takes it, so it is folded in once the log can be written."""
    before_write()
    later = _after_reply
    if later is not None and _deferrable(path):
        try:
            defer(path, record)
        except OSError:
            pass  # the write in line says what failed
        else:
            later.setdefault(path, fold)
            return None
    try:
        with locked(lock_path(path), wait_s):
            waiting = pending(path)
            text = fold(read_or_empty(path), [*(r for _, r in waiting), record])
            write_atomic(path, text)
            for file, _ in waiting:
                try:
                    file.unlink()
                except FileNotFoundError:
                    pass
        return None
    except LockUnavailable as e:
        return _kept_aside(path, record, str(e))
    except LockBusy:
        pass
    except OSError as e:
        return _kept_aside(path, record, f"could not write {path}: {e.strerror or e}")
    try:
        defer(path, record)
    except OSError as e:
        return f"could not write {path} or defer to {pending_dir(path)}: {e.strerror or e}"
    return None


def _kept_aside(path: Path, record: Record, error: str) -> str:
    """The message for a log that cannot be written; the record is deferred when it can be."""
    try:
        defer(path, record)
    except OSError:
        return error
    return f"{error}; the record was kept in {pending_dir(path)} until the log can be written"


def fold_pending(path: Path, fold: Fold) -> int:
    """Fold every pending record of `path` into the log and remove them; how many. The
    caller holds the log's lock (as `kb sync` does before it commits the log)."""
    waiting = pending(path)
    if not waiting:
        return 0
    write_atomic(path, fold(read_or_empty(path), [r for _, r in waiting]))
    for file, _ in waiting:
        try:
            file.unlink()
        except FileNotFoundError:
            pass
    return len(waiting)
