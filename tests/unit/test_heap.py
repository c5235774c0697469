"""The resident kb hands the heap its warm build freed back to the system where the C
library can (glibc's `malloc_trim`), and does nothing where it cannot."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from kb.io.answering import heap
from kb.io.answering.memory import Memory


class _Library:
    def __init__(self, has_trim: bool) -> None:
        self.calls: list[int] = []
        if has_trim:
            self.malloc_trim = self.calls.append


def test_the_free_heap_is_trimmed_whole_where_the_c_library_can(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    library = _Library(has_trim=True)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: library)
    heap.give_back()
    assert library.calls == [0]  # 0: keep no padding at the top of the heap


def test_a_c_library_without_the_call_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctypes, "CDLL", lambda name: _Library(has_trim=False))
    heap.give_back()  # musl, macOS: no malloc_trim, and no error


def test_a_process_whose_own_symbols_cannot_be_loaded_is_left_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(name: object) -> object:
        raise OSError("no such library")

    monkeypatch.setattr(ctypes, "CDLL", refused)
    heap.give_back()


def test_a_warming_thread_hands_the_heap_back_once_the_fleet_is_held(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory.open([str(example_fleet / "fleet")]) as cold:
        entries = cold.entries
    given: list[bool] = []
    with Memory.open([str(example_fleet / "fleet")]) as memory:
        monkeypatch.setattr(heap, "give_back", lambda: given.append(memory.is_warm))
        memory.warm(wait=False)
        worker = memory._warm_worker
        assert worker is not None
        worker.join(30)
        assert given == [True]  # after the build, once everything is installed
        # the entries held without their decoded headers are the ones a cold open lists
        assert memory.entries == entries
