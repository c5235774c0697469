"""The Store: one base's index database opened (or, when it cannot be, a read-only one or
an empty one in memory), its connection kept within the process-wide budget of open
connections, and the jobs done on it handed out, each sharing that connection.
"""

from __future__ import annotations

import _thread  # the C lock: `threading` costs a hot verb about 1 ms to import
import contextlib
import os
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from weakref import proxy

from kb.io.notes.indexowner import discard, owned_by, stamp_for
from kb.io.notes.walk import BaseSnapshot
from kb.io.store.headers import HeaderCache, HeaderScan
from kb.io.store.keywords import KeywordPostings
from kb.io.store.lights import Lights
from kb.io.store.pending import PendingHeaders
from kb.io.store.ranking import Ranking, SpanMap
from kb.io.store.schema import (
    StoreError,
    connect,
    connect_immutable,
    connect_in_memory,
    db_path,
    prepare,
)
from kb.io.store.textreader import TextReader
from kb.io.store.textwriter import TextWriter
from kb.io.store.vocabulary import Vocabulary
from kb.io.store.warm import WarmCopy
from kb.pure.answering.calibration import Calibration
from kb.pure.answering.textrank import TextStats
from kb.pure.notes.paths import MAP_NAMES

if TYPE_CHECKING:
    from kb.pure.answering.held.warmtext import WarmText


class Guard(Protocol):
    """A lock a Store's calls are made under (a Memory's `_thread.RLock`)."""

    def acquire(self, blocking: bool = ...) -> bool: ...

    def release(self) -> None: ...


NOT_A_BASE = (
    "this folder is not a base (it has no agent.txt and no MAP.md), so a reading verb makes "
    "no index in it (kb init makes a base, kb index indexes this folder anyway)"
)


FOREIGN = (
    "the index was not written on this machine (it came with the files: a clone, a pull or a copy)"
)


class Store:
    """An open index database for one base, and its jobs: `headers` (the header cache),
    `keywords` (the keyword postings), `vocabulary` (what the text index's vocabulary says
    of words), `ranking` (bm25 over a question's words), `text` (stored chunks and pages for
    an answer), `writer` (`kb index`'s sync) and `warm_copy` (the text index in memory)."""

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
        self.path = path  # as the base was named: what messages print
        # The file itself, whatever the working directory is later: a resident kb's warming
        # thread reads the index of a fleet a caller named relatively ("..", from an agent's
        # folder) from its own directory, where that name finds another file or none.
        self.file = Path(os.path.abspath(path))
        self.rebuilt = rebuilt
        # Why this store is not the base's own writable index (None when it is): printed
        # once by every verb that opens it.
        self.fallback: str | None = None
        # Something this open did that a person should hear of once (an index this machine
        # did not write, deleted): printed like `fallback`, by the open that did it.
        self.notice: str | None = None
        # The lock under which every call on this store is made (its Memory's), or None when
        # one thread owns it: the connection budget closes the store only while holding it.
        self.guard: Guard | None = None
        # The jobs reach this store through a weak proxy: the store owns them, and a cycle
        # would keep a dropped store's caches and warm copy (about 116 MB at 10,000 notes)
        # until the cycle collector ran, where they go with the store's last reference.
        me: Store = proxy(self)
        self.warm_copy = WarmCopy(me)
        self.headers = HeaderCache(me)
        self.keywords = KeywordPostings(me)
        self.vocabulary = Vocabulary(me)
        self.ranking = Ranking(me)
        self.text = TextReader(me)
        self.writer = TextWriter(me)
        # `kb index`'s sync, also callable on the Store (tests do): the writer's own method
        self.sync = self.writer.sync
        _track(self)

    @property
    def conn(self) -> sqlite3.Connection:
        """The open connection, opened again if the process-wide budget released it."""
        conn = self._conn
        if conn is None:
            if self._reopen is None:
                raise StoreError(f"the index at {self.path} is closed", self.path, "closed")
            conn = self._conn = self._reopen()
            self.vocabulary.reconnected()
            self.ranking.reconnected()
            self.warm_copy.reconnected()
        _track(self)
        return conn

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
        # An index this machine did not write is deleted unread (kb.io.notes.indexowner).
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
        absolute = path.absolute()  # reopened from any working directory (`file`)
        store = cls(conn, path, rebuilt, lambda: connect(absolute))
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
        absolute = path.absolute()
        store = cls(conn, path, False, lambda: connect_immutable(absolute))
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

    # -- one-line delegations that tests call on a Store or stand in for there: each job's
    # own method does the work. Where a test stands in for a step, the code takes that step
    # through the Store so the stand-in is seen: the header cache's `_kept_lights` and
    # `_save_headers`, the vocabulary's `_text_words_current`, Memory's `holds_none` and
    # `rank`, kb index's `refresh_text_words`.

    def scan(
        self, base: BaseSnapshot, progress: Callable[[int, int], None] | None = None
    ) -> HeaderScan:
        return self.headers.scan(base, progress)

    def _kept_lights(self, digest: str, walked: Sequence[str] = ()) -> Lights | None:
        return self.headers.kept_lights(digest, walked)

    def _save_headers(self, pending: PendingHeaders) -> bool:
        return self.headers.save(pending)

    def text_stats(self, terms: Sequence[str]) -> tuple[TextStats, dict[str, tuple[str, ...]]]:
        return self.vocabulary.text_stats(terms)

    def holds_none(self, terms: Sequence[str]) -> bool:
        return self.vocabulary.holds_none(terms)

    def refresh_text_words(self) -> bool:
        return self.vocabulary.refresh_text_words()

    def calibration(self) -> Calibration:
        return self.vocabulary.calibration()

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
        else:
            _OPEN[key] = store
        if len(_OPEN) > MAX_OPEN_STORES:
            _shrink(key)


def _shrink(keep: int) -> None:
    """Close the least recently used connections until the budget holds, passing over `keep`
    and every store whose guard another thread holds: that thread may be inside a call on
    the connection, and closing it there crashed the process (a resident kb's fresh Memory
    answering while the old one warmed). A store passed over is closed by a later call."""
    for key, store in list(_OPEN.items()):
        if len(_OPEN) <= MAX_OPEN_STORES:
            return
        guard = store.guard
        if key == keep or (guard is not None and not guard.acquire(blocking=False)):
            continue
        try:
            del _OPEN[key]
            store._release()
        finally:
            if guard is not None:
                guard.release()


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
