"""The rules of kb.pure.writing.sources, one test per rule (workflow-verbs.md §5,
docs/verbs/source-add.md).

Each test names the rule it protects in its docstring. They are pure and in-process, so the
mutation runner (tests/mutation/mutate.py, module `keys`) can use them to kill mutants.
"""

from __future__ import annotations

import pytest
from returns.result import Success

from kb.pure.writing.sources import (
    ALPHABET,
    NOT_A_KEY,
    Draft,
    Record,
    _flag,
    bibliography_line,
    clean_value,
    csl_date,
    csl_item,
    csl_name,
    draft_problem,
    is_iso_date,
    is_key,
    mint_key,
    parse_record,
    record_of,
    record_problem,
    render_record,
)

KEY = "MASLW2HT43"
# the last day of each month of 2023, not a leap year
LAST_DAYS_2023 = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
OTHER = "WEB9LD2ST6"

# Every field set, none of them the default: a field read from or written to the wrong
# place shows up as a difference.
FULL = Record(
    key=KEY,
    type="article",
    title="T",
    authors=("Doe, J.", "Roe, A."),
    year="1999",
    container="C",
    volume="5",
    pages="1-9",
    publisher="P",
    url="https://u.example",
    doi="10.1/x",
    isbn="978-0",
    lang="en",
    retrieved_on="2026-09-06",
    retrieval_status="partial",
    replaces=OTHER,
    note="N",
)
FULL_TEXT = (
    "type = article\n"
    "title = T\n"
    "author = Doe, J.\n"
    "author = Roe, A.\n"
    "year = 1999\n"
    "container = C\n"
    "volume = 5\n"
    "pages = 1-9\n"
    "publisher = P\n"
    "url = https://u.example\n"
    "doi = 10.1/x\n"
    "isbn = 978-0\n"
    "lang = en\n"
    "retrieved_on = 2026-09-06\n"
    "retrieval_status = partial\n"
    f"replaces = {OTHER}\n"
    "note = N\n"
)


def bare(**changes: object) -> Record:
    """The smallest record a file can hold, with `changes` applied."""
    base: dict[str, object] = {
        "key": KEY,
        "type": "book",
        "title": "T",
        "retrieved_on": "d",
        "retrieval_status": "full",
    }
    base.update(changes)
    return Record(**base)  # type: ignore[arg-type]


def ok_draft(**changes: object) -> Draft:
    """A draft `kb source add` accepts, with `changes` applied."""
    base: dict[str, object] = {
        "type": "book",
        "title": "T",
        "retrieved_on": "2024-01-01",
        "retrieval_status": "full",
    }
    base.update(changes)
    return Draft(**base)  # type: ignore[arg-type]


# -- keys -------------------------------------------------------------------------------------


def test_a_key_is_exactly_ten_symbols_of_the_alphabet_case_sensitive() -> None:
    """A key is exactly 10 symbols from the 33-symbol alphabet; case counts; 0, 1, O never."""
    assert is_key(KEY) and is_key("2" * 10) and is_key("Z" * 10)
    assert not is_key(KEY[:9]) and not is_key(KEY + "2") and not is_key("")
    assert not is_key(KEY.lower())
    for lookalike in "01O":
        assert not is_key(lookalike + KEY[1:])
    assert not is_key(KEY[:9] + " ")


def test_a_key_is_drawn_from_the_bytes_by_rejection_not_folding() -> None:
    """Minting maps a byte below 231 to `ALPHABET[byte % 33]` and throws 231..255 away."""
    assert mint_key(bytes([230]) * 10) == "Z" * 10  # the last accepted byte, 230 % 33 == 32
    assert mint_key(bytes([231]) * 10) is None  # the first byte of the biased tail
    assert mint_key(bytes([0, 33, 66, 99, 132, 165, 198, 1, 2, 32])) == "222222234Z"
    assert mint_key(bytes([255, 231, *range(10)])) == ALPHABET[:10]


def test_minting_stops_at_ten_symbols_and_gives_none_when_the_bytes_run_out() -> None:
    """The key is the first 10 accepted bytes; fewer than 10 accepted bytes mint nothing."""
    assert mint_key(bytes(range(10, 30))) == ALPHABET[10:20]
    assert mint_key(bytes(range(9))) is None
    assert mint_key(bytes(range(9)) + bytes([240])) is None
    assert mint_key(b"") is None


# -- reading a record file --------------------------------------------------------------------


def test_writing_order_is_fixed_and_every_field_with_a_value_is_written() -> None:
    """`key = value` lines in the spec's order, one `author` line per author, LF endings."""
    assert render_record(FULL) == FULL_TEXT


def test_a_field_without_a_value_is_not_written() -> None:
    """A field is written only when it has a value: the bare record is its four lines."""
    assert render_record(bare()) == (
        "type = book\ntitle = T\nretrieved_on = d\nretrieval_status = full\n"
    )
    assert render_record(Record(key=KEY, type="book", title="T")) == "type = book\ntitle = T\n"


def test_a_written_record_reads_back_as_itself() -> None:
    """Reading what was written gives the same record, every field in its own place."""
    assert parse_record(KEY, FULL_TEXT) == Success(FULL)
    assert parse_record(KEY, render_record(bare())) == Success(bare())


def test_reading_trims_skips_comments_and_blanks_and_reads_on_after_them() -> None:
    """Lines are trimmed; blank lines, `#` lines and lines with no `=` are skipped, not an end."""
    text = (
        "\n   \n  # comment = not a field\n"
        "no equals sign here\n"
        "  type   =   book  \n"
        "\n"
        "# another\n"
        "nothing here either\n"
        "title = T\n"
        "retrieved_on = d\nretrieval_status = full\n"
    )
    assert parse_record(KEY, text) == Success(bare())


def test_a_hash_inside_a_line_is_content() -> None:
    """Only a line that starts with `#` is a comment."""
    text = "type = book\ntitle = a # b\nretrieved_on = d\nretrieval_status = full\n"
    assert parse_record(KEY, text).unwrap().title == "a # b"


def test_a_line_splits_at_its_first_equals_sign() -> None:
    """`note = x = y` holds the note `x = y`."""
    text = "type = book\ntitle = T\nretrieved_on = d\nretrieval_status = full\nnote = x = y\n"
    assert parse_record(KEY, text).unwrap().note == "x = y"


def test_field_names_are_lower_cased_and_values_keep_their_case() -> None:
    """`TITLE = Big` is the title `Big`."""
    text = "TYPE = book\nTitle = Big Case\nRetrieved_On = D\nRETRIEVAL_STATUS = full\n"
    record = parse_record(KEY, text).unwrap()
    assert record.title == "Big Case" and record.retrieved_on == "D"


def test_a_pair_with_an_empty_side_is_dropped() -> None:
    """`year =` sets no year and ` = x` sets nothing, and neither stops the reading."""
    text = "type = book\nyear =\n = orphan\ntitle = T\nretrieved_on = d\nretrieval_status = full\n"
    assert parse_record(KEY, text) == Success(bare())
    # a later value still counts once the empty one is dropped
    record = parse_record(KEY, text + "year = 2001\n").unwrap()
    assert record.year == "2001"


def test_the_first_value_wins_except_for_authors_which_are_all_kept_in_order() -> None:
    """Repeated fields: the first value counts; every `author` line is an author, in order."""
    text = (
        "type = book\ntype = report\ntitle = First\nauthor = B\ntitle = Second\n"
        "author = A\nretrieved_on = d\nretrieval_status = full\n"
    )
    record = parse_record(KEY, text).unwrap()
    assert record.type == "book" and record.title == "First" and record.authors == ("B", "A")


def test_a_carriage_return_before_the_newline_is_not_content() -> None:
    """CRLF files read like LF files."""
    assert parse_record(KEY, FULL_TEXT.replace("\n", "\r\n")) == Success(FULL)


def test_the_record_key_is_the_file_name_never_a_line_of_the_body() -> None:
    """A `key =` line in the body does not change the record's key."""
    text = f"key = {OTHER}\n" + render_record(bare())
    assert parse_record(KEY, text).unwrap().key == KEY


# -- refusing a record ------------------------------------------------------------------------


def test_a_refusal_quotes_its_value_on_one_line() -> None:
    """A stem or value quoted in a refusal goes through `printable`: no line break survives."""
    assert record_problem("a\nb", {}) == f"`a\\nb` is not a key: {NOT_A_KEY}"
    assert record_problem(KEY, {"type": "bo\rok"}) == (
        "type is `bo\\rok`, which is not one of book, chapter, article, report, webpage, recording"
    )
    status = {"type": "book", "retrieval_status": "f\x1bull"}
    assert record_problem(KEY, status) == (
        "retrieval_status is `f\\x1bull`, which is not one of full, partial, metadata, unreachable"
    )
    replaces = {"type": "book", "retrieval_status": "full", "replaces": "x\ny"}
    assert record_problem(KEY, replaces) == "replaces is `x\\ny`, which is not a key"


def test_a_record_with_every_required_field_is_not_refused() -> None:
    """type, retrieval_status, title and retrieved_on are enough; `replaces` may name another."""
    needed = {
        "type": "webpage",
        "retrieval_status": "unreachable",
        "title": "T",
        "retrieved_on": "d",
    }
    assert record_problem(KEY, needed) is None
    assert record_problem(KEY, {**needed, "replaces": OTHER}) is None


def test_every_type_and_every_status_is_accepted() -> None:
    """The six types and the four statuses are all legal in a file."""
    for kind in ("book", "chapter", "article", "report", "webpage", "recording"):
        for status in ("full", "partial", "metadata", "unreachable"):
            fields = {"type": kind, "retrieval_status": status, "title": "T", "retrieved_on": "d"}
            assert record_problem(KEY, fields) is None, (kind, status)


def test_the_title_is_checked_before_the_retrieval_date() -> None:
    """§5.2 order: a record missing both is refused for its title."""
    assert record_problem(KEY, {"type": "book", "retrieval_status": "full"}) == "no `title =` line"


# -- kb source add: the draft -----------------------------------------------------------------


def test_an_empty_flag_counts_as_absent() -> None:
    """A flag's value is trimmed, and nothing left means the flag was not given."""
    assert clean_value(None) is None
    assert clean_value("") is None
    assert clean_value("  \t ") is None
    assert clean_value("  a b ") == "a b"


def test_a_flag_is_named_as_typed_on_the_command_line() -> None:
    """Messages name `--author` for the authors and `--retrieved-on` for retrieved_on."""
    assert _flag("authors") == "--author"
    assert _flag("retrieved_on") == "--retrieved-on"
    assert _flag("retrieval_status") == "--retrieval-status"
    assert _flag("title") == "--title"


def test_a_draft_is_checked_in_the_documented_order() -> None:
    """type, status, replaces, title, retrieved-on, then line breaks: the first failure wins."""
    nothing = frozenset[str]()
    assert draft_problem(Draft(title="T"), nothing, ".") == "--type is required"
    assert draft_problem(Draft(type="Book", retrieval_status="x"), nothing, ".") == (
        "type is `Book`, which is not one of book, chapter, article, report, webpage, recording"
    )
    assert draft_problem(Draft(type="book"), nothing, ".") == "--retrieval-status is required"
    assert draft_problem(Draft(type="book", retrieval_status="read"), nothing, ".") == (
        "retrieval-status is `read`, which is not one of full, partial, metadata, unreachable"
    )
    bad_replaces = Draft(type="book", retrieval_status="full", replaces="x\ny")
    assert draft_problem(bad_replaces, nothing, ".") == (
        f"replaces is `x\\ny`, which is not a key: {NOT_A_KEY}"
    )
    no_title = Draft(type="book", retrieval_status="full", replaces=KEY, retrieved_on="x")
    assert draft_problem(no_title, frozenset({KEY}), ".") == "--title is required"
    no_date = Draft(type="book", retrieval_status="full", title="T\nU")
    assert draft_problem(no_date, nothing, ".") == "--retrieved-on is required"
    bad_date = ok_draft(retrieved_on="yesterday\x1b", title="T\nU")
    assert draft_problem(bad_date, nothing, ".") == (
        "--retrieved-on takes the day you read it as YYYY-MM-DD (2026-09-06), not `yesterday\\x1b`"
    )


def test_replaces_must_name_a_record_of_this_base() -> None:
    """A supersession must point at a record the base holds; the message names the base."""
    draft = ok_draft(replaces=OTHER)
    assert draft_problem(draft, frozenset({OTHER}), "notes") is None
    assert draft_problem(draft, frozenset({KEY}), "notes") == (
        f"replaces names `{OTHER}`, but notes has no sources/{OTHER}.txt: "
        "a record can only supersede one that exists"
    )


def test_every_accepted_type_and_status_passes_a_draft() -> None:
    """The six types and four statuses are legal flags too."""
    for kind in ("book", "chapter", "article", "report", "webpage", "recording"):
        for status in ("full", "partial", "metadata", "unreachable"):
            draft = ok_draft(type=kind, retrieval_status=status)
            assert draft_problem(draft, frozenset(), ".") is None


@pytest.mark.parametrize(
    ("changes", "flag"),
    [
        ({"title": "a\nb"}, "--title"),
        ({"title": "a\rb"}, "--title"),
        ({"authors": ("A", "B\nC")}, "--author"),
        ({"year": "19\r99"}, "--year"),
        ({"container": "c\n"}, "--container"),
        ({"note": "x\ny"}, "--note"),
        ({"title": "a\nb", "note": "x\ny"}, "--title"),
    ],
)
def test_a_value_holding_a_line_break_is_refused_naming_its_flag(
    changes: dict[str, object], flag: str
) -> None:
    """A record keeps each value on one line: a LF or CR in any value is refused, the
    first such flag (in the draft's order, every author checked) named."""
    assert draft_problem(ok_draft(**changes), frozenset(), ".") == (
        f"{flag} holds a line break, and a record keeps each value on one line: give it as one line"
    )


def test_a_full_draft_on_one_line_is_accepted() -> None:
    """Every optional flag given, all on one line: nothing to refuse."""
    draft = ok_draft(
        authors=("A", "B"),
        year="1999",
        container="C",
        volume="5",
        pages="1",
        publisher="P",
        url="u",
        doi="d",
        isbn="i",
        lang="en",
        note="n",
    )
    assert draft_problem(draft, frozenset(), ".") is None


def test_a_checked_draft_becomes_the_record_of_its_flags() -> None:
    """`record_of` carries every flag into the field of the same name, under the minted key."""
    draft = Draft(
        type=FULL.type,
        title=FULL.title,
        retrieved_on=FULL.retrieved_on,
        retrieval_status=FULL.retrieval_status,
        authors=FULL.authors,
        year=FULL.year,
        container=FULL.container,
        volume=FULL.volume,
        pages=FULL.pages,
        publisher=FULL.publisher,
        url=FULL.url,
        doi=FULL.doi,
        isbn=FULL.isbn,
        lang=FULL.lang,
        replaces=FULL.replaces,
        note=FULL.note,
    )
    assert record_of(draft, KEY) == FULL
    empty = record_of(Draft(), KEY)
    assert (empty.type, empty.title, empty.retrieved_on, empty.retrieval_status) == ("", "", "", "")
    assert render_record(empty) == ""


# -- the calendar date ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "2024-01-01",
        "0001-01-01",
        "2024-02-29",
        "2000-02-29",
        "2023-02-28",
        "2024-12-31",
        *(f"2023-{m:02d}-{d}" for m, d in enumerate(LAST_DAYS_2023, 1)),
    ],
)
def test_a_calendar_day_is_accepted(text: str) -> None:
    """`--retrieved-on` takes any day that exists as YYYY-MM-DD, each month's last too."""
    assert is_iso_date(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "2024",
        "2024-01",
        "2024-01-011",
        "2024-1-01",
        "2024/01/01",
        "2024-01/01",
        "2024-01-0x",
        "0000-01-01",
        "2024-00-10",
        "2024-13-01",
        "2024-01-00",
        "2024-01-32",
        "2023-02-29",
        "1900-02-29",
        "2100-02-29",
        "２０２４-01-01",
        "2024-0١-01",
        *(f"2023-{m:02d}-{d + 1}" for m, d in enumerate(LAST_DAYS_2023, 1)),
    ],
)
def test_anything_but_a_calendar_day_is_refused(text: str) -> None:
    """Not YYYY-MM-DD in ASCII digits, year 0, month 0 or 13, day 0, a day past the month's
    last (February 29 only in a leap year: every 4th, not every 100th, every 400th)."""
    assert not is_iso_date(text)


# -- the bibliography line --------------------------------------------------------------------


def test_the_status_phrase_comes_from_the_retrieval_status() -> None:
    """full, partial and metadata have their phrases; anything else could not be reached."""
    phrases = {
        "full": "read in full",
        "partial": "read in part",
        "metadata": "catalogue record only, not read",
        "unreachable": "could not be reached",
        "lost": "could not be reached",
        "": "could not be reached",
    }
    for status, phrase in phrases.items():
        assert bibliography_line(bare(retrieval_status=status)) == f'"T". {phrase}, d.'


def test_a_bibliography_line_holds_every_part_in_order() -> None:
    """Authors joined by `; `, the quoted title, where it sits, publisher, year, DOI, ISBN,
    url, then the status and the retrieval date, joined by `. ` and closed by one `.`."""
    assert bibliography_line(FULL) == (
        'Doe, J.; Roe, A. "T". C 5, 1-9. P. 1999. DOI 10.1/x. ISBN 978-0. https://u.example. '
        "read in part, 2026-09-06."
    )


def test_a_part_that_ends_in_a_full_stop_is_followed_by_a_space_only() -> None:
    """No `..` between parts, and no second full stop at the end."""
    record = bare(authors=("Doe, J.",), publisher="P. Inc.", retrieved_on="d.")
    assert bibliography_line(record) == 'Doe, J. "T". P. Inc. read in full, d.'


def test_where_it_sits_shows_a_volume_only_with_a_container() -> None:
    """container, ` volume` after a container only, then `, pages` (or the pages alone)."""
    cases: list[tuple[dict[str, object], str]] = [
        ({"container": "C"}, '"T". C. read in full, d.'),
        ({"container": "C", "volume": "5"}, '"T". C 5. read in full, d.'),
        ({"container": "C", "pages": "7"}, '"T". C, 7. read in full, d.'),
        ({"container": "C", "volume": "5", "pages": "7"}, '"T". C 5, 7. read in full, d.'),
        ({"volume": "5"}, '"T". read in full, d.'),
        ({"pages": "7"}, '"T". 7. read in full, d.'),
        ({"volume": "5", "pages": "7"}, '"T". 7. read in full, d.'),
    ]
    for changes, line in cases:
        assert bibliography_line(bare(**changes)) == line, changes


def test_each_optional_part_is_shown_alone() -> None:
    """An optional part appears only when given, with its own prefix."""
    cases: list[tuple[dict[str, object], str]] = [
        ({"authors": ("A",)}, 'A. "T". read in full, d.'),
        ({"publisher": "P"}, '"T". P. read in full, d.'),
        ({"year": "1999"}, '"T". 1999. read in full, d.'),
        ({"doi": "10.1/x"}, '"T". DOI 10.1/x. read in full, d.'),
        ({"isbn": "978"}, '"T". ISBN 978. read in full, d.'),
        ({"url": "u"}, '"T". u. read in full, d.'),
    ]
    for changes, line in cases:
        assert bibliography_line(bare(**changes)) == line, changes


# -- CSL JSON ---------------------------------------------------------------------------------


def test_each_type_has_its_csl_type_and_anything_else_is_a_webpage() -> None:
    """book, chapter, report keep their names; article is article-journal; recording is
    motion_picture; webpage and any unknown type export as webpage."""
    mapping = {
        "book": "book",
        "chapter": "chapter",
        "article": "article-journal",
        "report": "report",
        "recording": "motion_picture",
        "webpage": "webpage",
        "zine": "webpage",
    }
    for kind, csl in mapping.items():
        assert csl_item(bare(type=kind))["type"] == csl, kind


def test_the_csl_projection_of_a_bare_record() -> None:
    """id, type, title, accessed and custom are always there; nothing else is invented."""
    assert csl_item(bare(retrieved_on="2026-09-06", retrieval_status="metadata")) == {
        "id": KEY,
        "type": "book",
        "title": "T",
        "accessed": {"date-parts": [[2026, 9, 6]]},
        "custom": {"retrieval_status": "metadata"},
    }


def test_the_csl_projection_names_every_field_under_its_csl_variable() -> None:
    """Every field in its CSL variable, every author in order, the year as `issued`."""
    item = csl_item(FULL)
    assert item == {
        "id": KEY,
        "type": "article-journal",
        "title": "T",
        "author": [{"family": "Doe", "given": "J."}, {"family": "Roe", "given": "A."}],
        "container-title": "C",
        "volume": "5",
        "page": "1-9",
        "publisher": "P",
        "URL": "https://u.example",
        "DOI": "10.1/x",
        "ISBN": "978-0",
        "language": "en",
        "note": "N",
        "issued": {"date-parts": [[1999]]},
        "accessed": {"date-parts": [[2026, 9, 6]]},
        "custom": {"retrieval_status": "partial", "replaces": OTHER},
    }
    assert list(item) == [
        "id", "type", "title", "author", "container-title", "volume", "page", "publisher",
        "URL", "DOI", "ISBN", "language", "note", "issued", "accessed", "custom",
    ]  # fmt: skip


def test_a_name_splits_at_its_first_comma_when_a_given_name_follows() -> None:
    """`Family, Given` (both trimmed) when the part after the first comma is not blank;
    otherwise the name as written, untrimmed, is a literal."""
    assert csl_name(" Roe ,  Ann ") == {"family": "Roe", "given": "Ann"}
    assert csl_name("Roe, Ann, Jr.") == {"family": "Roe", "given": "Ann, Jr."}
    assert csl_name("Plato") == {"literal": "Plato"}
    assert csl_name("Doe,") == {"literal": "Doe,"}
    assert csl_name("Doe,   ") == {"literal": "Doe,   "}
    assert csl_name(" Plato ") == {"literal": " Plato "}


def test_a_date_is_its_first_three_numeric_parts() -> None:
    """Split on `-`, at most three parts, each an ASCII number (`09` is 9), others dropped."""
    assert csl_date("2026-09-06") == {"date-parts": [[2026, 9, 6]]}
    assert csl_date("2026-09-06-07") == {"date-parts": [[2026, 9, 6]]}
    assert csl_date("2026-xx-06") == {"date-parts": [[2026, 6]]}
    assert csl_date("2026--06") == {"date-parts": [[2026, 6]]}
    assert csl_date("0") == {"date-parts": [[0]]}
    assert csl_date("٢٠٢٤-01") == {"date-parts": [[1]]}


def test_a_date_part_must_fit_a_32_bit_integer() -> None:
    """The largest i32 is kept; one more is dropped, as the original's parser does."""
    assert csl_date("2147483647") == {"date-parts": [[2147483647]]}
    assert csl_date("2147483648-5") == {"date-parts": [[5]]}


def test_a_date_with_no_number_is_a_literal() -> None:
    """`n.d.` and `c. 1900` have no numeric part: the text as written, never empty parts."""
    assert csl_date("n.d.") == {"literal": "n.d."}
    assert csl_date("c. 1900") == {"literal": "c. 1900"}
    assert csl_date("") == {"literal": ""}
    assert csl_item(bare(year="n.d."))["issued"] == {"literal": "n.d."}
