"""The resident kb's file watcher (kb.shell.daemon): which changes under a fleet have been
reported, and a cookie that says every change made before it has been.

A watcher alone races: an editor's save followed at once by a prompt can reach the daemon
before the save's event does. So, as git's fsmonitor does with watchman, each request writes
a cookie file into a watched folder of the daemon's own and waits for the watcher to report
it; inotify queues events in order, so every change made before the cookie was written has
been counted by then. watchdog's observer dispatches each event as the kernel queued it, on
a thread of its own (decision 0036, "Later: watchdog").

Where no watcher can be trusted (watchdog missing or older than 7.1.1, a network file system, a
watch limit, a cookie not back in time) `mode` is "stat" and `why` says why: the daemon then
checks each fleet by stat before each request. When the kernel drops events (inotify's queue
overflowed), every held fleet gets a stat pass before its next answer (`overflows` counts it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import warnings
from pathlib import Path
from typing import Any

from kb.io.sessions.bootstate import HANDOFF_SUFFIX
from kb.pure.notes.walked import changes_a_walk

# `stat`: no watcher, a stat pass before every request; `watcher`: the cookie even where a
# stat pass is cheaper (tests hold each way to the same answers)
WATCH_ENV = "KB_DAEMON_WATCH"
# How long a request waits for the watcher to report its cookie; a watcher this late is
# not trusted any more.
SYNC_TIMEOUT_S = 0.5
# How long watchdog holds the first half of a rename to pair it with its second (0.5 s of
# its own): its reader sleeps out the whole hold once a first half reaches it alone, even
# after the second half came, so a cookie behind any rename in the fleet (every write kb
# makes, a refusal's miss log among them) came back up to 0.5 s late, and at 0.5 s the
# watcher was given up for the stat pass for good (3 requests in 160 refusals at 10,000
# notes, and every later one walked the fleet). The kernel queues both halves back to back.
MOVE_PAIRING_S = 0.005
# A fleet whose stat pass costs less than a cookie's round trip is checked by stat: as
# exact, and cheaper. watchdog hands each event over as the kernel queues it (no batching
# step), so a cookie comes back in about 0.4 ms (p95 0.6 ms, 200 cookies beside a watched
# 10,000-note fleet), and an idle daemon's watcher sleeps in a read (0.002% of a core
# against watchfiles' 1.15% at a 3 ms step, 2026-12-03); the example fleet's walk is 1-2 ms.
STAT_CHEAPER_S = 0.0005
WATCHER_HOW = (
    "watchdog (inotify on Linux), a cookie per request; a fleet whose stat pass"
    f" costs under {STAT_CHEAPER_S * 1000:.1f} ms is checked by stat, which is cheaper"
)
# The paths of this many changes are kept for `changed_since`: a burst past it (a checkout,
# a `kb index` of every base) makes a reader that far behind walk the whole fleet again.
CHANGED_PATHS_KEPT = 4096
# How long a new watcher has to report its first cookie before it is not trusted.
FIRST_COOKIE_S = 15.0
# The first watchdog that hands a lost event to its handlers: from 7.1.1 the kernel's queue
# overflow reaches each watch as an EventsLostEvent, in order with the events around it,
# once every folder is watched again. 7.1 only logged it (a log a host application may
# silence); earlier ones skip the record, so changes made while the queue was full could go
# unseen, and the watcher is not trusted.
WATCHDOG_REPORTS_LOSS = (7, 1, 1)
# Where file systems report no changes made on another machine, a watcher cannot be trusted.
NETWORK_FS = frozenset(
    {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "ceph", "glusterfs", "lustre"}
)
NETWORK_FUSE = ("fuse.sshfs", "fuse.rclone", "fuse.s3fs", "fuse.gcsfuse")


def network_fs(path: str) -> str | None:
    """The network file system `path` is on (Linux, /proc/self/mountinfo), else None."""
    try:
        text = Path("/proc/self/mountinfo").read_text(encoding="utf-8")
    except OSError:
        return None
    best, kind = "", ""
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split()
        if len(fields) < 5 or not right:
            continue
        mount = fields[4].replace("\\040", " ")
        inside = path == mount or path.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, kind = mount, right.split()[0]
    if kind in NETWORK_FS or kind.startswith(NETWORK_FUSE):
        return f"{kind} at {best}"
    return None


class Watcher:
    """Reports changes under the watched folders; `send` then `wait` tells when every
    change made before the cookie was written has been reported."""

    def __init__(self, paths: list[str], cookie_dir: Path) -> None:
        self.mode = "stat"
        self.why = "the watcher has not started yet"
        self.how = ""
        self.generation = 0  # bumped on every change reported under the fleet
        # (generation, path) of each change counted, and the generation up to which some
        # may be missing (`changed_since`)
        self._changed: list[tuple[int, str]] = []
        self._known_after = 0
        self._paths = paths
        self._prefixes = tuple(os.path.normpath(p).rstrip(os.sep) + os.sep for p in paths)
        self._cookie_dir = cookie_dir
        self._cookie = cookie_dir / "cookie"
        # The cookie is written through one descriptor held open: a write at offset 0 is
        # reported as a change as a new file is, for 1.5 us against 300 for opening,
        # writing and closing it every request.
        self._cookie_fd = -1
        self._cookie_prefix = os.fspath(cookie_dir)
        self._seen = threading.Event()
        self._observer: Any = None
        # How many times the kernel dropped events (inotify's queue overflowed): each bumps
        # `generation`, so every held fleet is checked by a stat pass before its next answer.
        self.overflows = 0
        # Bumped on every change that may change a listing of handoff records (a file named
        # `*.handoff.md`, a folder made, removed or moved, lost events), which a walk never
        # reads: `kb boot` lists them again only then (kb.io.sessions.bootstate).
        self.handoffs = 0

    def start(self) -> None:
        if os.environ.get(WATCH_ENV) == "stat":
            self.why = f"{WATCH_ENV}=stat asked for it"
            return
        network = next((n for n in map(network_fs, self._paths) if n), None)
        if network:
            self.why = f"the fleet is on a network file system ({network})"
            return
        try:
            from watchdog.events import (
                DirCreatedEvent,
                DirDeletedEvent,
                DirModifiedEvent,
                DirMovedEvent,
                EventsLostEvent,
                FileClosedEvent,
                FileCreatedEvent,
                FileDeletedEvent,
                FileModifiedEvent,
                FileMovedEvent,
                FileSystemEvent,
                FileSystemEventHandler,
            )
            from watchdog.observers import Observer
            from watchdog.version import VERSION_INFO
        except ImportError:
            self.why = "watchdog is not installed (pip install 'kb-fleet[daemon]')"
            return
        if tuple(VERSION_INFO[:3]) < WATCHDOG_REPORTS_LOSS:
            least = ".".join(map(str, WATCHDOG_REPORTS_LOSS))
            self.why = (
                f"watchdog {'.'.join(map(str, VERSION_INFO))} does not report events the "
                f"kernel dropped (kb trusts {least} or later: pip install 'watchdog>={least}')"
            )
            return
        # watchdog 7 warns on stderr when a new folder's watch reuses a callback; a request
        # holds the process's stderr while it runs, so the warning would reach its reply
        warnings.filterwarnings("ignore", category=RuntimeWarning, module="watchdog")
        watcher = self

        class Reported(FileSystemEventHandler):
            """Called on the observer's thread for each event, in the order the kernel
            queued them: a change under the fleet is counted before a later cookie."""

            def __init__(self, counts_losses: bool) -> None:
                super().__init__()
                # one overflow reaches every watch: only the first watch's report counts it
                self.counts_losses = counts_losses

            def on_any_event(self, event: FileSystemEvent) -> None:
                paths = (event.src_path, getattr(event, "dest_path", ""))
                closed = isinstance(event, FileClosedEvent)
                # a folder "modified" is beside each entry made or removed in it
                entries_only = isinstance(event, DirModifiedEvent)
                watcher._reported(
                    event.is_directory, *paths, closed=closed, entries_only=entries_only
                )

            def on_events_lost(self, event: EventsLostEvent) -> None:
                watcher._events_lost(counted=self.counts_losses)

        # What changes a file or a folder, and nothing that only reads one (an open, a
        # close without a write): the daemon's own reads would otherwise be changes.
        changes = [
            FileCreatedEvent,
            FileDeletedEvent,
            FileModifiedEvent,
            FileMovedEvent,
            FileClosedEvent,
            DirCreatedEvent,
            DirDeletedEvent,
            DirModifiedEvent,
            DirMovedEvent,
            EventsLostEvent,
        ]
        try:
            self._cookie_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._cookie_fd = os.open(self._cookie, os.O_WRONLY | os.O_CREAT, 0o600)
        except OSError as e:
            self.why = f"the cookie could not be written ({e})"
            return
        self._quiet_watchdog_log()
        observer = Observer()
        try:
            for i, path in enumerate(self._paths):
                observer.schedule(Reported(i == 0), path, recursive=True, event_filter=changes)
            # A cookie folder inside a watched folder is reported by that folder's watch,
            # in order with every change before it; one elsewhere gets a watch of its own,
            # whose events watchdog hands over on another thread, in no order with the
            # rest (a clean-clone CI run saw a cookie come back before a note's change).
            if not self.cookie_in_order:
                observer.schedule(
                    Reported(False),
                    os.fspath(self._cookie_dir),
                    recursive=False,
                    event_filter=changes,
                )
            _start_pairing_moves_briefly(observer)
        except Exception as e:  # a watch limit, a vanished folder: the stat pass answers
            self.why = f"the watcher could not start ({' '.join(str(e).split())})"
            self._observer = observer
            self.stop()
            return
        self._observer = observer
        # Trusted once a first cookie came back: the watches are in place from then on.
        end = time.monotonic() + FIRST_COOKIE_S
        while time.monotonic() < end and observer.is_alive():
            self._seen.clear()
            self._write_cookie()
            if self._seen.wait(0.2) and observer.is_alive():
                self.mode, self.how, self.why = "watcher", WATCHER_HOW, ""
                return
        self.why = f"the watcher reported nothing within {FIRST_COOKIE_S:.0f} s"
        self.stop()

    @staticmethod
    def _quiet_watchdog_log() -> None:
        """watchdog also logs a loss as a warning; with no handler anywhere Python prints it
        on stderr, and a request holds the daemon's stderr while it runs. A host that set
        up logging still gets the record through its own handlers."""
        log = logging.getLogger("watchdog")
        if not any(isinstance(h, logging.NullHandler) for h in log.handlers):
            log.addHandler(logging.NullHandler())

    def _events_lost(self, counted: bool) -> None:
        """The kernel dropped events: which paths changed is unknown, so every held fleet
        gets a stat pass before its next answer (the generation moves, its paths lost)."""
        if counted:
            self.overflows += 1
        self.handoffs += 1
        self._lost(self.generation + 1)
        self.generation += 1

    def _reported(
        self,
        is_dir: bool,
        *paths: str | bytes,
        closed: bool = False,
        entries_only: bool = False,
    ) -> None:
        cookie = False
        counted: list[str] = []
        for raw in paths:
            path = os.fsdecode(raw)
            if not path:
                continue
            if path.startswith(self._cookie_prefix):
                cookie = True
                continue
            if (is_dir and not entries_only) or path.endswith(HANDOFF_SUFFIX):
                self.handoffs += 1  # before the cookie is reported, as `generation`
            if self._walked(path, is_dir, closed):
                counted.append(path)
        if counted:  # before the cookie is reported: a request then sees the change
            generation = self.generation + 1
            # the paths first: a reader that sees the new generation finds them
            self._changed.extend((generation, path) for path in counted)
            if len(self._changed) > CHANGED_PATHS_KEPT:
                cut = len(self._changed) // 2
                self._lost(self._changed[cut - 1][0])
                del self._changed[:cut]
            self.generation = generation
        if cookie:
            self._seen.set()

    def _lost(self, generation: int) -> None:
        """The paths of the changes counted up to `generation` are no longer all known."""
        self._known_after = max(self._known_after, generation)

    def changed_since(self, generation: int) -> list[str] | None:
        """The paths of the changes counted after `generation` (a few more, counted while
        this runs, may be among them), or None when they are not all known: the kernel
        dropped events, or more changes came than are kept. A reader re-walks only the
        bases they lie in (kb.io.answering.live)."""
        changed = list(self._changed)  # first: `_known_after` is raised before a trim
        if generation < self._known_after:
            return None
        return [path for counted, path in changed if counted > generation]

    def _walked(self, path: str, is_dir: bool, closed: bool = False) -> bool:
        """Whether a change at `path` can change what a walk of the fleet reads
        (kb.pure.notes.walked); outside every watched folder, it counts."""
        for prefix in self._prefixes:
            if path.startswith(prefix):
                return changes_a_walk(path[len(prefix) :].split(os.sep), is_dir, closed)
            if path == prefix[:-1]:
                return changes_a_walk((), is_dir, closed)
        return True

    @property
    def cookie_in_order(self) -> bool:
        """Whether a cookie comes back in order with the changes before it: its folder lies
        inside a watched folder, so one watch reports both. Only then does `wait` mean that
        every change made before `send` has been counted."""
        cookie = os.path.normpath(self._cookie_dir)
        return any(cookie.startswith(prefix) for prefix in self._prefixes)

    def alive(self) -> bool:
        """Whether the watcher is trusted and its thread still runs."""
        observer = self._observer
        return self.mode == "watcher" and observer is not None and observer.is_alive()

    def send(self) -> bool:
        """Write a cookie: every change made before it is reported before it comes back.
        False when there is no watcher to report it."""
        if self.mode != "watcher":
            return False
        self._seen.clear()
        try:
            self._write_cookie()
        except OSError as e:
            self.mode, self.why = "stat", f"the cookie could not be written ({e})"
            return False
        return True

    def _write_cookie(self) -> None:
        os.pwrite(self._cookie_fd, str(time.monotonic_ns()).encode("ascii"), 0)

    def wait(self) -> bool:
        """Whether the cookie `send` wrote came back, so every change made before it has
        been reported; False (and no watcher from here on) when it did not come back
        within SYNC_TIMEOUT_S or the watcher's thread has stopped."""
        if not self._seen.wait(SYNC_TIMEOUT_S) or self.mode != "watcher":
            if self.mode == "watcher":
                self.mode = "stat"
                self.why = f"the watcher did not report a change within {SYNC_TIMEOUT_S} s"
            return False
        if self._observer is not None and not self._observer.is_alive():
            self.mode, self.why = "stat", "the watcher stopped"
            return False
        return True

    def stop(self) -> None:
        fd, self._cookie_fd = self._cookie_fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
        observer, self._observer = self._observer, None
        if observer is None:
            return
        with contextlib.suppress(Exception):
            observer.stop()
            observer.join(timeout=3)


def _start_pairing_moves_briefly(observer: Any) -> None:
    """Start `observer` with its inotify watches holding a rename's first half for
    `MOVE_PAIRING_S`. watchdog reads the hold from its grouper's class when a watch starts,
    and has no setting for it: the class is given the short hold for this start only."""
    try:
        from watchdog.observers.inotify_move_event_grouper import InotifyMoveEventGrouper
    except ImportError:  # not inotify (macOS): no grouper to hold anything
        observer.start()
        return
    before = InotifyMoveEventGrouper.delay
    InotifyMoveEventGrouper.delay = MOVE_PAIRING_S
    try:
        observer.start()
    finally:
        InotifyMoveEventGrouper.delay = before
