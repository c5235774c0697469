"""The session path: `kb boot` (the hook that routes each message before the model sees it)
and `kb blocks` (what an agent's constitution costs, and the text it sends).

`kb boot` is a UserPromptSubmit hook, so it is built around one promise: it always exits 0
and never writes to stderr on its own failures, because a hook that fails blocks or
decorates the user's message. Every failure here degrades to printing less (the roster, or
nothing), never to an error. It is also a hot path (it runs on every message), so it
imports only what the read path needs; the model runner is imported only when fleet.txt
names a classifier.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kb.io import clock
from kb.io.answering.memory import Answer, Memory, OpenError
from kb.io.notes.safe_read import note_text
from kb.io.notes.walk import BaseSnapshot, fleet_manifest
from kb.pure.answering.decompose import decompose_query
from kb.pure.answering.election import ascii_lower
from kb.pure.roles.classify import Judgement, RosterAgent
from kb.pure.sessions import briefing
from kb.pure.sessions.bootinput import (
    BootRequest,
    encodable,
    read_request,
    routed_text,
    strip_envelopes,
)
from kb.pure.sessions.sessionname import safe_session
from kb.shell.cli.bootinputs import BootInput

if TYPE_CHECKING:  # annotations only: importing every verb's inputs costs ~35 ms
    from kb.shell.cli.inputs import BlocksInput
from kb.shell.cli.outcome import Outcome

# A pasted log can be hundreds of lines; each sub-question is one more `ask`. The first
# dozen is where a compound question's parts are.
MAX_SUB_QUESTIONS = 12


# -- kb blocks ------------------------------------------------------------------------------


def blocks(inp: BlocksInput) -> Outcome:
    from kb.io.sessions.blockfiles import BlocksUnreadable, load_blocks
    from kb.pure.sessions import blocks as blockspure

    base = inp.path
    where = f"{base}/blocks.txt"
    try:
        loaded = load_blocks(Path(base))
    except BlocksUnreadable as e:
        return Outcome(stderr=f"kb: cannot read {where}: {e}\n", code=1)
    if loaded is None:
        return Outcome(stderr=f"kb: no blocks.txt at {base}\n", code=1)
    if not inp.emit:
        return Outcome(stdout=blockspure.render_report(where, loaded))
    # The assembly is the whole of stdout; a listed file that could not be read is named on
    # stderr, so it is never silently missing from a constitution.
    warnings = "".join(
        f"kb: {where} lists {m} in [{b.name}], which cannot be read; it was left out\n"
        for b in loaded
        if b.resident
        for m in b.missing
    )
    return Outcome(stdout=blockspure.assemble(loaded), stderr=warnings)


# -- kb boot --------------------------------------------------------------------------------


def boot(inp: BootInput) -> Outcome:
    try:
        # A file name that is not UTF-8 comes back from the walk with surrogates; printing one
        # would raise after this function returned, so the text is made printable here.
        return Outcome(stdout=encodable(_boot(inp)))
    except Exception:  # a hook must never fail the message it was handed, nor show a trace
        return Outcome()


def _stdin() -> str | None:
    stream = sys.stdin
    if stream is None:
        return None
    try:
        return stream.buffer.read().decode("utf-8")
    except (OSError, ValueError, AttributeError):  # UnicodeDecodeError is a ValueError
        return None


def _boot(inp: BootInput) -> str:
    raw = _stdin()
    if raw is None:
        return ""
    request = read_request(raw, inp.text, inp.session, inp.cwd)
    if request is None:
        return ""
    roots = list(inp.paths) or ([request.cwd] if request.cwd else ["."])
    try:
        memory = Memory.open(roots, all=inp.all)
    except OpenError:
        return ""
    with memory:
        return Boot(memory, roots[0], inp.top, request).text()


def roster_agents(memory: Memory) -> list[RosterAgent]:
    """The routable agents with what their cards declare, in the fleet's order."""
    return [
        RosterAgent(
            b.snapshot.agent_name,
            b.snapshot.agent_manifest.first("role"),
            b.snapshot.agent_manifest.first("ends"),
        )
        for b in memory.bases
        if b.snapshot.routable
    ]


class Boot:
    """One message routed through an open fleet: the steps of spec section 7.3 in order."""

    def __init__(self, memory: Memory, root: str, top: int, request: BootRequest) -> None:
        self.memory = memory
        self.root = root
        self.top = top
        self.request = request
        self.safe = safe_session(request.session) if request.session else None
        self.agents = roster_agents(memory)
        self.roster = briefing.roster(self.agents)
        self._bases: dict[str, BaseSnapshot] = {}
        for b in memory.bases:
            for name in (b.snapshot.agent_name, b.snapshot.name):
                self._bases.setdefault(ascii_lower(name), b.snapshot)

    def name_of(self, agent: str) -> str:
        """An elected base name spelled as the roster spells it."""
        folded = ascii_lower(agent)
        return next((a.name for a in self.agents if ascii_lower(a.name) == folded), agent)

    def root_of(self, name: str) -> Path | None:
        snap = self._bases.get(ascii_lower(name))
        return snap.root if snap else None

    # -- the steps --------------------------------------------------------------------------

    def text(self) -> str:
        if not self.request.prompt.strip():
            return self.roster
        asked = routed_text(strip_envelopes(self.request.prompt))
        if not asked.strip():
            return ""
        answer = self.memory.ask(asked, self.top)
        self.record_loss(asked, answer)
        judgement = self.judge(asked, answer)
        if judgement is not None and judgement.coverage != "covered":
            self.record_abstention(asked, answer, judgement)
            return briefing.coverage_refusal(judgement, self.roster)
        chosen = judgement.owner if judgement else None
        seating = briefing.seat_compound(
            chosen, judgement.reviewers if judgement else (), self.sub_hits(asked)
        )
        if seating.chosen is None:
            return self.unrouted(asked, answer)
        agent = seating.chosen
        previous = self.switch_to(agent)
        switched = previous is None or previous != agent
        return briefing.routed_text(
            briefing.Routed(
                agent=agent,
                switched=switched,
                previous=previous,
                constitution=self.constitution(agent) if switched else None,
                degraded=judgement is not None and briefing.is_degraded(judgement),
                unapproved=judgement is not None and briefing.is_unapproved(judgement),
                continuity=self.continuity(switched),
                decomposition=seating.note,
                panel=(
                    briefing.panel_instruction(agent, seating.panel, self.boot_cost(seating))
                    if seating.panel
                    else None
                ),
                evidence=self.evidence(answer),
            )
        )

    def unrouted(self, asked: str, answer: Answer) -> str:
        """No agent chosen: the librarian when a base no agent owns is on the list, else the
        list itself, with no owner; under `nothing`, no list at all."""
        c = answer.confidence
        shortfall = self.memory.shortfall(c, asked)
        if c.verdict == "nothing" or not answer.found:
            return briefing.no_owner(shortfall, self.roster, c.verdict, c.coverage)
        files = [f"{f.base}/{f.path}" for f in answer.found]
        library_bases = {b.snapshot.name for b in self.memory.bases if not b.snapshot.routable}
        if any(f.base in library_bases for f in answer.found):
            return briefing.librarian(files, c.verdict, c.coverage)
        return briefing.unowned(files, c.verdict, c.coverage, shortfall, self.roster)

    def record_loss(self, asked: str, answer: Answer) -> None:
        loss = self.memory.recall_loss(asked, answer.confidence)
        if loss is not None and self.safe is not None:
            from kb.io.sessions.bootstate import append_event
            from kb.pure.sessions.sessionlog import refused_line

            append_event(self.root, self.safe, refused_line(loss.question, loss.looked_like))

    def judge(self, asked: str, answer: Answer) -> Judgement | None:
        command = fleet_manifest(self.root).first("classifier")
        judgement = None
        unapproved = False
        if command is not None:
            from kb.io.roles.model import model_timeout, run_model
            from kb.pure.roles.classify import dossier, parse_reply

            prompt = dossier(
                self.agents, asked, answer.found, answer.keyword_hits, answer.confidence
            )
            from kb.pure.fleet.trust import AWAITS

            reply = run_model(command, prompt, Path(self.root), model_timeout())
            if reply.text is not None:
                judgement = parse_reply(reply.text, [a.name for a in self.agents])
            unapproved = AWAITS in reply.reason
        if judgement is not None:
            return judgement
        elected = self.name_of(answer.agent.agent) if answer.agent else None
        return briefing.fallback(
            answer.confidence.verdict, elected, command is not None, unapproved
        )

    def record_abstention(self, asked: str, answer: Answer, j: Judgement) -> None:
        from kb.io.logs import routelogs

        # A write failure is not reported: boot never writes to stderr (docs/verbs/boot.md).
        routelogs.record_abstention(
            routelogs.abstentions_path(self.root),
            coverage=j.coverage,
            nearest=j.owner,
            subject=j.subject,
            message=asked,
            reason=j.reason,
            totals=answer.agent.totals if answer.agent else (),
            today=clock.today_utc(),
        )

    def sub_hits(self, asked: str) -> list[tuple[str, str]]:
        subs = decompose_query(asked)
        if len(subs) < 2:  # one sub-question is the message itself, already asked
            return []
        out: list[tuple[str, str]] = []
        for sub in subs[:MAX_SUB_QUESTIONS]:
            a = self.memory.ask(sub, self.top)
            if a.confidence.verdict == "hit" and a.agent is not None:
                out.append((self.name_of(a.agent.agent), sub))
        return out

    def switch_to(self, agent: str) -> str | None:
        """The agent the session had before this message; records this one."""
        if self.safe is None:
            return None
        from kb.io.sessions.bootstate import append_event, last_agent, remember_agent
        from kb.pure.sessions.sessionlog import routed_line

        previous = last_agent(self.root, self.safe)
        if previous != agent:  # the same name again: the file already says so
            remember_agent(self.root, self.safe, agent)
        append_event(self.root, self.safe, routed_line(agent))
        return previous

    def constitution(self, agent: str) -> str | None:
        snap = self._bases.get(ascii_lower(agent))
        if snap is None:
            return None
        # The public scope withholds private files and files outside the agent's base (the
        # person's core.md): the hook for one's own session passes --all (docs/hooks.md).
        public = None if self.memory.include_private else snap
        # The blocks modules are imported only when a constitution is sent (an agent
        # switch): most messages stay with their agent and never build their classes.
        from kb.io.sessions.blockfiles import BlocksUnreadable, load_blocks
        from kb.pure.sessions import blocks as blockspure

        try:
            loaded = load_blocks(snap.root, public)
        except BlocksUnreadable:
            return None
        return blockspure.assemble(loaded) if loaded is not None else None

    def continuity(self, switched: bool) -> str | None:
        from kb.io.sessions.bootstate import latest_handoff, load_handoff

        record = load_handoff(self.root, self.safe) if self.safe else None
        if record is None and switched:
            record = latest_handoff(self.root)
        if record is None:
            return None
        from kb.pure.sessions.continuity import briefing as continuity_briefing

        return continuity_briefing(record)

    def boot_cost(self, seating: briefing.Seating) -> int:
        from kb.io.sessions.blockfiles import quiet_blocks
        from kb.pure.sessions import blocks as blockspure

        total = 0
        for r in seating.panel:
            root = self.root_of(r.name)
            if root is not None:
                total += blockspure.resident_tokens(quiet_blocks(root))
        return total

    def evidence(self, answer: Answer) -> str:
        """The verdict, then the fused list it judged, in `kb route --json`'s order: on a hit
        the first file's passages and the rest as leads; on a refusal no file."""
        c = answer.confidence
        head = briefing.verdict_paragraph(c.verdict, c.coverage)
        if c.verdict == "nothing":
            return head + briefing.REFUSED_EVIDENCE
        paths = [f"{f.base}/{f.path}" for f in answer.found]
        if c.verdict == "hit" and paths:
            text = self.hit_briefing(answer, paths)
            if text is not None:
                return head + text
        return head + briefing.reading_list(paths)

    def hit_briefing(self, answer: Answer, paths: Sequence[str]) -> str | None:
        from kb.pure.notes.header import field_exact, front_matter

        # The file the verdict judged: the first of the fused list (decision 0029).
        vouched = paths[0]
        f = answer.found[0]
        snap = self._bases.get(ascii_lower(f.base))
        text = note_text(snap, f.path) if snap is not None else None
        shown = [briefing.Shown(p.heading_path, p.text) for p in f.passages]
        front = not shown
        if front and text is not None:
            from kb.pure.notes.chunking import chunk  # only a vouched file with no passage

            shown = [briefing.Shown(c.heading_path, c.text) for c in chunk(text)]
        origin = field_exact(front_matter(text), "captured_from") if text is not None else None
        return briefing.hit_briefing(
            vouched,
            shown,
            front_of_file=front,
            short_memory=f.layer == "short",
            origin=origin or None,
            leads=[p for p in paths if p != vouched],
        )
