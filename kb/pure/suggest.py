"""Spelling suggestions offered back on a refusal.

Rules of this module:
- Compare each question word with each word of every declared key by trigram Dice
  similarity; offer the whole key when any pair reaches 0.65 (`publico`/`public` 0.89,
  `ingestao`/`ingest` 0.80, `quando`/`K-quant` 0.57 stays out).
- This is spelling, never meaning: it finds typos and cognates, not translations.
- At most 8 keys (a live fleet's keyword space was ~849 terms: more is noise), best first,
  ties by key. Suggestions are computed only after the verdict is `nothing`, so they can
  never change a verdict.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from kb.pure.entries import Entry
from kb.pure.tokens import normalise, question_terms

SUGGEST_FLOOR = 0.65
SUGGEST_LIMIT = 8


def trigrams(word: str) -> list[str]:
    if len(word) < 3:
        return [word]
    return [word[i : i + 3] for i in range(len(word) - 2)]


def look_alike(a: str, b: str) -> float:
    ta, tb = trigrams(a), trigrams(b)
    shared = sum((Counter(ta) & Counter(tb)).values())
    return 2.0 * shared / (len(ta) + len(tb))


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
            score = max((look_alike(w, p) for p in parts for w in asked), default=0.0)
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
    """A key word's best look-alike score over the question's words (0 when none shares a
    trigram). Cheap tests first: a count ratio that cannot reach the floor, or no trigram
    in common (Dice 0), skip the exact comparison."""
    tris = trigrams(part)
    n = len(tris)
    score = 0.0
    for word, word_tris, m in asked:
        if _could_reach_floor(n, m) and not word_tris.isdisjoint(tris):
            score = max(score, look_alike(word, part))
    return score


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
    share one with a question word are compared; every score is computed by `look_alike`
    exactly as the full scan would. Worth building where many questions are asked of one
    open fleet (a server, the reading room); a one-question process uses `suggest_among`.
    Immutable after construction.
    """

    def __init__(self, key_norms: Iterable[tuple[str, str]]) -> None:
        keys_of_part: dict[str, list[str]] = {}
        parts_of_trigram: dict[str, set[str]] = {}
        seen: set[str] = set()
        for key, norm in key_norms:
            if key in seen:
                continue
            seen.add(key)
            for part in set(norm.split()):
                keys_of_part.setdefault(part, []).append(key)
                for tri in trigrams(part):
                    parts_of_trigram.setdefault(tri, set()).add(part)
        self._keys_of_part = keys_of_part
        self._parts_of_trigram = parts_of_trigram

    @classmethod
    def of_entries(cls, entries: Iterable[Entry]) -> SuggestIndex:
        """An index over entries whose keys are not yet normalised."""
        return cls((key, " ".join(normalise(key))) for entry in entries for key in entry.keywords)

    def suggest(self, question: str, limit: int = SUGGEST_LIMIT) -> list[str]:
        asked = question_terms(question)
        best: dict[str, float] = {}
        for word in set(asked):
            candidates: set[str] = set()
            for tri in set(trigrams(word)):
                candidates |= self._parts_of_trigram.get(tri, set())
            for part in candidates:
                score = look_alike(word, part)
                if score < SUGGEST_FLOOR:
                    continue
                for key in self._keys_of_part[part]:
                    if score > best.get(key, 0.0):
                        best[key] = score
        ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
        return [k for k, _ in ranked[:limit]]
