"""A small, safe markdown renderer for the reading room: a note's text in, HTML out.

Rules of this module:
- Safety first, by construction: the whole text is HTML-escaped (`&`, `<`, `>`, `"`, `'`)
  before any markdown is read, so no tag, attribute or entity of the note survives as
  markup. Every tag in the output is one this module writes, from a fixed list (see
  `TAGS`), and every attribute value it writes is escaped text.
- Links: `[[target|label#anchor]]` resolves by the linter's own rule (`Links.wikilink`: the
  exact stem, inside the note's base) and becomes an internal link carrying the base and the
  relative path as data attributes; a target that does not resolve is marked broken and
  links nowhere. `[text](href)`: `http://`, `https://` and `mailto:` hrefs become external
  links; a relative href that names a file of the base (joined to the note's folder, `.`
  and `..` folded, `#anchor` and `?query` dropped) becomes an internal link; anything else
  (`javascript:`, `data:`, a file the base does not serve) is shown as text, never as a link.
  Images are shown as their alt text: the page makes no request the reader did not click.
- Blocks: front matter (a `---` fence on the first line) as a definition list; fenced code
  (``` or ~~~, closed by the same character, unclosed runs to the end); ATX headings;
  horizontal rules; block quotes (nested at most QUOTE_DEPTH deep); GFM pipe tables (a row
  then a delimiter row); bullet and numbered lists, nested by indentation, `[ ]`/`[x]` task
  boxes shown as glyphs; paragraphs. Inline: code spans, wikilinks, links, `**strong**`,
  `*em*`/`_em_`, `~~del~~`.
- Wikilinks and citations inside code are text, as in the linter (kb.pure.links).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from attrs import frozen

TAGS = (
    "a", "blockquote", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "li", "ol", "p", "pre", "span", "strong", "table", "tbody", "td", "th",
    "thead", "tr", "ul",
)  # fmt: skip
QUOTE_DEPTH = 6
EXTERNAL_SCHEMES = ("http://", "https://", "mailto:")

_ESC = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}
_UNESC = {v: k for k, v in _ESC.items()}


def escape(text: str) -> str:
    return "".join(_ESC.get(c, c) for c in text)


def unescape(text: str) -> str:
    """The inverse of `escape` (only the five entities it writes)."""
    return re.sub(r"&(?:amp|lt|gt|quot|#39);", lambda m: _UNESC[m.group(0)], text)


@frozen
class Links:
    """What a note's links can reach: its base, its own path, and the base's files."""

    base: str
    here: str  # the note's relative path
    rels: frozenset[str]
    by_stem: Mapping[str, Sequence[str]]

    def wikilink(self, target: str) -> str | None:
        """The linter's rule: the exact stem, inside this base; the first of an ambiguous
        stem (the linter warns W01 about those)."""
        found = self.by_stem.get(target)
        return found[0] if found else None

    def path(self, href: str) -> str | None:
        """A relative href as a file of this base, or None."""
        href = href.split("#", 1)[0].split("?", 1)[0]
        if not href or href.startswith("/") or ":" in href.split("/", 1)[0]:
            return None
        folder = self.here.rpartition("/")[0]
        rel = normalise(f"{folder}/{percent_decode(href)}" if folder else percent_decode(href))
        return rel if rel is not None and rel in self.rels else None


def normalise(path: str) -> str | None:
    """`a/./b/../c` -> `a/c`; None when `..` climbs above the start."""
    out: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(part)
    return "/".join(out)


def percent_decode(text: str) -> str:
    """`%20` -> space; a malformed escape is kept as it is; bytes decode as UTF-8 (lossy)."""
    out = bytearray()
    i = 0
    raw = text.encode("utf-8")
    while i < len(raw):
        if raw[i] == 0x25 and _is_hex(raw[i + 1 : i + 3]):
            out.append(int(raw[i + 1 : i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "replace")


def _is_hex(pair: bytes) -> bool:
    return len(pair) == 2 and all(c in b"0123456789abcdefABCDEF" for c in pair)


# -- inline --------------------------------------------------------------------------------

_SLOT = "\x00{}\x00"
_SLOT_RE = re.compile("\x00(\\d+)\x00")
# A wikilink never spans a code span (parked as a \x00 slot by then), as in the linter: otherwise
# `[[a `code` b]]` put the code's markup inside the broken link's title attribute.
_WIKI_RE = re.compile(r"\[\[([^\x00]+?)\]\]")
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\(([^)\s]*)(?:\s+&quot;[^)]*&quot;)?\)")
_LINK_RE = re.compile(r"\[([^\]]+)\]\(([^)\s]*)(?:\s+&quot;[^)]*&quot;)?\)")
_STRONG_RE = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EM_STAR_RE = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
_EM_UNDER_RE = re.compile(r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])")
_DEL_RE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_CODE_RE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")


class _Inline:
    """Renders one block's escaped text; fragments already rendered are parked in slots so
    that emphasis never reaches into a link's href or a code span."""

    def __init__(self, links: Links) -> None:
        self.links = links
        self.slots: list[str] = []

    def park(self, html: str) -> str:
        self.slots.append(html)
        return _SLOT.format(len(self.slots) - 1)

    def render(self, text: str) -> str:
        text = _CODE_RE.sub(lambda m: self.park(f"<code>{m.group(2).strip()}</code>"), text)
        text = _WIKI_RE.sub(self._wiki, text)
        text = _IMAGE_RE.sub(lambda m: self.park(_image(m.group(1))), text)
        text = _LINK_RE.sub(self._link, text)
        text = _STRONG_RE.sub(lambda m: f"<strong>{m.group(2)}</strong>", text)
        text = _EM_STAR_RE.sub(lambda m: f"<em>{m.group(1)}</em>", text)
        text = _EM_UNDER_RE.sub(lambda m: f"<em>{m.group(1)}</em>", text)
        text = _DEL_RE.sub(lambda m: f"<del>{m.group(1)}</del>", text)
        # Slots can nest (a link's label holding a code span): resolve until none is left.
        while _SLOT_RE.search(text):
            text = _SLOT_RE.sub(lambda m: self.slots[int(m.group(1))], text)
        return text

    def _wiki(self, m: re.Match[str]) -> str:
        inner = unescape(m.group(1))
        target_part, _, label = inner.partition("|")
        target = target_part.split("#", 1)[0].strip()
        shown = escape(label.strip() or target_part.strip())
        rel = self.links.wikilink(target) if target else None
        if rel is None:
            why = escape(f"broken link: this base has no {target}.md")
            return self.park(f'<span class="wikilink broken" title="{why}">{shown}</span>')
        return self.park(self._internal(rel, shown, "wikilink"))

    def _internal(self, rel: str, shown: str, cls: str) -> str:
        return (
            f'<a class="{cls}" href="#" data-base="{escape(self.links.base)}" '
            f'data-rel="{escape(rel)}">{shown}</a>'
        )

    def _link(self, m: re.Match[str]) -> str:
        label = self.render(m.group(1))
        href = unescape(m.group(2))
        lowered = "".join(c for c in href if c > " ").lower()
        if lowered.startswith(EXTERNAL_SCHEMES):
            return self.park(
                f'<a class="external" href="{escape(href)}" rel="noopener noreferrer" '
                f'target="_blank">{label}</a>'
            )
        rel = self.links.path(href)
        if rel is not None:
            return self.park(self._internal(rel, label, "internal"))
        return self.park(f'<span class="link-text" title="{escape(href)}">{label}</span>')


def _image(alt: str) -> str:
    return f'<span class="image">[image: {alt or "no description"}]</span>'


# -- blocks --------------------------------------------------------------------------------

_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_HR_RE = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_LIST_RE = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(.*)$")
_QUOTE_RE = re.compile(r"^ {0,3}&gt; ?(.*)$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^`]*)$")
_DELIM_CELL_RE = re.compile(r"^:?-+:?$")
_TASK_RE = re.compile(r"^\[([ xX])\][ \t]+")


def _indent(s: str) -> int:
    width = 0
    for c in s:
        if c == " ":
            width += 1
        elif c == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def _cells(row: str) -> list[str]:
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    cells: list[str] = []
    current = ""
    i = 0
    while i < len(row):
        if row[i] == "\\" and i + 1 < len(row) and row[i + 1] == "|":
            current += "|"
            i += 2
            continue
        if row[i] == "|":
            cells.append(current.strip())
            current = ""
        else:
            current += row[i]
        i += 1
    cells.append(current.strip())
    return cells


def _is_delimiter(row: str) -> bool:
    if "-" not in row:
        return False
    cells = _cells(row)
    return bool(cells) and all(_DELIM_CELL_RE.match(c) for c in cells)


def _align(cell: str) -> str:
    if cell.startswith(":") and cell.endswith(":"):
        return ' class="al-c"'
    if cell.endswith(":"):
        return ' class="al-r"'
    return ""


class _Blocks:
    def __init__(self, links: Links) -> None:
        self.links = links

    def inline(self, text: str) -> str:
        return _Inline(self.links).render(text)

    def render(self, lines: list[str], depth: int = 0) -> list[str]:
        out: list[str] = []
        para: list[str] = []

        def flush() -> None:
            if para:
                out.append(f"<p>{self.inline(' '.join(s.strip() for s in para))}</p>")
                para.clear()

        i = 0
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                flush()
                i += 1
                continue
            fence = _FENCE_RE.match(line)
            if fence:
                flush()
                i = self._code(lines, i, fence, out)
                continue
            heading = _HEADING_RE.match(line)
            if heading:
                flush()
                level = len(heading.group(1))
                out.append(f"<h{level}>{self.inline(heading.group(2) or '')}</h{level}>")
                i += 1
                continue
            if _HR_RE.match(line):
                flush()
                out.append("<hr>")
                i += 1
                continue
            if _QUOTE_RE.match(line) and depth < QUOTE_DEPTH:
                flush()
                quoted: list[str] = []
                while i < len(lines) and (q := _QUOTE_RE.match(lines[i])):
                    quoted.append(q.group(1))
                    i += 1
                out.append(f"<blockquote>{''.join(self.render(quoted, depth + 1))}</blockquote>")
                continue
            if "|" in line and i + 1 < len(lines) and _is_delimiter(lines[i + 1]):
                flush()
                i = self._table(lines, i, out)
                continue
            if _LIST_RE.match(line) and not para:
                i = self._list(lines, i, out, depth)
                continue
            para.append(line)
            i += 1
        flush()
        return out

    def _code(self, lines: list[str], i: int, fence: re.Match[str], out: list[str]) -> int:
        marker = fence.group(1)
        lang = re.sub(r"[^A-Za-z0-9_+.-]", "", fence.group(2).split(" ", 1)[0])[:24]
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = _FENCE_RE.match(lines[i])
            if (
                close
                and close.group(1)[0] == marker[0]
                and len(close.group(1)) >= len(marker)
                and not close.group(2).strip()
            ):
                i += 1
                break
            body.append(lines[i])
            i += 1
        cls = f' class="lang-{lang}"' if lang else ""
        code = "\n".join(body)
        out.append(f"<pre><code{cls}>{code}</code></pre>")
        return i

    def _table(self, lines: list[str], i: int, out: list[str]) -> int:
        head = _cells(lines[i])
        aligns = [_align(c) for c in _cells(lines[i + 1])]
        width = len(head)
        aligns += [""] * (width - len(aligns))
        rows: list[list[str]] = []
        i += 2
        while i < len(lines) and lines[i].strip() and "|" in lines[i]:
            cells = _cells(lines[i])[:width]
            rows.append(cells + [""] * (width - len(cells)))
            i += 1
        html = ["<table><thead><tr>"]
        html += [f"<th{aligns[k]}>{self.inline(c)}</th>" for k, c in enumerate(head)]
        html.append("</tr></thead><tbody>")
        for row in rows:
            html.append("<tr>")
            html += [f"<td{aligns[k]}>{self.inline(c)}</td>" for k, c in enumerate(row)]
            html.append("</tr>")
        html.append("</tbody></table>")
        out.append("".join(html))
        return i

    def _list(self, lines: list[str], i: int, out: list[str], depth: int) -> int:
        """One list and everything nested in it: items at the first item's indentation,
        deeper lines (and blank lines followed by deeper lines) belong to the item."""
        first = _LIST_RE.match(lines[i])
        assert first is not None
        base_indent = _indent(first.group(1))
        ordered = first.group(2)[0].isdigit()
        items: list[list[str]] = []
        while i < len(lines):
            line = lines[i]
            m = _LIST_RE.match(line)
            if m and _indent(m.group(1)) <= base_indent:
                if m.group(2)[0].isdigit() != ordered:
                    break
                items.append([m.group(3)])
                i += 1
                continue
            if not line.strip():
                nxt = next((k for k in range(i, len(lines)) if lines[k].strip()), None)
                if nxt is None or _indent(lines[nxt]) <= base_indent:
                    break
                items[-1].append("")
                i += 1
                continue
            if _indent(line) > base_indent or not (
                _HEADING_RE.match(line) or _FENCE_RE.match(line) or _QUOTE_RE.match(line)
            ):
                # A deeper line, or a lazy continuation of the item's paragraph.
                items[-1].append(line[min(_indent(line), base_indent + 2) :])
                i += 1
                continue
            break
        tag = "ol" if ordered else "ul"
        start = int(first.group(2)[:-1]) if ordered else 1
        attrs = f' start="{start}"' if ordered and start != 1 else ""
        html = [f"<{tag}{attrs}>"]
        for item in items:
            html.append(f"<li>{self._item(item, depth)}</li>")
        html.append(f"</{tag}>")
        out.append("".join(html))
        return i

    def _item(self, item: list[str], depth: int) -> str:
        head, rest = item[0], item[1:]
        task = _TASK_RE.match(head)
        box = ""
        if task:
            box = '<span class="task">' + ("☑" if task.group(1) != " " else "☐") + "</span> "
            head = head[task.end() :]
        # Lines up to the first nested block continue the item's own paragraph.
        lead = [head]
        while rest and rest[0].strip() and not _starts_block(rest[0]):
            lead.append(rest.pop(0))
        text = box + self.inline(" ".join(s.strip() for s in lead))
        if rest and depth < QUOTE_DEPTH * 2:
            text += "".join(self.render(_dedent(rest), depth + 1))
        elif rest:
            text += " " + self.inline(" ".join(s.strip() for s in rest))
        return text


def _starts_block(line: str) -> bool:
    return bool(
        _LIST_RE.match(line)
        or _FENCE_RE.match(line)
        or _HEADING_RE.match(line)
        or _QUOTE_RE.match(line)
    )


def _dedent(lines: list[str]) -> list[str]:
    widths = [_indent(s) for s in lines if s.strip()]
    cut = min(widths) if widths else 0
    return [_cut(s, cut) for s in lines]


def _cut(line: str, width: int) -> str:
    """`line` with up to `width` columns of leading whitespace removed (tabs count to 4)."""
    col = 0
    k = 0
    while k < len(line) and col < width and line[k] in " \t":
        col += 1 if line[k] == " " else 4 - col % 4
        k += 1
    return line[k:]


# -- the document --------------------------------------------------------------------------


def _front_matter(lines: list[str]) -> tuple[list[tuple[str, str]], int]:
    if not lines or lines[0].strip() != "---":
        return [], 0
    pairs: list[tuple[str, str]] = []
    for k in range(1, len(lines)):
        if lines[k].strip() == "---":
            return pairs, k + 1
        key, colon, value = lines[k].partition(":")
        if colon and key.strip() and not key.startswith((" ", "\t")):
            pairs.append((key.strip(), value.strip()))
    return [], 0  # an unclosed fence is text, not front matter


def render(text: str, links: Links) -> str:
    """The note as HTML. Never raises; never emits a tag outside `TAGS`."""
    escaped = escape(text.replace("\x00", "\ufffd"))
    lines = [line.rstrip("\r") for line in escaped.split("\n")]
    pairs, start = _front_matter(lines)
    out: list[str] = []
    if pairs:
        rows = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in pairs)
        out.append(f'<dl class="front">{rows}</dl>')
    out += _Blocks(links).render(lines[start:])
    return "\n".join(out)
