"""Fusing the two rankings into one reading list: Reciprocal Rank Fusion, k = 60.

Rules of this module:
- Scores from the two scorers are never compared, only ranks: each list contributes
  1 / (60 + rank) to a file, so a file both scorers rank gets about twice the weight.
- A file scores once for text, at its best chunk, but keeps every matching chunk as a
  passage in text-rank order.
- Results sort by fused score descending, then path.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import evolve, frozen

from kb.pure.keyword import KeywordHit
from kb.pure.paths import Layer, layer_of

RRF_K = 60


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


@frozen
class Passage:
    heading_path: str
    text: str
    excerpt: str
    provenance: str | None
    stage: str | None


@frozen
class Found:
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


def fuse(keyword: Sequence[KeywordHit], text: Sequence[TextHit], top: int) -> list[Found]:
    order: list[tuple[str, str]] = []
    found: dict[tuple[str, str], Found] = {}

    def slot(base: str, path: str) -> Found:
        key = (base, path)
        if key not in found:
            order.append(key)
            found[key] = Found(base, path, layer_of(path), "", "", 0.0, 0.0, (), (), ())
        return found[key]

    for r, hit in enumerate(keyword):
        if not hit.entry.rel:
            continue
        f = slot(hit.entry.base, hit.entry.rel)
        matched = f.matched + tuple(m for m in hit.matched if m not in f.matched)
        found[(f.base, f.path)] = evolve(
            f,
            score=f.score + 1.0 / (RRF_K + r + 1),
            keyword_score=hit.score,
            why=(*f.why, f"keywords #{r + 1}"),
            title=hit.entry.title,
            purpose=hit.entry.summary,
            matched=matched,
        )
    seen_text: set[tuple[str, str]] = set()
    for r, th in enumerate(text):
        f = slot(th.base, th.path)
        key = (th.base, th.path)
        score, why = f.score, f.why
        if key not in seen_text:
            seen_text.add(key)
            score += 1.0 / (RRF_K + r + 1)
            why = (*why, f"text #{r + 1}")
        passage = Passage(th.heading_path, th.text, th.excerpt, th.provenance, th.stage)
        found[key] = evolve(f, score=score, why=why, passages=(*f.passages, passage))
    ranked = sorted((found[k] for k in order), key=lambda f: (-f.score, f.path))
    return ranked[:top]


def merge_round_robin(per_base: Sequence[Sequence[TextHit]], limit: int) -> list[TextHit]:
    """Rank 0 of every base, then rank 1, ...: BM25 values are never compared across indexes."""
    out: list[TextHit] = []
    depth = max((len(hits) for hits in per_base), default=0)
    for r in range(depth):
        for hits in per_base:
            if r < len(hits):
                out.append(hits[r])
                if len(out) >= limit:
                    return out
    return out


def no_agreement(found: Sequence[Found]) -> bool:
    return bool(found) and all(len(f.why) < 2 for f in found)


def looks_stale(found: Sequence[Found]) -> bool:
    return bool(found) and all(not f.passages for f in found)
