"""Names compared as people see them (kb.pure.notes.lookalike), rule by rule (issue 25: each rule
stated by a test that fails when the rule does)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kb.pure.notes.lookalike import (
    how_alike,
    lookalike_message,
    looks_like,
    path_skeleton,
    skeleton,
)

CYRILLIC_E = "\u0435"  # drawn as a Latin e


@pytest.fixture(autouse=True)
def _uncached() -> Iterator[None]:
    # each test asks the rule itself, not an answer another test left in the cache
    skeleton.cache_clear()
    yield


def test_names_that_differ_in_spelling_but_not_in_look_are_taken_for_each_other() -> None:
    assert looks_like("records", "records")
    assert looks_like("Records", "records")
    assert looks_like(f"r{CYRILLIC_E}cords", "records")
    assert looks_like("rec0rds", "RECORDS")
    assert not looks_like("recorder", "records")


def test_a_path_is_compared_segment_by_segment() -> None:
    assert path_skeleton(f"Records/r{CYRILLIC_E}x.md") == ("records", "rex.md")


def test_a_look_alike_says_whether_it_differs_by_case_or_by_letters_drawn_alike() -> None:
    assert how_alike("records", "RECORDS") == "the same name in other letter case"
    assert how_alike("records", f"r{CYRILLIC_E}cords") == (
        "drawn like it, in letters of another script or digits"
    )
    assert (
        how_alike("records", "rec0rds") == "drawn like it, in letters of another script or digits"
    )


def test_the_look_alike_warning_names_every_folder_in_one_line_and_says_what_to_do() -> None:
    found = (("records", "Records"), ("records", f"r{CYRILLIC_E}cords"))
    assert lookalike_message("ada", found) == (
        "ada: the folder `Records/` is kept private as `records` (the same name in other "
        f"letter case); the folder `r{CYRILLIC_E}cords/` is kept private as `records` (drawn "
        "like it, in letters of another script or digits). Rename the folder, or write in "
        "agent.txt what is private as the disk spells it"
    )
    assert lookalike_message("ada", ()) is None


def test_the_digits_and_bar_drawn_like_letters_are_read_as_letters_in_a_plain_ascii_name() -> None:
    assert skeleton("Rec0rds") == "records"
    assert skeleton("Fi1es") == "files"
    assert skeleton("fi|es") == "files"
    assert skeleton("Files") == "files"
