"""`kb check`: read each base once (kb.io.writing.checker), judge and render it
(kb.pure.writing.checks), each file judged as it is read.

It fixes nothing and writes nothing: not a note, not the index, not a log. Bases are walked
first (stat only: the cross-base hint needs every base's file names), then read and judged
one at a time in each process (several processes for a large fleet: kb.io.notes.perbase),
each file judged as it is read, so only one note's text is in memory at once in each. At
100,000 notes, holding the whole fleet's text made `kb check` peak at about 440 MB, and
holding one base's (13,000 notes) still added 77 MB.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from kb.io.notes.perbase import each_base
from kb.io.notes.walk import BaseSnapshot
from kb.io.writing.checker import check_read, discover_fleet
from kb.pure.writing.checks import (
    BaseCheck,
    Unreadable,
    fleet_check,
    fleet_stems,
    judge_base,
    judge_found,
)
from kb.shell.cli.inputs import CheckInput
from kb.shell.cli.outcome import Outcome


def _judged(
    include_private: bool,
    stems: Sequence[tuple[str, frozenset[str]]],
    base: BaseSnapshot | Unreadable,
) -> BaseCheck:
    """One base read and judged: here, or in a worker process (kb.io.notes.perbase)."""
    if isinstance(base, Unreadable):
        return judge_base(base, stems)
    return judge_found(*check_read(base, include_private), stems)


def check(inp: CheckInput) -> Outcome:
    snaps = discover_fleet(list(inp.paths) or ["."], inp.all)
    stems = fleet_stems(
        (s.name, [f.rel for f in s.files]) for s in snaps if isinstance(s, BaseSnapshot)
    )
    sizes = [len(s.files) if isinstance(s, BaseSnapshot) else 0 for s in snaps]
    result = fleet_check(each_base(functools.partial(_judged, inp.all, stems), snaps, sizes))
    stdout = result.stdout
    if inp.json:
        from kb.pure.render.jsonout import dumps

        payload = {"bases": list(result.bases), "errors": result.errors}
        stdout = dumps({**payload, "warnings": result.warnings}) + "\n"
    return Outcome(stdout=stdout, stderr=result.stderr, code=result.exit_code(inp.strict))
