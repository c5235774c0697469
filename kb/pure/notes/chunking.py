"""Cutting a note into the chunks the full-text index stores.

Rules of this module:
- Front matter is skipped. Headings (outside fences) open a new chunk and are recorded as
  the chunk's heading path (`Title > Section > Sub`), not as text.
- Keyword lines never reach the text index: any line containing `Search for:`/`Buscar por:`
  and every line under a `## Search for` section. Keys are the keyword scorer's evidence;
  letting them into the text side would make the two scorers agree by construction.
- A section longer than 1,800 characters (about 450 tokens of prose) is cut into windows
  that prefer a paragraph break past the first third, overlapping by 300 characters so a
  sentence on the cut is whole in one of them.
"""

from __future__ import annotations

from attrs import frozen

from kb.pure.notes.header import body_start, lines_of

MAX_CHARS = 1800
OVERLAP_CHARS = 300
MIN_BREAK_BYTES = MAX_CHARS // 3


@frozen
class Chunk:
    heading_path: str
    text: str


def windows(body: str) -> list[str]:
    if len(body) <= MAX_CHARS:
        return [body]
    out: list[str] = []
    start = 0
    n = len(body)
    while start < n:
        hard_end = min(start + MAX_CHARS, n)
        end = hard_end
        if hard_end < n:
            span = body[start:hard_end]
            i = span.rfind("\n\n")
            if i != -1 and len(span[:i].encode()) > MIN_BREAK_BYTES:
                end = start + i
        out.append(body[start:end].strip())
        if end >= n:
            break
        # The next window starts one overlap before this one's end; a window shorter than
        # the overlap (a break just past a third of a span of 3-byte characters) is not
        # overlapped, or each window would move on by one character.
        start = end - OVERLAP_CHARS if end - OVERLAP_CHARS > start else end
    return [w for w in out if w]


def _heading(line: str) -> tuple[int, str] | None:
    level = len(line) - len(line.lstrip("#"))
    if level == 0 or level > 6:
        return None
    rest = line[level:]
    if not rest.startswith(" "):
        return None
    return level, rest.strip()


def chunk(text: str) -> list[Chunk]:
    lines = lines_of(text)
    i = body_start(lines)
    out: list[Chunk] = []
    stack: list[tuple[int, str]] = []
    buffer: list[str] = []
    in_fence = False

    def flush() -> None:
        body = "\n".join(buffer).strip()
        buffer.clear()
        if body:
            path = " > ".join(title for _, title in stack)
            out.extend(Chunk(path, w) for w in windows(body))

    # Whether the innermost section is a `## Search for` list, decided when a heading
    # changes it rather than on every line (each line's checks below are the cheap ones
    # first: this loop was a sixth of a cold `kb index`).
    in_keys = False
    for line in lines[i:]:
        if ("```" in line or "~~~" in line) and line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if not in_fence and line[:1] == "#":
            heading = _heading(line)
            if heading is not None:
                flush()
                level, title = heading
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, title))
                in_keys = title.lower().startswith(("search for", "buscar por"))
                continue
        if in_keys or "Search for:" in line or "Buscar por:" in line:
            continue
        buffer.append(line)
    flush()
    return out
