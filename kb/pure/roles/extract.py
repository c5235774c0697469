"""`kb ingest`: how a document's text is read (workflow-verbs.md §13 step 4), and the
built-in HTML reader.

Rules of this module:
- The base decides first: when `{root}/tools/extract/{ext}.cmd` exists it is the reader for
  that extension, whatever the extension is (a base that wants its markdown cleaned first
  can say so). It is run with the document's path as its one argument, never through a
  shell, and its stdout is the text.
- Without one: `.md`, `.markdown` and `.txt` are read as UTF-8 text; `.html` and `.htm` go
  through the stdlib HTML parser below (text only); `.pdf` goes through the `pdftotext`
  program (poppler-utils) when it is installed. Anything else is refused with the line that
  says how to teach the base to read it.
- The HTML reader keeps the text a person would read: no markup, no script, no style, no
  comments; block elements (paragraphs, headings, list items, table rows, line breaks)
  start a new line; runs of whitespace become one space; blank lines collapse to one.
"""

from __future__ import annotations

from html.parser import HTMLParser

from attrs import frozen

TEXT_EXTENSIONS = ("md", "markdown", "txt")
HTML_EXTENSIONS = ("html", "htm")
PDFTOTEXT = "pdftotext"


@frozen
class UseScript:
    script: str


@frozen
class ReadText:
    pass


@frozen
class ReadHtml:
    pass


@frozen
class ReadPdf:
    program: str


@frozen
class CannotRead:
    message: str


Plan = UseScript | ReadText | ReadHtml | ReadPdf | CannotRead


def script_for(root: str, ext: str) -> str:
    return f"{root.rstrip('/') or '/'}/tools/extract/{ext}.cmd"


def plan(ext: str, script: str, script_exists: bool, pdftotext: str | None) -> Plan:
    if script_exists:
        return UseScript(script)
    if ext in TEXT_EXTENSIONS:
        return ReadText()
    if ext in HTML_EXTENSIONS:
        return ReadHtml()
    if ext == "pdf":
        if pdftotext is not None:
            return ReadPdf(pdftotext)
        return CannotRead(
            "kb ingest: nothing here knows how to read a .pdf. Install pdftotext (Debian and "
            f"Ubuntu: `apt-get install poppler-utils`), or write {script} so that it prints "
            "the document's text on stdout, given the path as its one argument."
        )
    return CannotRead(
        f"kb ingest: nothing here knows how to read a .{ext}. Write {script} so that it "
        "prints the document's text on stdout, given the path as its one argument. "
        "`pdftotext -layout -enc UTF-8 %1 -` is the whole of the pdf one."
    )


def pdf_argv(program: str, path: str) -> list[str]:
    return [program, "-layout", "-enc", "UTF-8", path, "-"]


# -- HTML -------------------------------------------------------------------------------------

_SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "head"})
_KEPT_IN_HEAD = frozenset({"title"})
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt",
        "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "tbody",
        "td", "th", "thead", "title", "tr", "ul",
    }
)  # fmt: skip


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":  # a head nobody closed ends where the body starts
            self.skipping = [t for t in self.skipping if t not in ("head", *_KEPT_IN_HEAD)]
        if tag in _KEPT_IN_HEAD and self.skipping == ["head"]:
            self.skipping.append(tag)  # the title is text a person reads; keep it
            self.parts.append("\n")
            return
        if tag in _SKIPPED:
            self.skipping.append(tag)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS and not self.skipping:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()
            if tag in _KEPT_IN_HEAD:
                self.parts.append("\n")
            return
        if tag in _BLOCKS and not self.skipping:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping or self.skipping[-1] in _KEPT_IN_HEAD:
            self.parts.append(data)


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()
