"""The reading room's JSON: every `/api/...` response body as plain data, shaped from values.

Rules of this module (workflow-verbs.md §18, with our additions after the spec's keys):
- Key order is the order written here; scores and ratios pass through `round6`; an infinite
  margin is `null` (the JSON writer's rule for non-finite numbers).
- `/api/route`: a blank question is `{"question","verdict":"empty"}` and nothing else.
  Otherwise the verdict, and `found`: the fused list the verdict judged, the same files in
  the same order as `kb route --json`'s results (decision 0029). The spec's keys (`why`
  joined " + ", `matched` joined ", ", `heading` and `excerpt` only when the file has a
  passage), then ours: each file's memory layer and staleness, the expanded terms, the
  keyword ranking (what the page's bar chart draws against the floor; not the list), the
  suggestions (only for `nothing`) and the shortfall sentences (for anything short of
  `hit`).
- `/api/stacks`: one shelf per base, one book per discovered file. Wikilinks resolve by the
  linter's rule (kb.pure.writing.checks `stems_of`: the exact stem, inside the base, never across
  a base edge), so the page and `kb check` cannot disagree about what is broken. Links in
  `templates/` are placeholders and count for nothing; the map's own links are not
  backlinks (the map links to everything). Ribbons name what a reader should know at a
  glance: `map`, `short memory`, `private`, `no keys` (no `Search for:` line, so no
  question reaches it), `unreadable` (not UTF-8 text).
- `/api/blocks`: per base with a blocks.txt, each block's bytes sent, estimated tokens and
  files, the running resident total and the worst-case invalidation cost per resident
  block (kb.pure.sessions.blocks decides all of it). Files withheld because they are private are
  counted, never named.
- `/api/check`: the findings `kb check` would print for the same bases and the same scope,
  one object per finding, in the report's order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attrs import frozen

from kb.pure.answering.election import AgentChoice
from kb.pure.answering.fusion import Found
from kb.pure.answering.keyword import KeywordHit
from kb.pure.answering.verdict import Confidence
from kb.pure.notes.header import first_heading
from kb.pure.notes.links import LINK_EXEMPT, citations, stems_of, wikilinks
from kb.pure.notes.paths import folder_of, layer_of, stem_of
from kb.pure.render.jsonout import round6
from kb.pure.sessions.blocks import Block, invalidation_costs
from kb.pure.writing.checks import Finding

Json = dict[str, Any]
KEYWORDS_CHARTED = 8  # bars in the page's chart: enough to see the cliff below the top

NOT_SERVED = "not a file this fleet serves"
NO_SUCH_PAGE = "no such page"
EMPTY_MESSAGE = "an empty message routes nowhere"


# -- /api/fleet ----------------------------------------------------------------------------


@frozen
class AgentCard:
    name: str  # the base's name, as every other route names it
    card: str  # the name its agent.txt gives (or the folder name, capitalised)
    role: str | None
    routable: bool
    files: int


def fleet_payload(
    fleet: str,
    role: str | None,
    agents: Sequence[AgentCard],
    entries: int,
    aliases: int,
    private: bool,
    chat: bool,
) -> Json:
    return {
        "agents": [
            {
                "name": a.name,
                "role": a.role,
                "routable": a.routable,
                "files": a.files,
                "card": a.card,
            }
            for a in agents
        ],
        "entries": entries,
        "aliases": aliases,
        "private": private,
        "fleet": fleet,
        "role": role,
        "chat": chat,
    }


# -- /api/route ----------------------------------------------------------------------------


def empty_route(question: str) -> Json:
    return {"question": question, "verdict": "empty"}


def _margin(x: float) -> float:
    return round6(x)  # +inf stays inf and is written as null


def agent_json(a: AgentChoice) -> Json:
    return {
        "name": a.agent,
        "score": round6(a.score),
        "files": a.files,
        "contenders": a.contenders,
        "totals": [{"name": n, "score": round6(s)} for n, s in a.totals],
    }


def found_json(f: Found, stale: bool, title: str = "") -> Json:
    out: Json = {
        "base": f.base,
        "rel": f.path,
        "title": f.title or title,
        "fused": round6(f.score),
        "keyword": round6(f.keyword_score),
        "why": " + ".join(f.why),
        "matched": ", ".join(f.matched),
    }
    if f.passages:
        out["heading"] = f.passages[0].heading_path
        out["excerpt"] = f.passages[0].excerpt
    out["memory"] = f.layer
    out["stale"] = stale
    return out


def route_payload(
    question: str,
    confidence: Confidence,
    agent: AgentChoice | None,
    found: Sequence[Found],
    changed: frozenset[tuple[str, str]],
    terms: Sequence[str],
    keyword_hits: Sequence[KeywordHit],
    suggestions: Sequence[str],
    shortfall: Sequence[str],
    titles: Mapping[tuple[str, str], str] | None = None,
) -> Json:
    """`titles` names the files only the text scorer found (the keyword side carries its
    own): (base, rel) -> the note's first heading."""
    if not question.strip():
        return empty_route(question)
    out: Json = {
        "question": question,
        "verdict": confidence.verdict,
        "score": round6(confidence.keyword_score),
        "floor": round6(confidence.floor),
        "coverage": round6(confidence.coverage),
        "margin": _margin(confidence.margin),
    }
    if agent is not None:
        out["agent"] = agent_json(agent)
    known = titles or {}
    out["found"] = [
        found_json(f, (f.base, f.path) in changed, known.get((f.base, f.path), "")) for f in found
    ]
    out["terms"] = list(terms)
    out["keywords"] = [
        {
            "base": h.entry.base,
            "rel": h.entry.rel,
            "score": round6(h.score),
            "matched": ", ".join(h.matched),
        }
        for h in keyword_hits[:KEYWORDS_CHARTED]
    ]
    out["suggestions"] = list(suggestions) if confidence.verdict == "nothing" else []
    out["shortfall"] = list(shortfall) if confidence.verdict != "hit" else []
    return out


# -- /api/stacks ---------------------------------------------------------------------------


@frozen
class ShelfFacts:
    """One base as the stacks see it: the discovered files and the texts that could be read."""

    base: str
    card: str
    role: str | None
    routable: bool
    map_rel: str | None
    files: tuple[tuple[str, int, bool], ...]  # (rel, bytes, private), discovery order
    texts: Mapping[str, str]  # rel -> text, for every file that reads as UTF-8
    unreachable: frozenset[str]  # rels with no `Search for:` line that are not exempt


@frozen
class Book:
    rel: str
    stem: str
    title: str
    bytes: int
    folder: str
    cites: tuple[str, ...]
    broken: tuple[str, ...]
    cited_by: tuple[str, ...]
    ribbons: tuple[str, ...]


def _distinct(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def books_of(shelf: ShelfFacts) -> list[Book]:
    by_stem = stems_of(rel for rel, _, _ in shelf.files)
    links: dict[str, list[str]] = {}  # rel -> resolved targets
    broken: dict[str, list[str]] = {}
    for rel, body in shelf.texts.items():
        if rel.startswith(LINK_EXEMPT):
            continue
        for _, target in wikilinks(body):
            found = by_stem.get(target)
            if found:
                links.setdefault(rel, []).append(found[0])
            else:
                broken.setdefault(rel, []).append(target)
    backlinks: dict[str, set[str]] = {}
    for source, targets in links.items():
        if source == shelf.map_rel:
            continue
        for target in targets:
            if target != source:
                backlinks.setdefault(target, set()).add(source)
    books: list[Book] = []
    for rel, size, private in shelf.files:
        text = shelf.texts.get(rel)
        ribbons: list[str] = []
        if rel == shelf.map_rel:
            ribbons.append("map")
        if layer_of(rel) == "short":
            ribbons.append("short memory")
        if private:
            ribbons.append("private")
        if rel in shelf.unreachable:
            ribbons.append("no keys")
        if text is None:
            ribbons.append("unreadable")
        cites = [t.strip() for _, t in citations(text)] if text is not None else []
        books.append(
            Book(
                rel=rel,
                stem=stem_of(rel),
                title=(first_heading(text) if text is not None else "") or stem_of(rel),
                bytes=size,
                folder=folder_of(rel),
                cites=_distinct([c for c in cites if c]),
                broken=_distinct(broken.get(rel, [])),
                cited_by=tuple(sorted(backlinks.get(rel, ()))),
                ribbons=tuple(ribbons),
            )
        )
    return books


def book_json(b: Book) -> Json:
    return {
        "rel": b.rel,
        "stem": b.stem,
        "title": b.title,
        "bytes": b.bytes,
        "folder": b.folder,
        "cites": list(b.cites),
        "broken": list(b.broken),
        "cited_by": list(b.cited_by),
        "ribbons": list(b.ribbons),
    }


def stacks_payload(
    shelves: Sequence[ShelfFacts], books: Sequence[Sequence[Book]] | None = None
) -> Json:
    """`books`, when the caller already has them, are `books_of` each shelf, in order."""
    shelved = books if books is not None else [books_of(s) for s in shelves]
    return {
        "shelves": [
            {
                "base": s.base,
                "card": s.card,
                "role": s.role,
                "routable": s.routable,
                "map": s.map_rel,
                "books": [book_json(b) for b in bs],
            }
            for s, bs in zip(shelves, shelved, strict=True)
        ]
    }


# -- /api/file -----------------------------------------------------------------------------


def file_payload(
    base: str, rel: str, text: str, html: str, private: bool, book: Book | None
) -> Json:
    return {
        "base": base,
        "rel": rel,
        "title": (book.title if book else "") or first_heading(text) or stem_of(rel),
        "bytes": len(text.encode("utf-8")),
        "memory": layer_of(rel),
        "private": private,
        "ribbons": list(book.ribbons) if book else [],
        "cites": list(book.cites) if book else [],
        "broken": list(book.broken) if book else [],
        "cited_by": list(book.cited_by) if book else [],
        "html": html,
        "text": text,
    }


# -- /api/blocks ---------------------------------------------------------------------------


@frozen
class BlocksFacts:
    """One base's blocks.txt as read: its blocks, or why it could not be read."""

    base: str
    blocks: tuple[Block, ...]
    withheld: int  # listed files left unread because they are private and --all is off
    error: str | None = None


def blocks_payload(agents: Sequence[BlocksFacts]) -> Json:
    out: list[Json] = []
    for a in agents:
        cumulative = 0
        rows: list[Json] = []
        for b in a.blocks:
            if b.resident:
                cumulative += b.tokens
            rows.append(
                {
                    "name": b.name,
                    "mode": b.mode,
                    "bytes": b.bytes,
                    "files": list(b.files),
                    "missing": list(b.missing),
                    "tokens": b.tokens,
                    "file_bytes": b.file_bytes,
                    "cumulative": cumulative if b.resident else None,
                }
            )
        out.append(
            {
                "base": a.base,
                "blocks": rows,
                "costs": [{"name": n, "tokens": t} for n, t in invalidation_costs(a.blocks)],
                "resident": cumulative,
                "withheld": a.withheld,
                "error": a.error,
            }
        )
    return {"agents": out}


# -- /api/check ----------------------------------------------------------------------------


def check_payload(
    per_base: Sequence[tuple[str, Sequence[Finding]]],
    skipped: Sequence[tuple[str, str, str]],
) -> Json:
    findings = [
        {
            "base": base,
            "level": f.level,
            "code": f.code,
            "file": f.file,
            "line": f.line,
            "message": f.message,
        }
        for base, found in per_base
        for f in found
    ]
    return {
        "findings": findings,
        "errors": sum(1 for f in findings if f["level"] == "error"),
        "warnings": sum(1 for f in findings if f["level"] == "warning"),
        "skipped": [{"base": b, "file": r, "reason": why} for b, r, why in skipped],
    }


# -- errors --------------------------------------------------------------------------------


def error_payload(message: str) -> Json:
    return {"error": message}
