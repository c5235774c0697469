"""The kill -9 harness behind tests/stress/test_crash.py.

A trial copies a prepared template fleet, starts one real `kb` process on it and SIGKILLs
it, either after a seeded random delay drawn from 0 to the verb's measured runtime, or at a
named crash point (`KB_CRASH_AT=<label>@N`, see kb/io/files/atomic.py) drawn from the labels an
uninterrupted run of the same verb actually reached. Then it checks the disk and lets kb
recover.

Everything here compares the disk with states recorded from uninterrupted runs
(`Calibration`): `before` (the template), `after` (the verb ran to the end) and, where a
verb passes through named intermediate states (promote's map after its first note), the
trees of runs stopped at those points. "Old or new, never a prefix" is then a byte
comparison per file against those states.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kb.io.files.atomic import is_temp_name
from kb.pure.notes.manifest import private_layer

KB = (sys.executable, "-m", "kb.shell.cli.main")
TIMEOUT_S = 120.0  # generous: the machine is loaded, and a hang is a failure, not a flake
AGE_S = 2 * 3600.0  # how far locks and temp files are pushed into the past before recovery
SKIPPED_DIRS = frozenset({"target", "node_modules", "dist", "build"})
DATE = re.compile(rb"\d{4}-\d{2}-\d{2}")
INDEX_FILES = ("index.db", "index.db-wal", "index.db-shm", "index.db-journal")

Tree = dict[str, bytes]
Normalize = Callable[[str, bytes], tuple[str, bytes]]


def env_for(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test's environment without any KB_ variable, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["KB_MODEL_TIMEOUT"] = "60"
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str
    seconds: float


def run(
    args: Sequence[str],
    cwd: Path,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    delay: float | None = None,
) -> Ran:
    """Run `kb args` in `cwd`; with `delay`, SIGKILL it that many seconds after the start
    unless it has finished by then (its code is then -9)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [*KB, *args],
        cwd=cwd,
        env=dict(env) if env is not None else env_for(),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = proc.communicate(stdin, timeout=TIMEOUT_S if delay is None else delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=TIMEOUT_S)
    return Ran(proc.returncode, out, err, time.monotonic() - start)


def in_process(args: Sequence[str]) -> Ran:
    """Run a kb verb inside this process (no interpreter start-up: the checks after each
    kill are most of a trial's cost). An exception escapes as a test failure, which is
    what a traceback from the real process would be."""
    from kb.shell.cli.main import run as kb_run

    start = time.monotonic()
    out = kb_run(list(args))
    return Ran(out.code, out.stdout, out.stderr, time.monotonic() - start)


# -- the disk ---------------------------------------------------------------------------------


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def is_lock(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name.endswith(".lock")


def is_index_file(rel: str) -> bool:
    parts = rel.split("/")
    return len(parts) >= 2 and parts[-2] == ".kb" and parts[-1] in INDEX_FILES


def temps(root: Path) -> list[str]:
    """Every kb temp file under `root`, hidden folders included."""
    return [p.relative_to(root).as_posix() for p in _files(root) if is_temp_name(p.name)]


def locks(root: Path) -> list[str]:
    return [r for r in (p.relative_to(root).as_posix() for p in _files(root)) if is_lock(r)]


def tree(root: Path, normalize: Normalize | None = None) -> Tree:
    """Every file under `root` by relative path, except temp files, locks and the index
    databases (compared on their own, by content, in `index_states`)."""
    out: Tree = {}
    for p in _files(root):
        rel = p.relative_to(root).as_posix()
        if is_temp_name(p.name) or is_lock(rel) or is_index_file(rel):
            continue
        data = p.read_bytes()
        if normalize is not None:
            rel, data = normalize(rel, data)
        assert rel not in out, f"two files normalize to {rel}"
        out[rel] = data
    return out


def dates_out(rel: str, data: bytes) -> tuple[str, bytes]:
    """Today's date (in names and text) as <DATE>, so a run across midnight cannot flake."""
    return DATE.sub(b"<DATE>", rel.encode()).decode(), DATE.sub(b"<DATE>", data)


def backdate(root: Path, rels: Sequence[str], seconds: float = AGE_S) -> None:
    then = time.time() - seconds
    for rel in rels:
        os.utime(root / rel, (then, then))


def bases(root: Path) -> list[Path]:
    return sorted(p for p in (root / "fleet").iterdir() if p.is_dir())


def files_in_scope(root: Path, include_private: bool = False) -> int:
    """What `kb index` must report as its total: the `.md` files of every base, outside
    hidden and skipped folders, the private layer left out unless `include_private`."""
    count = 0
    for base in bases(root):
        agent = base / "agent.txt"
        layer = private_layer(
            agent.read_text(encoding="utf-8") if agent.is_file() else None, base.name
        )
        for p in base.rglob("*.md"):
            rel = p.relative_to(base).as_posix()
            parts = rel.split("/")
            if any(d.startswith(".") or d in SKIPPED_DIRS for d in parts[:-1]):
                continue
            if p.is_file() and (include_private or not layer.covers(rel)):
                count += 1
    return count


INDEX_TOTAL = re.compile(r"^  total: (\d+) files,", re.MULTILINE)


def index_total(stdout: str) -> int:
    found = INDEX_TOTAL.search(stdout)
    assert found, f"no totals line in kb index output:\n{stdout}"
    return int(found.group(1))


# -- the index --------------------------------------------------------------------------------

IndexState = tuple[tuple[tuple[object, ...], ...], ...]
EMPTY_INDEX: IndexState = ((), (), ())


def index_state(db: Path) -> IndexState:
    """The text index's content (files, chunks, sources rows), read from a copy of the
    database and its write-ahead log, so the check neither repairs nor disturbs the
    original: what any later opener would see. Absent or never-committed: EMPTY_INDEX."""
    if not db.exists():
        return EMPTY_INDEX
    with tempfile.TemporaryDirectory(prefix="kb-crash-db-") as scratch:
        copy = Path(scratch) / "index.db"
        shutil.copyfile(db, copy)
        wal = db.with_name(db.name + "-wal")
        if wal.exists():
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        conn = sqlite3.connect(copy)
        try:
            (ok,) = conn.execute("PRAGMA integrity_check").fetchone()
            assert ok == "ok", f"{db}: integrity_check says {ok}"
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            parts: list[tuple[tuple[object, ...], ...]] = []
            for table, cols in (
                ("files", "base, path, hash, provenance, stage, captured_from, private"),
                ("chunks", "base, path, heading_path, text"),
                ("sources", "*"),
            ):
                if table not in tables:
                    parts.append(())
                    continue
                rows = conn.execute(f"SELECT {cols} FROM {table}").fetchall()
                parts.append(tuple(sorted(rows, key=repr)))
            if "chunks" in tables:  # FTS5's own check of its shadow tables
                conn.execute("INSERT INTO chunks(chunks) VALUES ('integrity-check')")
        finally:
            conn.close()
    return (parts[0], parts[1], parts[2])


def index_states(root: Path) -> dict[str, IndexState]:
    return {b.name: index_state(b / ".kb" / "index.db") for b in bases(root)}


# -- calibration ------------------------------------------------------------------------------


@dataclass
class Calibration:
    """What uninterrupted runs of one scenario leave, and how long one takes."""

    before: Tree
    after: Tree
    index_before: dict[str, IndexState]
    index_after: dict[str, IndexState]
    labels: list[str]  # every crash point the run reached, in order
    runtime: float
    first_point: float  # seconds from the start to the first crash point: the work begins
    between: list[Tree] = field(default_factory=list)  # named intermediate states

    def allowed(self, rel: str) -> list[bytes | None]:
        """Every content `rel` may legally have after a kill (None: absent)."""
        states = [self.before, self.after, *self.between]
        return list(dict.fromkeys(s.get(rel) for s in states))

    def hook_plan(self, rng: random.Random) -> list[str]:
        """The crash points the run really reaches, as `label@N`, in the order hook trials
        take them: one occurrence of every distinct label first (so n trials reach
        min(n, labels) different points), then every other occurrence; each part shuffled."""
        seen: Counter[str] = Counter()
        occurrences: dict[str, list[str]] = {}
        for label in self.labels:
            seen[label] += 1
            occurrences.setdefault(label, []).append(f"{label}@{seen[label]}")
        head = [rng.choice(points) for points in occurrences.values()]
        rest = [p for points in occurrences.values() for p in points if p not in head]
        rng.shuffle(head)
        rng.shuffle(rest)
        return head + rest


def copy_fleet(template: Path, dest: Path) -> Path:
    shutil.copytree(template, dest, symlinks=True)
    return dest


def assert_file_states(root: Path, cal: Calibration, normalize: Normalize | None) -> Tree:
    """Every file is absent or exactly one of its recorded states; nothing else exists but
    kb temp files and locks. Returns the tree."""
    now = tree(root, normalize)
    for rel, data in now.items():
        allowed = cal.allowed(rel)
        assert data in allowed, (
            f"{rel} is none of its recorded states ({len(data)} bytes; "
            f"allowed sizes {[len(a) if a is not None else None for a in allowed]}):\n"
            f"{data[:400]!r}"
        )
    for rel in set(cal.before) | set(cal.after):
        if rel not in now:
            assert None in cal.allowed(rel), f"{rel} vanished, and no recorded state lacks it"
    for rel in temps(root):
        assert not rel.endswith(".md"), f"a temp file the walker would read as a note: {rel}"
    return now


def assert_no_traceback(ran: Ran, what: str) -> None:
    assert "Traceback" not in ran.stderr, f"{what} crashed:\n{ran.stderr}"
    assert "Traceback" not in ran.stdout, f"{what} crashed:\n{ran.stdout}"
