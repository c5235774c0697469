"""Spelling suggestions offered back on a refusal.

Rules of this module:
- Compare each question word with each word of every declared key by trigram Dice
  similarity; offer the whole key when any pair reaches 0.65 (`publico`/`public` 0.89,
  `ingestao`/`ingest` 0.80, `quando`/`K-quant` 0.57 stays out).
- A one-letter typo of a key word, both of `EDIT_MIN` letters or more (one substitution,
  insertion, deletion or swap of neighbours: `radiom`/`radium`, `gravty`/`gravity`) is
  offered too, scored `EDIT_SCORE` when its Dice is lower: trigrams miss most of them
  (`gravty`/`gravity` 0.44, `radiom`/`radium` 0.50, `raidum`/`radium` 0). A shorter key word
  or question word is left to Dice alone: one letter away from a four-letter word is too
  often another word (`bake`/`cake`/`lake`, `copa`/`copia`), and that would flood the
  suggestions.
- Candidates are found without comparing the question with every key: by a shared trigram,
  and for a key word of 5 or 6 letters also by its deletion neighbourhood (`lookup_keys`).
  A one-edit typo of a longer key word always shares a trigram with it (an edit touches at
  most four of its five or more trigrams), so no neighbourhood is kept for those.
- This is spelling, never meaning: it finds typos and cognates, not translations.
- At most 8 keys (a live fleet's keyword space was ~849 terms: more is noise), best first,
  ties by key. Suggestions are computed only after the verdict is `nothing`, so they can
  never change a verdict.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import chain

from attrs import frozen

from kb.pure.answering.entries import Entry
from kb.pure.notes.spelling import deletions, one_edit
from kb.pure.notes.tokens import normalise, question_terms

SUGGEST_FLOOR = 0.65
SUGGEST_LIMIT = 8
EDIT_MIN = 5  # letters a key word and the question word need before a typo is offered
EDIT_SCORE = 0.8  # a one-letter typo's score when its Dice is lower
# Key words short enough that a one-edit typo may share no trigram with them; their deletion
# neighbourhoods are indexed, each marked so it can never equal a trigram (a word's own
# characters are letters and digits only).
NEIGHBOURHOOD_LENGTHS = (5, 6)
DELETION_MARK = "~"


def trigrams(word: str) -> list[str]:
    if len(word) < 3:
        return [word]
    return [word[i : i + 3] for i in range(len(word) - 2)]


def look_alike(a: str, b: str) -> float:
    ta, tb = trigrams(a), trigrams(b)
    return _dice(ta, tb, set(ta), set(tb))


def _dice(ta: list[str], tb: list[str], sa: set[str], sb: set[str]) -> float:
    """Dice over the trigram multisets `ta`, `tb` (their sets `sa`, `sb` given): with no
    trigram repeated in either, the shared count is the sets' intersection, which costs a
    fifth of two Counters (a refusal at 10,000 notes compares ~1,200 key words)."""
    if len(sa) == len(ta) and len(sb) == len(tb):
        shared = len(sa & sb)
    else:
        shared = sum((Counter(ta) & Counter(tb)).values())
    return 2.0 * shared / (len(ta) + len(tb))


def typo_of(word: str, part: str) -> bool:
    """Whether the question word `word` is a one-letter typo of the key word `part`."""
    return min(len(word), len(part)) >= EDIT_MIN and one_edit(word, part)


def word_score(word: str, part: str) -> float:
    """How much `word` looks like the key word `part`: its Dice, or `EDIT_SCORE` for a
    one-letter typo whose Dice is lower."""
    score = look_alike(word, part)
    return max(score, EDIT_SCORE) if score < EDIT_SCORE and typo_of(word, part) else score


def lookup_keys(part: str) -> list[str]:
    """What a key word is found by: its trigrams, and for a key word of 5 or 6 letters its
    deletion neighbourhood, marked (what the index's `kw_trigrams` rows hold for it)."""
    keys = list(dict.fromkeys(trigrams(part)))
    if len(part) in NEIGHBOURHOOD_LENGTHS:
        keys += sorted(DELETION_MARK + d for d in deletions(part))
    return keys


def question_lookups(word: str) -> set[str]:
    """What a question word looks key words up by: its trigrams, and its own deletion
    neighbourhood when it is long enough to be taken for a typo (`EDIT_MIN`) and a
    one-letter typo of a 5- or 6-letter word could be this long."""
    keys = set(trigrams(word))
    if EDIT_MIN <= len(word) <= max(NEIGHBOURHOOD_LENGTHS) + 1:
        keys |= {DELETION_MARK + d for d in deletions(word)}
    return keys


def suggest(question: str, entries: Iterable[Entry], limit: int = SUGGEST_LIMIT) -> list[str]:
    asked = question_terms(question)
    if not asked:
        return []
    collected: dict[str, float] = {}
    for entry in entries:
        for key in entry.keywords:
            if key in collected:
                continue
            parts = normalise(key)
            score = max((word_score(w, p) for p in parts for w in asked), default=0.0)
            if score >= SUGGEST_FLOOR:
                collected[key] = score
    ranked = sorted(collected.items(), key=lambda kv: (-kv[1], kv[0]))
    return [k for k, _ in ranked[:limit]]


# Dice = 2s / (a + b) with s <= min(a, b), so reaching SUGGEST_FLOOR needs the smaller
# trigram count to be at least FLOOR / (2 - FLOOR) of the larger: 0.481 at 0.65.
_MIN_COUNT_RATIO = SUGGEST_FLOOR / (2.0 - SUGGEST_FLOOR)


def _could_reach_floor(a: int, b: int) -> bool:
    return min(a, b) >= _MIN_COUNT_RATIO * max(a, b)


Asked = list[tuple[str, set[str], int]]  # each question word, its trigram set and count


def asked_words(question: str) -> Asked:
    """The question's distinct words, sorted, each with its trigrams: what every key word
    is compared with."""
    return [(w, set(trigrams(w)), len(trigrams(w))) for w in sorted(set(question_terms(question)))]


def part_score(part: str, asked: Asked) -> float:
    """A key word's best score over the question's words, as `word_score` gives it (0 when
    none shares a trigram and none is a typo of it). Cheap tests first: a count ratio that
    cannot reach the floor, or no trigram in common (Dice 0), skip the exact comparison."""
    tris = trigrams(part)
    n = len(tris)
    part_set = set(tris)
    score = 0.0
    for word, word_tris, m in asked:
        if _could_reach_floor(n, m) and not word_tris.isdisjoint(part_set):
            score = max(score, _dice(trigrams(word), tris, word_tris, part_set))
        if score < EDIT_SCORE and abs(len(word) - len(part)) <= 1 and typo_of(word, part):
            score = EDIT_SCORE
    return score


@frozen
class WordBound:
    """What a key word must meet against one question word before it is scored: Dice can
    reach SUGGEST_FLOOR by the trigrams they share, or its length lets it be a one-letter
    typo of the word. Only a necessary condition, so a key word it keeps out would never
    have been suggested (a property test holds this); the index applies it in SQL
    (kb.io.store.keywords.KeywordPostings.parts_within), which is what makes a refusal
    cheap: at 10,000 notes a nonsense word shares a trigram with ~1,700 key words (`ing`
    alone with hundreds), and scoring each was 20 ms of a 25 ms refusal."""

    lookups: tuple[str, ...]  # what the word finds key words by (`question_lookups`)
    trigrams: tuple[str, ...]  # its distinct trigrams: the ones Dice counts
    count: int  # its trigrams, repeats included
    typo_lengths: tuple[int, int]  # a typo key word's shortest and longest; (1, 0): none
    # A one-letter edit at position i leaves the first i letters and all but the next two
    # after it as they were, so a typo of five letters or more keeps the word's first two
    # letters or its last two.
    ends: tuple[str, str]


def word_bound(word: str, word_tris: set[str], count: int) -> WordBound:
    shortest = max(EDIT_MIN, len(word) - 1)
    longest = len(word) + 1 if len(word) >= EDIT_MIN else 0
    return WordBound(
        tuple(sorted(question_lookups(word))),
        tuple(sorted(word_tris)),
        count,
        (shortest, longest) if shortest <= longest else (1, 0),
        (word[:2], word[-2:]),
    )


def within_bound(bound: WordBound, part: str, shared: int) -> bool:
    """The SQL filter's rule, for the tests: `shared` is how many of the word's distinct
    trigrams the key word has. A repeated trigram of the word can be shared once more than
    the sets count, so the repeats are added back; `trigrams(part)` has max(1, len - 2)."""
    repeats = bound.count - len(bound.trigrams)
    n = max(1, len(part) - 2)
    low, high = bound.typo_lengths
    return 2.0 * (shared + repeats) >= SUGGEST_FLOOR * (bound.count + n) or (
        low <= len(part) <= high and (part[:2] == bound.ends[0] or part[-2:] == bound.ends[1])
    )


def kept_by_bound(bound: WordBound, shared: Mapping[str, int]) -> list[str]:
    """The key words of `shared` (key word -> how many of the word's distinct trigrams it
    has) that meet `within_bound`, each once (in no set order). A refusal's nonsense word
    meets ~1,700 key words at 10,000 notes, nearly all through one common trigram: calling
    `within_bound` on each was 1.2 ms of a 5 ms refusal in the daemon. Here most are let go
    by one comparison of their count with the least a Dice test can pass with (a key word
    has at least one trigram), and only the words of a typo's length are looked at again."""
    repeats = bound.count - len(bound.trigrams)
    floor, count = SUGGEST_FLOOR, bound.count
    # 2(s + repeats) >= floor * (count + n) with n >= 1; the slack keeps a rounding at the
    # edge from letting go a word the exact test below would keep
    least = floor * (count + 1) / 2.0 - repeats - 1e-9
    kept = [
        p
        for p, s in shared.items()
        if s >= least and 2.0 * (s + repeats) >= floor * (count + max(1, len(p) - 2))
    ]
    low, high = bound.typo_lengths
    if low <= high:
        first, last = bound.ends
        kept += [p for p in shared if low <= len(p) <= high and (p[:2] == first or p[-2:] == last)]
    return kept


def best_keys(scored: Iterable[tuple[str, float]], limit: int = SUGGEST_LIMIT) -> list[str]:
    """(key, score of one of its words) pairs to the suggestions: each key at its best
    score, kept from the floor up, best first, ties by key."""
    best: dict[str, float] = {}
    for key, score in scored:
        if score >= SUGGEST_FLOOR and score > best.get(key, 0.0):
            best[key] = score
    ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
    return [k for k, _ in ranked[:limit]]


def suggest_among(
    question: str, key_norms: Iterable[tuple[str, str]], limit: int = SUGGEST_LIMIT
) -> list[str]:
    """`suggest`, given every key with its normalised words already joined by spaces (the
    header cache holds them), so one refusal costs one pass over the distinct key words
    and no tokenising."""
    asked = asked_words(question)
    if not asked:
        return []
    scores: dict[str, float] = {}

    def scored() -> Iterable[tuple[str, float]]:
        for key, norm in dict.fromkeys(key_norms):  # keys repeat across notes: compare once
            for part in norm.split():
                score = scores.get(part)
                if score is None:
                    score = scores[part] = part_score(part, asked)
                yield key, score

    return best_keys(scored(), limit)


class SuggestIndex:
    """The same suggestions as `suggest`, without comparing the question with every key.

    Dice similarity is zero unless two words share a trigram, so only the key words that
    share a lookup with a question word are looked at, and of those only the ones that meet
    the word's `WordBound` (the rule the persisted index applies in SQL) are scored, each by
    `part_score` exactly as the full scan would. Worth building where many questions are
    asked of one open fleet (a warm Memory, the resident kb, the reading room); a
    one-question process uses the persisted trigrams or `suggest_among`. At 10,000 notes a
    refusal's suggestions cost 9.8 ms from SQLite in the daemon. Immutable after
    construction.
    """

    def __init__(self, key_norms: Iterable[tuple[str, str]]) -> None:
        keys_of_part: dict[str, list[str]] = {}
        parts_of_lookup: dict[str, list[str]] = {}  # trigram or marked deletion -> key words
        for key, norm in key_norms:
            for part in dict.fromkeys(norm.split()):
                found = keys_of_part.get(part)
                if found is None:
                    keys_of_part[part] = [key]
                    for look in lookup_keys(part):
                        parts_of_lookup.setdefault(look, []).append(part)
                else:
                    found.append(key)
        # A key many entries hold is listed once, where it was first met. Deduplicated here
        # rather than by a set of every key seen: that set was 34 MB at 100,000 generated
        # notes (674,000 distinct keys), alive only during the build and its highest point.
        for part, keys in keys_of_part.items():
            if len(keys) > 1:
                once = list(dict.fromkeys(keys))
                if len(once) < len(keys):
                    keys_of_part[part] = once
        self._keys_of_part = keys_of_part
        self._parts_of_lookup = parts_of_lookup

    @classmethod
    def of_entries(cls, entries: Iterable[Entry]) -> SuggestIndex:
        """An index over entries whose keys are not yet normalised."""
        return cls((key, " ".join(normalise(key))) for entry in entries for key in entry.keywords)

    def suggest(self, question: str, limit: int = SUGGEST_LIMIT) -> list[str]:
        asked = asked_words(question)
        if not asked:
            return []
        parts: set[str] = set()
        of_lookup = self._parts_of_lookup
        for word, word_tris, count in asked:
            bound = word_bound(word, word_tris, count)
            # How many of the word's distinct trigrams each key word has, counted in C: a
            # common trigram (`ing`) holds hundreds of key words. Its marked deletions find
            # key words without counting as shared trigrams.
            shared = Counter(chain.from_iterable(of_lookup.get(t, ()) for t in bound.trigrams))
            for look in bound.lookups:
                if look not in word_tris:
                    for part in of_lookup.get(look, ()):
                        shared.setdefault(part, 0)
            parts.update(kept_by_bound(bound, shared))
        good = {p: s for p in parts if (s := part_score(p, asked)) >= SUGGEST_FLOOR}
        pairs = ((key, score) for p, score in good.items() for key in self._keys_of_part[p])
        return best_keys(pairs, limit)
