"""`remember`: would writing this claim add to the base, update it, or repeat it?

Rules of this module:
- Containment = share of the claim's distinct words (alias words included) found in one
  chunk's words. It measures overlap, never truth: kb proposes ADD, UPDATE or NOOP and
  writes nothing. DELETE is never proposed, because no count of shared words can tell a
  false claim from an absent one.
- NOOP at >= 0.90 (the base already says it), UPDATE at >= 0.55 (the same fact with a new
  value, usually), ADD below, or when nothing matched at all.
- Evidence is ordered by containment, closest first (ties keep search order); five kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from attrs import frozen

from kb.pure.answering.fusion import TextHit
from kb.pure.notes.plural import counted
from kb.pure.notes.tokens import normalise
from kb.pure.render.jsonout import round6

Proposal = Literal["ADD", "UPDATE", "NOOP"]
NOOP_AT = 0.90
UPDATE_AT = 0.55
EVIDENCE_WIDTH = 25  # chunks searched
EVIDENCE_KEPT = 5

NOTICE = (
    "kb measured overlap. Whether the older text is now wrong is a judgement, and so is\n"
    "where a new claim belongs. DELETE is never proposed here: it would need the claim to\n"
    "be false rather than absent, and no count of shared words can tell those apart.\n"
    "The decision and its reason belong in the commit message."
)


@frozen
class Evidence:
    base: str
    path: str
    heading_path: str
    excerpt: str
    containment: float
    shared: tuple[str, ...]
    missing: tuple[str, ...]


@frozen
class Remembered:
    claim: str
    proposal: Proposal
    reason: str
    evidence: tuple[Evidence, ...]


def measure(claim_terms: Sequence[str], hit: TextHit) -> Evidence:
    claim_set = set(claim_terms)
    chunk_set = set(normalise(hit.text))
    shared = tuple(sorted(claim_set & chunk_set))
    missing = tuple(sorted(claim_set - chunk_set))
    containment = len(shared) / len(claim_set) if claim_set else 0.0
    return Evidence(hit.base, hit.path, hit.heading_path, hit.excerpt, containment, shared, missing)


def propose(claim: str, claim_terms: Sequence[str], hits: Sequence[TextHit]) -> Remembered:
    measured = [measure(claim_terms, h) for h in hits]
    evidence = tuple(sorted(measured, key=lambda e: -e.containment)[:EVIDENCE_KEPT])
    if not evidence:
        return Remembered(claim, "ADD", "nothing in the base matched any word of this claim.", ())
    best = evidence[0]
    s, m = len(best.shared), len(best.missing)
    if best.containment >= NOOP_AT:
        return Remembered(
            claim,
            "NOOP",
            f"{s} of {counted(s + m, 'word')} {'is' if s == 1 else 'are'} already present in one "
            "chunk. The base appears to say "
            "this already, so writing it again would be the duplicate that grows a base "
            "without adding to it.",
            evidence,
        )
    if best.containment >= UPDATE_AT:
        adds = ", ".join(best.missing) or "nothing"
        return Remembered(
            claim,
            "UPDATE",
            f"{s} of {counted(s + m, 'word')} already {'appears' if s == 1 else 'appear'} in one "
            f"chunk, and the claim adds: {adds}. "
            "An overlap this large with a small difference is usually the same fact with a "
            "new value, which is an UPDATE rather than an ADD.",
            evidence,
        )
    return Remembered(
        claim,
        "ADD",
        "the closest thing in the base shares only part of this claim, which usually means "
        "related material rather than the same fact.",
        evidence,
    )


def to_json(r: Remembered) -> dict[str, object]:
    return {
        "claim": r.claim,
        "evidence": [
            {
                "base": e.base,
                "containment": round6(e.containment),
                "excerpt": e.excerpt,
                "heading_path": e.heading_path,
                "missing": list(e.missing),
                "path": e.path,
                "shared": list(e.shared),
            }
            for e in r.evidence
        ],
        "notice": NOTICE,
        "proposal": r.proposal,
        "reason": r.reason,
    }


def evidence_lines(r: Remembered, new_label: str = "new:    ") -> list[str]:
    """The evidence block both surfaces print, closest first."""
    lines: list[str] = []
    for e in r.evidence:
        lines += [
            "",
            f"  {e.containment:.2f} contained  {e.base}/{e.path}  {e.heading_path}",
            f"    shared: {', '.join(e.shared) or '-'}",
            f"    {new_label}{', '.join(e.missing) or '-'}",
            f"    {e.excerpt.replace(chr(10), ' ').strip()}",
        ]
    return lines


def render_terminal(r: Remembered) -> str:
    lines = [f"claim: {r.claim}", f"proposal: {r.proposal}", f"reason: {r.reason}", ""]
    if not r.evidence:
        lines.append("  nothing in the base overlaps this claim.")
    else:
        lines.append("evidence, closest first:")
        lines += evidence_lines(r)
    lines += ["", "---", NOTICE]
    return "\n".join(lines) + "\n"
