"""`kb index`: walk every base, sync its text index, and report what was found.

One walk and one database open per base. A file whose stat matches the header cache is
not read at all, and one whose hash matches the `files` row is not re-chunked, so a warm
re-index of an unchanged fleet is a stat pass plus two SELECTs per base.
"""

from __future__ import annotations

from kb.io.sources import source_rows
from kb.io.store import Store, StoreError, read_header
from kb.io.walk import WalkError, discover, expand_roots
from kb.pure.render import BaseIndexLine, index_json, index_text


class IndexFailure(Exception):
    pass


def index_bases(paths: list[str], include_private: bool) -> str:
    roots = expand_roots(paths)
    try:
        snapshots = [discover(r, include_private) for r in roots]
    except WalkError as e:
        raise IndexFailure(str(e)) from e
    lines: list[BaseIndexLine] = []
    files = exempt = 0
    unreachable: list[str] = []
    unreadable: list[tuple[str, str]] = []
    for snap in snapshots:
        try:
            store = Store.open(snap.root)
        except StoreError as e:
            raise IndexFailure(f"cannot open {e.path}: {e.reason}") from e
        try:
            headers = store.headers(snap)
            try:
                rows = source_rows(snap.name, snap.root, snap.private, include_private)
                report = store.sync(snap, headers, sources=rows)
            except Exception as e:  # any sqlite or disk failure, named with its base
                raise IndexFailure(f"indexing {snap.name} failed: {e}") from e
        finally:
            store.close()
        base_unreachable = [f"{snap.name}/{h.rel}" for h in headers if h.bucket == "unreachable"]
        unreachable += base_unreachable
        unreadable += [
            (f"{snap.name}/{h.rel}", h.purpose) for h in headers if h.bucket == "unreadable"
        ]
        files += len(snap.files)
        exempt += sum(1 for h in headers if h.bucket == "exempt")
        lines.append(
            BaseIndexLine(
                snap.name,
                report.reindexed,
                report.unchanged,
                report.removed,
                report.chunks,
                len(base_unreachable),
            )
        )
    return index_text(lines, files, exempt, unreachable, unreadable)


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
                from kb.pure.paths import stem_of

                rows.append((snap.name, h.rel, stem_of(h.rel), h.title, h.keys, h.purpose))
    return index_json(rows)
