"""The miss log's own rules (issue 25: the miss log's tests must catch a repeat that keeps
its old last-seen date, without relying on another module's property)."""

from __future__ import annotations

from kb.pure.logs.misslog import HEADER, Miss, ordered, parse, record, render


def test_a_repeated_question_counts_up_and_moves_its_last_seen_date() -> None:
    log = record([], "Why is the build slow", ["build"], "2026-11-01")
    again = record(log, "why is the BUILD slow", ["slow build"], "2026-12-02")
    assert again == [Miss(2, "2026-11-01", "2026-12-02", "Why is the build slow", ("slow build",))]


def test_a_new_question_starts_at_one_seen_today_and_keeps_its_spelling() -> None:
    log = record([Miss(3, "2026-01-01", "2026-01-02", "old", ())], " New Q ", [], "2026-12-02")
    assert Miss(1, "2026-12-02", "2026-12-02", "New Q", ()) in log
    assert Miss(3, "2026-01-01", "2026-01-02", "old", ()) in log


def test_the_most_asked_comes_first_then_by_question() -> None:
    misses = [Miss(1, "d", "d", "b", ()), Miss(5, "d", "d", "z", ()), Miss(1, "d", "d", "a", ())]
    assert [m.question for m in ordered(misses)] == ["z", "a", "b"]


def test_a_line_break_in_a_question_or_an_offer_becomes_a_space() -> None:
    log = record([], "one\ntwo\rthree", ["a\nb", "  ", ""], "2026-12-02")
    assert log[0].question == "one two three" and log[0].looked_like == ("a b",)
    assert record(log, "  \n ", [], "2026-12-02") == log  # nothing to record


def test_rendering_and_parsing_give_the_same_log_back() -> None:
    log = record(record([], "kubernets crashloop", ["kubernetes"], "2026-12-01"), "q2", [], "x")
    text = render(log)
    assert text.startswith(HEADER)
    assert parse(text) == log
    assert "     looked like: kubernetes\n" in text


def test_the_reader_skips_what_is_not_a_row_and_keeps_the_rest() -> None:
    text = (
        HEADER
        + "\n2    2026-11-01 2026-11-02 good question\n"
        + "xx   2026-11-01 2026-11-02 not a count\n"
        + "1234567890123456789 2026-11-01 2026-11-02 too long a count\n"
        + "3    2026-11-01\n"
        + "     looked like: orphan offer\n"
        + "1    2026-11-03 2026-11-04 GOOD QUESTION\n"
        + "1    2026-11-0"
    )
    assert parse(text) == [Miss(1, "2026-11-03", "2026-11-04", "GOOD QUESTION", ())]


def test_questions_are_told_apart_as_lowercase_not_as_uppercase() -> None:
    """`straße` and `STRASSE` are two questions (their lowercase differs), though their
    uppercase is one word."""
    text = HEADER + "\n1    d1 d1 straße\n1    d2 d2 STRASSE\n"
    assert {m.question for m in parse(text)} == {"straße", "STRASSE"}


def test_an_eighteen_digit_count_is_read_and_a_longer_one_is_not() -> None:
    text = HEADER + "\n" + "9" * 18 + " d d eighteen\n" + "9" * 19 + " d d nineteen\n"
    assert [m.question for m in parse(text)] == ["eighteen"]


def test_a_carriage_return_in_an_offer_becomes_a_space() -> None:
    [m] = record([], "q", ["a\rb"], "d")
    assert m.looked_like == ("a b",)


def test_an_offer_line_before_any_row_belongs_to_no_question() -> None:
    text = HEADER + "\n     looked like: stray\n1    d d real\n"
    assert parse(text) == [Miss(1, "d", "d", "real", ())]


def test_a_looked_like_line_survives_a_blank_or_comment_line_before_it() -> None:
    from kb.pure.logs.misslog import parse

    for between in ("", "# a note to self", "   "):
        row = "2\t2026-01-01\t2026-01-02\thow do I rotate keys\n"
        text = f"{row}{between}\n  looked like: key rotation\n"
        (miss,) = parse(text)
        assert miss.looked_like == ("key rotation",), repr(between)


def test_a_looked_like_line_after_a_damaged_row_is_dropped() -> None:
    from kb.pure.logs.misslog import parse

    text = "x\tnot\ta row\n  looked like: nothing\n1\t2026-01-01\t2026-01-01\tok question\n"
    (miss,) = parse(text)
    assert miss.question == "ok question" and miss.looked_like == ()


def test_questions_an_older_kb_logged_whole_are_cut_and_folded_when_they_then_match() -> None:
    """Rows whose questions read the same once cut to the limit become one row: counts
    added, the earliest first date, the latest last date; rows that fit are left alone."""
    from kb.pure.logs.logbounds import MAX_TEXT_CHARS
    from kb.pure.logs.misslog import Miss, record

    head = "why " + "x" * MAX_TEXT_CHARS
    old = [
        Miss(3, "2026-01-05", "2026-02-01", head + " tail one", ()),
        Miss(2, "2026-01-02", "2026-03-01", head.upper() + " TAIL TWO", ()),
        Miss(1, "2026-01-09", "2026-01-09", "short question", ()),
    ]
    rows = record(old, "another question", (), "2026-04-01")
    cut_rows = [m for m in rows if m.question.lower().startswith("why ")]
    assert len(cut_rows) == 1
    (folded,) = cut_rows
    assert folded.count == 5 and (folded.first, folded.last) == ("2026-01-02", "2026-03-01")
    assert len(folded.question) <= MAX_TEXT_CHARS
    assert {m.question for m in rows} >= {"short question", "another question"}
    assert [m.count for m in rows] == sorted((m.count for m in rows), reverse=True)


def test_recording_a_question_an_older_kb_logged_whole_counts_it_once_more() -> None:
    from kb.pure.logs.logbounds import MAX_TEXT_CHARS
    from kb.pure.logs.misslog import Miss, record

    long = "how " + "y" * (MAX_TEXT_CHARS + 50)
    rows = record([Miss(4, "2026-01-01", "2026-01-01", long, ("a",))], long, ("b",), "2026-02-02")
    (row,) = rows
    assert row.count == 5 and row.last == "2026-02-02" and row.looked_like == ("b",)
    assert row.first == "2026-01-01" and len(row.question) <= MAX_TEXT_CHARS


def test_the_question_just_recorded_survives_a_full_log() -> None:
    from kb.pure.logs.misslog import Miss, record

    full = [Miss(5, "2026-01-01", "2026-01-01", f"question number {i}", ()) for i in range(2000)]
    rows = record(full, "a brand new question", (), "2026-05-05")
    assert len(rows) == 2000  # bounded at 2,000 rows
    assert any(m.question == "a brand new question" and m.count == 1 for m in rows)


def test_long_questions_fold_by_lower_case_only() -> None:
    """Rows are one question when their lower cases match, as everywhere in the log:
    `STRASSE` is not `straße` (whose upper case is `STRASSE`)."""
    from kb.pure.logs.logbounds import MAX_TEXT_CHARS
    from kb.pure.logs.misslog import Miss, record

    old = [
        Miss(1, "2026-01-01", "2026-01-01", "straße map", ()),
        Miss(1, "2026-01-01", "2026-01-01", "STRASSE MAP", ()),
        Miss(1, "2026-01-01", "2026-01-01", "w" * (MAX_TEXT_CHARS + 10), ()),  # cut: all fold
    ]
    rows = record(old, "other", (), "2026-01-02")
    assert {"straße map", "STRASSE MAP"} <= {m.question for m in rows}


def test_suggestions_are_recorded_as_the_log_reads_them_back() -> None:
    """A suggestion holding a comma is two where the log is read back (its `looked like:`
    line is split at commas): `record` keeps them so, and what it returns is what its render
    parses to (a resident kb keeps these rows rather than reading its own write)."""
    misses = record([], "zorbly quax", ["alpha, beta", " gamma ", ",", "delta,"], "2026-12-04")
    assert misses[0].looked_like == ("alpha", "beta", "gamma", "delta")
    assert parse(render(misses)) == misses
