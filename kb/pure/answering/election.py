"""Electing the agent that owns a question, from the keyword ranking.

Rules of this module:
- Only routable agents (bases with an agent.txt) can be elected; names compare ASCII
  case-insensitively with the entries' base names.
- Each agent counts its best score per species (memory, skills, tools) and sums those at
  most three numbers. Counting per species rather than per file stops an agent that holds
  many notes from winning by volume (upstream, one agent held 59 of 139 files).
- Ties keep first-seen order (the keyword ranking's order).
- `choose_agent_fused` is the same fold over the fused reading list, one contribution per
  file and no species, with the routable filter dropped when the roster is empty. Only
  `kb eval` reports it: it was measured upstream (ADR-0018) and lost to the keyword fold, and
  it stays measured so a regression in it cannot hide. Nothing routes by it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from attrs import frozen

from kb.pure.answering.fusion import Found
from kb.pure.answering.keyword import KeywordHit
from kb.pure.notes.paths import kind_of

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(name: str) -> str:
    """Agent names compare case-insensitively in ASCII only, like the directory names."""
    return name.translate(_ASCII_LOWER)


@frozen
class AgentChoice:
    agent: str
    score: float
    files: int  # how many species contributed (1-3), the field name the wire format keeps
    margin: float  # +inf when no runner-up scored
    contenders: int
    totals: tuple[tuple[str, float], ...]


def choose_agent_by_keyword(
    hits: Sequence[KeywordHit], routable: Sequence[str]
) -> AgentChoice | None:
    names = {ascii_lower(n) for n in routable}
    best: dict[tuple[str, str], float] = {}
    for hit in hits:
        if ascii_lower(hit.entry.base) not in names:
            continue
        key = (hit.entry.base, kind_of(hit.entry.rel))
        if key not in best or hit.score > best[key]:
            best[key] = hit.score
    totals: dict[str, float] = {}
    species: dict[str, int] = {}
    for (base, _kind), score in best.items():
        totals[base] = totals.get(base, 0.0) + score
        species[base] = species.get(base, 0) + 1
    if not totals:
        return None
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])
    winner, score = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
    margin = score / runner_up if runner_up > 0 else math.inf
    return AgentChoice(winner, score, species[winner], margin, len(ranked), tuple(ranked))


def choose_agent_fused(found: Sequence[Found], routable: Sequence[str]) -> AgentChoice | None:
    """The fold over fused scores; `files` counts the files that contributed."""
    names = {ascii_lower(n) for n in routable}
    totals: dict[str, float] = {}
    files: dict[str, int] = {}
    for f in found:
        if names and ascii_lower(f.base) not in names:
            continue
        totals[f.base] = totals.get(f.base, 0.0) + f.score
        files[f.base] = files.get(f.base, 0) + 1
    if not totals:
        return None
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])
    winner, score = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
    margin = score / runner_up if runner_up > 0 else math.inf
    return AgentChoice(winner, score, files[winner], margin, len(ranked), tuple(ranked))
