"""`kb capture` and `kb handoff` (workflow-verbs.md §8, §14): typed input in, Outcome out.

Every decision is kb.pure's (kb.pure.sessions.capture: owners and the deposit;
kb.pure.sessions.handoff: the record and its state machine; kb.pure.sessions.scrub: secrets). The
disk work is kb.io.sessions.records.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

from returns.result import Failure, Result, Success

from kb.io import clock
from kb.io.sessions import records as io
from kb.pure.notes.names import is_plain_component, printable
from kb.pure.render.jsonout import dumps
from kb.pure.sessions import capture as cap
from kb.pure.sessions import handoff as ho
from kb.pure.sessions.scrub import scrub
from kb.pure.sessions.session import (
    SESSIONS_DIR,
    Concluded,
    clean_session,
    parse_events,
    read_envelope,
    render_events,
)
from kb.pure.writing.notewrite import choose_root, join
from kb.shell.cli.inputs import CaptureInput, HandoffInput
from kb.shell.cli.outcome import Outcome

# -- kb capture ------------------------------------------------------------------------------


def _read_stdin() -> str:
    """stdin as text, lossily (it only ever carries a session id); a terminal is no input."""
    import sys

    stream = sys.stdin
    try:
        if stream is None or stream.isatty():
            return ""
        return stream.buffer.read().decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def _capture_error(message: str) -> Outcome:
    return Outcome(stderr=f"kb capture: {printable(message)}\n", code=1)


def capture(inp: CaptureInput) -> Outcome:
    session = clean_session(inp.session)
    cwd = None
    if session is None:
        envelope = read_envelope(_read_stdin())
        session = envelope.session
        cwd = envelope.cwd.strip() if envelope.cwd and envelope.cwd.strip() else None
    if session is None:
        return Outcome(stderr=cap.NO_SESSION + "\n", code=2)
    # Like `kb boot`, whose events this reads: the path given, else the payload's cwd.
    root = inp.path if inp.path is not None else (cwd or ".")
    if not os.path.isdir(root):
        return _capture_error(f"no directory at {root}, so there is no session record there")
    shown = printable(session)
    events_file = io.events_path(root, session)
    conclusion = inp.conclusion
    if conclusion is not None and conclusion.strip():
        # scrubbed before it touches the disk: the events file is a file like any other
        scrubbed = scrub(conclusion)
        try:
            recorded = parse_events(io.decode(io.read_bytes(events_file)))
            if not cap.already_recorded(recorded, scrubbed):  # a killed capture's retry
                io.append_event(root, session, Concluded(scrubbed))
        except OSError as e:
            return _capture_error(f"cannot record the conclusion in {events_file}: {_reason(e)}")
    try:
        read = io.read_bytes(events_file)
    except OSError as e:
        return _capture_error(f"cannot read {events_file}: {_reason(e)}")
    events = parse_events(io.decode(read))
    planned = cap.plan(events, io.read_boot_agent(root, session))
    if isinstance(planned, cap.NothingToCapture):
        return Outcome(stdout=cap.nothing(shown, planned.why) + "\n")
    today = clock.today_utc()
    lines: list[str] = []
    failed: set[str] = set()
    for deposit in planned.deposits:
        written = _deposit(root, session, today, deposit)
        if isinstance(written, Failure):
            failed.add(deposit.agent)
            lines.append(cap.nothing(shown, printable(written.failure())))
        else:
            lines.append(cap.captured(shown, printable(written.unwrap())))
    stdout = "\n".join(lines) + "\n"
    if len(failed) == len(planned.deposits):
        return Outcome(stdout=stdout)  # nothing reached the disk: the record stays whole
    keep = render_events(cap.remaining(events, planned.owner_of, failed)) if failed else ""
    try:
        io.finish_events(events_file, read, keep)
    except OSError as e:
        return Outcome(
            stdout=stdout,
            stderr=(
                f"kb capture: the deposit is on disk but {printable(str(events_file))} could "
                f"not be cleared ({_reason(e)}); a later capture finds the same deposit and "
                "does not write it twice\n"
            ),
            code=1,
        )
    return Outcome(stdout=stdout)


def _names(today: str, session: str) -> Iterator[str]:
    yield cap.deposit_name(today, session)
    # 1000 captures of one session on one day is far past any real use; stop there.
    for n in itertools.islice(itertools.count(2), 999):
        yield cap.alternate_name(today, session, n)


def _deposit(root: str, session: str, today: str, deposit: cap.Deposit) -> Result[str, str]:
    """The displayed path of the deposit written, or why it could not be."""
    agent = deposit.agent
    if not is_plain_component(agent):
        return Failure(cap.not_an_agent(agent))
    base = choose_root(
        root,
        agent,
        agent_dir_exists=os.path.isdir(join(root, "fleet", agent)),
        fleet_has_map=os.path.isfile(join(root, "MAP.md")),
    )
    if not os.path.isdir(base):
        return Failure(cap.no_base(agent, base))
    inbox = join(base, "inbox")
    try:
        os.makedirs(inbox, exist_ok=True)
    except OSError as e:
        return Failure(cap.cannot_create(inbox, _reason(e)))
    text = cap.render_deposit(deposit, session, today)
    try:
        placed = io.place_deposit(Path(inbox), _names(today, session), text)
    except OSError as e:
        return Failure(cap.cannot_write(str(e.filename or inbox), _reason(e)))
    return Success(join(inbox, placed.name))


# -- kb handoff ------------------------------------------------------------------------------

ACTIONS = ("save", "claim", "complete", "show")
SAVE_ONLY = ("task", "decision", "blocker", "next", "ref", "reference")


def _usage_error(line: str, usage: bool = False) -> Outcome:
    if usage:
        from kb.shell.cli.table import usage_of

        return Outcome(stdout=usage_of("handoff"), stderr=f"{line}\n\n", code=2)
    return Outcome(stderr=f"{line}\n\n", code=2)


def _prefix(mode: str) -> str:
    return "kb handoff" if mode == "show" else f"kb handoff {mode}"


def _too_many(mode: str, extra: list[str]) -> Outcome:
    listed = ", ".join(f"'{printable(a)}'" for a in extra)
    return Outcome(
        stderr=(
            f"{_prefix(mode)}: unexpected argument(s) {listed}: it takes one fleet root at most\n"
        ),
        code=2,
    )


def _no_root(mode: str, root: str) -> Outcome:
    return Outcome(stderr=f"{_prefix(mode)}: no directory at {printable(root)}\n", code=1)


def handoff(inp: HandoffInput) -> Outcome:
    word = inp.action if inp.action in ACTIONS else None
    positionals = list(inp.paths)
    if word is None and inp.action is not None:
        positionals.insert(0, inp.action)  # `kb handoff <path>`: the first word is the root
    modes = {word} if word is not None else set()
    if inp.claim is not None:
        modes.add("claim")
    if inp.complete:
        modes.add("complete")
    if inp.show:
        modes.add("show")
    if len(modes) > 1:
        listed = ", ".join(sorted(modes))
        return Outcome(
            stderr=f"kb handoff: one action at a time, and this names {listed}\n", code=2
        )
    mode = next(iter(modes), "show")
    if mode != "save":
        given = [f"--{n}" for n in SAVE_ONLY if getattr(inp, n)]
        if given:
            verb = "belongs" if len(given) == 1 else "belong"
            return Outcome(
                stderr=(
                    f"{_prefix(mode)}: {', '.join(given)} {verb} to `kb handoff save` only; "
                    "nothing was recorded\n"
                ),
                code=2,
            )
    session = clean_session(inp.session)
    if mode == "save":
        return _save(inp, positionals, session)
    agent: str | None = None
    if mode == "claim":
        # `claim <agent> [path]` or `--claim <agent> [path]`: either way the root is the one
        # positional left once the action and the agent are taken out (quirk 9, made uniform)
        agent = inp.claim
        if word == "claim":
            agent = positionals.pop(0) if positionals else None
        if agent is None:
            return _usage_error(ho.CLAIM_NEEDS)
        if not agent.strip():
            return _usage_error(ho.CLAIM_BLANK)
    if len(positionals) > 1:
        return _too_many(mode, positionals[1:])
    root = positionals[0] if positionals else "."
    if not os.path.isdir(root):
        return _no_root(mode, root)
    if mode == "show":
        return _show(root, session, inp.json)
    today = clock.today_utc()
    move: ho.Move = ho.Claim(agent or "", today) if mode == "claim" else ho.Complete(today)
    return _change(mode, root, session, move, inp.json)


def _save(inp: HandoffInput, positionals: list[str], session: str | None) -> Outcome:
    if not positionals or not positionals[0].strip():
        return _usage_error(ho.SAVE_NEEDS, usage=True)
    agent = positionals.pop(0)
    if inp.task is None or not inp.task.strip():
        return _usage_error(ho.SAVE_NO_TASK)
    if len(positionals) > 1:
        return _too_many("save", positionals[1:])
    root = positionals[0] if positionals else "."
    if not os.path.isdir(root):
        return _no_root("save", root)
    today = clock.today_utc()
    record = ho.Record(
        session=session or ho.default_session(today),
        agent=agent,
        task=inp.task,
        decisions=inp.decision,
        blockers=inp.blocker,
        next_steps=inp.next,
        references=(*inp.ref, *inp.reference),
        updated_at=today,
    )
    return _change("save", root, record.session, ho.Save(record), inp.json)


def _change(mode: str, root: str, session: str | None, move: ho.Move, as_json: bool) -> Outcome:
    try:
        changed = io.change(root, session, lambda _current: move)
    except (OSError, io.LockTimeout) as e:
        reason = _reason(e) if isinstance(e, OSError) else str(e)
        where = f" ({e.filename})" if isinstance(e, OSError) and e.filename else ""
        return Outcome(stderr=f"kb handoff: {printable(reason + where)}\n", code=1)
    if isinstance(changed, Failure):
        why = changed.failure()
        if why == ho.NO_RECORD and session is not None:
            why = f"{why} for session '{session}'"
        return Outcome(stderr=f"{_prefix(mode)}: {printable(why)}\n", code=1)
    record, path = changed.unwrap()
    if as_json:
        return Outcome(stdout=dumps(ho.as_json(record)) + "\n")
    if mode == "save":
        shown = join(root, *SESSIONS_DIR, path.name)
        return Outcome(stdout=printable(ho.saved(record, shown)) + "\n")
    if mode == "claim":
        return Outcome(stdout=printable(ho.claimed(record)) + "\n")
    return Outcome(stdout=printable(ho.completed(record)) + "\n")


def _show(root: str, session: str | None, as_json: bool) -> Outcome:
    record = io.load(root, session) if session is not None else io.latest(root)
    if as_json:
        return Outcome(stdout=("null" if record is None else dumps(ho.as_json(record))) + "\n")
    if record is None:
        missing = ho.no_record_for(printable(session)) if session else ho.NO_RECORDS
        return Outcome(stdout=missing + "\n")
    return Outcome(stdout=ho.render(record))
