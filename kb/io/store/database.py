"""The Store: one base's index database opened (or, when it cannot be, an empty one in
memory or a read-only one), its connection kept within the process-wide budget, and its jobs
handed out (being split out of this module).
"""

from __future__ import annotations

import _thread  # the C lock: `threading` costs a hot verb about 1 ms to import
import contextlib
import json
import os
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kb.io.indexowner import discard, owned_by, stamp_for
from kb.io.store.headers import (
    SCAN_LIGHTS_KEPT,
    FileHeader,
    HeaderScan,
    LightHeader,
    _decode,
    _stored,
    read_header,
    stat_digest,
)
from kb.io.store.keywords import KeywordPostings
from kb.io.store.ranking import Ranking, SpanMap
from kb.io.store.schema import (
    SQL_VARIABLES,
    StoreError,
    connect,
    connect_immutable,
    connect_in_memory,
    db_path,
    prepare,
    wait_briefly,
    wait_fully,
)
from kb.io.store.textreader import TextReader
from kb.io.store.textwriter import SyncReport, TextWriter
from kb.io.store.vocabulary import Vocabulary
from kb.io.store.warm import WarmCopy
from kb.io.walk import BaseSnapshot, FileStat
from kb.pure.calibration import Calibration
from kb.pure.entries import bucket_of
from kb.pure.paths import MAP_NAMES
from kb.pure.textrank import TextStats

if TYPE_CHECKING:
    from kb.pure.warmtext import WarmText


NOT_A_BASE = (
    "this folder is not a base (it has no agent.txt and no MAP.md), so a reading verb makes "
    "no index in it (kb init makes a base, kb index indexes this folder anyway)"
)


FOREIGN = (
    "the index was not written on this machine (it came with the files: a clone, a pull or a copy)"
)


class Store:
    """An open index database for one base."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        rebuilt: bool,
        reopen: Callable[[], sqlite3.Connection] | None = None,
    ) -> None:
        self._conn: sqlite3.Connection | None = conn
        # How to open the connection again after `_release` (None: it cannot be, an index in
        # memory, so it is never released).
        self._reopen = reopen
        self.path = path
        self.rebuilt = rebuilt
        # Why this store is not the base's own writable index (None when it is): printed
        # once by every verb that opens it.
        self.fallback: str | None = None
        # Something this open did that a person should hear of once (an index this machine
        # did not write, deleted): printed like `fallback`, by the open that did it.
        self.notice: str | None = None
        self.warm_copy = WarmCopy(self)
        self.keywords = KeywordPostings(self)
        self.vocabulary = Vocabulary(self)
        self.ranking = Ranking(self)
        self.text = TextReader(self)
        self.writer = TextWriter(self)
        _track(self)

    @property
    def conn(self) -> sqlite3.Connection:
        """The open connection, opened again if the process-wide budget released it."""
        if self._conn is None:
            if self._reopen is None:
                raise StoreError(f"the index at {self.path} is closed", self.path, "closed")
            self._conn = self._reopen()
            self.vocabulary.reconnected()
            self.ranking.reconnected()
            self.warm_copy.reconnected()
        _track(self)
        return self._conn

    @property
    def reopens(self) -> bool:
        """Whether more connections to this index can be opened: not for an index in memory,
        whose only connection is `conn`."""
        return self._reopen is not None

    def connect_apart(self) -> sqlite3.Connection:
        """A new connection to this index, the caller's own to close (when `reopens`)."""
        if self._reopen is None:
            raise StoreError(f"the index at {self.path} is closed", self.path, "closed")
        return self._reopen()

    @property
    def warm(self) -> WarmText | None:
        """The text index held in memory as last confirmed (`WarmCopy.confirm`), or None:
        every reading job answers from it when held."""
        return self.warm_copy.held

    def _release(self) -> None:
        """Close the connection for now (it reopens on next use)."""
        if self._conn is not None and self._reopen is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None

    @classmethod
    def open(cls, root: Path, read_only_fallback: bool = False) -> Store:
        """The base's index. With `read_only_fallback` (every reading verb), an index that
        cannot be opened for writing (a read-only disk, a folder kb may not write in) is
        opened immutable instead, and a base with no index where none can be made gets an
        empty one in memory; `fallback` then says which, for the one-line warning."""
        path = db_path(root)
        existed = path.exists()
        # An index this machine did not write is deleted unread (kb.io.indexowner).
        stamp = stamp_for(root)
        disowned = existed and stamp is not None and not owned_by(path, stamp)
        if disowned:
            try:
                discard(path)
            except OSError:
                return cls._in_memory(path, f"{FOREIGN}, and it cannot be deleted here")
            existed = False
        if read_only_fallback and not existed and not _is_base(root):
            return cls._in_memory(path, NOT_A_BASE)
        if read_only_fallback and not existed and not _writable_dir(root):
            return cls._in_memory(path, "nothing is indexed here and the folder cannot be written")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = connect(path)
            if stamp is not None and not existed:
                # Before WAL, so the stamp is in the file's own header for the next opener.
                conn.execute(f"PRAGMA application_id = {stamp}")
            try:
                conn.execute("PRAGMA journal_mode = WAL")
            except sqlite3.OperationalError:
                pass  # a read-only location keeps its journal mode
            rebuilt = prepare(conn)
        except (sqlite3.Error, OSError) as e:
            with contextlib.suppress(NameError, sqlite3.Error):
                conn.close()
            if read_only_fallback and existed:
                fallen = cls._immutable(path)
                if fallen is not None:
                    return fallen
            if not existed:
                raise StoreError(
                    f"cannot open the index at {path}: nothing has been indexed here yet. Run "
                    "`kb index` on the base, and make sure the .kb/ directory it writes reaches "
                    f"the machine that answers the question. ({e})",
                    path,
                    str(e),
                ) from e
            raise StoreError(f"cannot open the index at {path}: {e}", path, str(e)) from e
        store = cls(conn, path, rebuilt, lambda: connect(path))
        if disowned:
            store.notice = f"{FOREIGN}; kb deleted it unread, and kb index fills a new one"
        return store

    # `prepare`, where tests/unit/test_store_migrate.py calls it
    _prepare = staticmethod(prepare)

    @classmethod
    def _immutable(cls, path: Path) -> Store | None:
        """The index opened read-only and immutable (no lock, no -shm file: what a read-only
        disk allows), or None when it cannot be read that way either."""
        try:
            conn = connect_immutable(path)
        except sqlite3.Error:
            return None
        store = cls(conn, path, False, lambda: connect_immutable(path))
        store.fallback = "the index is read-only here; answering from it as it stands"
        return store

    @classmethod
    def in_memory(cls, path: Path, why: str) -> Store:
        """An empty index in memory standing in for the one at `path`, which cannot be
        opened (`why`, named in the one-line warning every verb prints)."""
        return cls._in_memory(path, why)

    @classmethod
    def _in_memory(cls, path: Path, why: str) -> Store:
        store = cls(connect_in_memory(), path, False)
        store.fallback = f"{why}; answering from the notes' headers alone, with no text index"
        return store

    def close(self) -> None:
        with _OPEN_LOCK:
            _OPEN.pop(id(self), None)
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self._reopen = None

    # -- what tests call or stand in for on the Store; each job's own method does the work

    def text_stats(self, terms: Sequence[str]) -> tuple[TextStats, dict[str, tuple[str, ...]]]:
        return self.vocabulary.text_stats(terms)

    def holds_none(self, terms: Sequence[str]) -> bool:
        return self.vocabulary.holds_none(terms)

    def refresh_text_words(self) -> bool:
        return self.vocabulary.refresh_text_words()

    def calibration(self) -> Calibration:
        return self.vocabulary.calibration()

    def sync(
        self,
        base: BaseSnapshot,
        headers: Sequence[FileHeader | LightHeader],
        sources: Iterable[tuple[str | None, ...]]
        | Callable[[], Iterable[tuple[str | None, ...]]] = (),
        sources_stamp: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> SyncReport:
        return self.writer.sync(base, headers, sources, sources_stamp, progress)

    def read_warm(self) -> WarmText | None:
        return self.warm_copy.read()

    def _text_words_current(self) -> bool:
        return self.vocabulary.text_words_current()

    def rank(
        self, terms: Sequence[str], limit: int, include_private: bool
    ) -> tuple[str, list[tuple[int, str, str]]]:
        return self.ranking.rank(terms, limit, include_private)

    def _spans(self) -> SpanMap | None:
        return self.ranking.span_map()

    def _rank_by_rowid(
        self, expr: str, limit: int, include_private: bool, spans: SpanMap
    ) -> list[tuple[int, str, str]] | None:
        return self.ranking.rank_by_rowid(expr, limit, include_private, spans)

    # -- the header cache -------------------------------------------------------------

    def scan(
        self, base: BaseSnapshot, progress: Callable[[int, int], None] | None = None
    ) -> HeaderScan:
        """Every in-scope file's light header, in walk order, reading only files whose stat
        changed (parsed in full, saved to the cache with their postings). What is decoded
        per file is five columns: the title, keys and front matter stay in the database
        until `headers_of` asks for them. A walk seen before (same digest) is answered from
        `scan_lights` without reading a header row."""
        stats = {f.rel: f for f in base.files}
        digest = stat_digest(base)
        kept = self._kept_lights(digest)
        if kept is not None:
            return HeaderScan(kept, {}, stats, True)
        cached = {
            row[0]: row[1:]
            for row in self.conn.execute(
                "SELECT path, size, mtime_ns, hash, bucket, declared, derivable, "
                "CASE WHEN bucket = 'unreadable' THEN purpose ELSE '' END FROM headers"
            )
        }
        lights: list[LightHeader] = []
        fresh: list[tuple[FileStat, FileHeader]] = []
        total = len(base.files)
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
            # kept pass must equal the rows it stands for; the property found the purpose here)
            note = header.purpose if header.bucket == "unreadable" else ""
            lights.append(LightHeader(f.rel, f.private, header.bucket, header.hash, note))
            fresh.append((f, header))
        # A file refused because it changed under kb since the walk is not remembered: the
        # next open reads it again (a note restored after a swap must not stay unreadable).
        remembered = [(f, h) for f, h in fresh if not h.raced]
        saved = self._save_headers(remembered) if remembered else True
        if saved and len(remembered) == len(fresh):
            self._keep_lights(digest, lights)
        # Postings answer for this open only when every file read again was saved with its
        # rows (a busy or read-only index keeps old rows: the caller then scores in memory).
        return HeaderScan(tuple(lights), {h.rel: h for _, h in fresh}, stats, saved)

    def _kept_lights(self, digest: str) -> tuple[LightHeader, ...] | None:
        """The light headers a stat pass with this digest found, or None (never seen, or a
        row that does not decode: the caller then reads the header rows)."""
        try:
            row = self.conn.execute(
                "SELECT lights FROM scan_lights WHERE digest = ?", (digest,)
            ).fetchone()
            if row is None:
                return None
            return tuple(
                LightHeader(str(rel), bool(private), str(bucket), str(h), str(note))
                for rel, private, bucket, h, note in json.loads(row[0])
            )
        except (sqlite3.Error, ValueError, TypeError):
            return None

    def _keep_lights(self, digest: str, lights: Sequence[LightHeader]) -> None:
        """Save a finished stat pass under its digest, opportunistically (a busy or
        read-only index simply reads header rows again next time)."""
        with contextlib.suppress(sqlite3.Error):
            if self.conn.execute(
                "SELECT 1 FROM scan_lights WHERE digest = ?", (digest,)
            ).fetchone():
                return  # another process kept this walk meanwhile
        blob = json.dumps(
            [[h.rel, h.private, h.bucket, h.hash, h.note] for h in lights], ensure_ascii=False
        )
        try:
            wait_briefly(self.conn)
            with self.conn:
                self.conn.execute("BEGIN IMMEDIATE")
                self.conn.execute(
                    "INSERT OR REPLACE INTO scan_lights VALUES (?, ?)", (digest, blob)
                )
                self.conn.execute(
                    "DELETE FROM scan_lights WHERE rowid NOT IN "
                    "(SELECT rowid FROM scan_lights ORDER BY rowid DESC LIMIT ?)",
                    (SCAN_LIGHTS_KEPT,),
                )
        except sqlite3.Error:
            pass
        finally:
            with contextlib.suppress(sqlite3.Error):
                wait_fully(self.conn)

    def headers_of(
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
            light = light_by_rel if light_by_rel is not None else {h.rel: h for h in scan.lights}
        for i in range(0, len(wanted), SQL_VARIABLES):
            part = wanted[i : i + SQL_VARIABLES]
            marks = ",".join("?" * len(part))
            for rel, title, purpose, parsed, tokens in self.conn.execute(
                f"SELECT path, title, purpose, parsed, tokens FROM headers WHERE path IN ({marks})",
                part,
            ):
                decoded = _decode(parsed)
                lh = light[rel]
                if decoded is None:
                    out[rel] = read_header(base, scan.stats[rel])
                    continue
                keys, front, derived, derivable = decoded
                out[rel] = FileHeader(
                    rel,
                    lh.private,
                    lh.bucket,
                    lh.hash,
                    title,
                    keys,
                    purpose,
                    front,
                    tokens_cached=tokens,
                    derived=derived,
                    derivable=derivable,
                )
        for rel in wanted:  # a row gone between the scan and now (another writer's prune)
            if rel not in out:
                out[rel] = read_header(base, scan.stats[rel])
        return out

    def headers(self, base: BaseSnapshot) -> list[FileHeader]:
        """Every in-scope file's full header, reading only files whose stat changed."""
        scan = self.scan(base)
        full = self.headers_of(base, scan, [h.rel for h in scan.lights])
        return [full[h.rel] for h in scan.lights]

    def _save_headers(self, fresh: Sequence[tuple[FileStat, FileHeader]]) -> bool:
        """Save re-read headers and their postings in one transaction; False when the index
        was busy or read-only (the parse is still used in memory this time)."""
        rows = [
            (
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
            for f, h in fresh
        ]
        postings = self.keywords.rows_for(fresh)
        paths = [(f.rel,) for f, _ in fresh]
        try:
            # Opportunistic, so it must not wait out a `kb index` holding the write lock:
            # with the full busy timeout every route and boot meanwhile stalled 5 s.
            wait_briefly(self.conn)
            with self.conn:
                self.conn.execute("BEGIN IMMEDIATE")
                if self.keywords.has_rows():
                    self.keywords.drop([rel for (rel,) in paths])
                self.conn.executemany(
                    "INSERT OR REPLACE INTO headers VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows
                )
                self.keywords.write(postings)
            return True
        except sqlite3.Error:
            return False
        finally:
            with contextlib.suppress(sqlite3.Error):
                wait_fully(self.conn)


# Open index connections are a process-wide budget: one base costs three file descriptors
# (the database, its WAL and its shared-memory file), and a fleet of hundreds of bases under
# a 256-descriptor limit (macOS's default) failed to open at all. Past this many, the least
# recently used connection is closed and reopened when next needed (measured: a reopen costs
# about 0.2 ms, against a question's tens).
MAX_OPEN_STORES = 32
_OPEN: OrderedDict[int, Store] = OrderedDict()
_OPEN_LOCK = _thread.RLock()


def _track(store: Store) -> None:
    if store._reopen is None:
        return  # in memory: it cannot be closed and reopened, so it is not counted
    key = id(store)
    with _OPEN_LOCK:  # Memories in several threads share the process-wide budget
        if key in _OPEN:
            _OPEN.move_to_end(key)
            return
        _OPEN[key] = store
        while len(_OPEN) > MAX_OPEN_STORES:
            _, oldest = _OPEN.popitem(last=False)
            oldest._release()


def _is_base(root: Path) -> bool:
    """Whether `root` is a base by its files: a folder that is not (`/etc`, a folder of notes
    with no `agent.txt` or map) gets no index written into it by a reading verb."""
    return (root / "agent.txt").is_file() or any((root / m).is_file() for m in MAP_NAMES)


def _writable_dir(root: Path) -> bool:
    """Whether kb may create `.kb/` in `root` (a base on a read-only disk gets none)."""
    return os.access(root, os.W_OK) and not _read_only_mount(root)


def _read_only_mount(root: Path) -> bool:
    try:
        return bool(os.statvfs(root).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False
