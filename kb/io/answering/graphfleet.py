"""`kb graph`'s views of a whole fleet, read one base at a time and held as counts.

A view shows at most `--limit` notes, but choosing them ranks every note in scope by its
degree (links either way plus keys shared with another note anywhere in the fleet). The
whole fleet's graph held as values (kb.pure.writing.graph.Graph) peaked at 314 MB at
100,000 notes: every note with its folded keys, and every key's declarers. Here each base's
graph is read and let go in turn, leaving each note's link degree and the links as integers;
every (key, note) pair goes to a scratch SQLite file (2.2 million pairs at 100,000 notes),
which groups them by key on disk. The notes a view keeps are then read again with their
titles and keys, and the view is made by kb.pure.writing.graph from those alone, so the
rules (which notes rank first, which keys show) are the ones the whole graph obeys; a
property holds both ways equal on generated fleets.

Two bases of one name make one id for two notes (the whole graph keeps the first); such a
fleet is read the whole way (`WholeGraph`), as is one where no scratch file can be made.
"""

from __future__ import annotations

import sqlite3
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from operator import itemgetter

from returns.result import Failure, Result, Success

from kb.io.answering.graphread import base_links, note_of, read_graph
from kb.io.answering.memory import Memory, OpenBase
from kb.pure.writing import graph as pure
from kb.pure.writing.graph import (
    KINDS_OF,
    Edge,
    Graph,
    Note,
    View,
    fold_key,
    key_view,
    most_connected,
    note_view,
    ranked_around,
    view_of,
)

# The scratch database: "" is SQLite's private temp file, deleted when closed.
SCRATCH = ""
# The scratch database's page cache (KiB): its sort of the pairs by key spills to temp
# files past this budget instead of growing the process.
SCRATCH_CACHE_KIB = 512


def open_views(memory: Memory) -> FleetGraph | WholeGraph:
    """The views of the memory's notes: counted a base at a time, unless two of its bases
    share a name (then only the whole graph knows which note an id is)."""
    names = [b.snapshot.name for b in memory.bases]
    if len(set(names)) != len(names):
        return WholeGraph(read_graph(memory))
    try:
        return FleetGraph(memory)
    except sqlite3.Error:
        # no scratch file (no writable temp folder, a full disk): the whole graph in memory
        return WholeGraph(read_graph(memory))


class WholeGraph:
    """The views over the whole graph held as values (kb.pure.writing.graph's own)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def __enter__(self) -> WholeGraph:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def named(self) -> Iterable[Note]:
        return self.graph.notes

    def focus_of(self, named: Note) -> Note:
        return named

    def overview(self, limit: int) -> View:
        return pure.overview(self.graph, limit)

    def around_key(self, key: str, limit: int) -> Result[View, str]:
        return pure.around_key(self.graph, key, limit)

    def around_note(self, focus: Note, limit: int) -> View:
        return pure.around_note(self.graph, focus, limit)


def _pairs(b: OpenBase, numbers: dict[str, int]) -> Iterator[tuple[str, int]]:
    """(folded key, note) for every key each note in `numbers` (by path) declares."""
    for h in b.each_header():
        at = numbers.get(h.rel)
        if at is not None:
            # no memo of folded keys: each is let go once written (a base's memo held 10 MB)
            for key in note_of("", h).keys:
                yield key, at


class FleetGraph:
    """Every note in scope as a number (bases in the Memory's order, notes in id order),
    its link degree, the links between numbers, and the (key, note) pairs on disk."""

    def __init__(self, memory: Memory) -> None:
        self._bases: list[OpenBase] = []
        self._names: list[str] = []
        self._rels: list[Sequence[str]] = []  # per base, its notes' paths in id order
        self._offsets: list[int] = []
        self._linked = array("I")  # each note's neighbours by link, either way
        self._shared: array[int] | None = None
        self._db = sqlite3.connect(SCRATCH)
        self.count = 0
        try:
            self._read(memory)
        except BaseException:
            self._db.close()  # its file goes with it
            raise

    def _read(self, memory: Memory) -> None:
        self._db.execute(f"PRAGMA cache_size = -{SCRATCH_CACHE_KIB}")
        self._db.execute("PRAGMA temp_store = FILE")
        self._db.execute("CREATE TABLE pairs (key TEXT NOT NULL, note INTEGER NOT NULL)")
        # the links too (210,000 at 100,000 notes): a view asks for a few notes' links
        self._db.execute("CREATE TABLE links (source INTEGER, target INTEGER, kinds INTEGER)")
        total = 0
        for b in memory.bases:
            name = b.snapshot.name
            # the links first, from the stat pass's light headers (no title, no key held),
            # as integers: no `Edge`, no neighbour set (the largest base's 30,251 links)
            built = base_links(b)
            notes = built.notes()
            # by path, the walk's own strings (an id would be a new string a note)
            numbers = {n.rel: total + i for i, n in enumerate(notes)}
            cut = len(name) + 1  # an id is its base's name, a slash, then its path
            pairs: set[int] = set()  # each linked pair either way, low << 32 | high
            links: list[tuple[int, int, int]] = []
            for source, target, bits in built.links():
                one, other = numbers[source[cut:]], numbers[target[cut:]]
                links.append((one, other, bits))
                pairs.add(min(one, other) << 32 | max(one, other))
            self._db.executemany("INSERT INTO links VALUES (?, ?, ?)", links)
            del links
            del built
            linked = array("I", bytes(4 * len(notes)))
            for pair in pairs:
                linked[(pair >> 32) - total] += 1
                linked[(pair & 0xFFFFFFFF) - total] += 1
            self._linked.extend(linked)
            rels = [n.rel for n in notes]
            del pairs, linked, notes
            # then the keys, a header at a time, of the notes the graph holds
            self._db.executemany("INSERT INTO pairs VALUES (?, ?)", _pairs(b, numbers))
            del numbers
            self._bases.append(b)
            self._names.append(name)
            self._rels.append(rels)
            self._offsets.append(total)
            total += len(rels)
        self._db.execute("CREATE INDEX pairs_by_key ON pairs (key, note)")
        self.count = total

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> FleetGraph:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- naming -----------------------------------------------------------------------------

    def _base_of(self, i: int) -> int:
        return bisect_left(self._offsets, i + 1) - 1

    def id_of(self, i: int) -> str:
        at = self._base_of(i)
        return f"{self._names[at]}/{self._rels[at][i - self._offsets[at]]}"

    def number_of(self, ident: str) -> int:
        """The number of the note with this id (one of this fleet's)."""
        name, _, rel = ident.partition("/")
        at = self._names.index(name)
        rels = self._rels[at]
        return self._offsets[at] + bisect_left(rels, rel)

    def named(self) -> Iterator[Note]:
        """Every note by name alone (for finding one), in number order."""
        for b, name, rels in zip(self._bases, self._names, self._rels, strict=True):
            light = b.light
            for rel in rels:
                yield Note(name, rel, private=light[rel].private)

    # -- what the pass keeps ----------------------------------------------------------------

    def degrees(self, numbers: Iterable[int] | None = None) -> Iterator[tuple[str, int]]:
        """(id, degree) of these notes (every note when None), one at a time."""
        shared = self._shared_keys()
        for i in range(self.count) if numbers is None else numbers:
            yield self.id_of(i), self._linked[i] + shared[i]

    def _shared_keys(self) -> array[int]:
        """Each note's count of the keys it shares with another note: the pairs read in key
        order, a key's notes counted when there are two or more."""
        if self._shared is None:
            shared = array("I", bytes(4 * self.count))
            rows = self._db.execute("SELECT key, note FROM pairs ORDER BY key, note")
            for _, group in groupby(rows, key=itemgetter(0)):
                notes = [n for _, n in group]
                if len(notes) > 1:
                    for n in notes:
                        shared[n] += 1
            self._shared = shared
        return self._shared

    def declarers(self, key: str) -> list[int]:
        """The notes declaring this folded key, in number order."""
        rows = self._db.execute("SELECT note FROM pairs WHERE key = ? ORDER BY note", (key,))
        return [n for (n,) in rows]

    def neighbours(self, i: int) -> set[int]:
        """The notes linked to or from note `i`."""
        rows = self._db.execute(
            "SELECT target FROM links WHERE source = ?1 UNION SELECT source FROM links "
            "WHERE target = ?1",
            (i,),
        )
        return {n for (n,) in rows}

    def subgraph(self, numbers: Iterable[int]) -> Graph:
        """The graph of these notes alone, each read again with its title and keys, and the
        links between them."""
        wanted = sorted(set(numbers))
        notes: list[Note] = []
        by_base: dict[int, list[int]] = {}
        for i in wanted:
            by_base.setdefault(self._base_of(i), []).append(i)
        for at, members in by_base.items():
            b, rels, first = self._bases[at], self._rels[at], self._offsets[at]
            heads = b.headers_of([rels[i - first] for i in members])
            notes.extend(note_of(self._names[at], heads[rels[i - first]]) for i in members)
        keep = set(wanted)
        kept_edges = [
            Edge(self.id_of(source), self.id_of(target), KINDS_OF[bits])
            for source, target, bits in self._db.execute("SELECT * FROM links")
            if source in keep and target in keep
        ]
        notes.sort(key=lambda n: n.id)
        kept_edges.sort(key=lambda e: (e.source, e.target))
        return Graph(tuple(notes), tuple(kept_edges), 0)

    # -- the views (kb.pure.writing.graph's overview, around_key, around_note, by numbers) -

    def overview(self, limit: int) -> View:
        """The `limit` most connected notes and the `limit` keys most shared among them."""
        kept = most_connected(self.degrees(), limit)
        graph = self.subgraph(self.number_of(i) for i in kept)
        # a key two kept notes declare is a key two notes share: no other can show
        keys = {k for n in graph.notes for k in n.keys}
        return view_of(graph, kept, self.count - len(kept), keys, 2, limit, None)

    def around_key(self, key: str, limit: int) -> Result[View, str]:
        """The most connected `limit` notes declaring one key; Failure carries the folded
        key when none does."""
        folded = fold_key(key)
        numbers = self.declarers(folded)
        if not numbers:
            return Failure(folded)
        kept = most_connected(self.degrees(numbers), limit)
        graph = self.subgraph(self.number_of(i) for i in kept)
        return Success(key_view(graph, folded, kept, len(numbers), limit))

    def focus_of(self, named: Note) -> Note:
        """A note found by name (`named`), read again with its title and keys."""
        return self.subgraph([self.number_of(named.id)]).notes[0]

    def around_note(self, focus: Note, limit: int) -> View:
        """The focus (from `focus_of`), its link neighbours, the notes sharing its keys."""
        at = self.number_of(focus.id)
        linked = [self.id_of(i) for i in self.neighbours(at)]
        shared_with: dict[str, int] = {}
        for key in focus.keys:
            for i in self.declarers(key):
                if i != at:
                    other = self.id_of(i)
                    shared_with[other] = shared_with.get(other, 0) + 1
        ranked = ranked_around(focus.id, linked, shared_with)
        graph = self.subgraph(self.number_of(i) for i in [focus.id, *ranked[:limit]])
        return note_view(graph, focus, ranked, limit)
