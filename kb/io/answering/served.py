"""Reading the text of files an open Memory already put in scope: the served files for
`kb route --context`, and the listed files' front matter for `kb list --where`/`--sort`.

No decisions here: which files are in scope is the Memory's (the private layer included),
and what to do with their text is kb.pure.answering.context's and kb.pure.fleet.where's. A file that
can no longer be read as UTF-8 (deleted or changed since the walk) is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from kb.io.answering.memory import Memory
from kb.io.notes.safe_read import note_text
from kb.io.notes.walk import BaseSnapshot
from kb.pure.answering.context import Served
from kb.pure.answering.fusion import Found
from kb.pure.fleet.listing import Facets, Row
from kb.pure.fleet.where import Condition, holds_all, needs_front_matter, sort_rows
from kb.pure.notes.frontmatter import parse
from kb.pure.notes.header import first_heading


def _roots(memory: Memory) -> dict[tuple[str, str], BaseSnapshot]:
    """(base name, path) → the walk of the first open base holding that file in scope."""
    roots: dict[tuple[str, str], BaseSnapshot] = {}
    for b in memory.bases:
        for rel in b.scan.lights.rels:  # the paths alone: no full header is decoded for them
            roots.setdefault((b.snapshot.name, rel), b.snapshot)
    return roots


def _text(roots: dict[tuple[str, str], BaseSnapshot], base: str, path: str) -> str | None:
    """The file's text, read through kb.io.notes.safe_read against the walk that found it."""
    snap = roots.get((base, path))
    return note_text(snap, path) if snap is not None else None


def served(memory: Memory, found: Sequence[Found]) -> list[Served]:
    roots = _roots(memory)
    out: list[Served] = []
    for f in found:
        text = _text(roots, f.base, f.path)
        if text is None:
            continue
        title = first_heading(text) or f.title
        out.append(Served(f"{f.base}/{f.path}", title, f.layer == "short", text))
    return out


def listed(
    memory: Memory, facets: Facets, where: Sequence[Condition] = (), sort: str | None = None
) -> list[Row]:
    """`Memory.list` narrowed by front-matter conditions and sorted, as `kb list` shows it."""
    rows = memory.list(facets)
    if not needs_front_matter(where, sort):
        return sort_rows(rows, sort, None) if sort else rows
    roots = _roots(memory)
    fronts = [parse(_text(roots, r.base, r.path) or "") for r in rows]
    kept = [(r, f) for r, f in zip(rows, fronts, strict=True) if holds_all(f, where)]
    rows = [r for r, _ in kept]
    return sort_rows(rows, sort, [f for _, f in kept]) if sort else rows
