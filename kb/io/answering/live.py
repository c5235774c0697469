"""A Memory that notices the disk changed: what a long-running server answers from.

`kb serve` opens the fleet once; a note written, a `kb sync` that pulled, a `kb index` run
afterwards would otherwise stay invisible until a restart. Before a call, `LiveMemory.current`
re-validates by stat: it walks the bases again (one `scandir` pass per base, stat only, no
file read: kb.io.notes.walk) and stats each base's index database, and when anything differs from
what the open Memory was built from, it opens the fleet again (the header cache re-reads
only the files whose stat changed) and closes the old one. A re-open that fails (a base
half-way through a checkout) keeps the last good Memory and tries again at the next call.

With `watch` (the server), a file watcher (kb.io.answering.watcher, as the resident kb uses)
reports the changes a walk could see, where one can be trusted, and the walk runs only after
one; elsewhere the walk runs over and over on a thread of its own.

A walk is not free on a large fleet (measured: 0.30-0.43 s for 20,248 files in one base on a
loaded 2-core machine, 2 ms for the example fleet), so a check is skipped while less than
RECHECK_FACTOR times the last check's own duration has passed: on a large fleet under load
the server spends at most about a tenth of its time re-validating, and a small fleet is
checked before nearly every call.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from kb.io.answering import collector, foreground
from kb.io.answering.memory import Memory, OpenError, Scope
from kb.io.notes.walk import BaseSnapshot, WalkError, walk_roots
from kb.pure.notes.walked import INDEX_FILES, STATE_DIR, inside_a_skipped_folder

if TYPE_CHECKING:
    from kb.io.answering.watcher import Watcher

RECHECK_FACTOR = 10.0
# The shortest pause between two background walks: a small fleet (2 ms a walk) is looked at
# five times a second, not hundreds.
WATCH_FLOOR_S = 0.2

Stamp = tuple[object, ...]


def _index_stat(root: Path) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for name in INDEX_FILES:
        try:
            st = (root / STATE_DIR / name).stat()
        except OSError:
            out.append((-1, -1))
            continue
        out.append((st.st_size, st.st_mtime_ns))
    return tuple(out)


def _stamp(snapshots: tuple[BaseSnapshot, ...], skipped: tuple[str, ...]) -> Stamp:
    return (*((snap, _index_stat(snap.root)) for snap in snapshots), *skipped)


def stamp_of(memory: Memory) -> Stamp:
    """What `memory` was built from, as a walk today would see it unchanged: each base's
    walk and index stat, and why each base that could not be walked was skipped."""
    return _stamp(tuple(b.snapshot for b in memory.bases), tuple(memory.skipped))


def stamp_on_disk(opened: tuple[str, ...], include_private: bool) -> Stamp:
    """The same, read from the disk now. A base that cannot be walked is in it by its error,
    as Memory.open skips it (raises WalkError only when the one base given cannot be)."""
    return _stamp_of_walk(walk_roots(list(opened), include_private))


def _stamp_of_walk(walked: list[BaseSnapshot | WalkError]) -> Stamp:
    snapshots = tuple(w for w in walked if not isinstance(w, WalkError))
    return _stamp(snapshots, tuple(str(w) for w in walked if isinstance(w, WalkError)))


class LiveMemory:
    """Holds one open Memory and replaces it when the fleet on disk changed.

    With `watch`, the stat walk runs on a thread of its own and a call only reads what it
    found: no call waits for a walk (issue 15: at 10,000 notes a walk is tens of
    milliseconds, against a few for the question), and only the call after a real change
    pays for the re-open. Without it (tests, one-shot callers) the call walks itself, at
    most as often as RECHECK_FACTOR allows."""

    def __init__(
        self,
        memory: Memory,
        clock: Callable[[], float] = time.monotonic,
        watch: bool = False,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.memory = memory
        # Told each warning line a re-open brings that the open before did not have (a
        # private folder renamed to a look-alike, a folder that became unreadable): a
        # served fleet warns as every verb that opens the base does.
        self._warn = warn
        self._clock = clock
        self._stamp = stamp_of(memory)
        self._next_check = 0.0
        self.reopened = 0  # how many times the fleet was opened again (tests read it)
        self._changed = threading.Event()
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None  # the walking thread, when it runs
        # With `watch`: the file watcher where it can be trusted (an idle server then does
        # no work; the walking thread kept a tenth of a core busy at 10,000 notes), and the
        # change count it had when this fleet was last checked.
        self._events: Watcher | None = None
        self._events_seen = 0
        self._cookie_dir: str | None = None
        self._reopening = threading.Lock()
        self._warm_timer: threading.Timer | None = None  # a re-opened fleet's warm, waiting
        self._keep_warm = False
        if watch:
            self._events = self._watcher_for(memory)
            if self._events is None:
                self._walk_in_background()
            else:
                self._events_seen = self._events.generation
                self._reopen_if_changed()  # what changed while the watches were being made

    def _walk_in_background(self) -> None:
        self._watcher = threading.Thread(target=self._watch, name="kb-live", daemon=True)
        self._watcher.start()

    def _watcher_for(self, memory: Memory) -> Watcher | None:
        """A started, trusted watcher over the paths the fleet was opened from, or None: no
        watcher can be trusted here, or a base lies where its changes would go unseen
        (outside those paths, or inside a folder a walk skips)."""
        roots = [os.path.realpath(p) for p in memory.opened]
        if not covered_by(memory, roots):
            return None
        from kb.io.answering.cookiedirs import new_cookie_dir
        from kb.io.answering.watcher import Watcher

        self._cookie_dir = new_cookie_dir()
        events = Watcher(roots, Path(self._cookie_dir) / "sync")
        events.start()
        if events.mode == "watcher":
            return events
        self._drop_cookie_dir()
        return None

    def _drop_cookie_dir(self) -> None:
        if self._cookie_dir is not None:
            import shutil

            shutil.rmtree(self._cookie_dir, ignore_errors=True)
            self._cookie_dir = None

    @property
    def include_private(self) -> bool:
        return self.memory.scope is Scope.ALL

    def _watch(self) -> None:
        """Walk the fleet by stat, again and again, waiting RECHECK_FACTOR times each walk's
        cost (at least WATCH_FLOOR_S) between walks; flag a difference for the next call."""
        opened, private = self.memory.opened, self.include_private
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                if stamp_on_disk(opened, private) != self._stamp:
                    self._changed.set()
            except (WalkError, OSError):
                pass  # half-way through a change: the next walk sees where it ended
            spent = time.monotonic() - started
            self._stop.wait(max(WATCH_FLOOR_S, spent * RECHECK_FACTOR))

    def current(self) -> Memory:
        """The open Memory, opened again first when the disk changed since."""
        events = self._events
        if events is not None:
            if not (events.alive() and self._seen_through(events)):
                # The watcher stopped, stopped being trusted, or a re-open brought a base it
                # cannot see (a link to a base elsewhere): walk from here on, as before.
                self._events = None
                events.stop()
                self._drop_cookie_dir()
                self._walk_in_background()
                self._reopen_if_changed()
            return self.memory
        if self._watcher is not None:
            if self._changed.is_set():
                self._changed.clear()
                self._reopen_if_changed()
            return self.memory
        now = self._clock()
        if now < self._next_check:
            return self.memory
        self._reopen_if_changed()
        spent = self._clock() - now
        self._next_check = self._clock() + spent * RECHECK_FACTOR
        return self.memory

    def _seen_through(self, events: Watcher) -> bool:
        """After a change a walk could see was reported, re-validate by stat; whether the
        watcher still sees every base of the fleet as it is now."""
        seen = events.generation
        if seen == self._events_seen:
            return True
        changed = events.changed_since(self._events_seen)
        self._events_seen = seen
        before = self.memory
        self._reopen_if_changed(changed)
        roots = [os.path.realpath(p) for p in self.memory.opened]
        return self.memory is before or covered_by(self.memory, roots)

    def refresh(self, changed: Collection[str] | None = None) -> None:
        """Re-validate by stat now, whatever RECHECK_FACTOR allows: a resident kb calls it
        when its watcher saw a change, or before every request when it has no watcher.
        `changed`: the paths the watcher reported since the last call, when it knows them
        all (only the bases they lie in are walked again); None walks every base."""
        self._reopen_if_changed(changed)

    def _reopen_if_changed(self, changed: Collection[str] | None = None) -> None:
        with self._reopening:  # calls from several threads re-open the fleet once
            self._reopen_once(changed)

    # A walk and an open build a value for every file: in a server, paused (kb.io.answering.
    # collector), 2.15 -> 1.45 s at 100,000 notes.
    @collector.paused_while_reading
    def _reopen_once(self, changed: Collection[str] | None = None) -> bool:
        """Whether the fleet was opened again (what a server then holds)."""
        try:
            with foreground.serving():  # a warming thread waits: see kb.io.answering.foreground
                return self._reopen_from(walk_again(self.memory, changed))
        except (WalkError, OpenError, OSError):
            return False  # half-way through a change: keep answering from the last good open

    def _reopen_from(self, walked: list[BaseSnapshot | WalkError]) -> bool:
        """`_reopen_once` from this walk: whether the fleet was opened again."""
        if _stamp_of_walk(walked) == self._stamp:
            return False
        # Opened from this walk, not a second one (half of a re-open's time at 100,000
        # notes), and an unchanged base with the stat pass it had (walk_again).
        old = self.memory
        fresh = Memory.open_walked(old.opened, walked, self.include_private, (), old.bases)
        self.memory = fresh
        before = set(old.warnings())
        fresh.resident = old.resident
        fresh.adopt_warm(old)  # each unchanged base stays held; the rest is read later
        # once warm, kept warm: the open before may still be waiting for its warm read
        self._keep_warm = self._keep_warm or old.is_warming()
        if self._keep_warm:
            self._warm_when_quiet(fresh)
        old.release()
        self._stamp = stamp_of(fresh)
        self.reopened += 1
        if self._warn is not None:
            for line in fresh.warnings():
                if line not in before:
                    self._warn(line)
        return True

    def _warm_when_quiet(self, fresh: Memory) -> None:
        """Warm a re-opened fleet once the disk has been quiet for as long as its last warm
        read took: a change re-reads its bases' text and the whole keyword index (about
        13 s of a core at 100,000 notes, 8-9 s of it the keyword index), so each change of
        a burst (an agent writing notes, a checkout) started one, and they ran on top of
        each other. Until then the fleet answers as it is held: the unchanged bases' text
        in memory, the rest from SQLite, the keyword side from the persisted postings with
        the unchanged bases' entries prepared. A re-open within the wait cancels it."""
        if self._warm_timer is not None:
            self._warm_timer.cancel()

        def warm_if_current() -> None:
            if self.memory is fresh and not self._stop.is_set():
                fresh.warm(wait=False)

        self._warm_timer = threading.Timer(fresh.warm_seconds, warm_if_current)
        self._warm_timer.daemon = True
        self._warm_timer.start()

    def close(self) -> None:
        if self._warm_timer is not None:
            self._warm_timer.cancel()
        if self._events is not None:
            self._events.stop()
            self._events = None
        self._drop_cookie_dir()
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=5)
        self.memory.release()


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def covered_by(memory: Memory, roots: list[str]) -> bool:
    """Whether a watcher over `roots` sees every change a walk of `memory`'s bases could: each
    base lies inside one of them, and not inside a folder a walk skips."""
    for b in memory.bases:
        real = os.path.realpath(b.snapshot.root)
        below = [os.path.relpath(real, r) for r in roots if _inside(real, r)]
        if not below or any(part.startswith(".") for part in below[0].split(os.sep)):
            return False
    return True


def walk_again(memory: Memory, changed: Collection[str] | None) -> list[BaseSnapshot | WalkError]:
    """The fleet `memory` was opened from, walked again (`walk_roots`). With the paths a
    watcher reported changed, a base none of them lies in keeps the snapshot it was opened
    with (at 100,000 notes a walk of every base was 1.0 of a re-open's 1.4 s), unless it
    holds a link or a file with another name: a change made through a name outside the base
    is reported there. A path in no base held (a new base, `fleet.txt`) walks them all."""
    opened, private = list(memory.opened), memory.scope is Scope.ALL
    if changed is None:
        return walk_roots(opened, private)
    kept = {b.snapshot.given: b.snapshot for b in memory.bases if _alone(b.snapshot)}
    homes = [(s.real_root.rstrip(os.sep) + os.sep, given) for given, s in kept.items()]
    dirty: set[str] = set()
    for path in changed:
        inside = [(home, given) for home, given in homes if (path + os.sep).startswith(home)]
        if not inside:
            return walk_roots(opened, private)
        dirty.update(given for home, given in inside if not _in_a_dot_folder(path, home))
    return walk_roots(opened, private, {g: s for g, s in kept.items() if g not in dirty})


def _in_a_dot_folder(path: str, home: str) -> bool:
    """Whether `path` lies inside a folder below `home` whose name starts with a dot: a walk
    never lists one, so nothing changed there changes what it finds. Each change kb wrote to
    a base's own `.kb/` index (the re-index that follows an edit) made the next question
    walk that base again: at 100,000 notes, 0.2-0.4 s of each change's answer."""
    return inside_a_skipped_folder(path[len(home) :].split(os.sep)[:-1])


def _alone(snapshot: BaseSnapshot) -> bool:
    """Whether every change to what the walk of this base found is reported inside it: it
    was walked from its real root, and no file in it is a link or has another name."""
    if not snapshot.real_root or snapshot.walked is None:
        return False
    return snapshot.walked.alone
