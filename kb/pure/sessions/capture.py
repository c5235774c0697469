"""`kb capture`: who owns what a session left behind, and the deposit each owner receives
(workflow-verbs.md §8.2). The caller reads the events, writes the files and deletes the record.

Rules of this module:
- Each refusal and each conclusion belongs to the agent of the nearest `routed` event before
  it; with none before it, to the first `routed` event after it. With no `routed` event at
  all, nothing has an owner of its own.
- Owners are listed in first-appearance order: the owners of refusals first, then the owners
  of conclusions.
- No owners at all: the session's boot file (the agent it was last routed to) takes
  everything. With no boot file, the last `routed` event does (the boot file only ever holds
  that same name, so losing the file should not lose the session). With neither, there is
  nothing to capture: a deposit needs an owner.
- The deposit is short memory: `provenance: agent`, `stage: raw`, and no `Search for:` line,
  so the router never names it. Its sections appear only when they have something in them;
  the path of the conversation (consecutive repeats collapsed) is the whole session's, in
  every owner's deposit.
- Every text that came from the session goes through the secret scrubber before it is
  rendered, whatever wrote the events (a question typed at boot can hold a key too).
- The file name is `{today}-session-{safe id}.md`. A deposit already there with different
  text is never replaced; the next free `-{n}` name is used instead (`alternate_name`), so
  a session resumed on the same day after a capture loses nothing.
- A `--conclusion` that is already the record's last event is not recorded again: that is a
  capture killed after recording it and run again, and a second copy would put the
  conclusion twice in the deposit (or, when the first deposit was already written, make a
  second deposit beside it).
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from kb.pure.sessions.scrub import scrub
from kb.pure.sessions.session import (
    Concluded,
    Event,
    Refused,
    Routed,
    event_line,
    parse_event,
    safe_session,
)

NOTHING_RECORDED = "the session produced nothing to capture"
NO_OWNER = "no agent was routed in this session, so the deposit has no owner"
NO_SESSION = "kb capture: no session named. Pass --session, or the hook payload on stdin."


def already_recorded(events: Sequence[Event], conclusion: str) -> bool:
    """True when the record's last event is `conclusion` (scrubbed, as it is recorded)."""
    recorded = parse_event(event_line(Concluded(conclusion)).rstrip("\n"))
    return bool(events) and recorded is not None and events[-1] == recorded


@frozen
class Deposit:
    agent: str
    refusals: tuple[Refused, ...]
    conclusions: tuple[Concluded, ...]
    path: tuple[str, ...]  # the agents the session was routed to, in order


@frozen
class Plan:
    """One deposit per owner, and the owner of every event (None for `routed` lines)."""

    deposits: tuple[Deposit, ...]
    owner_of: tuple[str | None, ...]


@frozen
class NothingToCapture:
    why: str


def owners(events: Sequence[Event]) -> tuple[str | None, ...]:
    """The owning agent of each event by the nearest-routed rule (None for routed lines and
    for items in a session with no routed line)."""
    before: list[str | None] = []
    last: str | None = None
    for e in events:
        if isinstance(e, Routed):
            last = e.agent
        before.append(last)
    after: list[str | None] = [None] * len(events)
    nxt: str | None = None
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if isinstance(e, Routed):
            nxt = e.agent
        after[i] = nxt
    out: list[str | None] = []
    for i, e in enumerate(events):
        if isinstance(e, Routed):
            out.append(None)
        else:
            out.append(before[i] if before[i] is not None else after[i])
    return tuple(out)


def session_path(events: Sequence[Event]) -> tuple[str, ...]:
    path: list[str] = []
    for e in events:
        if isinstance(e, Routed) and (not path or path[-1] != e.agent):
            path.append(e.agent)
    return tuple(path)


def plan(events: Sequence[Event], boot_agent: str | None) -> Plan | NothingToCapture:
    if not events:
        return NothingToCapture(NOTHING_RECORDED)
    owner_of = owners(events)
    refusal_owners = [o for e, o in zip(events, owner_of, strict=True) if isinstance(e, Refused)]
    conclusion_owners = [
        o for e, o in zip(events, owner_of, strict=True) if isinstance(e, Concluded)
    ]
    ordered: list[str] = []
    for o in (*refusal_owners, *conclusion_owners):
        if o is not None and o not in ordered:
            ordered.append(o)
    path = session_path(events)
    if not ordered:
        fallback = boot_agent or (path[-1] if path else None)
        if fallback is None:
            return NothingToCapture(NO_OWNER)
        ordered = [fallback]
        owner_of = tuple(None if isinstance(e, Routed) else fallback for e in events)
    deposits = tuple(
        Deposit(
            agent=agent,
            refusals=tuple(
                e
                for e, o in zip(events, owner_of, strict=True)
                if isinstance(e, Refused) and o == agent
            ),
            conclusions=tuple(
                e
                for e, o in zip(events, owner_of, strict=True)
                if isinstance(e, Concluded) and o == agent
            ),
            path=path,
        )
        for agent in ordered
    )
    return Plan(deposits, owner_of)


def remaining(
    events: Sequence[Event], owner_of: Sequence[str | None], failed: set[str]
) -> tuple[Event, ...]:
    """What the events record keeps when some owners failed: every routed line, and the
    refusals and conclusions whose owner could not be written."""
    return tuple(
        e
        for e, o in zip(events, owner_of, strict=True)
        if isinstance(e, Routed) or (o is not None and o in failed)
    )


# -- the deposit -----------------------------------------------------------------------------


def deposit_name(today: str, session: str) -> str:
    return f"{today}-session-{safe_session(session)}.md"


def alternate_name(today: str, session: str, n: int) -> str:
    """The name used when `deposit_name` is taken by a different deposit (n = 2, 3, ...)."""
    return f"{today}-session-{safe_session(session)}-{n}.md"


INTRO = (
    "Written by `kb capture` at the end of the session, without a model: the questions this "
    "base could not answer, what was decided or concluded, and where the conversation went. "
    "Nothing here has been judged. `kb promote` reads it and decides what, if anything, "
    "enters the library."
)

QUESTIONS_INTRO = (
    "Each question below reached nothing in this base: a recall loss. The words after it "
    "are what the base offered back instead, the nearest vocabulary it does hold."
)

CONCLUSIONS_INTRO = "Recorded during the session with `kb capture --conclusion`, secrets scrubbed:"


def render_deposit(deposit: Deposit, session: str, today: str) -> str:
    parts = [
        "---\nprovenance: agent\nstage: raw\n---\n",
        f"# Session {safe_session(session)}, {today}\n",
        f"{INTRO}\n",
    ]
    if deposit.refusals:
        items: list[str] = []
        for r in deposit.refusals:
            items.append(f"- {scrub(r.question)}")
            offered = ", ".join(scrub(w) for w in r.looked_like)
            if offered:
                items.append(f"  looked like: {offered}")
        parts.append(
            "## Questions the base could not answer\n\n"
            + f"{QUESTIONS_INTRO}\n\n"
            + "\n".join(items)
            + "\n"
        )
    if deposit.conclusions:
        items = [f"- {scrub(c.text)}" for c in deposit.conclusions]
        parts.append(
            "## Decisions and conclusions\n\n"
            + f"{CONCLUSIONS_INTRO}\n\n"
            + "\n".join(items)
            + "\n"
        )
    if deposit.path:
        parts.append("## Where the conversation went\n\n" + ", then ".join(deposit.path) + "\n")
    return "\n".join(parts)


# -- messages --------------------------------------------------------------------------------


def captured(session: str, path: str) -> str:
    return f"captured session {session} into {path}"


def nothing(session: str, why: str) -> str:
    return f"nothing captured for session {session}: {why}"


def no_base(agent: str, path: str) -> str:
    return f"the routed agent {agent} has no base at {path}"


def not_an_agent(agent: str) -> str:
    return (
        f"the routed agent '{agent}' is not an agent name (one directory under fleet/, "
        "without `/`, `\\`, `.` or `..`), so no deposit was written for it"
    )


def cannot_create(path: str, reason: str) -> str:
    return f"cannot create {path}: {reason}"


def cannot_write(path: str, reason: str) -> str:
    return f"cannot write {path}: {reason}"
