"""Properties of kb.pure.writing.sources: keys, the record file, the bibliography line, CSL JSON.

The CSL checks are made against the CSL-JSON schema's variable list (citation-style-language
/schema, csl-data.json), not against our own mapping table, and one test hands the items to
a real reference processor (citeproc-py) to render a bibliography.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from kb.pure.render.jsonout import dumps
from kb.pure.writing.sources import (
    ALPHABET,
    KEY_LENGTH,
    NOT_A_KEY,
    STATUSES,
    TYPES,
    Draft,
    Record,
    bibliography_line,
    csl_item,
    draft_problem,
    is_iso_date,
    is_key,
    mint_key,
    parse_record,
    render_record,
)

PURE = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# A generated record is 17 draws; 120 of them keep this file within its time budget.
RECORDS = settings(PURE, max_examples=120)

MASLOW = Record(
    key="MASLW2HT43",
    type="article",
    title="A Theory of Human Motivation",
    authors=("Maslow, A. H.",),
    year="1943",
    container="Psychological Review",
    volume="50",
    pages="370-396",
    url="https://psychclassics.yorku.ca/Maslow/motivation.htm",
    retrieved_on="2026-09-06",
    retrieval_status="full",
)
MASLOW_LINE = (
    'Maslow, A. H. "A Theory of Human Motivation". Psychological Review 50, 370-396. 1943. '
    "https://psychclassics.yorku.ca/Maslow/motivation.htm. read in full, 2026-09-06."
)

# -- generated records ------------------------------------------------------------------------

keys = st.text(alphabet=ALPHABET, min_size=KEY_LENGTH, max_size=KEY_LENGTH)


def _one_line(chars: st.SearchStrategy[str], max_size: int) -> st.SearchStrategy[str]:
    """Non-empty, trimmed, on one line: what `kb source add` accepts as a value."""
    text = st.text(alphabet=chars, min_size=1, max_size=max_size)
    return text.map(str.strip).filter(bool)


# Any text a record can hold.
values = _one_line(st.characters(exclude_characters="\n\r"), 30)
# Printable text for the reference processor, which is not ours to fuzz.
printable = _one_line(st.characters(categories=("L", "N", "P", "Zs"), max_codepoint=0x2FFF), 20)
dates = st.one_of(
    st.builds(
        "-".join,
        st.lists(st.integers(0, 9999).map(lambda n: f"{n:02d}"), min_size=1, max_size=4),
    ),
    values,
)


@st.composite
def records(draw: st.DrawFn, text: st.SearchStrategy[str] = values) -> Record:
    key = draw(keys)
    maybe = st.none() | text
    replaces = draw(st.none() | keys.filter(lambda k: k != key))
    return Record(
        key=key,
        type=draw(st.sampled_from(TYPES)),
        title=draw(text),
        authors=tuple(draw(st.lists(text, max_size=3))),
        year=draw(st.none() | dates),
        container=draw(maybe),
        volume=draw(maybe),
        pages=draw(maybe),
        publisher=draw(maybe),
        url=draw(maybe),
        doi=draw(maybe),
        isbn=draw(maybe),
        lang=draw(maybe),
        retrieved_on=draw(dates),
        retrieval_status=draw(st.sampled_from(STATUSES)),
        replaces=replaces,
        note=draw(maybe),
    )


# -- keys -------------------------------------------------------------------------------------


@PURE
@given(st.binary(max_size=40))
def test_minted_keys_are_legal_or_none(entropy: bytes) -> None:
    key = mint_key(entropy)
    usable = [b for b in entropy if b < 231]
    if len(usable) < KEY_LENGTH:
        assert key is None
    else:
        assert key is not None and len(key) == KEY_LENGTH and is_key(key)
        assert set(key) <= set(ALPHABET)
        assert key == "".join(ALPHABET[b % 33] for b in usable[:KEY_LENGTH])


def test_minting_is_exactly_uniform_over_accepted_bytes() -> None:
    firsts: Counter[str] = Counter()
    for b in range(256):
        key = mint_key(bytes([b]) * KEY_LENGTH)
        if b >= 231:
            assert key is None  # the biased tail is thrown away, never folded in
        else:
            assert key is not None
            firsts[key[0]] += 1
    assert set(firsts) == set(ALPHABET)
    assert set(firsts.values()) == {7}  # 231 accepted bytes, 7 per symbol


def test_alphabet_has_no_lookalikes() -> None:
    assert len(ALPHABET) == 33 == len(set(ALPHABET))
    assert not set("01O") & set(ALPHABET) and {"I", "L"} <= set(ALPHABET)


@PURE
@given(st.text(max_size=12))
def test_is_key_matches_its_definition(text: str) -> None:
    assert is_key(text) == (len(text) == 10 and all(c in ALPHABET for c in text))


# -- the record file --------------------------------------------------------------------------


@RECORDS
@given(records())
def test_render_then_parse_round_trips(record: Record) -> None:
    text = render_record(record)
    assert parse_record(record.key, text) == Success(record)
    lines = text.split("\n")
    assert lines[-1] == "" and all(" = " in line for line in lines[:-1])
    assert lines[0] == f"type = {record.type}" and lines[1] == f"title = {record.title}"
    assert sum(1 for line in lines if line.startswith("author = ")) == len(record.authors)


def test_reading_rules() -> None:
    text = (
        "# a comment\r\n\r\n  TYPE =  book \r\ntitle = First # not a comment\n"
        "title = Second\nauthor = B\nnonsense line\n = orphan\nyear =\nauthor = A\n"
        "retrieved_on = 2024\nretrieval_status = full\nnote = x = y\n"
    )
    record = parse_record("MASLW2HT43", text).unwrap()
    assert record.type == "book" and record.title == "First # not a comment"
    assert record.authors == ("B", "A") and record.year is None and record.note == "x = y"


def test_problems_come_in_the_spec_order() -> None:
    ok = "type = book\ntitle = T\nretrieved_on = d\nretrieval_status = full\n"
    cases = [
        ("notakey", ok, f"`notakey` is not a key: {NOT_A_KEY}"),
        ("MASLW2HT4O", ok, f"`MASLW2HT4O` is not a key: {NOT_A_KEY}"),
        ("MASLW2HT43", "title = T\n", "no `type =` line"),
        (
            "MASLW2HT43",
            "type = Book\n",
            "type is `Book`, which is not one of book, chapter, article, report, webpage,"
            " recording",
        ),
        ("MASLW2HT43", "type = book\ntitle = T\n", "no `retrieval_status =` line"),
        (
            "MASLW2HT43",
            "type = book\nretrieval_status = read\n",
            "retrieval_status is `read`, which is not one of full, partial, metadata, unreachable",
        ),
        (
            "MASLW2HT43",
            "type = book\nretrieval_status = full\nreplaces = x\n",
            "replaces is `x`, which is not a key",
        ),
        (
            "MASLW2HT43",
            "type = book\nretrieval_status = full\nreplaces = MASLW2HT43\n",
            "replaces names this record, so it supersedes itself",
        ),
        ("MASLW2HT43", "type = book\nretrieval_status = full\n", "no `title =` line"),
        (
            "MASLW2HT43",
            "type = book\nretrieval_status = full\ntitle = T\n",
            "no `retrieved_on =` line",
        ),
    ]
    for stem, text, problem in cases:
        assert parse_record(stem, text) == Failure(problem), stem + text


def test_draft_checks_everything_before_anything_is_created() -> None:
    full = Draft(type="book", title="T", retrieved_on="2024-01-01", retrieval_status="full")
    assert draft_problem(full, frozenset(), ".") is None
    assert draft_problem(Draft(), frozenset(), ".") == "--type is required"
    missing = Draft(type="book", retrieval_status="full", replaces="MASLW2HT43")
    assert draft_problem(missing, frozenset(), "b") == (
        "replaces names `MASLW2HT43`, but b has no sources/MASLW2HT43.txt:"
        " a record can only supersede one that exists"
    )
    assert draft_problem(missing, frozenset({"MASLW2HT43"}), "b") == "--title is required"


# -- the bibliography line --------------------------------------------------------------------


def test_the_spec_example_line_is_byte_exact() -> None:
    assert bibliography_line(MASLOW) == MASLOW_LINE


def test_join_rules() -> None:
    bare = Record(
        key="MASLW2HT43", type="book", title="T", retrieved_on="d", retrieval_status="unreachable"
    )
    assert bibliography_line(bare) == '"T". could not be reached, d.'
    ends_in_dot = Record(
        key="MASLW2HT43",
        type="book",
        title="T",
        authors=("Doe, J.",),
        volume="9",
        pages="1-2",
        publisher="P. Inc.",
        retrieved_on="d.",
        retrieval_status="metadata",
    )
    # A volume with no container is not shown; pages stand alone; a part ending in `.`
    # is followed by a space only, and no second full stop closes the line.
    assert bibliography_line(ends_in_dot) == (
        'Doe, J. "T". 1-2. P. Inc. catalogue record only, not read, d.'
    )


@RECORDS
@given(records())
def test_bibliography_line_shape(record: Record) -> None:
    line = bibliography_line(record)
    assert line.endswith(".") and f'"{record.title}"' in line
    assert "\n" not in line
    assert record.retrieved_on in line


# -- CSL JSON ---------------------------------------------------------------------------------

# From the CSL-JSON schema (csl-data.json, CSL 1.0.2): the item types and the variables.
CSL_TYPES = {
    "article", "article-journal", "article-magazine", "article-newspaper", "bill", "book",
    "broadcast", "chapter", "classic", "collection", "dataset", "document", "entry",
    "entry-dictionary", "entry-encyclopedia", "event", "figure", "graphic", "hearing",
    "interview", "legal_case", "legislation", "manuscript", "map", "motion_picture",
    "musical_score", "pamphlet", "paper-conference", "patent", "performance", "periodical",
    "personal_communication", "post", "post-weblog", "regulation", "report", "review",
    "review-book", "software", "song", "speech", "standard", "thesis", "treaty", "webpage",
}  # fmt: skip
STRING_VARIABLES = {
    "title", "container-title", "volume", "page", "publisher", "URL", "DOI", "ISBN",
    "language", "note",
}  # fmt: skip
NAME_VARIABLES = {"author"}
DATE_VARIABLES = {"issued", "accessed"}


def _is_name(value: Any) -> bool:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        return False
    return set(value) in ({"family", "given"}, {"literal"})


def _is_date(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if set(value) == {"literal"}:
        return isinstance(value["literal"], str) and bool(value["literal"])
    if set(value) != {"date-parts"}:
        return False
    parts = value["date-parts"]
    return (
        isinstance(parts, list)
        and len(parts) == 1
        and isinstance(parts[0], list)
        and 1 <= len(parts[0]) <= 3
        and all(isinstance(n, int) and not isinstance(n, bool) for n in parts[0])
    )


@RECORDS
@given(records())
def test_csl_items_are_valid_csl_json(record: Record) -> None:
    item = json.loads(dumps(csl_item(record)))
    assert item == csl_item(record)  # plain JSON values only, nothing lost in writing
    assert item["id"] == record.key and item["type"] in CSL_TYPES
    for name, value in item.items():
        if name in ("id", "type"):
            continue
        if name in STRING_VARIABLES:
            assert isinstance(value, str) and value, name
        elif name in NAME_VARIABLES:
            assert isinstance(value, list) and value and all(_is_name(n) for n in value)
        elif name in DATE_VARIABLES:
            assert _is_date(value), (name, value)
        else:
            assert name == "custom" and isinstance(value, dict), name
    assert "accessed" in item and item["custom"]["retrieval_status"] == record.retrieval_status
    keys_in_order = [k for k in item if k not in ("id", "type", "title")]
    expected_order = [
        "author", "container-title", "volume", "page", "publisher", "URL", "DOI", "ISBN",
        "language", "note", "issued", "accessed", "custom",
    ]  # fmt: skip
    assert keys_in_order == [k for k in expected_order if k in item]


def test_csl_of_the_spec_example() -> None:
    assert csl_item(MASLOW) == {
        "id": "MASLW2HT43",
        "type": "article-journal",
        "title": "A Theory of Human Motivation",
        "author": [{"family": "Maslow", "given": "A. H."}],
        "container-title": "Psychological Review",
        "volume": "50",
        "page": "370-396",
        "URL": "https://psychclassics.yorku.ca/Maslow/motivation.htm",
        "issued": {"date-parts": [[1943]]},
        "accessed": {"date-parts": [[2026, 9, 6]]},
        "custom": {"retrieval_status": "full"},
    }


def test_csl_names_and_dates() -> None:
    base = Record(
        key="MASLW2HT43",
        type="recording",
        title="T",
        retrieved_on="2026-09-x",
        retrieval_status="full",
        replaces="WEB9LD2ST6",
        authors=("Plato", "Doe,", ", Jane", " Roe , Ann B. "),
    )
    item = csl_item(base)
    assert item["type"] == "motion_picture"
    assert item["author"] == [
        {"literal": "Plato"},
        {"literal": "Doe,"},
        {"family": "", "given": "Jane"},
        {"family": "Roe", "given": "Ann B."},
    ]
    assert item["accessed"] == {"date-parts": [[2026, 9]]}
    assert item["custom"] == {"retrieval_status": "full", "replaces": "WEB9LD2ST6"}
    undated = Record(
        key="MASLW2HT43",
        type="book",
        title="T",
        year="n.d.",
        retrieved_on="09",
        retrieval_status="full",
    )
    assert csl_item(undated)["issued"] == {"literal": "n.d."}
    assert csl_item(undated)["accessed"] == {"date-parts": [[9]]}


def _render_with_citeproc(items: list[dict[str, object]]) -> list[str]:
    from citeproc import (  # type: ignore[import-untyped]
        Citation,
        CitationItem,
        CitationStylesBibliography,
        CitationStylesStyle,
        formatter,
    )
    from citeproc.source.json import CiteProcJSON  # type: ignore[import-untyped]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # citeproc-py does not model `custom`, and says so
        source = CiteProcJSON(json.loads(dumps(items)))
        style = CitationStylesStyle("harvard-cite-them-right", validate=False)
        bibliography = CitationStylesBibliography(style, source, formatter.plain)
        for item in items:
            bibliography.register(Citation([CitationItem(str(item["id"]))]))
        return [str(entry) for entry in bibliography.bibliography()]


def test_citeproc_renders_the_spec_example() -> None:
    (entry,) = _render_with_citeproc([csl_item(MASLOW)])
    assert entry.startswith("Maslow, A.H. (1943)")
    assert "Psychological Review, 50, pp. 370" in entry


@settings(PURE, max_examples=30)
@given(st.lists(records(printable), min_size=1, max_size=4, unique_by=lambda r: r.key))
def test_citeproc_renders_a_bibliography_from_any_records(rs: list[Record]) -> None:
    entries = _render_with_citeproc([csl_item(r) for r in rs])
    assert len(entries) == len(rs)
    assert all(e.strip() for e in entries)


@given(st.one_of(st.dates().map(str), st.text(max_size=12), st.from_regex(r"\d{4}-\d{2}-\d{2}")))
def test_retrieved_on_is_exactly_a_calendar_day(text: str) -> None:
    """`kb source add --retrieved-on` takes what `date.fromisoformat` reads as YYYY-MM-DD, and
    nothing else (`yesterday`, `2024-02-30`, `24-1-1`)."""
    import datetime

    try:
        expected = len(text) == 10 and datetime.date.fromisoformat(text).isoformat() == text
    except ValueError:
        expected = False
    assert is_iso_date(text) == expected
