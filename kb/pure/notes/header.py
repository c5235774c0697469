"""Reading a note's own header: its keys, its purpose, its title and its front matter.

Rules of this module:
- Only the area above the first `##` heading is scanned; a `# Title` line does not stop it.
- A label matches when the text before the first colon, stripped of `*`, `_` and spaces at
  both ends and lowercased, equals the label exactly. Bullets and quotes do not match, so
  prose that merely mentions "Search for:" never declares keys.
- The first non-empty `Search for:`/`Buscar por:` line wins; the first `Exists to:`/
  `Existe para:` line is the purpose. Only the labelled line itself is read.
- Front matter exists only when line one is `---` and a closing `---` follows; values are
  kept verbatim (not unquoted).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from attrs import frozen

SEARCH_LABELS = ("search for", "buscar por")
PURPOSE_LABELS = ("exists to", "existe para")


@frozen
class Header:
    keys: tuple[str, ...]
    purpose: str


# `kb check` reads one file's lines several times (its front matter twice, its links beside
# fences, its dashes): 12 us a split at 10,000 generated notes. The last few texts' lines
# are kept; a text is found again by identity first, so a hit costs no hashing once hashed.
# The readers that need only a few lines (the header, the lines holding a marker) find
# them by C's substring search and split nothing else.
_LINES_MEMO = 4


def _split_lines(text: str) -> tuple[str, ...]:
    if not text:
        return ()
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    if "\r" not in text:  # most notes: nothing to strip (the strip was 2/3 of lines_of)
        return tuple(parts)
    return tuple(p[:-1] if p.endswith("\r") else p for p in parts)


@lru_cache(maxsize=_LINES_MEMO)
def lines_of(text: str) -> tuple[str, ...]:
    """Rust `str::lines`: split on LF, drop one trailing CR per line, no final empty line."""
    return _split_lines(text)


def lines_holding(text: str, marker: str) -> list[tuple[int, str]]:
    """(1-based number, line) of each line of `lines_of(text)` that holds `marker` (which
    holds no line break), in order: each found by substring search, its number by counting
    the line breaks before it (a note holds a marker on a few of its lines)."""
    out: list[tuple[int, str]] = []
    n, counted_to = 1, 0
    at = text.find(marker)
    while at >= 0:
        n += text.count("\n", counted_to, at)
        counted_to = at
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        line = text[start:] if end < 0 else text[start:end]
        out.append((n, line[:-1] if line.endswith("\r") else line))
        if end < 0:
            break
        at = text.find(marker, end + 1)
    return out


def _above_first_section(text: str) -> tuple[str, ...]:
    """The lines above the first line that starts with `##` once stripped (all of them when
    none does). That line's first `##` is the first `##` on it, after blanks only."""
    at = text.find("##")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        if not text[start:at].strip():
            return _split_lines(text[:start])
        end = text.find("\n", at)
        if end < 0:
            break
        at = text.find("##", end + 1)
    return lines_of(text)


def labelled(line: str, labels: tuple[str, ...]) -> str | None:
    """The value of `line` if it is labelled with one of `labels`, else None."""
    head, colon, tail = line.partition(":")
    if not colon:
        return None
    name = head.strip().strip("*_ ").lower()
    if name not in labels:
        return None
    return tail.lstrip("*").strip()


def terms_in(value: str) -> list[str]:
    """The keys of a `Search for:` value: split on `,` and `;`, dressing stripped."""
    pieces = value.replace(";", ",").split(",")
    return [term for piece in pieces if (term := piece.strip().lstrip("-*+ ").strip('`"*. '))]


def header_of(text: str) -> Header:
    keys: list[str] = []
    purpose = ""
    for raw in _above_first_section(text):
        line = raw.strip()
        if not keys:
            value = labelled(line, SEARCH_LABELS)
            if value is not None:
                keys = terms_in(value)
                continue
        if not purpose:
            value = labelled(line, PURPOSE_LABELS)
            if value is not None:
                purpose = value.strip().rstrip(".")
        if keys and purpose:
            break  # neither can change again: the first of each wins
    return Header(keys=tuple(keys), purpose=purpose)


def body_start(lines: Sequence[str]) -> int:
    """Index of the first line after the front matter (past the end when it never closes,
    so an unclosed block hides everything, as the readers of titles and chunks expect)."""
    if not lines or lines[0].strip() != "---":
        return 0
    i = 1
    while i < len(lines) and lines[i].strip() != "---":
        i += 1
    return i + 1


def first_heading(text: str) -> str:
    """The first `# ` heading after any front matter; empty when there is none."""
    lines = lines_of(text)
    for line in lines[body_start(lines) :]:
        stripped = line.strip()
        if stripped.startswith("# "):
            return stripped[2:].strip()
    return ""


def front_matter(text: str) -> tuple[tuple[str, str], ...]:
    """The front matter's `key: value` pairs in file order (indented lines ignored)."""
    lines = lines_of(text)
    if not lines or lines[0].strip() != "---":
        return ()
    pairs: list[tuple[str, str]] = []
    for line in lines[1:]:
        if line.strip() == "---":
            return tuple(pairs)
        if line[:1].isspace():
            continue
        key, colon, value = line.partition(":")
        key = key.strip()
        if colon and key and not key.startswith("#"):
            pairs.append((key, value.strip()))
    return ()  # never closed: no front matter at all


def field_exact(pairs: tuple[tuple[str, str], ...], key: str) -> str | None:
    """First value under exactly `key` (the index's rule)."""
    for k, v in pairs:
        if k == key:
            return v
    return None


def field_folded(pairs: tuple[tuple[str, str], ...], key: str) -> str | None:
    """First value under `key` compared case-insensitively, blank read as absent (list's rule)."""
    for k, v in pairs:
        if k.lower() == key:
            return v or None
    return None


# Front-matter fields a note uses to say what it is about, in the conventions people's vaults
# already follow: Obsidian (`tags`, `aliases`), Hugo and Jekyll (`title`, `tags`, `keywords`).
DERIVED_FIELDS = ("title", "aliases", "tags", "keywords")


def _values(raw: str) -> list[str]:
    """One front-matter value as a list: `[a, b]`, `a, b` or a lone scalar; quotes and a
    leading `#` (a tag written as in the body) stripped."""
    value = raw.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    out: list[str] = []
    for piece in value.split(","):
        item = piece.strip().strip("'\"").strip().lstrip("#").strip()
        if item:
            out.append(item)
    return out


def front_matter_lists(text: str) -> dict[str, list[str]]:
    """The `DERIVED_FIELDS` of the front matter, each as its list of values: inline
    (`tags: [a, b]`, `tags: a, b`) or a block of `- item` lines under an empty value."""
    lines = lines_of(text)
    if not lines or lines[0].strip() != "---":
        return {}
    found: dict[str, list[str]] = {}
    current: str | None = None
    for line in lines[1:]:
        stripped = line.strip()
        if stripped == "---":
            return found
        if line[:1].isspace() or stripped.startswith("- "):
            if current is not None and stripped.startswith("-"):
                found[current] += _values(stripped[1:])
            continue
        key, colon, value = line.partition(":")
        key = key.strip().lower()
        current = None
        if colon and key in DERIVED_FIELDS and key not in found:
            found[key] = _values(value) if value.strip() else []
            current = key if not value.strip() else None
    return {}  # never closed: no front matter at all


def headings(text: str) -> list[str]:
    """Every ATX heading's text after the front matter, outside code fences, in order."""
    lines = lines_of(text)
    out: list[str] = []
    fence: str | None = None
    for line in lines[body_start(lines) :]:
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = None if fence == marker else (fence or marker)
            continue
        if fence is None and stripped.startswith("#"):
            level = len(stripped) - len(stripped.lstrip("#"))
            rest = stripped[level:]
            if level <= 6 and rest[:1] in (" ", "\t") and rest.strip():
                out.append(rest.strip().rstrip("#").strip())
    return out


def derived_keys(text: str) -> tuple[str, ...]:
    """What a note without a `Search for:` line already says about itself: its front
    matter's title, aliases, tags and keywords, then its headings below the title. Only the
    note's own text is read; each key once, in that order. (The title and the file name are
    scored on their own, as for every entry.)"""
    fields = front_matter_lists(text)
    keys: list[str] = [v for name in DERIVED_FIELDS for v in fields.get(name, [])]
    title = first_heading(text)
    keys += [h for h in headings(text) if h != title]
    return tuple(dict.fromkeys(k for k in keys if k))
