"""An index written before `files` had `private` and `captured_from` is migrated in one
transaction: columns added and the text index emptied together, so no chunk of a private
file can be served as public by an index that lost its privacy flags."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from kb.io.store import Store, db_path

OLD_SCHEMA = """
CREATE TABLE files (base TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL,
    provenance TEXT, stage TEXT, PRIMARY KEY (base, path));
CREATE VIRTUAL TABLE chunks USING fts5(base UNINDEXED, path UNINDEXED, heading_path, text,
    tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO files VALUES ('ada', 'records/salary.md', 'h1', NULL, NULL);
INSERT INTO chunks (base, path, heading_path, text) VALUES ('ada', 'records/salary.md', '',
    'private salary figures');
"""


def test_an_old_index_gains_the_columns_and_loses_its_unflagged_chunks(tmp_path: Path) -> None:
    path = db_path(tmp_path)
    path.parent.mkdir()
    conn = sqlite3.connect(path)
    conn.executescript(OLD_SCHEMA)
    conn.close()

    store = Store.open(tmp_path)
    try:
        assert store.rebuilt
        columns = {row[1] for row in store.conn.execute("PRAGMA table_info(files)")}
        assert {"private", "captured_from"} <= columns
        assert store.conn.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 0
        assert store.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] == 0
        assert not store.conn.in_transaction
    finally:
        store.close()

    again = Store.open(tmp_path)  # a migrated index opens without migrating again
    try:
        assert not again.rebuilt
    finally:
        again.close()


class _SawUnstamped(sqlite3.Connection):
    """A connection whose first look at the stamp sees none: what a process sees when it
    reads the stamp just before another process, creating the same index, writes it."""

    looked = False

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if sql == "PRAGMA user_version" and not self.looked:
            self.looked = True
            return super().execute("SELECT 0")
        return super().execute(sql, parameters)


def test_an_opener_that_lost_the_race_keeps_the_tables_the_winner_made(tmp_path: Path) -> None:
    """Once it holds the write lock the late opener reads the stamp again, finds it, and
    leaves the header cache alone (it used to drop it under the winner's feet)."""
    first = Store.open(tmp_path)
    first.conn.execute(
        "INSERT INTO headers (path, size, mtime_ns, bucket, title, purpose, parsed) "
        "VALUES ('a.md', 1, 1, 'knowledge', 'A', '', '{}')"
    )
    late = sqlite3.connect(db_path(tmp_path), isolation_level=None, factory=_SawUnstamped)
    try:
        assert Store._prepare(late) is False
        assert late.looked
        assert late.execute("SELECT COUNT(*) FROM headers").fetchone()[0] == 1
        assert not late.in_transaction
    finally:
        late.close()
        first.close()


def test_an_unstamped_index_is_prepared_in_one_transaction(tmp_path: Path) -> None:
    """A failure half-way through preparing leaves the index as it was: unstamped, so the
    next open prepares it whole."""
    path = db_path(tmp_path)
    path.parent.mkdir()
    sqlite3.connect(path).close()

    class _FailsAtStamp(sqlite3.Connection):
        def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
            if sql.startswith("PRAGMA user_version ="):
                raise sqlite3.OperationalError("disk I/O error")
            return super().execute(sql, parameters)

    conn = sqlite3.connect(path, isolation_level=None, factory=_FailsAtStamp)
    try:
        with pytest.raises(sqlite3.OperationalError):
            Store._prepare(conn)
        assert not conn.in_transaction
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "headers" not in tables and "files" not in tables
    finally:
        conn.close()
    store = Store.open(tmp_path)
    try:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] > 0
    finally:
        store.close()


def test_an_index_from_before_judged_reads_reads_every_note_again(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 24, F6: before version 14 a note was read by path, so a swap could leave a
    record's text under a public note's hash, `unchanged` forever after. An index stamped
    older keeps its rows but clears every hash, so the next `kb index` reads each note
    again, through the judged reader."""
    from kb.io.store import JUDGED_READS_VERSION
    from kb.shell.cli.main import run

    monkeypatch.setenv("KB_MISSES_PATH", str(tmp_path / "misses.txt"))
    base = example_fleet / "fleet" / "ada"
    assert run(["index", str(base)]).code == 0
    conn = sqlite3.connect(db_path(base))
    conn.execute(f"PRAGMA user_version = {JUDGED_READS_VERSION - 1}")
    conn.commit()
    conn.close()
    again = run(["index", str(base)])
    assert again.code == 0
    assert "ada        7 reindexed, 0 unchanged, 0 removed" in again.stdout, again.stdout


def test_header_rows_lost_under_a_kept_stat_pass_are_read_once_and_saved_again(
    example_fleet: Path,
) -> None:
    # A kept stat pass (`scan_lights`) lets an open skip the header rows; when the rows are
    # gone (a prune, a tool that emptied the table), every full header was read from the
    # note again on every open, for good. The first read now forgets the kept pass, so the
    # next open takes the stat pass and saves the rows.
    from kb.io.answering.memory import Memory

    base = example_fleet / "fleet" / "ada"
    Memory.open([str(example_fleet / "fleet")]).close()  # rows and a kept pass
    conn = sqlite3.connect(db_path(base))
    files = conn.execute("SELECT COUNT(*) FROM headers").fetchone()[0]
    assert files > 0
    assert conn.execute("SELECT COUNT(*) FROM scan_lights").fetchone()[0] == 1
    conn.execute("DELETE FROM headers")
    conn.commit()

    with Memory.open([str(example_fleet / "fleet")]) as memory:
        assert memory.list()  # every full header: read from the notes, as before
    Memory.open([str(example_fleet / "fleet")]).close()
    assert conn.execute("SELECT COUNT(*) FROM headers").fetchone()[0] == files
    conn.close()
