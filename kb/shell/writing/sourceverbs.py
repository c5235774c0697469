"""`kb source add` and `kb sources` (workflow-verbs.md §5): typed input in, Outcome out.

Everything decided here is decided by kb.pure.writing.sources (checks, rendering, CSL); the disk
work is kb.io.writing.sources. `kb sources` reads the record files themselves, never the index, so
an export is never an export of a stale cache.
"""

from __future__ import annotations

from kb.io.writing.sources import Added, add_source, gather, joined
from kb.pure.notes.plural import counted
from kb.pure.render.jsonout import dumps
from kb.pure.writing.sources import Draft, Record, bibliography_line, clean_value, csl_item
from kb.shell.cli.inputs import SourceInput, SourcesInput
from kb.shell.cli.outcome import Outcome

ONLY_ADD = "kb: the only source verb is `add`"


def _draft(inp: SourceInput) -> Draft:
    authors = tuple(a for a in (clean_value(v) for v in inp.author) if a is not None)
    return Draft(
        type=clean_value(inp.type),
        title=clean_value(inp.title),
        retrieved_on=clean_value(inp.retrieved_on),
        retrieval_status=clean_value(inp.retrieval_status),
        authors=authors,
        year=clean_value(inp.year),
        container=clean_value(inp.container),
        volume=clean_value(inp.volume),
        pages=clean_value(inp.pages),
        publisher=clean_value(inp.publisher),
        url=clean_value(inp.url),
        doi=clean_value(inp.doi),
        isbn=clean_value(inp.isbn),
        lang=clean_value(inp.lang),
        replaces=clean_value(inp.replaces),
        note=clean_value(inp.note),
    )


def source(inp: SourceInput) -> Outcome:
    if inp.action != "add":
        from kb.shell.cli.table import usage_of

        return Outcome(stdout=usage_of("source"), stderr=f"{ONLY_ADD}\n\n", code=2)
    at_root = fleet_root_refusal(inp.path)
    if at_root is not None:
        return Outcome(stderr=f"kb: {at_root}\n", code=2)
    result = add_source(inp.path, _draft(inp))
    if not isinstance(result, Added):
        return Outcome(stderr=f"kb: {result.message}\n", code=result.code)
    key = result.record.key
    return Outcome(
        stdout=(
            f"wrote {result.shown}\n"
            "\n"
            f"Cite it as [src:{key}], and carry one bibliography line:\n"
            f"- [src:{key}] {bibliography_line(result.record)}\n"
        )
    )


def fleet_root_refusal(path: str) -> str | None:
    """Why `path` cannot take a source record when it is a fleet root rather than a base:
    `sources/` made there would belong to no base, so no `kb sources` or `kb check` would
    ever read it. None for anything else (a base, or a path add_source words itself)."""
    from pathlib import Path

    from kb.io.notes.walk import expand_roots, looks_like_a_base, shown

    root = Path(path)
    if looks_like_a_base(root) or not ((root / "fleet").is_dir() or (root / "fleet.txt").is_file()):
        return None
    bases = [b for b in expand_roots([path]) if b != path]
    example = bases[0] if bases else joined(path, "fleet/<agent>")
    return (
        f"{shown(path)} is a fleet root, not a base, and a source record belongs to one base: "
        f"name it, as in `kb source add {shown(example)} ...` (`kb fleet` lists the bases)"
    )


def sources(inp: SourcesInput) -> Outcome:
    bases = gather(list(inp.paths) or ["."], inp.all)
    stderr: list[str] = []
    failed = False
    records: list[Record] = []
    for b in bases:
        if b.missing is not None:
            stderr.append(f"kb: {b.missing}\n")
            failed = True
        for display, problem in b.broken:
            stderr.append(f"kb: {joined(b.given, display)}: {problem}\n")
            failed = True
        records.extend(b.records)
    if inp.json:
        stdout = dumps([csl_item(r) for r in records]) + "\n"
    elif not records:
        stdout = "no source records\n"
    else:
        lines = [f"[src:{r.key}] {bibliography_line(r)}" for r in records]
        lines += ["", f"{counted(len(records), 'source')} in {counted(len(bases), 'base')}"]
        stdout = "\n".join(lines) + "\n"
    return Outcome(stdout=stdout, stderr="".join(stderr), code=1 if failed else 0)
