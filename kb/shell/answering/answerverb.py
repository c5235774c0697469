"""`kb answer`: retrieval's findings written up by the fleet's `answerer` model.

Three refusals wrapped around the model call, in this order: a `nothing` verdict never
reaches the model (the refusal and the miss are recorded), no `answerer =` line means the
reading list, and an answerer that does not answer (non-zero exit, timeout, empty reply)
means the reading list on stderr with exit 1. Every decision is kb.pure.roles.answer's; this
module opens the memory, reads files, runs the model command (kb.io.roles.model) and collects
text.

`--complete` is the one slow path, so it speaks while it works: its estimate of calls goes
to stderr before the first call, a map batch that got no reply is reported when it fails,
and per-batch progress is shown only when stderr is a terminal (a log file or a pipe gets
no counters). stdout only ever carries the answer.
"""

from __future__ import annotations

import sys
import time
from functools import partial
from pathlib import Path
from typing import TextIO

from attrs import frozen

from kb.io.answering.memory import Answer, Memory, OpenError
from kb.io.notes.safe_read import note_text
from kb.io.notes.walk import fleet_manifest
from kb.io.roles.model import MAX_REPLY_BYTES, model_timeout, run_model
from kb.pure.notes.header import field_exact
from kb.pure.notes.paths import layer_of
from kb.pure.render.jsonout import dumps
from kb.pure.roles import answer as core
from kb.pure.sessions.blocks import strip_keyword_lines
from kb.shell.answering.readverbs import open_warnings
from kb.shell.cli.inputs import AnswerInput
from kb.shell.cli.outcome import NOTHING_EXIT, Outcome

NEEDS_QUESTION = "kb: answer needs a question\n\n"


def answer(inp: AnswerInput, err: TextIO | None = None) -> Outcome:
    if not inp.question.strip():
        from kb.shell.cli.table import usage_of

        return Outcome(stdout=usage_of("answer"), stderr=NEEDS_QUESTION, code=2)
    paths = list(inp.paths) or ["."]
    root = Path(paths[0])
    try:
        memory = Memory.open(paths, all=inp.all)
    except OpenError as e:
        out = dumps({"error": str(e), "question": inp.question}) + "\n" if inp.json else ""
        return Outcome(stdout=out, stderr=f"kb: {e}\n", code=1)
    timeout = inp.model_timeout if inp.model_timeout is not None else model_timeout()
    # `answerer =` with nothing after it configures nothing, like an absent line.
    command = (fleet_manifest(paths[0]).first("answerer") or "").strip() or None
    with memory:
        warnings = open_warnings(memory)
        mode = core.mode_of(inp.expanded, inp.complete)
        if mode is core.COMPLETE:
            done = _complete(memory, inp.question, command, root, timeout, err or sys.stderr)
        else:
            done = _fast(memory, inp, mode, command, root, timeout)
    stdout = dumps(done.payload) + "\n" if inp.json and done.payload is not None else done.stdout
    holds_nothing = done.payload is not None and done.payload["outcome"] in core.HOLDS_NOTHING
    # `--exit-code`: an answer that the library holds nothing gets its own status
    code = NOTHING_EXIT if done.code == 0 and inp.exit_code and holds_nothing else done.code
    return Outcome(stdout, warnings + done.stderr, code)


@frozen
class Done:
    """A mode's result: the text it prints, and the same result as `--json` prints it
    (None for a usage error, which prints nothing on stdout either way)."""

    stdout: str
    stderr: str
    code: int
    payload: dict[str, object] | None


def _origins(memory: Memory, a: Answer) -> dict[tuple[str, str], str | None]:
    """The `captured_from` of each served file, from the header cache (what is on disk)."""
    wanted = {(f.base, f.path) for f in a.found}
    out: dict[tuple[str, str], str | None] = {}
    for b in memory.bases:
        for h in b.headers:
            key = (b.snapshot.name, h.rel)
            if key in wanted and key not in out:
                out[key] = field_exact(h.front, "captured_from") or None
    return out


def _fast(
    memory: Memory,
    inp: AnswerInput,
    mode: core.Mode,
    command: str | None,
    root: Path,
    timeout: float,
) -> Done:
    a = memory.ask(inp.question, max(inp.top, mode.files))
    loss = memory.recall_loss(inp.question, a.confidence)
    stderr = f"kb: {loss.error}\n" if loss is not None and loss.error else ""
    said = partial(core.answer_json, inp.question, mode, confidence=a.confidence)
    if not core.worth_asking(a.confidence, a.found):
        shortfall = memory.shortfall(a.confidence, inp.question)
        looked_like = loss.looked_like if loss else ()
        empty = memory.is_empty()
        text = core.refusal_text(
            empty, len(memory.unreachable), shortfall, looked_like, bool(a.terms)
        )
        outcome: core.AnswerOutcome = "empty" if empty else "refused"
        payload = said(outcome, shortfall=shortfall, suggestions=looked_like)
        return Done(text, stderr, 0, payload)
    if command is None:
        payload = said("reading_list", reading=a.found)
        return Done(core.no_answerer_text(a.found), stderr, 0, payload)
    served = core.served_files(a.found, _origins(memory, a), mode)
    stale = [f for f in a.found[: mode.files] if (f.base, f.path) in a.changed]
    if stale:
        names = ", ".join(f"{f.base}/{f.path}" for f in stale)
        stderr += (
            f"kb answer: changed since kb index, so their passages may be stale: {names}. "
            "Run `kb index`.\n"
        )
    prompt = core.answer_prompt(inp.question, a.confidence, served)
    reply = run_model(command, prompt, root, timeout)
    if reply.text is None:
        payload = said("silent", reading=a.found, reason=reply.reason)
        return Done("", stderr + core.silent_text(a.found, reply.reason), 1, payload)
    if reply.cut:
        stderr += f"kb answer: the answerer's reply passed {MAX_REPLY_BYTES} bytes; cut there\n"
    unserved = core.unserved_citations(reply.text, [f.id for f in served])
    for path in unserved:
        stderr += core.unserved_warning(path)
    text = core.answered_text(reply.text, a.found, mode, a.confidence)
    payload = said("answered", reply=reply.text, served=a.found[: mode.files], unserved=unserved)
    return Done(text, stderr, 0, payload)


def _plan(memory: Memory) -> list[core.PlanFile]:
    """Every keyed file the open memory holds in scope, base by base, path order.

    The memory was opened with or without --all, and without it the private layer was never
    walked; the `private` test below is the same rule said twice, on purpose.
    """
    files: list[core.PlanFile] = []
    for b in memory.bases:
        snap = b.snapshot
        for h in b.headers:
            if h.bucket != "entry" or (h.private and not memory.include_private):
                continue
            text = note_text(snap, h.rel) or ""
            files.append(
                core.PlanFile(f"{snap.name}/{h.rel}", strip_keyword_lines(text), _short(h.rel))
            )
    return files


def _short(rel: str) -> bool:
    return layer_of(rel) == "short"


def _say(err: TextIO, text: str) -> None:
    from kb.pure.notes.names import printable

    try:
        err.write(printable(text, lines=True))  # a model's reason may carry escapes
        err.flush()
    except (OSError, ValueError):
        pass  # a closed stderr must not sink the answer


def _complete(
    memory: Memory, question: str, command: str | None, root: Path, timeout: float, err: TextIO
) -> Done:
    if command is None:
        return Done("", core.NO_ANSWERER_COMPLETE, 2, None)
    said = partial(core.answer_json, question, core.COMPLETE)
    files = _plan(memory)
    if not files:
        return Done(core.NOTHING_TO_READ, "", 0, said("nothing_to_read", files_read=0, calls=0))
    try:
        tty = err.isatty()
    except (OSError, ValueError):
        tty = False
    started = time.monotonic()
    # Said before the first call, not with the answer: the calls can take minutes.
    _say(err, core.estimate_text(len(files)))
    groups = core.batches(files)
    facts: list[str] = []
    calls = 0
    for k, group in enumerate(groups, 1):
        reply = run_model(command, core.map_prompt(question, group), root, timeout)
        calls += 1
        if reply.text is None:
            _say(err, core.map_failed_text(k, len(groups), reply.reason))
        else:
            facts.extend(core.fact_lines(reply.text))
        if tty:
            line = (
                core.first_batch_line(len(groups), reply.elapsed_s)
                if k == 1
                else core.batch_done_line(k, len(groups))
            )
            _say(err, line)
    read = partial(said, files_read=len(files), calls=calls)
    if not facts:
        return Done(core.NOTHING_FOUND, "", 0, read("nothing_found"))
    reply = run_model(command, core.reduce_prompt(question, facts), root, timeout)
    calls += 1
    read = partial(said, files_read=len(files), calls=calls, facts=facts)
    if reply.text is None:
        failed = core.reduce_failed_text(reply.reason, facts)
        return Done("", failed, 1, read("reduce_failed", reason=reply.reason))
    elapsed = time.monotonic() - started
    cut = f"kb answer: the reply passed {MAX_REPLY_BYTES} bytes; cut there\n" if reply.cut else ""
    text = core.complete_text(reply.text, len(files), calls, elapsed)
    return Done(text, cut, 0, read("answered", reply=reply.text))
