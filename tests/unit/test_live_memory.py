"""kb.io.answering.live: a served Memory is opened again when the fleet on disk changed, at most as
often as the re-validation's own cost allows, and a failed re-open keeps the last good one."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from kb.io.answering.live import RECHECK_FACTOR, LiveMemory
from kb.io.answering.memory import Memory, OpenError
from tests.conftest import EXAMPLE_FLEET, _copy


class Clock:
    """A clock that moves `step` seconds each time it is read."""

    def __init__(self, step: float = 0.0) -> None:
        self.now = 100.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _note(fleet: Path, name: str) -> None:
    path = fleet / "fleet" / "ada" / "knowledge" / f"{name}.md"
    path.write_text(f"# Added\n\n**Search for:** `{name} ledger`\n\nA note added later.\n")


def _rels(memory: Memory) -> set[str]:
    return {e.rel for e in memory.entries}


def test_reopens_only_when_the_disk_changed(tmp_path: Path) -> None:
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    clock = Clock()
    live = LiveMemory(Memory.open([str(fleet)]), clock=clock)
    try:
        first = live.current()
        assert live.reopened == 0 and live.current() is first
        _note(fleet, "wombat")
        fresh = live.current()
        assert live.reopened == 1 and fresh is not first
        assert "knowledge/wombat.md" in _rels(fresh)
        assert live.current() is fresh and live.reopened == 1  # unchanged since: no re-open
    finally:
        live.close()


def test_checks_wait_for_their_own_cost(tmp_path: Path) -> None:
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    clock = Clock(step=1.0)  # every check "costs" one second of this clock
    live = LiveMemory(Memory.open([str(fleet)]), clock=clock)
    try:
        live.current()  # a check at 101 that took 1 s: the next is due RECHECK_FACTOR s later
        _note(fleet, "wombat")
        live.current()
        assert live.reopened == 0
        clock.now += RECHECK_FACTOR
        assert "knowledge/wombat.md" in _rels(live.current()) and live.reopened == 1
    finally:
        live.close()


def test_a_failed_reopen_keeps_the_last_good_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    live = LiveMemory(Memory.open([str(fleet)]), clock=Clock())
    try:
        kept = live.current()
        _note(fleet, "wombat")

        def broken(*_a: object, **_k: object) -> Memory:
            raise OpenError("a base is half-way through a checkout")

        monkeypatch.setattr(Memory, "open_walked", broken)  # what kb.io.answering.live opens with
        assert live.current() is kept and live.reopened == 0
        monkeypatch.undo()
        assert "knowledge/wombat.md" in _rels(live.current()) and live.reopened == 1
    finally:
        live.close()


def _reopened_with(live: LiveMemory, rel: str) -> Memory:
    """Ask until the change is in (a watcher reports it in a millisecond, the walking
    thread within its pause); the Memory that has it."""
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        fresh = live.current()
        if rel in _rels(fresh):
            return fresh
        time.sleep(0.02)
    raise AssertionError(f"{rel} never came into the served fleet")


def test_a_watched_memory_uses_the_file_watcher_and_walks_nothing(tmp_path: Path) -> None:
    """With `watch` and watchdog: no walking thread (an idle server does no work), and the
    first call after a change the watcher reported re-opens the fleet."""
    pytest.importorskip("watchdog")
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    live = LiveMemory(Memory.open([str(fleet)]), watch=True)
    try:
        assert live._events is not None and live._watcher is None
        first = live.current()
        assert live.current() is first and live.reopened == 0
        (fleet / "kb-misses.txt").write_text("a refusal's record\n")  # no walk reads it
        _note(fleet, "wombat")
        assert "knowledge/wombat.md" in _rels(_reopened_with(live, "knowledge/wombat.md"))
        assert live.reopened == 1
        cookie_dir = live._cookie_dir
        assert cookie_dir is not None and Path(cookie_dir).is_dir()
    finally:
        live.close()
    assert not Path(cookie_dir).exists()


def test_without_a_trusted_watcher_the_walk_runs_on_its_own_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No watcher to trust (here by KB_DAEMON_WATCH=stat): the walk runs on its own thread,
    a call before any change returns the open Memory as it is, and the first call after the
    walk saw a change re-opens."""
    monkeypatch.setenv("KB_DAEMON_WATCH", "stat")
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    live = LiveMemory(Memory.open([str(fleet)]), watch=True)
    try:
        assert live._events is None and live._watcher is not None
        first = live.current()
        assert live.current() is first and live.reopened == 0
        _note(fleet, "wombat")
        _reopened_with(live, "knowledge/wombat.md")
        assert live.reopened == 1
    finally:
        live.close()
    assert live._watcher is not None and not live._watcher.is_alive()


def test_a_watcher_that_stops_hands_over_to_the_walk(tmp_path: Path) -> None:
    pytest.importorskip("watchdog")
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    live = LiveMemory(Memory.open([str(fleet)]), watch=True)
    try:
        events = live._events
        assert events is not None
        events.stop()  # as when its thread dies
        _note(fleet, "wombat")
        _reopened_with(live, "knowledge/wombat.md")
        assert live._events is None and live._watcher is not None
    finally:
        live.close()


def test_a_base_linked_in_from_elsewhere_hands_over_to_the_walk(tmp_path: Path) -> None:
    """A re-open that brings a base the watcher cannot see (a link to a folder outside the
    paths watched): from then on the walk watches, and a change there is seen."""
    pytest.importorskip("watchdog")
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    elsewhere = tmp_path / "elsewhere" / "zeno"
    shutil.copytree(fleet / "fleet" / "clara", elsewhere)
    live = LiveMemory(Memory.open([str(fleet)]), watch=True)
    try:
        assert live._events is not None
        (fleet / "fleet" / "zeno").symlink_to(elsewhere, target_is_directory=True)
        deadline = time.monotonic() + 30
        while live._events is not None and time.monotonic() < deadline:
            live.current()
            time.sleep(0.02)
        assert live._events is None and live._watcher is not None
        note = elsewhere / "knowledge" / "wombat.md"
        note.write_text("# Added\n\n**Search for:** `wombat ledger`\n\nA note added later.\n")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if any(
                e.rel == "knowledge/wombat.md" and e.base == "zeno" for e in live.current().entries
            ):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the linked base's new note never came in")
    finally:
        live.close()


def test_a_reopen_walks_each_base_once(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The walk that finds a change is the one the fleet is opened from: a second walk was
    half of a re-open's time at 100,000 notes."""
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    live = LiveMemory(Memory.open([str(fleet)]), clock=Clock())
    try:
        bases = len(live.current().bases)
        walked = request.getfixturevalue("walks")  # from here on
        live.refresh()  # nothing changed: one walk, no open
        assert (len(walked), live.reopened) == (bases, 0)
        _note(fleet, "wombat")
        live.refresh()
        assert (len(walked), live.reopened) == (2 * bases, 1)
        assert "knowledge/wombat.md" in _rels(live.current())
    finally:
        live.close()


def _routed(memory: Memory, question: str) -> list[str]:
    return [f"{h.entry.base}/{h.entry.rel}" for h in memory.route(question)]


def test_a_folder_kb_may_not_index_keeps_its_keys_across_a_reopen(tmp_path: Path) -> None:
    """A folder with no agent.txt has its index in memory, empty at every open: a re-open
    after a change elsewhere must fill it again, not take over the pass the old one kept.
    A resident kb refused here what a one-shot kb answered (found by the daemon property)."""
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    loose = fleet / "fleet" / "scratch"
    loose.mkdir()
    (loose / "wombat.md").write_text(
        "# Wombat\n\n**Search for:** `wombat ledger`\n\nA loose note.\n"
    )
    live = LiveMemory(Memory.open([str(fleet)]), clock=Clock())
    try:
        assert _routed(live.current(), "wombat ledger") == ["scratch/wombat.md"]
        _note(fleet, "quokka")  # a change in another base only
        live.refresh([str((fleet / "fleet" / "ada" / "knowledge" / "quokka.md").resolve())])
        assert live.reopened == 1
        assert _routed(live.current(), "wombat ledger") == ["scratch/wombat.md"]
    finally:
        live.close()


def test_an_index_deleted_under_a_held_fleet_is_filled_again(tmp_path: Path) -> None:
    """A base's `.kb/` removed while the fleet is held: the walk sees no change (the folder
    is one it skips), so its pass is offered to the new, empty index, which does not keep
    it: the rows are saved again and the base's keys still answer."""
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    live = LiveMemory(Memory.open([str(fleet)]), clock=Clock())
    try:
        before = _routed(live.current(), "pg_dump retention")
        assert before and before[0].startswith("ada/")
        index = fleet / "fleet" / "ada" / ".kb"
        shutil.rmtree(index)
        live.refresh([str((index / "index.db").resolve())])
        assert live.reopened == 1
        assert _routed(live.current(), "pg_dump retention") == before
    finally:
        live.close()
