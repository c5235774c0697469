"""The session files `kb boot` reads and writes under `{root}/.kb/sessions/`, on the hot path.

`kb capture` and `kb handoff` own these files too (kb.io.sessions.records); this module reads and
writes the same formats with what a per-message hook can afford: it imports nothing of the
capture and handoff machinery (about 26 ms per process, measured), and it lists the folder
once before parsing any handoff record.

- `.kb/sessions/{safe}`: the agent the session was last routed to, replaced atomically.
- `.kb/sessions/{safe}.events`: one event line per `write` on an O_APPEND descriptor, so
  concurrent writers never interleave inside a line; a torn last line (a writer killed
  mid-line) gets a newline first, so the new event never fuses with it.
- `.kb/sessions/{safe}.handoff.md` and `latest-handoff.txt`: read only.
Every write is best effort: a hook that cannot record its session still answers.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from kb.io.files.atomic import before_write, later, write_atomic
from kb.io.notes.safe_read import Read, read_named
from kb.pure.sessions.sessionname import safe_session

if TYPE_CHECKING:  # the record's module is imported only when there is a record to parse
    from collections.abc import Callable

    from kb.pure.sessions.continuity import Handoff

HANDOFF_SUFFIX = ".handoff.md"
LATEST_HANDOFF = "latest-handoff.txt"

# A resident kb that watches the fleet (kb.shell.daemon) says how many times a handoff record
# under a folder may have changed, once every change made before the request is counted;
# None where it cannot vouch (no watcher, another fleet). The folder's listing is kept until
# that count moves: the folder holds two files for every session the fleet has seen, and its
# listing cost a session's first `kb boot` 0.8 ms per thousand sessions (12.6 ms at 15,000).
_handoff_changes: Callable[[str], int | None] | None = None
# (folder, count, every record's (mtime, name)) as last listed
_listed: tuple[str, int, list[tuple[int, str]]] | None = None


def watch_handoffs(changes: Callable[[str], int | None] | None) -> None:
    global _handoff_changes, _listed
    _handoff_changes, _listed = changes, None


def sessions_dir(root: str) -> Path:
    return Path(root) / ".kb" / "sessions"


def _read(path: Path) -> str | None:
    """A session file of kb's own, read through kb.io.notes.safe_read (a link in its place is not
    followed), or None."""
    got = read_named(path, own=True)
    return got.data.decode("utf-8", "replace") if isinstance(got, Read) else None


def last_agent(root: str, safe: str) -> str | None:
    text = _read(sessions_dir(root) / safe)
    return (text.strip() or None) if text is not None else None


def remember_agent(root: str, safe: str, agent: str) -> None:
    """Not fsynced: a session's first message writes this on the hook's path, and an empty
    or lost file after a power cut reads as no agent yet (`last_agent`), so the next
    message briefs the agent again. A resident kb writes it once its reply is out."""
    if not later(lambda: _remember_agent(root, safe, agent)):
        _remember_agent(root, safe, agent)


def _remember_agent(root: str, safe: str, agent: str) -> None:
    folder = sessions_dir(root)
    with contextlib.suppress(OSError, ValueError):
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / safe, agent, durable=False)


def append_event(root: str, safe: str, line: str) -> None:
    """One line of the session's event log; a resident kb appends it once its reply is out."""
    if not later(lambda: _append_event(root, safe, line)):
        _append_event(root, safe, line)


def _append_event(root: str, safe: str, line: str) -> None:
    before_write()
    folder = sessions_dir(root)
    path = folder / f"{safe}.events"
    with contextlib.suppress(OSError, ValueError):
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            data = line.encode("utf-8", "replace")
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data
            os.write(fd, data)
        finally:
            os.close(fd)


def _records(folder: Path) -> list[tuple[int, str]] | None:
    """Every handoff record in `folder` as (mtime, name), newest first; None when the folder
    cannot be listed. Listed again only when a resident kb cannot vouch for the last one."""
    global _listed
    key = os.path.abspath(folder)
    count = _handoff_changes(key) if _handoff_changes is not None else None
    if count is not None and _listed is not None and _listed[:2] == (key, count):
        return _listed[2]
    candidates: list[tuple[int, str]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(HANDOFF_SUFFIX):
                    with contextlib.suppress(OSError):
                        if entry.is_file():
                            candidates.append((entry.stat().st_mtime_ns, entry.name))
    except OSError:
        return None
    candidates.sort(reverse=True)
    if count is not None:
        _listed = (key, count, candidates)
    return candidates


def load_handoff(root: str, safe: str) -> Handoff | None:
    text = _read(sessions_dir(root) / f"{safe}{HANDOFF_SUFFIX}")
    if text is None:  # the common case on every `kb boot`: no handoff was saved
        return None
    from kb.pure.sessions.continuity import parse_handoff

    return parse_handoff(text)


def latest_handoff(root: str) -> Handoff | None:
    """The record `latest-handoff.txt` names (a raw session id), else the newest record by
    mtime that parses. The name is read first, and the folder is listed only when it names no
    record, and in a resident kb only when its watcher saw a record change (`_records`)."""
    folder = sessions_dir(root)
    named = (_read(folder / LATEST_HANDOFF) or "").strip()
    if named:
        record = load_handoff(root, safe_session(named))
        if record is not None:
            return record
    candidates = _records(folder)
    if candidates is None:
        return None
    for _, name in candidates:
        from kb.pure.sessions.continuity import parse_handoff  # only when a record is on disk

        text = _read(folder / name)
        record = parse_handoff(text) if text is not None else None
        if record is not None:
            return record
    return None
