"""The shortcuts `kb check` reads a note with equal the plain rules they stand for.

Each shortcut (the memo of `lines_of`, the lines found by substring search, the header scan
that stops once both values are found, the dead-key test that decides on plain ASCII words
first) is held to the rule it replaces, written out here as the reference, on text built
from the pieces that make each rule's edge cases likely: CR/LF line ends, markers at line
starts and ends, labels, stopwords, one-letter words, accents, punctuation and underscores.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from kb.pure.answering.entries import dead_keys
from kb.pure.notes.header import (
    PURPOSE_LABELS,
    SEARCH_LABELS,
    Header,
    header_of,
    labelled,
    lines_holding,
    lines_of,
    terms_in,
)
from kb.pure.notes.tokens import normalise
from kb.pure.writing.checks import _has_front_matter, bibliography_of
from kb.pure.writing.style import bibliography_entry

_MARKERS = ["[[", "[src:", "##", "- [src:", "* [src:"]
_line_pieces = st.sampled_from(
    [*_MARKERS, "]", "]]", " ", "\t", "\n", "\r", "\r\n", "a", "bc", "x y", "#", "é", ":"]
)
_texts = st.lists(_line_pieces, max_size=50).map("".join)


def _split_lines(text: str) -> tuple[str, ...]:
    """The rule `lines_of` keeps: Rust's `str::lines`."""
    if not text:
        return ()
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return tuple(p[:-1] if p.endswith("\r") else p for p in parts)


@settings(max_examples=400)
@given(_texts, st.sampled_from(_MARKERS))
@example("[[a\n[[b\r\n[[\n\n[[", "[[")  # a marker opening the line after one
@example("[src:", "[src:")
def test_lines_holding_a_marker_are_every_line_that_holds_it(text: str, marker: str) -> None:
    every = [(n, line) for n, line in enumerate(_split_lines(text), 1) if marker in line]
    assert lines_holding(text, marker) == every


@settings(max_examples=300)
@given(st.lists(_texts, min_size=1, max_size=12))
def test_remembered_lines_are_the_lines_of_the_text_asked(texts: list[str]) -> None:
    # more texts than the memo holds, some asked twice, some equal but not the same object
    for text in [*texts, *reversed(texts), *("".join([t]) for t in texts)]:
        assert lines_of(text) == _split_lines(text)


def _header_scanning_every_line(text: str) -> Header:
    """The header rule with no early stop: every line above the first `##` is read."""
    keys: list[str] = []
    purpose = ""
    for raw in _split_lines(text):
        line = raw.strip()
        if line.startswith("##"):
            break
        if not keys:
            value = labelled(line, SEARCH_LABELS)
            if value is not None:
                keys = terms_in(value)
                continue
        if not purpose:
            value = labelled(line, PURPOSE_LABELS)
            if value is not None:
                purpose = value.strip().rstrip(".")
    return Header(keys=tuple(keys), purpose=purpose)


_header_lines = st.sampled_from(
    [
        "Search for: a, b",
        "Search for:",
        "**Search for:** c; d",
        "Buscar por: e",
        "Exists to: hold x.",
        "Exists to:",
        "Existe para: y",
        "## Part",
        "  ## Indented",
        "\t### Deeper",
        "text ## not a heading",
        "\u2028## after a blank Python strips",
        "#",
        "# Title",
        "text",
        "",
    ]
)


@settings(max_examples=400)
@given(
    st.lists(_header_lines, max_size=12),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(["", "\n", "\r\n", "##"]),
)
def test_the_header_scan_stops_only_where_nothing_can_change(
    lines: list[str], end: str, tail: str
) -> None:
    text = end.join(lines) + tail
    assert header_of(text) == _header_scanning_every_line(text)


_front_lines = st.sampled_from(["---", " --- ", "---\r", "a: b", "", "text", "-- -"])


@settings(max_examples=300)
@given(st.lists(_front_lines, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_front_matter_is_seen_from_its_first_line_as_from_every_line(
    lines: list[str], end: str
) -> None:
    text = end.join(lines)
    every = _split_lines(text)
    expected = (
        bool(every) and every[0].strip() == "---" and any(x.strip() == "---" for x in every[1:])
    )
    assert _has_front_matter(text) == expected


_key_words = st.sampled_from(
    [
        # stopwords, one letter, plain words, and words that only folding reads right:
        # `Não` folds to the stopword `nao`, `ﬁle` to `file`, `don't` is two words
        *("the", "de", "nao", "on", "para", "a", "x", "I", "O", "42", "v2", "git", "Git"),
        *("rebase", "é", "Não", "ação", "naïve", "ÉTÉ", "ﬁle", "co-op", "snake_case"),
        *("C++", "don't", "e\u0301", "\u0301x", "\u0301", "ß", "İ", "²", "½", "ǅ"),
    ]
)
# the blanks `str.split` knows: space, tab, a no-break space, the ideographic space, the
# line separator, a file separator
_gaps = st.sampled_from([" ", "  ", "\t", " \u00a0 ", "\u3000", "\u2028", "\x1c"])
_keys = st.lists(_key_words, max_size=5).flatmap(lambda ws: _gaps.map(lambda gap: gap.join(ws)))


@settings(max_examples=500)
@given(st.lists(_keys, max_size=6))
def test_dead_keys_are_the_multi_word_keys_that_keep_one_word_or_none(keys: list[str]) -> None:
    expected = [k for k in keys if len(k.split()) > 1 and len(normalise(k)) <= 1]
    assert dead_keys(keys) == expected


@settings(max_examples=400)
@given(_texts)
def test_the_bibliography_is_read_from_every_line_that_could_hold_it(text: str) -> None:
    expected: dict[str, tuple[int, str]] = {}
    for n, line in enumerate(_split_lines(text), 1):
        entry = bibliography_entry(line)
        if entry is not None:
            expected[entry[0]] = (n, entry[1])
    assert bibliography_of(text) == expected
