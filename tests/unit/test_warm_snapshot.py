"""Reading a base's text index into memory holds its read snapshot only while it copies the
rows out (kb.io.store.warm): the postings are built after it ends, so a checkpoint of the
write-ahead log made meanwhile is not held back by the reader."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import kb.pure.answering.warmtext as warmtext
from kb.io.notes.indexer import index_bases
from kb.io.store.database import Store
from kb.io.store.warm import WarmCopy


def test_the_postings_are_built_after_the_read_snapshot_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "fleet" / "ada"
    (base / "knowledge").mkdir(parents=True)
    for n in range(5):
        (base / "knowledge" / f"n{n}.md").write_text(f"# Note {n}\n\nvaults and arches {n}\n")
    index_bases([str(tmp_path / "fleet")], True)
    build = warmtext.warm_text
    checkpoints: list[tuple[int, int, int]] = []

    def building(*args: object, **kwargs: object) -> object:
        other = sqlite3.connect(base / ".kb" / "index.db")
        try:
            other.execute("CREATE TABLE probe(x)")  # a write, so the log has frames
            other.commit()
            checkpoints.append(other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone())
        finally:
            other.close()
        return build(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(warmtext, "warm_text", building)
    store = Store.open(base)
    try:
        assert store.reopens  # the read goes through a connection of its own
        warm = WarmCopy(store).read()
    finally:
        store.close()
    assert warm is not None
    assert len(checkpoints) == 1
    busy, _, _ = checkpoints[0]
    assert busy == 0  # a reader still in its snapshot makes a TRUNCATE checkpoint busy
