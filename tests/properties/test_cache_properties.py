"""The header cache in `.kb/index.db` is invisible: a warm open after the fleet changed reads
the fleet exactly as a cold open (no `.kb/` at all) does. Not in the spec, which has no
header cache; this guards the cache the implementation added (kb/io/store.py)."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kb.io.answering.memory import Memory
from kb.io.notes.indexer import index_bases
from kb.io.store import fileheader as store
from kb.pure.answering.entries import (
    IN_BAG,
    IN_STEM,
    IN_SUMMARY,
    IN_TITLE,
    Entry,
    prepare,
    prepared_from,
    token_sets,
)
from tests.properties.strategies import (
    MAP_NAMES,
    BaseSpec,
    FleetSpec,
    NoteSpec,
    entries,
    files_of,
    fleets,
    map_note,
    notes,
    totals,
    write_files,
)
from tests.unit.test_entries_rules import having

MAP_CANDIDATES = (*MAP_NAMES, "index.md")


@dataclass(frozen=True)
class Change:
    """What happens to one base between two opens."""

    drop: tuple[int, ...]  # indices (mod the number of notes) of notes deleted
    rewrites: tuple[tuple[int, NoteSpec], ...]  # a note's content replaced, same path
    added: tuple[NoteSpec, ...]
    maps_after: tuple[str, ...] | None  # the root map files afterwards; None: unchanged


@st.composite
def changes(draw: st.DrawFn, maps: bool) -> Change:
    return Change(
        drop=tuple(draw(st.lists(st.integers(0, 20), max_size=3))),
        rewrites=tuple(draw(st.lists(st.tuples(st.integers(0, 20), notes()), max_size=3))),
        added=tuple(draw(st.lists(notes(), max_size=3))),
        maps_after=(
            tuple(draw(st.lists(st.sampled_from(MAP_CANDIDATES), max_size=3, unique=True)))
            if maps
            else None
        ),
    )


def after(base: BaseSpec, change: Change) -> dict[str, bytes]:
    before = files_of(base)
    out = dict(before)
    ns = base.notes
    for i in change.drop:
        if ns:
            out.pop(ns[i % len(ns)].rel, None)
    for i, new in change.rewrites:
        if ns:
            out[ns[i % len(ns)].rel] = new.render()
    for n in change.added:
        out[n.rel] = n.render()
    if change.maps_after is not None:
        for m in MAP_CANDIDATES:
            out.pop(m, None)
        for i, m in enumerate(change.maps_after):
            out[m] = map_note("", keyed=i % 2 == 0)
    for rel, data in out.items():
        # A rewrite keeps no stale size: the cache is validated by (size, mtime), and two
        # writes of one size inside the clock's granularity are indistinguishable by stat.
        old = before.get(rel)
        if old is not None and old != data and len(old) == len(data):
            out[rel] = data + b"\n"
    return out


def apply(root: Path, fleet: FleetSpec, per_base: list[Change]) -> None:
    for base, change in zip(fleet.bases, per_base, strict=False):
        broot = root / "fleet" / base.name
        new = after(base, change)
        for rel in set(files_of(base)) - set(new):
            (broot / rel).unlink()
        old = files_of(base)
        write_files(broot, {r: d for r, d in new.items() if old.get(r) != d})


Reading = tuple[
    tuple[tuple[str, str, str, str, tuple[str, ...], str, bool], ...],
    tuple[str, ...],
    tuple[tuple[str, str], ...],
]


def read(root: Path, include_private: bool) -> Reading:
    with Memory.open([str(root)], all=include_private) as m:
        headers = tuple(
            sorted(
                (b.snapshot.name, h.rel, str(h.bucket), h.title, h.keys, h.purpose, h.private)
                for b in m.bases
                for h in b.headers
            )
        )
        return headers, tuple(sorted(m.unreachable)), tuple(sorted(m.unreadable))


def warm_and_cold(
    fleet: FleetSpec, per_base: list[Change], include_private: bool
) -> tuple[Reading, Reading, str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for base in fleet.bases:
            write_files(root / "fleet" / base.name, files_of(base))
        index_bases([str(root)], include_private)  # warms the header cache
        apply(root, fleet, per_base)
        warm = read(root, include_private)
        warm_report = index_bases([str(root)], include_private)
        for kb_dir in root.glob("fleet/*/.kb"):
            shutil.rmtree(kb_dir)
        cold = read(root, include_private)
        cold_report = index_bases([str(root)], include_private)
        return warm, cold, warm_report, cold_report


CACHE_SETTINGS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@CACHE_SETTINGS
@given(
    fleet=fleets(),
    per_base=st.lists(changes(maps=False), min_size=3, max_size=3),
    include_private=st.booleans(),
)
def test_a_warm_open_reads_the_fleet_as_a_cold_open_does(
    fleet: FleetSpec, per_base: list[Change], include_private: bool
) -> None:
    warm, cold, warm_report, cold_report = warm_and_cold(fleet, per_base, include_private)
    assert warm == cold
    w, c = totals(warm_report), totals(cold_report)
    assert (w[0], w[3], w[4]) == (c[0], c[3], c[4])  # files, unreachable, exempt


INDEX_THEN_MAP = FleetSpec((BaseSpec("alpha", True, None, ("INDEX.md",), (), ()),))


@CACHE_SETTINGS
@example(
    fleet=INDEX_THEN_MAP,
    # INDEX.md stays byte-identical; it stops being the map when MAP.md appears.
    per_base=[Change((), (), (), ("INDEX.md", "MAP.md"))],
    include_private=False,
)
@given(
    fleet=fleets(),
    per_base=st.lists(changes(maps=True), min_size=3, max_size=3),
    include_private=st.booleans(),
)
def test_a_warm_open_follows_a_change_of_map(
    fleet: FleetSpec, per_base: list[Change], include_private: bool
) -> None:
    warm, cold, warm_report, cold_report = warm_and_cold(fleet, per_base, include_private)
    assert warm == cold
    w, c = totals(warm_report), totals(cold_report)
    assert (w[0], w[3], w[4]) == (c[0], c[3], c[4])


def chunks_of(root: Path) -> list[tuple[str, str, str, str]]:
    rows: list[tuple[str, str, str, str]] = []
    for db in sorted(root.glob("fleet/*/.kb/index.db")):
        conn = sqlite3.connect(db)
        try:
            rows += conn.execute("SELECT base, path, heading_path, text FROM chunks").fetchall()
        finally:
            conn.close()
    return sorted(rows)


@CACHE_SETTINGS
@given(
    fleet=fleets(),
    per_base=st.lists(changes(maps=True), min_size=3, max_size=3),
    include_private=st.booleans(),
)
def test_a_reindex_after_edits_holds_the_chunks_a_cold_index_does(
    fleet: FleetSpec, per_base: list[Change], include_private: bool
) -> None:
    """Changed and removed files drop their old chunks by rowid span (kb/io/store.py):
    nothing stale and nothing twice survives an edit."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for base in fleet.bases:
            write_files(root / "fleet" / base.name, files_of(base))
        index_bases([str(root)], include_private)
        apply(root, fleet, per_base)
        index_bases([str(root)], include_private)
        warm = chunks_of(root)
        for kb_dir in root.glob("fleet/*/.kb"):
            shutil.rmtree(kb_dir)
        index_bases([str(root)], include_private)
        assert warm == chunks_of(root)


@settings(max_examples=300, deadline=None)
@given(entry=entries())
def test_cached_token_sets_decode_to_what_tokenising_gives(entry: Entry) -> None:
    """The header cache stores key norms and rebuilds bag and phrases from them: the rebuilt
    sets must equal a fresh tokenisation, or a warm open would score differently."""
    sets = token_sets(entry.stem, entry.title, entry.keywords, entry.summary)
    header = store.FileHeader(
        entry.rel,
        False,
        "entry",
        "",
        entry.title,
        entry.keywords,
        entry.summary,
        (),
        tokens_cached=store._stored(sets),
    )
    assert store.token_sets_of(header) == sets
    assert prepared_from(entry, sets) == prepare(entry)


# Any text a note's fields can hold: a NUL (the packed text's separator) and a lone surrogate
# (a file name read with surrogate escapes) included.
_field = st.text(st.characters(codec=None, exclude_categories=()), max_size=12) | st.sampled_from(
    ("", "\0", "a\0b", "\udcff", "ação\0")
)


@settings(max_examples=300, deadline=None)
@given(
    stem=_field,
    title=_field,
    summary=_field,
    keys=st.lists(_field, max_size=4),
    derived=st.booleans(),
)
def test_a_prepared_entry_unpacks_to_the_entry_it_was_made_from(
    stem: str, title: str, summary: str, keys: list[str], derived: bool
) -> None:
    """A held index keeps each entry packed (kb.pure.answering.entries.Prepared) and hands out
    the entry unpacked again: equal to the one it was made from, whatever its fields hold,
    every key and its norm at its place, and every word the scorer finds in the place it was
    in."""
    entry = Entry("alpha", f"k/{stem}.md", stem, title, tuple(keys), summary, derived)
    sets = token_sets(entry.stem, entry.title, entry.keywords, entry.summary)
    prepared = prepared_from(entry, sets)
    assert prepared.entry == entry
    assert [prepared.entry.keywords[k] for k in range(len(keys))] == keys
    bag, phrases, title_words, stem_words, summary_words, norms = sets
    assert prepared.norms == norms
    assert prepared.phrase_norms() == [norms[k] for k in phrases]
    for got, want in (
        (having(prepared, IN_BAG), bag),
        (having(prepared, IN_TITLE), title_words),
        (having(prepared, IN_STEM), stem_words),
        (having(prepared, IN_SUMMARY), summary_words),
    ):
        assert set(got) == set(want)
