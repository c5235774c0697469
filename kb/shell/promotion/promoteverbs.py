"""`kb promote` and `kb rejections` (workflow-verbs.md §10).

Typed input in, Outcome out. The run's order and every decision are kb.pure.promotion.promoterun and
kb.pure.promotion.promote; the words are kb.pure.promotion.promotereport and
kb.pure.promotion.rejections; the effects (deposits, model commands, evidence, the writer, the log)
are kb.shell.promotion.promotion; the lock is kb.io.promotion.promotelock. Nothing is printed here,
except progress on a terminal's stderr.
"""

from __future__ import annotations

import os
from typing import TextIO

from kb.io.answering.memory import Memory, OpenError
from kb.io.promotion import promotelock, rejectlog
from kb.io.roles.model import model_timeout
from kb.pure.promotion import promoterun, rejections
from kb.pure.promotion.promotereport import promote_stdout, unreachable_stderr
from kb.shell.answering.readverbs import open_warnings
from kb.shell.cli.inputs import PromoteInput, RejectionsInput
from kb.shell.cli.outcome import Outcome
from kb.shell.promotion.promotion import (
    FleetEffects,
    deposits_of,
    models,
    no_promoter,
    no_reviewer,
    unreachable_of,
)


def promote(inp: PromoteInput, err: TextIO | None = None) -> Outcome:
    paths = list(inp.paths) or ["."]
    root = paths[0]
    try:
        memory = Memory.open(paths, all=inp.all)
    except OpenError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    warnings = open_warnings(memory)
    promoter, reviewer = models(root)
    if promoter is None or reviewer is None:
        memory.close()
        return Outcome(
            stderr=no_promoter("promote") if promoter is None else no_reviewer("promote"), code=2
        )
    lock: promotelock.Held | None = None
    notice = ""
    if inp.lock:
        taken = promotelock.take(root, os.getpid())
        if isinstance(taken, promotelock.Declined):
            memory.close()
            return Outcome(stdout=taken.line + "\n")
        lock = taken
        notice = f"{taken.took_over}\n" if taken.took_over else ""
    fx = FleetEffects(
        memory, root, promoter, reviewer, inp.top, model_timeout(), "promote", err, lock
    )
    try:
        deposits = deposits_of(memory, inp.all)
        report = promoterun.run(deposits, fx, promoterun.Settings(inp.dry_run, inp.max))
    finally:
        fx.close()
        if lock is not None:
            promotelock.release(lock)
    unreachable = unreachable_of(report.unreachable, fx)
    return Outcome(
        stdout=promote_stdout(report, inp.dry_run),
        stderr=warnings + notice + unreachable_stderr("promote", unreachable),
        code=1 if unreachable else 0,
    )


def rejections_verb(inp: RejectionsInput) -> Outcome:
    root = inp.paths[0] if inp.paths else "."
    path = rejectlog.log_path(root)
    try:
        rows = rejectlog.load(path)
    except OSError as e:
        # Exit 0 all the same: `kb rejections` always succeeds (§19); the line says why.
        return Outcome(
            stdout=rejections.report(str(path), (), inp.top) if not inp.json else "[]\n",
            stderr=f"kb: could not read {path}: {e.strerror or e}\n",
        )
    shown = rejections.select(rows, inp.agent, inp.lens)
    if inp.json:
        return Outcome(stdout=rejections.as_json(shown))
    return Outcome(stdout=rejections.report(str(path), shown, inp.top))
