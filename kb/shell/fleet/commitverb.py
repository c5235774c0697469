"""`kb commit`: the verb's run function over kb.io.fleet.git."""

from __future__ import annotations

from kb.io.fleet.git import CommitError
from kb.io.fleet.git import commit as git_commit
from kb.shell.cli.inputs import CommitInput
from kb.shell.cli.outcome import Outcome


def commit(inp: CommitInput) -> Outcome:
    try:
        return Outcome(stdout=git_commit(list(inp.paths), inp.message))
    except CommitError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
