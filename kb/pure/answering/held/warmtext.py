"""One base's text index held in memory: what its FTS5 index answers a question, without SQL.

A resident kb (the daemon, `kb serve`, a library `Memory` asked many questions) asks the same
few things of every base for every question: each question word's stem class and chunk
frequency, the base's own best chunks by FTS5's bm25, the candidates' word counts and the
best files' page counts. From SQLite that is about seven queries a base and most of an
answerable question's time (at 10,000 notes, 11 bases: ~80 queries, 10-20 ms). This module
holds the same facts as postings (word -> the chunks holding it, with its heading and text
counts) and answers each of those calls exactly as the jobs of `kb.io.store` do from SQLite:
the same stem classes (the vocabulary scanned in FTS5's order, with the same caps), the same
pruning of common words, and FTS5's own bm25 (its idf, its floor, its column weights, its
operation order), so the two paths rank alike (tests/properties/test_warm_text_properties.py).

Built from what the index stores (`kb.io.store.warm.WarmCopy.read` reads it in one snapshot):
the averages record's chunk and token totals, the vocabulary with each word's chunk
frequency, each chunk's stored word lists, and each file's span and private flag.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from heapq import heappush, heapreplace, nlargest
from itertools import compress
from typing import TYPE_CHECKING

from attrs import field, frozen

from kb.pure.answering.textrank import Counts, TextStats
from kb.pure.notes.tokens import stem

if TYPE_CHECKING:
    from typing import TypeAlias

    from kb.pure.answering.held.densetext import DenseText

    IntColumn: TypeAlias = array[int] | memoryview[int]
    FloatColumn: TypeAlias = array[float] | memoryview[float]

# FTS5's bm25 as `kb.io.store.ranking.RANK_ROWID_SQL` calls it: k1 and b are FTS5's built-in
# constants, and the heading path weighs 2, the text 1 (base and path are unindexed).
FTS_K1 = 1.2
FTS_B = 0.75
FTS_HEADING = 2.0
FTS_TEXT = 1.0
# FTS5 floors a word's idf at this when a word is in half the chunks or more (fts5_aux.c).
FTS_IDF_FLOOR = 1e-6

# When a base's ranking reads its words' postings best term weight first and stops once no
# unread chunk can reach the limit (`WarmText.top_stopping_early`), and when it scores every
# posting (in C-built dicts for the first word): one word past EARLY_STOP_ONE_WORD postings,
# several past EARLY_STOP_SEVERAL_WORDS. With one word the bound is that word's next weight and
# falls as fast as the scores; with several it sums each word's next weight and falls
# slower, so only long postings repay it. Measured per ranking (15 kept), early against
# every posting, at 10,000 generated notes (6,600 rankings of 600 questions) and 100,000
# (2,200 of 200):
#   one word, 256-2,000 postings: 0.05 vs 0.16 ms; 0.07 vs 0.25 ms
#   one word, 8,000 or more: (none); 0.12 vs 5.9 ms
#   two words, 256-2,000: 0.14 vs 0.17 ms; 0.66 vs 0.31 ms
#   two or three words, 2,000-8,000: 0.08-0.11 vs 0.54-0.61 ms; 1.2-2.6 vs 1.0-1.2 ms
#   two to four words, 8,000 or more: (none); 0.37-1.15 vs 3.1-4.5 ms
EARLY_STOP_ONE_WORD = 256
EARLY_STOP_SEVERAL_WORDS = 8_000
# Early stopping scores each chunk it meets by looking it up in every word's postings, about
# 3.3 times what scoring one posting costs when every posting is scored (0.42 against 0.13
# us a posting at 100,000 notes). So once the chunks met times the words pass this share of
# the postings, reading on would cost more than scoring them all, and the ranking does that
# instead: the same rows, at most about twice the cheaper way's cost. Where several words
# each hold thousands of chunks of a large base and few chunks hold more than one, the bound
# falls too slowly to stop: at 100,000 generated notes, three or more words with 2,000-8,000
# postings took 1.39 ms early against 0.54 ms for every posting (200 rankings), and the
# slowest question spent 9-14 ms a base that way (1-2 ms scoring every posting).
EARLY_STOP_SHARE = 0.3
# Postings read from one word between two looks at the bound: each look sums every word's.
EARLY_STOP_BATCH = 16
# A score is a sum of rounded products, its bound another sum of them: the bound is raised
# by this share so a chunk whose score equals it in exact arithmetic is never cut by rounding.
BOUND_SLACK = 1e-9

# A posting packs a chunk's heading count in the high half and its text count in the low
# half of one unsigned 32-bit value: 4 bytes a posting instead of two Python ints. A count
# past 65,535 in one chunk (a chunk is at most a few thousand characters) cannot be packed:
# such a base is not held warm (`Unpackable`) and its questions go to SQLite as before.
_HALF = 16
_LOW = (1 << _HALF) - 1


class _ReadTooMuch(Exception):
    """Early stopping met more chunks than scoring every posting would cost."""


class Unpackable(ValueError):
    """A base the in-memory index cannot hold as it stands (a count too large to pack, a
    chunk in no file or out of order)."""


@frozen
class StemRules:
    """The bounds `kb.io.store.vocabulary` scans a stem class with, so both paths find the
    same words."""

    scan_max: int  # vocabulary words read past a stem (STEM_SCAN_MAX)
    class_max: int  # words kept of one class (STEM_CLASS_MAX)
    prune_min_chunks: int  # a base this large drops its too-common words (PRUNE_MIN_CHUNKS)


@frozen
class ChunkFacts:
    """One chunk as `WarmCopy.read` reads it: its stored heading and text word lists
    (each joined by single spaces, as `kb.io.store.counts_text` wrote them). Not its heading
    path: a passage's heading is read from the index with its text (`TextReader.details`),
    and holding every chunk's was 40 MB at 100,000 notes."""

    rowid: int
    head_words: str
    body_words: str


@frozen
class FileFacts:
    """One file's chunk span (`first`..`last`, inclusive) and privacy as the index holds them."""

    base: str
    path: str
    first: int
    last: int
    private: bool


@frozen(eq=False)
class WarmText:
    """One base's text index in memory. Every method answers as the store's method of the
    same name does from SQLite; `stamp` is the index state it was read at.

    Laid out flat to keep the memory down (about 20 bytes a posting, against 70 as a dict
    of per-word arrays): a word's postings are `at[id]`..`at[id + 1]` of the posting
    arrays, and a chunk is known by its place `j` in `rowids` (ascending)."""

    stamp: bytes
    rules: StemRules
    chunks: int  # rows, from FTS5's averages record
    tokens: int  # tokens in every row, from the same record
    # every indexed word, in FTS5's (code point) order: a word's id is its place here,
    # found by bisection (a dict of them was 15 of 189 MB of a warm fleet at 10,000 notes,
    # and a question looks up a few words a base)
    vocabulary: tuple[str, ...]
    doc: array[int]  # by word id: how many chunks hold it (FTS5's count)
    # The five arrays a postings file can hold (kb.pure.answering.held.postingslayout): arrays on
    # the heap as built, or views of the file mapped into memory (`memoryview`s).
    at: IntColumn  # by word id: where its postings start (one more entry: the end)
    post_chunk: IntColumn  # by posting: the chunk's place j
    post_counts: IntColumn  # by posting: heading count << 16 | text count
    # by posting: bm25's term weight before idf, (f * (k1 + 1)) / (f + norm): computed once,
    # so a question multiplies and adds (a third of the time)
    post_weight: FloatColumn
    rowids: array[int]  # by j: the chunk's rowid
    lengths: IntColumn  # by j: words in the chunk, heading path included
    file_of: array[int]  # by j: its file's place in `files`
    files: Sequence[FileFacts]
    private: frozenset[int]  # the j of every private chunk
    spans: Mapping[tuple[str, str], FileFacts]  # (base, path) -> its file
    pages: int  # files the index holds (every span, as `TextReader.page_total` counts them)
    # by word id: its postings' places, best term weight first (chunk order within a
    # weight), made the first time a ranking reads the word that way (`_by_weight`). A
    # memo: it never changes an answer, and a thread finds a whole array or none.
    orders: dict[int, array[int]] = field(factory=dict, repr=False)
    # numpy's views of the postings, where numpy ranks this base (`warm_text(dense=True)`):
    # `rank` then sums every posting in C (kb.pure.answering.held.densetext), to the same floats
    dense: DenseText | None = field(default=None, repr=False)

    def word_id(self, word: str) -> int | None:
        """The word's place in `vocabulary`, or None when the base does not index it."""
        i = bisect_left(self.vocabulary, word)
        return i if i < len(self.vocabulary) and self.vocabulary[i] == word else None

    def _doc(self, word: str) -> int:
        i = self.word_id(word)
        return 0 if i is None else self.doc[i]

    # -- the stem classes (`Vocabulary.text_stats`, `known_words`) ----------------------

    def stem_class(self, root: str) -> list[tuple[str, int]]:
        """Every indexed word whose stem is `root`, with its chunk frequency, as
        `Vocabulary._stem_class` finds them: of the first `scan_max` words from `root` on in
        vocabulary order (those starting with `root`: a stem is a prefix of its word), the
        first `class_max` whose stem is `root`."""
        found: list[tuple[str, int]] = []
        start = bisect_left(self.vocabulary, root)
        for i in range(start, min(start + self.rules.scan_max, len(self.vocabulary))):
            word = self.vocabulary[i]
            if not word.startswith(root):
                break
            if stem(word) == root:
                found.append((word, self.doc[i]))
                if len(found) == self.rules.class_max:
                    break
        return found

    def stats(self, terms: Sequence[str]) -> tuple[TextStats, dict[str, tuple[str, ...]]]:
        """`Vocabulary.text_stats`: the totals, each word's stem-class chunk frequency, and the
        indexed words in its class."""
        variants: dict[str, tuple[str, ...]] = {}
        df: list[tuple[str, int]] = []
        for term in terms:
            found = self.stem_class(stem(term))
            words = tuple(w for w, _ in found) or (term,)
            variants[term] = words if term in words else (term, *words)
            df.append((term, sum(d for _, d in found)))
        return TextStats(self.chunks, self.tokens, tuple(df)), variants

    def known_words(self, terms: Sequence[str]) -> set[str]:
        """`Vocabulary.known_words`: the terms the vocabulary holds as they are. (The SQL path
        looks in the term's stem class first and in the vocabulary where the class may be
        cut short; a term's own stem class holds it whenever the vocabulary does, so both
        come to this.)"""
        return {t for t in terms if self.word_id(t) is not None}

    def holds_none(self, words: Sequence[str]) -> bool:
        """No chunk holds any of `words` (a MATCH of them returns nothing)."""
        return bool(words) and not any(self._doc(w) for w in words)

    # -- the base's own ranking (`Ranking.rank`) ---------------------------------------

    def pruned(self, words: Sequence[str]) -> list[str]:
        """`Vocabulary.prune`: in a base of `prune_min_chunks` chunks or more, the words held by
        more than a quarter of its chunks are dropped, unless that drops them all."""
        terms = list(dict.fromkeys(words))
        if self.chunks < self.rules.prune_min_chunks:
            return terms
        ceiling = self.chunks // 4
        return [t for t in terms if self._doc(t) <= ceiling] or terms

    def _weighted(self, words: Sequence[str]) -> list[tuple[int, float]]:
        """(word id, idf) of each of `words` the vocabulary holds, once each, in order: FTS5's
        idf ln((N - n + 0.5) / (n + 0.5)), floored at `FTS_IDF_FLOOR` when not above 0."""
        rows = self.chunks
        out: list[tuple[int, float]] = []
        for word in dict.fromkeys(words):
            i = self.word_id(word)
            if i is None:
                continue
            hits = self.doc[i]
            idf = math.log((rows - hits + 0.5) / (hits + 0.5))
            out.append((i, idf if idf > 0.0 else FTS_IDF_FLOOR))
        return out

    def scores(self, words: Sequence[str], include_private: bool) -> dict[int, float]:
        """Chunk place j -> FTS5's bm25 of that chunk for `words` (each once, in order), over
        every chunk holding one of them, private ones left out unless `include_private`:
        per word, its idf ln((N - n + 0.5) / (n + 0.5)), floored at `FTS_IDF_FLOOR` when
        not above 0, times the posting's weight (`post_weight`), summed in word order."""
        scores: dict[int, float] = {}
        for i, idf in self._weighted(words):
            lo, hi = self.at[i], self.at[i + 1]
            # idf * part of each chunk holding the word, built in C: adding the postings one
            # at a time in Python was most of a long question's ranking (at 100,000 notes,
            # the ten slowest questions took 13-56 ms in the text ranking)
            weighted = map(idf.__mul__, self.post_weight[lo:hi])
            added = dict(zip(self.post_chunk[lo:hi], weighted, strict=True))
            if not scores:
                scores = added  # the first word's sums are 0.0 + idf * part: idf * part exactly
                continue
            # a chunk an earlier word holds sums in word order, as FTS5 adds them; the rest
            # are taken as they are
            for j in scores.keys() & added.keys():
                added[j] = scores[j] + added[j]
            scores.update(added)
        if not include_private:
            for j in self.private.intersection(scores):
                del scores[j]
        return scores

    def rank(
        self, words: Sequence[str], limit: int, include_private: bool
    ) -> tuple[list[str], list[tuple[int, str, str]]]:
        """The words the MATCH expression asks for (`pruned`) and the best `limit`
        (rowid, base, path) rows by their `scores`, best first, equal scores by rowid: what
        `Ranking.rank` returns, bar the expression's quoting. A term weight is computed once
        per posting, so a score can differ from FTS5's in its last bit; only a tie at the
        limit could then be cut differently."""
        kept = self.pruned(words)
        if limit <= 0:
            return kept, []
        weighted = self._weighted(kept)
        if self.dense is not None:
            spans = [(self.at[i], self.at[i + 1], idf) for i, idf in weighted]
            best = self.dense.top(spans, limit, include_private)
        else:
            best = self._top_in_python(kept, weighted, limit, include_private)
        out: list[tuple[int, str, str]] = []
        for j, _ in best:
            f = self.files[self.file_of[j]]
            out.append((self.rowids[j], f.base, f.path))
        return kept, out

    def _top_in_python(
        self,
        words: Sequence[str],
        weighted: Sequence[tuple[int, float]],
        limit: int,
        include_private: bool,
    ) -> list[tuple[int, float]]:
        """`top_of_every_score`'s rows, read best weight first where that reads less."""
        postings = sum(self.at[i + 1] - self.at[i] for i, _ in weighted)
        if postings > (EARLY_STOP_ONE_WORD if len(weighted) == 1 else EARLY_STOP_SEVERAL_WORDS):
            most_met = int(EARLY_STOP_SHARE * postings / len(weighted))
            try:
                return self.top_stopping_early(words, limit, include_private, most_met)
            except _ReadTooMuch:
                pass
        return self.top_of_every_score(words, limit, include_private)

    def _best(self, scores: dict[int, float], limit: int) -> list[tuple[int, float]]:
        """The best `limit` (chunk place, score), best first, equal scores by rowid."""
        kept: Iterable[tuple[int, float]] = scores.items()
        if len(scores) > limit:
            # the limit-th best score, then only the chunks at or above it (`line <= s`),
            # picked out in C
            line = nlargest(limit, scores.values())[-1]
            kept = compress(scores.items(), map(line.__le__, scores.values()))
        return sorted(kept, key=lambda js: (-js[1], self.rowids[js[0]]))[:limit]

    def top_of_every_score(
        self, words: Sequence[str], limit: int, include_private: bool
    ) -> list[tuple[int, float]]:
        """The best `limit` chunks by `scores`, every chunk holding a word scored."""
        return self._best(self.scores(words, include_private), limit)

    def _by_weight(self, i: int) -> array[int]:
        """Word `i`'s posting places, best term weight first, chunk order within a weight."""
        found = self.orders.get(i)
        if found is None:
            places = range(self.at[i], self.at[i + 1])
            weight = self.post_weight.__getitem__
            # a stable sort: reversed, equal weights keep their ascending chunk order; 4 bytes
            # a place, as `post_chunk`'s (this memo grows with the words a resident kb is
            # asked, up to every posting: 8 bytes a place doubled that ceiling)
            found = self.orders[i] = array("i", sorted(places, key=weight, reverse=True))
        return found

    def top_stopping_early(
        self, words: Sequence[str], limit: int, include_private: bool, most_met: int = -1
    ) -> list[tuple[int, float]]:
        """What `top_of_every_score` returns, reading as few postings as it can.

        Each word's postings are read best term weight first, a few at a time from the word
        whose next posting can add most (idf times its weight). A chunk met for the first
        time is scored whole, as `scores` sums it (every word holding it, in word order),
        and a private one is passed over unless `include_private`. A chunk not yet met
        holds each word at most at the weight of that word's next unread posting, so it
        scores at most their sum: once the `limit`-th best score so far is strictly above
        that sum, no unread chunk can reach the limit (nor tie with it) and reading stops.
        `limit` is at least 1: `rank` answers a limit of 0 or less itself. With `most_met` 0
        or more, it raises `_ReadTooMuch` once it has met more chunks than that."""
        weighted = self._weighted(words)
        spans = [(self.at[i], self.at[i + 1]) for i, _ in weighted]
        orders = [self._by_weight(i) for i, _ in weighted]
        read = [0] * len(weighted)
        post_chunk, post_weight = self.post_chunk, self.post_weight
        scores: dict[int, float] = {}
        met: set[int] = set()
        least: list[float] = []  # a min-heap of the `limit` best scores so far
        while True:
            bound = 0.0
            word = -1
            most = -1.0
            for n, (_, idf) in enumerate(weighted):
                if read[n] < len(orders[n]):
                    can = idf * post_weight[orders[n][read[n]]]
                    bound += can
                    if can > most:
                        word, most = n, can
            if word < 0 or (len(least) == limit and bound * (1.0 + BOUND_SLACK) < least[0]):
                break
            start = read[word]
            read[word] = min(start + EARLY_STOP_BATCH, len(orders[word]))
            for k in orders[word][start : read[word]]:
                j = post_chunk[k]
                if j in met:
                    continue
                met.add(j)
                if not include_private and j in self.private:
                    continue
                score = 0.0  # and 0.0 + x is x: the sums are `scores`' to the bit
                for (lo, hi), (_, idf) in zip(spans, weighted, strict=True):
                    at = bisect_left(post_chunk, j, lo, hi)
                    if at < hi and post_chunk[at] == j:
                        score += idf * post_weight[at]
                scores[j] = score
                if len(least) < limit:
                    heappush(least, score)
                elif score > least[0]:
                    heapreplace(least, score)
            if 0 <= most_met < len(met):
                raise _ReadTooMuch
        return self._best(scores, limit)

    # -- counts for scoring again (`TextReader.chunk_counts`, `page_counts`) ------------

    def _place(self, rowid: int) -> int | None:
        j = bisect_left(self.rowids, rowid)
        return j if j < len(self.rowids) and self.rowids[j] == rowid else None

    def _ranges(self, forms: Iterable[str]) -> list[tuple[str, int, int]]:
        """(word, first posting, end) of each of `forms` the vocabulary holds, in order."""
        return [
            (w, self.at[i], self.at[i + 1])
            for w in sorted(set(forms))
            if (i := self.word_id(w)) is not None
        ]

    def chunk_counts(
        self, rowids: Iterable[int], forms: Iterable[str]
    ) -> dict[int, tuple[str, Counts]]:
        """rowid -> ("", its counts of `forms`): scoring reads no other word, so the counts
        are `TextReader.chunk_counts`' restricted to them, with the same length. The heading
        path is left empty (`ChunkFacts`): with counts, scoring never reads it, and a
        passage's heading comes from the index with its text (the properties of
        tests/properties/test_warm_text_properties.py compare every passage's heading)."""
        ranges = self._ranges(forms)
        out: dict[int, tuple[str, Counts]] = {}
        for rowid in rowids:
            j = self._place(rowid)
            if j is None:
                continue
            head: dict[str, int] = {}
            body: dict[str, int] = {}
            for w, lo, hi in ranges:
                k = bisect_left(self.post_chunk, j, lo, hi)
                if k < hi and self.post_chunk[k] == j:
                    packed = self.post_counts[k]
                    if n := packed >> _HALF:
                        head[w] = n
                    if n := packed & _LOW:
                        body[w] = n
            out[rowid] = ("", (head, body, self.lengths[j]))
        return out

    def page_counts(
        self, base: str, paths: Iterable[str], forms: Iterable[str]
    ) -> dict[str, Counts]:
        """`TextReader.page_counts`: for each file held in more than one chunk, its counts of
        `forms` summed over its chunks, and its length in words."""
        ranges = self._ranges(forms)
        out: dict[str, Counts] = {}
        for path in sorted(set(paths)):
            span = self.spans.get((base, path))
            if span is None or span.last <= span.first:
                continue
            first = bisect_left(self.rowids, span.first)
            last = bisect_right(self.rowids, span.last)  # j past the file's last chunk
            head: dict[str, int] = {}
            body: dict[str, int] = {}
            for w, lo, hi in ranges:
                a = bisect_left(self.post_chunk, first, lo, hi)
                b = bisect_left(self.post_chunk, last, a, hi)
                packed = self.post_counts[a:b]
                if h := sum(p >> _HALF for p in packed):
                    head[w] = h
                if t := sum(p & _LOW for p in packed):
                    body[w] = t
            out[path] = (head, body, sum(self.lengths[first:last]))
        return out


def warm_text(
    stamp: bytes,
    rules: StemRules,
    chunks: int,
    tokens: int,
    vocabulary: Iterable[tuple[str, int]],
    stored: Iterable[ChunkFacts],
    files: Iterable[FileFacts],
    pages: int,
    dense: bool = False,
) -> WarmText:
    """The in-memory index of one base from what its SQLite index holds. `stored` must come
    in rowid order. Raises `Unpackable` when a count or a chunk does not fit (a base then
    answers from SQLite). A word the stored lists hold but FTS5's vocabulary does
    not (the two tokenizers differ on a few exotic characters) is left out: no question
    can reach it through a stem class, and FTS5 would not match it either.
    `dense`: numpy ranks it (`kb.pure.answering.held.densetext`); the caller has made sure
    numpy imports."""
    pairs = sorted((str(w), int(d)) for w, d in vocabulary)
    words = tuple(w for w, _ in pairs)
    ids = {w: i for i, w in enumerate(words)}
    doc = array("i", (d for _, d in pairs))
    avgdl = tokens / chunks if chunks else 0.0
    rowids = array("q")  # any SQLite rowid
    lengths = array("i")
    # the postings in chunk order first, then grouped by word (a counting sort keeps each
    # word's chunks in ascending order)
    by_word = array("i")
    by_chunk = array("i")
    by_counts = array("I")
    sizes = [0] * len(words)
    for j, c in enumerate(stored):
        head = c.head_words.split()
        body = c.body_words.split()
        rowids.append(c.rowid)
        lengths.append(len(head) + len(body))
        counted = Counter(body)
        if counted and max(counted.values()) > _LOW:
            raise Unpackable(f"a text count of {max(counted.values())}")
        for w, n in Counter(head).items():
            if n > _LOW:
                raise Unpackable(f"a heading count of {n}")
            counted[w] += n << _HALF
        for w, n in counted.items():
            i = ids.get(w)
            if i is not None:
                by_word.append(i)
                by_chunk.append(j)
                by_counts.append(n)
                sizes[i] += 1
    if any(rowids[k] >= rowids[k + 1] for k in range(len(rowids) - 1)):  # repeated too
        raise Unpackable("chunks not in rowid order")
    at = array("q", [0])
    for n in sizes:
        at.append(at[-1] + n)
    total = at[-1]
    norms = [FTS_K1 * (1 - FTS_B + FTS_B * n / avgdl) if avgdl else FTS_K1 for n in lengths]
    k1_plus = FTS_K1 + 1.0
    post_chunk = array("i", bytes(4 * total))
    post_counts = array("I", bytes(4 * total))
    post_weight = array("d", bytes(8 * total))
    place = array("q", at[:-1])
    for i, j, n in zip(by_word, by_chunk, by_counts, strict=True):
        k = place[i]
        place[i] = k + 1
        post_chunk[k] = j
        post_counts[k] = n
        freq = FTS_HEADING * (n >> _HALF) + FTS_TEXT * (n & _LOW)
        post_weight[k] = (freq * k1_plus) / (freq + norms[j])
    del by_word, by_chunk, by_counts
    return held_text(
        stamp,
        rules,
        (chunks, tokens, pages),
        (words, doc, rowids),
        Columns(at, lengths, post_chunk, post_counts, post_weight),
        files,
        dense,
    )


@frozen(eq=False)
class Columns:
    """The arrays of a base's postings a postings file holds (`WarmText` names each)."""

    at: IntColumn
    lengths: IntColumn
    post_chunk: IntColumn
    post_counts: IntColumn
    post_weight: FloatColumn


def held_text(
    stamp: bytes,
    rules: StemRules,
    totals: tuple[int, int, int],
    layout: tuple[tuple[str, ...], array[int], array[int]],
    columns: Columns,
    files: Iterable[FileFacts],
    dense: bool,
) -> WarmText:
    """A base's in-memory index from its postings (`columns`, built by `warm_text` or mapped
    from a postings file) and what the index itself says: `totals` (chunks, tokens, pages),
    `layout` (the vocabulary in order, each word's chunk frequency, the chunks' rowids
    ascending) and the files. Which chunk is whose, and so which is
    private, comes from `files` and `rowids` alone, never from the postings. Raises
    `Unpackable` when a chunk lies in no file's span."""
    chunks, tokens, pages = totals
    words, doc, rowids = layout
    listed = sorted(files, key=lambda f: f.first)
    file_of = array("i", [-1] * len(rowids))  # -1: in no file's span (yet)
    spans: dict[tuple[str, str], FileFacts] = {}
    for n, f in enumerate(listed):
        spans[(f.base, f.path)] = f
        # later (larger `first`) spans win a shared chunk, as `SpanMap` picks them
        for j in range(bisect_left(rowids, f.first), bisect_right(rowids, f.last)):
            file_of[j] = n
    if -1 in file_of:
        # `Ranking.rank` asks the joined query for a chunk outside every span: not warm
        raise Unpackable("a chunk outside every file's span")
    private = frozenset(j for j in range(len(rowids)) if listed[file_of[j]].private)
    dense_text = None
    if dense:
        from kb.pure.answering.held.densetext import dense_of

        dense_text = dense_of(columns.post_chunk, columns.post_weight, private, len(rowids))
    return WarmText(
        stamp=stamp,
        rules=rules,
        chunks=chunks,
        tokens=tokens,
        vocabulary=words,
        doc=doc,
        at=columns.at,
        post_chunk=columns.post_chunk,
        post_counts=columns.post_counts,
        post_weight=columns.post_weight,
        rowids=rowids,
        lengths=columns.lengths,
        file_of=file_of,
        files=listed,
        private=private,
        spans=spans,
        pages=pages,
        dense=dense_text,
    )
