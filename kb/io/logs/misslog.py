"""Appending a refused question to `kb-misses.txt`, safely under concurrent writers.

The file is rewritten whole (temp file + rename) under an exclusive lock file, so a reader
never sees half a file. When another writer holds the lock past `LOCK_WAIT_S`, the question
is deferred and folded in by the next writer (kb.io.files.deferred): concurrent agents lose no
question and no route waits. A failed write never fails the query: it is reported back as
a message. What is recorded is scrubbed of secrets and cut first, and the log is bounded
(kb.pure.logs.logbounds, issue 24): a refusal costs the same on the thousandth day as on the
first.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from kb.io.files import deferred
from kb.pure.logs import logbounds, misslog

LOCK_WAIT_S = 0.5


def log_path(root: str) -> Path:
    override = os.environ.get("KB_MISSES_PATH", "").strip()
    if override:
        return Path(override)
    return Path(root) / misslog.LOG_NAME


def record(path: Path, question: str, looked_like: Sequence[str], today: str) -> str | None:
    """Record one refusal; None on success, else the one-line reason it was not recorded.
    The question is scrubbed of secrets and cut to what the router reads before anything
    is written, a deferred record included (kb.pure.logs.logbounds.loggable)."""
    question = logbounds.loggable(question)
    if not question.strip():
        return None
    record = {"question": question, "looked_like": list(looked_like), "date": today}
    return deferred.update(path, record, _fold, LOCK_WAIT_S)


# The log as this process last rendered it, with its rows: a resident kb finds its own last
# write there on the next refusal, and parsing a full log (2,000 rows) again was 5 of the 13 ms
# each refusal cost. Exact, never a guess: the text must be the same to the character, and
# what `misslog.record` returns is what its render parses back to (a property holds that).
_rendered: tuple[str, tuple[misslog.Miss, ...]] = ("", ())


def _rows(text: str) -> list[misslog.Miss]:
    written, rows = _rendered
    return list(rows) if text == written and text else misslog.parse(text)


def _fold(text: str, records: Sequence[deferred.Record]) -> str:
    global _rendered
    misses = _rows(text)
    for r in records:
        looked = r.get("looked_like", [])
        misses = misslog.record(
            misses,
            str(r.get("question", "")),
            [str(w) for w in looked] if isinstance(looked, list) else [],
            str(r.get("date", "")),
        )
    out = misslog.render(misses)
    _rendered = (out, tuple(misses))
    return out


def unwritable(path: Path) -> str | None:
    """Why the log at `path` can never be written as it stands (a folder in its place, a
    file or a folder kb may not read or write, a read-only disk), or None when it can: what
    `kb doctor` checks. It writes and removes one probe file beside the log."""
    import stat

    try:
        st = path.lstat()
    except FileNotFoundError:
        st = None
    except OSError as e:
        return f"cannot look at it: {e.strerror or e}"
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            return "a folder is in its place"
        if not stat.S_ISREG(st.st_mode):
            return "it is not a regular file"
        try:
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        except OSError as e:
            return f"it cannot be read: {e.strerror or e}"
    folder = path.parent
    probe = folder / f".{path.name}.probe-{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        pass
    except OSError as e:
        return f"its folder {folder} cannot be written: {e.strerror or e}"
    try:
        probe.unlink()
    except OSError:
        pass
    return None


def waiting(path: Path) -> int:
    """How many records wait in the log's pending folder to be folded in."""
    return len(deferred.pending(path))


def load(path: Path) -> list[misslog.Miss]:
    """The log in priority order, deferred questions included; an absent log is empty, not
    an error."""
    return _rows(deferred.read_folded(path, _fold))
