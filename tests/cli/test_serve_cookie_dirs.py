"""A watched `kb serve` leaves no temp folder behind: SIGTERM ends it as a closed stdin does,
and a server killed outright has its folder removed by the next one (kb.io.answering.cookiedirs).
Real subprocesses, each with a temp folder of its own (TMPDIR)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kb.io.answering.cookiedirs import PREFIX, owner_pid, reap_orphans

# Past Linux's largest process id (4,194,304): no process holds it.
DEAD_PID = 999_999_999


def _serve(fleet: Path, tmp: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "kb.shell.cli.main", "serve", str(fleet)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={
            "TMPDIR": str(tmp),
            "KB_MISSES_PATH": str(fleet / "misses.txt"),
            "PATH": "/usr/bin:/bin",
        },
    )


def _own_dirs(tmp: Path, pid: int) -> list[Path]:
    return [p for p in tmp.iterdir() if owner_pid(p.name) == pid]


def _wait_for_cookie_dir(tmp: Path, proc: subprocess.Popen[bytes]) -> Path:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = _own_dirs(tmp, proc.pid)
        if found:
            return found[0]
        assert proc.poll() is None, "kb serve ended before its watcher started"
        time.sleep(0.05)
    raise AssertionError("kb serve made no cookie folder in 30 s")


def test_sigterm_removes_the_cookie_folder_and_exits_0(example_fleet: Path, tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = _serve(example_fleet, tmp)
    try:
        folder = _wait_for_cookie_dir(tmp, proc)
        assert folder.stat().st_mode & 0o777 == 0o700
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
    assert not folder.exists()
    assert _own_dirs(tmp, proc.pid) == []


def test_a_killed_servers_folder_is_removed_by_the_next(
    example_fleet: Path, tmp_path: Path
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    first = _serve(example_fleet, tmp)
    try:
        left = _wait_for_cookie_dir(tmp, first)
    finally:
        first.kill()  # SIGKILL: nothing of the server runs
        first.wait()
    assert left.exists()
    live = tmp / f"{PREFIX}{os.getpid()}-x"  # this test's own process: alive
    live.mkdir()
    old_style = tmp / f"{PREFIX}abc123"  # a name without an owner: never touched
    old_style.mkdir()
    second = _serve(example_fleet, tmp)
    try:
        _wait_for_cookie_dir(tmp, second)
        assert not left.exists()
        assert live.is_dir() and old_style.is_dir()
        assert second.stdin is not None
        second.stdin.close()  # a closed stdin ends it too, folder removed
        assert second.wait(timeout=30) == 0
    finally:
        second.kill()
        second.wait()
    assert _own_dirs(tmp, second.pid) == []


@pytest.mark.parametrize(
    ("name", "pid"),
    [
        (f"{PREFIX}123-abc", 123),
        (f"{PREFIX}123-", None),
        (f"{PREFIX}123", None),
        (f"{PREFIX}abc-def", None),
        (f"{PREFIX}-5-x", None),
        ("kb-other-123-abc", None),
        (f"x{PREFIX}123-abc", None),
    ],
)
def test_owner_pid_reads_only_the_names_kb_makes(name: str, pid: int | None) -> None:
    assert owner_pid(name) == pid


def test_reap_removes_only_dead_owners_folders(tmp_path: Path) -> None:
    dead = tmp_path / f"{PREFIX}{DEAD_PID}-a"
    (dead / "sync").mkdir(parents=True)
    mine = tmp_path / f"{PREFIX}{os.getpid()}-b"
    mine.mkdir()
    parent = tmp_path / f"{PREFIX}{os.getppid()}-c"
    parent.mkdir()
    a_file = tmp_path / f"{PREFIX}{DEAD_PID}-file"
    a_file.write_text("not a folder")
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / f"{PREFIX}{DEAD_PID}-link"
    link.symlink_to(target, target_is_directory=True)

    assert reap_orphans(str(tmp_path)) == [dead.name]
    assert not dead.exists()
    assert mine.is_dir() and parent.is_dir() and a_file.is_file()
    assert link.is_symlink() and target.is_dir()


def test_reap_of_a_missing_folder_removes_nothing(tmp_path: Path) -> None:
    assert reap_orphans(str(tmp_path / "absent")) == []


@pytest.mark.parametrize("delay", [0.0, 0.2, 0.4, 0.6, 0.8])
def test_a_sigterm_at_any_moment_of_the_start_leaves_no_folder(
    example_fleet: Path, tmp_path: Path, delay: float
) -> None:
    """Before the handler exists the signal ends Python before any folder is made; from
    then on it ends the server through its clean-up, however far the start has come."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = _serve(example_fleet, tmp)
    try:
        time.sleep(delay)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) in (0, -signal.SIGTERM)
    finally:
        proc.kill()
        proc.wait()
    assert _own_dirs(tmp, proc.pid) == []
