"""`TextReader.indexed_hash` finds a file's row by its key, base name by base name: it must
answer as the whole table does (`indexed_hashes`: the last row written for the path wins,
whichever base name it was written under)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.io.store import Store

ROWS = [
    # (base, path, hash) in the order written: `ada` was `old` before its folder was renamed
    ("aaa", "knowledge/c.md", "h-aaa-c"),
    ("old", "knowledge/a.md", "h-old-a"),
    ("old", "knowledge/only-old.md", "h-only-old"),
    ("ada", "knowledge/a.md", "h-ada-a"),
    ("ada", "knowledge/b.md", "h-ada-b"),
    ("zed", "knowledge/b.md", "h-zed-b"),
    ("aaa", "knowledge/b.md", "h-aaa-b"),  # sorts first by name, written last
    ("ada", "knowledge/c.md", "h-ada-c"),
]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(tmp_path)
    with opened.conn:
        opened.conn.executemany("INSERT INTO files (base, path, hash) VALUES (?, ?, ?)", ROWS)
    return opened


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("knowledge/a.md", "h-ada-a"),  # the renamed base's row, written after the old one
        ("knowledge/only-old.md", "h-only-old"),  # not indexed again since the rename
        ("knowledge/b.md", "h-aaa-b"),  # the last written, not the first or last name
        ("knowledge/c.md", "h-ada-c"),  # the last written, though another name sorts first
        ("knowledge/never.md", None),
    ],
)
def test_the_last_row_written_for_a_path_wins(
    store: Store, path: str, expected: str | None
) -> None:
    try:
        assert store.text.indexed_hash(path) == expected
        assert store.text.indexed_hashes().get(path) == expected
    finally:
        store.close()


def test_an_empty_index_holds_no_hash(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    try:
        assert store.text.indexed_hash("knowledge/a.md") is None
    finally:
        store.close()
