"""The keyword postings (issue 15): what the keyword scorer and the spelling suggestions need,
kept beside the header cache and written in the same transaction, so a process answering
one question reads the rows of its own words instead of decoding every header.
- `kw_vocab`: each keyed file's vocabulary (key bag, title, stem and purpose words); a
  word's rows are its postings, and their count in scope its document frequency.
- `kw_second`: the second word of each several-word key (a phrase inside a question starts
  its second word at a question word, so the question's prefixes find every such phrase).
- `kw_parts` and `kw_trigrams`: each key's words, and each word's trigrams (and, for a
  word of 5 or 6 letters, its deletion neighbourhood marked `~`), for the suggestions a
  refusal offers. A trigram row is never deleted: a word no file holds any
  more finds no `kw_parts` row, and the vocabulary only grows as fast as its words.
Every row names its path; the caller keeps a row only when its path is an entry this open
found in scope, so a deleted, renamed, newly private or no longer keyed file is never
counted, whatever rows it left behind.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from kb.io.store.fileheader import _decode, _sets
from kb.io.store.pending import PostingRows
from kb.io.store.schema import SQL_VARIABLES
from kb.pure.answering.keyword import postings_words
from kb.pure.answering.suggest import SUGGEST_FLOOR, WordBound

if TYPE_CHECKING:
    from kb.io.store.database import Store


class KeywordPostings:
    """The `kw_*` tables of one base's index: written with the header cache, read by the
    keyword scorer and the suggestions."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def write(self, rows: PostingRows) -> None:
        """Insert `rows`, inside the header cache's write transaction, in key order (a B-tree
        filled in order splits no page twice)."""
        conn = self._store.conn
        conn.executemany("INSERT OR IGNORE INTO kw_vocab VALUES (?,?)", rows.vocab_rows())
        conn.executemany("INSERT OR IGNORE INTO kw_second VALUES (?,?)", rows.second_rows())
        conn.executemany("INSERT OR IGNORE INTO kw_parts VALUES (?,?,?)", rows.part_rows())
        conn.executemany("INSERT OR IGNORE INTO kw_trigrams VALUES (?,?)", rows.trigram_rows())

    def drop(self, rels: Sequence[str]) -> None:
        """Delete the postings rows of these files, by primary key: the rows a file has are
        exactly what its cached header's keys and tokens give (both are written in one
        transaction), so no index on `path` is kept (three of them tripled a cold index's
        writes). A row whose cache entry cannot be decoded is deleted by a scan."""
        vocab: list[tuple[str, str]] = []
        second: list[tuple[str, str]] = []
        parts: list[tuple[str, str, str]] = []
        scan: list[tuple[str]] = []
        for i in range(0, len(rels), SQL_VARIABLES):
            part = list(rels[i : i + SQL_VARIABLES])
            marks = ",".join("?" * len(part))
            for rel, parsed, tokens in self._store.conn.execute(
                f"SELECT path, parsed, tokens FROM headers WHERE path IN ({marks})", part
            ):
                if tokens is None:
                    continue  # a file without keys wrote no postings
                decoded = _decode(parsed)
                sets = _sets(decoded[0], tokens) if decoded is not None else None
                if sets is None or decoded is None:
                    scan.append((rel,))
                    continue
                words = postings_words(decoded[0], sets)
                vocab += [(w, rel) for w in words.vocabulary]
                second += [(w, rel) for w in words.second]
                parts += [(p, k, rel) for p, k in words.parts]
        self._store.conn.executemany("DELETE FROM kw_vocab WHERE word = ? AND path = ?", vocab)
        self._store.conn.executemany("DELETE FROM kw_second WHERE word = ? AND path = ?", second)
        self._store.conn.executemany(
            "DELETE FROM kw_parts WHERE part = ? AND key = ? AND path = ?", parts
        )
        for table in ("kw_vocab", "kw_second", "kw_parts"):
            self._store.conn.executemany(f"DELETE FROM {table} WHERE path = ?", scan)

    def has_rows(self) -> bool:
        """Whether any file has postings rows yet (a cold cache has none: its deletes are
        skipped)."""
        return self._store.conn.execute("SELECT 1 FROM kw_vocab LIMIT 1").fetchone() is not None

    # -- read by a question ----------------------------------------------------------

    def vocabulary_rows(self, words: Iterable[str]) -> list[tuple[str, str]]:
        """(word, path) for every file whose vocabulary holds one of `words`."""
        return self._rows("SELECT word, path FROM kw_vocab WHERE word IN ({})", words)

    def phrase_rows(self, second_words: Iterable[str]) -> list[tuple[str, str]]:
        """(word, path) for every file with a several-word key whose second word is one of
        `second_words`."""
        return self._rows("SELECT word, path FROM kw_second WHERE word IN ({})", second_words)

    def candidate_rows(
        self, words: Iterable[str], second_words: Iterable[str]
    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """`vocabulary_rows(words)` and `phrase_rows(second_words)` in one statement: a
        question asks both of every base, and for a refusal the statement itself is most of
        the cost (22 of a question's executes at 11 bases)."""
        vocab, seconds = sorted(set(words)), sorted(set(second_words))
        if not vocab or not seconds or len(vocab) + len(seconds) > SQL_VARIABLES:
            return self.vocabulary_rows(vocab), self.phrase_rows(seconds)
        rows = self._store.conn.execute(
            f"SELECT 0, word, path FROM kw_vocab WHERE word IN ({','.join('?' * len(vocab))}) "
            "UNION ALL "
            f"SELECT 1, word, path FROM kw_second WHERE word IN ({','.join('?' * len(seconds))})",
            [*vocab, *seconds],
        ).fetchall()
        return [(w, p) for k, w, p in rows if not k], [(w, p) for k, w, p in rows if k]

    def parts_sharing(self, tris: Iterable[str]) -> list[tuple[str, str]]:
        """(trigram, key word) for every key word that has one of the trigrams."""
        return self._rows("SELECT tri, part FROM kw_trigrams WHERE tri IN ({})", tris)

    def parts_within(self, bound: WordBound) -> list[str]:
        """The key words that share a lookup with one question word and meet its bound
        (kb.pure.answering.suggest.within_bound, applied here so the index hands back a few hundred
        words rather than every word that shares a common trigram)."""
        lookups, tris = bound.lookups, bound.trigrams
        if not lookups or len(lookups) + len(tris) > SQL_VARIABLES:
            return sorted({part for _, part in self.parts_sharing(lookups)})
        low, high = bound.typo_lengths
        rows = self._store.conn.execute(
            f"SELECT part FROM kw_trigrams WHERE tri IN ({','.join('?' * len(lookups))}) "
            "GROUP BY part HAVING "
            f"2.0 * (sum(tri IN ({','.join('?' * len(tris))})) + ?) "
            ">= ? * (? + max(1, length(part) - 2)) OR (length(part) BETWEEN ? AND ? "
            "AND (substr(part, 1, 2) = ? OR substr(part, -2) = ?))",
            [
                *lookups,
                *tris,
                bound.count - len(tris),
                SUGGEST_FLOOR,
                bound.count,
                low,
                high,
                bound.ends[0],
                bound.ends[1],
            ],
        ).fetchall()
        return [part for (part,) in rows]

    def keys_with(self, parts: Iterable[str]) -> list[tuple[str, str, str]]:
        """(key word, key, path) for every key holding one of these words."""
        return self._rows("SELECT part, key, path FROM kw_parts WHERE part IN ({})", parts)

    def _rows(self, sql: str, values: Iterable[str]) -> list[Any]:
        unique = sorted(set(values))
        out: list[Any] = []
        for i in range(0, len(unique), SQL_VARIABLES):
            part = unique[i : i + SQL_VARIABLES]
            out += self._store.conn.execute(sql.format(",".join("?" * len(part))), part).fetchall()
        return out
