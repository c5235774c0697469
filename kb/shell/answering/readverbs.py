"""The read-path verbs: route, index, list, fleet. Each takes its typed input and returns
an Outcome; all the answering is done by the Memory contract and kb.pure renderers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

from kb.io.answering.memory import Answer, Memory, OpenError, RecallLoss

if TYPE_CHECKING:  # annotations only: importing every verb's inputs costs ~35 ms
    from kb.pure.fleet.listing import Row
    from kb.shell.cli.hotinputs import RouteInput
    from kb.shell.cli.inputs import IndexInput
    from kb.shell.cli.listinputs import FleetInput, ListInput
# The JSON writer (with `decimal`), the route view and the listing's classes are imported by
# the functions that use them: each verb of this module builds only the classes it shows.
from kb.pure.notes.plural import counted
from kb.shell.cli.outcome import NOTHING_EXIT, Outcome

REBUILT_WARNING = (
    "kb: an index predated the private column (ADR-0034) and was emptied. Run `kb index`.\n"
)


def _paths(paths: tuple[str, ...]) -> list[str]:
    return list(paths) or ["."]


def open_warnings(memory: Memory) -> str:
    """What every verb that opens bases prints on stderr before its answer."""
    out = REBUILT_WARNING if memory.index_was_rebuilt else ""
    return out + "".join(f"kb: {w}\n" for w in memory.warnings())


def route(inp: RouteInput) -> Outcome:
    from kb.pure.render.terminal import RouteView, route_text

    if not inp.context and (inp.context_chars is not None or inp.context_total is not None):
        flag = "--context-chars" if inp.context_chars is not None else "--context-total"
        return Outcome(
            stderr=f"kb route: {flag} is a budget for --context; add --context or drop it\n",
            code=2,
        )
    try:
        memory = Memory.open(_paths(inp.paths), all=inp.all)
    except OpenError as e:
        from kb.pure.render.jsonout import dumps

        out = dumps({"error": str(e), "question": inp.question}) + "\n" if inp.json else ""
        return Outcome(stdout=out, stderr=f"kb: {e}\n", code=1)
    with memory:
        answer = memory.ask(inp.question, inp.top)
        loss = memory.recall_loss(inp.question, answer.confidence)
        stderr = open_warnings(memory)
        if loss is not None and loss.error:
            stderr += f"kb: {loss.error}\n"
        # `--exit-code`: a refusal gets its own status; without it every answer exits 0
        code = NOTHING_EXIT if inp.exit_code and answer.confidence.verdict == "nothing" else 0
        if inp.context:
            done = _route_context(memory, inp, answer, stderr)
            return Outcome(stdout=done.stdout, stderr=done.stderr, code=code)
        if inp.json:
            return Outcome(stdout=_route_json(memory, answer, loss), stderr=stderr, code=code)
        # One list on every surface (decision 0029): the fused list `--json` gives, in its
        # order; `--hybrid` is accepted and changes nothing.
        view = RouteView(
            question=inp.question,
            entries=memory.entry_count(),
            agents=memory.agent_count(),
            aliases=memory.alias_count(),
            unreachable=len(memory.unreachable),
            found=answer.found,
            shortfall=tuple(memory.shortfall(answer.confidence, inp.question)),
            suggestions=loss.looked_like if loss else (),
            changed=answer.changed,
            verdict=answer.confidence.verdict,
            coverage=answer.confidence.coverage,
            searchable=bool(answer.terms),
        )
        return Outcome(stdout=route_text(view), stderr=stderr, code=code)


def _route_context(memory: Memory, inp: RouteInput, answer: Answer, stderr: str) -> Outcome:
    """`--context`: the served files as budgeted excerpts, for a prompt (docs/context.md)."""
    from kb.io.answering.served import served
    from kb.pure.answering.context import (
        DEFAULT_PER_FILE,
        DEFAULT_TOTAL,
        Budget,
        assemble,
        render_json,
        render_text,
    )

    budget = Budget(
        DEFAULT_PER_FILE if inp.context_chars is None else inp.context_chars,
        DEFAULT_TOTAL if inp.context_total is None else inp.context_total,
    )
    # A refusal serves nothing: text the scorers merely ranked is not an answer to inject.
    refused = answer.confidence.verdict == "nothing"
    excerpts = [] if refused else assemble(served(memory, answer.found), answer.terms, budget)
    if refused:
        stderr += "kb: nothing here answers this question (verdict: nothing); no context given\n"
    if inp.json:
        from kb.pure.render.jsonout import dumps

        return Outcome(stdout=dumps(render_json(excerpts)) + "\n", stderr=stderr)
    return Outcome(stdout=render_text(excerpts), stderr=stderr)


def _route_json(memory: Memory, answer: Answer, loss: RecallLoss | None) -> str:
    from kb.pure.render.jsonout import dumps

    return dumps(route_value(memory, answer, loss)) + "\n"


def route_value(memory: Memory, answer: Answer, loss: RecallLoss | None) -> Any:
    """The `kb route --json` payload as plain data (the MCP tools serve it too)."""
    # cattrs is only worth importing when JSON is asked for: it is off the terminal path.
    from kb.pure.render.wire import WireMiss, route_payload, unstructure

    miss = (
        WireMiss(
            loss.date, loss.error, loss.log, list(loss.looked_like), loss.question, loss.recorded
        )
        if loss
        else None
    )
    payload = route_payload(
        question=answer.question,
        confidence=answer.confidence,
        found=answer.found,
        agent=answer.agent,
        keyword_top=answer.keyword_top,
        entries=memory.entry_count(),
        agents=memory.agent_count(),
        aliases=memory.alias_count(),
        unreachable=memory.unreachable,
        unindexed=memory.unindexed,
        index_was_rebuilt=memory.index_was_rebuilt,
        miss=miss,
        changed=answer.changed,
    )
    return unstructure(payload)


def index(inp: IndexInput) -> Outcome:
    from kb.io.notes.indexer import (
        IndexFailure,
        index_bases,
        index_entries_json,
        index_summary_json,
    )

    paths = _paths(inp.paths)
    try:
        if inp.entries:  # reads the notes, writes no index: the original's `--json`
            return Outcome(stdout=index_entries_json(paths, inp.all))
        warnings: list[str] = []
        if inp.json:
            text = index_summary_json(paths, inp.all, warnings)
        else:
            from kb.io.notes.progress import Progress

            text = index_bases(paths, inp.all, warnings, Progress.on_terminal())
        return Outcome(stdout=text, stderr="".join(f"kb: {w}\n" for w in warnings))
    except IndexFailure as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)


def list_files(inp: ListInput) -> Outcome:
    from returns.result import Failure

    from kb.pure.fleet.listing import Facets, checked, row_json, row_line
    from kb.pure.fleet.where import conditions, sort_field
    from kb.pure.render.jsonout import dumps

    facets = checked(Facets(inp.base, inp.folder, inp.kind, inp.stage, inp.provenance))
    where = conditions(inp.where)
    sort = sort_field(inp.sort)
    for refused in (facets, where, sort):
        if isinstance(refused, Failure):
            return Outcome(stderr=f"kb: {refused.failure()}\n", code=2)
    try:
        memory = Memory.open(_paths(inp.paths), all=inp.all)
    except OpenError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    warnings = open_warnings(memory)

    def printed() -> Iterator[str]:
        """The listing a slice of rows at a time, each made, shown and let go in turn: at
        100,000 notes the rows were 17 MB and the output 9 MB of text or 19 MB of JSON."""
        with memory:
            rows: Iterable[Row]
            if inp.where or inp.sort is not None:
                from kb.io.answering.served import listed

                rows = listed(memory, facets.unwrap(), where.unwrap(), sort.unwrap())
            else:
                rows = memory.each_row(facets.unwrap())
            count = 0
            it = iter(rows)
            while part := list(islice(it, ROWS_AT_ONCE)):
                if inp.json:  # as `dumps` writes the list: one line, objects joined by commas
                    yield ("," if count else "[") + ",".join(dumps(row_json(r)) for r in part)
                else:
                    yield "".join(f"{row_line(r)}\n" for r in part)
                count += len(part)
        if inp.json:
            yield "]\n" if count else "[]\n"
            return
        yield f"\n{counted(count, 'file')}\n"
        if not inp.all:
            yield "  the private layer is not listed. --all includes it\n"

    return Outcome(stderr=warnings, rest=printed())


# Rows made and shown at once: the output is never held whole (it is printed a slice at a
# time), nor the rows (92,000 at 100,000 notes).
ROWS_AT_ONCE = 2000


def fleet(inp: FleetInput) -> Outcome:
    try:
        memory = Memory.open(_paths(inp.paths), all=inp.all)
    except OpenError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    with memory:
        warnings = open_warnings(memory)
        if inp.json:
            from kb.pure.fleet.fleetcard import describe_json
            from kb.pure.render.jsonout import dumps

            card = dumps(describe_json(*memory.fleet_card())) + "\n"
            return Outcome(stdout=card, stderr=warnings)
        return Outcome(stdout=memory.describe(), stderr=warnings)
