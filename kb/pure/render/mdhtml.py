"""The reading room's markdown renderer: a note's text in, safe HTML out.

Rules of this module:
- markdown-it-py reads the markdown: CommonMark, plus GFM pipe tables and `~~strikethrough~~`,
  with raw HTML off (a tag in a note is text). Only the reading room imports this module, so
  the hot verbs never load the parser.
- Safety by construction: the HTML is written here from the parser's tokens, never by its own
  renderer. Every tag is one of `TAGS`, every text and attribute value passes `escape`, and a
  token this module does not know is written as its escaped text.
- Links: `[[target|label#anchor]]` is found by the linter's rule (kb.pure.notes.links: never across
  a backtick or a line; the target is the part before `|` and `#`, trimmed, never empty) and
  resolves by `Links.wikilink`: an internal link carrying the base and the relative path as
  data attributes, or a broken mark that links nowhere. `[text](href)` and `<autolinks>`:
  `http://`, `https://` and `mailto:` become external links; a relative href that names a
  file of the base (joined to the note's folder, `.` and `..` folded, `#anchor` and `?query`
  dropped) becomes an internal link; anything else is text with the href as its title
  (markdown-it-py already leaves `javascript:`, `vbscript:`, `file:` and `data:` links as
  plain text). As CommonMark has it, a link holds no link: a wikilink inside `[...](...)`
  wins and the brackets around it stay text. Images are shown as their alt text: the page
  makes no request the reader did not click.
- What kb adds to CommonMark: front matter (a `---` fence on the first line) as a definition
  list; wikilinks; `[ ]`/`[x]` task boxes as glyphs; a fence's language as a sanitised
  `lang-` class; table alignment as classes (the page's CSP allows no inline style); a soft
  line break as a space; blocks nested past `MAX_DEPTH` as text.
- Wikilinks and citations inside code are text, as in the linter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from attrs import frozen
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

TAGS = (
    "a", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "li", "ol", "p", "pre", "span", "strong", "table", "tbody", "td",
    "th", "thead", "tr", "ul",
)  # fmt: skip
EXTERNAL_SCHEMES = ("http://", "https://", "mailto:")
# Block nesting kept as structure: 16 quotes, or 8 lists, deep. It stays under the parser's
# `maxNesting` (20) with room for a table or a list opened at the last level.
MAX_DEPTH = 16

_ESC = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}
_ESC_TABLE = str.maketrans(_ESC)
_UNESC = {v: k for k, v in _ESC.items()}


def escape(text: str) -> str:
    return text.translate(_ESC_TABLE)


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


# -- what kb adds to the parser ------------------------------------------------------------


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """`[[...]]` as one token, by the linter's rule; otherwise CommonMark reads the brackets."""
    start = state.pos
    if not state.src.startswith("[[", start):
        return False
    end = _next_close(state, start + 2)
    if end < 0 or end + 2 > state.posMax:
        return False
    inner = state.src[start + 2 : end]
    # The linter splits lines on the backtick: a wikilink never spans code or a line.
    if "`" in inner or "\n" in inner:
        return False
    target_part, _, label = inner.partition("|")
    target = target_part.split("#", 1)[0].strip()
    if not target:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.meta = {"target": target, "shown": label.strip() or target_part.strip()}
        token.content = inner
    state.pos = end + 2
    return True


def _next_close(state: StateInline, at: int) -> int:
    """The first `]]` at or after `at` in this inline text, or -1. The last answer is kept in
    the parse's env: a run of `[[` asks again at every one of them, and scanning the rest of
    the text each time made a long run quadratic."""
    src = state.src
    held = state.env.get("kb_wikilink_close")
    if held is not None and held[0] is src and held[1] <= at and (held[2] < 0 or held[2] >= at):
        return int(held[2])
    found = src.find("]]", at)
    state.env["kb_wikilink_close"] = (src, at, found)
    return found


_TASK_RE = re.compile(r"\[([ xX])\][ \t]+")


def _task_rule(state: StateCore) -> None:
    """A list item's paragraph that opens with `[ ]` or `[x]` gets a box token instead."""
    tokens = state.tokens
    for i in range(2, len(tokens)):
        inline = tokens[i]
        if not (
            inline.type == "inline"
            and inline.children
            and tokens[i - 1].type == "paragraph_open"
            and tokens[i - 2].type == "list_item_open"
        ):
            continue
        first = inline.children[0]
        task = _TASK_RE.match(first.content) if first.type == "text" else None
        if task:
            first.content = first.content[task.end() :]
            box = Token("task_box", "", 0)
            box.meta = {"checked": task.group(1) != " "}
            inline.children.insert(0, box)


def _too_deep_rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Past `MAX_DEPTH`, a run of lines is one paragraph of text, markers and all.
    markdown-it-py's own guard (its `maxNesting`) drops everything from that point to the end
    of the note instead, and a list ten deep reached it."""
    if state.level < MAX_DEPTH:
        return False
    if silent:
        return True
    line = start + 1
    while line < end and not state.isEmpty(line) and state.sCount[line] >= state.blkIndent:
        line += 1
    state.push("paragraph_open", "p", 1)
    inline = state.push("inline", "", 0)
    inline.content = state.getLines(start, line, state.blkIndent, False).strip()
    inline.children = []
    state.push("paragraph_close", "p", -1)
    state.line = line
    return True


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False})
    md.enable(["table", "strikethrough"])
    md.block.ruler.before("table", "too_deep", _too_deep_rule)  # before every other block rule
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.core.ruler.push("task_box", _task_rule)
    return md


_MD = _parser()


# -- writing the tokens --------------------------------------------------------------------

# Paired tokens, each written as a tag of ours: the token's own tag is never trusted.
_PAIRS = {
    "paragraph": "p", "blockquote": "blockquote", "bullet_list": "ul", "ordered_list": "ol",
    "list_item": "li", "table": "table", "thead": "thead", "tbody": "tbody", "tr": "tr",
    "th": "th", "td": "td", "em": "em", "strong": "strong", "s": "del",
}  # fmt: skip
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_ALIGN = {"text-align:right": ' class="al-r"', "text-align:center": ' class="al-c"'}


class _Writer:
    def __init__(self, links: Links) -> None:
        self.links = links
        self.out: list[str] = []
        self.closers: list[str] = []  # how each open link ends: `</a>` or `</span>`

    def write(self, tokens: Sequence[Token]) -> None:
        out = self.out
        for tok in tokens:
            kind, _, edge = tok.type.rpartition("_")
            if tok.type == "inline":
                self.write(tok.children or [])
            elif tok.hidden:  # a tight list's paragraphs: their text only
                pass
            elif kind in _PAIRS or (kind == "heading" and tok.tag in _HEADINGS):
                out.append(_pair(tok, _PAIRS.get(kind, tok.tag), edge == "open"))
            elif tok.type == "link_open":
                out.append(self.link_open(str(tok.attrs.get("href", ""))))
            elif tok.type == "link_close":
                out.append(self.closers.pop() if self.closers else "")
            elif tok.type == "wikilink":
                out.append(self.wikilink(tok.meta["target"], escape(tok.meta["shown"])))
            elif tok.type == "task_box":
                out.append(f'<span class="task">{"☑" if tok.meta["checked"] else "☐"}</span> ')
            elif tok.type == "image":
                alt = _plain(tok.children or []) or "no description"
                out.append(f'<span class="image">[image: {escape(alt)}]</span>')
            elif tok.type in ("fence", "code_block"):
                out.append(_code(tok))
            elif tok.type == "code_inline":
                out.append(f"<code>{escape(tok.content)}</code>")
            elif tok.type in ("hr", "hardbreak"):
                out.append("<hr>" if tok.type == "hr" else "<br>")
            elif tok.type == "softbreak":
                out.append(" ")
            else:  # text, and whatever else carries text
                out.append(escape(tok.content))
            # Top-level blocks go one to a line, as the page's golden payload shows them.
            if tok.block and tok.level == 0 and tok.nesting != 1:
                out.append("\n")

    def internal(self, rel: str, cls: str) -> str:
        return (
            f'<a class="{cls}" href="#" data-base="{escape(self.links.base)}" '
            f'data-rel="{escape(rel)}">'
        )

    def wikilink(self, target: str, shown: str) -> str:
        rel = self.links.wikilink(target)
        if rel is None:
            why = escape(f"broken link: this base has no {target}.md")
            return f'<span class="wikilink broken" title="{why}">{shown}</span>'
        return f"{self.internal(rel, 'wikilink')}{shown}</a>"

    def link_open(self, href: str) -> str:
        lowered = "".join(c for c in href if c > " ").lower()
        if lowered.startswith(EXTERNAL_SCHEMES):
            self.closers.append("</a>")
            return (
                f'<a class="external" href="{escape(href)}" rel="noopener noreferrer" '
                'target="_blank">'
            )
        rel = self.links.path(href)
        if rel is not None:
            self.closers.append("</a>")
            return self.internal(rel, "internal")
        self.closers.append("</span>")
        return f'<span class="link-text" title="{escape(percent_decode(href))}">'


def _pair(tok: Token, tag: str, opening: bool) -> str:
    if not opening:
        return f"</{tag}>"
    start = tok.attrs.get("start")
    if tag == "ol" and isinstance(start, int) and start != 1:
        return f'<ol start="{start}">'
    return f"<{tag}{_ALIGN.get(str(tok.attrs.get('style', '')), '')}>"


def _code(tok: Token) -> str:
    body = tok.content[:-1] if tok.content.endswith("\n") else tok.content
    lang = re.sub(r"[^A-Za-z0-9_+.-]", "", (tok.info.split() or [""])[0])[:24]
    cls = f' class="lang-{lang}"' if lang else ""
    return f"<pre><code{cls}>{escape(body)}</code></pre>"


def _plain(tokens: Sequence[Token]) -> str:
    """An image's alt text: its tokens' text, markup dropped."""
    out: list[str] = []
    for tok in tokens:
        if tok.type == "image":
            out.append(_plain(tok.children or []))
        elif tok.type == "wikilink":
            out.append(tok.meta["shown"])
        elif tok.type in ("softbreak", "hardbreak"):
            out.append(" ")
        else:
            out.append(tok.content)
    return "".join(out)


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
    lines = [line.rstrip("\r") for line in text.replace("\x00", "\ufffd").split("\n")]
    pairs, start = _front_matter(lines)
    writer = _Writer(links)
    if pairs:
        rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in pairs)
        writer.out.append(f'<dl class="front">{rows}</dl>\n')
    writer.write(_MD.parse("\n".join(lines[start:])))
    return "".join(writer.out).rstrip("\n")
