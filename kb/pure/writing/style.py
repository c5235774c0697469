"""House style shared by `kb check` (W03) and `kb write` (which warns about what W03 would
find, and refuses it in a fleet that opted in).

Rules of this module:
- The first em dash (U+2014) or en dash (U+2013) on a line is one finding for that line.
- A bibliography line (`- [src:KEY] ...` or `* [src:KEY] ...`) is exempt: it reproduces a
  record, and the record's title may carry a dash of its own.
- A fleet chooses its house style in fleet.txt: `style = no-dashes` (comma separated when
  there are more) makes `kb write` refuse a note with a dash. Without it a dash is a
  warning: the rule came from the original project's own fleet and is not every writer's.
"""

from __future__ import annotations

from typing import Literal

from kb.pure.notes.header import lines_of

Dash = Literal["em", "en"]
EM_DASH = "\u2014"
EN_DASH = "\u2013"

STYLE_KEY = "style"  # the fleet.txt key
NO_DASHES = "no-dashes"
STYLES = (NO_DASHES,)


def style_rules(values: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The house-style rules `style =` lines name, and the names kb does not know (for a
    warning: a misspelt rule must not pass for one that holds)."""
    named = [v.strip().lower() for value in values for v in value.split(",") if v.strip()]
    known = frozenset(n for n in named if n in STYLES)
    unknown = tuple(dict.fromkeys(n for n in named if n not in STYLES))
    return known, unknown


def bibliography_entry(line: str) -> tuple[str, str] | None:
    """(key, rendering) when `line` is a bibliography line, else None."""
    body = line.lstrip()
    if not (body.startswith("- ") or body.startswith("* ")):
        return None
    rest = body[2:]
    if not rest.startswith("[src:"):
        return None
    key, close, rendering = rest[len("[src:") :].partition("]")
    if not close:
        return None
    return key, rendering.strip()


def dash_findings(text: str) -> list[tuple[int, Dash]]:
    """(1-based line, which dash) for every non-bibliography line carrying a dash."""
    out: list[tuple[int, Dash]] = []
    for n, line in enumerate(lines_of(text), 1):
        if bibliography_entry(line) is not None:
            continue
        em, en = line.find(EM_DASH), line.find(EN_DASH)
        if em >= 0 and (en < 0 or em < en):
            out.append((n, "em"))
        elif en >= 0:
            out.append((n, "en"))
    return out
