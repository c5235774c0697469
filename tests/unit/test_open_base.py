"""`OpenBase.each_header`: the full headers a listing reads once, in walk order, decoded a
slice at a time and kept by nobody (issue 27: `kb list` at 100,000 notes held every header
of the fleet at once, 487 MB at its peak; 223 MB now)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.io.answering import opened
from kb.io.answering.memory import Memory


@pytest.mark.parametrize("at_once", [1, 2, 2000])
def test_each_header_gives_the_headers_in_walk_order_and_keeps_none(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch, at_once: int
) -> None:
    monkeypatch.setattr(opened, "HEADERS_AT_ONCE", at_once)
    with Memory.open([str(example_fleet / "fleet")], all=True) as memory:
        for b in memory.bases:
            streamed = list(b.each_header())
            assert "headers" not in b.__dict__  # nothing cached for the base's lifetime
            assert [h.rel for h in streamed] == [h.rel for h in b.scan.lights]
            assert streamed == list(b.headers)  # the same values the cached path decodes
            assert list(b.each_header()) == streamed  # and from the cache, once decoded


@pytest.mark.parametrize("include_private", [False, True])
def test_entries_at_finds_what_every_entry_holds_for_the_files_asked_and_nothing_else(
    example_fleet: Path, include_private: bool
) -> None:
    """`kb misses` looks up only its reading lists' entries: for any files asked, the same
    entries the whole fleet's decode gives, and none for a file that is no entry, is out of
    scope (private without --all), or does not exist."""
    with Memory.open([str(example_fleet / "fleet")], all=include_private) as memory:
        every = {(e.base, e.rel): e for e in memory.entries}
        files = [(b.snapshot.name, h.rel) for b in memory.bases for h in b.scan.lights]
        asked = [*files, ("ada", "knowledge/no-such-note.md"), ("nobody", "MAP.md")]
        if not include_private:  # the private layer's, out of scope here
            asked += [("ada", "records/quillfeather-contract.md"), ("person", "core.md")]
        found = opened.entries_at(memory.bases, asked)
        assert found == every
        assert len(every) < len(files)  # a MAP, a record: files that are no entry
        for i in range(0, len(files), 3):  # and any part of them, a few files at a time
            part = files[i : i + 3]
            assert opened.entries_at(memory.bases, part) == {
                k: every[k] for k in part if k in every
            }
