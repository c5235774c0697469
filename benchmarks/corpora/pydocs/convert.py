"""Turn the Python 3.11 HTML documentation (Debian python3-doc) into a kb fleet.

Usage:

    python convert.py [--src /usr/share/doc/python3.11/html] OUT [--force]

Writes `OUT/fleet.txt` and, for each agent in AGENTS below, `OUT/fleet/<agent>/agent.txt`,
`OUT/fleet/<agent>/MAP.md` and one `OUT/fleet/<agent>/knowledge/<slug>.md` per kept page.

Only the main Sphinx content (`div[role=main]`) is converted, with the standard library's
html.parser; the output depends on the input files alone, so two runs give the same bytes.

Slugs: the page's path under the HTML root without `.html`, `/` and `.` kept as they are except
that `/` becomes `-`; for the `library` agent the `library/` prefix is dropped because every page
there has it (library/argparse.html -> `argparse`, library/os.path.html -> `os.path`,
tutorial/controlflow.html -> `tutorial-controlflow`, howto/logging.html -> `howto-logging`).

A page is kept when its markdown body (everything after the `# Title` line) has at least
MIN_BODY_CHARS characters and at least MIN_SECTIONS sections, a section being a heading of level
2 or deeper or an API entry (a Sphinx function/class/method/attribute/data/exception
description). The stricter rule asked for first (two headings, 3,000 characters) keeps only 222
pages, because most library pages are a flat run of API entries under the title.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

DEFAULT_SRC = Path("/usr/share/doc/python3.11/html")
MIN_SECTIONS = 2
MIN_BODY_CHARS = 2000
SUMMARY_CHARS = 200

# agent -> (role, folders under the HTML root). Order fixes the printing order.
AGENTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "library": (
        "The Python 3.11 standard library reference, one note per module or topic page",
        ("library",),
    ),
    "language": (
        "The Python 3.11 tutorial and language reference: syntax, semantics, data model",
        ("tutorial", "reference"),
    ),
    "guides": (
        "Python 3.11 HOWTOs, FAQs, setup and usage notes, and the guide to extending "
        "and embedding Python in C",
        ("howto", "faq", "using", "extending"),
    ),
}

# Pages left out even inside an agent's folders (stem of the file name).
SKIP_STEMS = frozenset({"index"})

VOID_TAGS = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }
)
DROP_TAGS = frozenset(
    {
        "script",
        "style",
        "img",
        "svg",
        "form",
        "input",
        "button",
        "nav",
        "head",
        "title",
        "colgroup",
        "col",
    }
)
DROP_CLASSES = frozenset(
    {
        "headerlink",
        "sidebar",
        "toctree-wrapper",
        "related",
        "sphinxsidebar",
        "footer",
        "contents",
        "linenos",
    }
)
SIGNATURE_DL = frozenset({"function", "class", "method", "attribute", "data", "exception"})
FENCE_LANG = {
    "python3": "python",
    "python": "python",
    "default": "python",
    "pycon": "pycon",
    "pycon3": "pycon",
    "shell-session": "console",
    "none": "",
    "text": "",
}
INLINE_CODE_TAGS = frozenset({"code", "tt", "kbd", "samp"})
BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "section",
        "pre",
        "ul",
        "ol",
        "dl",
        "table",
        "blockquote",
        "aside",
        "figure",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "li",
        "dt",
        "dd",
        "tr",
        "figcaption",
    }
)


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class TreeBuilder(HTMLParser):
    """A forgiving DOM builder: end tags close up to the nearest open element of that name."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.stack: list[Element] = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = Element(tag, {k: (v or "") for k, v in attrs})
        self.stack[-1].children.append(el)
        if tag not in VOID_TAGS:
            self.stack.append(el)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {k: (v or "") for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def find_main(el: Element) -> Element | None:
    if el.tag == "div" and (el.attrs.get("role") == "main" or "body" in el.classes):
        return el
    for child in el.children:
        if isinstance(child, Element):
            found = find_main(child)
            if found is not None:
                return found
    return None


def dropped(el: Element) -> bool:
    return el.tag in DROP_TAGS or bool(el.classes & DROP_CLASSES)


# ---------------------------------------------------------------- inline rendering

WS = re.compile(r"\s+")


def raw_text(el: Element | str) -> str:
    """All text under el, untouched (for <pre>)."""
    if isinstance(el, str):
        return el
    if dropped(el):
        return ""
    return "".join(raw_text(c) for c in el.children)


def wrap(marker: str, inner: str) -> str:
    """Wrap inner in an emphasis marker, keeping surrounding spaces outside the markers."""
    core = inner.strip()
    if not core or "*" in core:
        return inner
    lead = inner[: len(inner) - len(inner.lstrip())]
    trail = inner[len(inner.rstrip()) :]
    return f"{lead}{marker}{core}{marker}{trail}"


def code_span(text: str) -> str:
    core = WS.sub(" ", text).strip()
    if not core:
        return ""
    ticks = "``" if "`" in core else "`"
    pad = " " if ticks == "``" else ""
    return f"{ticks}{pad}{core}{pad}{ticks}"


def inline(el: Element | str, plain: bool = False) -> str:
    """Inline markdown for el; whitespace is collapsed later by the caller.

    plain=True gives text without any markdown markers (headings, signatures, summaries).
    """
    if isinstance(el, str):
        return el
    if dropped(el):
        return ""
    if el.tag == "br":
        return " "
    if el.tag in INLINE_CODE_TAGS:
        text = raw_text(el)
        return WS.sub(" ", text) if plain else code_span(text)
    inner = "".join(inline(c, plain) for c in el.children)
    if plain:
        return inner
    if el.tag in ("strong", "b"):
        return wrap("**", inner)
    if el.tag in ("em", "i", "cite", "dfn") and "sig-param" not in el.classes:
        return wrap("*", inner)
    if el.tag in BLOCK_TAGS:
        return f" {inner} "
    return inner


def squash(text: str) -> str:
    return WS.sub(" ", text).strip()


def escape_line_start(text: str) -> str:
    """Keep a prose line from being read as a heading, list item or front-matter fence."""
    if re.match(r"(#|[-+*] |\d+[.)] |---|>|```)", text):
        return "\\" + text
    return text


# ---------------------------------------------------------------- block rendering


@dataclass
class Block:
    kind: str  # heading, para, code, list, table, api (signature lines), term (other dt lines)
    text: str
    level: int = 0
    meta: bool = False  # from a field list (Author:, Release:), never the summary


def signature(dt: Element) -> str:
    """The dt of a Sphinx description, as plain text, without the leading `class ` etc."""
    parts: list[str] = []
    seen_name = False
    for child in dt.children:
        if isinstance(child, Element):
            if "sig-name" in child.classes or "sig-prename" in child.classes:
                seen_name = True
            if not seen_name and child.tag == "em" and "property" in child.classes:
                continue
        parts.append(inline(child, plain=True))
    return squash("".join(parts))


def flush_inline(buf: list[str], out: list[Block]) -> None:
    text = squash("".join(buf))
    buf.clear()
    if text:
        out.append(Block("para", escape_line_start(text)))


def blocks_of(el: Element, out: list[Block]) -> None:
    """Append the blocks of el's children to out; loose inline content becomes paragraphs."""
    buf: list[str] = []
    for child in el.children:
        if isinstance(child, str):
            buf.append(child)
            continue
        if dropped(child):
            continue
        if child.tag in BLOCK_TAGS:
            flush_inline(buf, out)
            block(child, out)
        else:
            buf.append(inline(child))
    flush_inline(buf, out)


def block(el: Element, out: list[Block]) -> None:
    tag = el.tag
    classes = el.classes
    if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
        text = squash(inline(el, plain=True))
        if text:
            out.append(Block("heading", text, int(tag[1])))
    elif tag == "p":
        text = squash(inline(el))
        if text:
            out.append(Block("para", escape_line_start(text)))
    elif tag == "pre":
        out.append(Block("code", raw_text(el).strip("\n"), 0))
    elif tag == "div" and any(c.startswith("highlight-") for c in classes):
        lang = next(c[len("highlight-") :] for c in sorted(classes) if c.startswith("highlight-"))
        sub: list[Block] = []
        blocks_of(el, sub)
        for b in sub:
            if b.kind == "code":
                b.text = fence(b.text, FENCE_LANG.get(lang, lang))
            out.append(b)
    elif tag in ("ul", "ol"):
        out.append(Block("list", render_list(el, ordered=tag == "ol")))
    elif tag == "dl":
        render_dl(el, out)
    elif tag == "table":
        rows = table_rows(el)
        if rows:
            out.append(Block("table", "\n".join(rows)))
    elif tag == "hr":
        return
    elif tag == "div" and "admonition" in classes:
        render_admonition(el, out)
    elif tag == "div" and "line-block" in classes:
        lines = [squash(inline(c)) for c in el.children if isinstance(c, Element)]
        text = "\n".join(escape_line_start(x) for x in lines if x)
        if text:
            out.append(Block("para", text))
    else:
        blocks_of(el, out)


def fence(code: str, lang: str) -> str:
    ticks = "```"
    while ticks in code:
        ticks += "`"
    return f"{ticks}{lang}\n{code}\n{ticks}"


def render_admonition(el: Element, out: list[Block]) -> None:
    """Note/warning/seealso boxes become plain paragraphs, the title leading the first one."""
    title = ""
    rest = Element("div", {})
    for child in el.children:
        if isinstance(child, Element) and "admonition-title" in child.classes:
            title = squash(inline(child, plain=True))
        else:
            rest.children.append(child)
    sub: list[Block] = []
    blocks_of(rest, sub)
    if title and sub and sub[0].kind == "para":
        sub[0].text = f"{title}: {sub[0].text.lstrip(chr(92))}"
    elif title:
        sub.insert(0, Block("para", title))
    out.extend(sub)


def render_dl(el: Element, out: list[Block]) -> None:
    classes = el.classes
    is_sig = "py" in classes and bool(classes & SIGNATURE_DL)
    kind = "api" if is_sig else "term"
    sig_lines: list[str] = []
    for child in el.children:
        if not isinstance(child, Element):
            continue
        if child.tag == "dt":
            text = signature(child) if is_sig else squash(inline(child, plain=True))
            if text:
                sig_lines.append(f"**{text}**")
        elif child.tag == "dd":
            if sig_lines:
                out.append(Block(kind, "\n".join(sig_lines)))
                sig_lines = []
            start = len(out)
            blocks_of(child, out)
            if "field-list" in classes:
                for b in out[start:]:
                    b.meta = True
    if sig_lines:
        out.append(Block(kind, "\n".join(sig_lines)))


def render_list(el: Element, ordered: bool) -> str:
    items: list[str] = []
    number = int(el.attrs.get("start", "1") or "1") if ordered else 0
    for child in el.children:
        if not isinstance(child, Element) or child.tag != "li":
            continue
        marker = f"{number}. " if ordered else "- "
        number += 1
        sub: list[Block] = []
        blocks_of(child, sub)
        text = join_blocks(sub, heading_shift=False)
        if not text:
            continue
        indent = " " * len(marker)
        lines = text.split("\n")
        rendered = [marker + lines[0]] + [indent + x if x else "" for x in lines[1:]]
        items.append("\n".join(rendered))
    return "\n".join(items)


def table_rows(el: Element) -> list[str]:
    rows: list[str] = []

    def walk(node: Element) -> None:
        for child in node.children:
            if not isinstance(child, Element) or dropped(child):
                continue
            if child.tag == "tr":
                cells = [
                    squash(inline(c))
                    for c in child.children
                    if isinstance(c, Element) and c.tag in ("td", "th")
                ]
                line = " | ".join(cells).rstrip(" |").strip()
                if line:
                    rows.append(escape_line_start(line))
            else:
                walk(child)

    walk(el)
    return rows


def join_blocks(blocks: list[Block], heading_shift: bool = True) -> str:
    parts: list[str] = []
    for b in blocks:
        if b.kind == "heading":
            level = max(2, b.level) if heading_shift else b.level
            parts.append("#" * level + " " + b.text)
        elif b.kind == "code" and not b.text.startswith("```"):
            parts.append(fence(b.text, ""))
        else:
            parts.append(b.text)
    return "\n\n".join(p for p in parts if p)


# ---------------------------------------------------------------- pages


@dataclass
class Note:
    agent: str
    slug: str
    title: str
    summary: str
    body: str  # markdown after the `# Title` line
    sections: int  # headings of level 2 or deeper, plus API entries


def quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`\"'])")
MARKUP = re.compile(r"\*\*|`|(?<!\w)\*(?=\S)|(?<=\S)\*(?!\w)")


def summarize(blocks: list[Block]) -> str:
    """The first prose paragraph's first sentence, or the paragraph cut at a word boundary."""
    for b in blocks:
        if b.kind != "para" or b.meta:
            continue
        text = squash(MARKUP.sub("", b.text.lstrip("\\")))
        if (
            text.startswith(
                (
                    "Source code:",
                    "New in version",
                    "Changed in version",
                    "Deprecated since",
                    "Availability:",
                    "See also",
                )
            )
            or len(text) < 20
        ):
            continue
        first = SENTENCE_END.split(text, maxsplit=1)[0]
        if 40 <= len(first) <= SUMMARY_CHARS:
            return first
        if len(text) <= SUMMARY_CHARS:
            return text
        cut = text[: SUMMARY_CHARS + 1]
        space = cut.rfind(" ")
        return (cut[:space] if space > 0 else cut[:SUMMARY_CHARS]).rstrip(",;:") + " ..."
    return ""


def convert_page(path: Path, agent: str, slug: str) -> Note | None:
    parser = TreeBuilder()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    main = find_main(parser.root)
    if main is None:
        return None
    blocks: list[Block] = []
    blocks_of(main, blocks)
    title_at = next((i for i, b in enumerate(blocks) if b.kind == "heading" and b.level == 1), -1)
    if title_at < 0:
        return None
    title = blocks[title_at].text
    rest = blocks[:title_at] + blocks[title_at + 1 :]
    body = join_blocks(rest)
    sections = sum(1 for b in rest if b.kind in ("heading", "api"))
    return Note(agent, slug, title, summarize(rest), body, sections)


def render_note(note: Note) -> str:
    return (
        "---\n"
        f"title: {quote(note.title)}\n"
        f"summary: {quote(note.summary)}\n"
        "---\n\n"
        f"# {note.title}\n\n"
        f"{note.body}\n"
    )


def slug_for(rel: Path, agent: str) -> str:
    parts = list(rel.with_suffix("").parts)
    if agent == "library" and parts[0] == "library":
        parts = parts[1:]
    return "-".join(parts)


def collect(src: Path) -> dict[str, list[tuple[str, Path]]]:
    pages: dict[str, list[tuple[str, Path]]] = {}
    for agent, (_role, folders) in AGENTS.items():
        items: list[tuple[str, Path]] = []
        seen: set[str] = set()
        for folder in folders:
            for path in sorted((src / folder).rglob("*.html")):
                if path.stem in SKIP_STEMS:
                    continue
                slug = slug_for(path.relative_to(src), agent)
                if slug in seen:
                    raise SystemExit(f"convert.py: slug {slug!r} is not unique in {agent}")
                seen.add(slug)
                items.append((slug, path))
        pages[agent] = sorted(items)
    return pages


def keep(note: Note) -> bool:
    return note.sections >= MIN_SECTIONS and len(note.body) >= MIN_BODY_CHARS


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC, help="the HTML root of python3-doc")
    ap.add_argument("out", type=Path, help="output folder (gets fleet.txt and fleet/)")
    ap.add_argument("--force", action="store_true", help="replace an existing OUT/fleet")
    args = ap.parse_args(argv)
    src: Path = args.src
    out: Path = args.out

    if not (src / "library" / "argparse.html").is_file():
        print(
            f"convert.py: no Python HTML docs at {src}; install them with "
            "`apt-get install python3-doc` or pass --src",
            file=sys.stderr,
        )
        return 2
    fleet = out / "fleet"
    if fleet.exists():
        if not args.force:
            print(f"convert.py: {fleet} exists; pass --force to replace it", file=sys.stderr)
            return 2
        shutil.rmtree(fleet)

    write(
        out / "fleet.txt",
        "# Generated by benchmarks/corpora/pydocs/convert.py from Debian python3-doc (3.11).\n"
        "name = pydocs\n"
        "role = The Python 3.11 documentation: standard library, language, HOWTOs and FAQs\n",
    )
    total_kept = total_dropped = 0
    for agent, items in collect(src).items():
        role = AGENTS[agent][0]
        base = fleet / agent
        write(base / "agent.txt", f"name = {agent}\nrole = {role}\n")
        map_lines = [f"# {agent}: map of the base", "", role + ".", "", "### knowledge/", ""]
        kept = dropped_count = 0
        for slug, path in items:
            note = convert_page(path, agent, slug)
            if note is None or not keep(note):
                dropped_count += 1
                continue
            write(base / "knowledge" / f"{slug}.md", render_note(note))
            map_lines.append(f"- **[[{slug}]]** {note.title}")
            kept += 1
        write(base / "MAP.md", "\n".join(map_lines) + "\n")
        print(f"{agent:10} kept {kept:4}  dropped {dropped_count:4}")
        total_kept += kept
        total_dropped += dropped_count
    print(f"{'total':10} kept {total_kept:4}  dropped {total_dropped:4}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
