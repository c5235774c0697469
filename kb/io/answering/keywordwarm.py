"""The keyword index a warm Memory holds, built while questions go on.

At 100,000 notes it takes 8-9 s: every entry's header decoded, the index built, every entry
prepared for scoring and the suggestion index made from their keys. All of it ran under the
Memory's lock, so after every change on disk a resident kb's next question waited for the
rebuild (12.3-13.0 s a question at 100,000 notes). Now only the decoding holds the lock, a
slice of headers at a time: it reads through the bases' own connections, which questions
share. The rest is values in memory that no question sees until they are installed.
"""

from __future__ import annotations

import _thread
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from itertools import islice
from typing import Any

from kb.io.answering import foreground
from kb.io.answering.opened import HEADERS_AT_ONCE, OpenBase, entry_of
from kb.io.store import FileHeader, Store, sharedstrings, token_sets_of
from kb.pure.answering.entries import Entry, Prepared, TokenSets, prepared_from, token_sets
from kb.pure.answering.keyword import KeywordIndex, Stopped, looking
from kb.pure.answering.suggest import SuggestIndex

Keyed = list[tuple[Entry, FileHeader]]
# What a held keyword index was built from: per base in fleet order, its name, its index
# file's real path and the digest of its stat pass (each file's path, size, mtime, privacy
# and problem: kb.io.store.headers.stat_digest), and the scope. The digest tells the scopes
# apart already wherever a private file exists; the scope is named too, so that no public
# question's index rests on what a digest happens to cover.
Identity = tuple[tuple[tuple[str, str, str], ...], bool]

# Keyword indexes held by some open Memory, by what they were built from: a resident kb
# opens a fleet once per caller's folder and spelling of it (a hook's absolute path, a
# `kb route` typed in an agent's folder), and each open built and held its own index of the
# same entries, 267 MB more at 100,000 notes. Weak: an index lives as long as a Memory holds
# it. Made on first use: a one-shot verb never warms.
_SHARED: Any = None  # weakref.WeakValueDictionary[Identity, KeywordIndex]
_SUGGESTERS: Any = None  # weakref.WeakKeyDictionary[KeywordIndex, SuggestIndex]
_SHARED_LOCK = _thread.allocate_lock()


def index_of(keyed: Keyed, stopped: Callable[[], bool] | None = None) -> KeywordIndex:
    """The keyword index over these entries, by the token sets their headers cached. Raises
    `Stopped` when `stopped`, asked every `STOP_CHECK_EVERY` entries, says so."""
    sets: list[TokenSets] = []
    for e, h in looking(keyed, stopped):
        sets.append(token_sets_of(h) or token_sets(e.stem, e.title, e.keywords, e.summary))
    return KeywordIndex([e for e, _ in keyed], sets, stopped)


def prepared_of(base: str, h: FileHeader) -> Prepared:
    """An entry's header, prepared for scoring."""
    entry = entry_of(base, h)
    return prepared_from(entry, token_sets_of(h) or token_sets(*_words(entry)))


def _words(e: Entry) -> tuple[str, str, tuple[str, ...], str]:
    return e.stem, e.title, e.keywords, e.summary


def prepared_in_slices(
    bases: Sequence[OpenBase], lock: AbstractContextManager[Any], stopped: Callable[[], bool]
) -> list[Prepared] | None:
    """Every entry in scope prepared, in fleet order, its headers decoded HEADERS_AT_ONCE at
    a time under `lock` and let go before the next slice (so the next slice's reuse their
    memory); None when `stopped` says the Memory was let go meanwhile."""
    out: list[Prepared] = []
    for b in bases:
        headers = b.each_header()
        while True:
            foreground.wait_idle()
            with lock:
                if stopped():
                    return None
                part = list(islice(headers, HEADERS_AT_ONCE))
            if not part:
                break
            out += (prepared_of(b.snapshot.name, h) for h in part if h.bucket == "entry")
    return out


def identity_of(
    bases: Sequence[OpenBase], stores: Sequence[Store], include_private: bool
) -> Identity | None:
    """What these bases' keyword index is built from, or None where it cannot be told (an
    index in memory, a stat pass kept under no digest)."""
    parts = []
    for b, store in zip(bases, stores, strict=True):
        if not b.scan.digest or not store.reopens:
            return None
        parts.append((b.snapshot.name, os.path.realpath(store.file), b.scan.digest))
    return tuple(parts), include_private


def shared_index(
    keyed: Keyed | None,
    bases: Sequence[OpenBase],
    stores: Sequence[Store],
    include_private: bool,
    lock: AbstractContextManager[Any],
    stopped: Callable[[], bool],
) -> tuple[KeywordIndex, SuggestIndex] | tuple[None, None]:
    """`held_index`, or the one another open Memory built from the same bases, files and
    scope (`identity_of`) and holds still. Never shared across scopes."""
    global _SHARED, _SUGGESTERS
    identity = identity_of(bases, stores, include_private)
    if identity is not None:
        with _SHARED_LOCK:
            index = _SHARED.get(identity) if _SHARED is not None else None
            if index is not None:
                return index, _SUGGESTERS[index]
    built = index, suggester = held_index(keyed, bases, lock, stopped)
    if identity is not None and index is not None and suggester is not None:
        import weakref

        with _SHARED_LOCK:
            if _SHARED is None:
                _SHARED, _SUGGESTERS = weakref.WeakValueDictionary(), weakref.WeakKeyDictionary()
            _SHARED[identity] = index
            _SUGGESTERS[index] = suggester
    return built


def held_index(
    keyed: Keyed | None,
    bases: Sequence[OpenBase],
    lock: AbstractContextManager[Any],
    stopped: Callable[[], bool],
) -> tuple[KeywordIndex, SuggestIndex] | tuple[None, None]:
    """The index a warm Memory installs, with its suggestion index: from the entries it
    decoded already (`keyed`), else from its bases' headers a slice at a time; nothing
    when `stopped` says the Memory was let go meanwhile."""
    if keyed:
        prepared: list[Prepared] | None = [prepared_of(e.base, h) for e, h in keyed]
    else:
        prepared = prepared_in_slices(bases, lock, stopped)
    return (None, None) if prepared is None else built(prepared, stopped)


def built(
    prepared: Sequence[Prepared], stopped: Callable[[], bool]
) -> tuple[KeywordIndex, SuggestIndex] | tuple[None, None]:
    """The index over every entry prepared, and its suggestion index; nothing when `stopped`
    says the Memory was let go meanwhile (a re-open replaced it)."""

    def waited_or_stopped() -> bool:
        foreground.wait_idle()
        return stopped()

    # Each step looks at `waited_or_stopped` every STOP_CHECK_EVERY entries or keys: a request
    # goes first (kb.io.answering.foreground), and a Memory let go stops building at once
    # (building the index from the decoded headers ran on for seconds at 100,000 notes,
    # and slowed the first questions after a change to about 1 s).
    try:
        index = KeywordIndex.of_prepared(prepared, waited_or_stopped)
        index.prepare_all(waited_or_stopped)
        if stopped():
            return None, None
        # the keys as the headers' decoding shared them (kb.io.store.sharedstrings), not the
        # copies unpacked here: those die at once, and the shared ones would die with the
        # pool, leaving holes all over the heap (53 MB of keys at 100,000 notes)
        keys = ((sharedstrings.shared(k), n) for k, n in index.key_norms())
        return index, SuggestIndex(looking(keys, waited_or_stopped))
    except Stopped:
        return None, None
