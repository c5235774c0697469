"""A warm Memory builds its keyword index while questions go on (kb.io.answering.keywordwarm):
after every change on disk a resident kb builds it again, and at 100,000 notes its next
question waited 12-13 s for the build, which held the Memory's lock throughout."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from kb.io.answering import keywordwarm
from kb.io.answering.memory import Memory

QUESTIONS = ("backup restore", "arroz feijao", "zorbly quaxing")


def test_a_question_is_answered_while_the_keyword_index_is_built(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory.open([str(example_fleet / "fleet")]) as cold:
        expected = [cold.ask(q) for q in QUESTIONS]
    building, release = threading.Event(), threading.Event()
    real = keywordwarm.built

    def slow(keyed: keywordwarm.Keyed) -> object:
        building.set()
        assert release.wait(30)
        return real(keyed)

    monkeypatch.setattr(keywordwarm, "built", slow)
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

    def let_go_meanwhile(keyed: keywordwarm.Keyed) -> object:
        memory.release()
        return real(keyed)

    monkeypatch.setattr(keywordwarm, "built", let_go_meanwhile)
    memory.warm(wait=True)
    assert "keywords" not in memory.__dict__ and not memory.is_warm
