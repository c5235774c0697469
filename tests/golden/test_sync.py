"""What `kb sync` prints (kb.pure.fleet.syncplan), as golden files: a first sync that did
everything, a quiet one, and the one line of a conflict kb does not merge. The real runs
that produce these lines are tests/sync/test_sync_cli.py."""

from __future__ import annotations

from kb.pure.fleet.syncplan import Refused, Report, conflict_line, refused_line, report_text
from tests.conftest import check_golden

FIRST = Report(
    where="/home/ana/fleet",
    upstream="origin/main",
    set_up=True,
    committed=("fleet/ada/MAP.md", ".gitattributes", "kb-misses.txt"),
    left=("fleet/bruno/MAP.md",),
    pulled=2,
    changed=3,
    reindexed=("ada",),
    pushed=2,
)
QUIET = Report("/home/ana/fleet", "origin/main", False, (), (), 0, 0, (), 0)
STASHED = Report(
    "/srv/fleet", "backup/trunk", False, ("kb-misses.txt",), (), 1, 1, ("bruno",), 1, True
)
RECOVERED = Report(
    "/home/ana/fleet",
    "origin/main",
    False,
    ("kb-misses.txt",),
    (),
    1,
    2,
    ("ada",),
    1,
    recovered=(
        "a kb sync (process 4242) was killed; recovered",
        "removed the lock(s) a killed git left: .git/index.lock",
        "undid its unfinished rebase (your commits and files are as before it)",
        "removed 3 temporary file(s) git or kb left",
    ),
    awaiting=("classifier",),
    fleet="/home/ana/fleet",
)


def test_reports() -> None:
    text = "".join(report_text(r) + "---\n" for r in (FIRST, QUIET, STASHED, RECOVERED))
    check_golden("sync/reports.txt", text)


def test_refused_pulls() -> None:
    shapes = (
        Refused(kb_folders=("fleet/ada/.kb/index.db", "fleet/ada/.kb/index.db-wal")),
        Refused(attributes=((".gitattributes", "fleet/ada/knowledge/*.md merge=kb-misses"),)),
        Refused(
            counts=(
                "kb-misses.txt line 14 (on origin/main): the count -100 is negative; a count "
                "is a whole number from 0 to 1,000,000,000",
            )
        ),
    )
    lines = [refused_line(r, "origin/main") for r in shapes]
    assert all("\n" not in line for line in lines)
    check_golden("sync/refused.txt", "".join(line + "\n" for line in lines))


def test_conflict_lines() -> None:
    one = conflict_line(["fleet/ada/knowledge/backups.md"], "origin/main")
    many = conflict_line([f"fleet/ada/knowledge/n{i}.md" for i in range(8)], "origin/main")
    assert "\n" not in one and "\n" not in many
    check_golden("sync/conflicts.txt", one + "\n" + many + "\n")
