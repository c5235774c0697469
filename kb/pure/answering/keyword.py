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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Iterable, Sequence
from itertools import pairwise

from attrs import frozen

from kb.pure.answering.entries import Entry, Prepared, TokenSets, prepared_from, token_sets

W_KEYWORD = 6.0
W_PHRASE = 10.0
W_TITLE = 3.0
W_STEM = 3.0
W_SUMMARY = 1.0
# A derived key (front matter or heading of a note with no `Search for:` line) weighs half a
# declared one: the writer did not choose it as a way in, and a heading is often generic
# ("Usage", "Notes"). Half puts it level with a title word.
DERIVED_FACTOR = 0.5


@frozen
class KeywordHit:
    entry: Entry
    score: float
    matched: tuple[str, ...]


def idf_of(total: int, df: int) -> float:
    return math.log(1.0 + total / (1.0 + df))


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
    factor = DERIVED_FACTOR if prepared.entry.derived else 1.0
    for phrase in prepared.phrases if phrasal else ():
        if phrase.norm in query_norm:
            parts = phrase.norm.split()
            score += factor * W_PHRASE * (sum(idf(w) for w in parts) / len(parts))
            matched.append(phrase.original)
    for term in terms:
        w = idf(term)
        hit = False
        if term in prepared.bag:
            score += factor * W_KEYWORD * w
            hit = True
        if term in prepared.title_tokens:
            score += W_TITLE * w
            hit = True
        if term in prepared.stem_tokens:
            score += W_STEM * w
            hit = True
        if term in prepared.summary_tokens:
            score += W_SUMMARY * w
            hit = True
        if hit and term not in matched:
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
        second=frozenset(norm.split(" ", 2)[1] for _, norm in phrases),
        parts=frozenset(
            (part, key) for key, norm in zip(keys, norms, strict=True) for part in norm.split()
        ),
    )


class KeywordIndex:
    """Entries, document frequencies and two postings lists, built once per open.

    Immutable after construction (a plain class because its dicts are lookup tables, not
    values to compare).
    """

    def __init__(self, entries: Sequence[Entry], sets: Sequence[TokenSets]) -> None:
        """Index `entries` by their token sets (`entries.token_sets`, usually read back from
        the header cache). A `Prepared` is built only for an entry a question scores: at
        10,000 notes building all of them was 0.5 s of a 1 s open."""
        self._entries: tuple[Entry, ...] = tuple(entries)
        self._sets: tuple[TokenSets, ...] = tuple(sets)
        self._prepared: dict[int, Prepared] = {}
        self.total = len(self._entries)
        postings: dict[str, list[int]] = {}
        by_pair: dict[tuple[str, str], list[int]] = {}
        for i, (bag, phrases, title, stem, summary, _) in enumerate(self._sets):
            # Each entry appears once in a word's postings, so the postings' length is the
            # word's document frequency (the vocabulary: bag, title, stem, purpose words).
            for word in {*bag, *title, *stem, *summary}:
                found = postings.get(word)
                if found is None:
                    postings[word] = [i]
                else:
                    found.append(i)
            if phrases:
                for first, second, *_ in {tuple(norm.split(" ", 2)) for _, norm in phrases}:
                    by_pair.setdefault((first, second), []).append(i)
        self._postings = postings
        self._by_pair = by_pair

    @classmethod
    def of(cls, entries: Sequence[Entry]) -> KeywordIndex:
        """An index over entries whose token sets are not cached anywhere: tokenised here."""
        return cls(entries, [token_sets(e.stem, e.title, e.keywords, e.summary) for e in entries])

    def key_norms(self) -> list[tuple[str, str]]:
        """Every entry's (key, normalised key) pairs, in entry and key order."""
        return [
            pair
            for entry, sets in zip(self._entries, self._sets, strict=True)
            for pair in zip(entry.keywords, sets[5], strict=True)
        ]

    def prepared_at(self, i: int) -> Prepared:
        """Entry `i` with its token sets as the scorer compares them, built once."""
        found = self._prepared.get(i)
        if found is None:
            found = self._prepared[i] = prepared_from(self._entries[i], self._sets[i])
        return found

    def prepare_all(self) -> None:
        """Every entry prepared now (a Memory held warm for many questions: about 0.3 s at
        10,000 notes, which would otherwise fall on the first questions to reach each)."""
        for i in range(self.total):
            self.prepared_at(i)

    def holds(self, term: str) -> bool:
        """Whether some entry's vocabulary (keys, title, stem, purpose) holds the word."""
        return term in self._postings

    def idf(self, term: str) -> float:
        ids = self._postings.get(term)
        return idf_of(self.total, len(ids) if ids else 0)

    def _candidates(self, terms: Sequence[str]) -> tuple[list[int], set[int]]:
        """The entries a question can score, in order, and those of them that may hold one
        of its phrases."""
        chosen: set[int] = set()
        phrasal: set[int] = set()
        for term in terms:
            chosen.update(self._postings.get(term, ()))
        # A phrase is found in the question's words joined by spaces, so its first space is
        # one between two neighbouring terms: its first word ends the one (a suffix) and its
        # second starts the next (a prefix). Every such pair finds every phrase that can
        # match, and no other (by the second word alone, `de` in `x de y` drew a quarter of
        # a question's candidates at 10,000 notes, none of them scoring).
        pairs = self._by_pair
        words = " ".join(terms).split(" ")  # as `score_entry` matches, spaces inside a term too
        for left, right in pairwise(words):
            for start in range(len(left)):
                first = left[start:]
                for end in range(1, len(right) + 1):
                    phrasal.update(pairs.get((first, right[:end]), ()))
        return sorted(chosen | phrasal), phrasal

    def rank(self, terms: Sequence[str], top: int) -> list[KeywordHit]:
        candidates, phrasal = self._candidates(terms)
        return rank_entries(self, candidates, terms, top, phrasal)

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
    cache: dict[str, float] = {}

    def idf(word: str) -> float:
        value = cache.get(word)
        if value is None:
            value = cache[word] = index.idf(word)
        return value

    return rank_prepared(((i, index.prepared_at(i)) for i in candidates), terms, top, idf, phrasal)


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
    # (-score, rel, entry order) sorts as the ranking does; a hit is built only for the `top`
    # kept: a question at 10,000 notes scores ~300 candidates and keeps 20 (0.2 ms a question)
    hits: list[tuple[float, str, int, Prepared, tuple[str, ...]]] = []
    for i, p in candidates:
        score, matched = score_entry(p, terms, query_norm, idf, phrasal is None or i in phrasal)
        if score > 0:
            hits.append((-score, p.entry.rel, i, p, matched))
    hits.sort(key=lambda h: (h[0], h[1], h[2]))
    return [KeywordHit(p.entry, -neg, matched) for neg, _, _, p, matched in hits[:top]]


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
        for phrase in p.phrases
        if phrase.norm in query_norm
        for w in phrase.norm.split()
    }
