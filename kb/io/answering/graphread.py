"""Reading an open Memory's notes for kb.pure.writing.graph: every file discovered in scope, once.

Only files the Memory discovered are read, so the private layer is absent without --all
(nothing here lists a folder). A file that is not UTF-8 text, or vanished since the walk,
is no note. Keys come from each keyword entry's header: a note that is not an entry (a map,
a README, a keyless note) declares none.
"""

from __future__ import annotations

from kb.io.answering.memory import Memory
from kb.io.notes.safe_read import note_text
from kb.pure.writing.checks import LINK_EXEMPT
from kb.pure.writing.graph import Graph, Note, Written, build_written, fold_keys, written_links


def read_graph(memory: Memory) -> Graph:
    """The graph of every note in scope, reading one note at a time: a note's text is
    let go once its links are taken (`written_links`), and its header once its note is
    made (`OpenBase.each_header`)."""
    groups: list[list[tuple[Note, Written]]] = []
    folded: dict[str, str] = {}  # each key's folded form, one string for the whole fleet
    for b in memory.bases:
        snap = b.snapshot
        group: list[tuple[Note, Written]] = []
        for h in b.each_header():
            if h.bucket == "unreadable":
                continue
            text = note_text(snap, h.rel)
            if text is None:
                continue
            # an entry's keys are its header's (kb.io.answering.opened.entry_of)
            declared = fold_keys(h.keys, folded) if h.bucket == "entry" else ()
            note = Note(snap.name, h.rel, h.title, h.private, declared)
            group.append(
                (note, Written() if h.rel.startswith(LINK_EXEMPT) else written_links(text))
            )
        groups.append(group)
    return build_written(groups)
