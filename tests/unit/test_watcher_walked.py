"""The resident kb's watcher counts only changes a walk of the fleet could see
(kb.pure.notes.walked): a refusal's miss log, a session record or SQLite's shared-memory
file beside an index is no change, so the next question does not pay a stat pass of the
whole fleet for it (119 ms at 10,000 notes); a note, an agent.txt or an index is one."""

from __future__ import annotations

import functools
import shutil
import sys
import time
from collections.abc import Callable
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
    watcher = Watcher([str(fleet)], fleet / ".kb" / "cookie")
    watcher.start()
    assert watcher.mode == "watcher", watcher.why
    return fleet, watcher


def _counted(watcher: Watcher, change: Callable[[], object]) -> int:
    """How many changes the watcher counted for `change`, read once the cookie sent after
    it came back (the count is taken before the change: watchdog may report it at once)."""
    before = watcher.generation
    change()
    assert watcher.send() and watcher.wait(), watcher.why
    return watcher.generation - before


def test_what_no_walk_reads_is_no_change(watched: tuple[Path, Watcher]) -> None:
    fleet, watcher = watched
    try:

        def kb_writes_beside_the_notes() -> None:
            (fleet / "kb-misses.txt").write_text("a refused question\n", encoding="utf-8")
            (fleet / "kb-misses.txt.lock").write_text("", encoding="utf-8")
            (fleet / "kb-misses.txt.lock").unlink()
            sessions = fleet / ".kb" / "sessions"
            sessions.mkdir(parents=True)
            (sessions / "s1.jsonl").write_text("{}\n", encoding="utf-8")
            (fleet / "fleet" / "ada" / ".kb" / "index.db-shm").write_bytes(b"\0" * 64)

        assert _counted(watcher, lambda: None) == 0
        assert _counted(watcher, kb_writes_beside_the_notes) == 0
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
            assert _counted(watcher, path.mkdir) >= 1
        else:
            assert _counted(watcher, lambda: path.write_text("# Tides\n\nk8s = tides\n")) >= 1
    finally:
        watcher.stop()


def test_a_cookie_in_the_watched_tree_comes_back_after_every_change_before_it(
    watched: tuple[Path, Watcher],
) -> None:
    """The daemon's promise: `wait` returns only once every change made before `send` has
    been counted. One watch reports the cookie and the changes, in the kernel's order; a
    cookie watched apart came back first under load (a clean-clone CI run)."""
    fleet, watcher = watched
    try:
        assert watcher.cookie_in_order
        knowledge = fleet / "fleet" / "ada" / "knowledge"
        for i in range(200):
            note = knowledge / f"n{i}.md"
            assert _counted(watcher, functools.partial(note.write_text, f"# N{i}\n")) >= 1, i
    finally:
        watcher.stop()


def test_a_cookie_watched_apart_is_not_in_order(tmp_path: Path) -> None:
    assert not Watcher([str(tmp_path / "fleet")], tmp_path / "cookie").cookie_in_order
    assert Watcher([str(tmp_path / "fleet")], tmp_path / "fleet" / ".kb" / "c").cookie_in_order


def _index(fleet: Path) -> Path:
    """A base's index in WAL mode with one row committed, every connection to it closed."""
    import sqlite3

    path = fleet / "fleet" / "ada" / ".kb" / "index.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    return path


def test_a_reader_closing_an_index_is_no_change(watched: tuple[Path, Watcher]) -> None:
    """SQLite opens the index files for writing in every reader: the close of a connection
    that only read (a warm copy's snapshot, another kb process) is reported by the kernel
    as a close after writing, and counting it made `kb serve` walk the whole fleet after
    its own reads."""
    import sqlite3

    fleet, watcher = watched
    try:
        path = _index(fleet)

        def read_and_close() -> None:
            for _ in range(3):
                conn = sqlite3.connect(path)
                conn.execute("SELECT count(*) FROM t").fetchone()
                conn.close()

        keep = sqlite3.connect(path)  # holds the WAL open, as a serving kb does
        keep.execute("SELECT count(*) FROM t").fetchone()
        try:
            _counted(watcher, lambda: None)  # the index's making, reported by now
            assert _counted(watcher, read_and_close) == 0
        finally:
            keep.close()
    finally:
        watcher.stop()


def test_a_commit_to_an_index_is_a_change(watched: tuple[Path, Watcher]) -> None:
    import sqlite3

    fleet, watcher = watched
    try:
        path = _index(fleet)
        keep = sqlite3.connect(path)
        keep.execute("SELECT count(*) FROM t").fetchone()
        try:

            def commit() -> None:
                conn = sqlite3.connect(path)
                conn.execute("INSERT INTO t VALUES (1)")
                conn.commit()
                conn.close()

            assert _counted(watcher, commit) >= 1
        finally:
            keep.close()
    finally:
        watcher.stop()


def test_a_cookie_is_not_held_back_by_a_rename(watched: tuple[Path, Watcher]) -> None:
    """Every write kb makes is a rename (kb.io.files.atomic), a refusal's miss log at the
    fleet's root among them, made while the request's cookie travels. watchdog holds a
    rename's first half to pair it with its second, and its reader slept out that whole
    hold (0.5 s) whenever the first half reached it alone: the cookie behind it came back
    0.5 s late, and at SYNC_TIMEOUT_S the watcher was given up for the stat pass for good
    (112 of 300 refusals then took over 100 ms at 10,000 notes, against none)."""
    from kb.io.logs import misslog

    fleet, watcher = watched
    waits: list[float] = []
    # Threads switched often, as in a daemon whose request runs beside a warming thread
    # (kb.io.answering.foreground): the reader then often wakes between the two halves.
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        for i in range(100):  # as the daemon answers a refusal: cookie, miss log, wait
            started = time.monotonic()
            assert watcher.send()
            misslog.record(fleet / "kb-misses.txt", f"zorbly quax {i}", (), "2026-12-04")
            assert watcher.wait(), (i, watcher.why)
            waits.append(time.monotonic() - started)
    finally:
        sys.setswitchinterval(switch)
        watcher.stop()
    assert max(waits) < 0.4, sorted(waits)[-5:]  # held back: 0.5 s, or given up
