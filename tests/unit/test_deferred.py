"""Shared logs never fail the caller and never lose a record (issue 14, item 9)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from kb.io.files import deferred
from kb.io.files.lockfile import lock_path, locked
from kb.io.logs import misslog, routelogs
from kb.io.promotion import rejectlog
from kb.pure.logs.routelogs import Filing

WRITERS = 64


def _refuse(args: tuple[str, int]) -> str | None:
    log, i = args
    return misslog.record(Path(log), f"question number {i}", [], "2026-12-01")


def test_sixty_four_concurrent_writers_lose_no_question(tmp_path: Path) -> None:
    log = tmp_path / "kb-misses.txt"
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(16) as pool:
        errors = pool.map(_refuse, [(str(log), i) for i in range(WRITERS)])
    assert errors == [None] * WRITERS
    asked = {m.question for m in misslog.load(log)}
    assert asked == {f"question number {i}" for i in range(WRITERS)}
    # One more ordinary write folds whatever was deferred into the file itself.
    assert misslog.record(log, "the last one", [], "2026-12-01") is None
    on_disk = log.read_text(encoding="utf-8")
    assert all(f"question number {i}" in on_disk for i in range(WRITERS))
    assert deferred.pending(log) == []


def test_a_held_lock_defers_and_the_next_writer_folds(tmp_path: Path) -> None:
    log = tmp_path / "kb-misses.txt"
    with locked(lock_path(log), 1.0):
        assert misslog.record(log, "asked while locked", ["word"], "2026-12-01") is None
        assert not log.exists()  # nothing written under another writer's lock
        assert [m.question for m in misslog.load(log)] == ["asked while locked"]  # but seen
        assert len(deferred.pending(log)) == 1
    assert misslog.record(log, "asked after", [], "2026-12-02") is None
    assert {m.question for m in misslog.load(log)} == {"asked while locked", "asked after"}
    assert deferred.pending(log) == []
    assert "asked while locked" in log.read_text(encoding="utf-8")


def test_every_log_defers_the_same_way(tmp_path: Path) -> None:
    misroutes = tmp_path / "kb-misroutes.txt"
    abstentions = tmp_path / "kb-abstentions.txt"
    rejections = tmp_path / "kb-rejections.txt"
    with (
        locked(lock_path(misroutes), 1.0),
        locked(lock_path(abstentions), 1.0),
        locked(lock_path(rejections), 1.0),
    ):
        filing = Filing("book me a flight", "ada", "clara", "trips are clara's")
        assert routelogs.record_misroute(misroutes, filing, "2026-12-01") is None
        assert (
            routelogs.record_abstention(
                abstentions,
                "uncovered",
                None,
                "weather",
                "will it rain",
                "no one",
                [],
                "2026-12-01",
            )
            is None
        )
        assert (
            rejectlog.record(rejections, "ada", "slug", "accuracy", "wrong", "2026-12-01") is None
        )
    assert [m.message for m in routelogs.load_misroutes(misroutes)] == ["book me a flight"]
    assert [a.message for a in routelogs.load_abstentions(abstentions)] == ["will it rain"]
    assert [r.slug for r in rejectlog.load(rejections)] == ["slug"]


def test_a_log_changed_by_another_writer_is_read_again(tmp_path: Path) -> None:
    """A process keeps the rows it last wrote (misslog._rows) and uses them only while the
    file holds exactly what it wrote: an edit by hand or another process's write between two
    refusals is read, not written over."""
    log = tmp_path / "kb-misses.txt"
    assert misslog.record(log, "first question", ["word"], "2026-12-01") is None
    assert misslog.record(log, "first question", [], "2026-12-02") is None  # kept rows
    assert [(m.question, m.count) for m in misslog.load(log)] == [("first question", 2)]
    text = log.read_text(encoding="utf-8")
    log.write_text(text.replace("2    ", "7    ", 1), encoding="utf-8")  # edited by hand
    assert misslog.record(log, "second question", [], "2026-12-03") is None
    assert {(m.question, m.count) for m in misslog.load(log)} == {
        ("first question", 7),
        ("second question", 1),
    }
    log.write_text("", encoding="utf-8")  # emptied: starts again from nothing
    assert misslog.record(log, "third question", [], "2026-12-04") is None
    assert [m.question for m in misslog.load(log)] == ["third question"]
