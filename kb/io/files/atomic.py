"""Writing a file so that a reader sees the old content or the new, never half of either.

Temp files: every write here goes through a hidden sibling, `.{name}.{8 chars}.tmp` (or
`.{8 chars}.tmp` for a source record). A kill -9 can leave one behind; no reader ever opens
one (the walker takes `*.md`, the source loader `*.txt`), and `sweep_temps` removes those
older than TEMP_STALE_S, called after kb's own writes and by `kb index`.

Crash points (tests only): `crash_point(label)` marks a moment where a kill -9 would leave
the disk in an interesting state. With the environment variable KB_CRASH_AT unset it
returns at once. `KB_CRASH_AT=<label>` or `<label>@N` makes the process SIGKILL itself the
first (or N-th) time it reaches that label; `KB_CRASH_AT=trace:<file>` appends every label
reached to <file>, one a line with the monotonic clock's reading. tests/stress/test_crash.py
uses them; no user should set it.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

# A write holds its temp file for milliseconds; one ten minutes old belongs to a process
# that died mid-write. Removing a live writer's temp file could only make that write fail
# with an error, never leave half a file, so the figure is about tidiness, not safety.
TEMP_STALE_S = 600.0
# mkstemp's names (8 of a-z0-9_) and notewrite's (8 hex digits): nothing a person writes.
_TEMP_NAME = re.compile(r"\.(?:.+\.)?[a-z0-9_]{8}\.tmp")

# A resident kb may answer a verb before it has confirmed that the fleet it holds is still
# current (kb.shell.daemon). It then sets a check that every write kb makes for a verb passes
# first: the check returns when the answer stands, and raises to stop the verb before
# anything is written. None in every other process.
_write_check: Callable[[], None] | None = None


def check_writes(check: Callable[[], None] | None) -> None:
    global _write_check
    _write_check = check


def before_write() -> None:
    """Called by every writer a verb uses (write_atomic, kb.io.files.deferred.update,
    kb.io.sessions.bootstate.append_event) before it touches the disk."""
    if _write_check is not None:
        _write_check()


# The writes a resident kb makes once its reply is out (kb.shell.daemon): what a verb keeps
# only for a later call (a session's agent and events), never what its reply reports. None in
# every other process, which writes at once. In the watched fleet every write is events the
# watcher's threads handle while the request runs: boot's two session files cost a session's
# first `kb boot` 0.3-0.5 ms of its reply at the example fleet.
_after_reply: list[Callable[[], None]] | None = None


def writes_after_reply(enabled: bool) -> None:
    """From now on (`enabled`) `later` keeps writes for `write_now`; `False` writes at once."""
    global _after_reply
    _after_reply = [] if enabled else None


def later(write: Callable[[], None]) -> bool:
    """Keep `write` for after the reply; False outside a resident kb (the caller writes now).
    The write check runs now, so a stale answer keeps nothing."""
    if _after_reply is None:
        return False
    before_write()
    _after_reply.append(write)
    return True


def drop_kept() -> int:
    """Forget the writes kept by `later` (a verb that failed, answered again elsewhere, would
    otherwise make them twice); how many."""
    kept = _after_reply
    if not kept:
        return 0
    dropped = len(kept)
    kept.clear()
    return dropped


def write_now() -> int:
    """Make the writes kept by `later`, in the order they were kept; how many. A write that
    fails is skipped (each one already takes a failure as a lost record, never an error)."""
    kept = _after_reply
    if not kept:
        return 0
    writes = list(kept)
    kept.clear()
    for write in writes:
        with contextlib.suppress(OSError, ValueError):
            write()
    return len(writes)


_CRASH_AT = os.environ.get("KB_CRASH_AT")
_crash_counts: dict[str, int] = {}


def crash_point(label: str) -> None:
    """Test hook: SIGKILL this process here when KB_CRASH_AT names `label` (module doc)."""
    if _CRASH_AT is None:
        return
    if _CRASH_AT.startswith("trace:"):
        with open(_CRASH_AT[len("trace:") :], "a", encoding="utf-8") as fh:
            fh.write(f"{label} {time.monotonic()}\n")
        return
    name, _, nth = _CRASH_AT.partition("@")
    if name == label:
        _crash_counts[label] = _crash_counts.get(label, 0) + 1
        if _crash_counts[label] == int(nth or 1):
            import signal

            os.kill(os.getpid(), signal.SIGKILL)


def is_temp_name(name: str) -> bool:
    """True for the name of a temp file kb's own writers make."""
    return _TEMP_NAME.fullmatch(name) is not None


def sweep_temps(folder: Path, stale_s: float = TEMP_STALE_S) -> int:
    """Remove kb's temp files in `folder` (not below it) untouched for `stale_s`; how many.
    Never raises: a folder that cannot be listed is simply left as it is."""
    removed = 0
    cutoff = time.time() - stale_s
    try:
        with os.scandir(folder) as it:
            for e in it:
                if not is_temp_name(e.name):
                    continue
                with contextlib.suppress(OSError):
                    if e.is_file(follow_symlinks=False) and e.stat().st_mtime < cutoff:
                        os.unlink(e.path)
                        removed += 1
    except OSError:
        pass
    return removed


def write_atomic(path: Path, text: str, errors: str = "strict", durable: bool = True) -> None:
    """Write to a temp file in the same folder, fsync it, then rename it over `path`.
    `errors="surrogateescape"` writes back the bytes of text read with it (a file that was
    not all UTF-8 keeps its other bytes). `durable=False` leaves out the fsync, for a file
    whose loss in a power cut costs nothing (a reader still sees the old file or the new
    one whole while the machine runs; after a cut it may find it empty, which such a file's
    reader must take as absent): an fsync is the larger part of a small write."""
    before_write()
    import tempfile  # shutil, bz2, random: only a writer pays for them

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes 0600 files; keep the mode the file had, or an ordinary 0644.
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8", errors=errors, newline="") as fh:
            fh.write(text)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        crash_point("atomic.temp-written")
        os.replace(tmp, path)
        crash_point("atomic.replaced")
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def make_dirs(folder: Path) -> list[Path]:
    """Create `folder` and its missing ancestors; return what was created, outermost first,
    so a later failure can remove exactly those. A failure here removes them itself."""
    missing: list[Path] = []
    p = folder
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    made: list[Path] = []
    try:
        for d in reversed(missing):
            try:
                d.mkdir()
            except FileExistsError:
                if not d.is_dir():
                    raise
                continue  # another writer made it a moment ago: it is not ours to remove
            made.append(d)
    except BaseException:
        remove_dirs(made)
        raise
    return made


def remove_dirs(made: list[Path]) -> None:
    """Undo `make_dirs`: remove the created folders innermost first, if still empty."""
    for d in reversed(made):
        with contextlib.suppress(OSError):
            d.rmdir()
