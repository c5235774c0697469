"""The Memory contract: one open fleet, and every question every surface asks of it.

The CLI, the MCP server, the reading room and other agent frameworks all call this object;
none of them computes an answer itself. Opening walks each base once, validates the header
cache with one stat pass, and builds the keyword index in memory; every question after that
is pure computation plus one FTS5 query per base (none for a warm Memory, which holds each
base's text index in memory: `Memory.warm`, kb.pure.answering.held.warmtext).
"""

from __future__ import annotations

import _thread  # the C lock: `threading` costs a hot verb about 1 ms to import
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from attrs import evolve

if TYPE_CHECKING:
    from threading import Thread

    from kb.pure.fleet.fleetcard import Card, Member
    from kb.pure.fleet.listing import Facets, Row
    from kb.pure.roles.remember import Remembered

from kb.io import clock
from kb.io.answering import collector, foreground, heap, keywordwarm, textsearch
from kb.io.answering.keywordwarm import prepared_of
from kb.io.answering.opened import Answer as Answer
from kb.io.answering.opened import OpenBase as OpenBase
from kb.io.answering.opened import OpenError as OpenError
from kb.io.answering.opened import RecallLoss as RecallLoss
from kb.io.answering.opened import Scope as Scope
from kb.io.answering.opened import entry_of
from kb.io.answering.serialised import serialised, serialised_cache
from kb.io.notes.walk import BaseSnapshot, WalkError, enclosing_root, walk_roots
from kb.io.store import FileHeader, Store, StoreError, db_path
from kb.pure.answering.aliases import expand, expand_query, expansion_sources
from kb.pure.answering.calibration import Calibration, fleet_calibration, known_share, language_of
from kb.pure.answering.election import choose_agent_by_keyword
from kb.pure.answering.entries import Entry, Prepared
from kb.pure.answering.entryorder import EntryOrder
from kb.pure.answering.fusion import Found, TextHit, fuse
from kb.pure.answering.keyword import (
    W_KEYWORD,
    KeywordHit,
    KeywordIndex,
    idf_of,
    phrase_words,
    rank_bounded,
    term_prefixes,
)
from kb.pure.answering.shortfall import shortfall
from kb.pure.answering.suggest import (
    SUGGEST_FLOOR,
    SUGGEST_LIMIT,
    SuggestIndex,
    asked_words,
    best_keys,
    part_score,
    word_bound,
)
from kb.pure.answering.textrank import TextStats, evidence_weights, term_weights
from kb.pure.answering.verdict import (
    HIT_COVERAGE,
    Confidence,
    confidence_of,
    evidence_for,
    judged,
    refused_as_unknown,
)
from kb.pure.notes.tokens import question_terms

KEYWORD_OVERSAMPLE = 4
TEXT_OVERSAMPLE = 6
# How many chunks each base's own index offers for fleet-wide scoring (more when a caller
# asks for more results). Scoring re-reads each candidate's text, the bulk of a question's
# time. On til-dev (9 bases) 15 a base ranked exactly as 30 did at 60% of the time; 10 lost
# one top-1. Fixed, so asking for more results never reorders the first ones.
BASE_CANDIDATES = 15
DEFAULT_TOP = 5
# How often a warming thread reads one base again when a write made its read stale before
# it was installed: a base written to without pause answers from SQLite until it rests.
WARM_TRIES = 3

# A resident kb (kb.shell.daemon) answers with fleets it holds open: while set, `Memory.open`
# asks it first (paths as given, scope), and a Memory it returns is `resident` (a verb's
# `with memory:` leaves it open). None elsewhere: a one-shot verb opens and closes.
ResidentProvider = Callable[[tuple[str, ...], bool], "Memory | None"]
_resident: ResidentProvider | None = None


def set_resident(provider: ResidentProvider | None) -> None:
    global _resident
    _resident = provider


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
        self._suggester: SuggestIndex | None = None
        self.unreachable: list[str] = []
        self.unreadable: list[tuple[str, str]] = []
        # Per base: each entry's path -> its place in the fleet's entry order (EntryOrder).
        self._entry_order: list[EntryOrder] = []
        count = 0
        for b in self.bases:
            rels: list[str] = []
            for rel, bucket, note in b.scan.lights.buckets():
                if bucket == "entry":
                    rels.append(rel)
                elif bucket == "unreachable":
                    self.unreachable.append(f"{b.snapshot.name}/{rel}")
                elif bucket == "unreadable":
                    self.unreadable.append((f"{b.snapshot.name}/{rel}", note))
            self._entry_order.append(EntryOrder(count, rels))
            count += len(rels)
        self._entry_count = count
        self._prepared: dict[tuple[int, str], Prepared] = {}
        self._in_scope = tuple(b.scan.stats for b in self.bases)  # one light per walked file
        # The persisted postings answer only when every base's re-read files were saved
        # with their rows; otherwise (a busy or read-only index that was behind) the whole
        # keyword side is built in memory, as before issue 15: slower, never different.
        self._postings = all(b.scan.saved for b in self.bases)
        self._calibration: Calibration | None = None
        self._lock = _thread.RLock()
        for store in self._stores:  # every call on a store is made under this lock
            store.guard = self._lock
        # Why each base that could not be walked at all was skipped (`open` fills it).
        self.skipped: list[str] = []
        # Held open by a resident kb across requests: `close` leaves it open (`release`).
        self.resident = False
        # `warm`: each base's text index and the keyword index are held in memory; a base
        # whose index a write made stale answers from SQLite until it is read again.
        self._warm = False
        self._keywords_warm = False
        self._warm_pending: list[int] = []  # stores waiting for the warming thread
        self._warm_worker: Thread | None = None  # the thread, while it runs
        self._released = False
        # the last warm read's seconds: a re-opened fleet waits as long (kb.io.answering.live)
        self.warm_seconds = self._warm_started = 0.0

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Every entry in scope, in fleet order; decodes every header (listing, checking,
        evaluating need them; a question does not), or unpacks a held index's, kept by none."""
        with self._lock:
            warm = self._keywords_warm
            return self.keywords.entries() if warm else tuple(e for e, _ in self._keyed)

    @serialised_cache
    def _keyed(self) -> list[tuple[Entry, FileHeader]]:
        out: list[tuple[Entry, FileHeader]] = []
        for b in self.bases:
            for h in b.headers:
                if h.bucket == "entry":
                    out.append((entry_of(b.snapshot.name, h), h))
        return out

    @serialised_cache
    def _indexed(self) -> tuple[dict[str, str], ...]:
        """Per base: path -> the content hash its text index was built from."""
        return tuple(store.text.indexed_hashes() for store in self._stores)

    @serialised_cache
    def unindexed(self) -> list[str]:
        """Files in scope the text index does not hold (the map and unreadable files are
        never indexed)."""
        return [
            f"{b.snapshot.name}/{h.rel}"
            for b, indexed in zip(self.bases, self._indexed, strict=True)
            for h in b.scan.lights
            if h.rel != b.snapshot.map_rel and h.rel not in indexed and h.bucket != "unreadable"
        ]

    @serialised
    def is_changed(self, base: str, rel: str) -> bool:
        """Whether the file's text differs from what the index holds (or was never indexed):
        its passages may be stale, so every surface says so."""
        for b, store in zip(self.bases, self._stores, strict=True):
            if b.snapshot.name == base:
                light = b.light.get(rel)
                if light is None:
                    return False
                # One row, not every hash (9 ms a process at 10,000 notes): a few files ask.
                if "_indexed" in self.__dict__:
                    return self._indexed[self.bases.index(b)].get(rel) != light.hash
                return store.text.indexed_hash(rel) != light.hash
        return False

    @serialised_cache
    def keywords(self) -> KeywordIndex:
        """The keyword index over every entry, built in memory on first use: for callers
        that rank many questions or need every key (eval, the suggestion index), and for
        every question when the persisted postings are behind."""
        return keywordwarm.index_of(self._keyed)

    # -- opening -----------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (".",),
        all: bool = False,
        extra_aliases: Sequence[tuple[str, str]] = (),
        warm: bool = False,
    ) -> Memory:
        """Open every path (a base, or a fleet root expanded into its bases); a `str` or a
        `Path` is one path. `warm`: start holding it in memory in the background, for a
        caller that will ask many questions (`Memory.warm`). `extra_aliases` are `(alias,
        canonical)` pairs held in memory only, after every base's own pairs: `kb misses
        --apply` measures a candidate alias line this way, writing no kb-aliases.txt."""
        if isinstance(paths, str | os.PathLike):
            opened = [os.fspath(paths)]
        else:
            opened = [os.fspath(p) for p in paths] or ["."]
        # A folder inside a fleet opens the fleet (kb.io.notes.walk.enclosing_root): the miss log
        # goes to the fleet's root, never among the notes of the folder kb was run from.
        opened = [enclosing_root(given) or given for given in opened]
        if _resident is not None and not extra_aliases:
            held = _resident(tuple(opened), all)
            if held is not None:
                return held
        try:
            walked = walk_roots(opened, all)
        except WalkError as e:
            raise OpenError(str(e)) from e
        memory = cls.open_walked(opened, walked, all, extra_aliases)
        if warm:
            memory.warm(wait=False)
        return memory

    @classmethod
    def open_walked(
        cls,
        opened: Sequence[str],
        walked: Sequence[BaseSnapshot | WalkError],
        all: bool = False,
        extra_aliases: Sequence[tuple[str, str]] = (),
        earlier: Sequence[OpenBase] = (),
    ) -> Memory:
        """Open the bases `walk_roots(opened, all)` gave: a server that has just walked the
        fleet to see whether it changed opens it without walking it again. `earlier`: the
        bases of the open before, whose stat pass a base still walked as then (the same
        snapshot, its index unchanged) takes over rather than makes again."""
        kept = {id(b.snapshot): b.scan for b in earlier if b.scan.saved}
        bases: list[OpenBase] = []
        stores: list[Store] = []
        # Degrade, do not fail: a base that cannot be walked is skipped with one warning
        # naming it, and an index that cannot be opened is replaced by one in memory (the
        # notes' headers, no text), so the rest of the fleet answers.
        skipped = [str(w) for w in walked if isinstance(w, WalkError)]
        rebuilt = False
        try:
            for snap in walked:
                if isinstance(snap, WalkError):
                    continue
                try:
                    store = Store.open(snap.root, read_only_fallback=True)
                except StoreError as e:
                    store = Store.in_memory(
                        e.path or db_path(snap.root),
                        f"cannot open the index {e.path or db_path(snap.root)} ({e.reason})",
                    )
                stores.append(store)
                scan = store.headers.scan(snap, earlier=kept.get(id(snap)))
                bases.append(OpenBase(snap, scan, store))
                rebuilt = rebuilt or store.rebuilt
            if not bases and skipped:
                raise WalkError(skipped[0])
        except (WalkError, StoreError) as e:
            for s in stores:
                s.close()
            raise OpenError(str(e)) from e
        scope = Scope.ALL if all else Scope.PUBLIC
        memory = cls(opened, scope, bases, stores, rebuilt, extra_aliases)
        memory.skipped = skipped
        return memory

    def close(self) -> None:
        if not self.resident:
            self.release()

    def release(self) -> None:
        """Close the index connections, resident or not (its holder's own close)."""
        with self._lock:
            self._released = True
            self._warm_pending.clear()
            for s in self._stores:
                s.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- held in memory -----------------------------------------------------------------

    def warm(self, wait: bool = True) -> int:
        """Hold this open fleet in memory for the questions to come (a server, a framework,
        the resident kb): each base's text index (kb.pure.answering.held) and the keyword
        index, the same rankings without SQL. `wait=False`: read in a thread while SQLite
        answers alike. Returns the bases held (0 unless waiting; not an old index)."""
        with self._lock:
            self._warm = True
            self._queue_warm(range(len(self._stores)), wait)
        if not wait:
            return 0
        worker = self._warm_worker  # a thread started earlier may be reading a base
        if worker is not None:
            worker.join()  # it takes what is pending, this call's too
        self._warm_all()
        heap.give_back()  # as the warming thread does after its read
        return self.bases_held()[0]

    def is_warming(self) -> bool:
        return self._warm  # `warm` was asked of this Memory (held or on its way)

    def base_count(self) -> int:
        return len(self._stores)

    def bases_held(self) -> tuple[int, int, int]:
        """Bases held in memory now, those numpy ranks (0052), those mapped from a file (0053)."""
        with self._lock:
            held = [w for w in (s.warm for s in self._stores) if w is not None]
        mapped = sum(isinstance(w.post_chunk, memoryview) for w in held)
        return len(held), sum(w.dense is not None for w in held), mapped

    @property
    def is_warm(self) -> bool:
        """Whether every base and the keyword index are held in memory now."""
        with self._lock:
            return self._keywords_warm and all(s.warm is not None for s in self._stores)

    def adopt_warm(self, older: Memory) -> None:
        """Take over what `older` (an earlier open of the same fleet) holds in memory for
        every base whose index is unchanged (the caller warms the rest): a resident kb
        re-opens a fleet after every change, and re-reading every base costs seconds. A base
        taken over with its stat pass (kb.io.answering.live.walk_again) keeps its prepared
        keyword entries: a question then decodes only the other bases' candidates (at
        100,000 notes, one question's 6,586 took 1.0 s to decode after each change)."""
        running = older._warm_worker is not None  # let go mid-read: as long as it ran so far
        elapsed = time.monotonic() - older._warm_started if running else 0.0
        self.warm_seconds = max(older.warm_seconds, elapsed)
        same = {id(b.scan): i for i, b in enumerate(older.bases)}
        ready = older._keywords_warm  # its keyword index holds every entry prepared
        with self._lock:
            for j, i in ((j, same.get(id(b.scan), -1)) for j, b in enumerate(self.bases)):
                for rel, k in older._entry_order[i].items() if i >= 0 else ():
                    p = older.keywords.prepared_at(k) if ready else older._prepared.get((i, rel))
                    if p is not None:
                        self._prepared[(j, rel)] = p
        if not older._warm:
            return
        held = {store.path: store.warm for store in older._stores if store.warm is not None}
        with self._lock:
            for store in self._stores:
                found = held.get(store.path)
                if found is not None:
                    store.warm_copy.install(found)  # if the index is still the one read

    def _queue_warm(self, which: Iterable[int], wait: bool) -> None:
        """Under the lock: put these stores (less the ones held and current) on the warming
        thread's list, and start it unless the caller reads them itself (`wait`)."""
        for i in which:
            if i not in self._warm_pending and not self._stores[i].warm_copy.confirm():
                self._warm_pending.append(i)
        if not wait and self._warm_worker is None and not self._released:
            import threading  # only a warming Memory pays for the import

            worker = threading.Thread(target=self._warm_in_background, name="kb-warm", daemon=True)
            self._warm_worker = worker
            worker.start()

    @collector.paused_while_reading
    def _warm_all(self) -> None:
        """Read every pending store into memory through a connection of its own, outside the
        lock, then install it under the lock if its index is still the one read (else read
        again, at most `WARM_TRIES` times). Last, the keyword index."""
        tries: dict[int, int] = {}
        self._warm_started = started = time.monotonic()
        while True:
            with self._lock:
                if self._released or not self._warm_pending:
                    break
                i = self._warm_pending.pop(0)
                store = self._stores[i]
                if not store.warm_copy.reads_apart:  # an index in memory has one connection
                    store.warm_copy.load()
                    continue
            foreground.wait_idle()  # a request re-opening a fleet goes first
            read = store.warm_copy.read(foreground.wait_idle)
            with self._lock:
                if self._released:
                    break
                if read is not None and not store.warm_copy.install(read):
                    tries[i] = tries.get(i, 0) + 1
                    if tries[i] < WARM_TRIES:
                        self._warm_pending.append(i)
        # Last, the keyword index, every entry prepared: decoded under the lock a slice at a
        # time, built outside it (kb.io.answering.keywordwarm), installed under it.
        with self._lock:
            if self._released or self._keywords_warm:
                return
            keyed = self.__dict__.get("_keyed")
        stopped = lambda: self._released  # noqa: E731
        held = (keyed, self.bases, self._stores, self.scope is Scope.ALL, self._lock, stopped)
        index, suggester = keywordwarm.shared_index(*held)
        with self._lock:
            if index is not None and not self._released and not self._keywords_warm:
                # the index holds every entry packed: decoded headers, entries and the cold
                # path's prepared entries would be a second copy (at 100,000 notes, 180 MB)
                self.__dict__.pop("_keyed", None)
                self._prepared.clear()
                if self.__dict__.setdefault("keywords", index) is not index:  # built meanwhile
                    index, suggester = self.keywords, SuggestIndex(self.keywords.key_norms())
                    index.prepare_all()
                self._suggester, self._keywords_warm = suggester, True
                self.warm_seconds = time.monotonic() - started

    def _warm_in_background(self) -> None:
        """The warming thread: `_warm_all`, then gone (a later stale base starts another)."""
        try:
            with foreground.background():
                self._warm_all()
            heap.give_back()  # the build's freed objects: hundreds of MB at 100,000 notes
        finally:
            with self._lock:
                self._warm_worker = None

    def _rewarm(self) -> None:
        """Before a question: any base whose index changed since its copy was read answers
        from SQLite, and a warm Memory reads it again in the background (a re-opened one
        holds copies before it is warmed: kb.io.answering.live)."""
        stale = [i for i, store in enumerate(self._stores) if not store.warm_copy.confirm()]
        if stale and self._warm:
            self._queue_warm(stale, wait=False)

    # -- facts about the open fleet ------------------------------------------------------

    def warnings(self) -> list[str]:
        """One line per problem a person should see on every verb that opens these bases:
        an unreadable alias file, a `private =` entry that names nothing, an index read
        from a fall-back (a read-only disk, a folder kb may not write in)."""
        out: list[str] = []
        fallen: dict[str, list[str]] = {}
        for b, store in zip(self.bases, self._stores, strict=True):
            out += b.snapshot.problems
            for why in (store.fallback, store.notice):
                if why:
                    fallen.setdefault(why, []).append(b.snapshot.name)
        # One line per kind of fall-back, naming its bases: a read-only fleet says it once.
        out += [f"{', '.join(names)}: {why}" for why, names in fallen.items()]
        return out + [f"{e}; this base was skipped and the rest answered" for e in self.skipped]

    @property
    def include_private(self) -> bool:
        return self.scope is Scope.ALL

    def entry_count(self) -> int:
        return self._entry_count

    def alias_count(self) -> int:
        return len(self.aliases)

    def agent_count(self) -> int:
        return len(self.bases)

    def is_empty(self) -> bool:
        return not self._entry_count

    def routable_agents(self) -> list[str]:
        return [b.snapshot.agent_name for b in self.bases if b.snapshot.routable]

    # -- the question path ---------------------------------------------------------------

    def terms(self, question: str) -> list[str]:
        return expand_query(question, self.aliases)

    @serialised
    def route(self, question: str, top: int = DEFAULT_TOP) -> list[KeywordHit]:
        return [h for h in self._rank_keywords(self.terms(question), top)[0] if h.entry.rel]

    def _rank_keywords(
        self, terms: Sequence[str], top: int
    ) -> tuple[list[KeywordHit], Callable[[str], float], frozenset[str]]:
        """The keyword ranking, the idf it scored with, and the `terms` some entry in scope
        holds. From the persisted postings: the rows of the question's words (and of the
        prefixes a phrase's second word can be) name the candidates and count each word's
        df; only those that can reach `top` are decoded (`rank_bounded`)."""
        if not self._postings or self._keywords_warm:
            index = self.keywords
            held = frozenset(t for t in terms if index.holds(t))
            return index.rank(terms, top), index.idf, held
        df: dict[str, int] = {}
        chosen: dict[tuple[int, str], int] = {}
        holding: dict[int, list[str]] = {}  # entry order -> the terms its vocabulary holds
        phrasal: set[int] = set()  # found by a phrase's second word: may hold a phrase
        for i, store in enumerate(self._stores):
            order = self._entry_order[i]
            vocabulary, phrases = store.keywords.candidate_rows(terms, term_prefixes(terms))
            for word, rel in vocabulary:
                if (place := order.get_place(rel)) is not None:
                    df[word] = df.get(word, 0) + 1
                    chosen[(i, rel)] = place
                    holding.setdefault(place, []).append(word)
            for _, rel in phrases:
                if (place := order.get_place(rel)) is not None:
                    phrasal.add(chosen.setdefault((i, rel), place))
        at = {o: key for key, o in chosen.items()}
        prepared = self._prepared_at({at[o]: o for o in phrasal})  # only these hold a phrase
        extra = phrase_words((p for _, p in prepared), terms) - set(terms)
        if extra:
            for i, store in enumerate(self._stores):
                order = self._entry_order[i]
                for word, rel in store.keywords.vocabulary_rows(extra):
                    if rel in order:
                        df[word] = df.get(word, 0) + 1
        # each word's idf once (98,552 asks for 100 questions at 10,000 notes, a few hundred words)
        weights: dict[str, float] = {}

        def idf(word: str) -> float:
            found = weights.get(word)
            if found is None:
                found = weights[word] = idf_of(self._entry_count, df.get(word, 0))
            return found

        held = frozenset(t for t in terms if df.get(t, 0) > 0)
        decode = lambda part: self._prepared_at({at[o]: o for o in part})  # noqa: E731
        return rank_bounded(prepared, holding, decode, terms, top, idf), idf, held

    def _prepared_at(self, chosen: dict[tuple[int, str], int]) -> list[tuple[int, Prepared]]:
        """(entry order, prepared entry) for each chosen (base, path), decoded once per open
        (a server asks many questions of one open)."""
        missing: dict[int, list[str]] = {}
        for i, rel in chosen:
            if (i, rel) not in self._prepared:
                missing.setdefault(i, []).append(rel)
        for i, rels in missing.items():
            b = self.bases[i]
            for rel, h in self._stores[i].headers.full(b.snapshot, b.scan, rels, b.light).items():
                self._prepared[(i, rel)] = prepared_of(b.snapshot.name, h)
        return sorted((order, self._prepared[key]) for key, order in chosen.items())

    @serialised
    def search_text(self, terms: Sequence[str], limit: int) -> list[TextHit]:
        """The best chunks on the fleet-wide scale, with their text and excerpts."""
        stubs, exprs, _, _ = self._ranked_text(terms, limit)
        details = textsearch.details(self._stores, stubs, exprs)
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
    ) -> tuple[list[TextHit], list[str], TextStats, dict[tuple[str, str], float]]:
        """The text ranking over every open base (kb.io.answering.textsearch.ranked_text), each
        base's index asked for its best `BASE_CANDIDATES` chunks, or more when `limit` asks."""
        if terms and limit > 0:
            self._rewarm()
        per_base = max(BASE_CANDIDATES, limit // TEXT_OVERSAMPLE)
        return textsearch.ranked_text(
            self._stores, self._in_scope, self.include_private, terms, limit, per_base
        )

    @serialised
    def ask(self, question: str, top: int = DEFAULT_TOP) -> Answer:
        own = question_terms(question)
        terms = expand(own, self.aliases)
        ranked, idf, key_words = self._rank_keywords(terms, top * KEYWORD_OVERSAMPLE)
        keyword = [h for h in ranked if h.entry.rel]
        text, exprs, stats, file_scores = self._ranked_text(terms, top * TEXT_OVERSAMPLE)
        weights = term_weights(own, stats)
        complete = W_KEYWORD * sum(idf(t) for t in own)
        fused = fuse(keyword, text, max(top, 2), weights, complete, file_scores)
        evidence = evidence_for(
            fused[0] if fused else None,
            keyword,
            text,
            evidence_weights(own, stats),
            expansion_sources(own, self.aliases),
            self.entry_count(),
            sum(weights.values()),
            known_share(own, self._known_words(own, key_words)),
            self.calibration().known_line(language_of(question)),
        )
        confidence = judged(keyword, {(t.base, t.path) for t in text}, self.entry_count(), evidence)
        agent = choose_agent_by_keyword(keyword, self.routable_agents())
        first = keyword[0].entry if keyword else None
        found = textsearch.completed(
            self.bases,
            self._stores,
            textsearch.with_passages(self._stores, fused[:top], text, exprs),
        )
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

    def _known_words(self, words: Sequence[str], key_words: frozenset[str]) -> set[str]:
        """The words some note in scope holds: in its keys, title, file name or purpose
        (`key_words`, from the keyword ranking) or in its text as exact words (not only by
        stem), from each base's vocabulary after `_ranked_text` looked these words up."""
        known = {w for w in words if w in key_words}
        for store in self._stores:
            rest = [w for w in words if w not in known]
            if not rest:
                break
            known |= store.vocabulary.known_words(rest)
        return known

    @serialised
    def calibration(self) -> Calibration:
        """What the open bases' vocabularies say of on-topic and everyday questions (each
        base's is measured once per change of its index: `Vocabulary.calibration`)."""
        if self._calibration is None:
            self._calibration = fleet_calibration(
                store.vocabulary.calibration() for store in self._stores
            )
        return self._calibration

    def changed_since_indexed(self, found: Found) -> bool:
        return self.is_changed(found.base, found.path)

    @serialised
    def stale(self) -> list[str]:
        """`base/path` of every file in scope whose passages the text index does not hold as
        the file is now (never indexed, or changed since): what `kb index` would re-read.
        The map file and unreadable files are never indexed, so they are never stale."""
        return [  # one base's hashes held at a time (all of them: 22 MB at 100,000 notes)
            f"{b.snapshot.name}/{h.rel}"
            for b, store in zip(self.bases, self._stores, strict=True)
            for indexed in (store.text.indexed_hashes(),)
            for h in b.scan.lights
            if indexed.get(h.rel) != h.hash
            and h.rel != b.snapshot.map_rel
            and h.bucket != "unreadable"
        ]

    @serialised
    def retrieve(self, question: str, top: int = DEFAULT_TOP) -> list[Found]:
        return list(self.ask(question, top).found)

    # -- async counterparts: the same call on a worker thread, so an event loop never waits
    # on SQLite (the lock above keeps one call at a time per Memory) ---------------------

    async def aask(self, question: str, top: int = DEFAULT_TOP) -> Answer:
        import asyncio

        return await asyncio.to_thread(self.ask, question, top)

    async def aretrieve(self, question: str, top: int = DEFAULT_TOP) -> list[Found]:
        import asyncio

        return await asyncio.to_thread(self.retrieve, question, top)

    async def alist(self, facets: Facets | None = None) -> list[Row]:
        import asyncio

        return await asyncio.to_thread(self.list, facets)

    @serialised
    def remember(self, claim: str) -> Remembered:
        """Propose ADD, UPDATE or NOOP for a claim by its overlap with stored chunks.
        Writes nothing."""
        terms = self.terms(claim)
        from kb.pure.roles.remember import EVIDENCE_WIDTH, propose

        return propose(claim, terms, self.search_text(terms, EVIDENCE_WIDTH))

    def floor(self) -> float:
        return confidence_of([], set(), self.entry_count()).floor

    @serialised
    def suggest(self, question: str, limit: int = SUGGEST_LIMIT) -> list[str]:
        """Keys that look like the question's words (spelling, never meaning): only key words
        sharing a lookup with a question word and within its bound are compared, found in
        the persisted trigrams, or in memory once the keyword index is held (`warm`)."""
        if not self._postings or self._keywords_warm:
            if self._suggester is None:
                self._suggester = SuggestIndex(self.keywords.key_norms())
            return self._suggester.suggest(question, limit)
        asked = asked_words(question)
        if not asked:
            return []
        bounds = [word_bound(word, tris, count) for word, tris, count in asked]
        parts = {
            part
            for store in self._stores
            for b in bounds
            for part in store.keywords.parts_within(b)
        }
        scores = {part: part_score(part, asked) for part in parts}
        good = {part: score for part, score in scores.items() if score >= SUGGEST_FLOOR}
        pairs = [
            (key, good[part])
            for i, store in enumerate(self._stores)
            for part, key, rel in store.keywords.keys_with(good)
            if rel in self._entry_order[i]
        ]
        return best_keys(pairs, limit)

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
            unknown=(confidence.known, confidence.known_line)
            if refused_as_unknown(confidence)
            else None,
        )

    def searchable(self, question: str) -> bool:
        """Whether any word of the question (or an alias it triggers) reaches a scorer."""
        return bool(self.terms(question))

    @serialised
    def recall_loss(self, question: str, confidence: Confidence) -> RecallLoss | None:
        """Record a refused question in the miss log; None unless the verdict is nothing.
        A question of stopwords only is not a miss: no note or alias would have caught it.
        The question is logged (and reported in the loss) scrubbed of secrets and cut to the
        characters the router reads (kb.pure.logs.logbounds)."""
        if self.is_empty() or confidence.verdict != "nothing" or not self.searchable(question):
            return None
        looked_like = tuple(self.suggest(question))
        today = clock.today_utc()
        from kb.io.logs import misslog  # only a refusal writes the miss log
        from kb.pure.logs.logbounds import loggable

        log = misslog.log_path(self.opened[0])
        logged = loggable(question)  # the loss reports it; `kb boot` hands it on
        error = misslog.record(log, logged, looked_like, today)
        return RecallLoss(logged, looked_like, today, str(log), error)

    # -- listing and describing ----------------------------------------------------------

    def list(self, facets: Facets | None = None) -> list[Row]:
        """The files in scope that pass `facets` (all of them without)."""
        return list(self.each_row(facets))

    def each_row(self, facets: Facets | None = None) -> Iterator[Row]:
        """`list`'s rows one at a time, kept by nobody (at 100,000 notes, 17 MB of rows)."""
        from kb.io.fleet.listing import each_row  # a question never lists nor describes

        with self._lock:
            yield from each_row(self.bases, facets)

    @serialised
    def describe(self) -> str:
        from kb.pure.fleet.fleetcard import describe

        return describe(*self.fleet_card())

    @serialised
    def fleet_card(self) -> tuple[Card, tuple[Member, ...]]:
        """The fleet's card and its members, from the manifests (what `kb fleet` prints)."""
        from kb.io.fleet.listing import card_of

        return card_of(self.opened[0], self.bases, self.include_private)
