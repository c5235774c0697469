"""`kb panel` (workflow-verbs.md §16): open an objection round on one artifact and price it,
record what each reviewer returned, account for each objection, and read the ledger back.

Typed input in, Outcome out. The ledger's rules are kb.pure.roles.panel's, its texts
kb.pure.render.panelrender's; the locked rewrite of `kb-rounds.txt` and the constitution files are
kb.io.roles.panel's. `kb panel` never calls a model and never picks the panel: it assembles each
named reviewer's constitution (the `kb blocks --emit` text, priced with the same figure
`kb blocks` and `kb boot` print), prices the round before it is spent, and keeps the books.

Opening reads the fleet by walking its bases (no index is opened or built); only the
proposal (no --reviewer) opens the Memory, to rank agents by the artifact's own words.
Exit codes: 0 success; 1 the fleet could not be read or the ledger not locked, read or
written (nothing changed); 2 every argument error and every move the ledger refuses
(nothing changed). `--ledger` with an artifact exits 0 when the round is closed, 1 while it
is open, 2 when there is no such round.
"""

from __future__ import annotations

from pathlib import Path

from returns.result import Failure

from kb.io import clock
from kb.io.notes.walk import BaseSnapshot, WalkError, discover, expand_roots
from kb.io.roles import panel as store
from kb.io.sessions.blockfiles import BlocksUnreadable, load_blocks
from kb.pure.answering.election import ascii_lower
from kb.pure.notes.names import printable
from kb.pure.render import panelrender as render
from kb.pure.roles import panel as pn
from kb.pure.sessions import blocks as blockspure
from kb.pure.writing.notewrite import join
from kb.shell.cli.inputs import PanelInput
from kb.shell.cli.outcome import Outcome


def _refuse(message: str, code: int = 2) -> Outcome:
    lines = "\n".join(printable(line) for line in message.split("\n"))
    return Outcome(stderr=f"kb: {lines}\n", code=code)


def _given_flags(inp: PanelInput) -> list[str]:
    """The flags present on the command line, in the input class's order."""
    values = {
        "--owner": inp.owner is not None,
        "--reviewer": bool(inp.reviewer),
        "--out": inp.out is not None,
        "--json": inp.json,
        "--from": inp.from_ is not None,
        "--objection": inp.objection is not None,
        "--blocking": inp.blocking,
        "--nothing": inp.nothing,
        "--not-returned": inp.not_returned,
        "--why": inp.why is not None,
        "--resolve": inp.resolve is not None,
        "--taken": inp.taken,
        "--refused": inp.refused,
        "--escalated": inp.escalated,
        "--ledger": inp.ledger,
    }
    return [flag for flag, present in values.items() if present]


def panel(inp: PanelInput) -> Outcome:
    form = pn.form_of(inp.ledger, inp.resolve is not None, inp.from_ is not None)
    stray = pn.stray_flag(form, _given_flags(inp))
    if stray is not None:
        return _refuse(stray)
    artifact = inp.artifact if inp.artifact is not None and inp.artifact.strip() else None
    if form == "ledger":
        return _ledger(artifact, inp.path, inp.json)
    if form == "resolve":
        return _resolve(inp, artifact)
    if form == "record":
        return _record(inp, artifact)
    return _open(inp, artifact)


# -- opening ----------------------------------------------------------------------------------

NO_ARTIFACT = (
    "panel needs the artifact under review, as a path or a name.\n"
    "    `kb panel --ledger` lists the rounds that are already open."
)
NO_OWNER = (
    "panel needs --owner <agent>: the one agent accountable for this piece.\n"
    "    A panel with no owner is a committee, and a committee cannot own an arc."
)


def _agents(root: str) -> list[BaseSnapshot]:
    """The fleet's routable agents, in its order (raises WalkError). A walk, not an index."""
    snapshots = (discover(given, include_private=False) for given in expand_roots([root]))
    return [s for s in snapshots if s.routable]


def _find(agents: list[BaseSnapshot], name: str) -> BaseSnapshot | None:
    folded = ascii_lower(pn.flatten(name))
    return next((a for a in agents if ascii_lower(a.agent_name) == folded), None)


def _no_owner_agent(owner: str, agents: list[BaseSnapshot]) -> Outcome:
    roster = ", ".join(a.agent_name for a in agents) or "no routable agent at all"
    return _refuse(f"no routable agent named `{owner}`. The fleet: {roster}")


def _open(inp: PanelInput, artifact: str | None) -> Outcome:
    if artifact is None:
        return _refuse(NO_ARTIFACT)
    if inp.owner is None or not pn.flatten(inp.owner):
        return _refuse(NO_OWNER)
    text = store.read_artifact(artifact)
    if not pn.distinct_names(inp.reviewer):
        return _propose(inp, artifact, inp.owner, text)
    try:
        agents = _agents(inp.path)
    except WalkError as e:
        return _refuse(str(e), code=1)
    if _find(agents, inp.owner) is None:
        return _no_owner_agent(inp.owner, agents)
    owner = pn.name_of(inp.owner)
    names = pn.distinct_names(inp.reviewer)
    if owner in names:
        return _refuse(pn.owner_on_panel(owner).message)
    reviewers: list[tuple[str, BaseSnapshot]] = []
    for name in names:
        snap = _find(agents, name)
        if snap is None:
            return _refuse(
                f"no agent named '{name}' in this fleet. `kb fleet` lists who is here, with what "
                "each one owns and where each one stops."
            )
        reviewers.append((name, snap))
    out = inp.out if inp.out is not None else join(inp.path, ".kb", "panel")
    booted: list[pn.Booted] = []
    texts: list[tuple[str, str]] = []
    warnings: list[str] = []
    for name, snap in reviewers:
        where = join(snap.given, "blocks.txt")
        try:
            loaded = load_blocks(snap.root)
        except BlocksUnreadable as e:
            return _refuse(f"cannot read {where}: {e}, so {name} cannot be booted as itself.")
        if loaded is None:
            return _refuse(
                f"{name} has no blocks.txt at {snap.given}, so it cannot be booted as itself. A "
                "subagent handed no constitution answers as the base model wearing a name, "
                f"which is a reviewer in costume. Write blocks.txt for {name}, or leave it off "
                "the panel."
            )
        file_name = f"{name}-constitution.txt"
        texts.append((file_name, blockspure.assemble(loaded)))
        booted.append(pn.Booted(name, join(out, file_name), blockspure.resident_tokens(loaded)))
        warnings += [
            f"kb: {where} lists {m} in [{b.name}], which cannot be read; it was left out of "
            f"{name}'s constitution\n"
            for b in loaded
            if b.resident
            for m in b.missing
        ]
    tokens = blockspure.tokens_of_artifact(artifact, text) if text is not None else None
    cost = pn.price(booted, tokens)
    log = store.ledger_path(inp.path)
    try:
        with store.locked(log) as ledger:
            seated = pn.seat(ledger.rows(), artifact, owner, names, clock.today_utc())
            if isinstance(seated, Failure):
                return _refuse(seated.failure().message)
            done = seated.unwrap()
            written = store.write_constitutions(Path(out), texts)
            try:
                ledger.write(done.rows)
            except store.LedgerError:
                for p in written:
                    p.unlink(missing_ok=True)
                raise
    except store.LedgerError as e:
        return _refuse(f"{e}; no round was opened", code=1)
    stderr = "".join(printable(w.rstrip("\n")) + "\n" for w in warnings)
    if inp.json:
        return Outcome(
            stdout=render.opened_json(done, booted, cost, join(inp.path, pn.LEDGER_NAME)),
            stderr=stderr,
        )
    return Outcome(stdout=render.opened_text(done, booted, cost, artifact), stderr=stderr)


def _propose(inp: PanelInput, artifact: str, owner_given: str, text: str | None) -> Outcome:
    from kb.io.answering.memory import DEFAULT_TOP, Memory, OpenError
    from kb.shell.answering.readverbs import open_warnings

    try:
        memory = Memory.open([inp.path])
    except OpenError as e:
        return _refuse(str(e), code=1)
    with memory:
        agents = [b.snapshot for b in memory.bases if b.snapshot.routable]
        owner_snap = _find(agents, owner_given)
        if owner_snap is None:
            return _no_owner_agent(owner_given, agents)
        owner = ascii_lower(owner_snap.agent_name)
        others = [a for a in agents if ascii_lower(a.agent_name) != owner]
        totals: tuple[tuple[str, float], ...] = ()
        if text is not None and text.strip():
            choice = memory.ask(text, DEFAULT_TOP).agent
            totals = choice.totals if choice else ()
        warning = open_warnings(memory)
    candidates = {ascii_lower(a.agent_name): _candidate(a) for a in others}
    ranked: list[tuple[render.Candidate, float]] = []
    for agent, score in totals:
        c = candidates.pop(ascii_lower(agent), None)
        if c is not None and score > 0:
            ranked.append((c, score))
    proposal = render.Proposal(
        artifact=pn.key_of(artifact),
        owner=owner_snap.agent_name,
        artifact_bytes=len(text.encode("utf-8")) if text is not None else None,
        artifact_tokens=blockspure.tokens_of_artifact(artifact, text) if text is not None else None,
        ranked=tuple(ranked),
        unranked=tuple(candidates.values()),
    )
    shown = render.proposal_json(proposal) if inp.json else render.proposal_text(proposal)
    return Outcome(stdout=shown, stderr=warning)


def _candidate(snap: BaseSnapshot) -> render.Candidate:
    try:
        loaded = load_blocks(snap.root)
    except BlocksUnreadable:
        loaded = None
    return render.Candidate(
        name=snap.agent_name,
        tokens=blockspure.resident_tokens(loaded) if loaded else 0,
        bootable=loaded is not None,
        root=snap.given,
        role=snap.agent_manifest.first("role"),
        ends=snap.agent_manifest.first("ends"),
    )


# -- recording --------------------------------------------------------------------------------

ONE_ANSWER = (
    "--from needs exactly one of --objection <text>, --nothing or --not-returned.\n"
    "    --objection is the single strongest thing it found wrong (with --blocking when the\n"
    "    owner may not refuse it); --nothing says it read the piece and found nothing;\n"
    "    --not-returned says it never answered. Silence is never recorded as --nothing."
)


def _record(inp: PanelInput, artifact: str | None) -> Outcome:
    if artifact is None:
        return _refuse("panel needs the artifact the answer is about.")
    chosen = [inp.objection is not None, inp.nothing, inp.not_returned]
    if sum(chosen) != 1:
        return _refuse(ONE_ANSWER)
    if inp.blocking and inp.objection is None:
        return _refuse("--blocking marks an objection, so it goes with --objection <text>.")
    if inp.why is not None and not inp.not_returned:
        return _refuse(
            "--why goes with --not-returned (what was decided instead) or with --resolve (why "
            "the owner took, refused or escalated); an objection carries its reason in its text."
        )
    reviewer = inp.from_ or ""
    if not pn.name_of(reviewer):
        return _refuse("--from needs the reviewer whose answer this is.")
    answer: pn.Answer
    if inp.objection is not None:
        answer = pn.Objection(inp.objection, inp.blocking)
    elif inp.nothing:
        answer = pn.FoundNothing()
    else:
        answer = pn.NotReturned(inp.why or "")
    log = store.ledger_path(inp.path)
    try:
        if not log.is_file():  # no ledger, no round: refused without touching the disk
            refused = pn.record((), artifact, reviewer, answer, clock.today_utc())
            return _refuse(refused.failure().message if isinstance(refused, Failure) else "")
        with store.locked(log) as ledger:
            moved = pn.record(ledger.rows(), artifact, reviewer, answer, clock.today_utc())
            if isinstance(moved, Failure):
                return _refuse(moved.failure().message)
            done = moved.unwrap()
            ledger.write(done.rows)
    except store.LedgerError as e:
        return _refuse(f"{e}; nothing was recorded", code=1)
    return Outcome(stdout=render.recorded_text(done, inp.blocking))


# -- resolving --------------------------------------------------------------------------------


def _resolve(inp: PanelInput, artifact: str | None) -> Outcome:
    if artifact is None:
        return _refuse("panel needs the artifact whose objection is being resolved.")
    try:
        n = int((inp.resolve or "").strip())
    except ValueError:
        return _refuse(
            f"--resolve takes an objection number. `kb panel {artifact} --ledger` numbers them."
        )
    flags = (inp.taken, inp.refused, inp.escalated)
    outcomes = [o for o, given in zip(pn.OUTCOMES, flags, strict=True) if given]
    if len(outcomes) != 1:
        return _refuse("--resolve needs exactly one of --taken, --refused or --escalated.")
    outcome = outcomes[0]
    why = inp.why or ""
    if outcome == "refused" and not pn.flatten(why):
        return _refuse(pn.refusal_needs_why().message)
    log = store.ledger_path(inp.path)
    today = clock.today_utc()
    try:
        if not log.is_file():
            refused = pn.resolve((), artifact, n, outcome, why, inp.from_, today)
            return _refuse(refused.failure().message if isinstance(refused, Failure) else "")
        with store.locked(log) as ledger:
            moved = pn.resolve(ledger.rows(), artifact, n, outcome, why, inp.from_, today)
            if isinstance(moved, Failure):
                return _refuse(moved.failure().message)
            done = moved.unwrap()
            ledger.write(done.rows)
    except store.LedgerError as e:
        return _refuse(f"{e}; nothing was resolved", code=1)
    return Outcome(stdout=render.resolved_text(done))


# -- the ledger -------------------------------------------------------------------------------


def _ledger(artifact: str | None, root: str, as_json: bool) -> Outcome:
    log = store.ledger_path(root)
    try:
        rows = store.load(log)
    except store.LedgerError as e:
        return _refuse(str(e), code=1)
    shown = join(root, pn.LEDGER_NAME)
    if artifact is None:
        text = render.summary_json(shown, rows) if as_json else render.summary_text(shown, rows)
        return Outcome(stdout=text)
    rnd = pn.round_of(rows, artifact)
    if rnd is None:
        key = pn.key_of(artifact)
        return _refuse(
            f"no round is open on '{key}'. `kb panel --ledger` lists the rounds kept in {shown}."
        )
    text = render.ledger_json(rnd) if as_json else render.ledger_text(rnd)
    return Outcome(stdout=text, code=0 if rnd.closed else 1)
