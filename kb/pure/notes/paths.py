"""What a note's path says about it: orientation, exempt, species, memory layer.

Rules of this module:
- Orientation files (READMEs, maps, agent instructions) describe a base rather than answer
  questions: they never become keyword entries, even when they carry keys.
- Exempt files are allowed to have no `Search for:` line: orientation, deposits in
  `inbox/`, `records/`, and calculation logs. Any other keyless note is unreachable, which
  `kb index` and `kb check` (E02) report. One predicate serves both verbs.
- Species come from the first folder: tools, skills, or memory for everything else.
- Short memory is `inbox/` at any depth (case-sensitive); everything else is long memory.
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["memory", "skills", "tools"]
Layer = Literal["short", "long"]

MAP_NAMES = ("MAP.md", "INDEX.md", "MAPA.md")
ORIENTATION_NAMES = frozenset(
    {"readme.md", "what-goes-here.md", "moved.md", "map.md", "agents.md", "claude.md"}
)
_TOOLS = frozenset({"tools", "ferramentas"})
_SKILLS = frozenset({"skills", "habilidades", "protocols", "protocolos", "templates", "modelos"})
KINDS: tuple[Kind, ...] = ("memory", "skills", "tools")


def last_segment(rel: str) -> str:
    return rel.replace("\\", "/").rsplit("/", 1)[-1]


def is_orientation(map_rel: str | None, rel: str) -> bool:
    return last_segment(rel).lower() in ORIENTATION_NAMES or (
        map_rel is not None and rel == map_rel
    )


def _inside(lowered: str, folder: str) -> bool:
    return lowered.startswith(folder + "/") or ("/" + folder + "/") in lowered


def is_exempt(map_rel: str | None, rel: str) -> bool:
    lowered = rel.lower()
    return (
        is_orientation(map_rel, rel)
        or _inside(lowered, "inbox")
        or _inside(lowered, "records")
        or "calculation-log/" in lowered
    )


def kind_of(rel: str) -> Kind:
    first = rel.replace("\\", "/").split("/", 1)[0]
    if first in _TOOLS:
        return "tools"
    if first in _SKILLS:
        return "skills"
    return "memory"


def layer_of(path: str) -> Layer:
    p = path.replace("\\", "/")
    if p == "inbox" or p.startswith("inbox/") or "/inbox/" in p:
        return "short"
    return "long"


def folder_of(rel: str) -> str:
    head, sep, _ = rel.rpartition("/")
    return head if sep else ""


def stem_of(name: str) -> str:
    """File name without its last extension (`a.b.md` -> `a.b`)."""
    base = last_segment(name)
    head, dot, _ = base.rpartition(".")
    return head if dot and head else base
