"""The pure rules a sync that trusts nothing it pulled is made of (kb.pure.fleet.syncplan and
kb.pure.fleet.merge): what is kb's own at its own place, which pushed `.gitattributes` lines are
refused, which counts are refused. The real runs are tests/sync/test_sync_trusts_nothing.py."""

from __future__ import annotations

import pytest

from kb.pure.fleet import syncplan
from kb.pure.fleet.merge import MAX_COUNT, count_problem, merge, owns
from kb.pure.fleet.syncplan import Place, own_kind, routed_lines
from kb.pure.notes.manifest import private_layer

PLACES = (
    Place("fleet/ada", private_layer(None, "ada")),
    Place("fleet/person", private_layer(None, "person")),
    Place("fleet/bruno", private_layer("private = notes\n", "bruno")),
)


@pytest.mark.parametrize(
    ("rel", "kind"),
    [
        ("kb-misses.txt", "log"),
        ("kb-misroutes.txt", "log"),
        ("fleet/ada/kb-misses.txt", "log"),
        ("fleet/ada/MAP.md", "map"),
        ("fleet/bruno/MAP.md", "map"),
        ("MAP.md", None),  # the fleet root is no base
        ("fleet/kb-misses.txt", None),
        ("fleet/ada/records/kb-misses.txt", None),
        ("fleet/ada/knowledge/MAP.md", None),
        ("fleet/ada/records/MAP.md", None),
        ("fleet/person/kb-misses.txt", None),
        ("fleet/person/MAP.md", None),
        ("fleet/bruno/notes/kb-misses.txt", None),
        ("fleet/ada/knowledge/backups.md", None),
    ],
)
def test_own_places(rel: str, kind: str | None) -> None:
    assert own_kind(rel, ".", PLACES) == kind


def test_a_fleet_root_inside_a_private_folder_owns_nothing() -> None:
    assert own_kind("fleet/ada/records/kb-misses.txt", "fleet/ada/records", PLACES) is None


@pytest.mark.parametrize(
    "line",
    [
        "fleet/ada/knowledge/*.md merge=kb-misses",
        "*.md merge=union",
        "*.txt merge=kb-log",
        "kb-*.txt merge=kb-log",
        "fleet/ merge=kb-map",
        '"a note.md" merge=kb-map',
        "[attr]sneaky merge=kb-misses",
        "notes/*\tmerge=union",
        "x.md text merge=union -diff",
    ],
)
def test_lines_that_route_other_files_through_kb_drivers_or_union_are_refused(line: str) -> None:
    assert routed_lines("", line + "\n") == [line.strip()]


@pytest.mark.parametrize(
    "line",
    [
        "MAP.md merge=kb-map",
        "fleet/ada/kb-misses.txt merge=kb-misses",
        "**/kb-misroutes.txt merge=kb-log",
        "*.bin -merge",
        "*.md merge",
        "*.lock merge=binary",
        "# *.md merge=union",
        "",
    ],
)
def test_lines_kb_leaves_alone(line: str) -> None:
    assert routed_lines("", line + "\n") == []


def test_a_line_this_side_already_has_is_left_alone() -> None:
    mine = "*.log merge=union\n"
    assert routed_lines(mine, mine + "*.md merge=union\n") == ["*.md merge=union"]


def test_kb_own_attribute_lines_pass_their_own_check() -> None:
    assert routed_lines("", syncplan.with_attributes("")) == []


def test_paths_under_an_index_folder() -> None:
    assert syncplan.in_kb_folder("fleet/ada/.kb/index.db")
    assert syncplan.in_kb_folder(".kb/index.db")
    assert syncplan.in_kb_folder("fleet/ada/.kb")
    assert not syncplan.in_kb_folder("fleet/ada/knowledge/.kbnotes.md")


def test_each_driver_owns_only_its_files() -> None:
    assert owns("map", "fleet/ada/MAP.md") and not owns("map", "fleet/ada/knowledge/x.md")
    assert owns("misses", "kb-misses.txt") and not owns("misses", "fleet/ada/notes.md")
    assert owns("log", "kb-abstentions.txt") and not owns("log", "kb-misses.txt")


HEAD = "# Questions kb could not answer, the most asked first.\n"


@pytest.mark.parametrize(
    ("count", "why"),
    [
        ("-100", "is negative"),
        ("+5", "carries a sign"),
        ("999999999999999999", f"is past {MAX_COUNT:,}"),
        ("1" * 5000, f"is past {MAX_COUNT:,}"),
    ],
)
def test_refused_counts_name_their_line(count: str, why: str) -> None:
    rows = f"\n2    2026-01-01 2026-01-02 fine question\n{count} 2026-01-01 2026-01-02 q\n"
    text = HEAD + rows
    found = count_problem("kb-misses.txt", text)
    assert found is not None and found[0] == 4 and why in found[1]
    merged = merge("misses", HEAD, HEAD + "\n1    2026-01-01 2026-01-01 mine\n", text)
    assert merged.conflicted and "kb-misses.txt line 4 (theirs)" in merged.problem
    assert merged.text == HEAD + "\n1    2026-01-01 2026-01-01 mine\n"


def test_counts_kb_accepts() -> None:
    text = HEAD + f"{MAX_COUNT} 2026-01-01 2026-01-02 q\n0 a b c\nnotanumber a b c\n"
    assert count_problem("kb-misses.txt", text) is None
    tabbed = "# header\n3\t2026-01-01\t2026-01-02\tada\tbruno\tmsg\twhy\n"
    assert count_problem("kb-misroutes.txt", tabbed) is None
    assert count_problem("kb-misroutes.txt", "-3" + tabbed[tabbed.index("\n") + 2 :]) is not None


def test_a_line_already_in_the_base_is_not_judged_again() -> None:
    bad = HEAD + "-1 2026-01-01 2026-01-01 old\n"
    assert count_problem("kb-misses.txt", bad, base=bad) is None


def test_bytes_that_are_not_utf8_survive_a_merge() -> None:
    row = b"3    2026-01-01 2026-01-02 caf\xe9\n".decode("utf-8", "surrogateescape")
    base = HEAD
    ours = HEAD + "\n" + row
    theirs = HEAD + "\n1    2026-01-01 2026-01-01 other\n"
    out = merge("misses", base, ours, theirs).text.encode("utf-8", "surrogateescape")
    assert b"caf\xe9" in out and b"other" in out
