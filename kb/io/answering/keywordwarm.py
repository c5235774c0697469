"""The keyword index a warm Memory holds, built while questions go on.

At 100,000 notes it takes 8-9 s: every entry's header decoded, the index built, every entry
prepared for scoring and the suggestion index made from their keys. All of it ran under the
Memory's lock, so after every change on disk a resident kb's next question waited for the
rebuild (12.3-13.0 s a question at 100,000 notes). Now only the decoding holds the lock, a
slice of headers at a time: it reads through the bases' own connections, which questions
share. The rest is values in memory that no question sees until they are installed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from itertools import islice
from typing import Any

from kb.io.answering import foreground
from kb.io.answering.opened import HEADERS_AT_ONCE, OpenBase, entry_of
from kb.io.store import FileHeader, sharedstrings, token_sets_of
from kb.pure.answering.entries import Entry, Prepared, TokenSets, prepared_from, token_sets
from kb.pure.answering.keyword import KeywordIndex, Stopped, looking
from kb.pure.answering.suggest import SuggestIndex

Keyed = list[tuple[Entry, FileHeader]]


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
