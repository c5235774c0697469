"""`kb ingest <file> [path]... [--agent NAME] [--keep] [--dry-run] [--top N] [--all]`
(workflow-verbs.md §13): one document from anywhere becomes notes in the base that owns its
subject, through the same promotion run `kb promote` uses.

Order: check the file, open the memory, check the models, read the text (nothing moved
yet), choose the owner, stage (the reversible half), distil the one staged deposit, and
only then decide whether what was staged may be removed (kb.pure.roles.ingest.removal). Progress
goes to stderr when stderr is a terminal; stdout carries the account of what happened.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

from kb.io import clock
from kb.io.answering.memory import Memory, OpenError
from kb.io.notes.safe_read import Read, Refused, private_owner, read_named
from kb.io.promotion import deposits as disk
from kb.io.roles import extract as runner
from kb.io.roles.model import model_timeout
from kb.pure.notes.header import field_exact, front_matter
from kb.pure.notes.names import printable
from kb.pure.promotion import promoterun
from kb.pure.promotion.promotereport import ingest_lines
from kb.pure.promotion.rejections import ascii_lower
from kb.pure.roles import extract as ex
from kb.pure.roles import ingest as core
from kb.pure.sessions.handoff import cut_bytes
from kb.shell.answering.readverbs import open_warnings
from kb.shell.cli.inputs import IngestInput
from kb.shell.cli.outcome import Outcome
from kb.shell.promotion.promotion import FleetEffects, deposit, models, say, unreachable_of

# A document is read whole into memory once (its text goes to the model in parts); 64 MiB is
# far past any document worth distilling, and bounds what one `kb ingest` can be made to hold.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


def _fail(line: str, stdout: str = "", code: int = 1) -> Outcome:
    return Outcome(stdout=stdout, stderr=line + "\n", code=code)


def _text_of(file: Path, read: Read, ext: str, root: str, timeout: float) -> str | Outcome:
    """The document's text, or the Outcome that refuses it. A text or HTML document is the
    bytes `read` already holds (read from the descriptor whose privacy was judged); an
    extractor is handed the path and reads it itself."""
    script = ex.script_for(root, ext)
    pdftotext = runner.which(ex.PDFTOTEXT) if ext == "pdf" else None
    plan = ex.plan(ext, script, os.path.isfile(script), pdftotext)
    if isinstance(plan, ex.CannotRead):
        return _fail(plan.message)
    if isinstance(plan, ex.ReadText | ex.ReadHtml):
        data = read.data
        if isinstance(plan, ex.ReadHtml):
            try:
                html = data.decode("utf-8")
            except UnicodeDecodeError:
                html = data.decode("latin-1")  # an old page without a declared charset
            return ex.html_text(html)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return _fail(core.not_utf8(str(file)))
    if isinstance(plan, ex.UseScript):
        argv, shown = [plan.script, str(file)], plan.script
    else:
        argv, shown = ex.pdf_argv(plan.program, str(file)), plan.program
    ran = runner.run(argv, timeout)
    if isinstance(ran, runner.SpawnFailed):
        return _fail(core.could_not_run(shown, ran.reason))
    if isinstance(ran, runner.TimedOut):
        return _fail(core.timed_out(shown, ran.seconds))
    if ran.status != 0:
        status = f"exit status {ran.status}" if ran.status > 0 else f"signal {-ran.status}"
        return _fail(core.exited(shown, status, ran.stderr))
    return ran.stdout.decode("utf-8", "replace")


def ingest(inp: IngestInput, err: TextIO | None = None) -> Outcome:
    said: list[str] = []  # what every verb that opens the bases warns about
    out = _ingest(inp, err, said)
    return Outcome(stdout=out.stdout, stderr="".join(said) + out.stderr, code=out.code)


def _ingest(inp: IngestInput, err: TextIO | None, said: list[str]) -> Outcome:
    if inp.file is None or not inp.file.strip():
        return _fail(core.NO_FILE, code=2)
    file = Path(inp.file)
    if not file.is_file():
        return _fail(core.no_such_file(inp.file))
    paths = list(inp.paths) or ["."]
    root = paths[0]
    try:
        memory = Memory.open(paths, all=inp.all)
    except OpenError as e:
        return _fail(f"kb: {e}")
    said.append(open_warnings(memory))
    stream = err if err is not None else sys.stderr
    with memory:
        promoter, reviewer = models(root)
        if promoter is None or reviewer is None:
            return _fail(core.needs_models("promoter" if promoter is None else "reviewer"), code=2)
        # The document is opened once, and what that descriptor really is decides whether it
        # is private (a record, a link or hard link to one, one reached through a renamed
        # folder): a private document is never sent to a model without --all, and its
        # original is never moved or deleted (issue 24, F22).
        read = read_named(file, MAX_DOCUMENT_BYTES)
        if isinstance(read, Refused):
            return _fail(f"kb ingest: cannot read {printable(inp.file)}: {read.reason}")
        owner_of_private = private_owner(read, [b.snapshot for b in memory.bases])
        if owner_of_private is not None and not inp.all:
            return _fail(core.private_source(inp.file, owner_of_private))
        timeout = model_timeout()
        _, ext = core.split_name(file.name)
        text = _text_of(file, read, ext, root, timeout)
        if isinstance(text, Outcome):
            return text
        if not text.strip():
            return _fail(core.no_text(inp.file))
        out: list[str] = []
        owner = inp.agent
        if owner is None:
            chosen = memory.ask(cut_bytes(text, core.ROUTE_BYTES), inp.top).agent
            if chosen is None:
                return _fail(core.no_owner(inp.file))
            owner = chosen.agent
            out.append(core.routed(owner, chosen.score, chosen.margin, chosen.contenders))
        snap = next(
            (
                b.snapshot
                for b in memory.bases
                if b.snapshot.routable and ascii_lower(b.snapshot.agent_name) == ascii_lower(owner)
            ),
            None,
        )
        if snap is None:
            return _fail(core.unknown_agent(owner), stdout=_join(out))
        if inp.dry_run:
            return Outcome(stdout=_join([*out, core.dry_run(inp.file, snap.agent_name)]))
        keep_original = owner_of_private is not None
        try:
            staged = disk.stage(
                file,
                inp.file,
                snap.root,
                text,
                clock.today_utc(),
                os.getpid(),
                keep_original=keep_original,
            )
        except disk.StageError as e:
            return _fail(f"kb ingest: {e}", stdout=_join(out))
        out += [f"staged  {staged.deposit}", f"        original at {staged.raw}"]
        if keep_original:
            out.append(f"        {core.KEPT_PRIVATE}")
        agent, base = snap.agent_name, snap.given
    try:
        memory = Memory.open(paths, all=inp.all)
    except OpenError as e:
        return _fail(f"kb ingest: could not re-read the base after staging: {e}", _join(out))
    rel = staged.deposit.relative_to(Path(base)).as_posix()
    fx = FleetEffects(memory, root, promoter, reviewer, inp.top, timeout, "ingest", stream)
    if fx.tty:
        say(stream, f"kb ingest: distilling {staged.deposit}\n")
    try:
        target = deposit(agent, base, rel, memory)
        report = promoterun.run([target], fx, promoterun.Settings())
    finally:
        fx.close()
    unreachable = unreachable_of(report.unreachable, fx)
    report = promoterun.Report(report.entries, tuple(unreachable), report.stopped_at)
    out += ingest_lines(report)
    written = [d.written for d in report.decided if d.written is not None]
    decision = core.removal(
        inp.keep,
        report.stopped_at,
        report.unreachable,
        len(written),
        any(_names(path, target.source) for path in written),
        len(report.decided),
        sum(1 for d in report.decided if d.refused),
    )
    if isinstance(decision, core.Remove):
        # a private original is never removed: only the deposit this run wrote
        removed = disk.remove([staged.deposit] if keep_original else [staged.deposit, staged.raw])
        out += [f"removed {p}" for p in removed]
        out += ["", core.kept_private(len(written)) if keep_original else core.gone(len(written))]
        return Outcome(stdout=_join(out))
    out += [
        "",
        f"kept: {decision.reason}.",
        f"      the document is at {staged.raw}",
        f"      its text is at     {staged.deposit}",
    ]
    return Outcome(stdout=_join(out), code=0 if decision.by_request else 1)


def _names(note: str, source: str) -> bool:
    """The disk's own proof: the note exists and its front matter names the deposit."""
    got = read_named(Path(note))
    text = got.text() if isinstance(got, Read) else None
    return text is not None and field_exact(front_matter(text), "captured_from") == source


def _join(lines: list[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""
