"""A resident kb keeps few file pages between requests (kb.shell.daemon._keep_file_pages,
decision 0055): past its budget the mapped postings pages go back to the page cache, and a
held base's SQLite connection keeps a small page cache of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.io.answering.memory import Memory
from kb.io.store import postingsfile
from kb.io.store.warm import HELD_CACHE_KIB
from kb.shell import daemon


@pytest.mark.parametrize(
    ("floor", "resident", "given", "after"),
    [
        (None, 100, True, 20),  # no floor yet: every file page counts
        (None, 40, False, None),
        (30, 71, True, 20),  # more than `kept` above the floor: the floor measured again
        (30, 70, False, 30),
        (30, 10, False, 30),
        (30, None, False, 30),  # no /proc: nothing given back, nothing known
    ],
)
def test_pages_go_back_only_past_the_budget_above_the_floor(
    monkeypatch: pytest.MonkeyPatch,
    floor: int | None,
    resident: int | None,
    given: bool,
    after: int | None,
) -> None:
    readings = [resident, 20]  # what the process holds now, then after a give-back
    calls: list[int] = []

    def give_back() -> int:
        calls.append(1)
        return 1

    monkeypatch.setattr(postingsfile, "resident_file_bytes", lambda: readings.pop(0))
    monkeypatch.setattr(postingsfile, "give_back_pages", give_back)
    assert daemon._keep_file_pages(floor, kept=40) == after
    assert calls == ([1] if given else [])


def test_the_daemon_counts_only_postings_pages_against_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The floor starts unknown and is measured after each give-back, so a process whose
    own libraries map more than the budget gives back once, not after every reply."""
    libraries = daemon.FILE_PAGES_KEPT + (1 << 20)
    held = {"postings": 0}
    monkeypatch.setattr(postingsfile, "resident_file_bytes", lambda: libraries + held["postings"])
    monkeypatch.setattr(postingsfile, "give_back_pages", lambda: held.update(postings=0) or 1)
    floor = daemon._keep_file_pages(None)
    assert floor == libraries
    held["postings"] = daemon.FILE_PAGES_KEPT
    assert daemon._keep_file_pages(floor) == libraries  # at the budget: kept
    assert held["postings"] == daemon.FILE_PAGES_KEPT
    held["postings"] += 1
    assert daemon._keep_file_pages(floor) == libraries
    assert held["postings"] == 0


def test_a_held_base_keeps_a_small_sqlite_page_cache(example_fleet: Path) -> None:
    with Memory.open([str(example_fleet / "fleet")]) as memory:
        memory.warm(wait=True)
        for store in memory._stores:
            assert store.warm is not None
            size = store.conn.execute("PRAGMA cache_size").fetchone()[0]
            assert size == -HELD_CACHE_KIB
