"""The classifier: the dossier a model reads to pick who answers a message, and its reply.

Rules of this module:
- The dossier is a stable prefix (the roster and the judging rules, identical for every
  message of a fleet, so a prompt cache serves it) followed by a variable tail (what
  retrieval found, what it thinks of that, the message). Measured upstream, the split took
  prefilled tokens per message from 755 to about 495 and a 2B model from 7.9 s to 4.0 s.
- The prose is ours; the answer format (five `KEY:` lines) is the contract.
- The message in the tail is cut at 2,200 UTF-8 bytes (at a character boundary): the tail
  budget upstream, and a hook payload can be megabytes.
- Reply parsing is tolerant of markdown dressing (`**OWNER:**`, `- COVERAGE: ...`) and
  strict about names: an owner or a reviewer the roster does not hold is never returned, so
  a model cannot invent an agent. No COVERAGE line and no OWNER line at all means the
  model did not answer. Reviewers stop at three and never include the owner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from attrs import frozen

from kb.pure.answering.election import ascii_lower
from kb.pure.answering.fusion import Found
from kb.pure.answering.keyword import KeywordHit
from kb.pure.answering.verdict import Confidence
from kb.pure.notes.paths import KINDS, kind_of

Coverage = Literal["covered", "adjacent", "uncovered"]

MAX_PANEL = 3
FOUND_LINES = 5
SPECIES_AGENTS = 4
MESSAGE_BUDGET = 2200
ABOUT_CAP = 160


@frozen
class RosterAgent:
    """A routable agent as its card declares it: what it does and where it stops."""

    name: str
    role: str | None = None
    ends: str | None = None


@frozen
class Reviewer:
    name: str
    why: str


@frozen
class Judgement:
    """What the classifier decided about one message."""

    subject: str
    reason: str
    coverage: Coverage
    owner: str | None
    reviewers: tuple[Reviewer, ...] = ()


# -- text helpers ---------------------------------------------------------------------------


def cut_bytes(text: str, cap: int) -> str:
    """The longest prefix of `text` of at most `cap` UTF-8 bytes, ending on a character."""
    data = text.encode("utf-8")
    if len(data) <= cap:
        return text
    return data[:cap].decode("utf-8", errors="ignore")


def one_line(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ")


def about(purpose: str, cap: int = ABOUT_CAP) -> str:
    """A purpose line cleaned for the dossier: no list marker, no leading wikilink, no
    emphasis or code marks, no non-ASCII symbols, one line, at most `cap` bytes."""
    text = purpose.strip()
    while text[:2] in ("- ", "* ", "+ "):
        text = text[2:].lstrip()
    if text.startswith("[["):
        end = text.find("]]")
        if end != -1:
            text = text[end + 2 :]
    text = text.replace("*", "").replace("`", "")
    text = "".join(c for c in text if c.isascii() or c.isalpha())
    text = " ".join(text.split())
    if len(text.encode("utf-8")) <= cap:
        return text
    head = cut_bytes(text, cap)
    stop = head.rfind(". ")
    if stop != -1 and len(head[:stop].encode("utf-8")) > cap // 3:
        return head[: stop + 1]
    space = head.rfind(" ")
    return (head[:space] if space > 0 else head).rstrip() + "..."


# -- the dossier ----------------------------------------------------------------------------


def prefix(roster: Sequence[RosterAgent]) -> str:
    lines = [
        "You are Vesta, the librarian of a fleet of agents. One message has arrived and you "
        "decide who answers it. Reply only in the format given at the very end, with nothing "
        "before or after it.",
        "",
        "THE FLEET, and these names are the only ones you may choose:",
    ]
    for agent in roster:
        lines.append(f"  {ascii_lower(agent.name)}")
        lines.append(f"    does:  {one_line(agent.role or 'not declared')}")
        if agent.ends:
            lines.append(f"    stops: {one_line(agent.ends)}")
    lines += [
        "",
        "HOW TO JUDGE.",
        "- Judge by what each agent does and where it stops. The retrieval scores further down "
        "count shared words, not understanding: never choose by them.",
        "- covered: the message sits squarely inside one agent's declared ground. The bar is high.",
        "- adjacent: an agent is near, but the message falls past where it stops or between "
        "two agents. Name the nearest as owner.",
        "- uncovered: nothing in the fleet is near enough to name. The owner is none.",
        "- Torn between covered and adjacent? Answer adjacent.",
        "- Example. A fleet holds a marketer, a nutritionist, a software architect who stops "
        "before running systems in production, and an interface designer. The message asks "
        "how to tune Kubernetes autoscaling for a spiky workload. That is adjacent, and the "
        "owner is the software architect: the nearest ground, but running the cluster is "
        "exactly where that agent stops.",
        "",
        "THE PANEL.",
        "One owner is normal. Only when the message makes a claim that lands squarely in a "
        "second agent's domain, name that agent as a reviewer with what it must check. Each "
        "reviewer costs its whole constitution, so name one only when it is needed, at most "
        "three, and never the owner.",
        "",
    ]
    return "\n".join(lines) + "\n"


def _verdict_phrase(c: Confidence) -> str:
    return {
        "hit": "a hit: the top file cleared the floor",
        "guess": "a guess: something scored, below the floor",
        "nothing": "nothing: no file's keywords matched",
    }[c.verdict]


def species_table(
    hits: Sequence[KeywordHit], routable: Sequence[str]
) -> list[tuple[str, dict[str, float]]]:
    """Per routable agent, its best keyword score per species; best sum first, at most 4."""
    names = {ascii_lower(n) for n in routable}
    best: dict[str, dict[str, float]] = {}
    for h in hits:
        if ascii_lower(h.entry.base) not in names:
            continue
        per = best.setdefault(h.entry.base, {})
        kind = kind_of(h.entry.rel)
        per[kind] = max(per.get(kind, 0.0), h.score)
    ranked = sorted(best.items(), key=lambda kv: -sum(kv[1].values()))
    return ranked[:SPECIES_AGENTS]


def tail(
    message: str,
    found: Sequence[Found],
    hits: Sequence[KeywordHit],
    routable: Sequence[str],
    confidence: Confidence,
) -> str:
    lines = ["WHAT THE LIBRARY FOUND for this message (lexical: a high score means shared words):"]
    if not found:
        lines.append("  (nothing matched)")
    for f in found[:FOUND_LINES]:
        matched = ", ".join(f.matched) or "text only"
        lines.append(
            f"  [{kind_of(f.path)}] {f.base}/{f.path}  score {f.keyword_score:.1f}  "
            f"matched: {one_line(matched)}"
        )
        line = about(f.purpose)
        if line:
            lines.append(f"      about: {line}")
    table = species_table(hits, routable)
    if table:
        lines += ["", "BEST SCORE PER AGENT, by kind of file:"]
        for base, per in table:
            cells = ", ".join(
                f"{kind} {per[kind]:.1f}" if kind in per else f"{kind} -" for kind in KINDS
            )
            lines.append(f"  {base}: {cells}")
    agree = {2: "Both", 1: "Only one"}.get(confidence.agreement, "Neither")
    lines += [
        "",
        "WHAT RETRIEVAL THINKS OF THAT.",
        f"  The top file covers {confidence.coverage:.0%} of the question; top keyword score "
        f"{confidence.keyword_score:.1f}. "
        f"{agree} of the two independent scorers ranked the top file. It leads the runner-up "
        f"by {confidence.margin:.2f}x. Verdict: {_verdict_phrase(confidence)}.",
        "",
        "THE MESSAGE:",
        f"  {cut_bytes(one_line(message), MESSAGE_BUDGET)}",
        "",
        "Answer in exactly these five lines, in this order:",
        "SUBJECT: <two to five words naming the domain this message belongs to>",
        "REASON: <one sentence>",
        "COVERAGE: <covered|adjacent|uncovered>",
        "OWNER: <name from the list, or none>",
        "REVIEWERS: <none, or up to three as `name: what they must check`, separated by ;>",
    ]
    return "\n".join(lines) + "\n"


def dossier(
    roster: Sequence[RosterAgent],
    message: str,
    found: Sequence[Found],
    hits: Sequence[KeywordHit],
    confidence: Confidence,
) -> str:
    return prefix(roster) + tail(message, found, hits, [a.name for a in roster], confidence)


# -- the reply ------------------------------------------------------------------------------


def field_of(reply: str, key: str) -> str | None:
    """The value of the first line that starts with `key` once markdown dressing is removed."""
    for raw in reply.split("\n"):
        line = raw.strip().lstrip("*-# ")
        if not line.startswith(key):
            continue
        rest = line[len(key) :].lstrip("* ")
        if rest.startswith(":"):
            rest = rest[1:]
        return rest.strip().strip("*").strip()
    return None


def _roster_name(value: str, roster: Sequence[str]) -> str | None:
    folded = ascii_lower(value)
    return next((n for n in roster if ascii_lower(n) == folded), None)


def _reviewers(value: str, roster: Sequence[str], owner: str | None) -> tuple[Reviewer, ...]:
    if value.strip().lower() in ("", "none", "-"):
        return ()
    out: list[Reviewer] = []
    for piece in value.split(";"):
        name, _, why = piece.lstrip("*- ").partition(":")
        known = _roster_name(name.strip("*` "), roster)
        if known is None or known == owner or any(r.name == known for r in out):
            continue
        out.append(Reviewer(known, why.strip()))
        if len(out) == MAX_PANEL:
            break
    return tuple(out)


def parse_reply(reply: str, roster: Sequence[str]) -> Judgement | None:
    """The judgement in a classifier's reply; None when it carries neither COVERAGE nor OWNER."""
    coverage_text = field_of(reply, "COVERAGE")
    owner_text = field_of(reply, "OWNER")
    if coverage_text is None and owner_text is None:
        return None
    folded = (coverage_text or "").lower()
    coverage: Coverage = (
        "covered" if folded == "covered" else "adjacent" if folded == "adjacent" else "uncovered"
    )
    owner = _roster_name(owner_text, roster) if owner_text else None
    return Judgement(
        subject=field_of(reply, "SUBJECT") or "",
        reason=field_of(reply, "REASON") or "",
        coverage=coverage,
        owner=owner,
        reviewers=_reviewers(field_of(reply, "REVIEWERS") or "", roster, owner),
    )
