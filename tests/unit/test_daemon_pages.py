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
    ("resident", "limit", "given"),
    [(100, 50, True), (50, 50, False), (10, 50, False), (None, 0, False)],
)
def test_pages_go_back_only_past_the_budget(
    monkeypatch: pytest.MonkeyPatch, resident: int | None, limit: int, given: bool
) -> None:
    calls: list[int] = []

    def give_back() -> int:
        calls.append(1)
        return 1

    monkeypatch.setattr(postingsfile, "resident_file_bytes", lambda: resident)
    monkeypatch.setattr(postingsfile, "give_back_pages", give_back)
    assert daemon._keep_file_pages(limit) is given
    assert calls == ([1] if given else [])


def test_the_budget_is_above_what_the_interpreter_alone_maps() -> None:
    """Below the interpreter's own file pages, every reply would give the pages back."""
    resident = postingsfile.resident_file_bytes()
    assert resident is not None and 0 < resident < daemon.FILE_PAGES_KEPT


def test_a_held_base_keeps_a_small_sqlite_page_cache(example_fleet: Path) -> None:
    with Memory.open([str(example_fleet / "fleet")]) as memory:
        memory.warm(wait=True)
        for store in memory._stores:
            assert store.warm is not None
            size = store.conn.execute("PRAGMA cache_size").fetchone()[0]
            assert size == -HELD_CACHE_KIB
