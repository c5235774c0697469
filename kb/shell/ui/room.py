"""The reading room's state: one open of the fleet, held until an explicit reload.

A `Room` is built once (the Memory contract, plus the texts `kb check` reads) and answers
every route from it. It imports no web framework, so it is tested without a server. The
SQLite connections inside the Memory belong to the thread that opened them; `Reader` keeps
every call on one worker thread, which is also the spec's "one request at a time".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from kb.io.answering.memory import DEFAULT_TOP, Memory
from kb.io.answering.reading_room import (
    ServedBase,
    chat_command,
    read_blocks,
    read_facts,
    read_served,
    served_table,
    session_agent,
)
from kb.io.notes.walk import fleet_manifest
from kb.pure.answering.election import ascii_lower
from kb.pure.fleet.fleetcard import card
from kb.pure.notes.links import stems_of
from kb.pure.render import uiapi
from kb.pure.render.mdhtml import Links, render
from kb.pure.render.uiapi import Book, Json, ShelfFacts
from kb.pure.writing.checks import check_base, folded_stems, with_cross_base_hint

T = TypeVar("T")


class Room:
    """Every payload the page asks for, from one open of the fleet."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.include_private = memory.include_private
        self.first_root = memory.opened[0]
        bases = memory.bases
        facts = read_facts(bases, self.include_private)
        self.served: dict[str, ServedBase] = served_table(bases)
        # A base is asked for by name, ASCII case ignored; an exact name wins over a folded
        # one (two bases can differ only in case), and the first of a folded name after it.
        self.folded: dict[str, str] = {}
        for name in self.served:
            self.folded.setdefault(ascii_lower(name), name)
        self.chat_command = chat_command(self.first_root)
        shelves = []
        for b, f in zip(bases, facts, strict=True):
            snap = b.snapshot
            shelves.append(
                ShelfFacts(
                    base=snap.name,
                    card=card(snap.agent_manifest, snap.agent_name).name,
                    role=snap.agent_manifest.first("role"),
                    routable=snap.routable,
                    map_rel=snap.map_rel,
                    files=tuple((s.rel, s.size, s.private) for s in snap.files),
                    texts=dict(f.texts),
                    unreachable=frozenset(h.rel for h in b.headers if h.bucket == "unreachable"),
                )
            )
        shelved = [uiapi.books_of(s) for s in shelves]
        self.titles = {
            (s.base, b.rel): b.title for s, bs in zip(shelves, shelved, strict=True) for b in bs
        }
        # The first base of a name wins, as in the served table: later ones are written first.
        pairs = list(zip(shelves, shelved, strict=True))[::-1]
        self.books: dict[tuple[str, str], Book] = {
            (s.base, b.rel): b for s, bs in pairs for b in bs
        }
        self.stems = {
            s.base: (
                frozenset(r for r, _, _ in s.files),
                stems_of(r for r, _, _ in s.files),
            )
            for s, _ in pairs
        }
        self.stacks = uiapi.stacks_payload(shelves, shelved)
        stems = [(f.label, folded_stems(f.rels)) for f in facts]
        self.check = uiapi.check_payload(
            [(f.label, with_cross_base_hint(check_base(f), f.label, stems)) for f in facts],
            [(f.label, rel, why) for f in facts for rel, why in f.skipped],
        )
        self.blocks = uiapi.blocks_payload(
            [got for b in bases if (got := read_blocks(b.snapshot, self.include_private))]
        )
        fleet = card(fleet_manifest(self.first_root), Path(self.first_root).resolve().name)
        self.fleet = uiapi.fleet_payload(
            fleet=fleet.name,
            role=fleet.role,
            agents=[
                uiapi.AgentCard(s.base, s.card, s.role, s.routable, len(s.files)) for s in shelves
            ],
            entries=memory.entry_count(),
            aliases=memory.alias_count(),
            private=self.include_private,
            chat=self.chat_command is not None,
        )

    @classmethod
    def open(cls, paths: Sequence[str], include_private: bool) -> Room:
        memory = Memory.open(list(paths) or ["."], all=include_private)
        try:
            return cls(memory)
        except BaseException:
            memory.close()
            raise

    def close(self) -> None:
        self.memory.close()

    # -- the routes --------------------------------------------------------------------

    def route(self, question: str) -> Json:
        if not question.strip():
            return uiapi.empty_route(question)
        m = self.memory
        # As many as `kb route --json` gives by default, so both list the same files.
        answer = m.ask(question, DEFAULT_TOP)
        nothing = answer.confidence.verdict == "nothing"
        return uiapi.route_payload(
            question=question,
            confidence=answer.confidence,
            agent=answer.agent,
            found=answer.found,
            changed=answer.changed,
            terms=answer.terms,
            keyword_hits=answer.keyword_hits,
            suggestions=m.suggest(question) if nothing and not m.is_empty() else [],
            shortfall=m.shortfall(answer.confidence, question),
            titles=self.titles,
        )

    def file(self, base: str, rel: str) -> Json | None:
        """The note, only when `rel` is exactly a path discovery produced for `base`."""
        name = base if base in self.served else self.folded.get(ascii_lower(base))
        served = self.served.get(name) if name is not None else None
        found = served.files.get(rel) if served is not None else None
        if served is None or found is None:
            return None
        text = read_served(served, found)
        if text is None:
            return None
        rels, by_stem = self.stems[served.name]
        html = render(text, Links(served.name, rel, rels, by_stem))
        return uiapi.file_payload(
            served.name, rel, text, html, found.private, self.books.get((served.name, rel))
        )

    def session_agent(self, session: str) -> str | None:
        return session_agent(self.first_root, session)


class Reader:
    """Holds the open Room and runs every call on it on one worker thread."""

    def __init__(
        self,
        paths: Sequence[str],
        include_private: bool,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.paths = list(paths) or ["."]
        self.include_private = include_private
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-ui-room")
        self._room: Room | None = None
        # told each warning a reload brings that the open before did not have
        self._warn = warn

    def _open(self) -> None:
        room = Room.open(self.paths, self.include_private)
        old, self._room = self._room, room
        if old is not None:
            before = set(old.memory.warnings())
            old.close()
            if self._warn is not None:
                for line in room.memory.warnings():
                    if line not in before:
                        self._warn(line)

    def open_now(self) -> Room:
        """Open (or re-open) synchronously; raises what opening raises."""
        self._pool.submit(self._open).result()
        assert self._room is not None
        return self._room

    @property
    def room(self) -> Room:
        assert self._room is not None, "the room is opened before the server starts"
        return self._room

    async def call(self, fn: Callable[[Room], T]) -> T:
        return await asyncio.wrap_future(self._pool.submit(lambda: fn(self.room)))

    async def reload(self) -> None:
        await asyncio.wrap_future(self._pool.submit(self._open))

    def close(self) -> None:
        def shut() -> None:
            if self._room is not None:
                self._room.close()
                self._room = None

        self._pool.submit(shut).result()
        self._pool.shutdown(wait=True)
