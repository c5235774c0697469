"""The text index held in memory (kb.pure.answering.held.warmtext): read in one snapshot through a
connection of its own, shared by every open store of the same index file, held while the
index is still the one it was read from, and confirmed before each question.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from typing import TYPE_CHECKING, Any, TypeVar

from kb.io.store import sharedstrings, vocabulary
from kb.io.store.schema import StoreError
from kb.io.store.textreader import _stored_words
from kb.io.store.vocabulary import VOCAB_VIEW_SQL, averages_of, structure_of

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path

    from kb.io.store.database import Store
    from kb.pure.answering.held.warmtext import FileFacts, StemRules, WarmText


# Every chunk's rowid, in the order a held base places its chunks.
ROWIDS_SQL = "SELECT rowid FROM chunk_counts ORDER BY rowid"
# How many chunks `WarmCopy.read` takes into the postings between two calls of its `pause`.
PAUSE_EVERY = 1024
# The page cache a held base's connection keeps, in KiB: it reads only passages and their
# details from SQLite (the system's page cache holds the file too). At SQLite's default,
# 2 MB a connection, a resident kb's heap grew by 22 MB over 200 questions at 100,000 notes
# (eleven bases); at 256 KiB, by 5 MB.
HELD_CACHE_KIB = 256
_T = TypeVar("_T")
# `KB_NO_NUMPY=1`: a held base ranks in Python even where numpy is installed (tests compare
# the two rankings; a user can rule numpy out).
NO_NUMPY_ENV = "KB_NO_NUMPY"


def dense_ranking() -> bool:
    """Whether a held base is ranked by numpy (kb.pure.answering.held.densetext): where it is
    installed (the `fast` extra; `daemon` and `mcp` bring it) and not ruled out."""
    if os.environ.get(NO_NUMPY_ENV, "").strip() not in ("", "0"):
        return False
    try:
        import kb.pure.answering.held.densetext  # noqa: F401  (it imports numpy)
    except ImportError:
        return False
    return True


class WarmCopy:
    """One store's in-memory copy of its text index, if it holds one."""

    def __init__(self, store: Store) -> None:
        self._store = store
        # The copy held, and the (data_version, total_changes) of the store's connection it
        # was last confirmed at: None when the store answers from SQL.
        self._held: WarmText | None = None
        self._seen: tuple[int, int] | None = None

    def reconnected(self) -> None:
        """The store's connection was opened again: the copy is confirmed through the new one."""
        self._seen = None

    def read(self, pause: Callable[[], object] | None = None) -> WarmText | None:
        """This base's text index read into memory, through a connection of its own (so a
        thread may read it while questions use `conn`), in one read transaction (so the
        stamp and the rows are one state). Not yet used: `install` holds it. None
        when the index cannot be read or does not fit (an older index without stored
        counts or spans, a count too large to pack); an index in memory is read through
        its only connection. `pause` is called every `PAUSE_EVERY` chunks while the postings
        are built (seconds a base at 100,000 notes): a resident kb's warming thread lets a
        request go first there (kb.io.answering.foreground)."""
        from kb.pure.answering.held.warmtext import (
            ChunkFacts,
            FileFacts,
            StemRules,
            Unpackable,
            warm_text,
        )

        own = self._store.reopens
        try:
            conn = self._store.connect_apart() if own else self._store.conn
        except (sqlite3.Error, StoreError, OSError):
            return None
        try:
            conn.execute(VOCAB_VIEW_SQL)
            conn.execute("BEGIN")
            try:
                stamp = _warm_stamp(conn)
                shared = _shared_warm(self._store.file) if own else None
                if shared is not None and shared.stamp == stamp:
                    return shared  # another open Memory of this index read it already
                chunks, tokens = averages_of(conn)
                held = int(conn.execute("SELECT COUNT(*) FROM chunk_counts").fetchone()[0])
                if held != chunks:
                    return None  # chunks without stored counts: an older index
                # shared: the bases of a fleet share most of their words, and each base held
                # its own copy of every one (13 of 258 MB of a warm fleet at 10,000 notes)
                terms = [
                    (sharedstrings.shared(str(t)), d)
                    for t, d in conn.execute("SELECT term, doc FROM temp.kb_vocab")
                ]
                pages = int(conn.execute("SELECT COUNT(*) FROM chunk_spans").fetchone()[0])
                files = [
                    FileFacts(str(b), str(p), int(first), int(last), bool(private))
                    for b, p, first, last, private in conn.execute(
                        "SELECT s.base, s.path, s.first, s.last, f.private FROM chunk_spans s "
                        "JOIN files f ON f.base = s.base AND f.path = s.path"
                    )
                ]
                # the bounds the SQL path reads, where they are set, so both find the same
                # words
                rules = StemRules(
                    vocabulary.STEM_SCAN_MAX, vocabulary.STEM_CLASS_MAX, vocabulary.PRUNE_MIN_CHUNKS
                )
                dense = dense_ranking()
                # a file-backed index's large bases keep their postings in a mapped file
                # (decision 0053), where numpy checks and ranks them
                postings = _postings_path(self._store.file) if own and dense else None
                # the file is bound to this very index file too, not only to its state: a
                # file pulled or copied beside another index (one built from the same
                # notes, even) is never used
                identity = _identity(self._store.file) if postings is not None else None
                if postings is not None and identity is not None:
                    found = _mapped_text(
                        conn,
                        postings,
                        identity,
                        stamp,
                        rules,
                        (chunks, tokens, pages),
                        terms,
                        files,
                    )
                    if found is not None:
                        return _shared(self._store.file, found)
                # Chunks stream from the cursor into the postings, one at a time: held as a
                # list first, a base's word lists were the read's peak (248 MB traced for
                # 92 MB kept, the largest base of 100,000 notes), and the allocator kept
                # much of that peak after it was freed. The snapshot is held meanwhile (5.6 s
                # for that base), so the write-ahead log is not checkpointed past it until
                # the read ends; writers go on. Copying the rows out first was measured and
                # not kept: into a list, 50 MB more stayed in the process; into a temporary
                # table, 60 MB more in memory, or private notes' words in a file of the
                # system's temporary folder.
                stored = (
                    ChunkFacts(int(rowid), *_stored_words(str(words_of)))
                    for rowid, words_of in _pausing(
                        conn.execute("SELECT rowid, counts FROM chunk_counts ORDER BY rowid"),
                        pause,
                    )
                )
                warm = warm_text(stamp, rules, chunks, tokens, terms, stored, files, pages, dense)
            finally:
                conn.execute("COMMIT")
            # written once the snapshot is let go: a base's file is tens of MB, flushed to
            # disk, and the write-ahead log is not checkpointed past an open read
            if postings is not None and identity is not None:
                warm = _in_file(postings, identity, warm)
            return _shared(self._store.file, warm) if own else warm
        except (sqlite3.Error, ValueError, TypeError, IndexError, Unpackable):
            return None
        finally:
            if own:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()

    @property
    def reads_apart(self) -> bool:
        """Whether `read` reads through a connection of its own (not an index in memory)."""
        return self._store.reopens

    def install(self, warm: WarmText) -> bool:
        """Hold `warm` if the index is still the one it was read from (checked through this
        store's own connection); False, and nothing held, if a write came between."""
        try:
            if _warm_stamp(self._store.conn) != warm.stamp:
                return False
            self._held = warm
            self._seen = (self._data_version(), self._store.conn.total_changes)
            self._store.conn.execute(f"PRAGMA cache_size = -{HELD_CACHE_KIB}")
        except sqlite3.Error:
            return False
        return True

    def load(self) -> WarmText | None:
        """`read` then `install`, in this thread."""
        warm = self.read()
        return warm if warm is not None and self.install(warm) else None

    def _data_version(self) -> int:
        return int(self._store.conn.execute("PRAGMA data_version").fetchone()[0])

    def confirm(self) -> bool:
        """Whether the in-memory copy still is the index: nothing written since it was last
        confirmed (by another connection, `data_version`, or this one, `total_changes`), or
        its stamp unchanged by what was written. A stale copy is dropped (`load` reads
        it again)."""
        warm = self._held
        if warm is None:
            return False
        try:
            seen = (self._data_version(), self._store.conn.total_changes)
            if seen != self._seen:
                if _warm_stamp(self._store.conn) != warm.stamp:
                    self._held = self._seen = None
                    return False
                self._seen = seen
        except sqlite3.Error:
            self._held = self._seen = None
            return False
        return True

    @property
    def held(self) -> WarmText | None:
        """The in-memory copy as last confirmed (`confirm`), or None."""
        return self._held


# Copies of text indexes held in memory, by index file, while some Store holds them: the
# daemon keeps up to eight Memories of one fleet (by cwd, paths and scope), and each would
# otherwise read and hold its own copy of every base (about 116 MB at 10,000 notes). Made
# on first use: a one-shot verb never imports weakref for it.
_SHARED: Any = None


def _shared_key(path: Path) -> str:
    """An index file as one name however its fleet was named: `kb route q .` in the fleet
    and a hook's `kb boot` with the fleet's absolute path open the same files through two
    spellings, and each held its own copy (106 MB more at 10,000 notes)."""
    return os.path.realpath(path)


def _shared_warm(path: Path) -> WarmText | None:
    found: WarmText | None = _SHARED.get(_shared_key(path)) if _SHARED is not None else None
    return found


def _share_warm(path: Path, warm: WarmText) -> None:
    global _SHARED
    if _SHARED is None:
        import weakref

        _SHARED = weakref.WeakValueDictionary()
    _SHARED[_shared_key(path)] = warm


def _postings_path(index: Path) -> Path:
    # imported here: a one-shot verb opens stores but never holds one (mmap, hashlib)
    from kb.io.store.postingsfile import postings_path

    return postings_path(index)


def _identity(index: Path) -> bytes | None:
    """The index file's device and inode, or None when it cannot be read."""
    try:
        st = os.stat(index)
    except OSError:
        return None
    return f"{st.st_dev}:{st.st_ino}".encode()


def _shared(path: Path, warm: WarmText) -> WarmText:
    _share_warm(path, warm)
    return warm


def _mapped_text(
    conn: sqlite3.Connection,
    path: Path,
    identity: bytes,
    stamp: bytes,
    rules: StemRules,
    totals: tuple[int, int, int],
    terms: Iterable[tuple[str, int]],
    files: Iterable[FileFacts],
) -> WarmText | None:
    """The base held from its postings file, when there is one made from this state of the
    index (`postingslayout.binding`) and it passes the checks (`postingsfile.mapped`); the
    rowids, vocabulary and files come from the index, as always. None when
    there is no such file: the caller reads the postings from the index."""
    from array import array

    from kb.io.store import postingsfile
    from kb.pure.answering.held.postingslayout import binding
    from kb.pure.answering.held.warmtext import held_text

    pairs = sorted(terms)
    if not postingsfile.announces(path, len(pairs), totals[0]):
        return None  # no query for a file that cannot be this index's
    words = tuple(w for w, _ in pairs)
    doc = array("i", (d for _, d in pairs))
    rowids = array("q", (int(r) for (r,) in conn.execute(ROWIDS_SQL)))
    digest = binding(identity + b"\0" + stamp, words, doc, rowids)
    columns = postingsfile.mapped(path, digest, len(words), len(rowids), checked=True)
    if columns is None:
        return None
    return held_text(stamp, rules, totals, (words, doc, rowids), columns, files, True)


def _in_file(path: Path, identity: bytes, warm: WarmText) -> WarmText:
    """`warm` with its postings written to `path` and mapped back from there, when it holds
    enough of them (`MAPPED_MIN_POSTINGS`); as it is (and no file left) when it does not or
    the disk refuses."""
    import attrs

    from kb.io.store import postingsfile
    from kb.pure.answering.held.densetext import dense_of
    from kb.pure.answering.held.postingslayout import binding

    if len(warm.post_chunk) < postingsfile.MAPPED_MIN_POSTINGS:
        postingsfile.remove(path)
        return warm
    digest = binding(identity + b"\0" + warm.stamp, warm.vocabulary, warm.doc, warm.rowids)
    if not postingsfile.write(path, digest, warm):
        return warm
    columns = postingsfile.mapped(path, digest, len(warm.vocabulary), len(warm.rowids), False)
    if columns is None:
        return warm
    return attrs.evolve(
        warm,
        at=columns.at,
        lengths=columns.lengths,
        post_chunk=columns.post_chunk,
        post_counts=columns.post_counts,
        post_weight=columns.post_weight,
        dense=dense_of(columns.post_chunk, columns.post_weight, warm.private, len(warm.rowids)),
    )


def _pausing(rows: Iterable[_T], pause: Callable[[], object] | None) -> Iterator[_T]:
    """`rows`, with `pause()` called before every `PAUSE_EVERY`-th."""
    if pause is None:
        yield from rows
        return
    for n, row in enumerate(rows):
        if n % PAUSE_EVERY == 0:
            pause()
        yield row


def _warm_stamp(conn: sqlite3.Connection) -> bytes:
    """What an in-memory copy of a text index must match (`WarmCopy.read`): the FTS5
    structure record and the private files (a file declared private may change no chunk)."""
    private = conn.execute(
        "SELECT base, path FROM files WHERE private = 1 ORDER BY base, path"
    ).fetchall()
    listed = "\n".join(f"{b}\t{p}" for b, p in private)
    return structure_of(conn) + b"\0" + listed.encode("utf-8", "surrogatepass")
