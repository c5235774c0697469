"""The link graph and the shared-key graph of the notes in scope: built, walked, trimmed.

Rules of this module:
- A node is a note, named `base/rel`. Only the notes handed in exist: the caller passes the
  files discovered in scope, so a private note left out without --all cannot appear at all,
  not even as the far end of a link.
- Wikilinks are `kb check`'s (kb.pure.notes.links: fences and inline code skipped, `|alias` and
  `#anchor` dropped) and resolve as E01/W01 do: by exact, case-sensitive stem among the
  notes of the SAME base. A link is followed only when it names exactly one note; a broken
  (E01) or ambiguous (W01) link is no edge, only counted in `unresolved`. Links written in
  `templates/` are placeholders and are not followed, as `kb check` does not check them.
- A path link is `[text](target)` outside code. The target (inside `<>` when written so,
  else its first word; cut at `#` or `?`; `%XX` decoded) must end in `.md`, carry no scheme
  and not start with `/`. It resolves against the linking file's folder, `.` and `..`
  folded; a path that climbs above the base root or names no discovered note of that same
  base is no edge. So neither kind of link ever crosses a base edge.
- A note's link to itself is dropped. All links from one note to another are one edge,
  carrying every kind that made it (`path`, `wiki`), sorted.
- A key is folded (lower case, runs of white space made one space). A key joins notes
  only when at least two notes in view declare it; `--key` shows even a lone declarer.
- A walk is breadth-first from one note, neighbours in id order (with `both`, the notes it
  links to before the notes linking to it). Each note is reached at most once, at its
  fewest hops, and the walk stops at the depth asked or when nothing new is reached, so
  it ends on any graph, cycles included.
- Trimming to a limit keeps the most connected notes (ties by id) and never drops the
  focus. Keys are ranked by how many kept notes declare them, ties by the key.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Literal

from attrs import frozen
from returns.result import Failure, Result, Success

from kb.pure.notes.links import LINK_EXEMPT, outside_code, stems_of, wikilinks
from kb.pure.notes.paths import folder_of, stem_of

Direction = Literal["out", "in", "both"]
Way = Literal["out", "in"]
DIRECTIONS: tuple[Direction, ...] = ("out", "in", "both")
PATH = "path"
_HEX = frozenset("0123456789abcdefABCDEF")
WIKI = "wiki"


@frozen
class Note:
    base: str
    rel: str
    title: str = ""
    private: bool = False
    keys: tuple[str, ...] = ()  # folded, unique, sorted

    @property
    def id(self) -> str:
        return f"{self.base}/{self.rel}"


@frozen
class Edge:
    """A directed link from one note to another (ids), with the kinds of link that made it."""

    source: str
    target: str
    via: tuple[str, ...]


@frozen
class Graph:
    notes: tuple[Note, ...]  # sorted by id, ids unique
    edges: tuple[Edge, ...]  # sorted by (source, target)
    unresolved: int  # links naming no note of their base, or several


# -- keys ---------------------------------------------------------------------------------


def fold_key(key: str) -> str:
    return " ".join(key.lower().split())


def fold_keys(keys: Iterable[str], folded: dict[str, str] | None = None) -> tuple[str, ...]:
    """The keys folded, unique and sorted. `folded`: each key's folded form from earlier
    calls, kept across a fleet so its notes share one string per key (a fleet of 10,000
    notes declared 219,923 keys, 14 MB as a string each)."""
    if folded is None:
        return tuple(sorted({k for k in (fold_key(k) for k in keys) if k}))
    out: set[str] = set()
    for key in keys:
        found = folded.get(key)
        if found is None:
            made = fold_key(key)
            found = folded[key] = folded.setdefault(made, made)  # one string per folded form
        if found:
            out.add(found)
    return tuple(sorted(out))


# -- path links -----------------------------------------------------------------------------


def _unquote(text: str) -> str:
    """`%XX` escapes decoded as UTF-8 bytes; a malformed escape stays as written."""
    if "%" not in text:
        return text
    raw = text.encode("utf-8")
    out = bytearray()
    i = 0
    while i < len(raw):
        pair = raw[i + 1 : i + 3]
        if (
            raw[i] == 0x25
            and len(pair) == 2
            and all(chr(c) in "0123456789abcdefABCDEF" for c in pair)
        ):
            out.append(int(pair, 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "replace")


def _target(raw: str) -> str | None:
    """The note path a markdown link's destination names, or None when it names none."""
    raw = raw.strip()
    if raw.startswith("<"):
        close = raw.find(">")
        raw = raw[1:close] if close > 0 else ""
    else:
        raw = raw.split(None, 1)[0] if raw.split() else ""
    for cut in ("#", "?"):
        raw = raw.split(cut, 1)[0]
    target = _unquote(raw).strip()
    head = target.split("/", 1)[0]
    if not target or target.startswith("/") or ":" in head:  # absolute, or has a scheme
        return None
    return target if target.lower().endswith(".md") else None


def path_links(text: str) -> list[tuple[int, str]]:
    """(line, target as written and decoded) for every `[text](x.md)` link outside code."""
    out: list[tuple[int, str]] = []
    for n, pieces in outside_code(text):
        for piece in pieces:
            at = 0
            while (start := piece.find("](", at)) >= 0:
                end = piece.find(")", start + 2)
                if end < 0:
                    break
                target = _target(piece[start + 2 : end])
                if target is not None:
                    out.append((n, target))
                at = end + 1
    return out


def resolve_path(linking_rel: str, target: str) -> str | None:
    """The rel a relative link names from `linking_rel`, or None when it climbs out of the
    base root."""
    parts = [p for p in folder_of(linking_rel).split("/") if p]
    for segment in target.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(segment)
    return "/".join(parts)


# -- building ----------------------------------------------------------------------------


@frozen
class Written:
    """The links one note's text writes, in text order: the stems its wikilinks name and
    the targets its path links give. A graph of the whole fleet is built from these, so
    no note's text is held while the others are read (at 100,000 notes `kb graph` held
    every text, 1.2 GB)."""

    wiki: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()


def written_links(text: str) -> Written:
    return Written(
        tuple(name for _, name in wikilinks(text)),
        tuple(target for _, target in path_links(text)),
    )


def build(bases: Sequence[Sequence[tuple[Note, str]]]) -> Graph:
    """The link graph of every base's (note, text) pairs (`build_written`)."""
    return build_written([[(note, written_links(text)) for note, text in g] for g in bases])


def build_written(bases: Sequence[Sequence[tuple[Note, Written]]]) -> Graph:
    """The link graph of every base's (note, links written) pairs. A link resolves only
    inside the group it was written in; a note id seen twice (two bases with one name)
    keeps the first."""
    builder = GraphBuilder()
    for group in bases:
        names = BaseNames({note.rel: note.id for note, _ in group})
        for note, written in group:
            builder.add(names, note, written)
    return builder.graph()


class BaseNames:
    """The notes of one base a link can name: each note's id by its path (one string each,
    shared by every edge to it), and the paths answering to each stem."""

    __slots__ = ("by_stem", "ids")

    def __init__(self, ids: dict[str, str]) -> None:
        self.ids = ids
        self.by_stem = stems_of(ids)


class GraphBuilder:
    """A link graph built one note at a time, base after base (`build_written`'s rules),
    each note's links resolved as it is added, so no note's links are held once it is."""

    __slots__ = ("_notes", "_via", "unresolved")

    def __init__(self) -> None:
        self._notes: dict[str, Note] = {}
        self._via: dict[tuple[str, str], int] = {}  # each edge's kinds, as `KIND_BITS`
        self.unresolved = 0

    def add(self, names: BaseNames, note: Note, written: Written) -> None:
        """One note of the base `names` names, with the links its text writes."""
        ids = names.ids
        source = ids[note.rel]
        self._notes.setdefault(source, note)
        if note.rel.startswith(LINK_EXEMPT):
            return
        found: list[tuple[str, int]] = []
        for name in written.wiki:
            matches = names.by_stem.get(name, [])
            if len(matches) == 1:
                found.append((ids[matches[0]], KIND_BITS[WIKI]))
            else:
                self.unresolved += 1
        for target in written.paths:
            rel = resolve_path(note.rel, target)
            if rel is not None and rel in ids:
                found.append((ids[rel], KIND_BITS[PATH]))
            else:
                self.unresolved += 1
        for other, bit in found:
            if other != source:
                pair = (source, other)
                self._via[pair] = self._via.get(pair, 0) | bit

    def merge(self, other: GraphBuilder) -> None:
        """Add what `other` built, as if its notes had been added here after these."""
        for ident, note in other._notes.items():
            self._notes.setdefault(ident, note)
        for pair, bits in other._via.items():
            self._via[pair] = self._via.get(pair, 0) | bits
        self.unresolved += other.unresolved

    def notes(self) -> list[Note]:
        """The notes added, in id order."""
        return [self._notes[i] for i in sorted(self._notes)]

    def links(self) -> Iterator[tuple[str, str, int]]:
        """(source id, target id, kinds as `KIND_BITS`) of every edge, in no order."""
        for (source, target), bits in self._via.items():
            yield source, target, bits

    def graph(self) -> Graph:
        edges = tuple(Edge(s, t, KINDS_OF[bits]) for (s, t), bits in sorted(self._via.items()))
        return Graph(tuple(self.notes()), edges, self.unresolved)


# An edge's kinds as bits while a graph is built (a set per edge was 216 bytes of each of the
# 30,251 edges of a 13,278-note base), and as the sorted tuples an edge carries, one each.
KIND_BITS = {WIKI: 1, PATH: 2}
KINDS_OF = {
    bits: tuple(sorted(kind for kind, bit in KIND_BITS.items() if bits & bit))
    for bits in range(1, 4)
}


Neighbours = dict[str, list[tuple[str, tuple[str, ...]]]]  # note -> [(other note, via)]


def adjacency(graph: Graph) -> tuple[Neighbours, Neighbours]:
    """(links out of each note, links into each note), each list in id order."""
    outs: Neighbours = {}
    ins: Neighbours = {}
    for e in graph.edges:  # sorted by (source, target): each out list is in target order
        outs.setdefault(e.source, []).append((e.target, e.via))
        ins.setdefault(e.target, []).append((e.source, e.via))
    for lst in ins.values():
        lst.sort()
    return outs, ins


# -- finding a note by what a person types ------------------------------------------------


def find_note(notes: Iterable[Note], given: str) -> Result[Note, tuple[str, ...]]:
    """With a `/`: `base/rel`, then `rel`; without one: a file name, matched by stem in
    every folder of every base. `.md` may be left off. The first reading that matches
    anything decides. Failure carries every candidate that reading matched (sorted), or
    nothing when no reading matched. The notes are read once, so they may come one at a
    time (`kb links` names them from the stat pass, holding none)."""
    want = given.strip()
    if not want:
        return Failure(())
    path = want if want.lower().endswith(".md") else want + ".md"
    readings: list[list[Note]] = [[], []]
    if "/" in want:
        for n in notes:
            if n.rel == path:
                readings[1].append(n)
            elif n.id == path:  # never both: an id is its rel with the base in front
                readings[0].append(n)
    else:
        stem = stem_of(path)
        readings[0] = [n for n in notes if stem_of(n.rel) == stem]
    for matched in readings:
        if len(matched) == 1:
            return Success(matched[0])
        if matched:
            return Failure(tuple(sorted(n.id for n in matched)))
    return Failure(())


# -- walking ------------------------------------------------------------------------------


@frozen
class Step:
    """One note reached by a walk: how many hops out, which way, from which note, by what."""

    note: str
    depth: int
    direction: Way
    parent: str
    via: tuple[str, ...]


def walk(graph: Graph, start: str, direction: Direction, depth: int) -> tuple[Step, ...]:
    """Every note within `depth` hops of `start`, breadth first, each once (rules above)."""
    outs, ins = adjacency(graph)
    tables: list[tuple[Way, Neighbours]] = []
    if direction in ("out", "both"):
        tables.append(("out", outs))
    if direction in ("in", "both"):
        tables.append(("in", ins))
    seen = {start}
    frontier = [start]
    steps: list[Step] = []
    level = 0
    while frontier and level < depth:
        level += 1
        reached: list[str] = []
        for node in frontier:
            for way, table in tables:
                for other, kinds in table.get(node, ()):
                    if other in seen:
                        continue
                    seen.add(other)
                    reached.append(other)
                    steps.append(Step(other, level, way, node, kinds))
        frontier = reached
    return tuple(steps)


# -- views for export ----------------------------------------------------------------------


@frozen
class KeyNode:
    key: str
    notes: tuple[str, ...]  # ids of the notes in view that declare it, sorted


@frozen
class View:
    """What `kb graph` draws: notes, keys, the links among the notes, and what was cut."""

    notes: tuple[Note, ...]  # sorted by id
    keys: tuple[KeyNode, ...]  # sorted by key
    edges: tuple[Edge, ...]  # links with both ends in view, sorted
    omitted_notes: int
    omitted_keys: int
    focus: str | None = None  # "note:<id>" or "key:<key>"


def declared(graph: Graph) -> dict[str, list[str]]:
    """key -> ids of the notes declaring it, in id order."""
    out: dict[str, list[str]] = {}
    for note in graph.notes:
        if note.keys:
            ident = note.id  # one string a note, not one a key it declares
            for key in note.keys:
                out.setdefault(key, []).append(ident)
    return out


def link_neighbours(edges: Iterable[Edge]) -> dict[str, set[str]]:
    """Each note's neighbours by link, either way."""
    out: dict[str, set[str]] = {}
    for e in edges:
        out.setdefault(e.source, set()).add(e.target)
        out.setdefault(e.target, set()).add(e.source)
    return out


def _degrees(graph: Graph, shared: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """A note's degree: its neighbours by link, plus the keys it shares with another note."""
    degree = {n.id: 0 for n in graph.notes}
    for note, others in link_neighbours(graph.edges).items():
        degree[note] = len(others)
    for ids in shared.values():
        for i in ids:
            degree[i] += 1
    return degree


def most_connected(degrees: Iterable[tuple[str, int]], limit: int) -> list[str]:
    """The ids of the `limit` notes of highest degree, ties by id, in that order; the
    (id, degree) pairs may come one at a time (the whole fleet's are never held)."""
    return [i for _, i in heapq.nsmallest(limit, ((-d, i) for i, d in degrees))]


def ranked_around(focus: str, linked: Iterable[str], shared_with: Mapping[str, int]) -> list[str]:
    """The notes around `focus`: its link neighbours first, then by keys shared with it
    (`shared_with`: a note -> how many), ties by id; the focus itself is never one."""
    near = set(linked)
    candidates = (near | set(shared_with)) - {focus}
    return sorted(candidates, key=lambda i: (i not in near, -shared_with.get(i, 0), i))


def view_of(
    graph: Graph,
    kept: Iterable[str],
    omitted_notes: int,
    candidate_keys: Iterable[str],
    min_declarers: int,
    limit: int,
    focus: str | None,
    by_key: Mapping[str, Sequence[str]] | None = None,
) -> View:
    """The view of the `kept` notes of `graph`, which need hold no other note: keys and
    links are counted among the kept alone. `by_key`: `declared(graph)`, when the caller
    made it."""
    keep = set(kept)
    by_key = declared(graph) if by_key is None else by_key
    eligible = []
    for key in candidate_keys:
        ids = tuple(i for i in by_key.get(key, ()) if i in keep)
        if len(ids) >= min_declarers:
            eligible.append(KeyNode(key, ids))
    eligible.sort(key=lambda k: (-len(k.notes), k.key))
    keys = sorted(eligible[:limit], key=lambda k: k.key)
    return View(
        notes=tuple(n for n in graph.notes if n.id in keep),
        keys=tuple(keys),
        edges=tuple(e for e in graph.edges if e.source in keep and e.target in keep),
        omitted_notes=omitted_notes,
        omitted_keys=max(0, len(eligible) - limit),
        focus=focus,
    )


def overview(graph: Graph, limit: int) -> View:
    """The whole graph: the `limit` most connected notes and the `limit` most shared keys
    among them."""
    by_key = declared(graph)
    shared = {k: ids for k, ids in by_key.items() if len(ids) >= 2}
    degree = _degrees(graph, shared)
    kept = most_connected(degree.items(), limit)
    return view_of(graph, kept, len(degree) - len(kept), shared, 2, limit, None, by_key)


def around_note(graph: Graph, focus: Note, limit: int) -> View:
    """One note, the notes it links to or is linked from, and the notes sharing a key with
    it (link neighbours first, then by keys shared), `limit` of them besides the focus."""
    linked = link_neighbours(graph.edges).get(focus.id, set())
    by_key = declared(graph)
    ranked = ranked_around(focus.id, linked, shared_counts(focus, by_key))
    return note_view(graph, focus, ranked, limit, by_key)


def note_view(
    graph: Graph,
    focus: Note,
    ranked: Sequence[str],
    limit: int,
    by_key: Mapping[str, Sequence[str]] | None = None,
) -> View:
    """`around_note`'s view: the focus and the first `limit` of the `ranked` around it."""
    kept = [focus.id, *ranked[:limit]]
    omitted = len(ranked) - min(limit, len(ranked))
    return view_of(graph, kept, omitted, focus.keys, 2, limit, f"note:{focus.id}", by_key)


def shared_counts(focus: Note, by_key: Mapping[str, Iterable[str]]) -> dict[str, int]:
    """Every other note declaring one of the focus's keys -> how many of them."""
    out: dict[str, int] = {}
    for key in focus.keys:
        for other in by_key.get(key, ()):
            if other != focus.id:
                out[other] = out.get(other, 0) + 1
    return out


def around_key(graph: Graph, key: str, limit: int) -> Result[View, str]:
    """The notes declaring one key (the most connected `limit` of them) and their links.
    Failure carries the folded key when no note in scope declares it."""
    folded = fold_key(key)
    by_key = declared(graph)
    ids = by_key.get(folded, [])
    if not ids:
        return Failure(folded)
    shared = {k: v for k, v in by_key.items() if len(v) >= 2}
    degree = _degrees(graph, shared)
    kept = most_connected(((i, degree[i]) for i in ids), limit)
    return Success(key_view(graph, folded, kept, len(ids), limit, by_key))


def key_view(
    graph: Graph,
    folded: str,
    kept: Sequence[str],
    declarers: int,
    limit: int,
    by_key: Mapping[str, Sequence[str]] | None = None,
) -> View:
    """`around_key`'s view: the `kept` of the key's `declarers` notes."""
    omitted = declarers - len(kept)
    return view_of(graph, kept, omitted, [folded], 1, max(limit, 1), f"key:{folded}", by_key)
