"""One note's header as the cache keeps it (`FileHeader`), and the row it is kept as in the
`headers` table: the encoding both the stat pass and a reader of the table share."""

from __future__ import annotations

import json
from collections.abc import Sequence

from attrs import frozen

from kb.io.notes.walk import FileStat
from kb.io.store.sharedstrings import shared, shared_all
from kb.pure.answering.entries import Bucket, TokenSets, sets_from_norms

# A `headers` row: path, size, mtime_ns, hash, bucket, title, purpose, parsed (keys, front
# matter and the two derivation flags, as JSON), tokens (JSON, or None without keys),
# declared, derivable.
HeaderRow = tuple[str, int, int, str, str, str, str, str, str | None, int, int]


@frozen
class FileHeader:
    """What the cache knows about one file; `bucket` is `unreadable` when it is not UTF-8."""

    rel: str
    private: bool
    bucket: Bucket | str
    hash: str
    title: str
    keys: tuple[str, ...]
    purpose: str
    front: tuple[tuple[str, str], ...]
    # The scorer's token sets when the file declares keys and was parsed in this process;
    # `tokens_cached` when they were read back from the cache, still encoded (decoded by
    # `token_sets_of` only when something scores). Both None for a file without keys.
    tokens: TokenSets | None = None
    tokens_cached: str | None = None
    # `keys` were derived from the note's own text (no `Search for:` line); `derivable`:
    # the note has words to be found by, so it is an entry outside the exempt folders.
    derived: bool = False
    derivable: bool = False
    # Unreadable because the file changed under kb since the walk (kb.io.notes.safe_read.Refused):
    # a moment, never saved to the cache.
    raced: bool = False


def cache_row(f: FileStat, h: FileHeader) -> HeaderRow:
    """The `headers` row a header read from `f` is saved as."""
    return (
        f.rel,
        f.size,
        f.mtime_ns,
        h.hash,
        h.bucket,
        h.title,
        h.purpose,
        json.dumps([h.keys, h.front, h.derived, h.derivable], ensure_ascii=False),
        _stored(h.tokens),
        int(bool(h.keys) and not h.derived),
        int(h.derivable),
    )


def _stored(sets: TokenSets | None) -> str | None:
    """What the cache keeps of the token sets: title, stem and purpose tokens and the key
    norms; the bag and phrases are rebuilt from the norms by `sets_from_norms`."""
    if sets is None:
        return None
    return json.dumps([sets[2], sets[3], sets[4], sets[5]], ensure_ascii=False)


def _sets(keys: tuple[str, ...], tokens: str) -> TokenSets | None:
    """Token sets from a cache row's keys and `tokens` column; None when damaged."""
    try:
        title, stem, summary, norms = json.loads(tokens)
        if len(norms) != len(keys):
            return None
        return _interned(keys, norms, title, stem, summary)
    except (ValueError, TypeError):
        return None


def _interned(
    keys: tuple[str, ...],
    norms: Sequence[str],
    title: list[str],
    stem: list[str],
    summary: list[str],
) -> TokenSets:
    """`sets_from_norms` over decoded words, each shared (kb.io.store.sharedstrings): a
    fleet's notes share most of their key and title words, and JSON decodes every
    occurrence as a string of its own (sharing took a warm fleet of 10,000 notes from 245
    to 233 MB)."""
    # a one-word key's norm is the word in the keyword bag; a phrase's is packed into the
    # held entry's text (kb.pure.answering.entries.Prepared), so the pool would only keep it
    # alive to the end of a fleet's read and leave its place a hole (27 MB at 100,000 notes)
    norms = tuple([n if " " in n else shared(n) for n in norms])
    return sets_from_norms(keys, norms, shared_all(title), shared_all(stem), shared_all(summary))


def token_sets_of(h: FileHeader) -> TokenSets | None:
    """A header's token sets: parsed now, or decoded from the cache; None when absent or
    damaged (the caller then tokenises the keys itself: slower, never wrong)."""
    if h.tokens is not None:
        return h.tokens
    if h.tokens_cached is None:
        return None
    return _sets(h.keys, h.tokens_cached)


def _decode(
    parsed: str,
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...], bool, bool] | None:
    """A cached row's keys, front matter and the two derivation flags; None when the row is
    not in the expected shape (a damaged cache row then costs one re-read of the file, never
    a wrong answer)."""
    try:
        keys, front, derived, derivable = json.loads(parsed)
        # interned as the token sets' words are (`_interned`): the notes of a fleet share
        # their keys, and a warm fleet of 10,000 notes held 219,923 decoded keys, 89,984 of
        # them distinct (14 MB of strings)
        keys = shared_all(keys)
        return keys, tuple((k, v) for k, v in front), bool(derived), bool(derivable)
    except (ValueError, TypeError):
        return None


def header_from_row(
    rel: str,
    private: bool,
    bucket: Bucket | str,
    hash_: str,
    title: str,
    purpose: str,
    parsed: str,
    tokens: str | None,
) -> FileHeader | None:
    """The full header a `headers` row stands for, with the light header's path, privacy,
    bucket and hash (the walk's own strings); None when the row does not decode (the caller
    reads the file again)."""
    decoded = _decode(parsed)
    if decoded is None:
        return None
    keys, front, derived, derivable = decoded
    return FileHeader(
        rel,
        private,
        bucket,
        hash_,
        title,
        keys,
        purpose,
        front,
        tokens_cached=tokens,
        derived=derived,
        derivable=derivable,
    )
