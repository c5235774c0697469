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
from kb.pure.tokens import normalise

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
    asked = normalise(question)
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
