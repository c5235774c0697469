"""The shape of a base's index database and how a connection to it is made: the tables (the
spec's text index beside kb's derived ones), the version stamp that creates, migrates and
rebuilds them, and the settings every connection works under (its busy timeout, the brief
wait of an opportunistic write, the size of an `IN (...)` list).

WAL mode and a busy timeout let several agents read while one indexes. The derived tables are
written opportunistically: if the database is busy or read-only, what was computed is used in
memory and the next open tries again.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

# Bump when parsing rules change: every cached header is then re-read once.
HEADER_CACHE_VERSION = 15  # 15: kw_trigrams holds the deletion neighbourhoods of short key words
# Before this version a note was read by path, so a note swapped for a link into the private
# layer while kb read it could leave private text in the text index under the public
# note's hash (issue 24, F6): an index stamped older has every file's hash cleared, so the
# next `kb index` reads every note again through kb.io.notes.safe_read.
JUDGED_READS_VERSION = 14
BUSY_TIMEOUT_MS = 5000
CACHE_WRITE_BUSY_MS = 50  # the header cache is saved only if the write lock is free now
# How long a first open waits for another process to finish creating the tables: that work
# takes milliseconds, so a wait this long means a writer is stuck, not busy.
SCHEMA_WAIT_S = 60.0
# Values bound in one `IN (...)` list: SQLite's default cap is 32,766; 500 keeps a statement
# small enough to prepare fast.
SQL_VARIABLES = 500

SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    base TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL,
    provenance TEXT, stage TEXT, captured_from TEXT,
    private INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (base, path));
CREATE TABLE IF NOT EXISTS sources (
    base TEXT NOT NULL, key TEXT NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL,
    author TEXT, year TEXT, container TEXT, url TEXT, doi TEXT, isbn TEXT,
    retrieved_on TEXT NOT NULL, retrieval_status TEXT NOT NULL, replaces TEXT,
    PRIMARY KEY (base, key));
CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(
    base UNINDEXED, path UNINDEXED, heading_path, text,
    tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS chunk_counts (rowid INTEGER PRIMARY KEY, counts TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunk_spans (
    base TEXT NOT NULL, path TEXT NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL,
    PRIMARY KEY (base, path));
CREATE INDEX IF NOT EXISTS chunk_spans_first ON chunk_spans (first);
"""

# `chunk_counts` is ours too: each chunk's words (`counts_text`), written with the chunk, so a
# question's candidates are scored without tokenising their text again (tokenising was a
# third of an answerable question's time at 10,000 notes).
# `chunk_spans` is ours, beside the spec's tables: the rowid range of each file's chunks.
# base and path are UNINDEXED in FTS5, so deleting a file's chunks by them scans every
# chunk (7.8 ms per file on a 5,223-chunk base); by rowid range it is an index lookup. A
# file without a span (an index written before the table existed) falls back to the scan.

# `parsed` is one JSON array per file, [keys, front matter pairs]; `tokens`, for a keyed
# file, the keyword scorer's token sets as [title, stem, purpose tokens, key norms] (see
# `entries.sets_from_norms`), so opening a fleet never re-tokenises its keys: that was 69% of
# a warm open at 10,000 notes (1.5-2.5 s), in every process. `tokens` is decoded only by a
# caller that scores (a no-op `kb index` decoding it spent 1.4 s of 2.6 s at 10,000 notes).
HEADERS_SCHEMA = """
CREATE TABLE IF NOT EXISTS headers (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    hash TEXT, bucket TEXT NOT NULL, title TEXT NOT NULL, purpose TEXT NOT NULL,
    parsed TEXT NOT NULL, tokens TEXT,
    declared INTEGER NOT NULL DEFAULT 0, derivable INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS kw_vocab (
    word TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (word, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kw_second (
    word TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (word, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kw_parts (
    part TEXT NOT NULL, key TEXT NOT NULL, path TEXT NOT NULL,
    PRIMARY KEY (part, key, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kw_trigrams (
    tri TEXT NOT NULL, part TEXT NOT NULL, PRIMARY KEY (tri, part)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS scan_lights (digest TEXT PRIMARY KEY, lights TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS source_stamps (base TEXT PRIMARY KEY, stamp TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS text_words (
    stem TEXT NOT NULL, word TEXT NOT NULL, PRIMARY KEY (stem, word)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS text_words_stamp (id INTEGER PRIMARY KEY, structure BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS calibration (
    id INTEGER PRIMARY KEY, structure BLOB NOT NULL, everyday TEXT NOT NULL,
    title_known INTEGER NOT NULL, title_words INTEGER NOT NULL, known TEXT NOT NULL);
"""
HEADER_TABLES = (
    "headers",
    "kw_vocab",
    "kw_second",
    "kw_parts",
    "kw_trigrams",
    "scan_lights",
    "source_stamps",
    "text_words",
    "text_words_stamp",
    "calibration",
)

# What each derived table is for is told beside the job that keeps it: `headers` and
# `scan_lights` in headers.py, the `kw_*` postings in keywords.py, `text_words`,
# `text_words_stamp` and `calibration` in vocabulary.py, `source_stamps` in textwriter.py.


class StoreError(Exception):
    """The index could not be opened. `path` and `reason` let each verb word it its way."""

    def __init__(self, message: str, path: Path | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason


def db_path(root: Path) -> Path:
    return root / ".kb" / "index.db"


def prepare(conn: sqlite3.Connection) -> bool:
    """Create or upgrade the tables unless this version of kb already stamped them, and
    say whether an older text index was emptied. An index stamped by this version has
    every table and column (they are created before the stamp): the work is skipped,
    which was about 1 ms per base in every process.

    The work is one write transaction, and the stamp is read again inside it. Three
    processes opening a fresh fleet at once used to each read "unstamped" and each drop
    and recreate the header tables, so one of them found `headers` missing between
    its own create and its first read (20 of 120 such opens crashed). Now the first
    one in creates the tables and the others, once inside, find the stamp and leave
    them alone."""
    deadline = time.monotonic() + SCHEMA_WAIT_S
    while conn.execute("PRAGMA user_version").fetchone()[0] != HEADER_CACHE_VERSION:
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            # Another process holds the write lock, most likely a first `kb index` that
            # stamped the tables before it began: read the stamp again.
            if not is_busy(e) or time.monotonic() > deadline:
                raise
            continue
        try:
            stamped = conn.execute("PRAGMA user_version").fetchone()[0]
            if stamped == HEADER_CACHE_VERSION:
                conn.execute("COMMIT")
                return False
            for statement in _statements(SCHEMA):
                conn.execute(statement)
            rebuilt = migrate(conn)
            if stamped < JUDGED_READS_VERSION:
                # every file is indexed again by the next `kb index`, read as it is now
                conn.execute("UPDATE files SET hash = ''")
            # The cache is derived: a new shape is simply rebuilt on this open.
            for table in HEADER_TABLES:
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in _statements(HEADERS_SCHEMA):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {HEADER_CACHE_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return rebuilt
    return False


def migrate(conn: sqlite3.Connection) -> bool:
    """Add the columns an index written by an older kb lacks, and empty its text index
    so the next `kb index` rebuilds it; inside `prepare`'s transaction, so a kill
    between adding `private` (default 0) and emptying the tables cannot leave every
    private chunk served as public."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(files)")}
    missing = [c for c in ("private", "captured_from") if c not in columns]
    if not missing:
        return False
    if "private" in missing:
        conn.execute("ALTER TABLE files ADD COLUMN private INTEGER NOT NULL DEFAULT 0")
    if "captured_from" in missing:
        conn.execute("ALTER TABLE files ADD COLUMN captured_from TEXT")
    for table in ("chunks", "files", "chunk_spans", "chunk_counts"):
        conn.execute(f"DELETE FROM {table}")
    return "private" in missing


def _statements(script: str) -> Iterator[str]:
    """The statements of a schema script one by one (`executescript` would commit the
    transaction they are meant to run in)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""
    if pending.strip():
        yield pending


def is_busy(e: BaseException) -> bool:
    """Whether `e` is SQLite saying another connection holds the lock."""
    if not isinstance(e, sqlite3.OperationalError):
        return False
    code = getattr(e, "sqlite_errorcode", None)
    return (code & 0xFF) == sqlite3.SQLITE_BUSY if code is not None else "locked" in str(e)


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the index at `path` that waits out another writer for up to
    `BUSY_TIMEOUT_MS`."""
    conn = sqlite3.connect(
        path,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=False,  # a Memory serialises its calls (kb.io.answering.memory)
    )
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def connect_immutable(path: Path) -> sqlite3.Connection:
    """The index opened read-only and immutable (no lock, no -shm file: what a read-only disk
    allows); raises sqlite3.Error when it cannot be read that way."""
    conn = sqlite3.connect(
        f"file:{path.as_posix()}?mode=ro&immutable=1",
        uri=True,
        isolation_level=None,
        check_same_thread=False,
    )
    conn.execute("SELECT 1 FROM files LIMIT 1").fetchall()
    has_headers = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'headers'").fetchone()
    if has_headers is None or (
        conn.execute("PRAGMA user_version").fetchone()[0] != HEADER_CACHE_VERSION
    ):
        # An index from another kb: its header cache cannot be trusted. An empty one in the
        # temp schema (which shadows main's) is filled from the files instead.
        conn.executescript(HEADERS_SCHEMA.replace("IF NOT EXISTS ", "IF NOT EXISTS temp."))
    return conn


def connect_in_memory() -> sqlite3.Connection:
    """An empty index in memory, every table made and stamped."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.executescript(SCHEMA)
    conn.executescript(HEADERS_SCHEMA)
    conn.execute(f"PRAGMA user_version = {HEADER_CACHE_VERSION}")
    return conn


def wait_briefly(conn: sqlite3.Connection) -> None:
    """Before an opportunistic write (a cache any later open can fill again): wait at most
    `CACHE_WRITE_BUSY_MS` for the write lock, so a question never stalls behind `kb index`."""
    conn.execute(f"PRAGMA busy_timeout = {CACHE_WRITE_BUSY_MS}")


def wait_fully(conn: sqlite3.Connection) -> None:
    """After an opportunistic write: wait out another writer for `BUSY_TIMEOUT_MS` again."""
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


@contextlib.contextmanager
def briefly(conn: sqlite3.Connection) -> Iterator[None]:
    """An opportunistic write's block: the short busy timeout inside it, the full one again
    after it, however it ends. A busy lock surfaces as `sqlite3.Error` for the caller."""
    try:
        wait_briefly(conn)
        yield
    finally:
        with contextlib.suppress(sqlite3.Error):
            wait_fully(conn)
