"""kb.io.store.headers.HeaderCache.scan saves the headers it reads again a batch at a time
(`SAVED_AT_ONCE`) and lets each batch go once saved: what a caller asks for afterwards is
read back from the cache, alike; once a save fails, none is tried again and every header
not saved stays in the scan."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from kb.io.notes.walk import FileStat, discover
from kb.io.store import FileHeader, Store, headers, read_header, token_sets_of

NOTES = 7


def _base(root: Path) -> Path:
    base = root / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = Ada\n")
    for n in range(NOTES):
        (base / "knowledge" / f"n{n}.md").write_text(
            f"# Note {n}\n\n**Search for:** tide {n}, harbour pilot {n}\n\nBody {n}.\n"
        )
    return base


def _same(a: FileHeader, b: FileHeader) -> bool:
    fields = ("rel", "private", "bucket", "hash", "title", "keys", "purpose", "front")
    return all(getattr(a, f) == getattr(b, f) for f in fields) and token_sets_of(
        a
    ) == token_sets_of(b)


def _saves(monkeypatch: pytest.MonkeyPatch, fail_from: int) -> list[int]:
    """Stand in for the save: the sizes of the batches asked, failing from call `fail_from`."""
    asked: list[int] = []
    real = Store._save_headers

    def save(self: Store, fresh: Sequence[tuple[FileStat, FileHeader]]) -> bool:
        asked.append(len(fresh))
        return len(asked) < fail_from and real(self, fresh)

    monkeypatch.setattr(Store, "_save_headers", save)
    monkeypatch.setattr(headers, "SAVED_AT_ONCE", 2)
    return asked


def test_headers_are_saved_two_at_a_time_and_read_back_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = discover(str(_base(tmp_path)), False)
    asked = _saves(monkeypatch, fail_from=10**6)
    store = Store.open(snap.root)
    scan = store.headers.scan(snap)
    files = len(snap.files)  # the notes and agent.txt's neighbours in scope
    assert asked == [2] * (files // 2) + ([files % 2] if files % 2 else [])
    assert scan.saved
    assert scan.fresh == {}  # every one saved: read back when asked for
    assert store.headers.holds(scan.digest)  # the pass is kept
    full = store.headers.full(snap, scan, list(snap.files.rels))
    assert all(_same(full[f.rel], read_header(snap, f)) for f in snap.files)
    store.close()


def test_after_a_failed_save_no_other_is_tried_and_the_rest_stay_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = discover(str(_base(tmp_path)), False)
    asked = _saves(monkeypatch, fail_from=2)
    store = Store.open(snap.root)
    scan = store.headers.scan(snap)
    assert asked == [2, 2]  # the first saved, the second refused, no third asked
    assert not scan.saved
    assert not store.headers.holds(scan.digest)  # a pass whose rows are not all kept
    first = set(snap.files.rels[:2])
    assert set(scan.fresh) == set(snap.files.rels) - first
    full = store.headers.full(snap, scan, list(snap.files.rels))
    assert all(_same(full[f.rel], read_header(snap, f)) for f in snap.files)
    store.close()
