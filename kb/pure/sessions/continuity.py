"""Handoff records as `kb boot` reads them: parsing `{session}.handoff.md`, and the
continuity paragraph injected at the top of a session.

Rules of this module:
- A record starts (after leading whitespace) with `---`; its front matter ends at the first
  `\\n---`. Keys split at the first `:` and are trimmed: `session` (required, else this is
  not a record), `agent`, `status` (`claimed`/`completed` in any case, anything else
  pending), `claimed_by`, `updated_at`.
- Body: a `# ` line whose text is `task` (any case) opens the task; a `## ` line opens
  decisions, blockers, `next steps` or references (any case), or nothing. Task lines are
  the non-empty trimmed lines joined by a space; list sections keep their `- ` items.
- The briefing spends at most 2,000 UTF-8 bytes; past that it is cut at a character
  boundary and says so.
"""

from __future__ import annotations

from typing import Literal

from attrs import frozen

Status = Literal["pending", "claimed", "completed"]
BRIEFING_BUDGET = 2000
TRUNCATED = "\n  [...continuity truncated to budget]\n"


@frozen
class Handoff:
    session: str
    agent: str = ""
    status: Status = "pending"
    claimed_by: str | None = None
    updated_at: str = ""
    task: str = ""
    decisions: tuple[str, ...] = ()
    blockers: tuple[str, ...] = ()
    next_steps: tuple[str, ...] = ()
    references: tuple[str, ...] = ()


_SECTIONS = {
    "decisions": "decisions",
    "blockers": "blockers",
    "next steps": "next_steps",
    "references": "references",
}


def _status(word: str) -> Status:
    folded = word.lower()
    if folded == "claimed":
        return "claimed"
    if folded == "completed":
        return "completed"
    return "pending"


def parse_handoff(text: str) -> Handoff | None:
    body = text.lstrip()
    if not body.startswith("---"):
        return None
    end = body.find("\n---", 3)
    if end == -1:
        return None
    front: dict[str, str] = {}
    for line in body[3:end].split("\n"):
        key, colon, value = line.partition(":")
        if colon and key.strip() not in front:
            front[key.strip()] = value.strip()
    session = front.get("session")
    if not session:
        return None
    lists: dict[str, list[str]] = {name: [] for name in _SECTIONS.values()}
    task: list[str] = []
    section: str | None = None
    for raw in body[end + 4 :].split("\n")[1:]:  # [0] is what is left of the closing `---`
        line = raw.strip()
        if line.startswith("## "):
            section = _SECTIONS.get(line[3:].strip().lower())
        elif line.startswith("# "):
            section = "task" if line[2:].strip().lower() == "task" else None
        elif section == "task" and line:
            task.append(line)
        elif section in lists and line.startswith("- "):
            lists[section].append(line[2:].strip())
    return Handoff(
        session=session,
        agent=front.get("agent", ""),
        status=_status(front.get("status", "")),
        claimed_by=front.get("claimed_by") or None,
        updated_at=front.get("updated_at", ""),
        task=" ".join(task),
        decisions=tuple(lists["decisions"]),
        blockers=tuple(lists["blockers"]),
        next_steps=tuple(lists["next_steps"]),
        references=tuple(lists["references"]),
    )


def briefing(h: Handoff, budget: int = BRIEFING_BUDGET) -> str:
    lines = [f"VESTA: CONTINUITY (session {h.session}, status: {h.status}):"]
    if h.agent:
        lines.append(f"  Agent: {h.agent}")
    if h.claimed_by:
        lines.append(f"  Claimed by: {h.claimed_by}")
    if h.task:
        lines.append(f"  Active task: {h.task}")
    for title, items in (
        ("Decisions", h.decisions),
        ("Blockers", h.blockers),
        ("Next steps", h.next_steps),
    ):
        if items:
            lines.append(f"  {title}:")
            lines.extend(f"    - {item}" for item in items)
    text = "\n".join(lines)
    data = text.encode("utf-8")
    if len(data) <= budget:
        return text
    return data[:budget].decode("utf-8", errors="ignore") + TRUNCATED
