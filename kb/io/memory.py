"""The Memory contract: one open fleet, and every question every surface asks of it.

The CLI, the MCP server, the reading room and other agent frameworks all call this object;
none of them computes an answer itself. Opening walks each base once, validates the header
cache with one stat pass, and builds the keyword index in memory; every question after that
is pure computation plus one FTS5 query per base.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence
from pathlib import Path

from attrs import evolve, frozen

from kb.io import clock, misslog
from kb.io.store import FileHeader, Store, StoreError, token_sets_of
from kb.io.walk import BaseSnapshot, WalkError, discover, expand_roots, fleet_manifest
from kb.pure.aliases import expand, expand_query, expansion_sources
from kb.pure.election import AgentChoice, choose_agent_by_keyword
from kb.pure.entries import Entry, Parsed, TokenSets, make_entry, token_sets
from kb.pure.fleetcard import Card, Member, card, describe
from kb.pure.fusion import Found, Passage, TextHit, fuse
from kb.pure.header import field_folded
from kb.pure.keyword import W_KEYWORD, KeywordHit, KeywordIndex
from kb.pure.listing import Facets, Row, matches
from kb.pure.paths import folder_of, kind_of, layer_of
from kb.pure.remember import EVIDENCE_WIDTH, Remembered, propose
from kb.pure.shortfall import shortfall
from kb.pure.suggest import SUGGEST_LIMIT, SuggestIndex, suggest_among
from kb.pure.textrank import (
    Candidate,
    TextStats,
    evidence_weights,
    fleet_stats,
    score_chunks,
    term_weights,
)
from kb.pure.tokens import question_terms
from kb.pure.verdict import HIT_COVERAGE, Confidence, confidence_of, evidence_for, judged

KEYWORD_OVERSAMPLE = 4
TEXT_OVERSAMPLE = 6
# How many chunks each base's own index offers for fleet-wide scoring (more when a caller
# asks for more results). Scoring re-reads each candidate's text, the bulk of a question's
# time. On til-dev (9 bases) 15 a base ranked exactly as 30 did at 60% of the time; 10 lost
# one top-1. Fixed, so asking for more results never reorders the first ones.
BASE_CANDIDATES = 15
PATHS_SHOWN = 8
DEFAULT_TOP = 5


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


@frozen
class OpenBase:
    snapshot: BaseSnapshot
    headers: tuple[FileHeader, ...]


class Memory:
    """An opened fleet (or any list of bases), read-only except for caches and the miss log."""

    def __init__(
        self,
        opened: Sequence[str],
        scope: Scope,
        bases: Sequence[OpenBase],
        stores: Sequence[Store],
        index_was_rebuilt: bool,
        extra_aliases: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.opened = tuple(opened)
        self.scope = scope
        self.bases = tuple(bases)
        self._stores = tuple(stores)
        self.index_was_rebuilt = index_was_rebuilt
        self.aliases: tuple[tuple[str, str], ...] = tuple(
            pair for b in self.bases for pair in b.snapshot.aliases
        ) + tuple(extra_aliases)
        entries: list[Entry] = []
        keyed: list[FileHeader] = []
        self._changed: set[tuple[str, str]] = set()
        self._suggester: SuggestIndex | None = None
        self._scanned_once = False
        self.unreachable: list[str] = []
        self.unreadable: list[tuple[str, str]] = []
        self.unindexed: list[str] = []
        for b, store in zip(self.bases, self._stores, strict=True):
            snap = b.snapshot
            indexed = store.indexed_hashes()
            for h in b.headers:
                # Freshness: the header cache hashes what is on disk now; the files table
                # what the text index was built from. Different means stale passages.
                if indexed.get(h.rel) != h.hash:
                    self._changed.add((snap.name, h.rel))
                if h.bucket == "entry":
                    parsed = Parsed("entry", h.title, h.keys, h.purpose, derived=h.derived)
                    entry = make_entry(snap.name, h.rel, parsed)
                    entries.append(entry)
                    keyed.append(h)
                elif h.bucket == "unreachable":
                    self.unreachable.append(f"{snap.name}/{h.rel}")
                elif h.bucket == "unreadable":
                    self.unreadable.append((f"{snap.name}/{h.rel}", h.purpose))
                if h.rel != snap.map_rel and h.rel not in indexed and h.bucket != "unreadable":
                    self.unindexed.append(f"{snap.name}/{h.rel}")
        self._in_scope = tuple(frozenset(h.rel for h in b.headers) for b in self.bases)
        self.entries = tuple(entries)
        self._keyed = keyed

    @functools.cached_property
    def keywords(self) -> KeywordIndex:
        """The keyword index, built on first use: listing, describing and checking never
        score, and skip decoding every header's token sets (113 MB and a third of a warm
        open at 10,000 notes)."""
        sets: list[TokenSets] = []
        for entry, h in zip(self.entries, self._keyed, strict=True):
            cached = token_sets_of(h)
            sets.append(
                cached
                if cached is not None
                else token_sets(entry.stem, entry.title, entry.keywords, entry.summary)
            )
        self._keyed = []
        return KeywordIndex(self.entries, sets)

    # -- opening -----------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        paths: Sequence[str] = (".",),
        all: bool = False,
        extra_aliases: Sequence[tuple[str, str]] = (),
    ) -> Memory:
        """Open every path (a base, or a fleet root expanded into its bases).

        `extra_aliases` are `(alias, canonical)` pairs held in memory only, after every
        base's own pairs: `kb misses --apply` measures a candidate alias line this way, so
        nothing is written to any kb-aliases.txt while it is judged.
        """
        opened = list(paths) or ["."]
        bases: list[OpenBase] = []
        stores: list[Store] = []
        rebuilt = False
        try:
            for given in expand_roots(opened):
                snap = discover(given, include_private=all)
                store = Store.open(snap.root, read_only_fallback=True)
                stores.append(store)
                bases.append(OpenBase(snap, tuple(store.headers(snap))))
                rebuilt = rebuilt or store.rebuilt
        except (WalkError, StoreError) as e:
            for s in stores:
                s.close()
            raise OpenError(str(e)) from e
        scope = Scope.ALL if all else Scope.PUBLIC
        return cls(opened, scope, bases, stores, rebuilt, extra_aliases)

    def close(self) -> None:
        for s in self._stores:
            s.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- facts about the open fleet ------------------------------------------------------

    def warnings(self) -> list[str]:
        """One line per problem a person should see on every verb that opens these bases:
        an unreadable alias file, a `private =` entry that names nothing, an index read
        from a fall-back (a read-only disk, a folder kb may not write in)."""
        out: list[str] = []
        fallen: dict[str, list[str]] = {}
        for b, store in zip(self.bases, self._stores, strict=True):
            for problem in (b.snapshot.alias_problem, b.snapshot.private_problem):
                if problem:
                    out.append(problem)
            if store.fallback:
                fallen.setdefault(store.fallback, []).append(b.snapshot.name)
        # One line per kind of fall-back, naming its bases: a read-only fleet says it once.
        out += [f"{', '.join(names)}: {why}" for why, names in fallen.items()]
        return out

    @property
    def include_private(self) -> bool:
        return self.scope is Scope.ALL

    def entry_count(self) -> int:
        return len(self.entries)

    def alias_count(self) -> int:
        return len(self.aliases)

    def agent_count(self) -> int:
        return len(self.bases)

    def is_empty(self) -> bool:
        return not self.entries

    def routable_agents(self) -> list[str]:
        return [b.snapshot.agent_name for b in self.bases if b.snapshot.routable]

    # -- the question path ---------------------------------------------------------------

    def terms(self, question: str) -> list[str]:
        return expand_query(question, self.aliases)

    def route(self, question: str, top: int = DEFAULT_TOP) -> list[KeywordHit]:
        return [h for h in self.keywords.rank(self.terms(question), top) if h.entry.rel]

    def search_text(self, terms: Sequence[str], limit: int) -> list[TextHit]:
        """The best chunks on the fleet-wide scale, with their text and excerpts."""
        stubs, exprs, _ = self._ranked_text(terms, limit)
        details = self._details(stubs, exprs)
        return [
            evolve(
                stub,
                heading_path=d[0],
                excerpt=d[1],
                text=d[2],
                provenance=d[3],
                stage=d[4],
                captured_from=d[5],
            )
            for stub in stubs
            for d in [details.get((stub.source, stub.rowid))]
            if d is not None
        ]

    def _ranked_text(
        self, terms: Sequence[str], limit: int
    ) -> tuple[list[TextHit], list[str], TextStats]:
        """One text ranking over every open base, as stubs (base, path, rowid, score; no
        text yet), and each base's MATCH expression, so passages are fetched only for the
        files an answer keeps. Each base's own index picks its best `BASE_CANDIDATES`
        chunks (more when `limit` asks for more); they are scored again on the fleet's
        scale (`kb.pure.textrank`) and merged by that score. The index's own private column
        can be stale (a folder declared private after it was indexed), so every chunk must
        also be a file this open found in scope."""
        candidates: list[Candidate] = []
        exprs: list[str] = []
        stats: list[TextStats] = []
        forms: dict[str, set[str]] = {t: {t} for t in terms}
        per_base = max(BASE_CANDIDATES, limit // TEXT_OVERSAMPLE)
        if not terms or limit <= 0:
            return [], ["" for _ in self._stores], fleet_stats(())
        for i, (store, scope) in enumerate(zip(self._stores, self._in_scope, strict=True)):
            base_stats, variants = store.text_stats(terms)
            stats.append(base_stats)
            for t, found in variants.items():
                forms.setdefault(t, {t}).update(found)
            words = [w for t in terms for w in variants.get(t, (t,))]
            expr, rows = store.rank(words, per_base, self.include_private)
            exprs.append(expr)
            kept = [(rowid, base, path) for rowid, base, path in rows if path in scope]
            texts = store.chunk_texts([rowid for rowid, _, _ in kept])
            candidates += [
                Candidate(base, path, rowid, i, *texts[rowid])
                for rowid, base, path in kept
                if rowid in texts
            ]
        fleet = fleet_stats(stats)
        scored = score_chunks(
            terms, candidates, fleet, {t: frozenset(v) for t, v in forms.items()}
        )[:limit]
        stubs = [
            TextHit(
                s.candidate.base,
                s.candidate.path,
                s.candidate.heading_path,
                "",
                "",
                None,
                None,
                None,
                rowid=s.candidate.rowid,
                source=s.candidate.source,
                score=s.score,
                matched=s.matched,
            )
            for s in scored
        ]
        return stubs, exprs, fleet

    def _details(
        self, stubs: Sequence[TextHit], exprs: Sequence[str]
    ) -> dict[tuple[int, int], tuple[str, str, str, str | None, str | None, str | None]]:
        """(store, rowid) -> the chunk's heading path, excerpt, text and file facts, fetched
        from each base's index for exactly these stubs."""
        wanted: dict[int, list[int]] = {}
        for stub in stubs:
            wanted.setdefault(stub.source, []).append(stub.rowid)
        return {
            (i, rowid): row
            for i, rowids in wanted.items()
            for rowid, row in self._stores[i].details(exprs[i], rowids).items()
        }

    def _with_passages(
        self, found: Sequence[Found], stubs: Sequence[TextHit], exprs: Sequence[str]
    ) -> tuple[Found, ...]:
        kept = {(f.base, f.path) for f in found}
        details = self._details([s for s in stubs if (s.base, s.path) in kept], exprs)
        out: list[Found] = []
        for f in found:
            passages = tuple(
                Passage(d[0], d[2], d[1], d[3], d[4])
                for stub in stubs
                if (stub.base, stub.path) == (f.base, f.path)
                for d in [details.get((stub.source, stub.rowid))]
                if d is not None
            )
            out.append(evolve(f, passages=passages))
        return tuple(out)

    def ask(self, question: str, top: int = DEFAULT_TOP) -> Answer:
        own = question_terms(question)
        terms = expand(own, self.aliases)
        keyword = [h for h in self.keywords.rank(terms, top * KEYWORD_OVERSAMPLE) if h.entry.rel]
        text, exprs, stats = self._ranked_text(terms, top * TEXT_OVERSAMPLE)
        weights = term_weights(own, stats)
        complete = W_KEYWORD * sum(self.keywords.idf(t) for t in own)
        fused = fuse(keyword, text, max(top, 2), weights, complete)
        evidence = evidence_for(
            fused[0] if fused else None,
            keyword,
            text,
            evidence_weights(own, stats),
            expansion_sources(own, self.aliases),
            self.entry_count(),
            sum(weights.values()),
        )
        confidence = judged(keyword, {(t.base, t.path) for t in text}, self.entry_count(), evidence)
        agent = choose_agent_by_keyword(keyword, self.routable_agents())
        first = keyword[0].entry if keyword else None
        found = self._with_passages(fused[:top], text, exprs)
        return Answer(
            question=question,
            terms=tuple(terms),
            found=found,
            confidence=confidence,
            agent=agent,
            keyword_top=f"{first.base}/{first.rel}" if first else None,
            keyword_hits=tuple(keyword),
            changed=frozenset((f.base, f.path) for f in found if self.changed_since_indexed(f)),
        )

    def changed_since_indexed(self, found: Found) -> bool:
        return (found.base, found.path) in self._changed

    def retrieve(self, question: str, top: int = DEFAULT_TOP) -> list[Found]:
        return list(self.ask(question, top).found)

    def remember(self, claim: str) -> Remembered:
        """Propose ADD, UPDATE or NOOP for a claim by its overlap with stored chunks.
        Writes nothing."""
        terms = self.terms(claim)
        return propose(claim, terms, self.search_text(terms, EVIDENCE_WIDTH))

    def floor(self) -> float:
        return confidence_of([], set(), self.entry_count()).floor

    def suggest(self, question: str, limit: int = SUGGEST_LIMIT) -> list[str]:
        # The first refusal scans the keys once (what a one-question process needs); a
        # second one shows a long-lived caller, worth an index (built in ~1.7 s at 10,000
        # notes, against ~0.2 s for one scan).
        if self._suggester is None:
            if not self._scanned_once:
                self._scanned_once = True
                return suggest_among(question, self.keywords.key_norms(), limit)
            self._suggester = SuggestIndex(self.keywords.key_norms())
        return self._suggester.suggest(question, limit)

    def shortfall(self, confidence: Confidence, question: str | None = None) -> list[str]:
        """Why the verdict fell short; given the question, a question of stopwords only is
        explained as that instead of as a vocabulary miss."""
        return shortfall(
            self.entry_count(),
            self.agent_count(),
            confidence.coverage,
            len(self.unreachable),
            HIT_COVERAGE,
            searchable=question is None or self.searchable(question),
        )

    def searchable(self, question: str) -> bool:
        """Whether any word of the question (or an alias it triggers) reaches a scorer."""
        return bool(self.terms(question))

    def recall_loss(self, question: str, confidence: Confidence) -> RecallLoss | None:
        """Record a refused question in the miss log; None unless the verdict is nothing.
        A question of stopwords only is not a miss: no note or alias would have caught it."""
        if self.is_empty() or confidence.verdict != "nothing" or not self.searchable(question):
            return None
        looked_like = tuple(self.suggest(question))
        today = clock.today_utc()
        log = misslog.log_path(self.opened[0])
        error = misslog.record(log, question, looked_like, today)
        return RecallLoss(question, looked_like, today, str(log), error)

    # -- listing and describing ----------------------------------------------------------

    def list(self, facets: Facets = Facets()) -> list[Row]:  # noqa: B008
        rows: list[Row] = []
        for b in self.bases:
            for h in b.headers:
                if h.bucket == "unreadable":  # not text: discovery skips it on every surface
                    continue
                row = Row(
                    base=b.snapshot.name,
                    path=h.rel,
                    title=h.title,
                    kind=kind_of(h.rel),
                    layer=layer_of(h.rel),
                    folder=folder_of(h.rel),
                    provenance=field_folded(h.front, "provenance"),
                    stage=field_folded(h.front, "stage"),
                    private=h.private,
                )
                if matches(row, facets):
                    rows.append(row)
        return rows

    def describe(self) -> str:
        return describe(*self.fleet_card())

    def fleet_card(self) -> tuple[Card, tuple[Member, ...]]:
        """The fleet's card and its members, from the manifests (what `kb fleet` prints)."""
        first = self.opened[0]
        fallback = Path(first).name or first
        fleet = card(fleet_manifest(first), fallback)
        # A base private as a whole (the person) is not named without --all: its name and
        # its root path say whose it is.
        members = tuple(
            Member(
                name=card(b.snapshot.agent_manifest, b.snapshot.agent_name).name,
                root=b.snapshot.given,
                role=b.snapshot.agent_manifest.first("role"),
                # private as a whole by the person rule, not by its own `private =` line
                person=b.snapshot.private.whole and not b.snapshot.private.declared,
            )
            for b in self.bases
            if self.include_private or not b.snapshot.private.whole
        )
        return fleet, members
