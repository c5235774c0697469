"""The header cache: what each note's header says, kept in the `headers` table of its base's
index with the stat it was read at (size, mtime_ns), its content hash, bucket, title, keys,
purpose and front matter. Validated on every open by comparing stats, so only files that
changed are read again (10,000 headers re-parsed cost 1.3 s; the stat pass costs 21 ms).
The cache is written opportunistically: if the database is busy or read-only, the parse is
used in memory and the next open tries again.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from attrs import frozen

from kb.io.notes.safe_read import Refused, read_note
from kb.io.notes.walk import BaseSnapshot, FileStat
from kb.io.store.fileheader import FileHeader, header_from_row
from kb.io.store.lights import LightHeader, Lights
from kb.io.store.pending import STREAM_FROM, PendingHeaders, StreamedSave
from kb.io.store.schema import SQL_VARIABLES, briefly
from kb.pure.answering.entries import bucket_of, parse_note, token_sets
from kb.pure.notes.header import front_matter
from kb.pure.notes.paths import stem_of

if TYPE_CHECKING:
    from kb.io.store.database import Store

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
class HeaderScan:
    """One base's stat pass: the light headers in walk order, the full headers of the files
    read again in it, each file's stat by path, whether the re-read ones were saved, and the
    walk's digest (under which the index keeps the pass)."""

    lights: Lights
    fresh: Mapping[str, FileHeader]
    stats: Mapping[str, FileStat]
    saved: bool
    digest: str = ""


class HeaderCache:
    """One base's `headers` and `scan_lights` rows: the stat pass of every open, the full
    headers a caller asks for, and the save of the headers read again (with their keyword
    postings, in one transaction)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def scan(
        self,
        base: BaseSnapshot,
        progress: Callable[[int, int], None] | None = None,
        earlier: HeaderScan | None = None,
    ) -> HeaderScan:
        """Every in-scope file's light header, in walk order, reading only files whose stat
        changed (parsed in full, saved to the cache with their postings). What is decoded
        per file is five columns: the title, keys and front matter stay in the database
        until `full` asks for them. A walk seen before (same digest) is answered from
        `scan_lights` without reading a header row.

        `earlier`: this walk's pass from an open before (a resident kb re-opening a fleet),
        taken as it is when this index keeps it, which proves the index holds its rows. An
        index in memory (a folder kb may not index) starts empty at every open, and one
        deleted since starts empty too: their rows must be saved again, or the persisted
        postings find none of the base's keys (a resident kb refused what a one-shot kb
        answered)."""
        if earlier is not None and earlier.saved and self.holds(earlier.digest):
            return earlier
        stats = base.files.by_rel()
        digest = stat_digest(base)
        # through the Store, where tests stand in for `kept_lights` and `save`
        kept = self._store._kept_lights(digest, base.files.rels)
        if kept is not None:
            return HeaderScan(kept, {}, stats, True, digest)
        cached = {
            row[0]: row[1:]
            for row in self._store.conn.execute(
                "SELECT path, size, mtime_ns, hash, bucket, declared, derivable, "
                "CASE WHEN bucket = 'unreadable' THEN purpose ELSE '' END FROM headers"
            )
        }
        stale = sum(
            1
            for f in base.files
            if (row := cached.get(f.rel)) is None or row[0] != f.size or row[1] != f.mtime_ns
        )
        stream = StreamedSave.begin(self._store) if stale >= STREAM_FROM else None
        lights: list[LightHeader] = []
        pending = PendingHeaders()
        # A file refused because it changed under kb since the walk is not remembered: the
        # next open reads it again (a note restored after a swap must not stay unreadable).
        raced: dict[str, FileHeader] = {}
        total = len(base.files)
        try:
            for done, f in enumerate(base.files):
                if progress is not None:
                    progress(done, total)
                row = cached.get(f.rel)
                if row is not None and row[0] == f.size and row[1] == f.mtime_ns:
                    _, _, h, bucket, declared, derivable, note = row
                    if bucket != "unreadable":  # the map may have changed since: ask again
                        bucket = bucket_of(base.map_rel, f.rel, bool(declared), bool(derivable))
                    lights.append(LightHeader(f.rel, f.private, bucket, h or "", note))
                    continue
                header = read_header(base, f)
                # as a cached row gives it: the reason for an unreadable file, else nothing (a
                # kept pass must equal the rows it stands for; the property found the purpose)
                note = header.purpose if header.bucket == "unreadable" else ""
                lights.append(LightHeader(f.rel, f.private, header.bucket, header.hash, note))
                if header.raced:
                    raced[f.rel] = header
                elif stream is not None:
                    stream.add(f, header)
                else:
                    pending.add(f, header)
        except BaseException:
            if stream is not None:  # the pass was stopped (a Ctrl-C, its parent gone)
                stream.abandon()
            raise
        del cached
        fresh: Mapping[str, FileHeader]
        if stream is not None:
            saved = stream.finish()
            # a streamed pass holds nothing it read: what it could not save is read again
            fresh = raced if saved else _ReadAgain(base, stats, stream.rels, raced)
        else:
            saved = self._store._save_headers(pending) if pending else True
            fresh = raced if saved else _Either(pending, raced)
        if saved and not raced:
            self._keep_lights(digest, lights)
        # Postings answer for this open only when every file read again was saved with its
        # rows (a busy or read-only index keeps old rows: the caller then scores in memory,
        # from the headers not saved).
        return HeaderScan(Lights.of(lights), fresh, stats, saved, digest)

    def let_go(self) -> None:
        """Free the connection's page cache after a read of the whole base (it refills as
        questions need pages)."""
        with contextlib.suppress(sqlite3.Error):
            self._store.conn.execute("PRAGMA shrink_memory")

    def holds(self, digest: str) -> bool:
        """Whether a stat pass with this digest is kept here (one indexed row, not decoded)."""
        try:
            found = self._store.conn.execute(
                "SELECT 1 FROM scan_lights WHERE digest = ?", (digest,)
            ).fetchone()
        except sqlite3.Error:
            return False
        return found is not None

    def kept_lights(self, digest: str, walked: Sequence[str] = ()) -> Lights | None:
        """The light headers a stat pass with this digest found, or None (never seen, or a
        row that does not decode: the caller then reads the header rows). `walked`: the
        walk's paths in order, whose strings the pass holds where its paths are the same
        (a decoded copy of every path was 9 of the 81 MB a fleet of 100,000 notes held)."""
        try:
            conn = self._store.conn
            row = conn.execute(
                "SELECT lights FROM scan_lights WHERE digest = ?", (digest,)
            ).fetchone()
            if row is None:
                return None
            # The pass is a megabyte or two of overflow pages, read once: let the connection's
            # page cache go, or a fleet-wide verb holds up to 2 MB of it for each base (12 MB of
            # `kb fleet`'s peak at 100,000 notes), where a question needs a few pages.
            self.let_go()
            rows = json.loads(row[0])
            if not rows:
                return Lights.of(())
            rels, private, buckets, hashes, notes = zip(*rows, strict=True)
            if any(set(map(type, column)) - {str} for column in (rels, buckets, hashes, notes)):
                return None  # not a pass kb wrote: read the header rows
            if rels == tuple(walked):
                rels = tuple(walked)  # the walk's own strings (the same tuple when given one)
            else:
                names = {rel: rel for rel in walked}
                rels = tuple(names.get(rel, rel) for rel in rels)
            return Lights.from_columns(rels, private, buckets, hashes, notes)
        except (sqlite3.Error, ValueError, TypeError):
            return None

    def _keep_lights(self, digest: str, lights: Sequence[LightHeader]) -> None:
        """Save a finished stat pass under its digest, opportunistically (a busy or
        read-only index simply reads header rows again next time)."""
        if self.holds(digest):
            return  # another process kept this walk meanwhile
        blob = json.dumps(
            [[h.rel, h.private, h.bucket, h.hash, h.note] for h in lights], ensure_ascii=False
        )
        with contextlib.suppress(sqlite3.Error), briefly(self._store.conn), self._store.conn:
            self._store.conn.execute("BEGIN IMMEDIATE")
            self._store.conn.execute(
                "INSERT OR REPLACE INTO scan_lights VALUES (?, ?)", (digest, blob)
            )
            self._store.conn.execute(
                "DELETE FROM scan_lights WHERE rowid NOT IN "
                "(SELECT rowid FROM scan_lights ORDER BY rowid DESC LIMIT ?)",
                (SCAN_LIGHTS_KEPT,),
            )

    def full(
        self,
        base: BaseSnapshot,
        scan: HeaderScan,
        rels: Sequence[str],
        light_by_rel: Mapping[str, LightHeader] | None = None,
    ) -> dict[str, FileHeader]:
        """The full headers of these files (in scope, from `scan`), decoded from the cache;
        a damaged cache row costs one re-read of its file, never a wrong answer.
        `light_by_rel`: the scan's light headers by path, when the caller keeps them (a
        question asks for a few headers, and building the map was a tenth of its cost)."""
        out: dict[str, FileHeader] = {}
        wanted: list[str] = []
        for rel in rels:
            found = scan.fresh.get(rel)
            if found is not None:
                out[rel] = found
            elif rel in scan.stats:
                wanted.append(rel)
        light: Mapping[str, LightHeader] = {}
        if wanted:
            light = light_by_rel if light_by_rel is not None else scan.lights.by_rel()
        for i in range(0, len(wanted), SQL_VARIABLES):
            part = wanted[i : i + SQL_VARIABLES]
            marks = ",".join("?" * len(part))
            for rel, title, purpose, parsed, tokens in self._store.conn.execute(
                f"SELECT path, title, purpose, parsed, tokens FROM headers WHERE path IN ({marks})",
                part,
            ):
                lh = light[rel]
                # the walk's own path string: the row's is a second copy of it
                got = header_from_row(
                    lh.rel, lh.private, lh.bucket, lh.hash, title, purpose, parsed, tokens
                )
                out[rel] = got if got is not None else read_header(base, scan.stats[rel])
        missing = [rel for rel in wanted if rel not in out]
        for rel in missing:  # a row gone since the scan (another writer's prune, a tool)
            out[rel] = read_header(base, scan.stats[rel])
        if missing:
            # A kept stat pass stands for rows that are not there: while it is kept, every
            # open skips the stat pass that would save them again, and these files are read
            # from disk on every open. Forgotten, the next open reads and saves them once.
            self._forget_kept_passes()
        return out

    def _forget_kept_passes(self) -> None:
        """Drop every kept stat pass, opportunistically (a busy or read-only index keeps
        them, and is asked again the next time a row is missing)."""
        with contextlib.suppress(sqlite3.Error), briefly(self._store.conn), self._store.conn:
            self._store.conn.execute("DELETE FROM scan_lights")

    def every(self, base: BaseSnapshot) -> list[FileHeader]:
        """Every in-scope file's full header, reading only files whose stat changed."""
        scan = self.scan(base)
        full = self.full(base, scan, list(scan.lights.rels))
        return [full[rel] for rel in scan.lights.rels]

    def save(self, pending: PendingHeaders) -> bool:
        """Save re-read headers and their postings in one transaction; False when the index
        was busy or read-only (the parse is still used in memory this time)."""
        try:
            # Opportunistic, so it must not wait out a `kb index` holding the write lock:
            # with the full busy timeout every route and boot meanwhile stalled 5 s.
            with briefly(self._store.conn), self._store.conn:
                self._store.conn.execute("BEGIN IMMEDIATE")
                if self._store.keywords.has_rows():
                    self._store.keywords.drop(pending.rels())
                self._store.conn.executemany(
                    "INSERT OR REPLACE INTO headers VALUES (?,?,?,?,?,?,?,?,?,?,?)", pending.rows
                )
                self._store.keywords.write(pending.postings)
            return True
        except sqlite3.Error:
            return False


class _ReadAgain(Mapping[str, FileHeader]):
    """The headers of files a streamed pass read and could not save, each read again when
    asked (once), then the ones that raced."""

    __slots__ = ("_base", "_got", "_raced", "_rels", "_stats")

    def __init__(
        self,
        base: BaseSnapshot,
        stats: Mapping[str, FileStat],
        rels: list[str],
        raced: Mapping[str, FileHeader],
    ):
        self._base, self._stats, self._raced = base, stats, raced
        self._rels = dict.fromkeys(rels)
        self._got: dict[str, FileHeader] = {}

    def __getitem__(self, rel: str) -> FileHeader:
        if rel not in self._rels:
            return self._raced[rel]
        found = self._got.get(rel)
        if found is None:
            found = self._got[rel] = read_header(self._base, self._stats[rel])
        return found

    def __iter__(self) -> Iterator[str]:
        yield from self._rels
        yield from self._raced

    def __len__(self) -> int:
        return len(self._rels) + len(self._raced)


class _Either(Mapping[str, FileHeader]):
    """The headers a pass read again and could not save, then the ones that raced."""

    __slots__ = ("_first", "_second")

    def __init__(self, first: Mapping[str, FileHeader], second: Mapping[str, FileHeader]):
        self._first, self._second = first, second

    def __getitem__(self, rel: str) -> FileHeader:
        return self._first[rel] if rel in self._first else self._second[rel]

    def __iter__(self) -> Iterator[str]:
        yield from self._first
        yield from self._second

    def __len__(self) -> int:
        return len(self._first) + len(self._second)


def stat_digest(base: BaseSnapshot) -> str:
    """What a stat pass's light headers depend on, besides cached rows keyed by the same
    stats: the map's name and each in-scope file's path, size, mtime, privacy and problem
    (`scan_lights`). The header cache's version is not in it: a new version drops the table."""
    # `_blake2` is the C module `hashlib.blake2b` comes from; `hashlib` itself loads OpenSSL
    # (5 ms of import on every question, for a digest it does not need)
    from _blake2 import blake2b

    h = blake2b(digest_size=20)
    h.update(f"{base.map_rel}\n".encode("utf-8", "surrogatepass"))
    h.update("\n".join(base.files.stat_lines()).encode("utf-8", "surrogatepass"))
    return str(h.hexdigest())


def content_hash(data: bytes) -> str:
    """A stable 64-bit digest used only to skip unchanged files (not a security boundary)."""
    # Imported here: hashlib loads OpenSSL (~3 ms), and a question over an unchanged base
    # hashes nothing.
    import hashlib

    return hashlib.blake2b(data, digest_size=8).hexdigest()


def read_header(base: BaseSnapshot, f: FileStat) -> FileHeader:
    """The file's header, read through kb.io.notes.safe_read: a file refused there (a link, a
    swapped file, a private one under a public name) is unreadable, with the reason."""
    if f.problem is not None:  # a name the walk refused (kb.io.notes.walk.BAD_NAME)
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
