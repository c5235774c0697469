"""kb.io.notes.safe_read: a note is opened first and the opened file judged (issue 24, part 2).

Each test walks a base, then changes the disk under the walk the way an attacker racing kb
would, and reads the name the walk found: the reader must judge the file it really opened.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kb.io.notes.safe_read import BECAME_LINK, GONE, Read, Refused, read_note
from kb.io.notes.walk import BaseSnapshot, discover
from kb.pure.notes import reading

PUBLIC = "# Public\n\n**Search for:** harbour\n\nthe public harbour note\n"
PRIVATE = "# Contract\n\n**Search for:** retainer\n\nthe private retainer clause\n"


@pytest.fixture
def base(tmp_path: Path) -> Path:
    root = tmp_path / "ada"
    (root / "knowledge").mkdir(parents=True)
    (root / "records").mkdir()
    (root / "agent.txt").write_text("name = Ada\n")
    (root / "knowledge" / "note.md").write_text(PUBLIC)
    (root / "records" / "contract.md").write_text(PRIVATE)
    return root


def _walk(root: Path, include_private: bool = False) -> BaseSnapshot:
    return discover(str(root), include_private)


def _refused(got: Read | Refused) -> str:
    assert isinstance(got, Refused), got
    return got.reason


def test_a_public_note_is_read_from_the_descriptor_it_was_judged_on(base: Path) -> None:
    got = read_note(_walk(base), "knowledge/note.md")
    assert isinstance(got, Read) and got.text() == PUBLIC


def test_a_note_swapped_for_a_link_into_records_after_the_walk_is_refused(base: Path) -> None:
    snap = _walk(base)
    note = base / "knowledge" / "note.md"
    note.unlink()
    os.symlink("../records/contract.md", note)
    got = read_note(snap, "knowledge/note.md")
    assert _refused(got) == BECAME_LINK and isinstance(got, Refused) and got.raced


def test_a_note_swapped_for_a_hard_link_to_a_private_note_is_refused(base: Path) -> None:
    snap = _walk(base)
    note = base / "knowledge" / "note.md"
    note.unlink()
    os.link(base / "records" / "contract.md", note)
    assert _refused(read_note(snap, "knowledge/note.md")) == reading.PRIVATE_TWIN


def test_a_private_note_moved_over_a_public_name_is_still_private(base: Path) -> None:
    snap = _walk(base)
    os.replace(base / "records" / "contract.md", base / "knowledge" / "note.md")
    assert _refused(read_note(snap, "knowledge/note.md")) == reading.PRIVATE_TWIN


def test_a_hard_link_the_walk_never_saw_is_refused(base: Path, tmp_path: Path) -> None:
    snap = _walk(base)
    outside = tmp_path / "elsewhere.md"
    outside.write_text(PRIVATE)
    note = base / "knowledge" / "note.md"
    note.unlink()
    os.link(outside, note)
    assert _refused(read_note(snap, "knowledge/note.md")) == reading.NEW_LINK


def test_a_hard_link_the_walk_found_under_this_name_is_read(base: Path, tmp_path: Path) -> None:
    # `cp -al` backups, git's object store: a second name outside the base is no leak
    os.link(base / "knowledge" / "note.md", tmp_path / "backup.md")
    got = read_note(_walk(base), "knowledge/note.md")
    assert isinstance(got, Read) and got.text() == PUBLIC


def test_a_folder_swapped_for_a_link_to_records_is_refused(base: Path) -> None:
    (base / "records" / "note.md").write_text(PRIVATE)
    snap = _walk(base)
    os.rename(base / "knowledge", base / "old-knowledge")
    os.symlink("records", base / "knowledge")
    assert _refused(read_note(snap, "knowledge/note.md")) == reading.PRIVATE_NOW


def test_records_renamed_to_a_look_alike_after_the_walk_stays_private(base: Path) -> None:
    snap = _walk(base, include_private=False)
    os.rename(base / "records", base / "Records")
    # the file the public name now leads to, through a folder link made after the rename
    (base / "knowledge" / "note.md").unlink()
    os.rename(base / "knowledge", base / "k2")
    os.symlink("Records", base / "knowledge")
    os.rename(base / "Records" / "contract.md", base / "Records" / "note.md")
    assert _refused(read_note(snap, "knowledge/note.md")) in (
        reading.PRIVATE_NOW,
        reading.PRIVATE_TWIN,
    )


def test_a_fifo_swapped_in_is_refused_without_hanging(base: Path) -> None:
    snap = _walk(base)
    note = base / "knowledge" / "note.md"
    note.unlink()
    os.mkfifo(note)
    assert _refused(read_note(snap, "knowledge/note.md")) == reading.NOT_A_FILE


def test_a_link_retargeted_out_of_the_base_is_refused(base: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(PRIVATE)
    link = base / "knowledge" / "link.md"
    os.symlink("note.md", link)  # a link inside the base: the walk follows it
    snap = _walk(base)
    assert isinstance(read_note(snap, "knowledge/link.md"), Read)
    link.unlink()
    os.symlink(secret, link)
    assert _refused(read_note(snap, "knowledge/link.md")) == reading.OUTSIDE


def test_a_note_gone_since_the_walk_is_a_raced_refusal(base: Path) -> None:
    snap = _walk(base)
    (base / "knowledge" / "note.md").unlink()
    got = read_note(snap, "knowledge/note.md")
    assert isinstance(got, Refused) and got.reason == GONE and got.raced


def test_with_all_the_private_layer_is_read(base: Path) -> None:
    snap = _walk(base, include_private=True)
    got = read_note(snap, "records/contract.md")
    assert isinstance(got, Read) and got.text() == PRIVATE
    # a private file the public walk skipped is refused by its real path, not by the walk
    assert _refused(read_note(_walk(base), "records/contract.md")) == reading.PRIVATE_NOW


def test_a_file_the_walk_did_not_find_is_judged_all_the_same(base: Path) -> None:
    # a deposit's .txt is never walked (the walk keeps .md files only)
    os.link(base / "records" / "contract.md", base / "knowledge" / "deposit.txt")
    assert _refused(read_note(_walk(base), "knowledge/deposit.txt")) == reading.PRIVATE_TWIN
