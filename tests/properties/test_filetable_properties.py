"""kb.io.notes.filetable.FileTable: a walk's files held as columns answer as the tuple of
`FileStat` they stand for, by place and by path, and give the stat pass's digest the same
lines the files themselves would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kb.io.notes.filetable import FileStat, FileTable, table_of
from tests.properties.rows_by_path import check_rows_by_path

files = st.builds(
    FileStat,
    rel=st.text(min_size=1, max_size=6),
    size=st.integers(min_value=0, max_value=2**63 - 1),
    mtime_ns=st.integers(min_value=-(2**63), max_value=2**63 - 1),
    private=st.booleans(),
    problem=st.sampled_from([None, "too large", "a bad name"]),
)


@given(st.lists(files, max_size=25), st.booleans(), st.text(max_size=6))
def test_a_table_is_the_files_it_holds(listed: list[FileStat], by_path: bool, other: str) -> None:
    if by_path:  # as a walk gives them: each path once, ascending
        listed = sorted({f.rel: f for f in listed}.values(), key=lambda f: f.rel)
    table = FileTable.of(listed)
    check_rows_by_path(table, listed, other)
    assert table == FileTable.of(listed)
    assert table == table_of(
        [f.rel for f in listed],
        [f.size for f in listed],
        [f.mtime_ns for f in listed],
        [f.private for f in listed],
        [f.problem for f in listed],
    )
    assert list(table.stat_lines()) == [
        f"{f.rel}\t{f.size}\t{f.mtime_ns}\t{int(f.private)}\t{f.problem or ''}" for f in listed
    ]


def test_two_tables_differ_when_one_file_does() -> None:
    one = FileStat("a.md", 1, 2, False)
    assert FileTable.of([one]) != FileTable.of([FileStat("a.md", 1, 3, False)])
    assert FileTable.of([one]) != FileTable.of([FileStat("a.md", 1, 2, False, "too large")])
    assert FileTable.of([one]) != [one]
