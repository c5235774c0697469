"""What an open fleet hands out: the answer to a question, the record of a refused one, and
one opened base (its walk, its stat pass, its headers decoded on first use).

Apart from kb.io.answering.memory so that the values every surface reads are found without reading
the Memory that makes them; kb.io.answering.memory re-exports them.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence

from attrs import frozen

from kb.io.notes.walk import BaseSnapshot
from kb.io.store import FileHeader, HeaderScan, LightHeader, Store
from kb.pure.answering.election import AgentChoice
from kb.pure.answering.entries import Entry, Parsed, make_entry
from kb.pure.answering.fusion import Found
from kb.pure.answering.keyword import KeywordHit
from kb.pure.answering.verdict import Confidence


class Scope(enum.Enum):
    PUBLIC = "Public"
    ALL = "All"


class OpenError(Exception):
    """The memory could not be opened: a base could not be read or its index opened."""


@frozen
class Answer:
    question: str
    terms: tuple[str, ...]
    found: tuple[Found, ...]
    confidence: Confidence
    agent: AgentChoice | None
    keyword_top: str | None
    keyword_hits: tuple[KeywordHit, ...]
    # (base, path) of served files whose text differs from what the index holds (or that
    # were never indexed): their passages may be stale, so every surface says so.
    changed: frozenset[tuple[str, str]] = frozenset()


@frozen
class RecallLoss:
    question: str
    looked_like: tuple[str, ...]
    date: str
    log: str
    error: str | None

    @property
    def recorded(self) -> bool:
        return self.error is None


# Full headers decoded per slice by `OpenBase.each_header`. Each slice's rows and decoded
# headers are let go before the next, but the allocator keeps what they fragment: at
# 100,000 notes `kb list` peaked at 63 MB with 2,000 a slice, 55 with 500, 52 with 250, and
# 250 a slice took less CPU than 2,000 (1.8-2.2 s against 2.4-2.5 s for every row).
HEADERS_AT_ONCE = 250


class OpenBase:
    """One opened base: its walk, its stat pass, and its full headers, decoded from the
    cache on first use (a question never asks for them: it reads postings)."""

    def __init__(self, snapshot: BaseSnapshot, scan: HeaderScan, store: Store) -> None:
        self.snapshot = snapshot
        self.scan = scan
        self._store = store

    @property
    def light(self) -> Mapping[str, LightHeader]:
        """The stat pass's light headers by path (looked up in its columns)."""
        return self.scan.lights.by_rel()

    @functools.cached_property
    def headers(self) -> tuple[FileHeader, ...]:
        return tuple(self.each_header())

    def each_header(self) -> Iterator[FileHeader]:
        """The full headers in walk order, decoded a slice at a time and kept by nobody:
        for a caller that reads each once (`kb list` at 100,000 notes held them all)."""
        if "headers" in self.__dict__:  # decoded already: no second decode
            yield from self.headers
            return
        every = self.scan.lights.rels
        for i in range(0, len(every), HEADERS_AT_ONCE):
            rels = list(every[i : i + HEADERS_AT_ONCE])
            full = self._store.headers.full(self.snapshot, self.scan, rels, self.light)
            yield from (full[rel] for rel in rels)
        self._store.headers.let_go()  # every row was read once: its pages need not stay

    def headers_of(self, rels: Iterable[str]) -> dict[str, FileHeader]:
        """The full headers of these files in scope, by path, decoding no other."""
        return self._store.headers.full(self.snapshot, self.scan, list(rels), self.light)

    def entries_of(self, rels: Iterable[str]) -> dict[str, Entry]:
        """The keyword entries among these files, by path, decoding only their headers: a
        file that is no entry, or not in scope, is absent."""
        full = self._store.headers.full(self.snapshot, self.scan, list(rels), self.light)
        name = self.snapshot.name
        return {rel: entry_of(name, h) for rel, h in full.items() if h.bucket == "entry"}


def entry_of(base: str, h: FileHeader) -> Entry:
    """The keyword entry an entry's header makes."""
    return make_entry(base, h.rel, Parsed("entry", h.title, h.keys, h.purpose, derived=h.derived))


def entries_at(
    bases: Sequence[OpenBase], files: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], Entry]:
    """The keyword entries of these (base, path) files, decoding only their headers: what a
    reading list's titles and keys need (`kb misses` decoded all 88,904 at 100,000 notes,
    2.8 s and 350 MB, to look up a few hundred)."""
    wanted: dict[str, set[str]] = {}
    for base, rel in files:
        wanted.setdefault(base, set()).add(rel)
    out: dict[tuple[str, str], Entry] = {}
    for b in bases:
        rels = wanted.get(b.snapshot.name)
        if rels:
            out.update(((e.base, e.rel), e) for e in b.entries_of(sorted(rels)).values())
    return out
