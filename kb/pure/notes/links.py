"""What a note points at: its `[[wikilinks]]` and its `[src:KEY]` citation tokens, by line.

Rules of this module:
- Lines are `str.lines()` lines, numbered from 1.
- A line whose left-trimmed text starts with three backticks or three tildes toggles "in a
  fence" and is itself skipped; lines inside a fence are skipped. Any fence marker toggles
  (an opening ``` is closed by a ~~~ too): markers are not matched, only counted.
- The rest of a line is split on the backtick; only the even-indexed pieces (outside inline
  code) are scanned. A base that documents its own link convention writes `[[name]]` in
  backticks, and those are examples, not references.
- Wikilink: each `[[` with a later `]]` in the same piece yields the text between; the target
  is the part before the first `|`, then before the first `#`, trimmed; an empty target is
  dropped; scanning resumes after the `]]`. An unclosed `[[` yields nothing.
- Citation: each `[src:` with a later `]` in the same piece yields the raw text between
  (not trimmed); scanning resumes after the `]`. An unclosed `[src:` ends that piece.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator

from kb.pure.notes.header import lines_holding, lines_of
from kb.pure.notes.paths import stem_of

FENCES = ("```", "~~~")
# Links written under these folders are placeholders: neither checked (E01, W01) nor followed.
LINK_EXEMPT = ("templates/",)
CITE_OPEN = "[src:"


def outside_code(text: str) -> Iterator[tuple[int, list[str]]]:
    """(1-based line, the pieces of that line outside inline code) for every line outside a
    fence. Fence lines themselves yield nothing."""
    in_fence = False
    for n, line in enumerate(lines_of(text), 1):
        if line.lstrip().startswith(FENCES):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        yield n, line.split("`")[::2]


def links_in(piece: str) -> list[str]:
    """Wikilink targets in one piece of a line, `|alias` and `#anchor` removed."""
    out: list[str] = []
    at = 0
    while True:
        start = piece.find("[[", at)
        if start < 0:
            return out
        end = piece.find("]]", start + 2)
        if end < 0:
            return out
        target = piece[start + 2 : end].split("|", 1)[0].split("#", 1)[0].strip()
        if target:
            out.append(target)
        at = end + 2


def citations_in(piece: str) -> list[str]:
    """Raw citation tokens in one piece of a line."""
    out: list[str] = []
    at = 0
    while True:
        start = piece.find(CITE_OPEN, at)
        if start < 0:
            return out
        end = piece.find("]", start + len(CITE_OPEN))
        if end < 0:
            return out
        out.append(piece[start + len(CITE_OPEN) : end])
        at = end + 1


def marked(text: str, marker: str) -> list[tuple[int, list[str]]]:
    """What `outside_code` yields for the lines that hold `marker`, the others skipped: a
    piece of a line holds the marker only if the line does. Lines are picked and fences
    found by C's substring search, and a line's fence state is the number of fence lines
    before it; walking every line in Python was half of `kb check` at 10,000 notes."""
    picked = lines_holding(text, marker)
    if not picked:
        return []
    if "```" in text or "~~~" in text:
        lines = lines_of(text)
        fences = [
            n
            for n, line in enumerate(lines, 1)
            if ("```" in line or "~~~" in line) and line.lstrip().startswith(FENCES)
        ]
        # a fence line is skipped, and so is a line after an odd number of them
        fenced = set(fences)
        picked = [
            (n, line) for n, line in picked if n not in fenced and not bisect_left(fences, n) % 2
        ]
    return [(n, line.split("`")[::2]) for n, line in picked]


def wikilinks(text: str) -> list[tuple[int, str]]:
    """(line, target) for every wikilink outside code, in reading order."""
    if "[[" not in text:  # most notes link nothing: one C scan instead of every line
        return []
    return [(n, t) for n, pieces in marked(text, "[[") for p in pieces for t in links_in(p)]


def citations(text: str) -> list[tuple[int, str]]:
    """(line, raw token) for every citation outside code, in reading order."""
    if CITE_OPEN not in text:
        return []
    return [
        (n, t) for n, pieces in marked(text, CITE_OPEN) for p in pieces for t in citations_in(p)
    ]


def stems_of(rels: Iterable[str]) -> dict[str, list[str]]:
    """stem -> every rel answering to it, in discovery order (a wikilink names a stem)."""
    by_stem: dict[str, list[str]] = {}
    for rel in rels:
        by_stem.setdefault(stem_of(rel), []).append(rel)
    return by_stem
