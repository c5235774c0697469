"""Fusing the two rankings into one reading list, ordered by evidence.

Rules of this module:
- A file's fused score is its best chunk's text score over the text scale, plus its
  keyword share (`keyword_share`) times its keyword score over the keyword scale. Each
  scale is the larger of the best score found and what a complete answer would score (the
  question's total text weight; its total keyword weight as declared keys), so a weak best
  (one common word) is not taken for a full answer. Both text scores are on the fleet-wide
  scale (`kb.pure.answering.textrank`), so the order never depends on which base came first. (The
  original fused by reciprocal rank, k = 60, and merged bases round-robin; decision 0016
  has the measurements that retired both.)
- A file scores once for text, at its file text score (its best chunk's, averaged with its
  whole page's when it has several chunks: `textrank.file_text_score`), but keeps every
  matching chunk as a passage in text-rank order.
- Results sort by fused score descending, then path, then base.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from attrs import frozen

from kb.pure.answering.keyword import KeywordHit
from kb.pure.notes.paths import Layer, layer_of
from kb.pure.notes.tokens import normalise

RRF_K = 60  # the original's rank-fusion constant; kept for the record, no longer used
# The keyword ranking's weight beside the text ranking's. On til-dev (plain notes, fused
# top-1 of 150): 0 -> 79, 0.05 -> 84, 0.1 -> 83, 0.2 -> 77, 1 -> 43; the demo fleet's ten
# answers stay first at every value. Title words already weigh double in the text index,
# so an equal share counts them twice.
KEYWORD_SHARE = 0.1


@frozen
class TextHit:
    base: str
    path: str
    heading_path: str
    excerpt: str
    text: str
    provenance: str | None
    stage: str | None
    captured_from: str | None
    # Where the row lives, for fetching its text later: the chunk's rowid and the index of
    # the base's store among the open ones (0 when the hit already carries its text).
    rowid: int = 0
    source: int = 0
    # The chunk's score on the fleet-wide scale (`kb.pure.answering.textrank`) and the question's
    # words it holds.
    score: float = 0.0
    matched: tuple[str, ...] = ()


@frozen
class Passage:
    heading_path: str
    text: str
    excerpt: str
    provenance: str | None
    stage: str | None


@frozen
class Found:
    """One file of the reading list. `score` is its fused score: its text share (its text
    score over the text scale, at most 1) plus its keyword share (at most 1 for declared keys
    covering the whole question, 0.1 for derived ones), so 0 to 2, and about 1 for a file
    that holds the whole question in its text. `file` is its absolute path on this machine
    (empty until `Memory.ask` fills it in)."""

    base: str
    path: str
    layer: Layer
    title: str
    purpose: str
    score: float
    keyword_score: float
    why: tuple[str, ...]
    matched: tuple[str, ...]
    passages: tuple[Passage, ...]
    file: str = ""


def keyword_share(hit: KeywordHit, weights: Mapping[str, float] | None) -> float:
    """How much a keyword hit weighs beside the text ranking. Keys derived from a note's
    own text repeat its title, which the text index already weighs: `KEYWORD_SHARE`.
    Declared keys never reach the text index, so they are evidence of their own: their
    share grows with the square of the question weight they cover, up to an equal share
    (a hand-keyed fleet's answer matches most of the question; one shared title word of a
    paraphrase does not)."""
    if hit.entry.derived or not weights:
        return KEYWORD_SHARE
    total = sum(weights.values())
    words = {w for m in hit.matched for w in normalise(m)}
    covered = sum(v for t, v in weights.items() if t in words) / total if total > 0 else 0.0
    return KEYWORD_SHARE + (1.0 - KEYWORD_SHARE) * min(1.0, covered) ** 2


class _Gathered:
    """One file's fields while `fuse` meets its hits (mutable, and local to one call)."""

    __slots__ = (
        "keyword_score",
        "matched",
        "passages",
        "purpose",
        "score",
        "text_seen",
        "title",
        "why",
    )

    def __init__(self) -> None:
        self.title = ""
        self.purpose = ""
        self.score = 0.0
        self.keyword_score = 0.0
        self.why: list[str] = []
        self.matched: list[str] = []
        self.passages: list[Passage] = []
        self.text_seen = False


def fuse(
    keyword: Sequence[KeywordHit],
    text: Sequence[TextHit],
    top: int,
    weights: Mapping[str, float] | None = None,
    keyword_complete: float = 0.0,
    file_scores: Mapping[tuple[str, str], float] | None = None,
) -> list[Found]:
    """The reading list. `weights` are the question's own words' text weights (their sum is
    what a complete text answer scores); `keyword_complete` what an entry declaring every
    question word as a key would score. Without them the scales are the best scores.
    `file_scores` are each file's text score (`textrank.file_text_score`); without them a
    file's text score is its best chunk's."""

    def text_score(th: TextHit) -> float:
        if file_scores is None:
            return th.score
        return file_scores.get((th.base, th.path), th.score)

    keyword_best = max(max((h.score for h in keyword), default=0.0), keyword_complete)
    text_best = max(
        max((text_score(t) for t in text), default=0.0),
        sum(weights.values()) if weights else 0.0,
    )
    # Each file's fields gathered as the hits come, in first-met order, and its Found built
    # once: an `evolve` per hit was 0.15 ms of an answer at 10,000 notes.
    found: dict[tuple[str, str], _Gathered] = {}

    def slot(base: str, path: str) -> _Gathered:
        key = (base, path)
        f = found.get(key)
        if f is None:
            f = found[key] = _Gathered()
        return f

    for r, hit in enumerate(keyword):
        if not hit.entry.rel:
            continue
        f = slot(hit.entry.base, hit.entry.rel)
        f.matched.extend([m for m in hit.matched if m not in f.matched])
        share = keyword_share(hit, weights) * hit.score / keyword_best if keyword_best > 0 else 0.0
        f.score += share
        f.keyword_score = hit.score
        f.why.append(f"keywords #{r + 1}")
        f.title, f.purpose = hit.entry.title, hit.entry.summary
    for r, th in enumerate(text):
        f = slot(th.base, th.path)
        if not f.text_seen:
            f.text_seen = True
            # Hits built without a score (older callers) fall back to their rank.
            f.score += text_score(th) / text_best if text_best > 0 else 1.0 / (r + 1)
            f.why.append(f"text #{r + 1}")
        f.passages.append(Passage(th.heading_path, th.text, th.excerpt, th.provenance, th.stage))
    built = (
        Found(
            base,
            path,
            layer_of(path),
            f.title,
            f.purpose,
            f.score,
            f.keyword_score,
            tuple(f.why),
            tuple(f.matched),
            tuple(f.passages),
        )
        for (base, path), f in found.items()
    )
    ranked = sorted(built, key=lambda f: (-f.score, f.path, f.base))
    return ranked[:top]


# A passage's excerpt is FTS5's snippet of this many words around the matches; a passage
# with no match (a file found by its keys alone) shows its opening words instead.
EXCERPT_WORDS = 14


def opening_excerpt(text: str) -> str:
    """The first `EXCERPT_WORDS` words of `text`, marked as cut when there are more."""
    words = text.split()
    cut = " ... " if len(words) > EXCERPT_WORDS else ""
    return " ".join(words[:EXCERPT_WORDS]) + cut


def no_agreement(found: Sequence[Found]) -> bool:
    return bool(found) and all(len(f.why) < 2 for f in found)


def looks_stale(found: Sequence[Found]) -> bool:
    return bool(found) and all(not f.passages for f in found)
