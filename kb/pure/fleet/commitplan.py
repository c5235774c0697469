"""`kb commit`: which of the committed paths were asked for, and what was left dirty.

Rules of this module:
- There is no "everything": the caller names every path.
- A landed file counts as asked for when it equals an asked path or sits under one
  (trailing `/` ignored). Anything else landing means another session's work was swept in.
- `git status --porcelain -z` entries are `XY path`; entries of three bytes or fewer carry
  no path.
"""

from __future__ import annotations

from collections.abc import Sequence


def dirty_paths(porcelain_z: str) -> list[str]:
    return [entry[3:] for entry in porcelain_z.split("\0") if len(entry) > 3]


def unasked(landed: Sequence[str], asked: Sequence[str]) -> list[str]:
    wanted = [a.rstrip("/") for a in asked]
    return [f for f in landed if not any(f == a or f.startswith(a + "/") for a in wanted)]


def left_alone(before: Sequence[str], after: Sequence[str]) -> list[str]:
    still = set(after)
    return [p for p in before if p in still]


def report(sha: str, landed: Sequence[str], untouched: Sequence[str]) -> str:
    lines = [f"committed {sha}", *(f"  {f}" for f in landed), ""]
    if untouched:
        lines.append(f"left untouched, still dirty ({len(untouched)}):")
        lines.extend(f"  {p}" for p in untouched)
    else:
        lines.append("nothing else was dirty in this repository.")
    return "\n".join(lines) + "\n"
