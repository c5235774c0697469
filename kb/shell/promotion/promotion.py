"""The real effects of a promotion run (kb.pure.promotion.promoterun.Effects): the deposit on disk,
the two model commands of fleet.txt (kb.io.roles.model), the router's evidence (the Memory
contract), `kb write`'s own writer (kb.shell.writing.initwrite.write_note, through
kb.pure.writing.notewrite), and the rejection log. `kb promote`, `kb ingest` and `kb consolidate`
share it.

- The evidence is what the router answers for the proposal's keys, long memory only: the
  deposit a proposal came from is in `inbox/` and would otherwise be shown to the reviewer
  as proof that the base "already holds" it.
- After every note written the memory is opened again, so the next proposal's evidence
  includes the note just written (a second proposal saying the same thing is caught).
- Progress goes to stderr only when stderr is a terminal; stdout never carries it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from returns.result import Failure

from kb.io import clock
from kb.io.answering.memory import Memory, OpenError
from kb.io.notes.walk import fleet_manifest
from kb.io.promotion import promotelock, rejectlog
from kb.io.promotion.deposits import Unread, deposit_files, read_deposit
from kb.io.roles.model import run_model
from kb.pure.promotion.promote import Proposal
from kb.pure.promotion.promoteprompts import evidence_of, evidence_text
from kb.pure.promotion.promoterun import Deposit, Failed, WriteRefused, WriteResult, Written
from kb.pure.promotion.rejections import Row
from kb.pure.writing import notewrite as nw
from kb.shell.cli.inputs import WriteInput

EVIDENCE_OVERSAMPLE = 3  # short-memory results are dropped from the evidence; ask for more


def models(root: str) -> tuple[str | None, str | None]:
    """(promoter, reviewer) command lines from `{root}/fleet.txt`."""
    manifest = fleet_manifest(root)
    return manifest.first("promoter"), manifest.first("reviewer")


def no_promoter(verb: str) -> str:
    return (
        f"kb {verb}: no `promoter = ...` in the fleet manifest, so there is nothing to "
        "propose with.\n"
    )


def no_reviewer(verb: str) -> str:
    return (
        f"kb {verb}: no `reviewer = ...` in the fleet manifest. Running the proposer alone "
        "would write unreviewed material into the base, which is what this command exists "
        "not to do.\n"
    )


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


def say(stream: TextIO, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        pass  # a closed stderr must not sink the run


def deposits_of(memory: Memory, include_private: bool) -> list[Deposit]:
    """Every deposit file of every routable agent, agent by agent (the snapshot taken once)."""
    out: list[Deposit] = []
    for b in memory.bases:
        snap = b.snapshot
        if not snap.routable:
            continue
        for rel in deposit_files(snap):
            out.append(deposit(snap.agent_name, snap.given, rel, memory))
    return out


def deposit(agent: str, base: str, rel: str, memory: Memory) -> Deposit:
    manifest = next(
        (b.snapshot.agent_manifest for b in memory.bases if b.snapshot.given == base), None
    )
    return Deposit(
        agent=agent,
        source=f"{agent}/{rel}",
        role=manifest.first("role") if manifest else None,
        ends=manifest.first("ends") if manifest else None,
        base=base,
        path=str(Path(base) / rel),
    )


class FleetEffects:
    """kb.pure.promotion.promoterun.Effects over the real fleet."""

    def __init__(
        self,
        memory: Memory,
        root: str,
        promoter: str,
        reviewer: str,
        top: int,
        timeout: float,
        verb: str,
        err: TextIO | None = None,
        lock: promotelock.Held | None = None,
    ) -> None:
        self.memory = memory
        self.root = root
        self.promoter = promoter
        self.reviewer = reviewer
        self.top = top
        self.timeout = timeout
        self.verb = verb
        self.err = err if err is not None else sys.stderr
        self.tty = is_terminal(self.err)
        self.lock = lock
        self.log = rejectlog.log_path(root)
        self.extra: list[str] = []  # outages outside the run's own steps (re-reading the base)

    def close(self) -> None:
        self.memory.close()

    # -- the deposit and the models -------------------------------------------------------

    def read(self, d: Deposit) -> str | Failed:
        """The deposit's text, read through kb.io.notes.safe_read against the walk of its base."""
        snap = next((b.snapshot for b in self.memory.bases if b.snapshot.given == d.base), None)
        if snap is None:
            return Failed(f"{d.path} is not in a base this run opened")
        rel = Path(os.path.relpath(d.path, d.base)).as_posix()
        text = read_deposit(snap, rel)
        return Failed(text.reason) if isinstance(text, Unread) else text

    def _ask(self, command: str, prompt: str) -> str | Failed:
        if self.lock is not None:
            promotelock.touch(self.lock)
        reply = run_model(command, prompt, Path(self.root), self.timeout)
        return reply.text if reply.text is not None else Failed(reply.reason)

    def propose(self, prompt: str) -> str | Failed:
        return self._ask(self.promoter, prompt)

    def review(self, prompt: str) -> str | Failed:
        return self._ask(self.reviewer, prompt)

    def progress(self, line: str) -> None:
        if self.tty:
            say(self.err, f"kb {self.verb}: {line}\n")

    # -- the base -------------------------------------------------------------------------

    def evidence(self, keys: tuple[str, ...]) -> str:
        answer = self.memory.ask(" ".join(keys), max(self.top, 1) * EVIDENCE_OVERSAMPLE)
        shown = evidence_of(answer.keyword_hits, answer.found, self.memory.entry_count(), self.top)
        return evidence_text(shown)

    def existing(self, d: Deposit, folder: str, slug: str) -> str | None:
        path = nw.join(d.base, folder, f"{slug}.md")
        return path if os.path.lexists(path) else None

    def write(self, d: Deposit, p: Proposal, folder: str, captured_from: str) -> WriteResult:
        from kb.shell.writing.initwrite import house_style, write_note

        keys = ", ".join(p.keys)
        request = nw.NoteRequest(
            slug=p.slug,
            keys=keys,
            summary=p.summary,
            body=p.body,
            folder=folder,
            provenance="agent",
            stage="captured",
            captured_from=captured_from,
            no_dashes=house_style(d.base)[0],  # what `kb write` will hold it to
        )
        # The writer's own validation, asked first only to tell a judgement on the note
        # (every key dead, a dash: a refusal to record) from an outage; the write itself
        # below runs the same validation again, through `kb write`'s one code path.
        prepared = nw.prepare(request)
        if isinstance(prepared, Failure):
            refused = prepared.failure()
            if refused.judgement:
                return WriteRefused(refused.message)
            return Failed(refused.message)
        note = prepared.unwrap()
        done = write_note(
            WriteInput(
                agent=d.agent,
                slug=p.slug,
                paths=(d.base,),
                keys=keys,
                summary=p.summary,
                folder=folder,
                captured_from=captured_from,
                provenance="agent",
                stage="captured",
            ),
            p.body,
        )
        if done.code != 0:
            return Failed(done.stderr.strip().removeprefix("kb: "))
        first = done.stdout.split("\n", 1)[0]
        path = first.removeprefix("wrote ")
        self._reopen(p.slug)
        return Written(path, note.dropped)

    def _reopen(self, slug: str) -> None:
        try:
            fresh = Memory.open(list(self.memory.opened), all=self.memory.include_private)
        except OpenError as e:
            self.extra.append(f"re-reading the base after {slug}: {e}")
            return
        old, self.memory = self.memory, fresh
        with contextlib.suppress(Exception):
            old.close()

    # -- the rejection log ----------------------------------------------------------------

    def rejections(self) -> tuple[Row, ...]:
        try:
            return rejectlog.load(self.log)
        except OSError:
            return ()

    def record(self, agent: str, slug: str, lens: str, reason: str) -> str | None:
        return rejectlog.record(self.log, agent, slug, lens, reason, clock.today_utc())


def unreachable_of(items: Sequence[str], fx: FleetEffects) -> list[str]:
    return [*items, *fx.extra]
