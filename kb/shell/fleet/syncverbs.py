"""`kb sync` and `kb merge-driver`: one fleet across machines, through git.

Typed input in, Outcome out. The merges are kb.pure.fleet.merge, what is kb's own and what is
reported kb.pure.fleet.syncplan; the file and git work is kb.io.fleet.mergedriver and
kb.io.fleet.sync.
"""

from __future__ import annotations

import sys

from kb.pure.fleet.merge import KINDS
from kb.pure.fleet.syncplan import report_text
from kb.pure.notes.names import printable
from kb.shell.cli.inputs import MergeDriverInput, SyncInput
from kb.shell.cli.outcome import Outcome


def merge_driver(inp: MergeDriverInput) -> Outcome:
    """Exit 0 when the merge is clean, 1 when it conflicted (git's contract), 2 for a kind
    that does not exist."""
    from kb.io.fleet.mergedriver import DriverError, merge_files

    if inp.kind not in KINDS:
        return Outcome(
            stderr=f"kb: merge-driver kind is one of {', '.join(KINDS)}, not "
            f"'{printable(inp.kind)}'\n",
            code=2,
        )
    shown = printable(inp.path or inp.ours)
    try:
        merged = merge_files(inp.kind, inp.base, inp.ours, inp.theirs, inp.path)
    except DriverError as e:
        return Outcome(stderr=f"kb: merge-driver: {printable(str(e))}\n", code=1)
    if merged is None:
        return Outcome(
            stderr=f"kb: merge-driver: {shown} is not a {inp.kind} file of kb's, so kb does "
            "not merge it (a .gitattributes line kb did not write sent it here); left for you\n",
            code=1,
        )
    if merged.problem:
        return Outcome(
            stderr=f"kb: merge-driver: {printable(merged.problem)}; left for you\n", code=1
        )
    if merged.conflicted:
        return Outcome(
            stderr=f"kb: merge-driver: {shown} was changed on both sides in the same place; "
            "both versions are between conflict markers\n",
            code=1,
        )
    return Outcome()


def sync(inp: SyncInput) -> Outcome:
    from kb.io.fleet.sync import SyncFailure
    from kb.io.fleet.sync import sync as run_sync

    try:
        done = run_sync(inp.fleet, inp.remote, inp.all, sys.executable)
    except SyncFailure as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    text = report_text(done.report)
    if done.index_error is not None:
        return Outcome(stdout=text, stderr=f"kb: {done.index_error}\n", code=1)
    code = 1 if done.report.stash_kept else 0
    return Outcome(stdout=text, code=code)
