"""How `kb links` and `kb graph` print: terminal text, JSON, Mermaid and Graphviz DOT.

Rules of this module:
- Every output is a function of its value alone and lists things in the value's (sorted)
  order, so the same fleet always prints the same bytes.
- Mermaid and DOT never use a note's path or a key as an identifier: notes are `n0, n1, ...`
  and keys `k0, k1, ...` in view order, and the text a person reads is a quoted label.
  Mermaid labels write `"`, `#`, `<`, `>`, `&` and the backtick as `#<code>;` entities; DOT
  labels escape `\\` and `"`. Control characters become spaces in both.
- JSON is kb's compact writer (kb.pure.render.jsonout); ids are `note:<base>/<path>` and
  `key:<key>`, so a note and a key can never share one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kb.pure.render.jsonout import dumps
from kb.pure.writing.graph import Direction, Note, Step, View

FORMATS = ("mermaid", "dot", "json")
_HEADS = {"out": "Links out of", "in": "Links into", "both": "Links into and out of"}
_ARROWS = {"out": "->", "in": "<-"}
_MERMAID_ESCAPED = frozenset('"#<>&`')


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _via(kinds: Sequence[str]) -> str:
    return "+".join(kinds)


# -- kb links -----------------------------------------------------------------------------


def links_text(
    start: Note,
    direction: Direction,
    depth: int,
    limit: int,
    steps: Sequence[Step],
    include_private: bool,
) -> str:
    lines = [f"{_HEADS[direction]} {start.id}, up to {_plural(depth, 'hop')}:", ""]
    shown = steps[:limit]
    for s in shown:
        row = f"{s.depth}  {_ARROWS[s.direction]}  {s.note}  {_via(s.via)}"
        lines.append(row if s.depth == 1 else f"{row}  (from {s.parent})")
    if not steps:
        lines.append("(none)")
    lines.append("")
    summary = f"{_plural(len(steps), 'note')} reached"
    if len(shown) < len(steps):
        summary += f"; the first {len(shown)} shown. Raise --limit to see the rest"
    lines.append(summary)
    if not include_private:
        lines.append("  the private layer is not walked. --all includes it")
    return "\n".join(lines) + "\n"


def _split(note_id: str) -> tuple[str, str]:
    base, _, rel = note_id.partition("/")
    return base, rel


def links_json(
    start: Note, direction: Direction, depth: int, limit: int, steps: Sequence[Step]
) -> str:
    results = []
    for s in steps[:limit]:
        base, path = _split(s.note)
        results.append(
            {
                "base": base,
                "path": path,
                "depth": s.depth,
                "direction": s.direction,
                "from": s.parent,
                "via": list(s.via),
            }
        )
    payload: dict[str, Any] = {
        "note": start.id,
        "direction": direction,
        "depth": depth,
        "limit": limit,
        "total": len(steps),
        "results": results,
    }
    return dumps(payload) + "\n"


# -- kb graph -----------------------------------------------------------------------------


def _ids(view: View) -> tuple[dict[str, str], dict[str, str]]:
    notes = {n.id: f"n{i}" for i, n in enumerate(view.notes)}
    keys = {k.key: f"k{i}" for i, k in enumerate(view.keys)}
    return notes, keys


def _omitted(view: View) -> str | None:
    if not (view.omitted_notes or view.omitted_keys):
        return None
    return (
        f"{_plural(view.omitted_notes, 'note')} and {_plural(view.omitted_keys, 'key')} "
        "not shown: raise --limit"
    )


def _mermaid_label(text: str) -> str:
    out = []
    for ch in text:
        if ord(ch) < 0x20 or ch == "\x7f":
            out.append(" ")
        elif ch in _MERMAID_ESCAPED:
            out.append(f"#{ord(ch)};")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _dot_label(text: str) -> str:
    out = []
    for ch in text:
        if ord(ch) < 0x20 or ch == "\x7f":
            out.append(" ")
        elif ch in '\\"':
            out.append("\\" + ch)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def mermaid(view: View) -> str:
    note_ids, key_ids = _ids(view)
    lines = ["flowchart LR"]
    if view.focus:
        lines.append(f"  %% focus: {view.focus.replace(chr(10), ' ')}")
    if not view.notes:
        lines.append("  %% no notes in view")
    lines += [f"  {note_ids[n.id]}[{_mermaid_label(n.id)}]" for n in view.notes]
    lines += [f"  {key_ids[k.key]}([{_mermaid_label(k.key)}])" for k in view.keys]
    lines += [f"  {note_ids[e.source]} --> {note_ids[e.target]}" for e in view.edges]
    lines += [f"  {note_ids[n]} -.- {key_ids[k.key]}" for k in view.keys for n in k.notes]
    if view.keys:
        lines.append("  classDef key fill:#eef,stroke:#88a")
        lines.append("  class " + ",".join(key_ids[k.key] for k in view.keys) + " key")
    private = [note_ids[n.id] for n in view.notes if n.private]
    if private:
        lines.append("  classDef private stroke-dasharray:4 2")
        lines.append("  class " + ",".join(private) + " private")
    omitted = _omitted(view)
    if omitted:
        lines.append(f"  %% {omitted}")
    return "\n".join(lines) + "\n"


def dot(view: View) -> str:
    note_ids, key_ids = _ids(view)
    lines = ["digraph kb {", "  rankdir=LR;", "  node [shape=box];"]
    if view.focus:
        lines.append(f"  // focus: {view.focus.replace(chr(10), ' ')}")
    for n in view.notes:
        style = ", style=dashed" if n.private else ""
        lines.append(f"  {note_ids[n.id]} [label={_dot_label(n.id)}{style}];")
    for k in view.keys:
        lines.append(f"  {key_ids[k.key]} [label={_dot_label(k.key)}, shape=ellipse];")
    lines += [f"  {note_ids[e.source]} -> {note_ids[e.target]};" for e in view.edges]
    lines += [
        f"  {note_ids[n]} -> {key_ids[k.key]} [dir=none, style=dashed];"
        for k in view.keys
        for n in k.notes
    ]
    omitted = _omitted(view)
    if omitted:
        lines.append(f"  // {omitted}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def graph_json(view: View) -> str:
    nodes: list[dict[str, Any]] = [
        {
            "id": f"note:{n.id}",
            "kind": "note",
            "base": n.base,
            "path": n.rel,
            "title": n.title,
            "private": n.private,
        }
        for n in view.notes
    ]
    nodes += [
        {"id": f"key:{k.key}", "kind": "key", "key": k.key, "notes": len(k.notes)}
        for k in view.keys
    ]
    edges: list[dict[str, Any]] = [
        {
            "source": f"note:{e.source}",
            "target": f"note:{e.target}",
            "kind": "link",
            "via": list(e.via),
        }
        for e in view.edges
    ]
    edges += [
        {"source": f"note:{n}", "target": f"key:{k.key}", "kind": "key", "via": []}
        for k in view.keys
        for n in k.notes
    ]
    payload = {
        "focus": view.focus,
        "nodes": nodes,
        "edges": edges,
        "omitted": {"notes": view.omitted_notes, "keys": view.omitted_keys},
    }
    return dumps(payload) + "\n"


RENDERERS = {"mermaid": mermaid, "dot": dot, "json": graph_json}
