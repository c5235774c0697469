"""The session files `kb boot` reads and writes (kb.io.sessions.bootstate): the latest
handoff is the record `latest-handoff.txt` names, else the newest record by mtime that
parses (the name is read before the folder is listed, which must not change which record is
found), and the session's agent is written whole but not fsynced."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kb.io.sessions.bootstate import last_agent, latest_handoff, remember_agent, sessions_dir


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


def test_a_sessions_agent_is_written_whole_without_an_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's agent file is written on a hook's path and may be lost in a power cut
    (an empty file reads as no agent yet); the logs a person relies on keep their fsync."""
    from kb.io.logs import misslog

    synced: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    remember_agent(str(tmp_path), "s1", "ada")
    assert last_agent(str(tmp_path), "s1") == "ada"
    assert synced == []
    assert misslog.record(tmp_path / "kb-misses.txt", "zorbly quax", [], "2026-12-04") is None
    assert len(synced) == 1
    (sessions_dir(str(tmp_path)) / "s1").write_text("", encoding="utf-8")  # as after a cut
    assert last_agent(str(tmp_path), "s1") is None
