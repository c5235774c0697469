"""The promotion run (workflow-verbs.md §10.2): the order of every step, over effects the
caller injects (reading a deposit, the two model commands, the router's evidence, the
writer, the rejection log). `kb promote`, `kb ingest` and `kb consolidate` all decide
through `decide`, so the three verbs cannot disagree about what may be written.

Rules of this module:
- For each deposit file, in the order given: the cap is checked, the file is read, the
  promoter is asked; a promoter that does not answer makes the file unreachable, and a reply
  with no parseable proposal makes it barren.
- For each proposal: the cap is checked; then, in this order and without any model, the
  hard rules (kb.pure.promotion.promote.hard_rule), a note already on disk under that name, and the
  repetition filter; then the evidence; then the reviewer, once per lens, in the order
  contradiction, duplication, scope, each shown the earlier refusal under its own lens. A
  lens that does not answer abandons the proposal: nothing written, nothing recorded.
- Only unanimity writes (kb.pure.promotion.promote.unanimous), and only outside a dry run. A write
  the writer refuses as a judgement (every key dead, a dash) becomes a fourth review, under
  scope, and is recorded like any refusal; any other write failure is an outage.
- Every refusal is recorded unless it is a dry run; the history is read again before each
  proposal, so a refusal recorded a moment ago counts for the next one.
- The cap counts admitted proposals (three accepts), written or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from attrs import frozen

from kb.pure.promotion.promote import (
    LENSES,
    Proposal,
    Review,
    already_written,
    capped,
    first_refusal,
    hard_rule,
    parse_proposals,
    prior,
    read_verdict,
    repeated,
    repetition,
    target_folder,
    unanimous,
)
from kb.pure.promotion.promoteprompts import promoter_prompt, review_prompt
from kb.pure.promotion.rejections import LOG_NAME, Row


@frozen
class Deposit:
    agent: str  # the agent's directory name, as sources and the log name it
    source: str  # "{agent}/{path inside the agent's base}"
    role: str | None = None
    ends: str | None = None
    base: str = ""  # the base's root as the walk gave it (the effects find files with it)
    path: str = ""  # the deposit file on disk


@frozen
class Failed:
    """An effect that did not happen: a model that did not answer, a file not read."""

    reason: str


@frozen
class Written:
    path: str
    dropped: tuple[str, ...] = ()


@frozen
class WriteRefused:
    """`kb write` refused the note as a judgement on it (every key dead, a dash)."""

    message: str


WriteResult = Written | WriteRefused | Failed


class Effects(Protocol):
    def read(self, deposit: Deposit) -> str | Failed: ...

    def propose(self, prompt: str) -> str | Failed: ...

    def review(self, prompt: str) -> str | Failed: ...

    def evidence(self, keys: tuple[str, ...]) -> str: ...

    def existing(self, deposit: Deposit, folder: str, slug: str) -> str | None: ...

    def write(
        self, deposit: Deposit, p: Proposal, folder: str, captured_from: str
    ) -> WriteResult: ...

    def rejections(self) -> tuple[Row, ...]: ...

    def record(self, agent: str, slug: str, lens: str, reason: str) -> str | None: ...

    def progress(self, line: str) -> None: ...


@frozen
class Settings:
    dry_run: bool = False
    cap: int | None = None


@frozen
class Decided:
    agent: str
    slug: str
    source: str  # the deposit file, or the cited sessions (kb consolidate)
    reviews: tuple[Review, ...]
    admitted: bool  # all three lenses accepted
    written: str | None = None  # the note's path, when it was written
    dropped: tuple[str, ...] = ()

    @property
    def refused(self) -> bool:
        return first_refusal(self.reviews) is not None


@frozen
class Step:
    """What deciding one proposal produced."""

    decided: Decided | None  # None: abandoned (a lens or the writer could not be reached)
    unreachable: tuple[str, ...] = ()
    admitted: bool = False


@frozen
class Barren:
    """A deposit file the promoter found nothing worth keeping in."""

    source: str


@frozen
class Report:
    entries: tuple[Decided | Barren, ...]  # in the order they happened
    unreachable: tuple[str, ...]
    stopped_at: int | None

    @property
    def decided(self) -> tuple[Decided, ...]:
        return tuple(e for e in self.entries if isinstance(e, Decided))

    @property
    def barren(self) -> tuple[str, ...]:
        return tuple(e.source for e in self.entries if isinstance(e, Barren))


def run(deposits: Sequence[Deposit], fx: Effects, s: Settings) -> Report:
    entries: list[Decided | Barren] = []
    unreachable: list[str] = []
    admitted = 0
    stopped: int | None = None
    for i, d in enumerate(deposits, 1):
        if capped(admitted, s.cap):
            stopped = s.cap
            break
        fx.progress(f"[{i}/{len(deposits)}] {d.source}: asking the promoter")
        text = fx.read(d)
        if isinstance(text, Failed):
            unreachable.append(f"the deposit {d.source} ({text.reason})")
            continue
        reply = fx.propose(promoter_prompt(d.agent, d.ends, d.source, text))
        if isinstance(reply, Failed):
            unreachable.append(f"promoter, on {d.source} ({reply.reason})")
            continue
        proposals = parse_proposals(reply)
        if not proposals:
            entries.append(Barren(d.source))
            continue
        for p in proposals:
            if capped(admitted, s.cap):
                stopped = s.cap
                break
            step = decide(d, p, d.source, fx, s)
            unreachable.extend(step.unreachable)
            admitted += step.admitted
            if step.decided is not None:
                entries.append(step.decided)
        if stopped is not None:
            break
    return Report(tuple(entries), tuple(unreachable), stopped)


def decide(d: Deposit, p: Proposal, captured_from: str, fx: Effects, s: Settings) -> Step:
    """Review one proposal and write it on a unanimous accept."""
    gate = hard_rule(p)
    folder = target_folder(p)
    if gate is not None or folder is None:
        return _refused(d, p, captured_from, (gate or _nowhere(p),), fx, s)
    existing = fx.existing(d, folder, p.slug)
    if existing is not None:
        return _refused(d, p, captured_from, (already_written(existing),), fx, s)
    rows = fx.rejections()
    again = repeated(rows, d.agent, p.slug)
    if again is not None:
        # Counted under the reason the reviewer gave, not the filter's own sentence, which
        # would otherwise wrap itself once more on every run.
        return _refused(d, p, captured_from, (repetition(again),), fx, s, again.reason)
    evidence = fx.evidence(p.keys)
    reviews: list[Review] = []
    for lens in LENSES:
        fx.progress(f"  {d.agent}/{p.slug}: the reviewer reads it for {lens}")
        prompt = review_prompt(
            lens, d.agent, d.role, d.ends, p, folder, evidence, prior(rows, d.agent, p.slug, lens)
        )
        reply = fx.review(prompt)
        if isinstance(reply, Failed):
            return Step(None, (f"reviewer {lens}, on {p.slug} ({reply.reason})",))
        reviews.append(read_verdict(lens, reply))
    if not unanimous(reviews):
        return _refused(d, p, captured_from, tuple(reviews), fx, s)
    if s.dry_run:
        return Step(Decided(d.agent, p.slug, captured_from, tuple(reviews), True), (), True)
    result = fx.write(d, p, folder, captured_from)
    if isinstance(result, Failed):
        return Step(None, (f"write {p.slug}: {result.reason}",), True)
    if isinstance(result, WriteRefused):
        at_write = Review("scope", False, f"refused at the write: {result.message}")
        step = _refused(d, p, captured_from, (*reviews, at_write), fx, s)
        return Step(step.decided, step.unreachable, True)
    done = Decided(
        d.agent, p.slug, captured_from, tuple(reviews), True, result.path, result.dropped
    )
    return Step(done, (), True)


def _nowhere(p: Proposal) -> Review:
    return Review("scope", False, f"hard rule, not a judgement: no folder to write {p.slug} into")


def _refused(
    d: Deposit,
    p: Proposal,
    source: str,
    reviews: tuple[Review, ...],
    fx: Effects,
    s: Settings,
    logged: str | None = None,
) -> Step:
    done = Decided(d.agent, p.slug, source, reviews, False)
    if s.dry_run:
        return Step(done)
    first = first_refusal(reviews)
    assert first is not None
    error = fx.record(d.agent, p.slug, first.lens, logged or first.reason)
    if error is None:
        return Step(done)
    return Step(done, (f"{LOG_NAME}, to count the refusal of {d.agent}/{p.slug} ({error})",))
