"""Reading an open Memory's notes for kb.pure.writing.graph: every file discovered in scope, once.

Only files the Memory discovered are read, so the private layer is absent without --all
(nothing here lists a folder). A file that is not UTF-8 text, or vanished since the walk,
is no note. Keys come from the Memory's keyword entries: a note that is not an entry (a
map, a README, a keyless note) declares none.
"""

from __future__ import annotations

from kb.io.answering.memory import Memory
from kb.io.notes.safe_read import note_text
from kb.pure.writing.graph import Graph, Note, build, fold_keys


def read_graph(memory: Memory) -> Graph:
    keys = {(e.base, e.rel): e.keywords for e in memory.entries}
    groups: list[list[tuple[Note, str]]] = []
    for b in memory.bases:
        snap = b.snapshot
        group: list[tuple[Note, str]] = []
        for h in b.headers:
            if h.bucket == "unreadable":
                continue
            text = note_text(snap, h.rel)
            if text is None:
                continue
            declared = fold_keys(keys.get((snap.name, h.rel), ()))
            group.append((Note(snap.name, h.rel, h.title, h.private, declared), text))
        groups.append(group)
    return build(groups)
