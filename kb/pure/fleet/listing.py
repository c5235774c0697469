"""`kb list`: a filter over what is on disk, never a ranking.

Rules of this module:
- One row per markdown file in scope (maps, READMEs and inbox deposits included).
- Facets combine with AND; an omitted facet does not filter. kind, stage and provenance
  are checked against their legal sets before anything is listed, and a value outside the
  set is refused with a line naming the set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from attrs import frozen

from kb.pure.notes.names import printable

if TYPE_CHECKING:  # returns costs ~16 ms to import; only a facet check needs it at run time
    from returns.result import Result

from kb.pure.notes.paths import KINDS, Kind, Layer

PROVENANCES = ("human", "agent", "external")
STAGES = ("raw", "captured", "distilled", "derived")


@frozen
class Row:
    base: str
    path: str
    title: str
    kind: Kind
    layer: Layer
    folder: str
    provenance: str | None
    stage: str | None
    private: bool


@frozen
class Facets:
    base: str | None = None
    folder: str | None = None
    kind: str | None = None
    stage: str | None = None
    provenance: str | None = None


def _legal(flag: str, value: str | None, legal: Sequence[str]) -> Result[str | None, str]:
    from returns.result import Failure, Success

    if value is None or not value.strip():
        return Success(None)
    canonical = value.strip().lower()
    if canonical in legal:
        return Success(canonical)
    return Failure(f"{flag} {value} is not a value this facet has. Legal: {', '.join(legal)}")


def checked(facets: Facets) -> Result[Facets, str]:
    """Facets in canonical spelling, or the one-line refusal for the first illegal value."""
    from returns.result import Failure, Success

    kind = _legal("--kind", facets.kind, KINDS)
    stage = _legal("--stage", facets.stage, STAGES)
    prov = _legal("--provenance", facets.provenance, PROVENANCES)
    for result in (kind, stage, prov):
        if isinstance(result, Failure):
            return Failure(result.failure())
    base = facets.base.strip() if facets.base and facets.base.strip() else None
    folder = facets.folder.strip().rstrip("/") if facets.folder and facets.folder.strip() else None
    return Success(Facets(base, folder, kind.unwrap(), stage.unwrap(), prov.unwrap()))


def matches(row: Row, f: Facets) -> bool:
    if f.base is not None and row.base != f.base:
        return False
    if f.folder is not None and not (
        row.folder == f.folder or row.folder.startswith(f.folder + "/")
    ):
        return False
    if f.kind is not None and row.kind != f.kind:
        return False
    if f.stage is not None and (row.stage or "").lower() != f.stage:
        return False
    return not (f.provenance is not None and (row.provenance or "").lower() != f.provenance)


def row_line(row: Row) -> str:
    tags: list[str] = [row.kind, row.layer]
    if row.provenance and row.stage:
        tags.append(f"{row.provenance}/{row.stage}")
    elif row.provenance:
        tags.append(row.provenance)
    elif row.stage:
        tags.append(row.stage)
    if row.private:
        tags.append("private")
    line = f"{row.base}/{row.path}  [{', '.join(tags)}]"
    # A title is the file's own first heading: a CR or NUL in it must not break the row.
    return f"{line}  {printable(row.title)}" if row.title else line


def row_json(row: Row) -> dict[str, object]:
    return {
        "base": row.base,
        "folder": row.folder,
        "kind": row.kind,
        "layer": row.layer,
        "path": row.path,
        "private": row.private,
        "provenance": row.provenance,
        "stage": row.stage,
        "title": row.title,
    }
