"""kb.pure.notes.walked.changes_a_walk against the real walk: whatever it says cannot change
a walk, created anywhere in a fleet (a file or a folder, inside the bases, beside them, in
kb's own `.kb/`), leaves the fleet's stamp (kb.io.answering.live.stamp_on_disk: every
base's walk and index stat) exactly as it was. A name the walk reads that the rule forgot
fails here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kb.io.answering.live import stamp_on_disk
from kb.pure.notes.walked import changes_a_walk

REPO = Path(__file__).resolve().parents[2]
WHERE = [(), ("fleet",), ("fleet", "ada"), ("fleet", "ada", "knowledge"), ("fleet", "bruno")]
FOLDERS = [".kb", "sessions", "notes", "inbox", ".hidden"]
NAMES = [
    *FOLDERS,
    "x.md",
    "README.MD",
    "kb-misses.txt",
    "kb-misses.txt.lock",
    "agent.txt",
    "Agent.TXT",
    "kb-aliases.txt",
    "fleet.txt",
    "index.db",
    "index.db-wal",
    "index.db-shm",
    "a.txt",
    ".x.md",
]
# What any file the walk reads would take as a change: a heading and text for a note, a
# declaration for agent.txt, an alias for kb-aliases.txt, a line for fleet.txt.
CONTENT = "# Changed\n\nzeta = omega\nname = changed\nprivate = all\n\nSomething new.\n"


def _cases() -> list[tuple[tuple[str, ...], bool]]:
    """Every name, and every name in every folder name, in every place; file and folder."""
    below = [(n,) for n in NAMES] + [(f, n) for f in FOLDERS for n in NAMES]
    return [((*w, *b), d) for w in WHERE for b in below for d in (False, True)]


def _stamp(root: Path) -> object:
    return stamp_on_disk((str(root),), True)


def _made_leaves_the_stamp(fleet: Path, parts: tuple[str, ...], is_dir: bool) -> bool:
    """Make `parts` (its missing folders first, outside the comparison), compare the
    stamps, and remove what was made."""
    target = fleet.joinpath(*parts)
    if target.exists():
        return True  # the example fleet's own file: not made here
    made: list[Path] = []
    try:
        for depth in range(1, len(parts)):
            folder = fleet.joinpath(*parts[:depth])
            if folder.is_file():
                return True
            if not folder.exists():
                folder.mkdir()
                made.append(folder)
        before = _stamp(fleet)
        if is_dir:
            target.mkdir()
        else:
            target.write_text(CONTENT, encoding="utf-8")
        made.append(target)
        return bool(_stamp(fleet) == before)
    finally:
        for path in reversed(made):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()


def test_what_the_rule_passes_over_leaves_the_walk_as_it_was(tmp_path: Path) -> None:
    fleet = tmp_path / "harbor"
    shutil.copytree(REPO / "examples" / "fleet", fleet)
    passed_over = [(p, d) for p, d in _cases() if not changes_a_walk(p, d)]
    assert len(passed_over) > 300  # the rule passes over most of what is made here
    changed = [(p, d) for p, d in passed_over if not _made_leaves_the_stamp(fleet, p, d)]
    assert changed == []


@pytest.mark.parametrize(
    ("parts", "is_dir"),
    [
        (("fleet", "ada", "knowledge", "tides.md"), False),
        (("fleet", "ada", "TIDES.MD"), False),
        (("fleet", "ada", "agent.txt"), False),
        (("fleet", "ada", "kb-aliases.txt"), False),
        (("fleet.txt",), False),
        (("fleet", "ada", "new-folder"), True),
        (("fleet", "ada", ".kb", "index.db"), False),
        (("fleet", "ada", ".kb", "index.db-wal"), False),
    ],
)
def test_what_a_walk_reads_counts(parts: tuple[str, ...], is_dir: bool) -> None:
    assert changes_a_walk(parts, is_dir)


@pytest.mark.parametrize(
    ("parts", "is_dir"),
    [
        ((), True),
        (("kb-misses.txt",), False),
        (("kb-misses.txt.lock",), False),
        ((".kb", "sessions", "s1.jsonl"), False),
        (("fleet", "ada", ".kb", "index.db-shm"), False),
        (("fleet", "ada", ".kb", "sessions", "index.db"), False),
        (("fleet", "ada", ".git"), True),
        (("fleet", "ada", ".obsidian", "notes.md"), False),
    ],
)
def test_what_no_walk_reads_is_passed_over(parts: tuple[str, ...], is_dir: bool) -> None:
    assert not changes_a_walk(parts, is_dir)


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name", NAMES)
def test_a_close_counts_as_any_change_but_for_an_index_file(
    where: tuple[str, ...], name: str
) -> None:
    """A close after writing (`closed`) is a change wherever any change is, except for a
    base's index files: SQLite reports each of its writes to them otherwise first."""
    for is_dir in (False, True):
        parts = (*where, name)
        index_file = not is_dir and name in ("index.db", "index.db-wal")
        expected = changes_a_walk(parts, is_dir) and not index_file
        assert changes_a_walk(parts, is_dir, closed=True) == expected
    assert changes_a_walk(("fleet", "ada", ".kb", "index.db-wal"), False)
    assert not changes_a_walk(("fleet", "ada", ".kb", "index.db-wal"), False, closed=True)
