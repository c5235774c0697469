"""Hammer one shared file from one process: N calls in a tight loop of the same kb function
a verb runs, with no interpreter start between them.

A `kb` subprocess spends ~0.2 s starting and a few milliseconds in a critical section (read
the map or the log, fold, rename), so a storm of CLI calls (test_concurrency.py) overlaps two
writers' critical sections only now and then. Several of these processes released at one
moment overlap them hundreds of times a second, which is what finds a lost update.

Run as `python -m tests.stress.hammer KIND WORKER N START_AT ROOT OUT` from the repository
root; writes {"errors": [...]} to OUT. `ops()` names what each call writes, so the test
knows what every log and map must hold afterwards.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

KINDS = ("map", "misses", "misroutes", "abstentions", "rejections")
WAIT_S = 60.0  # mutual exclusion is under test here, not how long a verb waits for a lock


def question(worker: int, i: int) -> str:
    # every third call repeats a question, so counting is exercised as well as appending
    return f"shared question {i % 5}" if i % 3 == 0 else f"question {worker} {i}"


def run(kind: str, worker: int, n: int, root: Path) -> list[str]:
    from kb.io.logs import misslog, routelogs
    from kb.io.promotion import rejectlog
    from kb.io.writing import notewrite
    from kb.pure.logs.routelogs import Filing

    errors: list[str] = []
    # Set the wait budgets of every writer under test: with six processes in a tight loop a
    # 0.5 s budget can starve one of them, which is the budget working, not a lost update.
    misslog.LOCK_WAIT_S = routelogs.MISROUTE_LOCK_WAIT_S = WAIT_S
    routelogs.ABSTENTION_LOCK_WAIT_S = rejectlog.LOCK_WAIT_S = WAIT_S
    notewrite.MAP_LOCK_WAIT_S = WAIT_S
    for i in range(n):
        err: str | None
        if kind == "map":
            from kb.shell.cli.inputs import WriteInput
            from kb.shell.writing.initwrite import write_note

            out = write_note(
                WriteInput(
                    agent="ada",
                    slug=f"h{worker}-n{i}",
                    paths=(str(root),),
                    keys=f"hq{worker}n{i}",
                    summary=f"Hammer {worker} {i}",
                    folder=("knowledge", "decisions", "templates")[i % 3],
                ),
                f"Body {worker} {i}.\n",
            )
            err = out.stderr or None
        elif kind == "misses":
            err = misslog.record(root / "kb-misses.txt", question(worker, i), (), "2026-01-02")
        elif kind == "misroutes":
            filing = Filing(question(worker, i), "ada", "bruno", f"why {worker}")
            err = routelogs.record_misroute(root / "kb-misroutes.txt", filing, "2026-01-02")
        elif kind == "abstentions":
            subject = f"subject {i % 4}"
            log = root / "kb-abstentions.txt"
            message = f"m {worker} {i}"
            err = routelogs.record_abstention(
                log, "uncovered", None, subject, message, "", (), "2026-01-02"
            )
        elif kind == "rejections":
            slug = f"slug-{i % 4}" if i % 2 else f"slug-{worker}-{i}"
            err = rejectlog.record(
                root / "kb-rejections.txt", "ada", slug, "scope", f"r {worker}", "2026-01-02"
            )
        else:
            raise ValueError(kind)
        if err:
            errors.append(f"{kind} {worker}#{i}: {err}")
    return errors


def main(argv: list[str]) -> None:
    kind, worker, n, start_at, root, out = argv
    time.sleep(max(0.0, float(start_at) - time.time()))  # every process starts together
    errors = run(kind, int(worker), int(n), Path(root))
    Path(out).write_text(json.dumps({"errors": errors, "pid": os.getpid()}), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
