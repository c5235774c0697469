"""The reading room's markdown renderer is safe for any text: every tag in its output is one
of its own, every attribute value is escaped, and no link points anywhere but an http(s) or
mailto address or (with `href="#"`) a file of the note's own base."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.notes.links import stems_of
from kb.pure.render.mdhtml import TAGS, Links, escape, render, unescape

RELS = ("MAP.md", "knowledge/backups.md", "knowledge/a b.md", "notes/x.md", "records/p.md")
LINKS = Links("ada", "knowledge/backups.md", frozenset(RELS[:4]), stems_of(RELS[:4]))

TOKENS = [
    "a", "b", " ", "\n", "\n\n", "\t", "<", ">", '"', "'", "&", "#", "*", "_", "`", "[", "]",
    "(", ")", "|", ":", "-", "!", "~", "/", "\\", ".", "=", ";", "%", "\x00", "é", "1.",
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "javascript:", "JaVaScRiPt:",
    "data:text/html,", "[[", "]]", "```", "~~~", "> ", "- ", "| a | b |\n|---|---|\n",
    "http://x.y/z", "https://e.com?a=1&b=2", "mailto:a@b", "](", "![", "&#106;", "&lt;",
    "onclick=", '" onmouseover="', "backups", "notes/x.md", "../MAP.md", "---\n", "  ", "    ",
    "[x] ", "1) ", "+ ", "**", "__", "\r",
]  # fmt: skip

ATTR = r'\s+(?:class|href|data-base|data-rel|title|rel|target|start)="[^"<>]*"'
OWN_TAG = re.compile(rf"</?(?:{'|'.join(TAGS)})(?:{ATTR})*\s*>")
HREF = re.compile(r'href="([^"]*)"')

texts = st.lists(st.sampled_from(TOKENS), max_size=80).map("".join) | st.text(max_size=200)


@settings(max_examples=400, deadline=None)
@given(text=texts)
def test_every_tag_is_the_renderers_own(text: str) -> None:
    html = render(text, LINKS)
    rest = OWN_TAG.sub("", html)
    assert "<" not in rest and ">" not in rest, (text, html)


@settings(max_examples=400, deadline=None)
@given(text=texts)
def test_links_go_only_where_they_may(text: str) -> None:
    html = render(text, LINKS)
    for href in HREF.findall(html):
        target = unescape(href).strip().lower()
        assert target == "#" or target.startswith(("http://", "https://", "mailto:")), href
    for rel in re.findall(r'data-rel="([^"]*)"', html):
        assert unescape(rel) in LINKS.rels, rel
    assert "javascript:" not in " ".join(HREF.findall(html)).lower()


@given(text=st.text(max_size=100))
def test_escape_round_trips(text: str) -> None:
    escaped = escape(text)
    assert not set("<>\"'") & set(escaped)
    assert unescape(escaped) == text


def test_the_markdown_a_note_uses() -> None:
    html = render(
        "# Title\n\nSee [[backups]], [[nope]] and [the map](../MAP.md).\n\n"
        "- one\n  - two\n\n| k | v |\n|---|--:|\n| a | 1 |\n\n```sh\nrm -rf <x>\n```\n",
        LINKS,
    )
    assert "<h1>Title</h1>" in html
    assert 'data-rel="knowledge/backups.md"' in html
    assert '<span class="wikilink broken"' in html
    assert '<a class="internal" href="#" data-base="ada" data-rel="MAP.md">the map</a>' in html
    assert "<ul><li>one<ul><li>two</li></ul></li></ul>" in html
    assert '<td class="al-r">1</td>' in html
    assert '<pre><code class="lang-sh">rm -rf &lt;x&gt;</code></pre>' in html
