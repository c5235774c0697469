"""`kb doctor`: check what a setup needs (the fleet, its indexes, its model commands, the
extras, the hooks and the MCP config) and print one line per check; see kb.pure.fleet.doctor."""

from __future__ import annotations

import os

from attrs import evolve

from kb.io.fleet.doctor import gather
from kb.pure.fleet.doctor import checks, exit_code, render
from kb.shell.cli.inputs import DoctorInput
from kb.shell.cli.outcome import Outcome


def doctor(inp: DoctorInput) -> Outcome:
    if inp.settings is not None and not os.path.isfile(inp.settings):
        return Outcome(
            stderr=f"kb doctor: --settings names no file at {inp.settings}; give the path "
            "of a Claude Code settings file (.claude/settings.json)\n",
            code=2,
        )
    facts = gather(inp.path, inp.settings, inp.all)
    if not facts.fleet.problem:
        from kb.shell.daemon import daemon_facts

        facts = evolve(facts, daemon=daemon_facts(inp.path))
    found = checks(facts)
    return Outcome(stdout=render(found), code=exit_code(found))
