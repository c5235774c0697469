"""The lock discipline and torn-line repair of the shared logs (kb.io.files.lockfile), step by step.

Deterministic: no race is left to chance. A killed writer is a real process killed with
SIGKILL while it holds the lock; "the stale period passed" is the lock file's mtime moved
back, not a sleep; the dead-lock grace is a parameter.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from kb.io.files import lockfile
from kb.io.files.lockfile import LockBusy, release_lock, take_lock
from kb.io.logs import misslog, routelogs
from kb.io.promotion import rejectlog
from kb.pure.logs.routelogs import Filing

REPO = Path(__file__).resolve().parents[2]
DAY = "2026-01-02"
HOLDER = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from kb.io.files.lockfile import take_lock\n"
    "take_lock(Path(sys.argv[1]), 5.0)\n"
    "print('held', flush=True)\n"
    "time.sleep(600)\n"
)


@contextmanager
def holder(lock: Path) -> Iterator[subprocess.Popen[str]]:
    """A real writer process holding `lock` (through take_lock) until killed."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


# -- lock takeover -----------------------------------------------------------------------------


def test_a_killed_writers_lock_is_taken_over(tmp_path: Path) -> None:
    log = tmp_path / "kb-misses.txt"
    lock = tmp_path / "kb-misses.txt.lock"
    with holder(lock) as proc:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert lock.exists()  # kill -9 leaves the lock behind
    _age(lock, lockfile.DEAD_LOCK_GRACE_S + 5)  # the grace period has passed
    assert misslog.record(log, "what survives a crash", (), DAY) is None
    assert [m.question for m in misslog.load(log)] == ["what survives a crash"]
    assert not lock.exists()


def test_a_killed_writers_lock_waits_only_for_the_injected_grace(tmp_path: Path) -> None:
    lock = tmp_path / "log.lock"
    with holder(lock) as proc:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    with pytest.raises(LockBusy):  # younger than the grace: its holder may be flocking it
        take_lock(lock, 0.05, grace_s=3600)
    fd = take_lock(lock, 5.0, grace_s=0.0)  # nobody holds its flock: dead, taken at once
    release_lock(lock, fd)
    assert not lock.exists()


def test_a_live_writer_is_never_broken_however_old_its_lock(tmp_path: Path) -> None:
    # The original took any lock older than 30 s; a writer that was only slow (stopped, a
    # stalled disk) then wrote over its successor's rewrite and removed its lock.
    log = tmp_path / "kb-misses.txt"
    lock = tmp_path / "kb-misses.txt.lock"
    with holder(lock) as proc:
        _age(lock, lockfile.STALE_LOCK_S + 3600)
        inode = lock.stat().st_ino
        # The question is deferred, not dropped (kb.io.files.deferred), and the lock untouched.
        assert misslog.record(log, "not now", (), DAY) is None
        assert lock.stat().st_ino == inode and not log.exists()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert misslog.record(log, "now", (), DAY) is None
    assert {m.question for m in misslog.load(log)} == {"not now", "now"}
    assert "not now" in log.read_text(encoding="utf-8")


def test_release_leaves_a_successors_lock_alone(tmp_path: Path) -> None:
    lock = tmp_path / "log.lock"
    fd = take_lock(lock, 1.0)
    lock.unlink()  # taken over while we were stalled, and a successor holds it now
    successor = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_RDWR)
    try:
        release_lock(lock, fd)
        assert lock.exists()
        assert os.stat(lock).st_ino == os.fstat(successor).st_ino
    finally:
        os.close(successor)


def test_without_flock_the_age_rule_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lockfile, "_flock", lambda fd, wait: None)
    lock = tmp_path / "log.lock"
    lock.write_text("")
    _age(lock, lockfile.STALE_LOCK_S - 10)
    with pytest.raises(LockBusy):
        take_lock(lock, 0.05)
    _age(lock, lockfile.STALE_LOCK_S + 10)
    release_lock(lock, take_lock(lock, 1.0))
    assert not lock.exists()


def test_a_lock_that_cannot_be_created_says_why(tmp_path: Path) -> None:
    with pytest.raises(LockBusy, match="could not take"):
        take_lock(tmp_path / "missing-folder" / "log.lock", 0.05)


# -- torn last lines ---------------------------------------------------------------------------
# kb never tears these files (every rewrite is a rename), but a crashed non-atomic writer or a
# copy cut short can. The documented contract: reading never fails, every row wholly before
# the tear reads back unchanged, the torn fragment reads as the fields it still has or as
# nothing, and the next record rewrites the file whole (every line complete again).


def _misses(path: Path, keys: tuple[str, ...]) -> None:
    for q in keys:
        assert misslog.record(path, q, (), DAY) is None


def _misroutes(path: Path, keys: tuple[str, ...]) -> None:
    for m in keys:
        assert routelogs.record_misroute(path, Filing(m, "ada", "bruno", "porquê"), DAY) is None


def _abstentions(path: Path, keys: tuple[str, ...]) -> None:
    for s in keys:
        assert routelogs.record_abstention(path, "uncovered", None, s, s, "razão", (), DAY) is None


def _rejections(path: Path, keys: tuple[str, ...]) -> None:
    for slug in keys:
        assert rejectlog.record(path, "ada", slug, "scope", "não cabe", DAY) is None


def _canonical(name: str, path: Path) -> str:
    """The file kb would write for the rows it reads: equal only when every line is whole."""
    from kb.pure.logs import misslog as pm
    from kb.pure.logs import routelogs as pr
    from kb.pure.promotion import rejections

    if name == "misses":
        return pm.render(misslog.load(path))
    if name == "misroutes":
        return pr.render_misroutes(routelogs.load_misroutes(path))
    if name == "abstentions":
        return pr.render_abstentions(routelogs.load_abstentions(path))
    return rejections.render(rejectlog.load(path))


LOGS: dict[str, tuple[Callable[[Path, tuple[str, ...]], None], Callable[[Path], list[Any]]]] = {
    "misses": (_misses, lambda p: list(misslog.load(p))),
    "misroutes": (_misroutes, lambda p: list(routelogs.load_misroutes(p))),
    "abstentions": (_abstentions, lambda p: list(routelogs.load_abstentions(p))),
    "rejections": (_rejections, lambda p: list(rejectlog.load(p))),
}
# Three rows; the last one written is also the last line of every log (the misses sort by
# question), and holds multi-byte characters so a tear can fall inside one.
KEYS = ("backup cadence", "feijão de molho", "último pedido, ação")


@pytest.mark.parametrize("name", sorted(LOGS))
def test_a_torn_last_line_never_fails_a_reader_and_the_next_write_repairs_it(
    tmp_path: Path, name: str
) -> None:
    write, load = LOGS[name]
    path = tmp_path / name
    write(path, KEYS)
    data = path.read_bytes()
    assert data.endswith(b"\n") and "ação".encode() in data.splitlines()[-1]
    start = data.rstrip(b"\n").rfind(b"\n") + 1  # where the last line begins
    (tmp_path / "intact").write_bytes(data[:start])
    intact = load(tmp_path / "intact")
    assert len(intact) == len(load(path)) - 1
    for cut in range(start + 1, len(data) - 1):  # inside the last line, even mid-character
        path.write_bytes(data[:cut])
        torn = load(path)
        assert all(row in torn for row in intact), (name, data[start:cut])
        assert len(torn) <= len(intact) + 1  # the fragment reads as one row, or as nothing
    for cut in (start + 1, (start + len(data)) // 2, len(data) - 2):
        path.write_bytes(data[:cut])
        write(path, ("a fresh one",))
        repaired = path.read_bytes().decode("utf-8")
        assert repaired.endswith("\n") and repaired == _canonical(name, path)
        rows = load(path)
        assert all(row in rows for row in intact) and len(rows) in (
            len(intact) + 1,
            len(intact) + 2,
        )
