"""`kb check`: read each base once (kb.io.writing.checker), judge and render it
(kb.pure.writing.checks).

It fixes nothing and writes nothing: not a note, not the index, not a log. Bases are walked
first (stat only: the cross-base hint needs every base's file names), then read and judged
one at a time, so only one base's text is in memory at once: at 100,000 notes, holding the
whole fleet's text made `kb check` peak at about 440 MB.
"""

from __future__ import annotations

from kb.io.notes.walk import BaseSnapshot
from kb.io.writing.checker import discover_fleet, read_base
from kb.pure.writing.checks import Unreadable, fleet_check, fleet_stems, judge_base
from kb.shell.cli.inputs import CheckInput
from kb.shell.cli.outcome import Outcome


def check(inp: CheckInput) -> Outcome:
    snaps = discover_fleet(list(inp.paths) or ["."], inp.all)
    stems = fleet_stems(
        (s.name, [f.rel for f in s.files]) for s in snaps if isinstance(s, BaseSnapshot)
    )
    judged = (
        judge_base(s if isinstance(s, Unreadable) else read_base(s, inp.all), stems) for s in snaps
    )
    result = fleet_check(judged)
    stdout = result.stdout
    if inp.json:
        from kb.pure.render.jsonout import dumps

        payload = {"bases": list(result.bases), "errors": result.errors}
        stdout = dumps({**payload, "warnings": result.warnings}) + "\n"
    return Outcome(stdout=stdout, stderr=result.stderr, code=result.exit_code(inp.strict))
