"""`kb list` and `kb fleet` over an open fleet: the rows of every file in scope that pass
the facets, and the fleet's card with its members (kb.pure.fleet.listing and kb.pure.fleet.fleetcard
decide; this reads the open bases and the manifests for them).

Imported only by the verbs that list or describe: a question never does either, and the
rules' classes cost a process that asks one about a millisecond each.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kb.io.answering.opened import OpenBase
from kb.io.notes.walk import fleet_manifest
from kb.pure.notes.header import field_folded
from kb.pure.notes.paths import folder_of, kind_of, layer_of

if TYPE_CHECKING:
    from kb.pure.fleet.fleetcard import Card, Member
    from kb.pure.fleet.listing import Facets, Row


def each_row(bases: Sequence[OpenBase], facets: Facets | None) -> Iterator[Row]:
    """The files in scope that pass `facets` (all of them without), one row at a time."""
    # Each half imports its own rules: `kb fleet` never loads the listing's, nor `kb list`
    # the fleet card's.
    from kb.pure.fleet.listing import Facets, Row, matches

    facets = Facets() if facets is None else facets
    folders: dict[str, str] = {}  # one string per folder: 5 MB of copies at 100,000 notes
    for b in bases:
        for h in b.each_header():
            if h.bucket == "unreadable":  # not text: discovery skips it on every surface
                continue
            row = Row(
                base=b.snapshot.name,
                path=h.rel,
                title=h.title,
                kind=kind_of(h.rel),
                layer=layer_of(h.rel),
                folder=folders.setdefault(folder := folder_of(h.rel), folder),
                provenance=field_folded(h.front, "provenance"),
                stage=field_folded(h.front, "stage"),
                private=h.private,
            )
            if matches(row, facets):
                yield row


def card_of(
    first: str, bases: Sequence[OpenBase], include_private: bool
) -> tuple[Card, tuple[Member, ...]]:
    """The fleet's card (from the manifest at `first`, the first path opened) and its
    members. A base private as a whole (the person) is not named without --all: its name
    and its root path say whose it is."""
    from kb.pure.fleet.fleetcard import Member, card

    fallback = Path(first).name or first
    fleet = card(fleet_manifest(first), fallback)
    members = tuple(
        Member(
            name=card(b.snapshot.agent_manifest, b.snapshot.agent_name).name,
            root=b.snapshot.given,
            role=b.snapshot.agent_manifest.first("role"),
            # private as a whole by the person rule, not by its own `private =` line
            person=b.snapshot.private.whole and not b.snapshot.private.declared,
        )
        for b in bases
        if include_private or not b.snapshot.private.whole
    )
    return fleet, members
