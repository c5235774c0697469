"""The header cache: what each note's header says, kept in the `headers` table of its base's
index with the stat it was read at (size, mtime_ns), its content hash, bucket, title, keys,
purpose and front matter. Validated on every open by comparing stats, so only files that
changed are read again (10,000 headers re-parsed cost 1.3 s; the stat pass costs 21 ms).
The cache is written opportunistically: if the database is busy or read-only, the parse is
used in memory and the next open tries again.
"""

from __future__ import annotations

import json

from attrs import frozen

from kb.io.safe_read import Refused, read_note
from kb.io.walk import BaseSnapshot, FileStat
from kb.pure.entries import Bucket, TokenSets, parse_note, sets_from_norms, token_sets
from kb.pure.header import front_matter
from kb.pure.paths import stem_of

# `scan_lights` holds a finished stat pass (issue 15): the light headers of every file, as one
# JSON array, under the digest of the walk it answered (each file's path, size, mtime_ns,
# privacy and problem, and the map's name: all that a light header depends on besides the
# file's cached row, which changes only with its stat). An open whose walk has the same
# digest reads one row instead of every header row and classifying each file again: 70 ms
# of a 10,000-note open became about 10. Every file is still stat'ed, so a file changed
# behind kb's back changes the digest and is read again. A few digests are kept, so opens
# of both scopes (with and without --all) alternate without rewriting the row.
SCAN_LIGHTS_KEPT = 4


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
    # Unreadable because the file changed under kb since the walk (kb.io.safe_read.Refused):
    # a moment, never saved to the cache.
    raced: bool = False


@frozen
class LightHeader:
    """What the stat pass knows of a file without decoding its header: enough to count
    entries, place a file in scope and say why one is unreadable (`note`, empty otherwise)."""

    rel: str
    private: bool
    bucket: Bucket | str
    hash: str
    note: str


@frozen
class HeaderScan:
    """One base's stat pass: the light headers in walk order, the full headers of the files
    read again in it, each file's stat by path, and whether the re-read ones were saved."""

    lights: tuple[LightHeader, ...]
    fresh: dict[str, FileHeader]
    stats: dict[str, FileStat]
    saved: bool


def stat_digest(base: BaseSnapshot) -> str:
    """What a stat pass's light headers depend on, besides cached rows keyed by the same
    stats: the map's name and each in-scope file's path, size, mtime, privacy and problem
    (`scan_lights`). The header cache's version is not in it: a new version drops the table."""
    # `_blake2` is the C module `hashlib.blake2b` comes from; `hashlib` itself loads OpenSSL
    # (5 ms of import on every question, for a digest it does not need)
    from _blake2 import blake2b

    h = blake2b(digest_size=20)
    h.update(f"{base.map_rel}\n".encode("utf-8", "surrogatepass"))
    h.update(
        "\n".join(
            f"{f.rel}\t{f.size}\t{f.mtime_ns}\t{int(f.private)}\t{f.problem or ''}"
            for f in base.files
        ).encode("utf-8", "surrogatepass")
    )
    return str(h.hexdigest())


def content_hash(data: bytes) -> str:
    """A stable 64-bit digest used only to skip unchanged files (not a security boundary)."""
    # Imported here: hashlib loads OpenSSL (~3 ms), and a question over an unchanged base
    # hashes nothing.
    import hashlib

    return hashlib.blake2b(data, digest_size=8).hexdigest()


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
        return sets_from_norms(keys, tuple(norms), tuple(title), tuple(stem), tuple(summary))
    except (ValueError, TypeError):
        return None


def token_sets_of(h: FileHeader) -> TokenSets | None:
    """A header's token sets: parsed now, or decoded from the cache; None when absent or
    damaged (the caller then tokenises the keys itself: slower, never wrong)."""
    if h.tokens is not None:
        return h.tokens
    if h.tokens_cached is None:
        return None
    try:
        title, stem, summary, norms = json.loads(h.tokens_cached)
        if len(norms) != len(h.keys):
            return None
        return sets_from_norms(h.keys, tuple(norms), tuple(title), tuple(stem), tuple(summary))
    except (ValueError, TypeError):
        return None


def _decode(
    parsed: str,
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...], bool, bool] | None:
    """A cached row's keys, front matter and the two derivation flags; None when the row is
    not in the expected shape (a damaged cache row then costs one re-read of the file, never
    a wrong answer)."""
    try:
        keys, front, derived, derivable = json.loads(parsed)
        return tuple(keys), tuple((k, v) for k, v in front), bool(derived), bool(derivable)
    except (ValueError, TypeError):
        return None


def read_header(base: BaseSnapshot, f: FileStat) -> FileHeader:
    """The file's header, read through kb.io.safe_read: a file refused there (a link, a
    swapped file, a private one under a public name) is unreadable, with the reason."""
    if f.problem is not None:  # a name the walk refused (kb.io.walk.BAD_NAME)
        return FileHeader(f.rel, f.private, "unreadable", "", "", (), f.problem, ())
    got = read_note(base, f.rel)
    if isinstance(got, Refused):
        return FileHeader(
            f.rel, f.private, "unreadable", "", "", (), got.reason, (), raced=got.raced
        )
    data = got.data
    text = got.text()
    if text is None:
        return FileHeader(f.rel, f.private, "unreadable", "", "", (), "not valid UTF-8", ())
    parsed = parse_note(base.map_rel, f.rel, text)
    tokens = (
        token_sets(stem_of(f.rel), parsed.title, parsed.keys, parsed.purpose)
        if parsed.keys or parsed.derivable
        else None
    )
    return FileHeader(
        f.rel,
        f.private,
        parsed.bucket,
        content_hash(data),
        parsed.title,
        parsed.keys,
        parsed.purpose,
        front_matter(text),
        tokens,
        derived=parsed.derived,
        derivable=parsed.derivable,
    )
