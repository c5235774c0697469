"""`kb consolidate`: patterns across sessions (workflow-verbs.md §15).

Rules of this module:
- Experience comes from two places, at most N sessions in all: the agent's handoff records
  first (newest first, the caller orders them), then the agent's capture deposits
  (`inbox/*-session-*.md`, newest name first). A deposit's session id is its name without
  `.md`, after the first `-session-`. A deposit whose session is already known adds its
  items to it; otherwise it becomes a new session while fewer than N are known.
- A deposit's refused questions are the `- ` items under `## Questions the base could not
  answer`, the heading `kb capture` writes (the original looked only for `## Refusals`,
  which capture never writes, so capture's refusals never reached it; both are read here),
  and its decisions the `- ` items under `## Decisions and conclusions`. A section ends at
  the next heading.
- With fewer than two sessions nothing is proposed: a pattern seen once is an anecdote.
- THE EVIDENCE RULE, in code and not left to the model: a candidate must cite at least two
  distinct sessions, and every session it cites must be one of the sessions gathered. Then
  its folder must be one a promoted note may be written into (kb.pure.promotion.promote.hard_rule).
  A candidate failing any of these is "rejected evidence": reported, never reviewed, never
  counted in kb-rejections.txt (the model misread its input; the base has no gap).
- A candidate that passes is decided exactly as `kb promote` decides (kb.pure.promotion.promoterun),
  with `captured_from` naming the cited sessions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from attrs import evolve, frozen

from kb.pure.notes.names import printable
from kb.pure.notes.paths import kind_of
from kb.pure.notes.plural import counted
from kb.pure.promotion.promote import TARGET_FOLDERS, Proposal, hard_rule
from kb.pure.promotion.promoteprompts import FORMAT
from kb.pure.promotion.promotereport import DRY_RUN, decided_lines
from kb.pure.promotion.promoterun import Decided
from kb.pure.promotion.rejections import ascii_lower
from kb.pure.render.jsonout import dumps
from kb.pure.sessions.handoff import Record

DEFAULT_SESSIONS = 5
MIN_SESSIONS = 2
SESSION_MARK = "-session-"
REFUSAL_HEADINGS = ("questions the base could not answer", "refusals")
DECISION_HEADINGS = ("decisions and conclusions",)


@frozen
class Experience:
    id: str
    task: str = ""
    decisions: tuple[str, ...] = ()
    blockers: tuple[str, ...] = ()
    refusals: tuple[str, ...] = ()


def from_record(r: Record) -> Experience:
    return Experience(r.session, r.task, r.decisions, r.blockers)


def is_session_deposit(name: str) -> bool:
    return SESSION_MARK in name and name.endswith(".md")


def session_id(name: str) -> str:
    return name[: -len(".md")].split(SESSION_MARK, 1)[1]


def deposit_items(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(refused questions, decisions) of one capture deposit."""
    refusals: list[str] = []
    decisions: list[str] = []
    section: list[str] | None = None
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        if line.startswith("#"):
            title = ascii_lower(line.lstrip("#").strip())
            section = (
                refusals
                if title in REFUSAL_HEADINGS
                else decisions
                if title in DECISION_HEADINGS
                else None
            )
        elif section is not None and line.startswith("- ") and line[2:].strip():
            section.append(line[2:].strip())
    return tuple(refusals), tuple(decisions)


def gather(
    records: Sequence[Record],
    agent: str,
    deposits: Sequence[tuple[str, str]],
    limit: int,
) -> tuple[Experience, ...]:
    """Records newest first, deposits as (file name, text) newest first; at most `limit`."""
    out: list[Experience] = []
    for r in records:
        if len(out) >= limit:
            break
        if ascii_lower(r.agent) == ascii_lower(agent):
            out.append(from_record(r))
    for name, text in deposits:
        if not is_session_deposit(name):
            continue
        sid = session_id(name)
        refusals, decisions = deposit_items(text)
        at = next((i for i, e in enumerate(out) if e.id == sid), None)
        if at is not None:
            e = out[at]
            out[at] = evolve(e, refusals=e.refusals + refusals, decisions=e.decisions + decisions)
        elif len(out) < limit:
            out.append(Experience(sid, "", decisions, (), refusals))
    return tuple(out)


# -- the prompt -------------------------------------------------------------------------------


def _session_block(e: Experience) -> str:
    lines = [f"SESSION: {e.id}"]
    if e.task:
        lines.append(f"  Task: {e.task}")
    for title, items in (
        ("Decisions", e.decisions),
        ("Blockers", e.blockers),
        ("Refused questions", e.refusals),
    ):
        if items:
            lines.append(f"  {title}:")
            lines += [f"    - {i}" for i in items]
    return "\n".join(lines) + "\n"


def prompt(agent: str, ends: str | None, experiences: Sequence[Experience]) -> str:
    folders = " or ".join(TARGET_FOLDERS)
    rules = [
        "Propose only a pattern confirmed in at least two of the sessions below: the same "
        "decision taken again, the same blocker met again, the same question left "
        "unanswered again. Something seen once is not a pattern.",
        "Every proposal cites the sessions it rests on, at least two, by their ids, on its "
        "`sources:` line. The citations are checked, and a proposal citing a session that is "
        "not listed here is discarded.",
        "One note answers one question.",
        "keys: 30 to 70 words and short phrases a real question would use, in Portuguese and "
        "in English, each of which survives stopword removal on its own.",
        "summary: what the note is about, in one line, without a trailing period.",
        "No em dash and no en dash anywhere. Use a comma, a colon or parentheses.",
        f"folder: {folders}, and nothing else.",
    ]
    parts = [
        f"Below are records of several past sessions of the agent {agent}, side by side. "
        "Find what recurs across them and propose notes for its long memory, if anything "
        "recurs. A reviewer compares every proposal with the base and refuses most of them.\n",
        f"\nTHE AGENT: {agent}\n",
    ]
    if ends:
        parts.append(f"WHERE IT STOPS: {ends}\n")
    parts.append("\nTHE SESSIONS\n\n" + "\n".join(_session_block(e) for e in experiences))
    parts.append("\nRULES\n" + "".join(f"{i}. {r}\n" for i, r in enumerate(rules, 1)))
    parts.append(
        "\nFORMAT: one block per note, exactly like this:\n\n"
        + FORMAT.format(extra="sources: session_id_1, session_id_2\n")
    )
    parts.append("\nIf nothing recurs, output the single word NOTHING.\n")
    return "".join(parts)


# -- the evidence rule ------------------------------------------------------------------------


def cited(p: Proposal) -> tuple[str, ...]:
    """The distinct sessions a proposal cites, in the order it cites them."""
    out: list[str] = []
    for s in p.sources:
        if s not in out:
            out.append(s)
    return tuple(out)


def evidence_refusal(p: Proposal, known: Sequence[str]) -> str | None:
    """Why a candidate may not be reviewed at all, or None when it may."""
    sessions = cited(p)
    if len(sessions) < MIN_SESSIONS:
        return (
            "multi-session consolidation requires at least 2 distinct sessions, found "
            f"{len(sessions)}: {json.dumps(list(sessions), ensure_ascii=False)}"
        )
    for s in sessions:
        if s not in known:
            return f"cited session '{printable(s)}' does not exist in recorded session history"
    kind = kind_of(p.folder.strip())
    if kind != "memory":
        return f"target folder is {kind}-kind, memory only"
    rule = hard_rule(p)
    if rule is not None:
        return rule.reason
    return None


# -- output -----------------------------------------------------------------------------------


@frozen
class Consolidated:
    agent: str
    consulted: int
    generated: int
    rejected: tuple[tuple[str, str], ...]  # (slug, reason)
    decided: tuple[Decided, ...]
    dry_run: bool


def counts(o: Consolidated) -> tuple[int, int, int]:
    """(written, admitted, refused)."""
    written = sum(1 for d in o.decided if d.written is not None)
    admitted = sum(1 for d in o.decided if d.admitted)
    refused = sum(1 for d in o.decided if d.refused)
    return written, admitted, refused


def as_json(o: Consolidated) -> str:
    written, admitted, refused = counts(o)
    decided: list[dict[str, Any]] = []
    for d in o.decided:
        item: dict[str, Any] = {
            "slug": d.slug,
            "accepted": d.admitted and not d.refused,
            "source": d.source,
        }
        if d.written is not None:
            item["written"] = d.written
        item["reviews"] = [
            {"lens": r.lens, "accept": r.accept, "reason": r.reason} for r in d.reviews
        ]
        decided.append(item)
    value = {
        "agent": o.agent,
        "sessions_consulted": o.consulted,
        "proposals_generated": o.generated,
        "written": written,
        "admitted": admitted,
        "refused": refused,
        "rejected_evidence": [{"slug": s, "reason": r} for s, r in o.rejected],
        "decided": decided,
    }
    return dumps(value) + "\n"


def text(o: Consolidated) -> str:
    lines: list[str] = [DRY_RUN, ""] if o.dry_run else []
    lines.append(
        f"consolidate {printable(o.agent)}: consulted {counted(o.consulted, 'session')}, "
        f"generated {counted(o.generated, 'candidate')}."
    )
    lines += [f"  rejected proposal {printable(s)}: {printable(r)}" for s, r in o.rejected]
    for d in o.decided:
        lines += decided_lines(d)
    written, _, refused = counts(o)
    did = "would be written" if o.dry_run else "written"
    if o.dry_run:
        written = sum(1 for d in o.decided if d.admitted and not d.refused)
    evaluated = counted(len(o.decided), "proposal")
    lines += ["", f"{evaluated} evaluated: {written} {did}, {refused} refused."]
    return "\n".join(lines) + "\n"
