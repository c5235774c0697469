"""Verbs over the memory contract beyond routing: remember (and later misses, eval)."""

from __future__ import annotations

from kb.io.answering.memory import Memory, OpenError
from kb.pure.render.jsonout import dumps
from kb.pure.roles.remember import render_terminal, to_json
from kb.shell.answering.readverbs import open_warnings
from kb.shell.cli.inputs import RememberInput
from kb.shell.cli.outcome import Outcome


def remember(inp: RememberInput) -> Outcome:
    try:
        memory = Memory.open(list(inp.paths) or ["."], all=inp.all)
    except OpenError as e:
        out = dumps({"claim": inp.claim, "error": str(e)}) + "\n" if inp.json else ""
        return Outcome(stdout=out, stderr=f"kb: {e}\n", code=1)
    with memory:
        result = memory.remember(inp.claim)
        warning = open_warnings(memory)
    if inp.json:
        return Outcome(stdout=dumps(to_json(result)) + "\n", stderr=warning)
    return Outcome(stdout=render_terminal(result), stderr=warning)
