"""Reading an open Memory's notes for kb.pure.writing.graph: every file discovered in scope, once.

Only files the Memory discovered are read, so the private layer is absent without --all
(nothing here lists a folder). A file that is not UTF-8 text, or vanished since the walk,
is no note. Keys come from each keyword entry's header: a note that is not an entry (a map,
a README, a keyless note) declares none.
"""

from __future__ import annotations

from collections.abc import Iterator

from kb.io.answering.memory import Memory
from kb.io.answering.opened import OpenBase
from kb.io.notes.safe_read import note_text
from kb.io.store import FileHeader
from kb.pure.notes.links import LINK_EXEMPT
from kb.pure.writing.graph import (
    BaseNames,
    Graph,
    GraphBuilder,
    Note,
    Written,
    fold_keys,
    written_links,
)


def notes_in_scope(memory: Memory) -> Iterator[Note]:
    """Every note in scope by name alone, from the stat pass, one at a time (none is read: a
    file that vanished since is still named, and drops out when its base is read)."""
    for b in memory.bases:
        name = b.snapshot.name
        for h in b.scan.lights:
            if h.bucket != "unreadable":
                yield Note(name, h.rel, private=h.private)


def read_graph(memory: Memory, described: bool = True, base: str | None = None) -> Graph:
    """The graph of every note in scope, reading one note at a time: a note's links are
    resolved as its text is read and the text let go (`GraphBuilder`), and its header is let
    go once its note is made (`OpenBase.each_header`). A link resolves against the base's
    notes named by the stat pass; should one of them vanish before it is read, the base is
    read again and resolved against the notes that were there. `described`: each note
    carries its title and keys; a walk (`kb links`) prints neither, and takes the stat
    pass's light headers instead of decoding every full one (at 100,000 notes, 2.2 million
    keys). `base`: only the bases of that name (a link never leaves its base, so a walk
    needs only its start's)."""
    builder = GraphBuilder()
    folded: dict[str, str] = {}  # each key's folded form, one string for the whole fleet
    for b in memory.bases:
        if base is None or b.snapshot.name == base:
            builder.merge(base_links(b, described, folded))
    return builder.graph()


def base_links(
    b: OpenBase, described: bool = False, folded: dict[str, str] | None = None
) -> GraphBuilder:
    """One base's notes and links (`read_graph`'s rules), as built: not yet a `Graph`."""
    name = b.snapshot.name
    folded = {} if folded is None else folded
    named = BaseNames({h.rel: f"{name}/{h.rel}" for h in b.scan.lights if h.bucket != "unreadable"})
    built = GraphBuilder()
    for note, written in _read_base(b, described, folded):
        if note is None:  # vanished since the walk: resolved against those still there
            group = [(n, w) for n, w in _read_base(b, described, folded) if n is not None]
            built = GraphBuilder()
            names = BaseNames({n.rel: named.ids.get(n.rel, n.id) for n, _ in group})
            for n, w in group:
                built.add(names, n, w)
            break
        built.add(named, note, written)
    return built


def _read_base(
    b: OpenBase, described: bool, folded: dict[str, str]
) -> Iterator[tuple[Note | None, Written]]:
    """Each readable note of one base with the links its text writes, in walk order; a note
    whose text could not be read (vanished, or changed to what kb will not read) as None."""
    snap = b.snapshot
    heads = b.each_header() if described else b.scan.lights
    for h in heads:
        if h.bucket == "unreadable":
            continue
        text = note_text(snap, h.rel)
        if text is None:
            yield None, Written()
            continue
        if isinstance(h, FileHeader):
            note = note_of(snap.name, h, folded)
        else:
            note = Note(snap.name, h.rel, private=h.private)
        exempt = h.rel.startswith(LINK_EXEMPT)  # its links are not followed: not taken
        yield note, Written() if exempt else written_links(text)


def note_of(base: str, h: FileHeader, folded: dict[str, str] | None = None) -> Note:
    """A note of the graph from its full header: an entry's keys are its header's
    (kb.io.answering.opened.entry_of), folded; a map, a README or a keyless note declares
    none. `folded`: a memo of folded keys shared by the caller's notes."""
    declared = fold_keys(h.keys, folded) if h.bucket == "entry" else ()
    return Note(base, h.rel, h.title, h.private, declared)
