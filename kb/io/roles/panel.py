"""The ledger file `kb-rounds.txt` on disk, the constitutions a panel is handed, and the
artifact under review; every rule is kb.pure.roles.panel's.

How a change is made safe: the shell takes the ledger's lock (`kb-rounds.txt.lock`, created
with O_EXCL, the marker the miss log uses), reads the rows, asks kb.pure.roles.panel for the move,
and writes the whole file back (temp file + fsync + rename) only when the move was taken.
So a refusal leaves the file byte for byte as it was, a reader sees the old ledger or the new
one and never half a row, and two reviewers recorded at the same moment lose neither answer.
Recording is a deliberate act, so it waits up to 5 s for the lock (as `kb misroute` does); a
lock left by a writer that died is taken over (kb.io.files.lockfile).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from kb.io.files.atomic import make_dirs, remove_dirs, write_atomic
from kb.io.files.lockfile import LockBusy, release_lock, take_lock
from kb.pure.roles import panel

LOCK_WAIT_S = 5.0


class LedgerError(Exception):
    """The ledger could not be locked, read or written; nothing was changed."""


def ledger_path(root: str) -> Path:
    return Path(root) / panel.LEDGER_NAME


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    except OSError as e:
        raise LedgerError(f"could not read {path}: {e.strerror or e}") from e


def load(path: Path) -> tuple[panel.Row, ...]:
    """The rows in stored order; an absent ledger has none."""
    return panel.parse_ledger(_read(path))


class Locked:
    """The ledger while its lock is held: read the rows, then write the new ones (or not)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def rows(self) -> tuple[panel.Row, ...]:
        return load(self.path)

    def write(self, rows: Sequence[panel.Row]) -> None:
        try:
            write_atomic(self.path, panel.render_ledger(rows))
        except OSError as e:
            raise LedgerError(f"could not write {self.path}: {e.strerror or e}") from e


@contextmanager
def locked(path: Path, wait_s: float = LOCK_WAIT_S) -> Iterator[Locked]:
    """Hold the ledger's lock for one read-decide-write (raises LedgerError)."""
    if not path.parent.is_dir():
        raise LedgerError(f"cannot keep a ledger in {path.parent}: it is not a folder")
    lock = path.with_name(path.name + ".lock")
    try:
        fd = take_lock(lock, wait_s)
    except LockBusy as e:
        raise LedgerError(str(e)) from e
    try:
        yield Locked(path)
    finally:
        release_lock(lock, fd)


def write_constitutions(out: Path, texts: Sequence[tuple[str, str]]) -> list[Path]:
    """Write each (file name, text) into `out`, creating it if needed; on a failure, remove
    what this call created and raise LedgerError, so no half panel is left behind."""
    made: list[Path] = []
    written: list[Path] = []
    try:
        made = make_dirs(out)
        for name, text in texts:
            path = out / name
            write_atomic(path, text)
            written.append(path)
    except OSError as e:
        for p in written:
            p.unlink(missing_ok=True)
        remove_dirs(made)
        raise LedgerError(
            f"could not write the panel's constitutions in {out}: {e.strerror or e}"
        ) from e
    return written


def read_artifact(path: str) -> str | None:
    """The artifact's text, or None when it is not a readable UTF-8 file (then it is only a
    name, and nothing is priced or scored for it)."""
    try:
        p = Path(path)
        if not p.is_file():
            return None
        return p.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None
