"""`kb check` judges each file as it reads it and lets its text go (kb.io.writing.checker
.check_read); the reading room reads a base whole (`read_base`). Both name what they could
not read in one order: files, then folders the walk could not list, then the records
folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve

from kb.io.notes.walk import discover
from kb.io.writing import checker
from kb.io.writing.checker import check_read, read_base
from kb.pure.writing.checks import judge_base, judge_found


def _base(tmp_path: Path) -> Path:
    base = tmp_path / "base"
    (base / "knowledge").mkdir(parents=True)
    (base / "MAP.md").write_text("# Map\n\n- [a](knowledge/a.md)\n", encoding="utf-8")
    (base / "knowledge" / "a.md").write_text(
        "# A\n\nSearch for: lantern, floor\n\nCites [src:KEY1234567] and [[nowhere]].\n",
        encoding="utf-8",
    )
    (base / "knowledge" / "b.md").write_bytes(b"# B\n\n\xff\xfe not UTF-8\n")
    return base


def _unlisted(root: Path) -> tuple[list[object], list[tuple[str, str]]]:
    raise PermissionError(13, "Permission denied")


def test_what_could_not_be_read_is_named_in_one_order_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = discover(str(_base(tmp_path)), False)
    # a folder the walk could not list and a records folder that cannot be listed (no
    # permission stops root, so both are given here)
    snap = evolve(snap, unread_folders=(("knowledge/locked", "Permission denied"),))
    monkeypatch.setattr(checker, "load_records", _unlisted)
    facts, found = check_read(snap, False)
    held = read_base(snap, False)
    assert [rel for rel, _ in facts.skipped] == ["knowledge/b.md", "knowledge/locked", "sources"]
    assert facts.skipped == held.skipped
    assert facts.texts == ()
    assert [rel for rel, _ in held.texts] == ["MAP.md", "knowledge/a.md"]
    assert judge_found(facts, found, []) == judge_base(held, [])
    assert {f.code for f in found} >= {"E01", "E05"}
