"""A stat pass that reads many files saves them as it reads (kb.io.store.pending.StreamedSave)
instead of holding them for one save at the end: the index it leaves must be the same, row
for row, cold and after edits behind kb's back; and a streamed save that fails or is stopped
leaves nothing written, while the open that made it still answers from the files."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.io.notes.indexer import index_bases
from kb.io.notes.walk import discover
from kb.io.store import Store, headers, pending
from tests.properties.strategies import FleetSpec, files_of, fleets, write_files
from tests.properties.test_cache_properties import Change, apply, changes

# every table a stat pass writes, each row without the file's mtime (two copies of a fleet
# are written at different moments)
_TABLES = {
    "headers": "path, size, hash, bucket, title, purpose, parsed, tokens, declared, derivable",
    "kw_vocab": "word, path",
    "kw_second": "word, path",
    "kw_parts": "part, key, path",
    "kw_trigrams": "tri, part",
}


def _rows(root: Path) -> dict[str, dict[str, list[tuple[object, ...]]]]:
    out: dict[str, dict[str, list[tuple[object, ...]]]] = {}
    for db in sorted(root.glob("fleet/*/.kb/index.db")):
        conn = sqlite3.connect(db)
        try:
            out[db.parent.parent.name] = {
                table: conn.execute(f"SELECT {columns} FROM {table} ORDER BY {columns}").fetchall()
                for table, columns in _TABLES.items()
            }
        finally:
            conn.close()
    return out


def _write(root: Path, fleet: FleetSpec) -> None:
    root.mkdir()
    for base in fleet.bases:
        write_files(root / "fleet" / base.name, files_of(base))


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    fleet=fleets(),
    per_base=st.lists(changes(maps=True), min_size=3, max_size=3),
    include_private=st.booleans(),
)
def test_a_streamed_save_writes_what_one_save_at_the_end_writes(
    fleet: FleetSpec, per_base: list[Change], include_private: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        streamed, held = Path(tmp, "streamed"), Path(tmp, "held")
        for root in (streamed, held):
            _write(root, fleet)

        def index(root: Path, stream_from: int) -> None:
            mp.setattr(headers, "STREAM_FROM", stream_from)
            index_bases([str(root)], include_private)

        index(streamed, 1)
        index(held, 10**9)
        assert _rows(streamed) == _rows(held)
        for root in (streamed, held):
            apply(root, fleet, per_base)  # the replaced rows' postings are deleted first
        index(streamed, 1)
        index(held, 10**9)
        assert _rows(streamed) == _rows(held)


def _base(root: Path, notes: int) -> Path:
    base = root / "fleet" / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = Ada\n")
    for i in range(notes):
        (base / "knowledge" / f"note-{i}.md").write_text(
            f"# Note {i}\n\n**Search for:** tide {i}, harbour pilot, moon\n\nBody {i}.\n"
        )
    return base


@pytest.mark.parametrize("failing_at", ["the copy in key order", "the second batch"])
def test_a_streamed_save_that_fails_leaves_nothing_and_reads_the_files_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing_at: str
) -> None:
    base = _base(tmp_path, 5)
    monkeypatch.setattr(headers, "STREAM_FROM", 1)
    monkeypatch.setattr(pending, "STREAM_BATCH", 2)  # batches written before the failure
    writes: list[int] = []
    write_batch = pending.StreamedSave._write_batch

    def failing_write(save: pending.StreamedSave) -> None:
        writes.append(1)
        if len(writes) == 2:
            raise sqlite3.OperationalError("disk I/O error")
        write_batch(save)

    def failing_lookup(_part: str) -> list[str]:
        raise sqlite3.OperationalError("disk I/O error")

    if failing_at == "the second batch":
        monkeypatch.setattr(pending.StreamedSave, "_write_batch", failing_write)
    else:  # the last step before the commit
        monkeypatch.setattr(pending, "lookup_keys", failing_lookup)
    snap = discover(str(base), False)
    store = Store.open(snap.root)
    try:
        scan = store.headers.scan(snap)
        assert not scan.saved
        assert store.conn.execute("SELECT count(*) FROM headers").fetchone() == (0,)
        assert store.conn.execute("SELECT count(*) FROM kw_vocab").fetchone() == (0,)
        full = store.headers.full(snap, scan, list(scan.lights.rels))
        assert full["knowledge/note-3.md"].keys == ("tide 3", "harbour pilot", "moon")
        assert full["knowledge/note-3.md"] == headers.read_header(
            snap,
            snap.files.get("knowledge/note-3.md"),  # type: ignore[arg-type]
        )
    finally:
        store.close()


def test_a_streamed_pass_stopped_midway_leaves_nothing_and_the_next_saves_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _base(tmp_path, 6)
    monkeypatch.setattr(headers, "STREAM_FROM", 1)
    monkeypatch.setattr(pending, "STREAM_BATCH", 2)
    snap = discover(str(base), False)

    def stop_at_the_fifth(done: int, _total: int) -> None:
        if done == 4:
            raise KeyboardInterrupt

    store = Store.open(snap.root)
    try:
        with pytest.raises(KeyboardInterrupt):
            store.headers.scan(snap, stop_at_the_fifth)
        assert store.conn.execute("SELECT count(*) FROM headers").fetchone() == (0,)
        assert not store.conn.in_transaction
        scan = store.headers.scan(snap)
        assert scan.saved
        assert store.conn.execute("SELECT count(*) FROM headers").fetchone() == (6,)
    finally:
        store.close()
