"""`kb boot`'s read of the latest handoff (kb.io.sessions.bootstate.latest_handoff): the record
`latest-handoff.txt` names, else the newest record by mtime that parses. The name is read
before the folder is listed, which must not change which record is found."""

from __future__ import annotations

import os
from pathlib import Path

from kb.io.sessions.bootstate import latest_handoff, sessions_dir


def _record(folder: Path, session: str, task: str, mtime: int) -> None:
    path = folder / f"{session}.handoff.md"
    path.write_text(f"---\nsession: {session}\nagent: ada\n---\n# Task\n{task}\n", encoding="utf-8")
    os.utime(path, ns=(mtime, mtime))


def test_the_named_record_wins_then_the_newest_that_parses(tmp_path: Path) -> None:
    folder = sessions_dir(str(tmp_path))
    assert latest_handoff(str(tmp_path)) is None  # no folder at all
    folder.mkdir(parents=True)
    for i in range(50):  # sessions without a record: only listed, never read
        (folder / f"s{i}").write_text("ada", encoding="utf-8")
    assert latest_handoff(str(tmp_path)) is None
    _record(folder, "older", "the older task", 1_000_000_000_000_000_000)
    _record(folder, "newer", "the newer task", 2_000_000_000_000_000_000)
    found = latest_handoff(str(tmp_path))
    assert found is not None and found.session == "newer"  # no name: the newest
    (folder / "latest-handoff.txt").write_text("older\n", encoding="utf-8")
    found = latest_handoff(str(tmp_path))
    assert found is not None and found.session == "older"  # named, though not the newest
    (folder / "latest-handoff.txt").write_text("gone\n", encoding="utf-8")
    found = latest_handoff(str(tmp_path))
    assert found is not None and found.session == "newer"  # a name of no record: the newest
    (folder / "newer.handoff.md").write_text("not a record", encoding="utf-8")
    os.utime(folder / "newer.handoff.md", ns=(3_000_000_000_000_000_000,) * 2)
    found = latest_handoff(str(tmp_path))
    assert found is not None and found.session == "older"  # the newest that parses
