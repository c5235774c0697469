"""The resident kb's watcher counts only changes a walk of the fleet could see
(kb.pure.notes.walked): a refusal's miss log, a session record or SQLite's shared-memory
file beside an index is no change, so the next question does not pay a stat pass of the
whole fleet for it (119 ms at 10,000 notes); a note, an agent.txt or an index is one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kb.io.answering.watcher import Watcher

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def watched(tmp_path: Path) -> tuple[Path, Watcher]:
    pytest.importorskip("watchdog")
    fleet = tmp_path / "harbor"
    shutil.copytree(REPO / "examples" / "fleet", fleet)
    (fleet / "fleet" / "ada" / ".kb").mkdir()
    watcher = Watcher([str(fleet)], tmp_path / "cookie")
    watcher.start()
    assert watcher.mode == "watcher", watcher.why
    return fleet, watcher


def _counted(watcher: Watcher) -> int:
    before = watcher.generation
    assert watcher.send() and watcher.wait(), watcher.why
    return watcher.generation - before


def test_what_no_walk_reads_is_no_change(watched: tuple[Path, Watcher]) -> None:
    fleet, watcher = watched
    try:
        assert _counted(watcher) == 0
        (fleet / "kb-misses.txt").write_text("a refused question\n", encoding="utf-8")
        (fleet / "kb-misses.txt.lock").write_text("", encoding="utf-8")
        (fleet / "kb-misses.txt.lock").unlink()
        sessions = fleet / ".kb" / "sessions"
        sessions.mkdir(parents=True)
        (sessions / "s1.jsonl").write_text("{}\n", encoding="utf-8")
        (fleet / "fleet" / "ada" / ".kb" / "index.db-shm").write_bytes(b"\0" * 64)
        assert _counted(watcher) == 0
    finally:
        watcher.stop()


@pytest.mark.parametrize(
    "made",
    [
        "fleet/ada/knowledge/tides.md",
        "fleet/ada/agent.txt",
        "fleet/ada/kb-aliases.txt",
        "fleet/ada/.kb/index.db-wal",
        "fleet/ada/new-folder/",
    ],
)
def test_what_a_walk_reads_is_a_change(watched: tuple[Path, Watcher], made: str) -> None:
    fleet, watcher = watched
    try:
        path = fleet / made
        if made.endswith("/"):
            path.mkdir()
        else:
            path.write_text("# Tides\n\nk8s = tides\n", encoding="utf-8")
        assert _counted(watcher) >= 1
    finally:
        watcher.stop()
