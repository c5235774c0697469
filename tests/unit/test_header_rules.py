"""A note's own header (kb.pure.notes.header): the `Search for:` and `Exists to:` lines, its
front matter, its headings, and the keys a note without a `Search for:` line is found by.
One rule a test, each named after it."""

from __future__ import annotations

import pytest

from kb.pure.notes.header import (
    Header,
    body_start,
    derived_keys,
    field_exact,
    field_folded,
    first_heading,
    front_matter,
    front_matter_lists,
    header_of,
    headings,
    labelled,
    lines_holding,
    lines_of,
    terms_in,
)

# -- lines -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", ()),
        ("\n", ("",)),
        ("a", ("a",)),
        ("a\n", ("a",)),
        ("a\n\nb", ("a", "", "b")),
        ("a\r\nb\r\n", ("a", "b")),
        ("a\r\r\nb", ("a\r", "b")),  # one carriage return a line, as Rust's `lines`
        ("a\rb\nc", ("a\rb", "c")),  # a carriage return inside a line stays
    ],
)
def test_lines_split_on_line_feeds_and_drop_one_carriage_return_each(
    text: str, lines: tuple[str, ...]
) -> None:
    assert lines_of(text) == lines


def test_the_lines_holding_a_marker_are_numbered_from_one_each_once() -> None:
    text = "one\ntwo KEY and KEY\nthree\nKEY four\r\n\nlast KEY"
    assert lines_holding(text, "KEY") == [
        (2, "two KEY and KEY"),
        (4, "KEY four"),
        (6, "last KEY"),
    ]
    assert lines_holding("KEY\nKEY", "KEY") == [(1, "KEY"), (2, "KEY")]
    assert lines_holding("nothing here", "KEY") == []


def test_a_marker_ending_its_line_is_found_once_and_the_next_line_after_it() -> None:
    assert lines_holding("aK\nbK\nc", "K") == [(1, "aK"), (2, "bK")]
    assert lines_holding("K\r\nK", "K") == [(1, "K"), (2, "K")]
    assert lines_holding("\nK", "K") == [(2, "K")]  # a line break first: the line after it


# -- labels and keys -----------------------------------------------------------------------

SEARCH = ("search for", "buscar por")


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("Search for: a, b", "a, b"),
        ("**Search for:** `a`", "`a`"),
        ("__Search for__: a", "a"),
        ("SEARCH FOR: a", "a"),
        ("  Search for  : a  ", "a"),
        ("Buscar por: x", "x"),
        ("Search for: a: b", "a: b"),
        ("Search for:", ""),
        ("- Search for: a", None),
        ("> Search for: a", None),
        ("Search for a", None),
        ("Search  for: a", None),
        ("We search for: a", None),
    ],
)
def test_a_label_is_the_text_before_the_first_colon_undressed_and_lowered(
    line: str, value: str | None
) -> None:
    assert labelled(line, SEARCH) == value


@pytest.mark.parametrize(
    ("value", "terms"),
    [
        ("a, b; c", ["a", "b", "c"]),
        ("`a`, `b c`", ["a", "b c"]),
        ("- a, * b, + c", ["a", "b", "c"]),
        ('"quoted", **bold**, end.', ["quoted", "bold", "end"]),
        ("a,, b, ,", ["a", "b"]),
        ("  rate limit  ", ["rate limit"]),
        ("", []),
    ],
)
def test_keys_split_on_commas_and_semicolons_with_their_dressing_stripped(
    value: str, terms: list[str]
) -> None:
    assert terms_in(value) == terms


def test_the_header_reads_the_first_search_and_purpose_lines_above_the_first_section() -> None:
    text = (
        "# Title\n"
        "**Search for:** `backup`, `restore drill`\n"
        "Search for: ignored\n"
        "**Exists to:** keep the backups honest.\n"
        "Exists to: ignored\n"
        "## Details\n"
    )
    assert header_of(text) == Header(("backup", "restore drill"), "keep the backups honest")


def test_the_purpose_may_come_first_and_loses_only_its_final_periods() -> None:
    text = "Exists to: track work for team X...\n  Search for: a\n"
    assert header_of(text) == Header(("a",), "track work for team X")


def test_an_empty_search_line_does_not_win_over_the_next() -> None:
    assert header_of("Search for:\nSearch for: b\n").keys == ("b",)
    assert header_of("Exists to:\nExists to: p\n").purpose == "p"


@pytest.mark.parametrize(
    "text",
    [
        "## Section\nSearch for: a\nExists to: p\n",
        "intro\n   ## indented heading\nSearch for: a\nExists to: p\n",
        "intro\n### deeper\nSearch for: a\nExists to: p\n",
        "a ## mid-line\n## real\nSearch for: a\nExists to: p\n",
    ],
)
def test_nothing_below_the_first_section_heading_is_read(text: str) -> None:
    assert header_of(text) == Header((), "")


@pytest.mark.parametrize(
    "text",
    [
        "a line with ## inside\nSearch for: a\nExists to: p\n",
        "Search for: a\nExists to: p\ntrailing ##",
        "Search for: a\nExists to: p\n#### not at the start: x ## y",
    ],
)
def test_a_double_hash_not_first_on_its_line_ends_nothing(text: str) -> None:
    assert header_of(text).keys == ("a",)
    if "####" not in text:
        assert header_of(text).purpose == "p"


def test_prose_mentioning_the_label_in_a_list_or_quote_declares_nothing() -> None:
    assert header_of("- Search for: a\n> Search for: b\n") == Header((), "")


# -- front matter --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "start"),
    [
        ((), 0),
        (("body",), 0),
        (("---", "a: b", "---", "body"), 3),
        ((" --- ", "a: b", "---  ", "body"), 3),
        (("---", "---"), 2),
        (("---", "a: b"), 3),  # never closed: past the end, everything hidden
        (("x", "---", "a", "---"), 0),
    ],
)
def test_the_body_starts_after_a_closed_front_matter(lines: tuple[str, ...], start: int) -> None:
    assert body_start(lines) == start


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("# Title\n", "Title"),
        ("  #   Padded  \n", "Padded"),
        ("---\ntitle: x\n---\n# T\n", "T"),
        ("---\n# inside\n---\n# outside\n", "outside"),
        ("## Sub\n#NoSpace\n# T\n# U\n", "T"),
        ("---\n# hidden\n", ""),  # an unclosed front matter hides the rest
        ("no heading\n", ""),
    ],
)
def test_the_title_is_the_first_hash_space_heading_after_the_front_matter(
    text: str, title: str
) -> None:
    assert first_heading(text) == title


def test_front_matter_pairs_are_top_level_keys_with_values_kept_verbatim() -> None:
    text = (
        "---\n"
        "title:  My 'note' \n"
        "  nested: no\n"
        "\tindented: no\n"
        "#comment: no\n"
        ": no key\n"
        "no colon\n"
        "url: http://x/y\n"
        "---\n"
        "body: no\n"
    )
    assert front_matter(text) == (("title", "My 'note'"), ("url", "http://x/y"))


@pytest.mark.parametrize("text", ["", "title: x\n", "---\ntitle: x\n", " x\n---\na: b\n---\n"])
def test_no_front_matter_without_a_first_line_dashes_and_a_closing_one(text: str) -> None:
    assert front_matter(text) == ()
    assert front_matter_lists(text) == {}


def test_an_exact_field_is_the_first_under_exactly_that_key() -> None:
    pairs = (("Title", "A"), ("title", "b"), ("title", "c"))
    assert field_exact(pairs, "title") == "b"
    assert field_exact(pairs, "Title") == "A"
    assert field_exact(pairs, "tags") is None


def test_a_folded_field_is_the_first_under_the_key_in_any_case_and_blank_is_absent() -> None:
    assert field_folded((("Title", "A"), ("title", "b")), "title") == "A"
    assert field_folded((("TITLE", ""), ("title", "b")), "title") is None
    assert field_folded((("tags", "x"),), "title") is None


def test_front_matter_lists_read_inline_lists_scalars_and_blocks() -> None:
    text = (
        "---\n"
        "Tags: [a, '#b', , \"c\"]\n"
        "aliases: one, two\n"
        "keywords:\n"
        "  - k1\n"
        "- k2\n"
        "  -  #k3 \n"
        "author:\n"
        "  - nobody\n"
        "title: #Only\n"
        "tags: ignored, the first wins\n"
        "---\n"
        "keywords: [not, front, matter]\n"
    )
    assert front_matter_lists(text) == {
        "tags": ["a", "b", "c"],
        "aliases": ["one", "two"],
        "keywords": ["k1", "k2", "k3"],
        "title": ["Only"],
    }


def test_a_block_item_after_a_scalar_value_or_another_key_is_not_a_value() -> None:
    text = "---\ntags: a\n  - b\nauthor: x\n- c\ntitle: []\n---\n"
    assert front_matter_lists(text) == {"tags": ["a"], "title": []}


# -- headings and derived keys -------------------------------------------------------------


def test_headings_are_atx_headings_outside_fences_after_the_front_matter() -> None:
    text = (
        "---\n"
        "# in front matter\n"
        "---\n"
        "# Title\n"
        "```\n"
        "# in code\n"
        "~~~\n"
        "# still code\n"
        "```\n"
        "## Closing hashes ##\n"
        "#tag not a heading\n"
        "#\tTabbed\n"
        "# \n"
        "###### Six\n"
        "####### Seven\n"
        "~~~\n"
        "# tilde code\n"
        "~~~\n"
        "  ### Indented\n"
    )
    assert headings(text) == ["Title", "Closing hashes", "Tabbed", "Six", "Indented"]


def test_derived_keys_are_front_matter_fields_in_order_then_headings_but_the_title() -> None:
    text = (
        "---\n"
        "keywords: k\n"
        "tags: [t, shared]\n"
        "title: Front title\n"
        "aliases: al\n"
        "---\n"
        "# Page title\n"
        "## Usage\n"
        "## shared\n"
        "## Page title\n"
    )
    assert derived_keys(text) == ("Front title", "al", "t", "shared", "k", "Usage")


def test_a_note_with_nothing_to_say_derives_no_keys() -> None:
    assert derived_keys("") == ()
    assert derived_keys("# Only a title\n\nprose\n") == ()


def test_a_line_one_character_into_its_double_hash_is_not_a_section() -> None:
    text = "Search for: a\nx## y\nExists to: p\n"
    assert header_of(text) == Header(("a",), "p")


def test_only_dressing_is_stripped_never_the_letters_of_a_label_or_its_keys() -> None:
    assert labelled("XSearch for: a", SEARCH) is None
    assert labelled("Search forX: a", SEARCH) is None
    assert labelled("Search for: Xylophone X", SEARCH) == "Xylophone X"
    assert labelled("**Search for:**Xray", SEARCH) == "Xray"
    assert terms_in("Xray, fix X, -X-ray") == ["Xray", "fix X", "X-ray"]


def test_front_matter_values_keep_their_letters_and_unbalanced_brackets() -> None:
    text = "---\ntags: Xmas, #Xray, 'X'\naliases: [a, b\nkeywords: c, d]\ntitle: a:b\n---\n"
    assert front_matter_lists(text) == {
        "tags": ["Xmas", "Xray", "X"],
        "aliases": ["[a", "b"],
        "keywords": ["c", "d]"],
        "title": ["a:b"],
    }


def test_a_stray_item_or_an_indented_key_is_no_field() -> None:
    assert front_matter_lists("---\n- stray\n tags: a\nkeywords:\n  -k2\n---\n") == {
        "keywords": ["k2"]
    }


def test_a_fence_closes_only_on_its_own_three_characters() -> None:
    text = "```python\n# inside\n```\n# outside\n~~~~\n# tilde inside\n~~~\n# Fix X\n"
    assert headings(text) == ["outside", "Fix X"]
