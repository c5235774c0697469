"""What the counted logs keep, and how much (kb.pure.logs.logbounds), rule by rule (issue 25: each
rule stated by a test that fails when the rule does)."""

from __future__ import annotations

from kb.pure.logs.logbounds import MAX_TEXT_CHARS, bounded, cut, loggable

# -- cut and loggable ----------------------------------------------------------------------------


def test_a_short_text_is_logged_as_it_is_and_keeps_its_lines_and_tabs() -> None:
    assert loggable("why is the build slow") == "why is the build slow"
    # the row's writer flattens lines; control characters that act on a terminal are escaped
    assert loggable("one\ntwo\tthree\x1b]52;c;x\x07") == "one\ntwo\tthree\\x1b]52;c;x\\x07"


def test_a_long_text_is_logged_cut_to_what_the_router_reads() -> None:
    text = "word " * 3_000
    assert loggable(text) == text[:MAX_TEXT_CHARS]


def test_a_cut_through_a_marker_drops_the_marker_whole_even_at_the_start() -> None:
    assert cut("[REDACTED_SECRET] and more", 5) == ""
    assert cut("ab [REDACTED_PRIVATE_KEY]", 10) == "ab "


def test_a_cut_drops_only_the_last_opening_when_it_begins_a_marker() -> None:
    # an earlier `[` that opens no marker stays, with what follows it up to the marker
    assert cut("[x [REDACTED_SECRET]", 16) == "[x "


def test_a_cut_keeps_a_bracket_that_opens_no_marker() -> None:
    assert cut("see [note] and [other", 18) == "see [note] and [ot"
    assert cut("see [n", 5) == "see "  # a `[` alone at the end could open one: dropped


# -- bounded ---------------------------------------------------------------------------------------

Row = tuple[str, int, str, str]  # name, count, last seen, first seen


def _bounded(rows: list[Row], **bounds: int) -> list[str]:
    kept = bounded(
        rows,
        size=lambda r: 10,
        count=lambda r: r[1],
        seen=lambda r: (r[2], r[3]),
        header_bytes=bounds.pop("header_bytes", 0),
        **bounds,
    )
    return [r[0] for r in kept]


def test_rows_are_dropped_only_until_the_log_fits_its_bytes_exactly() -> None:
    rows = [(name, 1, "2026-11-01", "2026-11-01") for name in "abcd"]
    # 40 bytes against 30: one row goes, and 30 bytes is within the bound
    assert _bounded(rows, max_bytes=30) == ["a", "b", "c"]
    assert _bounded(rows, max_bytes=40) == ["a", "b", "c", "d"]
    assert _bounded(rows, max_bytes=35, header_bytes=5) == ["a", "b", "c"]


def test_among_rows_alike_the_later_in_the_file_goes_first() -> None:
    rows = [(name, 1, "2026-11-01", "2026-11-01") for name in "abc"]
    assert _bounded(rows, max_rows=2) == ["a", "b"]
    assert _bounded(rows, max_rows=1) == ["a"]


def test_the_least_counted_then_the_longest_unseen_then_the_first_seen_earliest_goes_first() -> (
    None
):
    rows = [
        ("asked-twice", 2, "2026-01-01", "2026-01-01"),
        ("seen-late", 1, "2026-11-09", "2026-11-01"),
        ("seen-early", 1, "2026-11-01", "2026-11-01"),
        ("first-early", 1, "2026-11-09", "2026-10-01"),
    ]
    assert _bounded(rows, max_rows=3) == ["asked-twice", "seen-late", "first-early"]
    assert _bounded(rows, max_rows=2) == ["asked-twice", "seen-late"]
    assert _bounded(rows, max_rows=1) == ["asked-twice"]


def test_the_row_just_recorded_is_never_dropped() -> None:
    rows = [(name, 1, "2026-11-01", "2026-11-01") for name in "abc"]
    kept = bounded(
        rows,
        size=lambda r: 10,
        count=lambda r: r[1],
        seen=lambda r: (r[2], r[3]),
        header_bytes=0,
        keep=2,
        max_rows=1,
    )
    assert [r[0] for r in kept] == ["c"]
