"""`kb links` and `kb graph`: the link graph of the notes in scope, walked or exported.

Both open the Memory (so the scope, the private layer and the keys are the ones every
other verb sees) and hand what they read to kb.pure.writing.graph and
kb.pure.render.graphrender: `kb links` the graph of its start's base
(kb.io.answering.graphread), `kb graph` the fleet counted a base at a time
(kb.io.answering.graphfleet). Nothing is written except the header cache the Memory keeps.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from returns.result import Failure, Success

from kb.io.answering.graphfleet import FleetGraph, WholeGraph, open_views
from kb.io.answering.graphread import notes_in_scope, read_graph
from kb.io.answering.memory import Memory, OpenError
from kb.pure.render.graphrender import RENDERERS, links_json, links_text
from kb.pure.writing.graph import (
    Direction,
    Graph,
    Note,
    find_note,
    walk,
)
from kb.shell.answering.readverbs import open_warnings
from kb.shell.cli.graphinputs import GraphInput, LinksInput
from kb.shell.cli.outcome import Outcome


def _warned(out: Outcome, warnings: str) -> Outcome:
    return Outcome(stdout=out.stdout, stderr=warnings + out.stderr, code=out.code)


def _note(notes: Iterable[Note], given: str, include_private: bool) -> Note | Outcome:
    found = find_note(notes, given)
    if isinstance(found, Success):
        note: Note = found.unwrap()
        return note
    candidates = found.failure()
    if candidates:
        return Outcome(
            stderr=f"kb: {given!r} names {len(candidates)} notes: {', '.join(candidates)}. "
            "Name one as base/path\n",
            code=2,
        )
    hint = "" if include_private else " (the private layer is not searched without --all)"
    return Outcome(
        stderr=f"kb: no note in scope is called {given!r}{hint}. "
        "Give base/path, a path inside a base, or a file name without .md\n",
        code=1,
    )


def links(inp: LinksInput) -> Outcome:
    try:
        memory = Memory.open(list(inp.paths) or ["."], all=inp.all)
    except OpenError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    with memory:
        # the start is found by name; only its base is read, since no link leaves a base
        # (at 100,000 notes the whole fleet's graph peaked at 200 MB)
        start = _note(notes_in_scope(memory), inp.note, inp.all)
        if isinstance(start, Note):
            graph = read_graph(memory, described=False, base=start.base)
            if not any(n.id == start.id for n in graph.notes):  # vanished since the walk
                start = _note((), inp.note, inp.all)
        out = start if isinstance(start, Outcome) else _links(inp, graph, start)
        return _warned(out, open_warnings(memory))


def _links(inp: LinksInput, graph: Graph, start: Note) -> Outcome:
    direction = cast(Direction, inp.direction)  # the input class admits only the three
    steps = walk(graph, start.id, direction, inp.depth)
    if inp.json:
        return Outcome(stdout=links_json(start, direction, inp.depth, inp.limit, steps))
    return Outcome(stdout=links_text(start, direction, inp.depth, inp.limit, steps, inp.all))


def graph(inp: GraphInput) -> Outcome:
    if inp.note is not None and inp.key is not None:
        return Outcome(
            stderr="kb: graph draws one neighbourhood at a time: give --note or --key, not both\n",
            code=2,
        )
    try:
        memory = Memory.open(list(inp.paths) or ["."], all=inp.all)
    except OpenError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    with memory, open_views(memory) as views:
        return _warned(_graph(inp, views), open_warnings(memory))


def _graph(inp: GraphInput, views: FleetGraph | WholeGraph) -> Outcome:
    if inp.note is not None:
        named = _note(views.named(), inp.note, inp.all)
        if isinstance(named, Outcome):
            return named
        view = views.around_note(views.focus_of(named), inp.limit)
    elif inp.key is not None:
        keyed = views.around_key(inp.key, inp.limit)
        if isinstance(keyed, Failure):
            hint = "" if inp.all else " (the private layer is not read without --all)"
            return Outcome(
                stderr=f"kb: no note in scope declares the key {keyed.failure()!r}{hint}. "
                "`kb route` finds notes by the words of a question\n",
                code=1,
            )
        view = keyed.unwrap()
    else:
        view = views.overview(inp.limit)
    return Outcome(stdout=RENDERERS[inp.format](view))
