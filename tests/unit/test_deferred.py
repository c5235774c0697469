"""Shared logs never fail the caller and never lose a record (issue 14, item 9), and a resident
kb's writes after its reply (decision 0056) leave what writing at once leaves."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.io.files import atomic, deferred
from kb.io.files.lockfile import lock_path, locked
from kb.io.logs import misslog, routelogs
from kb.io.promotion import rejectlog
from kb.io.sessions import bootstate
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


@pytest.fixture
def folding_after_reply() -> Iterator[None]:
    deferred.fold_after_reply(True)
    try:
        yield
    finally:
        deferred.fold_after_reply(False)


def test_a_resident_kb_defers_each_record_and_folds_after_its_reply(
    tmp_path: Path, folding_after_reply: None
) -> None:
    """kb.shell.daemon: a refusal's reply waits for no lock, rewrite or fsync. Until the fold
    the file is untouched while every reader already sees the record; the fold writes the
    records in the order they were asked and leaves nothing pending."""
    log = tmp_path / "kb-misses.txt"
    assert misslog.record(log, "first question", ["word"], "2026-12-01") is None
    assert misslog.record(log, "second question", [], "2026-12-02") is None
    assert not log.exists()
    assert len(deferred.pending(log)) == 2
    assert {m.question for m in misslog.load(log)} == {"first question", "second question"}
    assert deferred.fold_now() == 1
    assert deferred.pending(log) == []
    on_disk = misslog.load(log)
    assert {m.question for m in on_disk} == {"first question", "second question"}
    assert "first question" in log.read_text(encoding="utf-8")
    assert deferred.fold_now() == 0  # nothing waits any more


def test_the_fold_after_a_reply_gives_the_log_an_ordinary_write_gives(
    tmp_path: Path,
) -> None:
    asked = [("roll back a deploy", ["deploy"]), ("rotate keys", []), ("roll back a deploy", [])]
    inline, later = tmp_path / "inline" / "kb-misses.txt", tmp_path / "later" / "kb-misses.txt"
    for log in (inline, later):
        log.parent.mkdir()
    for question, looked in asked:
        assert misslog.record(inline, question, looked, "2026-12-01") is None
    deferred.fold_after_reply(True)
    try:
        for question, looked in asked:
            assert misslog.record(later, question, looked, "2026-12-01") is None
        assert deferred.fold_now() == 1
    finally:
        deferred.fold_after_reply(False)
    assert later.read_text(encoding="utf-8") == inline.read_text(encoding="utf-8")


def test_a_log_that_cannot_be_written_is_reported_as_without_a_resident_kb(
    tmp_path: Path, folding_after_reply: None
) -> None:
    """Deferring stands for writing only where the write could succeed: with a folder in the
    log's place the reply says why at once, as a one-shot kb's does."""
    log = tmp_path / "kb-misses.txt"
    log.mkdir()
    error = misslog.record(log, "asked anyway", [], "2026-12-01")
    assert error is not None and str(log) in error
    deferred.fold_after_reply(False)
    assert misslog.record(log, "asked anyway", [], "2026-12-01") == error


def test_a_fold_that_finds_the_lock_busy_leaves_the_records_for_the_next_writer(
    tmp_path: Path, folding_after_reply: None
) -> None:
    log = tmp_path / "kb-misses.txt"
    assert misslog.record(log, "asked while busy", [], "2026-12-01") is None
    with locked(lock_path(log), 1.0):
        assert deferred.fold_now() == 0  # at once: a resident kb's next caller never waits
    assert not log.exists() and len(deferred.pending(log)) == 1
    assert deferred.fold_now() == 1  # tried again at the next call
    assert [m.question for m in misslog.load(log)] == ["asked while busy"]
    assert deferred.pending(log) == []


def test_a_writer_in_line_folds_what_a_resident_kb_left_pending(
    tmp_path: Path, folding_after_reply: None
) -> None:
    log = tmp_path / "kb-misses.txt"
    assert misslog.record(log, "asked of the daemon", [], "2026-12-01") is None
    deferred.fold_after_reply(False)  # a one-shot kb writes before the daemon folds
    assert misslog.record(log, "asked alone", [], "2026-12-02") is None
    assert {m.question for m in misslog.load(log)} == {"asked of the daemon", "asked alone"}
    assert deferred.pending(log) == []


class _Stale(Exception):
    pass


def test_writes_kept_for_after_the_reply_run_in_order_and_a_failed_one_is_skipped(
    tmp_path: Path,
) -> None:
    done: list[str] = []

    def failing() -> None:
        raise OSError("disk full")

    assert not atomic.later(lambda: done.append("outside"))  # no resident kb: write now
    atomic.writes_after_reply(True)
    try:
        assert atomic.later(lambda: done.append("first"))
        assert atomic.later(failing)
        assert atomic.later(lambda: done.append("third"))
        assert done == []
        assert atomic.write_now() == 3
        assert done == ["first", "third"]
        assert atomic.write_now() == 0

        def stale() -> None:
            raise _Stale

        atomic.check_writes(stale)
        try:
            with pytest.raises(_Stale):
                atomic.later(lambda: done.append("stale"))
        finally:
            atomic.check_writes(None)
        assert atomic.write_now() == 0 and "stale" not in done
    finally:
        atomic.writes_after_reply(False)


def test_a_session_written_after_the_reply_reads_as_one_written_at_once(tmp_path: Path) -> None:
    at_once, after = tmp_path / "at-once", tmp_path / "after"
    for root in (at_once, after):
        root.mkdir()
    bootstate.remember_agent(str(at_once), "s1", "clara")
    bootstate.append_event(str(at_once), "s1", "routed clara")
    atomic.writes_after_reply(True)
    try:
        bootstate.remember_agent(str(after), "s1", "clara")
        bootstate.append_event(str(after), "s1", "routed clara")
        assert bootstate.last_agent(str(after), "s1") is None  # nothing on disk yet
        assert atomic.write_now() == 2
    finally:
        atomic.writes_after_reply(False)
    for name in ("s1", "s1.events"):
        written = (after / ".kb" / "sessions" / name).read_bytes()
        assert written == (at_once / ".kb" / "sessions" / name).read_bytes()
    assert bootstate.last_agent(str(after), "s1") == "clara"


def test_writes_kept_by_a_verb_that_failed_can_be_dropped(tmp_path: Path) -> None:
    """The daemon drops them when a verb fails and its caller answers in-process, which
    makes the same writes itself."""
    done: list[str] = []
    assert atomic.drop_kept() == 0
    atomic.writes_after_reply(True)
    try:
        assert atomic.later(lambda: done.append("kept"))
        assert atomic.drop_kept() == 1
        assert atomic.write_now() == 0 and done == []
    finally:
        atomic.writes_after_reply(False)
