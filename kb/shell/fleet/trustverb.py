"""`kb trust`: approve the model commands fleet.txt names, on this machine (kb.pure.fleet.trust).

Typed input in, Outcome out; the rules are kb.pure.fleet.trust's, the facts and the approvals
file kb.io.fleet.trust's.
"""

from __future__ import annotations

from kb.pure.notes.names import printable
from kb.shell.cli.inputs import TrustInput
from kb.shell.cli.outcome import Outcome


def trust(inp: TrustInput) -> Outcome:
    from pathlib import Path

    from kb.io.fleet.trust import approve_all, examine
    from kb.pure.fleet import trust as rules

    root = Path(inp.path)
    if not root.is_dir():
        return Outcome(stderr=f"kb: trust: {printable(inp.path)} is not a folder\n", code=1)
    fleet = examine(root, record=False)
    approvals = str(fleet.approvals) if fleet.approvals is not None else None
    if inp.dry_run:
        rows = [(rules.state_of(j.verdict), j.command) for j in fleet.judged]
    else:
        was = {j.digest for j in fleet.judged if j.verdict.why == "approved"}
        try:
            approve_all(fleet)
        except OSError as e:
            return Outcome(stderr=f"kb: trust: {printable(str(e))}; nothing was approved\n", code=1)
        rows = [
            (rules.APPROVED if j.digest in was else rules.APPROVED_NOW, j.command)
            for j in fleet.judged
        ]
    return Outcome(stdout=rules.trust_text(str(fleet.root), approvals, rows, inp.dry_run))
