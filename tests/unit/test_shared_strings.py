"""The strings pool a fleet's decoded words are shared through (kb.io.store.sharedstrings):
equal strings come back as one object, the pool is dropped once a fleet is held, and it
never grows past its bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.io.answering import heap
from kb.io.answering.memory import Memory
from kb.io.notes.indexer import index_bases
from kb.io.store import sharedstrings


def _fresh(text: str) -> str:
    return "".join(list(text))  # an equal string that is another object


def test_equal_strings_come_back_as_the_first_one() -> None:
    sharedstrings.let_go()
    first = _fresh("lantern harbor")
    assert sharedstrings.shared(first) is first
    again = _fresh("lantern harbor")
    assert again is not first and sharedstrings.shared(again) is first
    assert sharedstrings.shared_all([_fresh("lantern harbor"), "x"]) == (first, "x")
    assert sharedstrings.shared_all([_fresh("lantern harbor")])[0] is first


def test_letting_go_forgets_the_pool_but_not_what_was_shared() -> None:
    kept = sharedstrings.shared(_fresh("vigil"))
    sharedstrings.let_go()
    assert sharedstrings.size() == 0
    other = _fresh("vigil")
    assert sharedstrings.shared(other) is other  # a new pool: the first one is new again
    assert kept == other


def test_the_pool_starts_again_at_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    sharedstrings.let_go()
    monkeypatch.setattr(sharedstrings, "POOL_MAX", 3)
    for word in ("a1", "b2", "c3"):
        sharedstrings.shared(_fresh(word))
    assert sharedstrings.size() == 3
    late = _fresh("d4")
    assert sharedstrings.shared(late) is late
    assert sharedstrings.size() == 1


def test_a_fleet_held_in_memory_leaves_no_pool_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "fleet" / "alpha"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = alpha\n")
    (base / "knowledge" / "a.md").write_text(
        "# Lantern\n\n**Search for:** lantern harbor, vigil\n\nThe lantern by the harbor.\n"
    )
    index_bases([str(tmp_path / "fleet")], False)
    sharedstrings.let_go()
    most = [0]
    real = sharedstrings.shared

    def counted(text: str) -> str:
        found = real(text)
        most[0] = max(most[0], sharedstrings.size())
        return found

    monkeypatch.setattr(sharedstrings, "shared", counted)
    with Memory.open([str(tmp_path / "fleet")]) as memory:
        memory.warm(wait=True)
        assert most[0] >= 3  # the vocabulary and the keys went through the pool
        assert sharedstrings.size() == 0
        assert memory.ask("lantern harbor").found[0].path == "knowledge/a.md"
    sharedstrings.shared("x")
    heap.give_back()
    assert sharedstrings.size() == 0
