"""The handoff baton (workflow-verbs.md §14): its record file, its JSON, its boot briefing and
the state machine every mutation goes through.

Rules of this module:
- A record is pending, claimed or completed. The legal moves are the table `TRANSITIONS`;
  every other (state, action) pair is refused with the line `refusal` words for it, and
  refusing changes nothing. `step` is the only way a record changes state.
- `save` starts a new baton in the session whatever state the old one was in (it is how a
  claimer hands the work on); `claim` takes a pending baton and names the claimer; `complete`
  finishes a pending or claimed one. A completed baton only ever accepts a new `save`.
  Claiming a claimed baton is refused even by its own claimer: the claim is the proof that
  exactly one agent took it, and a second success would blur that.
- No record at all: only `save` is legal.
- Every text field is flattened to one line (tab, CR, LF become a space) and trimmed
  before it is written, so a value can never break the record's structure; list items
  that are blank after that are dropped, and a task starting with `#` gets a `\\` in front
  (it would otherwise read back as a heading). Text is also scrubbed of secrets: a record is
  read back into other agents' contexts by `kb boot`.
- The record parser is the spec's: left-trimmed text starts with `---`, the front matter
  ends at the first `\\n---`, `session` is required, an unknown status reads as pending.
- The boot briefing is capped at 2000 UTF-8 bytes, cut at a character boundary. `kb boot`
  itself parses and briefs through kb.pure.sessions.continuity (a lighter import on its hot path); a
  property test holds the two to the same results.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

from attrs import evolve, frozen
from returns.result import Failure, Result, Success

from kb.pure.sessions.scrub import scrub
from kb.pure.sessions.session import flatten

BRIEFING_BUDGET = 2000
LATEST_NAME = "latest-handoff.txt"
TRUNCATED = "\n  [...continuity truncated to budget]\n"


class Status(enum.Enum):
    PENDING = "pending"
    CLAIMED = "claimed"
    COMPLETED = "completed"


@frozen
class Record:
    session: str
    agent: str
    task: str
    status: Status = Status.PENDING
    claimed_by: str | None = None
    decisions: tuple[str, ...] = ()
    blockers: tuple[str, ...] = ()
    next_steps: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    updated_at: str = ""


# -- the state machine -----------------------------------------------------------------------


class Action(enum.Enum):
    SAVE = "save"
    CLAIM = "claim"
    COMPLETE = "complete"


@frozen
class Save:
    record: Record  # the new baton, as `save` was given it


@frozen
class Claim:
    agent: str
    today: str


@frozen
class Complete:
    today: str


Move = Save | Claim | Complete


def action_of(move: Move) -> Action:
    if isinstance(move, Save):
        return Action.SAVE
    return Action.CLAIM if isinstance(move, Claim) else Action.COMPLETE


# (state before, action) -> state after. `None` is "no record yet". Anything missing is refused.
TRANSITIONS: dict[tuple[Status | None, Action], Status] = {
    (None, Action.SAVE): Status.PENDING,
    (Status.PENDING, Action.SAVE): Status.PENDING,
    (Status.CLAIMED, Action.SAVE): Status.PENDING,
    (Status.COMPLETED, Action.SAVE): Status.PENDING,
    (Status.PENDING, Action.CLAIM): Status.CLAIMED,
    (Status.PENDING, Action.COMPLETE): Status.COMPLETED,
    (Status.CLAIMED, Action.COMPLETE): Status.COMPLETED,
}

NO_RECORD = "no handoff record found"
ALREADY_COMPLETED = "handoff is already completed"


def already_claimed(claimer: str | None) -> str:
    return f"handoff already claimed by {claimer or 'another agent'}"


def refusal(record: Record | None, action: Action) -> str:
    """The line for a (state, action) pair `TRANSITIONS` does not hold."""
    if record is None:
        return NO_RECORD
    if record.status is Status.COMPLETED:
        return ALREADY_COMPLETED
    return already_claimed(record.claimed_by)


def is_legal(status: Status | None, action: Action) -> bool:
    return (status, action) in TRANSITIONS


def step(record: Record | None, move: Move) -> Result[Record, str]:
    action = action_of(move)
    before = None if record is None else record.status
    after = TRANSITIONS.get((before, action))
    if after is None:
        return Failure(refusal(record, action))
    if isinstance(move, Save):
        return Success(evolve(clean(move.record), status=after, claimed_by=None))
    assert record is not None  # every legal claim or complete starts from a record
    if isinstance(move, Claim):
        return Success(
            evolve(record, status=after, claimed_by=_one(move.agent), updated_at=move.today)
        )
    return Success(evolve(record, status=after, updated_at=move.today))


def _one(text: str) -> str:
    return scrub(flatten(text))


def _items(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(v for v in (_one(x) for x in values) if v)


def clean(record: Record) -> Record:
    """Every field on one line, trimmed, scrubbed; blank list items dropped."""
    task = _one(record.task)
    if task.startswith("#"):
        # a task line starting `# ` or `## ` would read back as a heading and be lost
        task = "\\" + task
    return evolve(
        record,
        session=flatten(record.session),
        agent=_one(record.agent),
        task=task,
        claimed_by=None if record.claimed_by is None else _one(record.claimed_by) or None,
        decisions=_items(record.decisions),
        blockers=_items(record.blockers),
        next_steps=_items(record.next_steps),
        references=_items(record.references),
        updated_at=flatten(record.updated_at),
    )


def default_session(today: str) -> str:
    """`s-YYYYMMDD` from `YYYY-MM-DD`."""
    return "s-" + today.replace("-", "")


# -- the record file -------------------------------------------------------------------------

_SECTIONS = (
    ("Decisions", "decisions"),
    ("Blockers", "blockers"),
    ("Next Steps", "next_steps"),
    ("References", "references"),
)


def render(record: Record) -> str:
    front = [
        "---",
        f"session: {record.session}",
        f"agent: {record.agent}",
        f"status: {record.status.value}",
    ]
    if record.claimed_by:
        front.append(f"claimed_by: {record.claimed_by}")
    front += [f"updated_at: {record.updated_at}", "---"]
    out = "\n".join(front) + "\n\n# Task\n" + record.task + "\n\n"
    for heading, name in _SECTIONS:
        items: tuple[str, ...] = getattr(record, name)
        if items:
            out += f"## {heading}\n" + "".join(f"- {i}\n" for i in items) + "\n"
    return out


def parse(text: str) -> Record | None:
    text = text.lstrip()
    if not text.startswith("---"):
        return None
    rest = text[3:]
    end = rest.find("\n---")
    if end < 0:
        return None
    front, body = rest[:end], rest[end + 4 :]
    fields: dict[str, str] = {}
    for line in front.split("\n"):
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip(), value.strip())
    session = fields.get("session")
    if session is None:
        return None
    status = {"claimed": Status.CLAIMED, "completed": Status.COMPLETED}.get(
        fields.get("status", "").lower(), Status.PENDING
    )
    task: list[str] = []
    lists: dict[str, list[str]] = {name: [] for _, name in _SECTIONS}
    section: str | None = None
    # the line ending `---` of the front matter may carry text after it; it is not body
    for raw in body.split("\n")[1:]:
        line = raw.strip()
        if line.startswith("## "):
            section = {h.lower(): n for h, n in _SECTIONS}.get(line[3:].strip().lower())
        elif line.startswith("# "):
            section = "task" if line[2:].strip().lower() == "task" else None
        elif section == "task":
            if line:
                task.append(line)
        elif section is not None and line.startswith("- "):
            lists[section].append(line[2:].strip())
    claimed = fields.get("claimed_by") or None
    return Record(
        session=session,
        agent=fields.get("agent", ""),
        task=" ".join(task),
        status=status,
        claimed_by=claimed,
        decisions=tuple(lists["decisions"]),
        blockers=tuple(lists["blockers"]),
        next_steps=tuple(lists["next_steps"]),
        references=tuple(lists["references"]),
        updated_at=fields.get("updated_at", ""),
    )


# -- JSON and the boot briefing --------------------------------------------------------------


def as_json(record: Record) -> dict[str, Any]:
    out: dict[str, Any] = {
        "session": record.session,
        "agent": record.agent,
        "task": record.task,
        "status": record.status.value,
    }
    if record.claimed_by:
        out["claimed_by"] = record.claimed_by
    out["decisions"] = list(record.decisions)
    out["blockers"] = list(record.blockers)
    out["next_steps"] = list(record.next_steps)
    out["references"] = list(record.references)
    out["updated_at"] = record.updated_at
    return out


def briefing(record: Record, budget: int = BRIEFING_BUDGET) -> str:
    """What `kb boot` injects for a session with a handoff record."""
    lines = [f"VESTA: CONTINUITY (session {record.session}, status: {record.status.value}):"]
    if record.agent:
        lines.append(f"  Agent: {record.agent}")
    if record.claimed_by:
        lines.append(f"  Claimed by: {record.claimed_by}")
    if record.task:
        lines.append(f"  Active task: {record.task}")
    for label, items in (
        ("Decisions", record.decisions),
        ("Blockers", record.blockers),
        ("Next steps", record.next_steps),
    ):
        if items:
            lines.append(f"  {label}:")
            lines.extend(f"    - {i}" for i in items)
    # no newline at the end: boot puts the blank line after it
    text = "\n".join(lines)
    if len(text.encode("utf-8")) <= budget:
        return text
    return cut_bytes(text, budget) + TRUNCATED


def cut_bytes(text: str, cap: int) -> str:
    """The longest prefix of `text` whose UTF-8 encoding is at most `cap` bytes."""
    return text.encode("utf-8")[:cap].decode("utf-8", "ignore")


# -- messages --------------------------------------------------------------------------------

SAVE_NEEDS = "kb handoff save: name the agent and provide --task <text>"
SAVE_NO_TASK = "kb handoff save: missing required --task <text>"
CLAIM_NEEDS = "kb handoff claim: specify the agent name"
CLAIM_BLANK = "kb handoff claim: agent name cannot be empty"
NO_RECORDS = "no handoff records found"


def saved(record: Record, path: str) -> str:
    return f"saved handoff for session {record.session} ({record.agent}) into {path}"


def claimed(record: Record) -> str:
    return f"claimed handoff for session {record.session} by {record.claimed_by}"


def completed(record: Record) -> str:
    return f"completed handoff for session {record.session}"


def no_record_for(session: str) -> str:
    return f"no handoff record for session '{session}'"
