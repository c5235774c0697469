"""An index written before `files` had `private` and `captured_from` is migrated in one
transaction: columns added and the text index emptied together, so no chunk of a private
file can be served as public by an index that lost its privacy flags."""

from __future__ import annotations

import sqlite3
from pathlib import Path

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
