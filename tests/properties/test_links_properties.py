"""Wikilinks and citations found by their marked lines equal a walk of every line.

kb.pure.notes.links picks the lines that hold `[[` or `[src:` and tells fences apart by
counting fence lines (`marked`); the rules in its docstring are written for a walk of every
line, kept here as the reference: any text of links, citations, backticks, tildes, fences
indented or not, and CR/LF line ends gives both the same (line, target) lists.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.notes.header import lines_of
from kb.pure.notes.links import FENCES, citations, citations_in, links_in, wikilinks


def _every_line(text: str) -> list[tuple[int, list[str]]]:
    out: list[tuple[int, list[str]]] = []
    in_fence = False
    for n, line in enumerate(lines_of(text), 1):
        if line.lstrip().startswith(FENCES):
            in_fence = not in_fence
            continue
        if not in_fence:
            out.append((n, line.split("`")[::2]))
    return out


# Pieces that make links, citations, inline code and fences likely, glued at random.
_pieces = st.sampled_from(
    ["[[", "]]", "[src:", "]", "`", "```", "~~~", " ", "  ", "\n", "\r\n", "a", "b|c", "#x", "\t"]
)
_texts = st.lists(_pieces, max_size=60).map("".join)


@settings(max_examples=400)
@given(_texts)
def test_marked_lines_find_what_every_line_finds(text: str) -> None:
    walked = _every_line(text)
    assert wikilinks(text) == [(n, t) for n, ps in walked for p in ps for t in links_in(p)]
    assert citations(text) == [(n, t) for n, ps in walked for p in ps for t in citations_in(p)]


def test_a_link_after_an_odd_number_of_fences_is_code() -> None:
    # a fence line is no text either, even one that opens a fence with a link after it
    text = "[[a]]\n```\n[[b]]\n  ~~~\n[[c]] `[[d]]`\n~~~ [[e]]\n[[f]]\n~~~\n[[g]]\n"
    assert wikilinks(text) == [(1, "a"), (5, "c"), (9, "g")]
