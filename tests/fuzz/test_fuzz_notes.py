"""Fuzz: a note's text, read by every parser that reads notes.

Header and front matter (kb.pure.notes.header, kb.pure.notes.frontmatter), chunking, tokens,
wikilinks and citations (kb.pure.notes.links) and the reading room's renderer
(kb.pure.render.mdhtml). Note text reaches these parsers after a strict UTF-8 decode, so it holds no
lone surrogate; it holds everything else a file can.
"""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from kb.pure.notes import chunking, frontmatter, header, links, tokens
from kb.pure.notes.links import stems_of
from kb.pure.render import mdhtml
from tests.fuzz.hostile import hostile, line_of, twice, word_lists, words

labels = st.sampled_from(
    (
        "Search for:",
        "**Search for:**",
        "__search FOR__:",
        "Buscar por:",
        "Exists to:",
        "**Existe para:**",
        "- Search for:",
        "> Search for:",
        "Search for",
        "Search for::",
        "*Search for:*",
        " Search for :",
    )
)
headings = st.sampled_from(("# ", "## ", "### ", "#", "####### ", "# Search for", "## Buscar por"))
fm_keys = st.sampled_from(("title", "tags", "relations", "source", "  supports", "- ", "#", "a.b"))
fm_values = st.sampled_from(("", " x", " [a, b]", " |", " >", " 'q'", ' "unclosed', " v # c"))
note_lines = st.one_of(
    line_of(labels, st.just(" "), word_lists),
    line_of(headings, words),
    st.sampled_from(("---", " --- ", "```", "~~~", "```python", "", "    code", "- item")),
    line_of(fm_keys, st.just(":"), fm_values),
    line_of(st.just("see [["), words, st.sampled_from(("]]", "|alias]]", "#anchor]]", "")), words),
    line_of(st.just("cited [src:"), words, st.sampled_from(("]", "", "] and `[src:X]`"))),
    line_of(st.just("`"), words, st.just("` [[inline]] `"), words),
    words,
)
notes = hostile(note_lines)

OWN_TAG = re.compile(
    rf"</?(?:{'|'.join(mdhtml.TAGS)})"
    r'(?:\s+(?:class|href|data-base|data-rel|title|rel|target|start)="[^"<>]*")*\s*>'
)
RELS = ("MAP.md", "knowledge/backups.md", "knowledge/a b.md", "notes/x.md")
LINKS = mdhtml.Links("ada", "knowledge/backups.md", frozenset(RELS), stems_of(RELS))


@given(text=notes)
def test_header_and_front_matter(text: str) -> None:
    got = twice(lambda: header.header_of(text))
    for key in got.keys:
        assert key and "\n" not in key and "," not in key and ";" not in key
    assert "\n" not in got.purpose
    lines = header.lines_of(text)
    assert "\n" not in "".join(lines)
    assert 0 <= header.body_start(lines) <= len(lines) + 1
    assert "\n" not in twice(lambda: header.first_heading(text))
    pairs = twice(lambda: header.front_matter(text))
    for k, v in pairs:
        assert k == k.strip() and k and "\n" not in k + v
        assert header.field_exact(pairs, k) is not None
        header.field_folded(pairs, k.lower())


@given(
    text=notes,
    path=st.lists(st.sampled_from(("title", "tags", "relations", "supports", "")), max_size=3),
)
def test_nested_front_matter(text: str, path: list[str]) -> None:
    fields = twice(lambda: frontmatter.parse(text))
    assert isinstance(fields, frontmatter.Fields)
    frontmatter.lookup(fields, path)

    def depth(v: frontmatter.Value) -> int:
        if isinstance(v, str):
            return 0
        inner = v.pairs if isinstance(v, frontmatter.Fields) else tuple(("", x) for x in v)
        return 1 + max((depth(x) for _, x in inner), default=0)

    assert depth(fields) <= frontmatter.MAX_DEPTH + 2


@given(text=notes)
def test_chunking(text: str) -> None:
    chunks = twice(lambda: chunking.chunk(text))
    for c in chunks:
        assert c.text and c.text == c.text.strip()
        assert len(c.text) <= chunking.MAX_CHARS
        assert "Search for:" not in c.text and "Buscar por:" not in c.text


@given(text=notes)
def test_tokens(text: str) -> None:
    got = twice(lambda: tokens.normalise(text))
    for w in got:
        assert w.isalnum() and w not in tokens.STOPWORDS
        assert not any("A" <= c <= "Z" for c in w)
    # Normalising the words again changes nothing: a stored term and a query term agree.
    assert tokens.normalise(" ".join(got)) == got


@given(text=notes)
def test_wikilinks_and_citations(text: str) -> None:
    n_lines = len(header.lines_of(text))
    for n, target in twice(lambda: links.wikilinks(text)):
        assert 1 <= n <= n_lines
        assert target and target == target.strip() and "|" not in target and "#" not in target
    for n, token in twice(lambda: links.citations(text)):
        assert 1 <= n <= n_lines and "]" not in token


@given(text=notes)
@example(text="see [[a `[src:X]` see [[backup]]\n")  # a wikilink once spanned a code span
def test_markdown_renderer(text: str) -> None:
    html = twice(lambda: mdhtml.render(text, LINKS))
    rest = OWN_TAG.sub("", html)
    assert "<" not in rest and ">" not in rest, html
