"""`kb misroute`, `kb misroutes` and `kb abstentions` (workflow-verbs.md §17).

Typed input in, Outcome out. The formats, checks, folding and wording are kb.pure.logs.routelogs;
the locked rewrite of a log is kb.io.logs.routelogs. `kb misroute` writes its log at the fleet
root and nothing else: it names the fleet's agents from a walk of the bases (with the
private layer), never opening an index, so no base is touched. `kb misroutes` writes
nothing. `kb abstentions` asks each shown message again through the Memory contract.
"""

from __future__ import annotations

from returns.result import Failure

from kb.io import clock
from kb.io.answering.memory import DEFAULT_TOP, Memory, OpenError
from kb.io.logs import routelogs
from kb.io.notes.walk import WalkError, discover, expand_roots
from kb.pure.logs import routelogs as logs
from kb.shell.answering.readverbs import open_warnings
from kb.shell.cli.inputs import AbstentionsInput, MisrouteInput, MisroutesInput
from kb.shell.cli.outcome import Outcome


def _refuse(refusal: logs.Refusal) -> Outcome:
    return Outcome(stderr=f"kb: {refusal.message}\n", code=refusal.code)


def _roster(root: str) -> list[str]:
    """The routable agents' names, as the router knows them (raises WalkError)."""
    snapshots = (discover(given, include_private=True) for given in expand_roots([root]))
    return [s.agent_name for s in snapshots if s.routable]


def misroute(inp: MisrouteInput) -> Outcome:
    checked = logs.check_misroute_arguments(inp.message, inp.chose, inp.owner)
    if isinstance(checked, Failure):
        return _refuse(checked.failure())
    assert inp.message is not None and inp.chose is not None and inp.owner is not None
    try:
        roster = _roster(inp.path)
    except WalkError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    named = logs.check_misroute_names(inp.message, inp.chose, inp.owner, inp.why, roster)
    if isinstance(named, Failure):
        return _refuse(named.failure())
    filing = named.unwrap()
    path = routelogs.misroutes_path(inp.path)
    error = routelogs.record_misroute(path, filing, clock.today_utc())
    if error is not None:
        # The original ignored this and still said `recorded`; a false receipt is worse.
        return Outcome(stderr=f"kb: {error}; the misroute was not recorded\n", code=1)
    return Outcome(stdout=logs.recorded_text(filing, str(path)))


def misroutes(inp: MisroutesInput) -> Outcome:
    path = routelogs.misroutes_path(inp.path)
    try:
        rows = routelogs.load_misroutes(path)
    except OSError as e:
        # Exit 0 all the same: the spec's table says `kb misroutes` always succeeds.
        return Outcome(
            stdout=f"log:      {path}\n", stderr=f"kb: could not read {path}: {e.strerror or e}\n"
        )
    return Outcome(stdout=logs.misroutes_report(str(path), rows, inp.top))


def abstentions(inp: AbstentionsInput) -> Outcome:
    path = routelogs.abstentions_path(inp.path)
    try:
        rows = routelogs.load_abstentions(path)
    except OSError as e:
        return Outcome(
            stdout=f"log:      {path}\n", stderr=f"kb: could not read {path}: {e.strerror or e}\n"
        )
    if not rows:
        return Outcome(stdout=logs.abstentions_report(str(path), rows, (), ()))
    try:
        memory = Memory.open([inp.path], all=inp.all)
    except OpenError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    shown = rows[: logs.shown_count(inp.top)]
    with memory:
        warning = open_warnings(memory)
        # Asked with boot's own default window, so `scored now` is measured as `scored then`
        # was; --top bounds the rows printed, not the question.
        now = []
        for row in shown:
            agent = memory.ask(row.message, DEFAULT_TOP).agent
            now.append(logs.contenders_text(agent.totals) if agent else "")
    return Outcome(stdout=logs.abstentions_report(str(path), rows, shown, now), stderr=warning)
