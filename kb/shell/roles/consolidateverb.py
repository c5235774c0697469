"""`kb consolidate <agent> [path] [--sessions N] [--top N] [--dry-run] [--json]`
(workflow-verbs.md §15): what recurs across an agent's past sessions, proposed by the
promoter, held to the evidence rule in code (kb.pure.roles.consolidate.evidence_refusal), then
decided by the same three lenses `kb promote` uses (kb.pure.promotion.promoterun.decide).

It exits 0 whenever it ran: a reviewer that could not be reached drops its proposal (said on
stderr), and the promoter not answering means no candidates (also said on stderr).
"""

from __future__ import annotations

import os
from pathlib import Path

from kb.io.answering.memory import Memory, OpenError
from kb.io.notes.walk import BaseSnapshot, WalkError, discover, read_text
from kb.io.promotion.deposits import Unread, read_deposit
from kb.io.roles.model import model_timeout, run_model
from kb.io.sessions import records as session_files
from kb.pure.notes.names import is_plain_component, printable
from kb.pure.promotion import promoterun
from kb.pure.promotion.promote import parse_proposals
from kb.pure.promotion.promotereport import unreachable_stderr
from kb.pure.roles import consolidate as core
from kb.pure.sessions import handoff as ho
from kb.pure.writing import notewrite as nw
from kb.shell.answering.readverbs import open_warnings
from kb.shell.cli.inputs import ConsolidateInput
from kb.shell.cli.outcome import Outcome
from kb.shell.promotion.promotion import FleetEffects, models, no_promoter, no_reviewer


def _records(root: str) -> list[ho.Record]:
    """Every handoff record under `{root}/.kb/sessions/`, newest first by mtime."""
    folder = session_files.sessions_dir(root)
    found: list[tuple[int, str, Path]] = []
    try:
        with os.scandir(folder) as it:
            for e in it:
                if e.name.endswith(".handoff.md") and e.is_file():
                    found.append((e.stat().st_mtime_ns, e.name, Path(e.path)))
    except OSError:
        return []
    out: list[ho.Record] = []
    for _, _, path in sorted(found, reverse=True):
        text = read_text(path)
        record = ho.parse(text) if text is not None else None
        if record is not None:
            out.append(record)
    return out


def _deposits(snap: BaseSnapshot) -> list[tuple[str, str]]:
    """The agent's capture deposits as (name, text), newest name first, each read through
    kb.io.notes.safe_read against the base's walk without --all: a private one, a link, a hard
    link to a private note is not read (issue 24, F4)."""
    inbox = snap.root / "inbox"
    try:
        names = sorted((n for n in os.listdir(inbox) if core.is_session_deposit(n)), reverse=True)
    except OSError:
        return []
    out: list[tuple[str, str]] = []
    for name in names:
        text = read_deposit(snap, f"inbox/{name}")
        if not isinstance(text, Unread):
            out.append((name, text))
    return out


def consolidate(inp: ConsolidateInput) -> Outcome:
    root = inp.path
    try:
        memory = Memory.open([root])
    except OpenError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    warnings = open_warnings(memory)
    promoter, reviewer = models(root)
    if promoter is None or reviewer is None:
        memory.close()
        line = no_promoter("consolidate") if promoter is None else no_reviewer("consolidate")
        return Outcome(stderr=line, code=2)
    agent = inp.agent
    base = nw.choose_root(
        root,
        agent,
        agent_dir_exists=is_plain_component(agent) and os.path.isdir(nw.join(root, "fleet", agent)),
        fleet_has_map=os.path.isfile(nw.join(root, "MAP.md")),
    )
    if not is_plain_component(agent) or not os.path.isdir(base):
        memory.close()
        return Outcome(stderr=f"kb consolidate: {nw.no_agent(base)}\n", code=1)
    try:
        snap = discover(base, include_private=False)
    except WalkError as e:
        memory.close()
        return Outcome(stderr=f"kb: {e}\n", code=1)
    experiences = core.gather(_records(root), agent, _deposits(snap), inp.sessions)
    role, ends = snap.agent_manifest.first("role"), snap.agent_manifest.first("ends")
    stderr = warnings
    rejected: list[tuple[str, str]] = []
    decided: list[promoterun.Decided] = []
    generated = 0
    timeout = model_timeout()
    fx = FleetEffects(memory, root, promoter, reviewer, inp.top, timeout, "consolidate")
    try:
        if len(experiences) >= core.MIN_SESSIONS:
            reply = run_model(promoter, core.prompt(agent, ends, experiences), Path(root), timeout)
            if reply.text is None:
                stderr += (
                    f"kb consolidate: could not reach the promoter ({printable(reply.reason)}), "
                    "so nothing was proposed.\n"
                )
            proposals = parse_proposals(reply.text or "")
            generated = len(proposals)
            known = [e.id for e in experiences]
            for p in proposals:
                why = core.evidence_refusal(p, known)
                if why is not None:
                    rejected.append((p.slug, why))
                    continue
                cited = ", ".join(core.cited(p))
                d = promoterun.Deposit(agent, cited, role, ends, base, "")
                step = promoterun.decide(d, p, cited, fx, promoterun.Settings(inp.dry_run))
                stderr += unreachable_stderr("consolidate", step.unreachable)
                if step.decided is not None:
                    decided.append(step.decided)
    finally:
        fx.close()
    stderr += unreachable_stderr("consolidate", fx.extra)
    result = core.Consolidated(
        agent, len(experiences), generated, tuple(rejected), tuple(decided), inp.dry_run
    )
    stdout = core.as_json(result) if inp.json else core.text(result)
    return Outcome(stdout=stdout, stderr=stderr)
