"""What a stat pass read again and has yet to save: each header as the `headers` row it will be
written as, and its keyword postings gathered by word, both made as the file is read, so the
parse itself is let go at once.

Held as parsed headers with their token sets and saved at the end, the 13,278 notes of one
generated base were 107 MB traced when the save began, and building the rows from them took
the peak to 239 MB: most of a cold `kb index`'s 324 MB. A note's postings are kept here as
its place among the notes read (4 bytes a row), not as tuples of strings.
"""

from __future__ import annotations

import contextlib
import sqlite3
from array import array
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from kb.io.notes.walk import FileStat
from kb.io.store.fileheader import FileHeader, HeaderRow, cache_row, header_from_row
from kb.io.store.schema import briefly
from kb.pure.answering.entries import TokenSets
from kb.pure.answering.keyword import postings_words
from kb.pure.answering.suggest import lookup_keys

if TYPE_CHECKING:
    from kb.io.store.database import Store


class PostingRows:
    """The keyword postings rows of the notes read again, grouped by each table's first
    column: a word's notes (by place, in the order they were added), and a key word's
    (key, note) pairs, the key by its place among the keys seen."""

    __slots__ = ("_key_ids", "_keys", "_rels", "parts", "second", "vocab")

    def __init__(self) -> None:
        self._rels: list[str] = []
        self._keys: list[str] = []
        self._key_ids: dict[str, int] = {}
        self.vocab: dict[str, array[int]] = {}
        self.second: dict[str, array[int]] = {}
        self.parts: dict[str, array[int]] = {}  # key place and note place, in turn

    def add(self, rel: str, keys: tuple[str, ...], tokens: TokenSets) -> None:
        """The rows one note's keys and token sets give."""
        place = len(self._rels)
        self._rels.append(rel)
        words = postings_words(keys, tokens)
        for table, group in ((self.vocab, words.vocabulary), (self.second, words.second)):
            for word in group:
                found = table.get(word)
                if found is None:
                    table[word] = found = array("I")
                found.append(place)
        for part, key in words.parts:
            key_id = self._key_ids.get(key)
            if key_id is None:
                key_id = self._key_ids[key] = len(self._keys)
                self._keys.append(key)
            found = self.parts.get(part)
            if found is None:
                self.parts[part] = found = array("I")
            found.append(key_id)
            found.append(place)

    def vocab_rows(self) -> Iterator[tuple[str, str]]:
        """(word, path) in the order `sorted` gives them (notes are added in walk order,
        which is path order: a B-tree filled in order splits no page twice)."""
        return self._by_word(self.vocab)

    def second_rows(self) -> Iterator[tuple[str, str]]:
        """(second word, path), in order."""
        return self._by_word(self.second)

    def part_rows(self) -> Iterator[tuple[str, str, str]]:
        """(key word, key, path), in order."""
        keys, rels = self._keys, self._rels
        for part in sorted(self.parts):
            pairs = self.parts[part]
            # stable: a key's notes stay in the order they were added
            for key_id, place in sorted(
                zip(pairs[::2], pairs[1::2], strict=True), key=lambda pair: keys[pair[0]]
            ):
                yield part, keys[key_id], rels[place]

    def trigram_rows(self) -> Iterator[tuple[str, str]]:
        """(trigram, key word) for each distinct key word, in order: each word's trigrams
        and, for a word of 5 or 6 letters, its marked deletions."""
        tris: dict[str, list[str]] = {}
        for part in sorted(self.parts):
            for tri in lookup_keys(part):
                tris.setdefault(tri, []).append(part)
        for tri in sorted(tris):
            for part in tris[tri]:
                yield tri, part

    def _by_word(self, table: dict[str, array[int]]) -> Iterator[tuple[str, str]]:
        rels = self._rels
        for word in sorted(table):
            for place in table[word]:
                yield word, rels[place]


class PendingHeaders(Mapping[str, FileHeader]):
    """The headers a stat pass read again, in walk order, as the rows they will be saved
    as, with their postings. Until they are saved (a busy or read-only index may refuse
    them) each answers as the header a `headers` row gives, decoded on request."""

    __slots__ = ("_places", "_private", "postings", "rows")

    def __init__(self) -> None:
        self.rows: list[HeaderRow] = []
        self.postings = PostingRows()
        self._private = bytearray()
        self._places: dict[str, int] | None = None

    def add(self, f: FileStat, h: FileHeader) -> None:
        """One header read again: kept as its row and its postings, and not itself."""
        self.rows.append(cache_row(f, h))
        self._private.append(h.private)
        self._places = None
        if h.tokens is not None:
            self.postings.add(f.rel, h.keys, h.tokens)

    def rels(self) -> list[str]:
        """The paths read again, in walk order."""
        return [row[0] for row in self.rows]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[str]:
        return iter(self.rels())

    def __getitem__(self, rel: str) -> FileHeader:
        if self._places is None:
            self._places = {row[0]: i for i, row in enumerate(self.rows)}
        place = self._places[rel]
        path, _, _, hash_, bucket, title, purpose, parsed, tokens, _, _ = self.rows[place]
        got = header_from_row(
            path, bool(self._private[place]), bucket, hash_, title, purpose, parsed, tokens
        )
        # the row was encoded from a header in this process, so it decodes
        assert got is not None
        return got


# A stat pass with at least this many files to read saves them as it reads them
# (`StreamedSave`), so what it holds stays the same size whatever the base's: held for one
# save at the end, one base of 13,278 generated notes peaked at 207 MB. Below it, a pass
# (a question finding a few files changed) keeps them and tries the write lock only once it
# is done, as briefly as ever.
STREAM_FROM = 1000
# Headers written, and postings staged, per statement while streaming.
STREAM_BATCH = 256

# The temp tables a streamed save stages its postings rows in, with the columns each table
# of the index takes: rows are staged in the order they are read, and copied in key order
# once the pass is done (SQLite's sorter spills to temp files past the page cache's size).
_STAGED = (
    ("kw_vocab", "word, path"),
    ("kw_second", "word, path"),
    ("kw_parts", "part, key, path"),
    ("kw_trigrams", "tri, part"),
)


class StreamedSave:
    """A stat pass's save, made while it reads: the write transaction opened first, each
    batch's header rows written (after deleting the postings rows of the rows they replace)
    and its postings rows staged, and at the end the staged rows copied into the postings
    tables in key order (a B-tree filled in order splits no page twice) and everything
    committed at once, so a failure still leaves nothing half-written."""

    __slots__ = ("_batch", "_conn", "_failed", "_replacing", "_store", "rels")

    def __init__(self, store: Store) -> None:
        self._store = store
        self._conn = store.conn
        self._batch = PendingHeaders()
        self._replacing = False
        self._failed = False
        self.rels: list[str] = []  # every path given, for a caller whose save failed

    @classmethod
    def begin(cls, store: Store) -> StreamedSave | None:
        """The save, with the write lock taken; None when another writer holds it (the caller
        then keeps what it reads and tries once more at the end)."""
        save = cls(store)
        try:
            with briefly(save._conn):
                save._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error:
            return None
        try:
            save._drop_staged()
            for table, columns in _STAGED:
                save._conn.execute(f"CREATE TEMP TABLE kb_staged_{table} ({columns})")
            save._replacing = store.keywords.has_rows()
        except sqlite3.Error:
            save.abandon()
            return None
        return save

    def add(self, f: FileStat, h: FileHeader) -> None:
        """One header read: written with the next batch. A write that fails rolls the save
        back; the pass goes on reading, and `finish` says it was not saved."""
        self.rels.append(f.rel)
        if self._failed:
            return
        self._batch.add(f, h)
        if len(self._batch) >= STREAM_BATCH:
            try:
                self._write_batch()
            except sqlite3.Error:
                self.abandon()

    def finish(self) -> bool:
        """Write the last batch, copy the staged postings in order and commit; False (and
        nothing written) when any of it failed."""
        if self._failed:
            return False
        try:
            self._write_batch()
            # each distinct key word's trigrams, read back from the staged rows in order
            # (a set of the words seen was 4 MB of a 13,278-note base's peak)
            parts = self._conn.execute("SELECT DISTINCT part FROM temp.kb_staged_kw_parts")
            self._conn.executemany(
                "INSERT INTO temp.kb_staged_kw_trigrams VALUES (?,?)",
                ((tri, part) for (part,) in parts for tri in lookup_keys(part)),
            )
            for table, columns in _STAGED:
                self._conn.execute(
                    f"INSERT OR IGNORE INTO {table} ({columns}) "
                    f"SELECT {columns} FROM temp.kb_staged_{table} ORDER BY {columns}"
                )
            self._drop_staged()
            self._conn.execute("COMMIT")
            return True
        except sqlite3.Error:
            self.abandon()
            return False

    def abandon(self) -> None:
        """Roll everything back (the temp tables with it)."""
        self._failed = True
        self._batch = PendingHeaders()
        with contextlib.suppress(sqlite3.Error):
            self._conn.execute("ROLLBACK")
        with contextlib.suppress(sqlite3.Error):
            self._drop_staged()

    def _drop_staged(self) -> None:
        for table, _ in _STAGED:
            self._conn.execute(f"DROP TABLE IF EXISTS temp.kb_staged_{table}")

    def _write_batch(self) -> None:
        batch, conn = self._batch, self._conn
        if not batch:
            return
        if self._replacing:
            self._store.keywords.drop(batch.rels())
        conn.executemany(
            "INSERT OR REPLACE INTO headers VALUES (?,?,?,?,?,?,?,?,?,?,?)", batch.rows
        )
        postings = batch.postings
        staged = "INSERT INTO temp.kb_staged_{} VALUES ({})"
        conn.executemany(staged.format("kw_vocab", "?,?"), postings.vocab_rows())
        conn.executemany(staged.format("kw_second", "?,?"), postings.second_rows())
        conn.executemany(staged.format("kw_parts", "?,?,?"), postings.part_rows())
        self._batch = PendingHeaders()
