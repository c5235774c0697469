"""A session's first `kb boot` lists the sessions folder for the newest handoff record when
`latest-handoff.txt` names none (spec: workflow verbs, section 14). The folder holds two files
for every session the fleet has seen, so a resident kb keeps the listing until its watcher
reports a change that could alter it (kb.io.sessions.bootstate.watch_handoffs)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kb.io.answering.watcher import Watcher
from kb.io.sessions import bootstate

RECORD = "---\nsession: {session}\nagent: ada\nstatus: pending\nupdated_at: 2026-12-01\n---\n\n"
RECORD += "# Task\n{task}\n\n"


def _write(folder: Path, session: str, task: str, mtime_ns: int) -> None:
    path = folder / f"{session}.handoff.md"
    path.write_text(RECORD.format(session=session, task=task), encoding="utf-8")
    os.utime(path, ns=(mtime_ns, mtime_ns))


@pytest.fixture
def counted() -> Iterator[list[int | None]]:
    """A stand-in for the daemon: the count it vouches for (None: it cannot)."""
    count: list[int | None] = [0]
    bootstate.watch_handoffs(lambda folder: count[0])
    try:
        yield count
    finally:
        bootstate.watch_handoffs(None)


def _task(root: Path) -> str | None:
    record = bootstate.latest_handoff(str(root))
    return None if record is None else record.task


def test_the_listing_is_kept_while_the_count_stands(
    tmp_path: Path, counted: list[int | None]
) -> None:
    folder = bootstate.sessions_dir(str(tmp_path))
    folder.mkdir(parents=True)
    for i in range(3):
        (folder / f"session-{i}").write_text("ada", encoding="utf-8")  # sessions, no record
    _write(folder, "old", "the old task", 1_000_000_000)
    assert _task(tmp_path) == "the old task"
    _write(folder, "new", "the new task", 2_000_000_000)
    assert _task(tmp_path) == "the old task"  # the count stood: the listing was kept
    counted[0] = 1
    assert _task(tmp_path) == "the new task"
    (folder / "new.handoff.md").unlink()
    counted[0] = None  # nothing vouched for: listed every time
    assert _task(tmp_path) == "the old task"


def test_without_a_resident_kb_every_boot_lists(tmp_path: Path) -> None:
    folder = bootstate.sessions_dir(str(tmp_path))
    folder.mkdir(parents=True)
    assert _task(tmp_path) is None
    _write(folder, "s1", "a task", 1_000_000_000)
    assert _task(tmp_path) == "a task"


def _counts(root: Path, change: Callable[[Path], object]) -> tuple[int, int]:
    """How much a real watcher over `root` moves its handoff count and its fleet
    generation for `change`."""
    watcher = Watcher([str(root)], root / ".kb" / "cookie")
    watcher.start()
    assert watcher.mode == "watcher", watcher.why
    try:
        handoffs, generation = watcher.handoffs, watcher.generation
        change(root)
        assert watcher.send() and watcher.wait(), watcher.why
        return watcher.handoffs - handoffs, watcher.generation - generation
    finally:
        watcher.stop()


def test_a_watcher_counts_what_can_change_the_listing_and_nothing_else(tmp_path: Path) -> None:
    folder = bootstate.sessions_dir(str(tmp_path))
    folder.mkdir(parents=True)
    (tmp_path / "fleet").mkdir()
    record = RECORD.format(session="s1", task="t")
    moved, walked = _counts(tmp_path, lambda r: (folder / "s1.handoff.md").write_text(record))
    assert moved > 0 and walked == 0  # a record is no note: the fleet is not walked again
    moved, _ = _counts(tmp_path, lambda r: (folder / "s2").write_text("ada"))
    assert moved == 0  # a session's agent file, beside it: the listing of records stands
    moved, _ = _counts(tmp_path, lambda r: (folder / "s2.events").write_text("routed\n"))
    assert moved == 0
    moved, _ = _counts(tmp_path, lambda r: (folder / "s1.handoff.md").unlink())
    assert moved > 0
    moved, _ = _counts(tmp_path, lambda r: (r / ".kb" / "elsewhere").mkdir())
    assert moved > 0  # a folder made or moved may carry records with it


def test_lost_events_make_the_listing_unsure(tmp_path: Path) -> None:
    watcher = Watcher([str(tmp_path)], tmp_path / ".kb" / "cookie")
    before = watcher.handoffs
    watcher._events_lost(counted=True)
    assert watcher.handoffs == before + 1
