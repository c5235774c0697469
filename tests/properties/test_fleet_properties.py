"""Properties of walking and indexing whole generated fleets on disk (§2, §4.1, §8.5)."""

from __future__ import annotations

import sqlite3
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.io.answering.memory import Memory
from kb.io.notes.indexer import index_bases
from tests.properties.strategies import (
    MAP_NAMES,
    FleetSpec,
    base_lines,
    disk_markdown,
    expected_files,
    fleets,
    totals,
    unreadable_count,
    write_fleet,
)

FLEET_SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def disk_count(root: Path, fleet: FleetSpec, include_private: bool) -> int:
    """Markdown files in scope, counted by walking the disk (not through kb)."""
    n = 0
    for base in fleet.bases:
        for rel in disk_markdown(root / "fleet" / base.name):
            if include_private or not base.is_private(rel):
                n += 1
    return n


Rows = list[tuple[Any, ...]]


def tables(root: Path, fleet: FleetSpec) -> dict[str, tuple[Rows, Rows]]:
    """Each base's `files` and `chunks` tables, read straight from its index.db."""
    out: dict[str, tuple[Rows, Rows]] = {}
    for base in fleet.bases:
        conn = sqlite3.connect(root / "fleet" / base.name / ".kb" / "index.db")
        try:
            files = conn.execute(
                "SELECT base, path, hash, provenance, stage, captured_from, private FROM files "
                "ORDER BY base, path"
            ).fetchall()
            chunks = conn.execute(
                "SELECT base, path, heading_path, text FROM chunks ORDER BY base, path, rowid"
            ).fetchall()
        finally:
            conn.close()
        out[base.name] = (files, chunks)
    return out


@FLEET_SETTINGS
@given(fleet=fleets(), include_private=st.booleans())
def test_every_file_in_scope_lands_in_exactly_one_bucket(
    fleet: FleetSpec, include_private: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_fleet(root, fleet)
        on_disk = disk_count(root, fleet, include_private)
        facts = expected_files(root, fleet, include_private)
        assert len(facts) == on_disk

        report = index_bases([str(root)], include_private)
        files, _chunks, indexes, unreachable, exempt = totals(report)
        assert indexes == len(fleet.bases)
        assert files == on_disk, report

        with Memory.open([str(root)], all=include_private) as memory:
            entries = {(e.base, e.rel) for e in memory.entries}
            unreach = set(memory.unreachable)
            unread = {p for p, _ in memory.unreadable}
            exempt_m = sum(1 for b in memory.bases for h in b.headers if h.bucket == "exempt")
            n_entries = len(memory.entries)
            n_unreach = len(memory.unreachable)
            n_unread = len(memory.unreadable)

        # The invariant of §4.1, against the independent disk count.
        assert n_entries + n_unreach + exempt_m + n_unread == on_disk
        # The index report and the opened memory agree with each other.
        assert unreachable == n_unreach
        assert exempt == exempt_m
        assert unreadable_count(report) == n_unread
        # And each file is in the bucket the spec's rules put it in.
        by_bucket: dict[str, set[tuple[str, str]]] = {}
        for f in facts:
            by_bucket.setdefault(f.bucket, set()).add((f.base, f.rel))
        assert entries == by_bucket.get("entry", set())
        assert unreach == {f"{b}/{r}" for b, r in by_bucket.get("unreachable", set())}
        assert unread == {f"{b}/{r}" for b, r in by_bucket.get("unreadable", set())}
        assert exempt_m == len(by_bucket.get("exempt", set()))


@FLEET_SETTINGS
@given(fleet=fleets(), include_private=st.booleans())
def test_reindexing_an_unchanged_fleet_reindexes_nothing(
    fleet: FleetSpec, include_private: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_fleet(root, fleet)
        facts = expected_files(root, fleet, include_private)
        first = base_lines(index_bases([str(root)], include_private))
        before = tables(root, fleet)
        second_report = index_bases([str(root)], include_private)
        second = base_lines(second_report)
        after = tables(root, fleet)

        assert set(first) == set(second) == {b.name for b in fleet.bases}
        synced = Counter(f.base for f in facts if f.bucket != "unreadable")
        for base in fleet.bases:
            reindexed, unchanged, removed, _chunks, _ = first[base.name]
            # Cold: every readable file in scope except the map was written.
            rels = [f.rel for f in facts if f.base == base.name]
            map_rel = next((m for m in MAP_NAMES if m in rels), None)
            expect = synced[base.name] - (1 if map_rel is not None else 0)
            assert (reindexed, unchanged, removed) == (expect, 0, 0), first
            r2, u2, rm2, c2, _ = second[base.name]
            assert (r2, rm2, c2) == (0, 0, 0), second_report
            assert u2 == reindexed
        assert before == after


@FLEET_SETTINGS
@given(fleet=fleets())
def test_a_public_index_after_an_all_index_keeps_no_private_row(fleet: FleetSpec) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_fleet(root, fleet)
        everything = expected_files(root, fleet, include_private=True)
        index_bases([str(root)], include_private=True)
        flagged = tables(root, fleet)
        privacy = {(f.base, f.rel): f.private for f in everything}
        for files, _ in flagged.values():
            for row in files:  # each row carries its file's privacy (§8.5)
                assert bool(row[6]) == privacy[(row[0], row[1])], row
        report = base_lines(index_bases([str(root)], include_private=False))
        rows = tables(root, fleet)
        for base in fleet.bases:
            private = {
                f.rel
                for f in everything
                if f.base == base.name and f.private and f.bucket != "unreadable"
            }
            rels = [f.rel for f in everything if f.base == base.name]
            map_rel = next((m for m in MAP_NAMES if m in rels), None)
            private.discard(map_rel or "")  # the map is never synced (§8.5)
            files, chunks = rows[base.name]
            assert not any(r[6] for r in files)
            assert not {r[1] for r in files} & private
            assert not {r[1] for r in chunks} & private
            assert report[base.name][2] == len(private)
