"""Budgeted context: the served files cut down to what fits in a prompt.

Rules of this module:
- Every budget is counted in UTF-8 bytes, and every cut lands on a character boundary at or
  below its cap, so the output is always valid UTF-8.
- A file's *body* is its text after the front matter, without its title line (the block
  heading carries the title) and without its `Search for:` keyword lines (what a model is
  sent never includes them, as in `kb blocks`). Lines are otherwise kept verbatim.
- A body that fits the per-file budget is printed whole. A longer one is cut to the sections
  (split at markdown headings outside code fences) whose heading or text shares a word with
  the question's terms. Sections sharing more of its words are taken first, whole while they
  fit; the first that does not fit is cut short and ends the choice. What is taken is printed
  in document order, headings kept, with `…` on its own line wherever text was skipped. When
  no section shares a word, the sections are taken from the start.
- A cut line ends on its last whole word that fits (or character, for one long word); it is
  the only partial line an excerpt holds.
- A markdown table (a run of lines starting with `|`) is kept whole or dropped whole. Only a
  table larger than the whole budget is cut, and then only into whole rows from its start,
  its header rows included; a line starting with `|` is never cut.
- The total budget bounds everything printed (headings, labels, separators, newlines). The
  top hit is trimmed to fit it but never dropped: it keeps at least its heading and the first
  `TOP_FLOOR` bytes of its best-matching section (its mandatory minimum), even when the total
  is smaller.
  A lower hit is cut by the per-file budget only; if its block does not fit in what is left
  of the total, it is dropped and the next one is tried.
- Nothing is printed that is not a line, or the start of a line, of a served file, apart
  from the headings, the labels, `…` and the `---` separators this module adds.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from kb.pure.notes.header import SEARCH_LABELS, body_start, labelled, lines_of
from kb.pure.notes.tokens import normalise

DEFAULT_PER_FILE = 4000
DEFAULT_TOTAL = 8000
# The top hit's excerpt never shrinks below this many bytes (a few sentences), so a tiny
# total budget still hands the model something to read rather than a bare title.
TOP_FLOOR = 256
ELLIPSIS = "…"
SEPARATOR = "---"
SHORT_LABEL = "  [short memory: recent, not distilled, not yet in the library]"
# Blank lines around the rule: `---` right under a paragraph would make it a heading.
_JOINT = f"\n\n{SEPARATOR}\n\n"


@frozen
class Served:
    """One served file: its id (`base/path`), its title ("" when untitled), whether it is
    short memory (`inbox/`), and its text as read from disk."""

    id: str
    title: str
    short: bool
    text: str


@frozen
class Budget:
    per_file: int = DEFAULT_PER_FILE
    total: int = DEFAULT_TOTAL


@frozen
class Excerpt:
    id: str
    title: str  # the title, or the id when the file has none
    short: bool
    text: str
    truncated: bool


@frozen
class _Section:
    lines: tuple[str, ...]  # the heading line first, when the section has one


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def cut_bytes(text: str, cap: int) -> str:
    """The longest prefix of `text` that is at most `cap` bytes and ends on a character."""
    if cap <= 0:
        return ""
    return text.encode("utf-8")[:cap].decode("utf-8", "ignore")


def _size(lines: Sequence[str]) -> int:
    return nbytes("\n".join(lines))


def _is_heading(line: str) -> bool:
    level = len(line) - len(line.lstrip("#"))
    return 1 <= level <= 6 and line[level : level + 1] == " "


def _is_fence(line: str) -> bool:
    opener = line.lstrip()
    return opener.startswith("```") or opener.startswith("~~~")


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def body_lines(text: str) -> list[str]:
    """The body of a note, as lines (see the module rules)."""
    lines = lines_of(text)
    out: list[str] = []
    title_seen = False
    dropping_keys = False
    skip_blank = False
    for line in lines[body_start(lines) :]:
        stripped = line.strip()
        # A keyword line ending in `,` may wrap: a next line starting with a backtick is its.
        if (dropping_keys and stripped.startswith("`")) or labelled(
            stripped, SEARCH_LABELS
        ) is not None:
            dropping_keys = line.rstrip().endswith(",")
            skip_blank = True
            continue
        dropping_keys = False
        if not title_seen and stripped.startswith("# "):
            title_seen = skip_blank = True
            continue
        if skip_blank and not stripped and (not out or not out[-1].strip()):
            continue  # the blank line that framed a dropped line
        skip_blank = False
        out.append(line)
    return _trim_blank(out)


def _trim_blank(lines: Sequence[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return list(lines[start:end])


def _sections(lines: Sequence[str]) -> list[_Section]:
    out: list[list[str]] = [[]]
    in_fence = False
    for line in lines:
        if _is_fence(line):
            in_fence = not in_fence
        elif not in_fence and _is_heading(line) and out[-1]:
            out.append([])
        out[-1].append(line)
    return [_Section(tuple(_trim_blank(s))) for s in out if _trim_blank(s)]


def _units(lines: Sequence[str]) -> list[tuple[bool, list[str]]]:
    """Lines grouped into (is_table, lines): a table is a run of rows outside a fence."""
    out: list[tuple[bool, list[str]]] = []
    in_fence = False
    for line in lines:
        if _is_fence(line):
            in_fence = not in_fence
        table = not in_fence and _is_row(line)
        if table and out and out[-1][0]:
            out[-1][1].append(line)
        else:
            out.append((table, [line]))
    return out


def _header_rows(table: Sequence[str]) -> int:
    """1, or 2 when the second row is the `|---|` alignment row under the header."""
    if len(table) > 1 and set(table[1].strip()) <= set("|-: ") and "-" in table[1]:
        return 2
    return 1


def _cut_section(lines: Sequence[str], room: int, budget: int) -> list[str]:
    """The longest head of a section that fits `room` bytes, tables and rows kept whole."""
    taken: list[str] = []
    used = -1  # bytes of "\n".join(taken): every line costs its bytes plus one newline
    for table, unit in _units(lines):
        cost = sum(nbytes(line) + 1 for line in unit)
        if used + cost <= room:
            taken += unit
            used += cost
            continue
        if table:
            if cost - 1 > budget:  # it could never fit whole: its first rows, header kept
                rows: list[str] = []
                for row in unit:
                    if used + nbytes(row) + 1 > room:
                        break
                    rows.append(row)
                    used += nbytes(row) + 1
                if len(rows) > _header_rows(unit):
                    taken += rows
        elif not _is_row(unit[0]):
            piece = cut_bytes(unit[0], room - used - 1)
            if len(piece) < len(unit[0]) and " " in piece.strip():
                piece = piece[: piece.rstrip().rfind(" ")]  # end on a whole word when one fits
            if piece.strip():
                taken.append(piece.rstrip())
        break
    return _trim_blank(taken)


def _render(sections: Sequence[_Section], chosen: dict[int, list[str]], cut: int) -> list[str]:
    """The chosen sections in document order, `…` wherever text was skipped; `cut` is the
    index of the section that was cut short (-1 for none)."""
    out: list[str] = []
    last = -1
    for i in sorted(chosen):
        if i != last + 1 or (last >= 0 and last == cut):
            out.append(ELLIPSIS)
        elif out:
            out.append("")
        out += chosen[i]
        last = i
    if out and (last != len(sections) - 1 or last == cut):
        out.append(ELLIPSIS)
    return out


def excerpt(lines: Sequence[str], terms: Sequence[str], budget: int) -> tuple[str, bool]:
    """The excerpt of a body within `budget` bytes, and whether anything was left out."""
    whole = "\n".join(lines)
    if nbytes(whole) <= budget:
        return whole, False
    sections = _sections(lines)
    wanted = frozenset(terms)
    scores = [len(wanted.intersection(normalise("\n".join(s.lines)))) for s in sections]
    # Most question words first (document order among equals); printed in document order.
    order = sorted((i for i, n in enumerate(scores) if n), key=lambda i: -scores[i])
    chosen: dict[int, list[str]] = {}
    cut = -1
    for i in order or range(len(sections)):
        section = list(sections[i].lines)
        if _size(_render(sections, {**chosen, i: section}, -1)) <= budget:
            chosen[i] = section
            continue
        # The placeholder is one empty line: the cut's own lines replace it byte for byte.
        room = budget - _size(_render(sections, {**chosen, i: [""]}, i))
        part = _cut_section(section, room, budget)
        if len(part) > (1 if _is_heading(section[0]) else 0):  # more than a bare heading
            chosen[i], cut = part, i
            break
    return "\n".join(_render(sections, chosen, cut)), True


def heading(title: str, short: bool) -> str:
    return f"## {title}" + (SHORT_LABEL if short else "")


def _block(head: str, text: str) -> str:
    return f"{head}\n\n{text}" if text else head


def assemble(served: Sequence[Served], terms: Sequence[str], budget: Budget) -> list[Excerpt]:
    """Cut each served file to its excerpt and keep what fits the total (module rules)."""
    out: list[Excerpt] = []
    used = 0  # bytes of the text rendering so far, final newline included
    joint = nbytes(_JOINT)
    for doc in served:
        head = heading(doc.title or doc.id, doc.short)
        lines = body_lines(doc.text)
        if not out:
            floor = min(budget.per_file, TOP_FLOOR)
            room = min(budget.per_file, max(budget.total - nbytes(head) - 3, floor))
            text, truncated = excerpt(lines, terms, room)
            used = nbytes(_block(head, text)) + 1
        else:
            text, truncated = excerpt(lines, terms, budget.per_file)
            grown = used + joint + nbytes(_block(head, text))
            if grown > budget.total:
                continue
            used = grown
        out.append(Excerpt(doc.id, doc.title or doc.id, doc.short, text, truncated))
    return out


def mandatory_minimum(top: Served, budget: Budget) -> int:
    """The most bytes the output may take beyond the total: the top hit's floor."""
    return nbytes(heading(top.title or top.id, top.short)) + 3 + min(budget.per_file, TOP_FLOOR)


def render_text(excerpts: Sequence[Excerpt]) -> str:
    if not excerpts:
        return ""
    blocks = [_block(heading(e.title, e.short), e.text) for e in excerpts]
    return _JOINT.join(blocks) + "\n"


def render_json(excerpts: Sequence[Excerpt]) -> list[dict[str, object]]:
    return [
        {
            "id": e.id,
            "memory": "short" if e.short else "long",
            "text": e.text,
            "title": e.title,
            "truncated": e.truncated,
        }
        for e in excerpts
    ]
