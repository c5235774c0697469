"""`kb check`: each base walked, read and judged once (kb.io.writing.checker), then
rendered (kb.pure.writing.checks), each file judged as it is read.

It fixes nothing and writes nothing: not a note, not the index, not a log. Each base is
walked, read and judged in one job (several processes for a large fleet: kb.io.notes.perbase),
each file judged as it is read, so only one note's text is in memory at once in each. At
100,000 notes, holding the whole fleet's text made `kb check` peak at about 440 MB, and
holding one base's (13,000 notes) still added 77 MB. The cross-base hint (a broken link
that names a note of another base) needs every base's file names: each job returns its
base's as one string, and the hints are added here once every base is judged.
"""

from __future__ import annotations

import functools

from kb.io.notes.perbase import each_base, rough_size
from kb.io.notes.walk import expand_roots
from kb.io.writing.checker import CheckedBase, FoldedStems, walk_and_check
from kb.pure.writing.checks import fleet_check, judge_base, judge_found
from kb.shell.cli.inputs import CheckInput
from kb.shell.cli.outcome import Outcome


def check(inp: CheckInput) -> Outcome:
    roots = expand_roots(list(inp.paths) or ["."])
    sizes = [rough_size(root) for root in roots]
    done = each_base(functools.partial(walk_and_check, inp.all), roots, sizes)
    stems = [(d.facts.label, FoldedStems(d.stems)) for d in done if isinstance(d, CheckedBase)]
    result = fleet_check(
        judge_found(d.facts_with_names(), d.findings, stems)
        if isinstance(d, CheckedBase)
        else judge_base(d, stems)
        for d in done
    )
    stdout = result.stdout
    if inp.json:
        from kb.pure.render.jsonout import dumps

        payload = {"bases": list(result.bases), "errors": result.errors}
        stdout = dumps({**payload, "warnings": result.warnings}) + "\n"
    return Outcome(stdout=stdout, stderr=result.stderr, code=result.exit_code(inp.strict))
