"""What an open fleet hands out: the answer to a question, the record of a refused one, and
one opened base (its walk, its stat pass, its headers decoded on first use).

Apart from kb.io.answering.memory so that the values every surface reads are found without reading
the Memory that makes them; kb.io.answering.memory re-exports them.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterator

from attrs import frozen

from kb.io.notes.walk import BaseSnapshot
from kb.io.store import FileHeader, HeaderScan, LightHeader, Store
from kb.pure.answering.election import AgentChoice
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


# Full headers decoded per slice by `OpenBase.each_header`: big enough that the SQL per
# slice costs nothing, small enough that a slice's headers are a few MB.
HEADERS_AT_ONCE = 2000


class OpenBase:
    """One opened base: its walk, its stat pass, and its full headers, decoded from the
    cache on first use (a question never asks for them: it reads postings)."""

    def __init__(self, snapshot: BaseSnapshot, scan: HeaderScan, store: Store) -> None:
        self.snapshot = snapshot
        self.scan = scan
        self._store = store

    @functools.cached_property
    def light(self) -> dict[str, LightHeader]:
        return {h.rel: h for h in self.scan.lights}

    @functools.cached_property
    def headers(self) -> tuple[FileHeader, ...]:
        return tuple(self.each_header())

    def each_header(self) -> Iterator[FileHeader]:
        """The full headers in walk order, decoded a slice at a time and kept by nobody:
        for a caller that reads each once (`kb list` at 100,000 notes held them all)."""
        if "headers" in self.__dict__:  # decoded already: no second decode
            yield from self.headers
            return
        lights = self.scan.lights
        for i in range(0, len(lights), HEADERS_AT_ONCE):
            rels = [h.rel for h in lights[i : i + HEADERS_AT_ONCE]]
            full = self._store.headers.full(self.snapshot, self.scan, rels, self.light)
            yield from (full[rel] for rel in rels)
