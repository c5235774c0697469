"""Shared files under many writers at once, at high contention (issue 8, item 3).

Several processes, released at one moment, each call the function a verb runs (the map
placement of `kb write`, the miss, misroute, abstention and rejection log writers) in a tight
loop on one file (tests/stress/hammer.py). Afterwards every call must have succeeded and the
file must hold exactly what the calls wrote: every note listed once in the map, every log
counting every call. A lost update (two writers each rewriting the version they read) shows
up as a missing entry or a short count. One more run starts with a dead writer's lock already
on the log, so every process judges it at once: exactly one may take it over.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.stress import hammer
from tests.stress.budget import scaled

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_FLEET = REPO / "examples" / "fleet"
WORKERS = 6
CALLS = scaled(30, 400)


def _hammer(kind: str, root: Path, work: Path) -> list[str]:
    """Run WORKERS hammer processes of `kind` on `root`; every error any call reported."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["PYTHONPATH"] = str(REPO)
    start_at = time.time() + 1.5  # past every interpreter's start
    procs = []
    outs = []
    for w in range(WORKERS):
        out = work / f"{kind}-{w}.json"
        argv = [kind, str(w), str(CALLS), str(start_at), str(root), str(out)]
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "tests.stress.hammer", *argv], cwd=REPO, env=env
            )
        )
        outs.append(out)
    try:
        for p in procs:
            assert p.wait(timeout=600) == 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    errors: list[str] = []
    for out in outs:
        errors += json.loads(out.read_text(encoding="utf-8"))["errors"]
    return errors


def _no_leftovers(root: Path) -> None:
    left = [p.name for p in root.rglob("*") if p.name.endswith((".lock", ".tmp"))]
    assert not left, left


def test_concurrent_writes_keep_every_map_entry(tmp_path: Path) -> None:
    fleet = tmp_path / "fleet"
    shutil.copytree(EXAMPLE_FLEET, fleet, ignore=shutil.ignore_patterns(".kb"))
    assert _hammer("map", fleet, tmp_path) == []
    base = fleet / "fleet" / "ada"
    lines = (base / "MAP.md").read_text(encoding="utf-8").split("\n")
    for w in range(WORKERS):
        for i in range(CALLS):
            assert lines.count(f"- **[[h{w}-n{i}]]** Hammer {w} {i}") == 1, (w, i)
            folder = ("knowledge", "decisions", "templates")[i % 3]
            assert (base / folder / f"h{w}-n{i}.md").is_file()
    # each new folder got one section, however many writers raced to create it
    assert lines.count("### decisions/") == lines.count("### templates/") == 1
    _no_leftovers(fleet)


def _expected_questions() -> collections.Counter[str]:
    want: collections.Counter[str] = collections.Counter()
    for w in range(WORKERS):
        for i in range(CALLS):
            want[hammer.question(w, i)] += 1
    return want


@pytest.mark.parametrize("dead_lock", [False, True], ids=["clean", "dead-lock-left"])
def test_concurrent_refusals_are_all_counted(tmp_path: Path, dead_lock: bool) -> None:
    from kb.io.logs import misslog

    log = tmp_path / "kb-misses.txt"
    if dead_lock:
        # what a writer killed inside its critical section leaves: a lock nobody holds
        lock = tmp_path / "kb-misses.txt.lock"
        lock.write_text("")
        os.utime(lock, (time.time() - 3600, time.time() - 3600))
    assert _hammer("misses", tmp_path, tmp_path) == []
    got = {m.question: m.count for m in misslog.load(log)}
    assert got == dict(_expected_questions())
    _no_leftovers(tmp_path)


def test_concurrent_misroutes_are_all_counted(tmp_path: Path) -> None:
    from kb.io.logs import routelogs

    assert _hammer("misroutes", tmp_path, tmp_path) == []
    rows = routelogs.load_misroutes(tmp_path / "kb-misroutes.txt")
    assert {m.message: m.count for m in rows} == dict(_expected_questions())
    _no_leftovers(tmp_path)


def test_concurrent_abstentions_are_all_counted(tmp_path: Path) -> None:
    from kb.io.logs import routelogs

    assert _hammer("abstentions", tmp_path, tmp_path) == []
    rows = routelogs.load_abstentions(tmp_path / "kb-abstentions.txt")
    want = collections.Counter(f"subject {i % 4}" for _ in range(WORKERS) for i in range(CALLS))
    assert {a.subject: a.count for a in rows} == dict(want)
    _no_leftovers(tmp_path)


def test_concurrent_rejections_are_all_counted(tmp_path: Path) -> None:
    from kb.io.promotion import rejectlog

    assert _hammer("rejections", tmp_path, tmp_path) == []
    rows = rejectlog.load(tmp_path / "kb-rejections.txt")
    want: collections.Counter[str] = collections.Counter()
    for w in range(WORKERS):
        for i in range(CALLS):
            want[f"slug-{i % 4}" if i % 2 else f"slug-{w}-{i}"] += 1
    assert {r.slug: r.count for r in rows} == dict(want)
    _no_leftovers(tmp_path)


HOLD_WRITE_LOCK = (
    "import sqlite3, sys, time\n"
    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "c.execute('BEGIN IMMEDIATE')\n"
    "print('holding', flush=True)\n"
    "time.sleep(float(sys.argv[2]))\n"
    "c.execute('COMMIT')\n"
)


def test_index_waits_for_another_indexer_instead_of_failing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another `kb index` holding a base's write lock for longer than SQLite's busy timeout
    # (a cold index of a large base) made this one fail with "database is locked". The busy
    # timeout is shortened here so the hold can be short.
    from kb.io.notes.indexer import index_bases
    from kb.io.store import schema as store

    fleet = tmp_path / "fleet"
    shutil.copytree(EXAMPLE_FLEET, fleet, ignore=shutil.ignore_patterns(".kb"))
    monkeypatch.chdir(fleet)
    index_bases(["."], False)
    with (fleet / "fleet" / "ada" / "knowledge" / "backups.md").open("a") as fh:
        fh.write("\nOne more line, so the next index has something to write.\n")
    monkeypatch.setattr(store, "BUSY_TIMEOUT_MS", 100)
    db = fleet / "fleet" / "ada" / ".kb" / "index.db"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_WRITE_LOCK, str(db), "3"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        report = index_bases(["."], False)  # raised IndexFailure("... database is locked")
    finally:
        holder.wait(timeout=60)
    assert "ada        1 reindexed" in report


def test_routing_never_waits_for_an_indexer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `kb route` and `kb boot` save re-read headers into the cache when they can. That save
    # waited out the whole busy timeout while an index run held the write lock, so every
    # route during a long `kb index` stalled (5 s each, measured). It must give up at once.
    from kb import Memory
    from kb.io.notes.indexer import index_bases
    from kb.io.store import schema as store

    fleet = tmp_path / "fleet"
    shutil.copytree(EXAMPLE_FLEET, fleet, ignore=shutil.ignore_patterns(".kb"))
    monkeypatch.chdir(fleet)
    index_bases(["."], False)
    with (fleet / "fleet" / "ada" / "knowledge" / "backups.md").open("a") as fh:
        fh.write("\nChanged, so the next open re-reads this header and wants to save it.\n")
    monkeypatch.setattr(store, "BUSY_TIMEOUT_MS", 60_000)  # a waiting route would hang 60 s
    db = fleet / "fleet" / "ada" / ".kb" / "index.db"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_WRITE_LOCK, str(db), "120"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        started = time.monotonic()
        with Memory.open(["."]) as memory:
            answer = memory.ask("how do I test a backup restore")
        elapsed = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
    assert answer.confidence.verdict == "hit"
    assert elapsed < 30, f"the route waited {elapsed:.0f} s for the index's write lock"
