"""The `kb route --json` payload: frozen values whose fields are the wire contract.

Field names and order are pinned by golden files; cattrs turns the values into plain data
and `jsonout` writes it. Every object's keys are in codepoint order (the spec sorts them),
and every score or ratio is rounded to six decimals here, once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cattrs
from attrs import frozen

from kb.pure.answering.election import AgentChoice
from kb.pure.answering.fusion import Found
from kb.pure.answering.verdict import Confidence
from kb.pure.render.jsonout import round6

PATHS_SHOWN = 8


@frozen
class WirePassage:
    excerpt: str
    heading_path: str
    provenance: str | None
    stage: str | None
    text: str


@frozen
class WireResult:
    base: str
    keyword_score: float
    matched: list[str]
    memory: str
    passages: list[WirePassage]
    path: str
    purpose: str
    score: float
    stale: bool  # the file changed on disk since it was indexed: passages may be out of date
    title: str
    why: list[str]


@frozen
class WireTotal:
    agent: str
    score: float


@frozen
class WireAgent:
    contenders: int
    files: int
    margin: float | None
    name: str
    score: float
    totals: list[WireTotal]


@frozen
class WireConfidence:
    agreement: int
    coverage: float  # the share of the question the top file covers (the verdict's evidence)
    keyword_score: float
    margin: float


@frozen
class WireGate:
    floor: float
    ranked_by_text_only: bool
    served: bool


@frozen
class WireIndexed:
    agents: int
    aliases: int
    entries: int


@frozen
class WireMiss:
    date: str
    error: str | None
    log: str
    looked_like: list[str]
    question: str
    recorded: bool


@frozen
class WireUnreachable:
    files: int
    paths: list[str]
    unindexed: int
    unindexed_paths: list[str]


@frozen
class RoutePayload:
    agent: WireAgent | None
    confidence: WireConfidence
    gate: WireGate
    index_was_rebuilt: bool
    indexed: WireIndexed
    keyword_top: str | None
    miss: WireMiss | None
    question: str
    results: list[WireResult]
    skipped: list[str]
    suggestions: list[str]
    unreachable: WireUnreachable
    verdict: str


def wire_result(f: Found, stale: bool = False) -> WireResult:
    return WireResult(
        base=f.base,
        keyword_score=round6(f.keyword_score),
        matched=list(f.matched),
        memory=f.layer,
        passages=[
            WirePassage(p.excerpt, p.heading_path, p.provenance, p.stage, p.text)
            for p in f.passages
        ],
        path=f.path,
        purpose=f.purpose,
        score=round6(f.score),
        stale=stale,
        title=f.title,
        why=list(f.why),
    )


def wire_agent(a: AgentChoice | None) -> WireAgent | None:
    if a is None:
        return None
    return WireAgent(
        contenders=a.contenders,
        files=a.files,
        margin=None if math.isinf(a.margin) else round6(a.margin),
        name=a.agent,
        score=round6(a.score),
        totals=[WireTotal(name, round6(score)) for name, score in a.totals],
    )


def route_payload(
    *,
    question: str,
    confidence: Confidence,
    found: Sequence[Found],
    agent: AgentChoice | None,
    keyword_top: str | None,
    entries: int,
    agents: int,
    aliases: int,
    unreachable: Sequence[str],
    unindexed: Sequence[str],
    index_was_rebuilt: bool,
    miss: WireMiss | None,
    changed: frozenset[tuple[str, str]] = frozenset(),
) -> RoutePayload:
    nothing = confidence.verdict == "nothing"
    return RoutePayload(
        agent=wire_agent(agent),
        confidence=WireConfidence(
            confidence.agreement,
            round6(confidence.coverage),
            round6(confidence.keyword_score),
            round6(confidence.margin),
        ),
        gate=WireGate(
            floor=round6(confidence.floor),
            ranked_by_text_only=nothing and bool(found),
            served=not nothing,
        ),
        index_was_rebuilt=index_was_rebuilt,
        indexed=WireIndexed(agents=agents, aliases=aliases, entries=entries),
        keyword_top=keyword_top,
        miss=miss,
        question=question,
        results=[wire_result(f, (f.base, f.path) in changed) for f in found],
        skipped=[],
        suggestions=list(miss.looked_like) if miss else [],
        unreachable=WireUnreachable(
            files=len(unreachable),
            paths=list(unreachable[:PATHS_SHOWN]),
            unindexed=len(unindexed),
            unindexed_paths=list(unindexed[:PATHS_SHOWN]),
        ),
        verdict=confidence.verdict,
    )


_converter = cattrs.Converter()


def unstructure(value: object) -> Any:
    return _converter.unstructure(value)
