"""The keyword scorer: the note's own declared keys, weighted by rarity across the fleet.

Rules of this module:
- Weights: a question word in the keyword bag 6, in the title 3, in the file name 3, in the
  purpose line 1, each times the word's idf; a multi-word key found whole in the question
  10 times the mean idf of its words. Keys derived from a note's own text (it declared none)
  weigh `DERIVED_FACTOR` of that. No length normalisation: a note is not punished for
  declaring many keys.
- idf(t) = ln(1 + total / (1 + df(t))), with df counted fleet-wide over entry vocabularies.
- A phrase matches as a plain substring of the question's words joined by spaces.
- Hits sort by score descending, then `rel`, then entry order. Only scores above zero count.
- The inverted index only chooses which entries to score; every chosen entry is scored by
  the same function a full scan would use, so indexed and naive rankings are equal.
- It stops early when it can prove the rest cannot reach the top: a word's postings are held
  in layers by what the word adds to an entry's score (its weight there, before idf), best
  layer first, and once the `top`-th best score so far is above what every unread layer
  could still add together, no entry left unscored can rank (`rank`).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from heapq import heappush, heapreplace, merge
from itertools import pairwise
from typing import TypeVar

from attrs import frozen

from kb.pure.answering.entries import (
    IN_BAG,
    IN_STEM,
    IN_SUMMARY,
    IN_TITLE,
    Entry,
    Prepared,
    TokenSets,
    prepared_from,
    token_sets,
)

W_KEYWORD = 6.0
W_PHRASE = 10.0
W_TITLE = 3.0
W_STEM = 3.0
W_SUMMARY = 1.0
# A derived key (front matter or heading of a note with no `Search for:` line) weighs half a
# declared one: the writer did not choose it as a way in, and a heading is often generic
# ("Usage", "Notes"). Half puts it level with a title word.
DERIVED_FACTOR = 0.5
# The most one question word can add to an entry before idf: in its keys, title, file name
# and purpose at once.
W_WORD_MAX = W_KEYWORD + W_TITLE + W_STEM + W_SUMMARY
# A word held by fewer entries than this is read whole, as one layer bounded by W_WORD_MAX:
# sorting its few entries by weight costs more than scoring them. At 100,000 generated notes
# a question's common words hold thousands of entries each (4,400 candidates a question).
LAYERED_MIN = 64
# Scores are sums of a few products, so the bound an unread layer sets can be off by a few
# units in the last place of a float: it is raised by this share before it is compared.
BOUND_SLACK = 1e-9
# Candidates of the persisted postings decoded at once by `rank_bounded`, highest bound
# first: one read of a base's header rows a slice, and few slices a question.
BOUNDED_SLICE = 256
_T = TypeVar("_T")


@frozen
class KeywordHit:
    entry: Entry
    score: float
    matched: tuple[str, ...]


def idf_of(total: int, df: int) -> float:
    return math.log(1.0 + total / (1.0 + df))


def word_weight(word: str, prepared: Prepared) -> float:
    """What `word` adds to one entry's score before idf, as `score_entry` adds it."""
    where = prepared.where(word)
    weight = 0.0
    if where & IN_BAG:
        weight += (DERIVED_FACTOR if prepared.derived else 1.0) * W_KEYWORD
    if where & IN_TITLE:
        weight += W_TITLE
    if where & IN_STEM:
        weight += W_STEM
    if where & IN_SUMMARY:
        weight += W_SUMMARY
    return weight


def score_entry(
    prepared: Prepared,
    terms: Sequence[str],
    query_norm: str,
    idf: Callable[[str], float],
    phrasal: bool = True,
) -> tuple[float, tuple[str, ...]]:
    """The score of one entry for one expanded question, and the words that matched.
    `phrasal=False`: the caller knows none of its phrases is in the question (it was not
    found by a phrase), so they are not compared."""
    score = 0.0
    matched: list[str] = []
    factor = DERIVED_FACTOR if prepared.derived else 1.0
    if phrasal and prepared.phrases:
        entry, norms = prepared.unpacked()  # once for all its phrases
        for k in prepared.phrases:
            norm = norms[k]
            if norm in query_norm:
                parts = norm.split()
                score += factor * W_PHRASE * (sum(idf(w) for w in parts) / len(parts))
                matched.append(entry.keywords[k])
    words, flags = prepared.words, prepared.flags
    for term in terms:
        if term not in words:
            continue
        w = idf(term)
        where = flags[words.index(term)]
        # added one place at a time, in this order, so the sum is the same float it was
        if where & IN_BAG:
            score += factor * W_KEYWORD * w
        if where & IN_TITLE:
            score += W_TITLE * w
        if where & IN_STEM:
            score += W_STEM * w
        if where & IN_SUMMARY:
            score += W_SUMMARY * w
        if term not in matched:  # in `words`, so in one place at least: it matched
            matched.append(term)
    return score, tuple(matched)


@frozen
class PostingWords:
    """The rows one keyed file adds to the persisted postings (kb.io.store.keywords): its
    vocabulary, the second words of its several-word keys, and each key word with its key."""

    vocabulary: frozenset[str]
    second: frozenset[str]
    parts: frozenset[tuple[str, str]]


def postings_words(keys: Sequence[str], sets: TokenSets) -> PostingWords:
    """What `KeywordIndex` and the suggestions index from one file, as rows to persist."""
    bag, phrases, title, stem, summary, norms = sets
    return PostingWords(
        vocabulary=frozenset((*bag, *title, *stem, *summary)),
        second=frozenset(norms[k].split(" ", 2)[1] for k in phrases),
        parts=frozenset(
            (part, key) for key, norm in zip(keys, norms, strict=True) for part in norm.split()
        ),
    )


# How many entries (or words) the index is built from, or `prepare_all` prepares, between two
# looks at `stopped`.
STOP_CHECK_EVERY = 1024


class Stopped(Exception):
    """The caller's `stopped` said to give up building the index."""


def looking(items: Iterable[_T], stopped: Callable[[], bool] | None) -> Iterator[_T]:
    """`items`, asking `stopped` before every `STOP_CHECK_EVERY`-th of them (the first
    included): a long build's checkpoint. Raises `Stopped` when it says so; with no
    `stopped`, the items as they are."""
    if stopped is None:
        yield from items
        return
    for n, item in enumerate(items):
        if n % STOP_CHECK_EVERY == 0 and stopped():
            raise Stopped
        yield item


# How many phrase pairs are sorted as Python objects at once (`sorted_pairs`). Sorting all of
# them at once took the list of places, its keys and the two sorted copies: the warm build's
# highest point, 68 MB above what the index keeps for 664,186 pairs at 100,000 generated
# notes. In runs this long it is 20 MB above, and the index takes 0.1-0.2 s more (of 1.5 s).
PAIR_SORT_RUN = 1 << 16


def sorted_pairs(
    hashes: array[int], entries: array[int], run: int = PAIR_SORT_RUN
) -> tuple[array[int], array[int]]:
    """The (hash, entry) pairs ordered by hash, then entry: each `run` of them sorted on its
    own, then the runs merged, so no more than one run is ever Python objects."""
    runs: list[Iterator[tuple[int, int]]] = []
    for lo in range(0, len(hashes), run):
        ordered = sorted(zip(hashes[lo : lo + run], entries[lo : lo + run], strict=True))
        kept_hashes = array("q", [h for h, _ in ordered])
        kept_entries = array("i", [e for _, e in ordered])
        del ordered
        runs.append(zip(kept_hashes, kept_entries, strict=True))
    # made at their size: grown by appends they would hold a sixteenth more than they use
    out_hashes, out_entries = array("q", [0]) * len(hashes), array("i", [0]) * len(hashes)
    for k, (h, e) in enumerate(merge(*runs)):
        out_hashes[k] = h
        out_entries[k] = e
    return out_hashes, out_entries


class KeywordIndex:
    """Entries, document frequencies and two postings lists, built once per open.

    Its answers never change after construction (a plain class because its dicts are lookup
    tables, not values to compare); two memos fill as questions need them, the prepared
    entries and the common words' postings in weight order (`_layers_of`).
    """

    def __init__(
        self,
        entries: Sequence[Entry],
        sets: Sequence[TokenSets],
        stopped: Callable[[], bool] | None = None,
    ) -> None:
        """Index `entries` by their token sets (`entries.token_sets`, usually read back from
        the header cache). A `Prepared` is built only for an entry a question scores: at
        10,000 notes building all of them was 0.5 s of a 1 s open. `stopped` is asked every
        `STOP_CHECK_EVERY` entries (building takes seconds at 100,000 notes); raises
        `Stopped` when it says so."""
        # the entries and their token sets until every entry is prepared (`prepare_all`),
        # which holds them packed instead (`Prepared`): about half the memory
        self._entries: tuple[Entry, ...] | None = tuple(entries)
        self._sets: tuple[TokenSets, ...] | None = tuple(sets)
        self.total = len(self._entries)
        self._prepared: list[Prepared | None] = [None] * self.total
        self._index(
            ({*bag, *title, *stem, *summary}, [norms[k] for k in phrases])
            for bag, phrases, title, stem, summary, norms in looking(self._sets, stopped)
        )

    @classmethod
    def of_prepared(
        cls, prepared: Sequence[Prepared], stopped: Callable[[], bool] | None = None
    ) -> KeywordIndex:
        """An index over entries prepared already, every one (a warm Memory builds them from
        its headers a slice at a time: the headers, entries and token sets of every entry
        held at once, then let go, left most of a warm fleet's heap in holes)."""
        index = cls.__new__(cls)
        index._entries = index._sets = None
        index._prepared = list(prepared)
        index.total = len(index._prepared)
        index._index((p.words, p.phrase_norms()) for p in looking(prepared, stopped))
        return index

    def _index(self, entries: Iterable[tuple[Iterable[str], list[str]]]) -> None:
        """The postings and phrase pairs from each entry's vocabulary (bag, title, stem,
        purpose words) and several-word keys' norms, in entry order. One entry at a time:
        what a build keeps alive until its end is left as holes among what it keeps (every
        phrase's pair at once left 75 MB of them at 100,000 notes)."""
        postings: dict[str, list[int]] = {}
        # Each phrase's first two words, as the hash of the pair, with the entry holding it:
        # a dict of word pairs to lists of entries was the largest thing a warm fleet held
        # at 100,000 notes after the text postings (108 of 572 MB traced; 12 bytes a pair
        # here). A hash two pairs share only makes an entry a candidate it need not be, and
        # every candidate is scored by `score_entry`, so the ranking is the same.
        pair_hash = array("q")
        pair_entry = array("i")
        firsts: set[str] = set()
        for i, (vocabulary, phrases) in enumerate(entries):
            # Each entry appears once in a word's postings, so the postings' length is the
            # word's document frequency.
            for word in vocabulary:
                found = postings.get(word)
                if found is None:
                    postings[word] = [i]
                else:
                    found.append(i)
            for first, second, *_ in {tuple(norm.split(" ", 2)) for norm in phrases}:
                pair_hash.append(hash((first, second)))
                pair_entry.append(i)
                firsts.add(first)
        self._postings = postings
        # word -> where each weight's run ends in its postings, once `_layers_of` has put a
        # common word's postings in weight order: on a question's first use of the word, or
        # for every common word when a warm Memory prepares the index (`prepare_all`)
        self._runs: dict[str, tuple[tuple[float, int], ...]] = {}
        # by hash, each hash's entries ascending
        self._pair_hash, self._pair_entry = sorted_pairs(pair_hash, pair_entry)
        # the words a phrase starts with: a question's other word suffixes are not looked up
        self._pair_firsts = frozenset(firsts)

    @classmethod
    def of(cls, entries: Sequence[Entry]) -> KeywordIndex:
        """An index over entries whose token sets are not cached anywhere: tokenised here."""
        return cls(entries, [token_sets(e.stem, e.title, e.keywords, e.summary) for e in entries])

    def key_norms(self) -> Iterator[tuple[str, str]]:
        """Every entry's (key, normalised key) pairs, in entry and key order, unpacked one
        entry at a time (all at once, they were 250 MB at 100,000 notes, and what was kept of
        them was left among the holes the rest made: a warm fleet's heap half empty)."""
        for i in range(self.total):
            entries, sets = self._entries, self._sets
            if entries is not None and sets is not None:
                yield from zip(entries[i].keywords, sets[i][5], strict=True)
            else:
                entry, norms = self._held(i).unpacked()
                yield from zip(entry.keywords, norms, strict=True)

    def prepared_at(self, i: int) -> Prepared:
        """Entry `i` with its token sets as the scorer compares them, built once."""
        return self._held(i)

    def _held(self, i: int) -> Prepared:
        """`prepared_at`, for the index's own reads (layering a word) rather than a score."""
        # read before the memo: `prepare_all` lets them go only once every entry is in it
        entries, sets = self._entries, self._sets
        found = self._prepared[i]
        if found is None:
            assert entries is not None and sets is not None
            found = self._prepared[i] = prepared_from(entries[i], sets[i])
        return found

    def entry_at(self, i: int) -> Entry:
        """Entry `i` (unpacked again once every entry is prepared)."""
        entries = self._entries
        return entries[i] if entries is not None else self._held(i).entry

    def entries(self) -> tuple[Entry, ...]:
        """Every entry, in order."""
        return tuple(self.entry_at(i) for i in range(self.total))

    def prepare_all(self, stopped: Callable[[], bool] | None = None) -> None:
        """Every entry prepared now, and every common word's postings layered (a Memory held
        warm for many questions: about 0.3 s and 0.2 s at 10,000 notes, 4.4 s and 4.7 s at
        100,000, which would otherwise fall on the first questions to reach each: a first
        question of a word held by 4,400 entries paid 5-10 ms for its layers)."""
        try:
            for i in looking(range(self.total), stopped):
                self.prepared_at(i)
            # every entry is held packed now: the entries and token sets go (the caller
            # holds no other reference to them once the index is built)
            self._entries = self._sets = None
            for word in looking(list(self._postings), stopped):
                self._layers_of(word)
        except Stopped:
            return  # the caller let it go: seconds of a core at 100,000 notes

    def holds(self, term: str) -> bool:
        """Whether some entry's vocabulary (keys, title, stem, purpose) holds the word."""
        return term in self._postings

    def idf(self, term: str) -> float:
        ids = self._postings.get(term)
        return idf_of(self.total, len(ids) if ids else 0)

    def idf_memo(self) -> Callable[[str], float]:
        """`idf`, each word's computed once: a ranking asks it once per entry it scores."""
        cache: dict[str, float] = {}

        def idf(word: str) -> float:
            value = cache.get(word)
            if value is None:
                value = cache[word] = self.idf(word)
            return value

        return idf

    def _phrasal(self, terms: Sequence[str]) -> set[int]:
        """The entries that may hold one of the question's phrases."""
        phrasal: set[int] = set()
        # A phrase is found in the question's words joined by spaces, so its first space is
        # one between two neighbouring terms: its first word ends the one (a suffix) and its
        # second starts the next (a prefix). Every such pair finds every phrase that can
        # match, and no other but for a hash two pairs share (by the second word alone, `de`
        # in `x de y` drew a quarter of a question's candidates at 10,000 notes, none of
        # them scoring).
        hashes, entries, firsts = self._pair_hash, self._pair_entry, self._pair_firsts
        words = " ".join(terms).split(" ")  # as `score_entry` matches, spaces inside a term too
        for left, right in pairwise(words):
            for start in range(len(left)):
                first = left[start:]
                if first not in firsts:
                    continue
                for end in range(1, len(right) + 1):
                    h = hash((first, right[:end]))
                    k = bisect_left(hashes, h)
                    while k < len(hashes) and hashes[k] == h:
                        phrasal.add(entries[k])
                        k += 1
        return phrasal

    def _layers_of(self, word: str) -> list[tuple[float, int, int]]:
        """(weight bound, first, end) of each layer of `word`'s postings, best first."""
        ids = self._postings.get(word)
        if not ids:
            return []
        if len(ids) < LAYERED_MIN:
            return [(W_WORD_MAX, 0, len(ids))]
        runs = self._runs.get(word)
        if runs is None:
            runs = self._runs[word] = self._layer(ids, word)
        starts = (0, *(end for _, end in runs))
        return [(weight, start, end) for (weight, end), start in zip(runs, starts, strict=False)]

    def _layer(self, ids: list[int], word: str) -> tuple[tuple[float, int], ...]:
        """Put `word`'s postings in weight order, best first and entry order within a weight
        (only `rank` reads their order; their length is the word's document frequency),
        and return where each weight's run ends. The list is replaced, never changed in
        place, and before its runs are remembered: a thread that finds the runs finds the
        list they index, and two threads layering one word put the same list in place."""
        weighed = sorted((-word_weight(word, self._held(i)), i) for i in ids)
        self._postings[word] = [i for _, i in weighed]
        runs: list[tuple[float, int]] = []
        for end, (negative, _) in enumerate(weighed, 1):
            if runs and runs[-1][0] == -negative:
                runs[-1] = (-negative, end)
            else:
                runs.append((-negative, end))
        return tuple(runs)

    def rank(self, terms: Sequence[str], top: int) -> list[KeywordHit]:
        """The best `top` entries, as `rank_naive` ranks them, scoring as few as it can.

        The entries that may hold a phrase are scored first. Then the question's words give
        up their postings a layer at a time, the layer that can add most first (its weight
        times the word's idf times how often the question says it). An entry not yet scored
        holds each word at most at the weight of that word's next unread layer, and no
        phrase, so it scores at most the sum of those: once the `top`-th best score so far
        is above that sum, every entry still unscored ranks below the `top` (strictly, so a
        tie broken by path cannot be missed) and the ranking stops."""
        if top <= 0:
            return []
        idf = self.idf_memo()
        query_norm = " ".join(terms)
        hits: list[tuple[float, str, int, Prepared, tuple[str, ...]]] = []
        best: list[float] = []  # a min-heap of the `top` best scores so far
        seen: set[int] = set()

        def score(i: int, phrasal: bool) -> None:
            p = self.prepared_at(i)
            value, matched = score_entry(p, terms, query_norm, idf, phrasal)
            if value > 0:
                hits.append((-value, p.rel, i, p, matched))
                if len(best) < top:
                    heappush(best, value)
                elif value > best[0]:
                    heapreplace(best, value)

        for i in sorted(self._phrasal(terms)):
            seen.add(i)
            score(i, True)
        said = Counter(terms)
        queues = {
            word: [(times * idf(word) * weight, lo, hi) for weight, lo, hi in layers]
            for word, times in said.items()
            if (layers := self._layers_of(word))
        }
        while queues:
            if len(best) == top:
                unread = math.fsum(queue[0][0] for queue in queues.values())
                if unread * (1.0 + BOUND_SLACK) < best[0]:
                    break
            word = max(queues, key=lambda w: queues[w][0][0])
            queue = queues[word]
            _, lo, hi = queue.pop(0)
            if not queue:
                del queues[word]
            for i in self._postings[word][lo:hi]:
                if i not in seen:
                    seen.add(i)
                    score(i, False)
        hits.sort(key=lambda h: (h[0], h[1], h[2]))
        return [KeywordHit(p.entry, -neg, matched) for neg, _, _, p, matched in hits[:top]]

    def rank_naive(self, terms: Sequence[str], top: int) -> list[KeywordHit]:
        """Every entry scored: the reference the indexed path is tested against."""
        return rank_entries(self, range(self.total), terms, top)


def rank_entries(
    index: KeywordIndex,
    candidates: Iterable[int],
    terms: Sequence[str],
    top: int,
    phrasal: Container[int] | None = None,
) -> list[KeywordHit]:
    prepared = ((i, index.prepared_at(i)) for i in candidates)
    return rank_prepared(prepared, terms, top, index.idf_memo(), phrasal)


def rank_prepared(
    candidates: Iterable[tuple[int, Prepared]],
    terms: Sequence[str],
    top: int,
    idf: Callable[[str], float],
    phrasal: Container[int] | None = None,
) -> list[KeywordHit]:
    """Score each (entry order, prepared entry) and keep the best `top`: the one ranking
    both the in-memory index and the persisted postings (kb.io.answering.memory) call.
    `phrasal`: the entries that may hold a phrase of the question (the others' phrases are
    not compared: most of an entry's score time at 10,000 notes); None: any."""
    query_norm = " ".join(terms)
    hits = [
        _scored(i, p, terms, query_norm, idf, phrasal is None or i in phrasal)
        for i, p in candidates
    ]
    return _kept(hits, top)


# (-score, rel, entry order, entry, matched words): sorts as the ranking does
_Scored = tuple[float, str, int, Prepared, tuple[str, ...]]


def _scored(
    order: int,
    prepared: Prepared,
    terms: Sequence[str],
    query_norm: str,
    idf: Callable[[str], float],
    phrasal: bool,
) -> _Scored:
    score, matched = score_entry(prepared, terms, query_norm, idf, phrasal)
    return (-score, prepared.rel, order, prepared, matched)


def _kept(hits: list[_Scored], top: int) -> list[KeywordHit]:
    """The best `top` of the scored candidates, as hits. A hit is built only for those kept:
    a question at 10,000 notes scores ~300 candidates and keeps 20 (0.2 ms a question)."""
    positive = [h for h in hits if h[0] < 0]
    positive.sort(key=lambda h: (h[0], h[1], h[2]))
    return [KeywordHit(p.entry, -neg, matched) for neg, _, _, p, matched in positive[:top]]


def rank_bounded(
    phrasal: Sequence[tuple[int, Prepared]],
    holding: Mapping[int, Iterable[str]],
    decode: Callable[[list[int]], list[tuple[int, Prepared]]],
    terms: Sequence[str],
    top: int,
    idf: Callable[[str], float],
    slice_size: int = BOUNDED_SLICE,
) -> list[KeywordHit]:
    """`rank_prepared` over the candidates of the persisted postings, decoding only those
    that can reach the `top`. `phrasal`: the entries that may hold a phrase of the question,
    decoded already. `holding`: every other candidate (entry order -> the question terms
    its vocabulary holds), decoded by `decode` `slice_size` at a time, highest bound first.

    An entry holding no phrase of the question scores at most each term it holds at every
    weight at once (W_WORD_MAX), times its idf, as often as the question says it. Once the
    `top`-th best score is above the next bound (strictly, so a tie broken by path is never
    missed), no later candidate can rank in the `top`. At 100,000 notes a question's common
    words made 5,660 candidates, and decoding them was 1.07 of its 1.23 s."""
    if top <= 0:
        return []
    said = Counter(terms)
    only_phrasal = {i for i, _ in phrasal}
    bounds = sorted(
        (-math.fsum(said[t] * idf(t) * W_WORD_MAX for t in set(words)), i)
        for i, words in holding.items()
        if i not in only_phrasal
    )
    query_norm = " ".join(terms)
    best: list[float] = []  # a min-heap of the `top` best scores so far
    hits: list[_Scored] = []

    def keep(found: Iterable[tuple[int, Prepared]], phrases: bool) -> None:
        for i, p in found:
            hit = _scored(i, p, terms, query_norm, idf, phrases)
            hits.append(hit)
            value = -hit[0]
            if value > 0 and len(best) < top:
                heappush(best, value)
            elif value > 0 and value > best[0]:
                heapreplace(best, value)

    keep(phrasal, True)
    for start in range(0, len(bounds), slice_size):
        if len(best) == top and -bounds[start][0] * (1.0 + BOUND_SLACK) < best[0]:
            break
        keep(decode([i for _, i in bounds[start : start + slice_size]]), False)
    return _kept(hits, top)


def term_prefixes(terms: Iterable[str]) -> set[str]:
    """Every prefix of every term: the second words a phrase inside the question can have
    (see `KeywordIndex._candidates`)."""
    return {t[:end] for t in terms for end in range(1, len(t) + 1)}


def phrase_words(candidates: Iterable[Prepared], terms: Sequence[str]) -> set[str]:
    """The words of every phrase of these entries found in the question: their weights are
    needed too, and a phrase can hold a word that is no question term (a substring match)."""
    query_norm = " ".join(terms)
    return {
        w
        for p in candidates
        for norm in p.phrase_norms()
        if norm in query_norm
        for w in norm.split()
    }
