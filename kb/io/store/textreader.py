"""Reading what one base's text index stores, for an answer: the hash each file was indexed
from, the stored word counts and texts of ranked chunks, the summed counts of their pages,
excerpts, and a file's opening chunk. Answered from the warm copy where it holds the same.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from kb.io.store.schema import SQL_VARIABLES
from kb.pure.answering.textrank import Counts, PageWords, page_counts, page_words
from kb.pure.notes.tokens import words

if TYPE_CHECKING:
    from kb.io.store.database import Store

# Pages whose joined word lists a store keeps for page-level scoring: a long page of the
# pydocs corpus is about 40 KB of words, so at most ~10 MB a base.
PAGES_KEPT = 256
SNIPPET_TOKENS = 14
# One chunk's excerpt and facts. Asked chunk by chunk: with `rowid IN (...)` FTS5 reads the
# expression's every match and keeps the listed ones, while `rowid = ?` seeks each word's
# postings to that chunk. Measured per answer's call (same rows): 0.283 -> 0.144 ms at
# 100,000 generated notes, 0.137 -> 0.090 at 10,000, 0.099 -> 0.079 on til-dev.
DETAIL_SQL = """
SELECT chunks.rowid, chunks.heading_path, snippet(chunks, 3, '', '', ' ... ', 14),
       chunks.text, f.provenance, f.stage, f.captured_from
FROM chunks
LEFT JOIN files f ON f.base = chunks.base AND f.path = chunks.path
WHERE chunks MATCH ? AND chunks.rowid = ?
"""


class TextReader:
    """One base's stored chunks and pages, with recent pages' word lists kept for the
    vocabulary's present `data_version`."""

    def __init__(self, store: Store) -> None:
        self._store = store
        # How many files the text index holds, read at `_page_version`
        self._page_total: int | None = None
        self._page_version = -2
        # recent pages' word lists (`_page_words`), at `_pages_version`
        self._pages: OrderedDict[tuple[int, int], PageWords] = OrderedDict()
        self._pages_version = -2

    def indexed_paths(self) -> set[str]:
        return set(self.indexed_hashes())

    def indexed_hash(self, path: str) -> str | None:
        """The content hash the text index holds for this file, or None. The last row
        written wins, as in `indexed_hashes`: a renamed base can still hold rows under its
        old name. The rows are keyed (base, path), so a lookup by path alone read every row:
        0.55 ms a file in a base of 13,277 files, five files an answer. Each base name the
        index holds is found by a seek instead (one, almost always), and its row by its key:
        0.013 ms."""
        conn = self._store.conn
        best: tuple[int, str] | None = None
        name = conn.execute("SELECT min(base) FROM files").fetchone()[0]
        while name is not None:
            row = conn.execute(
                "SELECT rowid, hash FROM files WHERE base = ? AND path = ?", (name, path)
            ).fetchone()
            if row is not None and (best is None or row[0] > best[0]):
                best = (int(row[0]), str(row[1]))
            name = conn.execute("SELECT min(base) FROM files WHERE base > ?", (name,)).fetchone()[0]
        return None if best is None else best[1]

    def indexed_hashes(self) -> dict[str, str]:
        """path -> the content hash the text index was built from."""
        return dict(self._store.conn.execute("SELECT path, hash FROM files").fetchall())

    def page_counts(
        self, base: str, paths: Iterable[str], forms: Iterable[str]
    ) -> dict[str, Counts]:
        """For each of `paths` the index holds in more than one chunk: how often each of
        `forms` occurs in its chunks' heading paths and texts, summed over the chunks, and
        their length in words (`textrank.page_score` scores the page as one document). A
        path held in one chunk is left out: its page is its chunk."""
        warm = self._store.warm
        if warm is not None:
            return warm.page_counts(base, paths, forms)
        out: dict[str, Counts] = {}
        wanted = sorted(set(paths))
        asked = sorted(set(forms))
        try:
            for start in range(0, len(wanted), SQL_VARIABLES):
                part = wanted[start : start + SQL_VARIABLES]
                marks = ",".join("?" * len(part))
                spans = self._store.conn.execute(
                    "SELECT path, first, last FROM chunk_spans "
                    f"WHERE base = ? AND path IN ({marks}) AND last > first",
                    (base, *part),
                ).fetchall()
                for path, first, last in spans:
                    out[str(path)] = page_counts(self._page_words(int(first), int(last)), asked)
        except (sqlite3.Error, ValueError, TypeError):
            return {}
        return out

    def _page_words(self, first: int, last: int) -> PageWords:
        """The stored word lists of chunks `first`..`last` (one file's), joined for counting
        (`textrank.page_words`): remembered for the connection's data version, since a
        server asks many questions of the same pages."""
        if self._pages_version != self._store.vocabulary.version:
            self._pages.clear()
            self._pages_version = self._store.vocabulary.version
        found = self._pages.get((first, last))
        if found is not None:
            self._pages.move_to_end((first, last))
            return found
        rows = self._store.conn.execute(
            "SELECT counts FROM chunk_counts WHERE rowid BETWEEN ? AND ?", (first, last)
        )
        found = page_words(_stored_words(str(stored)) for (stored,) in rows)
        self._pages[(first, last)] = found
        if len(self._pages) > PAGES_KEPT:
            self._pages.popitem(last=False)
        return found

    def page_total(self) -> int:
        """How many files the text index holds (the page count of page-level BM25)."""
        warm = self._store.warm
        if warm is not None:
            return warm.pages
        if self._page_total is None or self._page_version != self._store.vocabulary.version:
            try:
                row = self._store.conn.execute("SELECT COUNT(*) FROM chunk_spans").fetchone()
                self._page_total = int(row[0])
            except sqlite3.Error:
                self._page_total = 0
            self._page_version = self._store.vocabulary.version
        return self._page_total

    def chunk_counts(
        self, rowids: Sequence[int], forms: Iterable[str] | None = None
    ) -> dict[int, tuple[str, Counts]]:
        """rowid -> (heading_path, word counts) for the chunks whose counts the index holds
        (an index written before `chunk_counts` holds none: `chunk_texts` then). Given
        `forms`, a warm store counts only those words (all that scoring reads)."""
        warm = self._store.warm
        if warm is not None and forms is not None:
            return warm.chunk_counts(rowids, forms)
        out: dict[int, tuple[str, Counts]] = {}
        wanted = list(rowids)
        try:
            for start in range(0, len(wanted), SQL_VARIABLES):
                part = wanted[start : start + SQL_VARIABLES]
                marks = ",".join("?" * len(part))
                for rowid, heading, counts in self._store.conn.execute(
                    "SELECT k.rowid, c.heading_path, k.counts FROM chunk_counts k "
                    f"JOIN chunks c ON c.rowid = k.rowid WHERE k.rowid IN ({marks})",
                    part,
                ):
                    out[int(rowid)] = (str(heading or ""), counts_from(counts))
        except (sqlite3.Error, ValueError, TypeError):
            return {}
        return out

    def chunk_texts(self, rowids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """rowid -> (heading_path, text), for scoring candidates again."""
        out: dict[int, tuple[str, str]] = {}
        wanted = list(rowids)
        try:
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                marks = ",".join("?" * len(part))
                for rowid, heading, text in self._store.conn.execute(
                    f"SELECT rowid, heading_path, text FROM chunks WHERE rowid IN ({marks})", part
                ):
                    out[int(rowid)] = (str(heading or ""), str(text or ""))
        except sqlite3.Error:
            return {}
        return out

    def opening_chunks(
        self, base: str, paths: Sequence[str]
    ) -> dict[str, tuple[str, str, str | None, str | None]]:
        """path -> (heading_path, text, provenance, stage) of each file's first chunk: the
        passage of a file found by its keys alone (no chunk of it matched the question)."""
        out: dict[str, tuple[str, str, str | None, str | None]] = {}
        wanted = sorted(set(paths))
        try:
            for start in range(0, len(wanted), SQL_VARIABLES):
                part = wanted[start : start + SQL_VARIABLES]
                marks = ",".join("?" * len(part))
                for path, heading, text, provenance, stage in self._store.conn.execute(
                    # A file indexed with no chunk has the span (n, n - 1), whose `first`
                    # is the next file's first chunk: the chunk must be the file's own.
                    "SELECT s.path, c.heading_path, c.text, f.provenance, f.stage "
                    "FROM chunk_spans s JOIN chunks c ON c.rowid = s.first "
                    "AND c.base = s.base AND c.path = s.path "
                    "LEFT JOIN files f ON f.base = s.base AND f.path = s.path "
                    f"WHERE s.base = ? AND s.path IN ({marks}) AND s.last >= s.first",
                    (base, *part),
                ):
                    out[str(path)] = (str(heading or ""), str(text or ""), provenance, stage)
        except sqlite3.Error:
            return {}
        return out

    def details(
        self, expr: str, rowids: Sequence[int]
    ) -> dict[int, tuple[str, str, str, str | None, str | None, str | None]]:
        """rowid -> (heading_path, excerpt, text, provenance, stage, captured_from)."""
        conn = self._store.conn
        out: dict[int, tuple[str, str, str, str | None, str | None, str | None]] = {}
        try:
            for rowid in dict.fromkeys(rowids):
                for r in conn.execute(DETAIL_SQL, (expr, rowid)):
                    out[r[0]] = (r[1], r[2], r[3], r[4], r[5], r[6])
        except sqlite3.Error:
            return {}
        return out


def counts_text(heading_path: str, text: str) -> str:
    """A chunk's word counts as `chunk_counts` stores them: the heading path's words, a
    line break, the text's words, each list joined by single spaces, in text order (a word
    is a run of alphanumerics, so it holds no white space). `counts_from` gives back exactly
    `textrank.counts_of`; storing the words rather than counted JSON spares a cold index
    the counting and the encoding (3.9 of 26 s at 10,000 notes)."""
    return " ".join(words(heading_path)) + "\n" + " ".join(words(text))


def _stored_words(stored: str) -> tuple[str, str]:
    """A `chunk_counts` row's (heading words, text words), each joined by single spaces (the
    JSON form an older index holds is read into that shape)."""
    if stored.startswith("["):
        head, body, _ = json.loads(stored)
        return (
            " ".join(w for w, n in head.items() for _ in range(n)),
            " ".join(w for w, n in body.items() for _ in range(n)),
        )
    heading, _, text = stored.partition("\n")
    return heading, text


def counts_from(stored: str) -> Counts:
    """`textrank.counts_of` of a chunk, from its `chunk_counts` row (either this encoding or
    the JSON `[heading, body, length]` an index written before it holds)."""
    if stored.startswith("["):
        head, body, length = json.loads(stored)
        return head, body, int(length)
    heading, _, text = stored.partition("\n")
    head_words = heading.split()
    body_words = text.split()
    return Counter(head_words), Counter(body_words), len(head_words) + len(body_words)
