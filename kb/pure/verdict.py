"""The floor and the verdict: when the keyword scorer's best is strong enough to call a hit.

Rules of this module:
- The floor scales with the fleet: it is the score of 0.6158 unique keys at this size,
  calibrated so that a fleet of 226 entries has the floor 17.5 (the midpoint between the
  best declinable question, 15.1, and the weakest right answer, 19.92, measured upstream).
- hit: the top keyword score reaches the floor and the fleet has at least two entries
  (with one entry every word has the same rarity and nothing can be told apart).
  guess: something scored, below the floor. nothing: no keyword hit at all, whatever the
  text scorer found. Only `nothing` is a refusal.
- Agreement (did the text scorer rank the top file) and margin (top / runner-up) are
  reported and never change the verdict: a 1.5 margin cut measured upstream dropped 12 of
  18 right answers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from attrs import frozen

from kb.pure.keyword import W_KEYWORD, KeywordHit

Verdict = Literal["hit", "guess", "nothing"]

SCORE_FLOOR = 17.5
FLOOR_CALIBRATED_AT = 226
MIN_ENTRIES_TO_ROUTE = 2
MIN_MARGIN = 1.5  # reported in docs only; never gates


def idf_unique(n: int) -> float:
    """The idf of a word found in exactly one of `n` entries."""
    return math.log(1.0 + n / 2.0)


FLOOR_IN_UNIQUE_KEYS = SCORE_FLOOR / (W_KEYWORD * idf_unique(FLOOR_CALIBRATED_AT))


def floor_for(n: int) -> float:
    if n <= 0:
        return 0.0
    return FLOOR_IN_UNIQUE_KEYS * W_KEYWORD * idf_unique(n)


def clears_floor(score: float, n: int) -> bool:
    return n >= MIN_ENTRIES_TO_ROUTE and score >= floor_for(n)


@frozen
class Confidence:
    verdict: Verdict
    agreement: int
    keyword_score: float
    margin: float
    floor: float


def confidence_of(
    keyword_hits: Sequence[KeywordHit], text_keys: set[tuple[str, str]], n: int
) -> Confidence:
    """The verdict from the keyword ranking; `text_keys` are (base, path) the text side found."""
    floor = floor_for(n)
    if not keyword_hits:
        return Confidence("nothing", 0, 0.0, 0.0, floor)
    top = keyword_hits[0]
    runner_up = keyword_hits[1].score if len(keyword_hits) > 1 else 0.0
    margin = top.score / runner_up if runner_up > 0 else 1.0
    agreement = 2 if (top.entry.base, top.entry.rel) in text_keys else 1
    verdict: Verdict = "hit" if clears_floor(top.score, n) else "guess"
    return Confidence(verdict, agreement, top.score, margin, floor)
