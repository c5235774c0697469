"""What the text index's vocabulary says of words: each question word's stem class (the
indexed words sharing its stem, with their chunk frequencies), which terms it holds, whether
a MATCH can find nothing, which common terms a ranking leaves out, and the base's calibration.
Read from FTS5's own bookkeeping (its averages and structure records, a `fts5vocab` view)
and from the `text_words` and `calibration` tables kb keeps beside it.
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kb.io.store.schema import SQL_VARIABLES, briefly
from kb.pure.answering.calibration import (
    Calibration,
    everyday_words,
    title_sample,
    title_words_known,
)
from kb.pure.answering.textrank import TextStats
from kb.pure.notes.tokens import question_terms, stem

if TYPE_CHECKING:
    from kb.io.store.database import Store

PRUNE_MIN_CHUNKS = 10_000  # below this, a common term costs little (ADR-0033 measured 57k)
# A stem's variants are found by scanning the vocabulary from the stem as a prefix; a short
# stem (`get`) prefixes many unrelated words, so the scan and the class are bounded.
STEM_SCAN_MAX = 2000
STEM_CLASS_MAX = 16
# A question's words are stemmed once per base it is asked of, twice (11 bases, about 35
# calls a question): the stems of recent question words are kept. Pure, so never stale.
_question_stem = functools.lru_cache(maxsize=4096)(stem)

# FTS5 keeps its structure record (the segments and a counter of segments written, so every
# write changes it) in the `_data` table under this id (fts5Int.h: FTS5_STRUCTURE_ROWID)
FTS5_STRUCTURE_ID = 10

# `calibration` is what the verdict's `nothing` line is measured with on this base
# (`kb.pure.answering.calibration`): how many sampled title words another note also holds, and which
# of the everyday questions' words the vocabulary holds, under the FTS5 structure record it
# was read at and the everyday word list it was read for (a kb with other everyday
# questions reads it again). Computed on first need after each change of the text index
# (about 20 ms on a 2,000-note base) and saved when the index can be written.

# `text_words` is every word of the text index (FTS5's vocabulary) under its stem, and
# `text_words_stamp` the FTS5 structure record it was read at (issue 15). A question must
# know each of its words' stem class (the indexed words sharing its stem, and their chunk
# counts); finding it scans the FTS5 vocabulary from the stem as a prefix, and opening that
# scan costs about 50 us per word per base even when nothing is there: most of a refused
# question. While the structure record is the one stamped (every write to the text index
# flushes a new segment, which changes it), a stem with no row here has an empty class, with
# no scan; a stem with rows is still scanned for its counts. Written by `kb index` after its
# sync, in a transaction of its own; a stale or missing stamp means every stem is scanned,
# as before.


class Vocabulary:
    """One base's text vocabulary, and what was read of it at the connection's present
    `data_version` (stem classes, chunk frequencies, FTS5's averages)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._df_cache: dict[str, int] = {}
        self._chunk_count: int | None = None
        self._vocab_ready = False
        self._stem_cache: dict[str, list[tuple[str, int]]] = {}
        # Stems whose prefix scan read the vocabulary's whole range (fewer rows than
        # STEM_SCAN_MAX): for them an empty class proves no word with that stem is indexed.
        self._stem_complete: set[str] = set()
        # The `data_version` the stem scans and document counts were read at: another
        # process's commit (a `kb index` while a library caller holds this store) empties them.
        self.version = -1
        # Whether `text_words` may be trusted at `version` (None: not yet asked)
        self._words_trusted: bool | None = None
        # (chunks, tokens) from FTS5's averages record, read once per `version`
        self._averages: tuple[int, int] | None = None

    def reconnected(self) -> None:
        """The store's connection was opened again: the temp schema went with the old one,
        and `data_version` is counted per connection."""
        self._vocab_ready = False
        self.version = -1

    def written(self) -> None:
        """This connection wrote the text index: its own writes do not move its
        `data_version`, so what the vocabulary said is read again by the next question."""
        self._df_cache.clear()
        self._chunk_count = None
        self.version = -1

    def text_stats(self, terms: Sequence[str]) -> tuple[TextStats, dict[str, tuple[str, ...]]]:
        """This index's chunk count, token count and, per question word, the chunk
        frequency of its stem class, with the indexed words in that class (`commit` ->
        commit, commits, committed): the fleet-wide scale of `kb.pure.answering.textrank` and the
        words the MATCH expression asks for. Read from FTS5's own bookkeeping: the averages
        record and a `fts5vocab` view in the temp schema (so a read-only index serves too),
        scanned by each stem as a prefix. Never raises: an index it cannot read counts as
        empty and offers only the words themselves."""
        warm = self._store.warm
        if warm is not None:
            return warm.stats(terms)
        variants: dict[str, tuple[str, ...]] = {t: (t,) for t in terms}
        try:
            version = int(self._store.conn.execute("PRAGMA data_version").fetchone()[0])
            if version != self.version:
                self._stem_cache.clear()
                self._stem_complete.clear()
                self._df_cache.clear()
                self._chunk_count = None
                self._words_trusted = None
                self._averages = None
                self.version = version
            if self._averages is None:
                self._averages = averages_of(self._store.conn)
            chunks, tokens = self._averages
            roots = {t: _question_stem(t) for t in terms}
            self._note_empty_classes(set(roots.values()))
            df: list[tuple[str, int]] = []
            for term, root in roots.items():
                found = self._stem_class(root)
                words = tuple(w for w, _ in found) or (term,)
                variants[term] = words if term in words else (term, *words)
                df.append((term, sum(d for _, d in found)))
        except (sqlite3.Error, IndexError, TypeError):
            return TextStats(0, 0, ()), variants
        return TextStats(chunks, tokens, tuple(df)), variants

    def _stem_class(self, root: str) -> list[tuple[str, int]]:
        """Every indexed word whose stem is `root`, with its chunk frequency, capped at
        `STEM_CLASS_MAX` words (a prefix scan of the vocabulary, cached per process)."""
        cached = self._stem_cache.get(root)
        if cached is not None:
            return cached
        self._vocab_view()
        upper = root[:-1] + chr(ord(root[-1]) + 1) if root else ""
        rows = self._store.conn.execute(
            "SELECT term, doc FROM temp.kb_vocab WHERE term >= ? AND term < ? LIMIT ?",
            (root, upper, STEM_SCAN_MAX),
        ).fetchall()
        found = [(str(t), int(d)) for t, d in rows if stem(str(t)) == root][:STEM_CLASS_MAX]
        self._stem_cache[root] = found
        if len(rows) < STEM_SCAN_MAX:
            self._stem_complete.add(root)
        return found

    def _note_empty_classes(self, roots: set[str]) -> None:
        """Record as empty and complete, without a scan, the stem classes `text_words`
        proves empty (it holds every indexed word while its stamp is current)."""
        wanted = sorted(r for r in roots if r not in self._stem_cache)
        # through the Store, where tests stand in for `text_words_current`
        if not wanted or len(wanted) > SQL_VARIABLES or not self._store._text_words_current():
            return
        marks = ",".join("?" * len(wanted))
        held = {
            str(r[0])
            for r in self._store.conn.execute(
                f"SELECT DISTINCT stem FROM text_words WHERE stem IN ({marks})", wanted
            )
        }
        for root in wanted:
            if root not in held:
                self._stem_cache[root] = []
                self._stem_complete.add(root)

    def text_words_current(self) -> bool:
        """Whether `text_words` was read at the text index's present structure record."""
        if self._words_trusted is None:
            try:
                kept = self._words_stamp()
                self._words_trusted = kept is not None and kept == self._structure()
            except sqlite3.Error:  # an index without the table (another kb's): scan
                self._words_trusted = False
        return self._words_trusted

    def _vocab_view(self) -> None:
        """The `fts5vocab` view of the text index, in the temp schema (so a read-only index
        serves too), made once per connection."""
        if not self._vocab_ready:
            self._store.conn.execute(VOCAB_VIEW_SQL)
            self._vocab_ready = True

    def _words_stamp(self) -> bytes | None:
        row = self._store.conn.execute(
            "SELECT structure FROM text_words_stamp WHERE id = 1"
        ).fetchone()
        return bytes(row[0]) if row is not None else None

    def _structure(self) -> bytes:
        return structure_of(self._store.conn)

    def refresh_text_words(self) -> bool:
        """Bring `text_words` in line with the text index's vocabulary and stamp it, unless
        it already is; in one transaction of its own, so the structure record cannot change
        between the reading and the stamp. False when the index was busy or could not be
        written: questions then scan each stem, as before the table existed."""
        conn = self._store.conn
        try:
            with briefly(conn):
                self._refresh_text_words(conn)
        except sqlite3.Error:
            return False
        self._words_trusted = None
        return True

    def _refresh_text_words(self, conn: sqlite3.Connection) -> None:
        """`refresh_text_words`' transaction: rolled back whole on any failure."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            structure = self._structure()
            if self._words_stamp() != structure:
                self._vocab_view()
                now = {str(t) for (t,) in conn.execute("SELECT term FROM temp.kb_vocab")}
                had = {str(w) for (w,) in conn.execute("SELECT word FROM text_words")}
                conn.executemany(
                    "DELETE FROM text_words WHERE stem = ? AND word = ?",
                    ((stem(w), w) for w in sorted(had - now)),
                )
                conn.executemany(
                    "INSERT INTO text_words VALUES (?, ?)",
                    ((stem(w), w) for w in sorted(now - had)),
                )
                conn.execute("INSERT OR REPLACE INTO text_words_stamp VALUES (1, ?)", (structure,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def known_words(self, terms: Sequence[str]) -> set[str]:
        """The terms the text index holds as exact words (not only by stem), read from the
        stem classes `text_stats` found for them; a word that could lie past a class's cap
        or a scan's bound is looked up itself. Call after `text_stats` of the same terms."""
        warm = self._store.warm
        if warm is not None:
            return warm.known_words(terms)
        known: set[str] = set()
        try:
            for term in terms:
                root = _question_stem(term)
                found = self._stem_cache.get(root)
                if found is not None and any(w == term for w, _ in found):
                    known.add(term)
                elif found is None or (
                    len(found) >= STEM_CLASS_MAX or root not in self._stem_complete
                ):
                    self._vocab_view()
                    row = self._store.conn.execute(
                        "SELECT 1 FROM temp.kb_vocab WHERE term = ?", (term,)
                    ).fetchone()
                    if row is not None:
                        known.add(term)
        except sqlite3.Error:
            return known
        return known

    def holds_none(self, terms: Sequence[str]) -> bool:
        """Whether the stem classes `text_stats` found prove that no chunk holds any of
        these words or their variants, so a MATCH of them returns nothing and need not run
        (a refused question costs one ranking query per base otherwise: 1.3 ms of it at
        10,000 notes, in 11 bases). Proof needs each word to be plain ASCII letters and digits (the
        tokenizer then reads the quoted word as exactly that one token) and its stem's
        class to be known empty and complete: a scan that covered the whole prefix range
        (a stem is a prefix of its word, so the word lies in that range) and found no word
        of the class, or a current `text_words` with no row for the stem. False when in
        doubt: the query then runs."""
        warm = self._store.warm
        if warm is not None:
            return warm.holds_none(terms)
        for term in terms:
            if not (term.isascii() and term.isalnum() and term == term.lower()):
                return False
            root = _question_stem(term)
            if self._stem_cache.get(root) != [] or root not in self._stem_complete:
                return False
        return bool(terms)

    def chunk_count(self) -> int:
        """How many chunks the index holds, from FTS5's averages record (its first number);
        `COUNT(*)` read every chunk: 144 ms a process at 10,000 notes."""
        if self._chunk_count is None:
            try:
                self._chunk_count = averages_of(self._store.conn)[0]
            except sqlite3.Error:
                self._chunk_count = int(
                    self._store.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
                )
        return self._chunk_count

    def prune(self, terms: Sequence[str]) -> list[str]:
        """The terms worth a MATCH: in an index of `PRUNE_MIN_CHUNKS` chunks or more, a term
        held by more than a quarter of them is left out (unless every term is)."""
        total = self.chunk_count()
        if total < PRUNE_MIN_CHUNKS:
            return list(terms)
        ceiling = total // 4
        kept: list[str] = []
        for term in terms:
            df = self._df_cache.get(term)
            if df is None:
                try:
                    df = int(
                        self._store.conn.execute(
                            "SELECT COUNT(*) FROM chunks WHERE chunks MATCH ?", (f'"{term}"',)
                        ).fetchone()[0]
                    )
                except sqlite3.Error:
                    continue
                self._df_cache[term] = df
            if df <= ceiling:
                kept.append(term)
        return kept or list(terms)

    def calibration(self) -> Calibration:
        """What this base's vocabulary says of on-topic and everyday questions
        (`kb.pure.answering.calibration`), read from the saved row while the text index and the
        everyday word list are the ones it was measured at, else measured now and saved
        when the index can be written. Never raises: an unreadable index knows nothing."""
        everyday = everyday_words()
        wanted = " ".join(everyday)
        try:
            structure = self._structure()
            row = self._store.conn.execute(
                "SELECT structure, everyday, title_known, title_words, known "
                "FROM calibration WHERE id = 1"
            ).fetchone()
            if row is not None and bytes(row[0]) == structure and row[1] == wanted:
                return Calibration(int(row[2]), int(row[3]), frozenset(str(row[4]).split()))
            found = self._measure_calibration(everyday)
        except sqlite3.Error:
            return Calibration(0, 0, frozenset())
        with contextlib.suppress(sqlite3.Error), briefly(self._store.conn):
            self._store.conn.execute(
                "INSERT OR REPLACE INTO calibration VALUES (1, ?, ?, ?, ?, ?)",
                (
                    structure,
                    wanted,
                    found.title_known,
                    found.title_words,
                    " ".join(sorted(found.everyday_known)),
                ),
            )
        return found

    def _measure_calibration(self, everyday: Sequence[str]) -> Calibration:
        self._vocab_view()
        known = {
            w
            for w in everyday
            if self._store.conn.execute(
                "SELECT 1 FROM temp.kb_vocab WHERE term = ?", (w,)
            ).fetchone()
        }
        # A file indexed with no chunk has the span (n, n - 1): it has no title to sample,
        # and its `first` is the next file's chunk.
        spans = {
            str(path): (int(first), int(last))
            for path, first, last in self._store.conn.execute(
                "SELECT path, first, last FROM chunk_spans WHERE last >= first"
            )
        }
        titles: list[tuple[str, int]] = []
        for path in title_sample(list(spans)):
            first, last = spans[path]
            row = self._store.conn.execute(
                "SELECT heading_path FROM chunks WHERE rowid = ? AND path = ?", (first, path)
            ).fetchone()
            if row is not None and row[0]:
                titles.append((str(row[0]).split(" > ", 1)[0], last - first + 1))
        wanted = sorted({w for title, _ in titles for w in question_terms(title)})
        df: dict[str, int] = {}
        for w in wanted:
            row = self._store.conn.execute(
                "SELECT doc FROM temp.kb_vocab WHERE term = ?", (w,)
            ).fetchone()
            if row is not None:
                df[w] = int(row[0])
        title_known = title_count = 0
        for title, chunks in titles:
            k, n = title_words_known(title, chunks, df)
            title_known += k
            title_count += n
        return Calibration(title_known, title_count, frozenset(known))


VOCAB_VIEW_SQL = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.kb_vocab USING fts5vocab(main, chunks, 'row')"
)


def structure_of(conn: sqlite3.Connection) -> bytes:
    """FTS5's structure record: its segments and a counter of segments written, so every
    write of the text index changes it."""
    row = conn.execute(f"SELECT block FROM chunks_data WHERE id = {FTS5_STRUCTURE_ID}")
    found = row.fetchone()
    return bytes(found[0]) if found else b""


def averages_of(conn: sqlite3.Connection) -> tuple[int, int]:
    """(chunks, tokens in every chunk) from FTS5's averages record: `COUNT(*)` read every
    chunk (144 ms a process at 10,000 notes)."""
    row = conn.execute("SELECT block FROM chunks_data WHERE id = 1").fetchone()
    counts = _varints(bytes(row[0])) if row else []
    return (counts[0], sum(counts[1:])) if counts else (0, 0)


def _varints(data: bytes) -> list[int]:
    """SQLite's big-endian varints (7 bits a byte, the ninth byte whole), as FTS5 writes its
    averages record: the row count, then each column's token total."""
    out: list[int] = []
    i = 0
    while i < len(data):
        value = 0
        for j in range(9):
            byte = data[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out
