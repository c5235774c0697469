"""The process-wide budget of open index connections (kb.io.store.database.MAX_OPEN_STORES)
is shared by every Memory in the process. A resident kb holds an old Memory warming on its
own thread while a fresh one answers; closing the least recently used connection must never
pull one out from under a call another Memory is making (a clean-clone CI run of `kb serve`
over 500 bases met exactly that: a store's connection was None inside its own call)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

import kb
from kb import Memory
from kb.io.store import database
from tests.unit.test_library import QUESTIONS

REPO = Path(__file__).resolve().parents[2]


def _fingerprint(answer: kb.Answer) -> tuple[object, ...]:
    return (answer.confidence.verdict, tuple((f.base, f.path) for f in answer.found))


def test_two_memories_in_two_threads_under_a_budget_of_one_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "harbor"
    shutil.copytree(REPO / "examples" / "fleet", root)
    kb.index(root)
    with Memory.open(root) as memory:
        expected = [_fingerprint(memory.ask(q)) for q in QUESTIONS]
    # One connection open at a time: every call of one Memory closes the other's.
    monkeypatch.setattr(database, "MAX_OPEN_STORES", 1)
    failures: list[BaseException] = []
    wrong: list[object] = []

    def ask_many(memory: Memory) -> None:
        try:
            for i in range(40):
                got = _fingerprint(memory.ask(QUESTIONS[i % len(QUESTIONS)]))
                if got != expected[i % len(QUESTIONS)]:
                    wrong.append(got)
        except BaseException as e:  # reported below, whatever a call raised
            failures.append(e)

    with Memory.open(root) as first, Memory.open(root) as second:
        threads = [threading.Thread(target=ask_many, args=(m,)) for m in (first, second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []
    assert wrong == []


@pytest.mark.parametrize("value", ["unindexed", "entries", "keywords"])
def test_a_value_read_outside_a_call_keeps_the_budget_while_another_thread_holds_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """The values a Memory builds on first read (the unindexed files, the entries, the
    keyword index) read every store. Read while the warming thread held the Memory's lock,
    they once skipped it, and the budget could close none of the stores the other thread
    was guarding: `kb serve` over 500 bases under a 256-descriptor limit ran out of
    descriptors. Each waits for the lock instead, and the budget holds when it is read."""
    root = tmp_path / "harbor"
    shutil.copytree(REPO / "examples" / "fleet", root)
    kb.index(root)
    monkeypatch.setattr(database, "MAX_OPEN_STORES", 1)
    with Memory.open(root) as memory:
        assert memory.agent_count() > 2
        held, release = threading.Event(), threading.Event()

        def hold_the_lock() -> None:  # as the warming thread does while it decodes a slice
            with memory._lock:
                held.set()
                release.wait(5)

        holder = threading.Thread(target=hold_the_lock)
        holder.start()
        held.wait(5)
        threading.Timer(0.2, release.set).start()
        getattr(memory, value)
        open_now = len(database._OPEN)
        holder.join()
    assert open_now <= 1
