"""`kb links` and `kb graph` over generated notes: the walk ends on any graph, cycles
included, and keeps its depth and its limit; the edges are exactly the links the notes
state; and no private note shows in any output without --all.

The generated notes are a plain description (`Spec`); the oracles below read the links
from that description, not from kb, so each test compares two independent readings.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure

from kb.pure.render.graphrender import FORMATS, links_json, links_text
from kb.pure.writing.graph import (
    DIRECTIONS,
    Direction,
    Edge,
    Graph,
    Note,
    View,
    around_key,
    around_note,
    build,
    fold_keys,
    overview,
    walk,
)
from kb.shell.cli.inputs import GRAPH_FORMATS, LINK_DIRECTIONS
from kb.shell.cli.main import run

FOLDERS = ("knowledge", "knowledge/deep", "", "inbox", "templates", "projects")
STEMS = ("alpha", "beta", "gamma", "delta", "omega", "zeta")
KEYS = ("harbor", "lantern", "quorum", "vigil")
# How a link is written: followed (wiki, path) or not (inside code, inside a fence).
WAYS = ("wiki", "path", "code", "fence")


@dataclass(frozen=True)
class Spec:
    rels: tuple[str, ...]
    links: tuple[tuple[int, int, str], ...]  # (from, to, way)
    keys: tuple[tuple[str, ...], ...]


@st.composite
def specs(draw: st.DrawFn, private_folder: bool = True) -> Spec:
    folders = FOLDERS if private_folder else FOLDERS[:-1]
    n = draw(st.integers(1, 9))
    rels: list[str] = []
    for _ in range(n):
        folder = draw(st.sampled_from(folders))
        stem = draw(st.sampled_from(STEMS))  # stems repeat: ambiguous wikilinks happen
        rel = f"{folder}/{stem}.md" if folder else f"{stem}.md"
        if rel not in rels:
            rels.append(rel)
    m = len(rels)
    link = st.tuples(st.integers(0, m - 1), st.integers(0, m - 1), st.sampled_from(WAYS))
    links = draw(st.lists(link, max_size=3 * m))  # self-links and cycles included
    keys = draw(st.lists(st.lists(st.sampled_from(KEYS), max_size=3), min_size=m, max_size=m))
    return Spec(tuple(rels), tuple(links), tuple(tuple(k) for k in keys))


def stem(rel: str) -> str:
    return rel.rsplit("/", 1)[-1][: -len(".md")]


def relative(src: str, dst: str) -> str:
    return os.path.relpath(dst, os.path.dirname(src) or ".")


def text_of(spec: Spec, i: int, title: str) -> str:
    rel = spec.rels[i]
    lines = [f"# {title}", ""]
    if spec.keys[i]:
        lines += [f"**Search for:** {', '.join(spec.keys[i])}", ""]
    for src, dst, way in spec.links:
        if src != i:
            continue
        target = spec.rels[dst]
        if way == "wiki":
            lines.append(f"See [[{stem(target)}]].")
        elif way == "path":
            lines.append(f"See [that]({relative(rel, target)}).")
        elif way == "code":
            lines.append(f"Written as `[[{stem(target)}]]`, an example.")
        else:
            lines += ["```", f"[[{stem(target)}]] [x]({relative(rel, target)})", "```"]
    return "\n".join(lines) + "\n"


def expected_edges(spec: Spec) -> set[tuple[str, str, str]]:
    """(from, to, kind) read from the spec: a wikilink only when its stem is unique in the
    base, nothing from templates/, no self-links, nothing written in code."""
    out: set[tuple[str, str, str]] = set()
    for src, dst, way in spec.links:
        a, b = spec.rels[src], spec.rels[dst]
        if a.startswith("templates/") or src == dst or way not in ("wiki", "path"):
            continue
        if way == "wiki" and sum(stem(r) == stem(b) for r in spec.rels) != 1:
            continue
        out.add((f"b/{a}", f"b/{b}", way))
    return out


def graph_of(spec: Spec) -> Graph:
    group = [
        (Note("b", rel, rel, False, spec.keys[i]), text_of(spec, i, rel))
        for i, rel in enumerate(spec.rels)
    ]
    return build([group])


def reachable(edges: set[tuple[str, str, str]], start: str, way: str, depth: int) -> dict[str, int]:
    """Oracle: note -> fewest hops from start, following edges the given way."""
    pairs = {(a, b) for a, b, _ in edges}
    if way == "in":
        pairs = {(b, a) for a, b in pairs}
    elif way == "both":
        pairs |= {(b, a) for a, b in pairs}
    seen = {start: 0}
    frontier = {start}
    for hop in range(1, depth + 1):
        frontier = {b for a, b in pairs if a in frontier} - set(seen)
        for n in frontier:
            seen[n] = hop
    del seen[start]
    return seen


def test_the_input_class_and_the_core_agree_on_the_legal_words() -> None:
    assert LINK_DIRECTIONS == DIRECTIONS
    assert GRAPH_FORMATS == FORMATS


@settings(max_examples=200, deadline=None)
@given(specs())
def test_edges_are_exactly_the_links_the_notes_state(spec: Spec) -> None:
    graph = graph_of(spec)
    got = {(e.source, e.target, kind) for e in graph.edges for kind in e.via}
    assert got == expected_edges(spec)
    assert [(e.source, e.target) for e in graph.edges] == sorted(
        {(e.source, e.target) for e in graph.edges}
    )


@settings(max_examples=200, deadline=None)
@given(
    specs(),
    st.integers(0, 10),
    st.sampled_from(DIRECTIONS),
    st.integers(0, 12),
    st.integers(0, 8),
)
def test_a_walk_ends_and_keeps_depth_and_limit(
    spec: Spec, pick: int, direction: str, depth: int, limit: int
) -> None:
    graph = graph_of(spec)
    start = graph.notes[pick % len(graph.notes)]
    way = cast(Direction, direction)
    steps = walk(graph, start.id, way, depth)
    # Each note once, never the start, within the depth, breadth first.
    names = [s.note for s in steps]
    assert len(names) == len(set(names)) and start.id not in names
    assert all(1 <= s.depth <= depth for s in steps)
    assert [s.depth for s in steps] == sorted(s.depth for s in steps)
    # Every step is a real edge from a note reached one hop earlier.
    hops = {start.id: 0, **{s.note: s.depth for s in steps}}
    edges = {(e.source, e.target): e.via for e in graph.edges}
    for s in steps:
        assert hops[s.parent] == s.depth - 1
        pair = (s.parent, s.note) if s.direction == "out" else (s.note, s.parent)
        assert edges[pair] == s.via
    assert {s.note: s.depth for s in steps} == reachable(expected_edges(spec), start.id, way, depth)
    # The limit cuts what is printed, never what is counted.
    text = links_text(start, way, depth, limit, steps, False)
    rows = [line for line in text.splitlines() if "  ->  " in line or "  <-  " in line]
    assert len(rows) == min(limit, len(steps))
    payload = json.loads(links_json(start, way, depth, limit, steps))
    assert payload["total"] == len(steps)
    assert len(payload["results"]) == min(limit, len(steps))


def write_base(root: Path, spec: Spec) -> dict[str, str]:
    """The spec on disk as one base; private notes (under projects/) carry a marker in
    their stem-independent title. Returns rel -> title."""
    (root / "agent.txt").write_text("name = B\nrole = generated\n", encoding="utf-8")
    titles = {}
    for i, rel in enumerate(spec.rels):
        title = f"Hidden{i}" if rel.startswith("projects/") else f"Shown{i}"
        titles[rel] = title
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text_of(spec, i, title), encoding="utf-8")
    return titles


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(specs(), st.sampled_from(KEYS))
def test_no_private_note_in_any_output_without_all(spec: Spec, key: str) -> None:
    private = [r for r in spec.rels if r.startswith("projects/")]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "b"
        base.mkdir()
        write_base(base, spec)
        public = [r for r in spec.rels if not r.startswith("projects/")]
        calls = [
            ["graph", str(base), "--format", fmt, *extra]
            for fmt in FORMATS
            for extra in ([], ["--key", key])
        ]
        for rel in public:
            calls.append(["links", f"b/{rel}", str(base), "--direction", "both", "--depth", "9"])
            calls.append(["links", f"b/{rel}", str(base), "--direction", "in", "--json"])
            calls.append(["graph", str(base), "--format", "json", "--note", f"b/{rel}"])
        for rel in private:  # asking for a private note by name finds nothing
            asked = run(["links", f"b/{rel}", str(base)])
            assert (asked.code, asked.stdout) == (1, "")
            assert "Hidden" not in asked.stderr
        for args in calls:
            out = run(args)
            assert out.code in (0, 1), (args, out.stderr)
            for rel in private:
                assert rel not in out.stdout + out.stderr, args
            assert "Hidden" not in out.stdout + out.stderr, args
        if private:
            shown = run(["graph", str(base), "--format", "json", "--all"])
            assert all(f"b/{rel}" in shown.stdout for rel in private)


@st.composite
def raw_graphs(draw: st.DrawFn) -> Graph:
    """Any directed graph at all, self-loops and dense cycles included, built directly."""
    n = draw(st.integers(1, 40))
    pairs = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=200))
    notes = tuple(sorted((Note("b", f"n{i:02}.md") for i in range(n)), key=lambda x: x.id))
    edges = tuple(Edge(f"b/n{a:02}.md", f"b/n{b:02}.md", ("wiki",)) for a, b in sorted(pairs))
    return Graph(notes, edges, 0)


@settings(max_examples=150, deadline=None)
@given(raw_graphs(), st.sampled_from(DIRECTIONS), st.integers(0, 10**9))
def test_a_walk_ends_on_any_graph_however_deep(graph: Graph, direction: str, depth: int) -> None:
    steps = walk(graph, graph.notes[0].id, cast(Direction, direction), depth)
    assert len(steps) <= len(graph.notes) - 1
    assert len({s.note for s in steps}) == len(steps)


@given(st.lists(st.lists(st.text(alphabet="aAbB \t", max_size=6), max_size=6), max_size=6))
def test_keys_folded_through_a_shared_memo_are_folded_alike(notes: list[list[str]]) -> None:
    """`fold_keys` with the fleet's memo (kb.io.answering.graphread) gives each note what
    it gives without one, and one string per folded key across notes."""
    folded: dict[str, str] = {}
    seen: dict[str, str] = {}
    for keys in notes:
        shared = fold_keys(keys, folded)
        assert shared == fold_keys(keys)
        for key in shared:
            assert seen.setdefault(key, key) is key


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(specs(), specs(), st.sampled_from(DIRECTIONS), st.integers(1, 4))
def test_a_walk_over_its_start_base_alone_is_the_whole_fleets_walk(
    first: Spec, second: Spec, direction: str, depth: int
) -> None:
    """`kb links` finds its start by name, without reading a note, and reads only the
    start's base: since no link leaves a base, every walk and every name found must be
    what the whole fleet's graph gives (two bases whose stems and paths collide)."""
    from kb.io.answering.graphread import notes_in_scope, read_graph
    from kb.io.answering.memory import Memory
    from kb.pure.writing.graph import find_note

    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in (("b", first), ("c", second)):
            (Path(tmp) / name).mkdir()
            write_base(Path(tmp) / name, spec)
        with Memory.open([tmp], all=True) as memory:
            whole = read_graph(memory, described=False)
            named = list(notes_in_scope(memory))
            assert {n.base for n in whole.notes} == {"b", "c"}
            assert sorted(named, key=lambda n: n.id) == list(whole.notes)
            for note in whole.notes:
                for given in (note.id, note.rel, stem(note.rel), "nowhere"):
                    assert find_note(iter(named), given) == find_note(whole.notes, given)
                alone = read_graph(memory, described=False, base=note.base)
                way = cast(Direction, direction)
                assert walk(alone, note.id, way, depth) == walk(whole, note.id, way, depth)


def test_a_note_that_vanishes_before_it_is_read_resolves_as_if_never_there(
    tmp_path: Path,
) -> None:
    """Links resolve against the notes the stat pass named; one deleted before the graph
    reads it must leave the graph a fresh open would build: here the stem it shared with
    another note is no longer ambiguous, so the link to it becomes an edge."""
    from kb.io.answering.graphread import read_graph
    from kb.io.answering.memory import Memory

    base = tmp_path / "b"
    for rel, text in {
        "agent.txt": "name = B\n",
        "knowledge/a.md": "# A\n\nSee [[dup]] and [[gone]].\n",
        "knowledge/x/dup.md": "# X\n",
        "knowledge/y/dup.md": "# Y\n",
        "knowledge/gone.md": "# Gone\n",
    }.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text, encoding="utf-8")
    with Memory.open([str(base)]) as memory:
        (base / "knowledge/y/dup.md").unlink()
        (base / "knowledge/gone.md").unlink()
        for described in (True, False):
            graph = read_graph(memory, described=described)
            assert [n.rel for n in graph.notes] == ["knowledge/a.md", "knowledge/x/dup.md"]
            assert graph.edges == (Edge("b/knowledge/a.md", "b/knowledge/x/dup.md", ("wiki",)),)
            assert graph.unresolved == 1  # [[gone]]
    with Memory.open([str(base)]) as fresh:
        assert read_graph(fresh, described=False) == graph


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(specs(), specs(), st.integers(0, 6), st.sampled_from((*KEYS, "nowhere")))
def test_kb_graph_counted_a_base_at_a_time_draws_what_the_whole_graph_draws(
    first: Spec, second: Spec, limit: int, key: str
) -> None:
    """`kb graph` ranks the fleet from counts kept a base at a time and reads again only the
    notes it keeps: every view (the overview, around a key, around each note) must be the
    one the whole graph held as values gives."""
    from kb.io.answering.graphfleet import FleetGraph, open_views
    from kb.io.answering.graphread import read_graph
    from kb.io.answering.memory import Memory

    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in (("b", first), ("c", second)):
            (Path(tmp) / name).mkdir()
            write_base(Path(tmp) / name, spec)
        with Memory.open([tmp], all=True) as memory:
            whole = read_graph(memory)
            with open_views(memory) as fleet:
                assert isinstance(fleet, FleetGraph)
                assert fleet.overview(limit) == overview(whole, limit)
                assert fleet.around_key(key, limit) == around_key(whole, key, limit)
                assert sorted(fleet.named(), key=lambda n: n.id) == [
                    attrs.evolve(n, title="", keys=()) for n in whole.notes
                ]
                for note in whole.notes:
                    named = attrs.evolve(note, title="", keys=())
                    assert fleet.focus_of(named) == note
                    assert fleet.around_note(note, limit) == around_note(whole, note, limit)


def test_two_bases_of_one_name_are_drawn_from_the_whole_graph(tmp_path: Path) -> None:
    """Two bases named alike make one id for two notes, which only the whole graph settles
    (it keeps the first): such a fleet is not counted a base at a time."""
    from kb.io.answering.graphfleet import WholeGraph, open_views
    from kb.io.answering.memory import Memory

    spec = Spec(("knowledge/alpha.md",), (), (("harbor",),))
    for side in ("one", "two"):
        (tmp_path / side / "b").mkdir(parents=True)
        write_base(tmp_path / side / "b", spec)
    paths = [str(tmp_path / "one" / "b"), str(tmp_path / "two" / "b")]
    with Memory.open(paths) as memory, open_views(memory) as views:
        assert isinstance(views, WholeGraph)
        assert [n.id for n in views.named()] == ["b/knowledge/alpha.md"]


def test_kb_graph_with_no_scratch_file_draws_from_the_whole_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting a base at a time needs a scratch SQLite file; where none can be made (no
    writable temp folder, a full disk) `kb graph` draws from the whole graph in memory, with
    the same output, and no error."""
    from kb.io.answering import graphfleet

    base = tmp_path / "b"
    base.mkdir()
    write_base(
        base,
        Spec(
            ("knowledge/alpha.md", "knowledge/beta.md"),
            ((0, 1, "wiki"),),
            (("harbor",), ("harbor",)),
        ),
    )
    args = ["graph", str(base), "--format", "json"]
    counted = run(args)
    monkeypatch.setattr(graphfleet, "SCRATCH", str(tmp_path / "no such folder" / "scratch.db"))
    from kb.io.answering.memory import Memory

    with Memory.open([str(base)]) as memory, graphfleet.open_views(memory) as views:
        assert isinstance(views, graphfleet.WholeGraph)
    whole = run(args)
    assert (whole.code, whole.stderr) == (0, "")
    assert whole.stdout == counted.stdout
    assert '"key:harbor"' in whole.stdout


Ids = dict[str, set[str]]
Shown = tuple[list[str], list[tuple[str, tuple[str, ...]]], int, int, str | None]


def _views_oracle(
    spec: Spec,
) -> tuple[Graph, dict[str, int], Ids, Ids]:
    """The graph of one base with each note's keys unique, and, read from the spec alone,
    each note's degree, its link neighbours and each key's declarers."""
    keys = [tuple(sorted(set(k))) for k in spec.keys]
    group = [
        (Note("b", rel, rel, False, keys[i]), text_of(spec, i, rel))
        for i, rel in enumerate(spec.rels)
    ]
    ids = [f"b/{r}" for r in spec.rels]
    near: dict[str, set[str]] = {i: set() for i in ids}
    for a, b, _ in expected_edges(spec):
        near[a].add(b)
        near[b].add(a)
    declarers: dict[str, set[str]] = {}
    for i, ks in zip(ids, keys, strict=True):
        for k in ks:
            declarers.setdefault(k, set()).add(i)
    degree = {
        i: len(near[i]) + sum(len(declarers[k]) >= 2 for k in ks)
        for i, ks in zip(ids, keys, strict=True)
    }
    return build([group]), degree, near, declarers


def _keys_shown(
    candidates: set[str], declarers: dict[str, set[str]], kept: set[str], least: int, limit: int
) -> tuple[list[tuple[str, tuple[str, ...]]], int]:
    """(key, its kept declarers) shown, by key, and how many eligible keys were cut."""
    eligible = []
    for k in candidates:
        among = tuple(sorted(declarers.get(k, set()) & kept))
        if len(among) >= least:
            eligible.append((k, among))
    eligible.sort(key=lambda p: (-len(p[1]), p[0]))
    return sorted(eligible[:limit]), max(0, len(eligible) - limit)


def _as_lists(view: View) -> Shown:
    return (
        [n.id for n in view.notes],
        [(k.key, k.notes) for k in view.keys],
        view.omitted_notes,
        view.omitted_keys,
        view.focus,
    )


@settings(max_examples=150, deadline=None)
@given(specs(), st.integers(0, 6))
def test_the_views_keep_the_notes_and_keys_their_rules_name(spec: Spec, limit: int) -> None:
    """Each view against the module's rules, computed here from the spec alone: the most
    connected notes (links either way plus keys shared, ties by id); around a note, its link
    neighbours first, then by keys shared, ties by id; around a key, its most connected
    declarers; keys ranked by kept declarers, ties by key; and what was cut, counted."""
    graph, degree, near, declarers = _views_oracle(spec)
    ids = sorted(degree)
    kept = sorted(ids, key=lambda i: (-degree[i], i))[:limit]
    shown, cut = _keys_shown(set(declarers), declarers, set(kept), 2, limit)
    want: Shown = (sorted(kept), shown, len(ids) - len(kept), cut, None)
    assert _as_lists(overview(graph, limit)) == want
    for focus in graph.notes:
        shared = {
            o: len(set(focus.keys) & set(n.keys))
            for o, n in ((n.id, n) for n in graph.notes)
            if o != focus.id and set(focus.keys) & set(n.keys)
        }
        linked = near[focus.id]
        ranked = sorted(linked | set(shared), key=lambda i: (i not in linked, -shared.get(i, 0), i))
        around = {focus.id, *ranked[:limit]}
        shown, cut = _keys_shown(set(focus.keys), declarers, around, 2, limit)
        omitted = len(ranked) - min(limit, len(ranked))
        want = (sorted(around), shown, omitted, cut, f"note:{focus.id}")
        assert _as_lists(around_note(graph, focus, limit)) == want
    for key in (*KEYS, "nowhere"):
        got = around_key(graph, key.upper(), limit)
        if key not in declarers:
            assert got == Failure(key)
            continue
        kept = sorted(declarers[key], key=lambda i: (-degree[i], i))[:limit]
        shown, cut = _keys_shown({key}, declarers, set(kept), 1, max(limit, 1))
        want = (sorted(kept), shown, len(declarers[key]) - len(kept), cut, f"key:{key}")
        assert _as_lists(got.unwrap()) == want
