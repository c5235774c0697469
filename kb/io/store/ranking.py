"""Ranking one base's chunks for a question: FTS5's bm25 over the words the vocabulary
kept, best first, each ranked rowid named (base, path) and judged public or private through
the `chunk_spans` lookup, or through the joined query when a rowid has no span.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from kb.io.store.schema import SQL_VARIABLES

if TYPE_CHECKING:
    from kb.io.store.database import Store

# `--top 10**30` or an MCP `top` of 1e300 is a number, not an error, but SQLite's LIMIT holds
# a signed 64-bit integer and raises OverflowError past it: every limit is clamped to it.
SQL_LIMIT_MAX = 2**63 - 1
# Ranking alone: bm25 over the matching rows, no snippet or text. Snippets are computed only
# for the chunks of files the answer keeps (measured at 10,000 notes: 3.4 ms per base with
# snippets for 30 rows, 0.5 ms ranking alone).
RANK_SQL = """
SELECT chunks.rowid, chunks.base, chunks.path, bm25(chunks, 0.0, 0.0, 2.0, 1.0) AS score
FROM chunks
LEFT JOIN files f ON f.base = chunks.base AND f.path = chunks.path
WHERE chunks MATCH ?
  AND (? = 1 OR f.private = 0)
ORDER BY score
LIMIT ?
"""

RANK_ROWID_SQL = """
SELECT rowid, bm25(chunks, 0.0, 0.0, 2.0, 1.0) AS score
FROM chunks WHERE chunks MATCH ? ORDER BY score LIMIT ?
"""


def match_expression(words: Iterable[str]) -> str:
    """The FTS5 MATCH expression for any of `words`, each quoted as one phrase."""
    return " OR ".join(f'"{w}"' for w in words)


class SpanMap:
    """Chunk rowid -> (base, path, private), looked up in `chunk_spans` by its `first`
    index one ranked rowid at a time (loading every span cost each process a pass over all
    files: 58 ms at 10,000 notes), remembered for the connection's current data version."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._found: dict[int, tuple[str, str, bool] | None] = {}
        row = conn.execute("SELECT EXISTS (SELECT 1 FROM files WHERE private = 1)").fetchone()
        self.any_private = bool(row[0])

    def find_all(self, rowids: Sequence[int]) -> None:
        """Look up every rowid not yet known in one statement (one query per ranked rowid
        was 165 statements a question at 11 bases, about 5 ms); `find` then answers each."""
        wanted = [r for r in dict.fromkeys(rowids) if r not in self._found]
        for start in range(0, len(wanted), SQL_VARIABLES):
            part = wanted[start : start + SQL_VARIABLES]
            values = ",".join(["(?)"] * len(part))
            rows = self._conn.execute(
                f"WITH ranked(id) AS (VALUES {values}) "
                "SELECT ranked.id, s.base, s.path, f.private FROM ranked "
                "JOIN chunk_spans s ON s.rowid = ("
                "  SELECT s2.rowid FROM chunk_spans s2 "
                "  JOIN files f2 ON f2.base = s2.base AND f2.path = s2.path "
                "  WHERE s2.first <= ranked.id AND s2.last >= ranked.id "
                "  ORDER BY s2.first DESC LIMIT 1) "
                "JOIN files f ON f.base = s.base AND f.path = s.path",
                part,
            ).fetchall()
            for rowid in part:
                self._found[rowid] = None
            for rowid, base, path, private in rows:
                self._found[int(rowid)] = (str(base), str(path), bool(private))

    def find(self, rowid: int) -> tuple[str, str, bool] | None:
        if rowid in self._found:
            return self._found[rowid]
        # An empty file's span is (first, first - 1): `last >= rowid` passes over it.
        row = self._conn.execute(
            "SELECT s.base, s.path, f.private FROM chunk_spans s "
            "JOIN files f ON f.base = s.base AND f.path = s.path "
            "WHERE s.first <= ? AND s.last >= ? ORDER BY s.first DESC LIMIT 1",
            (rowid, rowid),
        ).fetchone()
        found = (str(row[0]), str(row[1]), bool(row[2])) if row is not None else None
        self._found[rowid] = found
        return found


class Ranking:
    """One base's ranking, with the span lookup of the connection's present `data_version`."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._span_map: SpanMap | None = None
        self._span_version = -1

    def reconnected(self) -> None:
        """The store's connection was opened again: `data_version` counts per connection, so
        a span map read through the old one is renewed, never compared with the new count."""
        self._span_map = None

    def rank(
        self, terms: Sequence[str], limit: int, include_private: bool
    ) -> tuple[str, list[tuple[int, str, str]]]:
        """The MATCH expression and the best (rowid, base, path) rows, best first."""
        if not terms or limit <= 0:
            return "", []
        warm = self._store.warm
        if warm is not None:
            kept, best = warm.rank(terms, min(limit, SQL_LIMIT_MAX), include_private)
            return match_expression(kept), best
        expr = match_expression(self._store.vocabulary.prune(list(dict.fromkeys(terms))))
        limit = min(limit, SQL_LIMIT_MAX)
        try:
            spans = self.span_map()
            if spans is not None:
                ranked = self.rank_by_rowid(expr, limit, include_private, spans)
                if ranked is not None:
                    return expr, ranked
            rows = self._store.conn.execute(
                RANK_SQL, (expr, int(include_private), limit)
            ).fetchall()
        except sqlite3.Error:
            return expr, []  # one base's failure never sinks the question
        return expr, [(r[0], r[1], r[2]) for r in rows]

    def span_map(self) -> SpanMap | None:
        """The rowid -> file lookup, renewed whenever another connection has committed since
        (`PRAGMA data_version`), so a long-lived server never maps a reused rowid to the
        wrong file or the wrong privacy. A ranked rowid without a span (an index written
        before spans existed) makes the ranking fall back to the joined query."""
        version = int(self._store.conn.execute("PRAGMA data_version").fetchone()[0])
        if self._span_map is not None and self._span_version == version:
            return self._span_map
        self._span_map, self._span_version = SpanMap(self._store.conn), version
        return self._span_map

    def rank_by_rowid(
        self, expr: str, limit: int, include_private: bool, spans: SpanMap
    ) -> list[tuple[int, str, str]] | None:
        """Rank rowids alone (bm25 without reading base/path or joining `files` for every
        matching row: 22 against 67 ms per question at 10,000 notes), then name and filter
        the best through the span map. Private chunks are dropped after ranking, so when
        some are private the window widens until `limit` public rows are found or the
        matches run out: the result is the same as filtering first. None if a rowid has no
        span (the index changed under us): the caller then asks the joined query."""
        window = limit if include_private or not spans.any_private else limit * 2
        window = min(window, SQL_LIMIT_MAX)  # `--top 10**30` is a number, not an overflow
        while True:
            rows = self._store.conn.execute(RANK_ROWID_SQL, (expr, window)).fetchall()
            spans.find_all([rowid for rowid, _ in rows])
            out: list[tuple[int, str, str]] = []
            for rowid, _ in rows:
                found = spans.find(rowid)
                if found is None:
                    return None
                base, path, private = found
                if private and not include_private:
                    continue
                out.append((rowid, base, path))
                if len(out) == limit:
                    return out
            if len(rows) < window or window >= SQL_LIMIT_MAX:
                return out
            window = min(window * 4, SQL_LIMIT_MAX)
