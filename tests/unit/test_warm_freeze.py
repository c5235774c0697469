"""A process that holds fleets warm for good reads with the cyclic collector paused and takes
what it read out of the collector after (kb.io.answering.collector); a library
caller's collector is left alone. Freezing is only safe because a warm Memory let go is
freed by reference counts alone: a cycle through it would never be collected once frozen."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.io.answering import collector
from kb.io.answering.collector import set_freeze_warm
from kb.io.answering.live import LiveMemory
from kb.io.answering.memory import Memory
from kb.io.notes.indexer import index_bases
from kb.shell.cli.inputs import ServeInput
from kb.shell.mcp import serveverb


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Path]:
    base = tmp_path / "fleet" / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "knowledge" / "floor.md").write_text("# Floor\n\nfloor plans of the hall\n")
    (base / "knowledge" / "roof.md").write_text("# Roof\n\nroof tiles and gutters\n")
    index_bases([str(tmp_path / "fleet")], True)
    yield tmp_path / "fleet"
    set_freeze_warm(False)
    gc.unfreeze()
    gc.enable()  # whatever a failing test left


def test_a_finished_warm_read_leaves_the_collector_when_asked(fleet: Path) -> None:
    set_freeze_warm(True)
    before = gc.get_freeze_count()
    with Memory.open(fleet) as m:
        assert m.warm() == 1
        held = m._stores[0].warm
        assert held is not None
        assert gc.get_freeze_count() > before
        assert not any(o is held for o in gc.get_objects())  # no collection scans it


def _collector_while_reading(m: Memory, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether the collector ran, each time a base's index was read into memory."""
    seen: list[bool] = []
    copy = m._stores[0].warm_copy
    read = copy.read

    def reading(pause: object = None) -> object:
        seen.append(gc.isenabled())
        return read(pause)  # type: ignore[arg-type]

    monkeypatch.setattr(copy, "read", reading)
    return seen


def test_the_collector_is_paused_while_reading_and_runs_again_after(
    fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_freeze_warm(True)
    assert gc.isenabled()
    with Memory.open(fleet) as m:
        seen = _collector_while_reading(m, monkeypatch)
        assert m.warm() == 1
        assert seen == [False]
        assert gc.isenabled()


def test_a_collector_the_host_turned_off_stays_off(
    fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_freeze_warm(True)
    gc.disable()
    try:
        with Memory.open(fleet) as m:
            assert m.warm() == 1
            assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_library_callers_collector_is_left_alone(
    fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = gc.get_freeze_count()
    with Memory.open(fleet) as m:
        seen = _collector_while_reading(m, monkeypatch)
        assert m.warm() == 1
        assert m.ask("floor plans").found
        assert seen == [True]
    assert gc.get_freeze_count() == before


def test_a_warm_memory_let_go_is_freed_without_the_collector(fleet: Path) -> None:
    set_freeze_warm(True)
    gc.disable()
    try:
        m = Memory.open(fleet)
        m.warm()
        assert m.ask("floor plans").found
        held = m._stores[0].warm
        assert held is not None
        copy = weakref.ref(held)
        m.close()
        del m, held
        assert copy() is None  # freed by its reference count: a frozen cycle would leak it
    finally:
        gc.enable()


def test_a_servers_reopen_after_a_change_runs_with_the_collector_paused(
    fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_freeze_warm(True)
    seen: list[bool] = []
    real_open = Memory.open_walked.__func__  # type: ignore[attr-defined]

    def opening(cls: type[Memory], /, *args: object, **kwargs: object) -> Memory:
        seen.append(gc.isenabled())
        return real_open(cls, *args, **kwargs)  # type: ignore[no-any-return]

    with Memory.open(fleet) as m:
        live = LiveMemory(m)
        monkeypatch.setattr(Memory, "open_walked", classmethod(opening))
        note = fleet / "ada" / "knowledge" / "floor.md"
        note.write_text(note.read_text() + "floor tiles too\n")
        live.refresh()
        assert (live.reopened, seen) == (1, [False])
        assert gc.isenabled()
        live.close()


def test_a_walk_that_finds_no_change_freezes_nothing(fleet: Path) -> None:
    set_freeze_warm(True)
    with Memory.open(fleet) as m:
        live = LiveMemory(m)
        gc.unfreeze()
        live.refresh()  # nothing changed: the walk built only garbage
        assert (live.reopened, gc.get_freeze_count()) == (0, 0)
        note = fleet / "ada" / "knowledge" / "roof.md"
        note.write_text(note.read_text() + "roof slates\n")
        live.refresh()  # a fresh open is held from now on
        assert live.reopened == 1
        assert gc.get_freeze_count() > 0
        live.close()


def test_kb_serve_freezes_while_it_serves_and_stops_after(
    fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []

    def server(paths: list[str], top: int, include_private: bool) -> int:
        seen.append(collector._on)
        return 0

    monkeypatch.setattr("kb.shell.mcp.mcp_server.serve", server)
    outcome = serveverb.serve(ServeInput(paths=(str(fleet),)))
    assert (outcome.code, seen) == (0, [True])
    assert collector._on is False
