"""Front matter read as nested values: scalars, lists and mappings (a YAML-ish subset).

`kb.pure.notes.header.front_matter` reads the flat `key: value` lines the index and the facets use;
this module reads the same block with its nesting, for `kb list --where` and `--sort`.

Rules of this module:
- The block exists only when line one, trimmed, is `---` and a later line, trimmed, is `---`
  (the same rule as the flat reader); otherwise there is no front matter at all.
- `key: value` is a scalar. `key:` with nothing after it opens a nested value: the lines
  below it that are indented deeper (a mapping of `child: value` lines, or `- item` lines),
  or `- item` lines at the key's own indent (YAML's compact list form). With neither, the
  value is the empty scalar.
- `key: [a, b]` is an inline list. `key: |` and `key: >` take the deeper-indented lines below
  as one text (joined by newlines, or by spaces for `>`).
- A `- item` that is itself `child: value` starts a mapping (a list of records).
- Scalars are trimmed. A scalar that opens with a quote (' or ") is the text up to the
  matching closing quote (no escapes); an unquoted scalar loses a trailing ` # comment`.
  Blank lines and `#` comment lines are skipped. A key that repeats keeps its first value.
  Keys are kept as written.
- Nesting deeper than `MAX_DEPTH` levels is not followed (its lines are skipped): the reader
  is bounded on any input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from attrs import frozen

from kb.pure.notes.header import lines_of

MAX_DEPTH = 32


@frozen
class Fields:
    """A mapping, in file order; `get` returns the first value under a key."""

    pairs: tuple[tuple[str, Value], ...] = ()

    def get(self, key: str) -> Value | None:
        for k, v in self.pairs:
            if k == key:
                return v
        return None


Value: TypeAlias = str | tuple["Value", ...] | Fields


@frozen
class _Line:
    indent: int
    text: str  # stripped


def _block(text: str) -> list[_Line] | None:
    lines = lines_of(text)
    if not lines or lines[0].strip() != "---":
        return None
    out: list[_Line] = []
    for line in lines[1:]:
        if line.strip() == "---":
            return out
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        expanded = line.expandtabs(2)
        out.append(_Line(len(expanded) - len(expanded.lstrip()), stripped))
    return None  # never closed


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _scalar(raw: str) -> str:
    value = raw.strip()
    if value[:1] in ("'", '"'):
        end = value.find(value[0], 1)  # what follows the closing quote is a comment
        return value[1:end] if end > 0 else value
    for i, ch in enumerate(value):
        if ch == "#" and i > 0 and value[i - 1] in " \t":
            return value[:i].rstrip()
    return value


def _inline_list(value: str) -> tuple[Value, ...]:
    inner = value[1:-1].strip()
    if not inner:
        return ()
    return tuple(_scalar(p) for p in inner.split(","))


def _split_key(text: str) -> tuple[str, str] | None:
    """`key: rest` or `key:` → (key, rest); None when the line is not a key line."""
    if text.startswith("- ") or text == "-":
        return None
    if text.endswith(":"):
        key, rest = text[:-1], ""
    else:
        key, sep, rest = text.partition(": ")
        if not sep:
            return None
    key = _unquote(key.strip())
    if not key or key.startswith("#"):
        return None
    return key, rest.strip()


def _is_item(line: _Line) -> bool:
    return line.text == "-" or line.text.startswith("- ")


class _Reader:
    def __init__(self, lines: list[_Line]) -> None:
        self.lines = lines
        self.i = 0

    def _skip_deeper(self, indent: int) -> None:
        while self.i < len(self.lines) and self.lines[self.i].indent > indent:
            self.i += 1

    def value_below(self, indent: int, depth: int) -> Value:
        """The nested value under a `key:` line at `indent`."""
        if self.i >= len(self.lines):
            return ""
        nxt = self.lines[self.i]
        if depth >= MAX_DEPTH:
            self._skip_deeper(indent)
            return ""
        if nxt.indent > indent:
            if _is_item(nxt):
                return self.items(nxt.indent, depth + 1)
            return self.mapping(nxt.indent, depth + 1)
        if nxt.indent == indent and _is_item(nxt):
            return self.items(indent, depth + 1)
        return ""

    def text_below(self, indent: int, folded: bool) -> str:
        parts: list[str] = []
        while self.i < len(self.lines) and self.lines[self.i].indent > indent:
            parts.append(self.lines[self.i].text)
            self.i += 1
        return (" " if folded else "\n").join(parts)

    def entry_value(self, rest: str, indent: int, depth: int) -> Value:
        if not rest:
            return self.value_below(indent, depth)
        if rest[0] in "|>" and set(rest[1:]) <= set("+-0123456789"):
            return self.text_below(indent, rest[0] == ">")
        if rest.startswith("[") and rest.endswith("]"):
            return _inline_list(rest)
        return _scalar(rest)

    def mapping(self, indent: int, depth: int) -> Fields:
        pairs: list[tuple[str, Value]] = []
        seen: set[str] = set()
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.indent < indent:
                break
            self.i += 1
            split = _split_key(line.text) if line.indent == indent else None
            if split is None:
                self._skip_deeper(line.indent)  # not a key line: skip it and what hangs off it
                continue
            key, rest = split
            value = self.entry_value(rest, indent, depth)
            if key not in seen:
                seen.add(key)
                pairs.append((key, value))
        return Fields(tuple(pairs))

    def items(self, indent: int, depth: int) -> tuple[Value, ...]:
        out: list[Value] = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.indent != indent or not _is_item(line):
                break
            self.i += 1
            body = line.text[1:].strip()
            if not body:
                out.append(self.value_below(indent, depth))
                continue
            split = _split_key(body)
            if split is None or depth >= MAX_DEPTH:
                out.append(
                    _inline_list(body)
                    if body.startswith("[") and body.endswith("]")
                    else _scalar(body)
                )
                self._skip_deeper(indent)
                continue
            # `- key: value`: a record whose keys sit where `key` starts.
            inner = indent + (len(line.text) - len(body))
            self.lines[self.i - 1] = _Line(inner, body)
            self.i -= 1
            out.append(self.mapping(inner, depth + 1))
        return tuple(out)


def parse(text: str) -> Fields:
    """The front matter of `text` as nested values; empty when there is none."""
    block = _block(text)
    if not block:
        return Fields()
    return _Reader(block).mapping(min(line.indent for line in block), 0)


def lookup(fields: Fields, path: Sequence[str]) -> Value | None:
    """The value at a dotted path (`relations.supports`), or None when any step is missing."""
    value: Value | None = fields
    for key in path:
        if not isinstance(value, Fields):
            return None
        value = value.get(key)
        if value is None:
            return None
    return value
