"""`kb check`: read each base once (kb.io.checker), judge and render it (kb.pure.checks).

It fixes nothing and writes nothing: not a note, not the index, not a log.
"""

from __future__ import annotations

from kb.io.checker import read_fleet
from kb.pure.checks import check_fleet
from kb.shell.inputs import CheckInput
from kb.shell.outcome import Outcome


def check(inp: CheckInput) -> Outcome:
    result = check_fleet(read_fleet(list(inp.paths) or ["."], inp.all))
    return Outcome(stdout=result.stdout, stderr=result.stderr, code=result.exit_code(inp.strict))
