"""`kb index`'s side of the text index: one base's `files`, `chunks`, `chunk_counts`,
`chunk_spans` and `sources` rows brought in line with its notes in one transaction, each
note read once through kb.io.notes.safe_read, and the stamp of the source records it was given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from attrs import frozen

from kb.io.files.atomic import crash_point
from kb.io.notes.safe_read import Read, read_note
from kb.io.notes.walk import BaseSnapshot
from kb.io.store.fileheader import FileHeader
from kb.io.store.headers import content_hash
from kb.io.store.lights import LightHeader
from kb.io.store.textreader import counts_text
from kb.pure.notes.header import field_exact, front_matter

if TYPE_CHECKING:
    import sqlite3

    from kb.io.store.database import Store

# `kb index`'s page cache per connection, in KiB (SQLite's default is 2,000). A cold base is
# one transaction as large as its index; with the default cache, pages spilled mid-way were
# read back and FTS5's segment merges re-read what they had just written, so the cost per
# note grew with the base (FTS5 alone, 5,454 chunks vs five times as many: 0.35 vs 2.35 s
# CPU at the default, 0.29 vs 1.67 s at 64 MiB). It was 64 MiB until the stat pass saved as
# it read (kb.io.store.pending.StreamedSave); the cache, and SQLite's sorter, which takes the
# same budget, were then most of a cold index's peak. A cold index of 100,000 generated notes:
# 64 MiB 182 MB at the largest base; 8 MiB 38.4 s, 58.9 MB; 6 MiB 38.2-39.9 s, 56.7-57.5 MB
# (4 MiB cost one base 4% more time). Released with the connection after each base.
INDEX_CACHE_KIB = 6 * 1024
# Files whose rows `sync` sends in one statement per table: fewer calls into SQLite, and a
# bounded amount of text held at once.
SYNC_BATCH_FILES = 256


@frozen
class SyncReport:
    unchanged: int
    reindexed: int
    removed: int
    chunks: int
    sources: int


class TextWriter:
    """Writes one base's text index for `kb index`."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def bulk_writes(self) -> None:
        """Ready this connection for `kb index`'s one large transaction per base: a page
        cache larger than SQLite's default (see `INDEX_CACHE_KIB`). Only
        the cache's size changes: journaling and syncing stay as they are, so a failed
        write still leaves nothing half-written."""
        self._store.conn.execute(f"PRAGMA cache_size = -{INDEX_CACHE_KIB}")

    def sync(
        self,
        base: BaseSnapshot,
        headers: Sequence[FileHeader | LightHeader],
        sources: Iterable[tuple[str | None, ...]]
        | Callable[[], Iterable[tuple[str | None, ...]]] = (),
        sources_stamp: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> SyncReport:
        """Bring the base's text index in line with `headers`, in one transaction. Each file
        indexed again is read once, through kb.io.notes.safe_read, and its chunks, hash and front
        matter all come from those bytes (a warm re-index of an unchanged fleet decodes no
        header and reads no file). `sources` are the base's `sources`
        rows, or how to read them: then they are read only when `sources_stamp` differs
        from the one the base's rows were written with (checked inside the transaction), and
        written with it."""
        from kb.pure.notes.chunking import chunk  # only indexing splits notes into chunks

        # this connection's own writes do not move its `data_version`: the vocabulary is
        # read again by a question after this sync
        self._store.vocabulary.written()
        rows = self._store.conn.execute(
            "SELECT path, hash, private FROM files WHERE base = ?", (base.name,)
        ).fetchall()
        known = {path: h for path, h, _ in rows}
        private_flag = {path: bool(p) for path, _, p in rows}
        unchanged = reindexed = chunks_written = 0
        seen: set[str] = set()
        try:
            self._store.conn.execute("BEGIN IMMEDIATE")
            if self._lacks_spans(base.name):
                # An index written before chunk spans existed: rebuild this base's text
                # index once, so every file gets its span (as costly as a cold index).
                self._store.conn.execute(
                    "DELETE FROM chunk_counts WHERE rowid IN "
                    "(SELECT rowid FROM chunks WHERE base = ?)",
                    (base.name,),
                )
                for table in ("chunks", "files", "chunk_spans"):
                    self._store.conn.execute(f"DELETE FROM {table} WHERE base = ?", (base.name,))
                known, private_flag = {}, {}
            stale: list[FileHeader | LightHeader] = []
            for h in headers:
                if h.rel == base.map_rel or h.bucket == "unreadable":
                    continue
                seen.add(h.rel)
                if known.get(h.rel) == h.hash:
                    unchanged += 1
                    if private_flag.get(h.rel) != h.private:
                        # Privacy is declared in agent.txt, not in the note: a note that
                        # became private without changing must not keep serving as public.
                        self._store.conn.execute(
                            "UPDATE files SET private = ? WHERE base = ? AND path = ?",
                            (int(h.private), base.name, h.rel),
                        )
                    continue
                stale.append(h)
            # Read inside the write transaction, so no other indexer can take these rowids.
            next_rowid = self._max_rowid() + 1
            batch = _ChunkBatch(self._store.conn, base.name)
            for done, h in enumerate(stale):
                if progress is not None:
                    progress(done, len(stale))
                # The text, its hash and its front matter all come from one descriptor,
                # judged when it was opened (kb.io.notes.safe_read): what is indexed for a path is
                # exactly what was judged public, and the hash stored is that text's, so a
                # note swapped while it was read can never leave another file's text under
                # its own hash (issue 24, F6).
                got = read_note(base, h.rel)
                text = got.text() if isinstance(got, Read) else None
                if text is None or not isinstance(got, Read):
                    continue
                digest = content_hash(got.data)
                front = front_matter(text)
                if h.rel in known:
                    # Only a file the index already holds can have chunks to drop (deleting
                    # for every new file made a cold index quadratic: 61 s -> 15 s at
                    # 10,000 notes).
                    self._drop_chunks(base.name, h.rel)
                pieces = chunk(text)
                # Explicit rowids, so each file's chunks are one known contiguous range.
                batch.add(h.rel, digest, front, h.private, next_rowid, pieces)
                next_rowid += len(pieces)
                reindexed += 1
                chunks_written += len(pieces)
                crash_point("index.file")
            batch.flush()
            removed = 0
            for path in known:
                if path not in seen:
                    self._drop_chunks(base.name, path)
                    self._store.conn.execute(
                        "DELETE FROM files WHERE base = ? AND path = ?", (base.name, path)
                    )
                    removed += 1
            if callable(sources) and (
                sources_stamp is None or sources_stamp != self.sources_stamp(base.name)
            ):
                sources = sources()
            if callable(sources):  # its stamp is the one the rows were written with
                kept = self._store.conn.execute(
                    "SELECT COUNT(*) FROM sources WHERE base = ?", (base.name,)
                ).fetchone()
                source_count = int(kept[0])
            else:
                self._store.conn.execute("DELETE FROM sources WHERE base = ?", (base.name,))
                source_rows = list(sources)
                self._store.conn.executemany(
                    "INSERT OR REPLACE INTO sources VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    source_rows,
                )
                source_count = len(source_rows)
                self._store.conn.execute("DELETE FROM source_stamps WHERE base = ?", (base.name,))
                if sources_stamp is not None:
                    self._store.conn.execute(
                        "INSERT INTO source_stamps VALUES (?,?)", (base.name, sources_stamp)
                    )
            crash_point("index.commit")
            self._store.conn.execute("COMMIT")
        except BaseException:
            if self._store.conn.in_transaction:
                self._store.conn.execute("ROLLBACK")
            raise
        return SyncReport(unchanged, reindexed, removed, chunks_written, source_count)

    def sources_stamp(self, base: str) -> str | None:
        """The stamp (`kb.io.writing.sources.source_stamp`) the base's `sources` rows were written
        with, None when there is none."""
        row = self._store.conn.execute(
            "SELECT stamp FROM source_stamps WHERE base = ?", (base,)
        ).fetchone()
        return str(row[0]) if row is not None else None

    def _lacks_spans(self, base: str) -> bool:
        """Whether the base's text index predates a table each chunk needs a row in (spans,
        word counts): it is then rebuilt once, as a cold index would be."""
        has_chunks = self._store.conn.execute(
            "SELECT 1 FROM chunks WHERE base = ? LIMIT 1", (base,)
        )
        if has_chunks.fetchone() is not None and (
            self._store.conn.execute("SELECT 1 FROM chunk_counts LIMIT 1").fetchone() is None
        ):
            return True
        row = self._store.conn.execute(
            "SELECT 1 FROM files f WHERE f.base = ? AND NOT EXISTS (SELECT 1 FROM chunk_spans s "
            "WHERE s.base = f.base AND s.path = f.path) LIMIT 1",
            (base,),
        ).fetchone()
        return row is not None

    def _max_rowid(self) -> int:
        row = self._store.conn.execute(
            "SELECT rowid FROM chunks ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
        return int(row[0]) if row else 0

    def _drop_chunks(self, base: str, path: str) -> None:
        """Delete one file's chunks: by its rowid span when known, else by scanning."""
        span = self._store.conn.execute(
            "SELECT first, last FROM chunk_spans WHERE base = ? AND path = ?", (base, path)
        ).fetchone()
        if span is None:
            self._store.conn.execute(
                "DELETE FROM chunk_counts WHERE rowid IN "
                "(SELECT rowid FROM chunks WHERE base = ? AND path = ?)",
                (base, path),
            )
            self._store.conn.execute("DELETE FROM chunks WHERE base = ? AND path = ?", (base, path))
            return
        self._store.conn.execute(
            "DELETE FROM chunks WHERE rowid BETWEEN ? AND ? AND base = ? AND path = ?",
            (span[0], span[1], base, path),
        )
        self._store.conn.execute(
            "DELETE FROM chunk_counts WHERE rowid BETWEEN ? AND ?", (span[0], span[1])
        )
        self._store.conn.execute(
            "DELETE FROM chunk_spans WHERE base = ? AND path = ?", (base, path)
        )


class _ChunkBatch:
    """The rows `sync` writes for the files it indexes again, sent to SQLite a few hundred
    files at a time (one statement per table per batch rather than per file)."""

    def __init__(self, conn: sqlite3.Connection, base: str) -> None:
        self._conn = conn
        self._base = base
        self._files: list[tuple[object, ...]] = []
        self._chunks: list[tuple[object, ...]] = []
        self._counts: list[tuple[int, str]] = []
        self._spans: list[tuple[object, ...]] = []

    def add(
        self,
        rel: str,
        digest: str,
        front: tuple[tuple[str, str], ...],
        private: bool,
        first: int,
        pieces: Sequence[Any],
    ) -> None:
        self._files.append(
            (
                self._base,
                rel,
                digest,
                field_exact(front, "provenance"),
                field_exact(front, "stage"),
                field_exact(front, "captured_from"),
                int(private),
            )
        )
        for i, c in enumerate(pieces):
            self._chunks.append((first + i, self._base, rel, c.heading_path, c.text))
            self._counts.append((first + i, counts_text(c.heading_path, c.text)))
        self._spans.append((self._base, rel, first, first + len(pieces) - 1))
        if len(self._files) >= SYNC_BATCH_FILES:
            self.flush()

    def flush(self) -> None:
        conn = self._conn
        conn.executemany("INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?,?)", self._files)
        conn.executemany(
            "INSERT INTO chunks (rowid, base, path, heading_path, text) VALUES (?,?,?,?,?)",
            self._chunks,
        )
        conn.executemany("INSERT OR REPLACE INTO chunk_counts VALUES (?,?)", self._counts)
        conn.executemany("INSERT OR REPLACE INTO chunk_spans VALUES (?,?,?,?)", self._spans)
        for rows in (self._files, self._chunks, self._counts, self._spans):
            rows.clear()
