"""`kb index`: walk every base, sync its text index, and report what was found.

One walk and one database open per base. A file whose stat matches the header cache is
not read at all, and one whose hash matches the `files` row is not re-chunked, so a warm
re-index of an unchanged fleet is a stat pass plus two SELECTs per base: only the files
indexed again have their cached headers decoded.

After indexing, the folders kb's own writers write into (each path given, its
`.kb/sessions/`, each base's root, memory folders, `inbox/raw/` and `sources/`) are swept
of kb temp files a killed writer left (kb.io.files.atomic.sweep_temps): one scandir per folder.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from pathlib import Path

from attrs import evolve, frozen

from kb.io.files.atomic import crash_point, sweep_temps
from kb.io.notes.perbase import each_base, orphan_check, rough_size, worker_count
from kb.io.notes.progress import Progress, Step, stepper
from kb.io.notes.walk import BaseSnapshot, WalkError, discover, expand_roots
from kb.io.store import (
    HeaderScan,
    Store,
    StoreError,
    SyncReport,
    is_busy,
    read_header,
)
from kb.io.writing.sources import source_rows, source_stamp
from kb.pure.render.terminal import BaseIndexLine, index_json, index_json_summary, index_text


class IndexFailure(Exception):
    pass


# Two `kb index` runs on one base take turns at its write lock. SQLite's busy timeout
# (kb.io.store.schema.BUSY_TIMEOUT_MS) is short, and a cold index holds the lock for as long as it
# takes to chunk the whole base (measured: ~10 s for 4,000 notes on a loaded 2-core box), so
# the second run failed with "database is locked". It now keeps asking for up to this long:
# the run ahead of it is doing the same work, and whatever it committed is "unchanged" here.
SYNC_WAIT_S = 300.0


def _sync(
    store: Store,
    snap: BaseSnapshot,
    scan: HeaderScan,
    include_private: bool,
    progress: Step | None = None,
) -> SyncReport:
    """`store.writer.sync`, retried while another writer holds the base's index. The source records
    are read only when
    their folder changed since they were written (their stamp is taken before they are
    read, so a record changed meanwhile is read again next time)."""
    deadline = time.monotonic() + SYNC_WAIT_S

    def records() -> list[tuple[str, ...]]:
        return source_rows(snap.name, snap.root, snap.private, include_private)

    stamp = source_stamp(snap.name, snap.root, snap.private, include_private)

    while True:
        try:
            report = store.writer.sync(snap, scan.lights, records, stamp, progress)
            # the words questions look their stems up in before scanning the vocabulary;
            # an index busy now keeps its old stamp, which no longer matches, and questions
            # scan as before until the next `kb index` (through the Store, where tests stand
            # in for it)
            store.refresh_text_words()
            # measured now rather than by the first question after this index (one
            # vocabulary lookup per everyday word and sampled title word)
            store.vocabulary.calibration()
            return report
        except sqlite3.OperationalError as e:  # the sync rolled back: nothing half-written
            if not is_busy(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)  # each try already waited the busy timeout inside SQLite


# Where a kb writer can leave a temp file, relative to a base root.
_WRITTEN_FOLDERS = (
    "",
    "knowledge",
    "inbox",
    "inbox/raw",
    "decisions",
    "protocols",
    "templates",
    "sources",
)


def _sweep(paths: list[str], roots: list[Path]) -> None:
    folders = [Path(p) for p in paths] + [Path(p, ".kb", "sessions") for p in paths]
    folders += [root / sub for root in roots for sub in _WRITTEN_FOLDERS]
    for folder in dict.fromkeys(folders):
        sweep_temps(folder)


def index_bases(
    paths: list[str],
    include_private: bool,
    warnings: list[str] | None = None,
    progress: Progress | None = None,
) -> str:
    """Index every base; the report is returned, and the problems a person should see on
    stderr (a `private =` entry that names nothing) are appended to `warnings`. `progress`
    is drawn while the headers are read and the notes indexed (kb.io.notes.progress)."""
    return index_text(*index_report(paths, include_private, warnings, progress))


def index_summary_json(
    paths: list[str], include_private: bool, warnings: list[str] | None = None
) -> str:
    """Index every base, as `index_bases` does; the summary as one line of JSON."""
    return index_json_summary(*index_report(paths, include_private, warnings))


IndexReport = tuple[list[BaseIndexLine], int, int, list[str], list[tuple[str, str]]]


def index_report(
    paths: list[str],
    include_private: bool,
    warnings: list[str] | None = None,
    progress: Progress | None = None,
) -> IndexReport:
    """Index every base: (per-base lines, files walked, exempt files, unreachable paths,
    unreadable (path, reason)), what both renderings of the summary are made from."""
    roots = expand_roots(paths)
    # Each base is walked in the job that indexes it (a worker, for a large fleet): walking
    # every base here first was 0.7 s at 100,000 notes with one core idle, and held every
    # walk in this process (80 MB at its peak for a warm no-op index).
    sizes = [rough_size(r) for r in roots]
    workers = worker_count(sizes)
    parent = os.getpid() if workers > 1 else None
    shown = progress
    if parent is not None:
        # A worker's own steps check on this process instead; here, a line for the bases
        # done so far, counted in files (as listed before each base's walk).
        progress = None
    done_files = 0
    size_of = dict(zip(roots, sizes, strict=True))

    def after(root: str, got: BaseIndexed) -> None:
        nonlocal done_files
        if got.line is not None:  # indexed and committed
            crash_point("index.base")
        if parent is not None and shown is not None:
            done_files += size_of[root]
            shown.step(f"indexing in {workers} processes", done_files, sum(sizes))

    job = functools.partial(_walk_and_index, include_private, parent, progress)
    try:
        results = each_base(job, roots, sizes, after)
    finally:
        if shown is not None:
            shown.clear()
    walked = [got for got in results if got.walk_error is None]
    # Degrade, do not fail: a base that cannot be walked is skipped with one warning naming
    # it, and the rest of the fleet is indexed (a single base given fails).
    skipped = [
        f"{got.walk_error}; this base was skipped and the rest indexed"
        for got in results
        if got.walk_error is not None
    ]
    if not walked and skipped:  # one base given names its error alone
        raise IndexFailure(str(results[0].walk_error) if len(roots) == 1 else skipped[0])
    if warnings is not None:
        warnings.extend(p for got in walked for p in got.problems)
        warnings.extend(skipped)
    lines: list[BaseIndexLine] = []
    files = exempt = 0
    unreachable: list[str] = []
    unreadable: list[tuple[str, str]] = []
    indexed: list[BaseIndexed] = []
    for got in walked:
        if got.store_error is not None:
            path, reason = got.store_error
            if len(walked) == 1:
                raise IndexFailure(f"cannot open {path}: {reason}")
            if warnings is not None:
                warnings.append(
                    f"cannot open {path}: {reason}; {got.name} was not indexed and the rest was"
                )
            continue
        if got.notice and warnings is not None:
            warnings.append(f"{got.name}: {got.notice}")
        indexed.append(got)
        if got.failure is not None:
            raise IndexFailure(got.failure)
        unreachable += got.unreachable
        unreadable += got.unreadable
        files += got.files
        exempt += got.exempt
        assert got.line is not None  # every base that opened and did not fail has one
        lines.append(got.line)
    _sweep(paths, [Path(got.root) for got in indexed])
    return lines, files, exempt, unreachable, unreadable


@frozen
class BaseIndexed:
    """What indexing one base came to (`_index_one`): picklable, for a worker process."""

    store_error: tuple[str, str] | None = None  # (path, reason): the index would not open
    notice: str | None = None
    failure: str | None = None  # why the sync failed, worded for IndexFailure
    line: BaseIndexLine | None = None
    unreachable: tuple[str, ...] = ()
    unreadable: tuple[tuple[str, str], ...] = ()
    exempt: int = 0
    # what the walk found, for the parent's report
    walk_error: str | None = None  # the base could not be walked: nothing else is set
    name: str = ""
    root: str = ""
    files: int = 0
    problems: tuple[str, ...] = ()


def _walk_and_index(
    include_private: bool, parent: int | None, progress: Progress | None, root: str
) -> BaseIndexed:
    """Walk one base and index it (`_index_one`), here or in a worker process; or say why
    it could not be walked."""
    try:
        snap = discover(root, include_private)
    except WalkError as e:
        return BaseIndexed(walk_error=str(e))
    got = _index_one(include_private, parent, progress, snap)
    return evolve(
        got,
        name=snap.name,
        root=str(snap.root),
        files=len(snap.files),
        problems=tuple(snap.problems),
    )


def _index_one(
    include_private: bool, parent: int | None, progress: Progress | None, snap: BaseSnapshot
) -> BaseIndexed:
    """Open, scan and sync one base's index, here or in a worker process (`parent` is then
    the pid that asked, and every progress step checks it is still there)."""
    try:
        store = Store.open(snap.root)
    except StoreError as e:
        return BaseIndexed(store_error=(str(e.path), e.reason))
    watch = orphan_check(parent) if parent is not None else None
    try:
        store.writer.bulk_writes()
        steps = stepper(progress, f"{snap.name}: reading headers") or watch
        scan = store.headers.scan(snap, steps)
        headers = scan.lights
        steps = stepper(progress, f"{snap.name}: indexing") or watch
        try:
            report = _sync(store, snap, scan, include_private, steps)
        except Exception as e:  # any sqlite or disk failure, named with its base
            failure = f"indexing {snap.name} failed: {e}"
            return BaseIndexed(notice=store.notice, failure=failure)
    finally:
        store.close()
        if progress is not None:
            progress.clear()
    base_unreachable = tuple(f"{snap.name}/{h.rel}" for h in headers if h.bucket == "unreachable")
    return BaseIndexed(
        notice=store.notice,
        line=BaseIndexLine(
            snap.name,
            report.reindexed,
            report.unchanged,
            report.removed,
            report.chunks,
            len(base_unreachable),
        ),
        unreachable=base_unreachable,
        unreadable=tuple(
            (f"{snap.name}/{h.rel}", h.note) for h in headers if h.bucket == "unreadable"
        ),
        exempt=sum(1 for h in headers if h.bucket == "exempt"),
    )


def index_entries_json(paths: list[str], include_private: bool) -> str:
    """Every keyword entry of every base, read from the files themselves (no database)."""
    rows: list[tuple[str, str, str, str, tuple[str, ...], str]] = []
    for root in expand_roots(paths):
        try:
            snap = discover(root, include_private)
        except WalkError as e:
            raise IndexFailure(str(e)) from e
        for f in snap.files:
            h = read_header(snap, f)
            if h.bucket == "entry":
                from kb.pure.notes.paths import stem_of

                rows.append((snap.name, h.rel, stem_of(h.rel), h.title, h.keys, h.purpose))
    return index_json(rows)
