"""Reading an open Memory's notes for kb.pure.writing.graph: every file discovered in scope, once.

Only files the Memory discovered are read, so the private layer is absent without --all
(nothing here lists a folder). A file that is not UTF-8 text, or vanished since the walk,
is no note. Keys come from each keyword entry's header: a note that is not an entry (a map,
a README, a keyless note) declares none.
"""

from __future__ import annotations

from kb.io.answering.memory import Memory
from kb.io.notes.safe_read import note_text
from kb.io.store import FileHeader
from kb.pure.writing.checks import LINK_EXEMPT
from kb.pure.writing.graph import Graph, Note, Written, build_written, fold_keys, written_links


def read_graph(memory: Memory, described: bool = True) -> Graph:
    """The graph of every note in scope, reading one note at a time: a note's text is
    let go once its links are taken (`written_links`), and its header once its note is
    made (`OpenBase.each_header`). `described`: each note carries its title and keys; a
    walk (`kb links`) prints neither, and takes the stat pass's light headers instead of
    decoding every full one (at 100,000 notes, 2.2 million keys)."""
    groups: list[list[tuple[Note, Written]]] = []
    folded: dict[str, str] = {}  # each key's folded form, one string for the whole fleet
    for b in memory.bases:
        snap = b.snapshot
        group: list[tuple[Note, Written]] = []
        heads = b.each_header() if described else b.scan.lights
        for h in heads:
            if h.bucket == "unreadable":
                continue
            text = note_text(snap, h.rel)
            if text is None:
                continue
            note = Note(snap.name, h.rel, private=h.private)
            if isinstance(h, FileHeader):
                # an entry's keys are its header's (kb.io.answering.opened.entry_of)
                declared = fold_keys(h.keys, folded) if h.bucket == "entry" else ()
                note = Note(snap.name, h.rel, h.title, h.private, declared)
            exempt = h.rel.startswith(LINK_EXEMPT)  # its links are not followed: not taken
            group.append((note, Written() if exempt else written_links(text)))
        groups.append(group)
    return build_written(groups)
