"""The counted-log merge's row rules, each stated as the rule it protects (issue 25: a merge
in which the later first-seen date won passed every test)."""

from __future__ import annotations

import pytest

from kb.pure.fleet.merge import (
    LOG_NAMES,
    Merged,
    _sections,
    count_line,
    count_problem,
    log_spec,
    merge,
    merge_counts,
    merge_log,
    merge_map,
    merge_misses,
    owns,
)
from kb.pure.logs.misslog import HEADER, Miss, parse, render
from kb.pure.promotion import rejections


def _log(*misses: Miss) -> str:
    return render(list(misses))


def test_a_merged_row_keeps_the_earliest_first_seen_and_the_latest_last_seen() -> None:
    base = _log(Miss(1, "2026-11-10", "2026-11-10", "slow build", ()))
    ours = _log(Miss(2, "2026-11-10", "2026-11-20", "slow build", ()))
    theirs = _log(Miss(2, "2026-11-05", "2026-11-15", "slow build", ()))  # an older copy
    for a, b in ((ours, theirs), (theirs, ours)):
        [row] = parse(merge_misses(base, a, b).text)
        assert (row.first, row.last) == ("2026-11-05", "2026-11-20")
        assert row.count == 3  # 2 + 2 - 1


def test_the_offer_comes_from_the_side_whose_row_changed_last() -> None:
    base = _log(Miss(1, "2026-11-10", "2026-11-10", "q", ("old",)))
    ours = _log(Miss(2, "2026-11-10", "2026-11-12", "q", ("ours",)))
    theirs = _log(Miss(2, "2026-11-10", "2026-11-18", "q", ("theirs",)))
    [row] = parse(merge_misses(base, ours, theirs).text)
    assert row.looked_like == ("theirs",)
    [row] = parse(merge_misses(base, theirs, ours).text)
    assert row.looked_like == ("theirs",)


def test_a_row_deleted_on_one_side_and_not_asked_again_on_the_other_is_gone() -> None:
    row = Miss(1, "2026-11-10", "2026-11-10", "q", ())
    base = _log(row)
    assert parse(merge_misses(base, _log(), base).text) == []
    asked = Miss(2, "2026-11-10", "2026-11-12", "q", ())
    [kept] = parse(merge_misses(base, _log(), _log(asked)).text)
    assert kept.count == 1  # 0 + 2 - 1: the other side's new refusal survives


def test_new_rows_from_both_sides_are_all_kept() -> None:
    base = _log()
    ours = _log(Miss(1, "2026-11-10", "2026-11-10", "a", ()))
    theirs = _log(Miss(1, "2026-11-11", "2026-11-11", "b", ()))
    merged = {m.question: m.count for m in parse(merge_misses(base, ours, theirs).text)}
    assert merged == {"a": 1, "b": 1}


# -- the shared rules ---------------------------------------------------------------------------


def test_equal_sides_give_ours_and_one_side_equal_to_the_base_gives_the_other() -> None:
    for merge_one in (merge_map, lambda b, o, t: merge_log(b, o, t, "notes.txt")):
        assert merge_one("b\n", "x\n", "x\n") == Merged("x\n")
        assert merge_one("b\n", "x\n", "b\n") == Merged("x\n")
        assert merge_one("b\n", "b\n", "y\n") == Merged("y\n")


def test_merge_dispatches_on_its_kind_and_refuses_any_other() -> None:
    base = _log()
    ours = _log(Miss(1, "2026-11-10", "2026-11-10", "a", ()))
    theirs = _log(Miss(1, "2026-11-11", "2026-11-11", "b", ()))
    assert merge("misses", base, ours, theirs) == merge_misses(base, ours, theirs)
    assert merge("log", base, ours, theirs) == merge_misses(base, ours, theirs)
    assert merge("map", "a\n", "a\n- o\n", "a\n- t\n") == merge_map("a\n", "a\n- o\n", "a\n- t\n")
    with pytest.raises(ValueError, match="map, misses, log, not 'note'"):
        merge("note", "", "", "")


def test_a_driver_owns_only_its_own_file_names_at_any_depth() -> None:
    assert owns("map", "kb/MAP.md") and owns("map", "a\\b\\MAP.md") and not owns("map", "x.md")
    assert owns("misses", "sub/kb-misses.txt") and not owns("misses", "kb-misroutes.txt")
    for name in LOG_NAMES:
        assert owns("log", f"a/{name}") and not owns("map", name)
    assert not owns("log", "kb-misses.txt") and not owns("note", "kb-misroutes.txt")


# -- MAP.md --------------------------------------------------------------------------------------

MAP = "# MAP\n\n## A\n- a1\n- a2\n\n## B\nprose b\n- b1\n"


def test_entries_both_sides_added_to_different_sections_are_all_kept() -> None:
    ours = MAP.replace("- a2\n", "- a2\n- o1\n")
    theirs = MAP.replace("- b1\n", "- b1\n- t1\n")
    want = "# MAP\n\n## A\n- a1\n- a2\n- o1\n\n## B\nprose b\n- b1\n- t1\n"
    assert merge_map(MAP, ours, theirs) == Merged(want)


def test_an_entry_one_side_removed_stays_removed() -> None:
    ours = MAP.replace("- a1\n", "")
    theirs = MAP.replace("- b1\n", "- b1\n- t1\n")
    assert merge_map(MAP, ours, theirs).text == "# MAP\n\n## A\n- a2\n\n## B\nprose b\n- b1\n- t1\n"
    assert merge_map(MAP, theirs, ours).text == "# MAP\n\n## A\n- a2\n\n## B\nprose b\n- b1\n- t1\n"


def test_prose_both_sides_changed_differently_is_a_conflict_holding_both_whole() -> None:
    ours = MAP.replace("prose b", "prose ours")
    theirs = MAP.replace("prose b", "prose theirs")
    merged = merge_map(MAP, ours, theirs)
    assert merged.conflicted
    assert merged.text == (
        "# MAP\n\n## A\n- a1\n- a2\n\n<<<<<<< ours\n## B\nprose ours\n- b1\n=======\n"
        "## B\nprose theirs\n- b1\n>>>>>>> theirs\n"
    )


def test_prose_only_one_side_changed_is_taken_from_it_and_the_other_sides_entries_follow() -> None:
    ours = MAP.replace("prose b", "prose ours").replace("- b1\n", "- b1\n- o\n")
    theirs = MAP.replace("- b1\n", "- t\n- b1\n")
    want = "# MAP\n\n## A\n- a1\n- a2\n\n## B\nprose ours\n- b1\n- o\n- t\n"
    assert merge_map(MAP, ours, theirs) == Merged(want)
    # theirs alone changed the prose: its lines are kept in place, ours' new entry follows
    assert merge_map(MAP, theirs, ours) == Merged(want)


def test_prose_is_compared_without_its_trailing_blank_lines() -> None:
    base = "# MAP\n## A\nprose\n"
    ours = "# MAP\n## A\nprose\n- o\n"
    theirs = "# MAP\n## A\nprose\n\n\n- t\n"
    assert merge_map(base, ours, theirs) == Merged("# MAP\n## A\nprose\n- o\n- t\n")


def test_a_new_entry_in_a_section_with_none_closes_its_prose_before_blank_lines() -> None:
    base = "# MAP\n## A\nprose\n\n## B\n"
    ours = "# MAP\n## A\nprose\n\n## B\nb prose\n"
    theirs = "# MAP\n## A\nprose\n- t\n\n## B\n"
    assert merge_map(base, ours, theirs) == Merged("# MAP\n## A\nprose\n- t\n\n## B\nb prose\n")
    # a section that is only its heading takes the entry under the heading
    base = "# MAP\n## A\n\n## B\n"
    ours = "# MAP\n## A\n\n## B\nx\n"
    theirs = "# MAP\n## A\n- t\n\n## B\n"
    assert merge_map(base, ours, theirs).text == "# MAP\n## A\n- t\n\n## B\nx\n"
    # and the lines before the first heading take it at their end
    assert merge_map("top\n\n# A\n", "top\n\n# A\nx\n", "top\n- t\n\n# A\n").text == (
        "top\n- t\n\n# A\nx\n"
    )


def test_a_section_only_theirs_added_is_kept_after_the_section_it_follows() -> None:
    ours = MAP.replace("- a2\n", "- a2\n- o\n")
    theirs = MAP.replace("\n## B", "\n## N\n- n\n\n## B")
    want = "# MAP\n\n## A\n- a1\n- a2\n- o\n\n## N\n- n\n\n## B\nprose b\n- b1\n"
    assert merge_map(MAP, ours, theirs) == Merged(want)


def test_sections_theirs_added_one_after_another_keep_theirs_order() -> None:
    ours = MAP.replace("- a2\n", "- a2\n- o\n")
    theirs = MAP + "\n## C\n- c\n\n## D\n- d\n"
    assert merge_map(MAP, ours, theirs).text == (
        "# MAP\n\n## A\n- a1\n- a2\n- o\n\n## B\nprose b\n- b1\n\n## C\n- c\n\n## D\n- d\n"
    )
    top = "top\n\n## A\n- a\n"
    assert merge_map(top, top + "- o\n", "## T\n- t\n\n" + top).text == (
        "## T\n- t\n\ntop\n\n## A\n- a\n- o\n"
    )


def test_a_section_of_theirs_placed_with_no_blank_before_it_gets_one() -> None:
    base = "# MAP\n## A\n- a\n"
    ours = "# MAP\n## A\n- a\n- o\n"
    theirs = "# MAP\n## A\n- a\n## N\n- n\n"
    assert merge_map(base, ours, theirs).text == "# MAP\n## A\n- a\n- o\n\n## N\n- n\n"


def test_a_section_one_side_deleted_unchanged_stays_deleted() -> None:
    ours = "# MAP\n\n## A\n- a1\n- a2\n"
    theirs = MAP.replace("- a2\n", "- a2\n- t\n")
    assert merge_map(MAP, ours, theirs).text == "# MAP\n\n## A\n- a1\n- a2\n- t\n"
    # swapped, the kept lines are theirs' and keep the blank line that closed the section
    assert merge_map(MAP, theirs, ours).text == "# MAP\n\n## A\n- a1\n- a2\n- t\n\n"


def test_a_section_changed_on_one_side_and_deleted_on_the_other_keeps_only_what_was_added() -> None:
    ours = "# MAP\n\n## A\n- a1\n- a2\n"
    theirs = MAP.replace("- b1\n", "- b1\n- t1\n")
    assert merge_map(MAP, ours, theirs).text == "# MAP\n\n## A\n- a1\n- a2\n\n## B\nprose b\n- t1\n"
    assert merge_map(MAP, theirs, ours).text == "# MAP\n\n## A\n- a1\n- a2\n\n## B\nprose b\n- t1\n"


def test_an_entry_is_listed_once_in_the_whole_map() -> None:
    ours = MAP.replace("- a1\n", "- a1\n- x\n")
    theirs = MAP + "\n## D\n- x\n- d\n"
    assert merge_map(MAP, ours, theirs).text == (
        "# MAP\n\n## A\n- a1\n- x\n- a2\n\n## B\nprose b\n- b1\n\n## D\n- d\n"
    )
    # both sides adding the same entry to one section list it once
    ours = MAP.replace("- a2\n", "- a2\n- same\n")
    theirs = MAP.replace("- a2\n", "- a2\n- same\n").replace("prose b", "prose t")
    assert merge_map(MAP, ours, theirs).text == MAP.replace("- a2\n", "- a2\n- same\n").replace(
        "prose b", "prose t"
    )


def test_a_moved_entry_theirs_kept_where_the_base_had_it_is_not_lost() -> None:
    # theirs changed B's prose (so B's lines are theirs'), ours moved b1 into A
    ours = MAP.replace("- a2\n", "- a2\n- b1\n").replace("prose b\n- b1\n", "prose b\n")
    theirs = MAP.replace("prose b", "prose t")
    merged = merge_map(MAP, ours, theirs).text
    assert merged.count("- b1") == 1, merged


def test_headings_are_matched_by_occurrence() -> None:
    base = "## N\n- a\n\n## N\n- b\n"
    ours = "## N\n- a\n- o\n\n## N\n- b\n"
    theirs = "## N\n- a\n\n## N\n- b\n- t\n"
    assert merge_map(base, ours, theirs).text == "## N\n- a\n- o\n\n## N\n- b\n- t\n"


def test_every_entry_mark_and_any_indent_is_an_entry_and_seven_hashes_are_no_heading() -> None:
    base = "## A\n* s\n"
    ours = "## A\n* s\n+ p\n"
    theirs = "## A\n* s\n  - n\n####### not a heading\n"
    merged = merge_map(base, ours, theirs)
    assert merged.text == "## A\n* s\n  - n\n+ p\n####### not a heading\n", merged
    assert not merged.conflicted
    base = "## A\n#x\n"
    assert merge_map(base, "## A\n#x\n- o\n", "## A\n#x\n- t\n").text == "## A\n#x\n- o\n- t\n"


def test_the_final_newline_comes_from_the_side_that_changed_it() -> None:
    base = "## A\n- a\n"
    assert merge_map(base, "## A\n- a\n- o\n", "## A\n- a\n- t").text == "## A\n- a\n- o\n- t"
    assert merge_map(base, "## A\n- a\n- o", "## A\n- a\n- t\n").text == "## A\n- a\n- o\n- t"
    assert merge_map("## A\n- a", "## A\n- a\n- o", "## A\n- a\n- t\n").text == (
        "## A\n- a\n- o\n- t\n"
    )
    # without a final newline, no trailing blank lines either
    assert merge_map("## A\n- a\n", "## A\n- a\n- o\n\n\n", "## A\n- a\n- t").text == (
        "## A\n- a\n- o\n- t"
    )


def test_a_section_theirs_added_first_goes_first() -> None:
    assert merge_map("", "## A\n- o\n", "## B\n- t\n").text == "## B\n- t\n\n## A\n- o\n"


# -- the counted logs -----------------------------------------------------------------------------


def test_counts_add_ours_plus_theirs_less_the_base() -> None:
    base = _log(Miss(3, "2026-11-01", "2026-11-01", "q", ()))
    ours = _log(Miss(5, "2026-11-01", "2026-11-02", "q", ()))
    theirs = _log(Miss(4, "2026-11-01", "2026-11-03", "q", ()))
    [row] = parse(merge_misses(base, ours, theirs).text)
    assert row.count == 6


def test_identical_sides_since_the_base_are_counted_twice() -> None:
    base = _log(Miss(1, "2026-11-01", "2026-11-01", "q", ()))
    both = _log(Miss(2, "2026-11-01", "2026-11-02", "q", ()))
    [row] = parse(merge_misses(base, both, both).text)
    assert row.count == 3
    assert merge_misses(both, both, both) == Merged(both)


def test_rows_are_written_most_asked_first_and_ours_header_is_kept() -> None:
    header = "# my own header\n"
    base = _log()
    ours = header + _log(Miss(1, "2026-11-01", "2026-11-01", "a", ()))[len(HEADER) :]
    theirs = _log(Miss(2, "2026-11-02", "2026-11-02", "b", ()))
    merged = merge_misses(base, ours, theirs).text
    assert merged.startswith(header) and not merged.startswith(header + HEADER[:5])
    assert [m.question for m in parse(merged)] == ["b", "a"]
    # ours with no header of its own takes theirs', else the standard one
    bare = _log(Miss(1, "2026-11-01", "2026-11-01", "a", ()))[len(HEADER) :]
    assert merge_misses(base, bare, header + "2\t2026-11-01\t2026-11-01\tb\n").text.startswith(
        header
    )
    assert merge_misses(base, bare, "2 2026-11-01 2026-11-01 b\n").text.startswith(HEADER)


def test_a_row_written_twice_in_one_side_adds_up_with_its_widest_dates() -> None:
    one = rejections.Row(1, "2026-11-05", "2026-11-06", "ann", "s", "l", "late")
    two = rejections.Row(2, "2026-11-01", "2026-11-03", "ann", "s", "l", "early")
    other = rejections.Row(1, "2026-11-09", "2026-11-09", "bob", "t", "l", "x")
    base = rejections.render([])
    merged = merge_log(base, rejections.render([one, two]), rejections.render([other]))
    rows = {r.agent: r for r in rejections.parse(merged.text)}
    assert (rows["ann"].count, rows["ann"].first_seen, rows["ann"].last_seen) == (
        3,
        "2026-11-01",
        "2026-11-06",
    )
    assert [r.agent for r in rejections.parse(merged.text)] == ["ann", "bob"]  # most first


def test_a_question_is_one_row_whatever_its_case() -> None:
    base = _log(Miss(1, "2026-11-01", "2026-11-01", "Slow build", ()))
    ours = _log(Miss(2, "2026-11-01", "2026-11-02", "Slow build", ()))
    theirs = _log(Miss(2, "2026-11-01", "2026-11-03", "slow BUILD", ()))
    [row] = parse(merge_misses(base, ours, theirs).text)
    assert (row.count, row.question) == (3, "slow BUILD")


def test_the_describing_fields_come_from_the_changed_row_not_the_base_copy() -> None:
    base = _log(Miss(1, "2026-11-01", "2026-11-30", "q", ("base",)))
    ours = _log(
        Miss(1, "2026-11-01", "2026-11-30", "q", ("base",)),
        Miss(1, "2026-11-03", "2026-11-03", "y", ()),
    )
    theirs = _log(
        Miss(2, "2026-11-01", "2026-11-10", "q", ("new",)),
        Miss(1, "2026-11-02", "2026-11-02", "z", ()),
    )
    [row] = [m for m in parse(merge_misses(base, ours, theirs).text) if m.question == "q"]
    assert row.looked_like == ("new",) and row.count == 2 and row.last == "2026-11-30"


def test_a_refused_count_is_a_conflict_naming_file_side_and_line_with_ours_unchanged() -> None:
    base = _log()
    ok = _log(Miss(1, "2026-11-01", "2026-11-01", "a", ()))
    lines = len(HEADER.split("\n"))
    for count, why in (
        ("-3", "is negative"),
        ("+3", "carries a sign"),
        ("1000000001", "is past 1,000,000,000"),
        ("0000000000001000000001", "is past 1,000,000,000"),
    ):
        bad = HEADER + f"{count} 2026-11-01 2026-11-01 b\n"
        merged = merge_misses(base, ok, bad)
        assert merged.conflicted and merged.text == ok, merged
        assert merged.problem.startswith(
            f"kb-misses.txt line {lines} (theirs): the count {count} {why}"
        )
        assert merged.problem.endswith("a count is a whole number from 0 to 1,000,000,000")
        merged = merge_misses(base, bad, ok)
        assert merged.conflicted and merged.text == bad and "(ours)" in merged.problem
    assert count_problem("kb-misses.txt", "-0 2026-11-01 2026-11-01 b\n") == (
        1,
        "the count -0 carries a sign, which kb never writes",
    )
    for fine in ("1000000000", "0", "00001"):
        assert count_problem("kb-misses.txt", f"{fine} 2026-11-01 2026-11-01 b\n") is None


def test_a_count_problem_skips_comments_offers_blank_lines_words_and_base_lines() -> None:
    text = "# -5 x\n\n  looked like: -5\nmany 2026 q\n-5 2026-11-01 2026-11-01 b\n"
    assert count_problem("kb-misses.txt", text) == (5, "the count -5 is negative")
    assert count_problem("kb-misses.txt", text, base=text) is None
    assert count_problem("kb-misses.txt", text, base="-5 2026-11-01 2026-11-01 b") is None
    tabbed = "-2 x\t2026\n 7\t-2\n-4 \tq\n"
    assert count_problem("a/kb-rejections.txt", tabbed) == (3, "the count -4 is negative")
    long = "9" * 30
    assert count_problem("kb-misroutes.txt", f"{long}\tx\n") == (
        1,
        f"the count {'9' * 24}... is past 1,000,000,000",
    )
    assert count_line("kb-misroutes.txt", "ours", (2, "why")) == (
        "kb-misroutes.txt line 2 (ours): why; a count is a whole number from 0 to 1,000,000,000"
    )


def test_a_side_equal_to_the_base_is_not_checked_for_counts() -> None:
    bad = HEADER + "-3 2026-11-01 2026-11-01 b\n"
    ok = bad + "1 2026-11-02 2026-11-02 c\n"
    assert merge_misses(bad, ok, bad) == Merged(ok)


def test_a_log_is_known_by_its_file_name_else_by_its_header() -> None:
    for name in LOG_NAMES:
        spec = log_spec(f"x/{name}")
        assert spec is not None and spec.name == name
        assert log_spec(None, "", spec.header) is spec
    assert log_spec("kb-misses.txt") is log_spec(None, HEADER)
    assert log_spec("notes.txt", "plain\n") is None
    assert log_spec("notes.txt", HEADER.split("\n", 1)[0]) is None  # the whole first line
    assert merge_counts("", "", "", "notes.txt") is None
    spec = log_spec("kb-rejections.txt")
    assert spec is not None and (spec.first, spec.last) == ("first_seen", "last_seen")


def test_a_file_that_is_no_counted_log_is_merged_as_a_set_of_lines() -> None:
    base = "a\nb\nc\n"
    ours = "a\nc\nd\n"
    theirs = "b\nc\ne\nd\n"
    assert merge_log(base, ours, theirs, "notes.txt") == Merged("c\nd\ne\n")
    assert merge_log("a", "a\nb", "a\nc", "notes.txt") == Merged("a\nb\nc")


def test_a_log_is_named_by_the_last_part_of_a_windows_path_too() -> None:
    # git hands a driver the path as written; on Windows its parts are split by `\`
    assert log_spec("a\\b\\kb-misses.txt") is log_spec("kb-misses.txt")
    for name in LOG_NAMES:
        assert log_spec(f"a\\{name}") is log_spec(name)
    assert log_spec("kb-misses.txt\\x") is None


def test_a_count_problem_reads_the_miss_log_by_its_windows_path_as_spaced() -> None:
    # the miss log's fields are split by blanks, the other logs' by tabs, whatever the path
    assert count_problem("a\\kb-misses.txt", "-5 2026-11-01 2026-11-01 b\n") == (
        1,
        "the count -5 is negative",
    )
    assert count_problem(f"a\\{LOG_NAMES[0]}", "-4\tx\n") == (1, "the count -4 is negative")


# -- rules the mutation run of kb/pure/fleet/merge.py found untested (issue 25)
# ------------------------

REJECTED = rejections.Row(1, "2026-11-01", "2026-11-01", "ann", "s", "l", "why")
REJECTED_AGAIN = rejections.Row(1, "2026-11-02", "2026-11-02", "ann", "s", "l", "again")


def _rows(*rows: rejections.Row) -> str:
    """Rejection rows without the log's header, as a side that lost it would hold them."""
    return rejections.render(list(rows))[len(rejections.HEADER) :]


def test_the_map_driver_merges_from_the_base_it_is_given() -> None:
    ours = MAP.replace("- a1\n", "")
    theirs = MAP.replace("- b1\n", "- b1\n- t1\n")
    assert merge("map", MAP, ours, theirs) == merge_map(MAP, ours, theirs)
    assert "- a1" not in merge("map", MAP, ours, theirs).text  # ours deleted it from the base


def test_the_log_driver_knows_a_log_by_the_path_git_names() -> None:
    ours, theirs = _rows(REJECTED), _rows(REJECTED_AGAIN)
    merged = merge("log", "", ours, theirs, "kb/kb-rejections.txt")
    [row] = rejections.parse(merged.text)
    assert (row.count, row.first_seen, row.last_seen) == (2, "2026-11-01", "2026-11-02")
    # with no name and no header the same texts are only lines
    assert merge("log", "", ours, theirs) == Merged(ours + theirs)


def test_a_log_is_known_by_its_header_on_any_of_the_three_sides() -> None:
    ours, theirs = _rows(REJECTED), _rows(REJECTED_AGAIN)
    header = rejections.HEADER
    for base, a, b in (
        ("", header + ours, theirs),
        ("", ours, header + theirs),
        (header, ours, theirs),
    ):
        [row] = rejections.parse(merge_log(base, a, b).text)
        assert row.count == 2, (base, a, b)


def test_a_log_is_known_by_the_first_line_of_its_header_alone() -> None:
    row = "1 2026-11-01 2026-11-01 q\n"
    assert log_spec(None, HEADER.split("\n", 1)[0] + "\n" + row) is log_spec("kb-misses.txt")
    for name in LOG_NAMES:
        spec = log_spec(name)
        assert spec is not None
        assert log_spec(None, spec.header.split("\n", 1)[0] + "\n") is spec


def test_a_side_that_is_only_its_header_without_a_final_newline_keeps_it() -> None:
    merged = merge_misses("", "# mine", _log(Miss(1, "2026-11-01", "2026-11-01", "q", ())))
    assert merged.text.startswith("# mine\n") and not merged.conflicted
    assert [m.question for m in parse(merged.text)] == ["q"]


def test_the_miss_log_is_read_as_spaced_under_any_folder_depth() -> None:
    assert count_problem("kb/x/kb-misses.txt", "-5 2026-11-01 2026-11-01 b\n") == (
        1,
        "the count -5 is negative",
    )


def test_a_tabbed_count_is_the_field_before_the_first_tab() -> None:
    row = "-4\t2026-11-01\t2026-11-01\tann\ts\tl\twhy\n"
    assert count_problem("kb-rejections.txt", row) == (1, "the count -4 is negative")


def test_a_refused_count_is_cut_with_dots_only_past_24_characters() -> None:
    for digits, shown in ((24, "9" * 24), (25, "9" * 24 + "...")):
        assert count_problem("kb-misroutes.txt", "9" * digits + "\tx\n") == (
            1,
            f"the count {shown} is past 1,000,000,000",
        )


def test_six_hashes_still_open_a_section() -> None:
    base = "###### A\nx\n###### B\ny\n"
    ours = base.replace("x\n", "x2\n")
    theirs = base.replace("y\n", "y2\n")
    assert merge_map(base, ours, theirs) == Merged("###### A\nx2\n###### B\ny2\n")


def test_an_empty_base_has_no_final_newline_so_the_side_that_added_one_decides() -> None:
    assert merge_map("", "## A\n- o", "## B\n- t\n").text == "## B\n- t\n\n## A\n- o\n"
    assert merge_map("", "## A\n- o\n", "## B\n- t").text == "## B\n- t\n\n## A\n- o\n"


def test_a_repeated_heading_is_numbered_by_occurrence_from_zero() -> None:
    # the property tests read a non-zero occurrence as "this heading repeats"
    sections, ends = _sections("## N\n- a\n## M\n## N\n## N\n")
    assert [s.key for s in sections] == [("## N", 0), ("## M", 0), ("## N", 1), ("## N", 2)]
    assert ends
    # a map that opens on a heading has no section before it, not an empty one
    assert [s.key for s in _sections("## A\n")[0]] == [("## A", 0)]


def test_a_preamble_theirs_added_is_closed_by_a_blank_line_before_ours_first_heading() -> None:
    merged = merge_map("## A\n- a\n", "## A\n- a\n- o\n", "top\n## A\n- a\n")
    assert merged == Merged("top\n\n## A\n- a\n- o\n")


def test_an_entry_for_lines_before_the_first_heading_goes_above_their_blank_lines() -> None:
    base = "\n\n# A\n"
    assert merge_map(base, "\n\n# A\nx\n", "- t\n\n\n# A\n") == Merged("- t\n\n\n# A\nx\n")
    # every entry there deleted by one side and another added: the new one alone is left
    assert merge_map("- a\n# A\n", "- a\n# A\nx\n", "- t\n# A\n") == Merged("- t\n# A\nx\n")


def test_a_section_theirs_added_first_goes_just_below_the_lines_before_ours_first_heading() -> None:
    base = "top\n\n## A\n- a\n"
    ours = "top ours\n\n## A\n- a\n"
    theirs = "top\n\n## N\n- n\n\n## A\n- a\n"
    assert merge_map(base, ours, theirs) == Merged("top ours\n\n## N\n- n\n\n## A\n- a\n")


def test_lines_before_the_first_heading_one_side_removed_are_emptied_not_deleted() -> None:
    # a side with no lines before its first heading emptied the base's: prose like any other
    base = "- **[[n0]]** note 0\nSome prose.\n"
    merged = merge_map(base, "- **[[n0]]** note 0\n", "Some prose.\n")
    assert merged == Merged("")
    assert merge_map(base, merged.text, "Some prose.\n") == Merged("")  # and it stays so
    # emptied on one side and edited on the other is a change against a change: a conflict
    edited = merge_map("top\n\n## A\n- a\n", "top ours\n\n## A\n- a\n", "## A\n- a\n")
    assert edited.conflicted
    # with nothing before the base's first heading, lines one side added there are kept
    added = merge_map("## A\n- a\n", "## A\n- a\n- o\n", "top\n## A\n- a\n")
    assert added == Merged("top\n\n## A\n- a\n- o\n")


def test_a_conflict_block_is_followed_by_the_next_section_with_nothing_added() -> None:
    base = "# MAP\n## A\npa\n## B\npb\n"
    merged = merge_map(base, base.replace("pa", "po"), base.replace("pa", "pt"))
    assert merged == Merged(
        "# MAP\n<<<<<<< ours\n## A\npo\n=======\n## A\npt\n>>>>>>> theirs\n## B\npb\n", True
    )


def test_an_entry_ours_added_to_a_section_theirs_rewrote_is_not_listed_twice() -> None:
    base = "# MAP\n## A\npa\n## B\npb\n"
    ours = base.replace("pb\n", "pb\n- x\n")
    theirs = base.replace("pa\n", "pa2\n- x\n").replace("pb", "pb2")
    assert merge_map(base, ours, theirs) == Merged("# MAP\n## A\npa2\n- x\n## B\npb2\n")
    # swapped: ours keeps its x where it put it and theirs' copy is not added again
    assert merge_map(base, theirs, ours).text.count("- x") == 1


def test_an_entry_ours_added_where_theirs_rewrote_is_not_repeated_in_a_new_section() -> None:
    merged = merge_map("## A\npa\n", "## A\npa\n- x\n", "## A\npa2\n\n## N\n- x\n")
    assert merged == Merged("## A\npa2\n- x\n\n## N\n")


def test_a_line_theirs_added_twice_is_merged_once() -> None:
    assert merge_log("a\n", "a\nb\n", "a\nn\nn\n", "notes.txt") == Merged("a\nb\nn\n")


def test_a_side_equal_to_the_base_gives_the_other_side_byte_for_byte_even_reordered() -> None:
    assert merge_log("a\nb\n", "a\nb\n", "b\na\n", "notes.txt") == Merged("b\na\n")
    assert merge_log("x\n", "a\n ", "a\n ", "notes.txt") == Merged("a\n ")


def test_the_final_newline_of_a_plain_file_comes_from_the_side_that_changed_it() -> None:
    assert merge_log("a", "a\nb\n", "a\nc", "notes.txt") == Merged("a\nb\nc\n")
    assert merge_log("a", "a\nb", "a\nc\n", "notes.txt") == Merged("a\nb\nc\n")


def test_an_entry_ours_lists_elsewhere_is_dropped_where_theirs_changed_the_prose() -> None:
    base = "# MAP\n## A\npa\n## B\npb\n"
    ours = base.replace("pb\n", "pb\n- x\n")
    theirs = base.replace("pa\n", "pa2\n- x\n")
    # ours' copy is listed first, wherever it stands; theirs' prose is still taken
    assert merge_map(base, ours, theirs) == Merged("# MAP\n## A\npa2\n## B\npb\n- x\n")
    assert merge_map(base, theirs, ours) == Merged("# MAP\n## A\npa2\n- x\n## B\npb\n")


def test_an_entry_the_base_listed_in_two_sections_is_not_dropped_by_a_side_that_kept_both() -> None:
    # neither side deleted the second `- x`: a merge removes only what a side removed
    base = "## A\npa\n- x\n## B\npb\n- x\n"
    ours = base.replace("- x\n## B", "- x\n- o\n## B")
    theirs = base.replace("pa", "pa2").replace("pb", "pb2")
    assert merge_map(base, ours, theirs) == Merged("## A\npa2\n- x\n- o\n## B\npb2\n- x\n")
