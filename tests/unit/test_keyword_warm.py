"""A warm Memory builds its keyword index while questions go on (kb.io.answering.keywordwarm):
after every change on disk a resident kb builds it again, and at 100,000 notes its next
question waited 12-13 s for the build, which held the Memory's lock throughout."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from kb.io.answering import keywordwarm
from kb.io.answering.memory import Memory
from kb.pure.answering.entries import Prepared

QUESTIONS = ("backup restore", "arroz feijao", "zorbly quaxing")


def _held_build(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """The keyword index build, held until the second event is set; the first says it began."""
    building, release = threading.Event(), threading.Event()
    real = keywordwarm.built

    def slow(prepared: Sequence[Prepared], stopped: Callable[[], bool]) -> object:
        building.set()
        assert release.wait(30)
        return real(prepared, stopped)

    monkeypatch.setattr(keywordwarm, "built", slow)
    return building, release


def test_a_question_is_answered_while_the_keyword_index_is_built(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory.open([str(example_fleet / "fleet")]) as cold:
        expected = [cold.ask(q) for q in QUESTIONS]
    building, release = _held_build(monkeypatch)
    with Memory.open([str(example_fleet / "fleet")]) as memory:
        memory.warm(wait=False)
        try:
            assert building.wait(30)
            answered: list[object] = []
            asking = threading.Thread(target=lambda: answered.extend(map(memory.ask, QUESTIONS)))
            asking.start()
            asking.join(10)
            # answered from SQLite while the build waits, as a cold open answers
            assert not asking.is_alive() and answered == expected
            assert not memory.is_warm
        finally:
            release.set()
        worker = memory._warm_worker
        if worker is not None:
            worker.join(30)
        assert memory.is_warm
        assert [memory.ask(q) for q in QUESTIONS] == expected


def test_a_memory_let_go_during_the_build_installs_nothing(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = Memory.open([str(example_fleet / "fleet")])
    real = keywordwarm.built

    def let_go_meanwhile(prepared: Sequence[Prepared], stopped: Callable[[], bool]) -> object:
        memory.release()
        return real(prepared, lambda: False)  # built whole: the install must still refuse it

    monkeypatch.setattr(keywordwarm, "built", let_go_meanwhile)
    memory.warm(wait=True)
    assert "keywords" not in memory.__dict__ and not memory.is_warm


def test_a_fleet_reopened_mid_read_waits_at_least_as_long_as_that_read_had_run(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change during a warm read lets that read go (it stops, and installs nothing), and
    the re-opened fleet waits at least as long as the read had run before reading again:
    with 0 s it read at once after every change of a burst."""
    import os
    import time

    from kb.io.answering.live import LiveMemory

    building, release = _held_build(monkeypatch)
    root = example_fleet / "fleet"
    memory = Memory.open([str(root)])
    memory.warm(wait=False)
    live = LiveMemory(memory)
    try:
        assert building.wait(30)
        time.sleep(0.3)
        note = root / "ada" / "knowledge" / "backups.md"
        note.write_text(note.read_text() + "\nOne more line.\n")
        live.refresh([os.path.realpath(note)])
        fresh = live.current()
        assert fresh is not memory and fresh.warm_seconds >= 0.3
        release.set()
        worker = memory._warm_worker
        if worker is not None:
            worker.join(30)
        assert not memory.is_warm and "keywords" not in memory.__dict__
    finally:
        release.set()
        live.close()


def test_the_build_stops_at_the_first_checkpoint_that_says_so(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each step (the index, the prepared entries, the layered words, the suggestion index)
    looks at `stopped` every STOP_CHECK_EVERY entries: a Memory let go stops building at
    once."""
    import kb.pure.answering.keyword as keyword

    monkeypatch.setattr(keyword, "STOP_CHECK_EVERY", 1)
    with Memory.open([str(example_fleet / "fleet")]) as memory:
        keyed = [keywordwarm.prepared_of(e.base, h) for e, h in memory._keyed]
    looks: list[int] = []

    def counted() -> bool:
        looks.append(1)
        return False

    index, suggester = keywordwarm.built(keyed, counted)
    assert index is not None and suggester is not None
    n, total = len(keyed), len(looks)
    # the first look of each step: the index, the prepared entries, the layered words; the
    # last look (the suggestion index's last key)
    for asks in (1, n + 1, 2 * n + 1, total):
        calls: list[int] = []

        def stopped(asks: int = asks, calls: list[int] = calls) -> bool:
            calls.append(1)
            return len(calls) >= asks

        assert keywordwarm.built(keyed, stopped) == (None, None), asks
        # not one entry further (prepare_all returns, and `built` asks once more)
        assert asks <= len(calls) <= asks + 1


def test_a_held_fleet_keeps_its_entries_packed_and_no_second_copy(example_fleet: Path) -> None:
    """Held, every entry is in the keyword index packed (kb.pure.answering.entries.Prepared):
    the decoded headers, the entries and their token sets, and the cold path's prepared
    entries are let go (they doubled a held fleet's keyword memory), and the entries it hands
    out are the ones a cold open decodes."""
    with Memory.open([str(example_fleet / "fleet")]) as cold:
        entries = cold.entries
        cold.ask("backup restore")  # the cold path prepares what it scores
        assert cold._prepared
        cold.warm(wait=True)
        assert cold.is_warm
        assert "_keyed" not in cold.__dict__ and not cold._prepared
        index = cold.keywords
        assert index._entries is None and index._sets is None and None not in index._prepared
        assert cold.entries == entries


def test_one_fleet_opened_three_ways_holds_one_keyword_index(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resident kb opens a fleet once per caller's folder and spelling of it; the opens
    of the same entries in the same scope hold one index between them, and each answers
    as a cold open of its own spelling does (the files it names are spelled its way)."""
    (example_fleet.parent / "link").symlink_to(example_fleet)
    monkeypatch.chdir(example_fleet.parent)
    spellings = (example_fleet.name, str(example_fleet), str(example_fleet.parent / "link"))
    expected = {}
    for spelling in spellings:
        with Memory.open(spelling) as cold:
            expected[spelling] = [cold.ask(q) for q in QUESTIONS]
    assert expected[spellings[0]] != expected[spellings[1]]  # `file` is spelled as opened
    with (
        Memory.open(spellings[0]) as relative,
        Memory.open(spellings[1]) as absolute,
        Memory.open(spellings[2]) as linked,
    ):
        for memory in (relative, absolute, linked):
            memory.warm()
            assert memory.is_warm
        assert relative.keywords is absolute.keywords is linked.keywords
        assert relative._suggester is absolute._suggester is linked._suggester
        for spelling, memory in zip(spellings, (relative, absolute, linked), strict=True):
            assert [memory.ask(q) for q in QUESTIONS] == expected[spelling]


def test_a_public_open_never_holds_the_index_of_every_file(example_fleet: Path) -> None:
    """Opens with and without the private layer never share an index: a public question
    must not be ranked over the private entries."""
    with Memory.open(example_fleet) as public, Memory.open(example_fleet, all=True) as every:
        public.warm()
        every.warm()
        assert public.keywords is not every.keywords
        private = {e.rel for e in every.entries} - {e.rel for e in public.entries}
        assert "records/quillfeather-contract.md" in private


def test_an_open_after_a_change_builds_its_own_index(example_fleet: Path) -> None:
    """An index is shared only while the files it was built from are as they were: an open
    after an edit builds the index of the edited fleet."""
    note = example_fleet / "fleet" / "ada" / "knowledge" / "backups.md"
    with Memory.open(example_fleet) as before:
        before.warm()
        note.write_text(
            note.read_text(encoding="utf-8").replace("**Search for:**", "**Search for:** zorbly,"),
            encoding="utf-8",
        )
        with Memory.open(example_fleet) as after:
            after.warm()
            assert after.keywords is not before.keywords
            assert after.ask("zorbly").found[0].path == "knowledge/backups.md"
            assert not before.ask("zorbly").found
