"""`kb daemon start|stop|status`, and the resident kb itself (issue 27, decision 0036).

One daemon per fleet root (its real path). It listens on a Unix socket in the user's
runtime directory (kb.client names and checks it), answers each connection from its
own uid only (SO_PEERCRED), and runs the very verb the command table runs, through
kb.shell.cli.main.run, against fleets it holds open: `Memory.open` inside a request is handed a
warm Memory (kb.io.answering.memory.set_resident), one per (cwd, paths as given, scope), so `--all`
is a property of a request and never of the daemon. Requests are answered one at a time:
a verb reads the process's cwd, environment and stdin, which a request sets and restores.

Changes on disk: a watcher (kb.io.answering.watcher) marks the open fleets stale, and each
request first writes a cookie into a watched directory of its own and waits for the watcher
to report it (as git's fsmonitor does with watchman), so every change made before the
request was sent has been seen before it is answered. Where no watcher can be trusted
(not installed, a watch limit, a network file system, a cookie not reported in time) each
request re-validates by stat instead (kb.io.answering.live), and `kb daemon status` says
which and why.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb import client
from kb.io.answering import foreground
from kb.io.answering.watcher import STAT_CHEAPER_S, WATCH_ENV, Watcher
from kb.pure.notes.walked import STATE_DIR
from kb.shell.cli.outcome import Outcome

if TYPE_CHECKING:
    from kb.io.answering.live import LiveMemory
    from kb.io.answering.memory import Memory
    from kb.pure.fleet.doctor import DaemonFacts
    from kb.shell.cli.inputs import DaemonInput

# Thirty minutes: a working session's pauses (reading, a meeting) rarely pass it, and an
# idle daemon of the example fleet holds about 40 MB. `daemon-idle = <minutes>` in fleet.txt
# changes it; KB_DAEMON_IDLE_S (seconds) is for tests.
DEFAULT_IDLE_MIN = 30.0
IDLE_ENV = "KB_DAEMON_IDLE_S"
# Open fleets kept warm at once (each a different cwd, path list or scope); the least
# recently asked is closed first. A hook asks one or two.
WARM_LIMIT = 8
# A start waits this long for the new daemon's socket (its first open of the fleet is in
# the background, so this is only interpreter start-up).
START_WAIT_S = 15.0
STOP_WAIT_S = 5.0
# The postings files' pages (decision 0053) the daemon keeps resident between requests,
# above its other file pages (the interpreter's and libraries' own: 18 MB in a daemon, 51 MB
# in a test process that has imported every framework). Past it, after a reply, they are
# given back to the page cache (decision 0055): at 100,000 notes they were 290 MB after 200
# questions. Reading one again is a minor fault (about 0.5 ms more a question at 100,000
# notes when every reply gives them back); giving back is 0.1-0.2 ms, after the reply.
FILE_PAGES_KEPT = 32 << 20


# -- the verb ---------------------------------------------------------------------------------


def daemon(inp: DaemonInput) -> Outcome:
    from kb.shell.cli.table import usage_of

    root = os.path.realpath(inp.path)
    if not os.path.isdir(root):
        return Outcome(stderr=f"kb daemon: no folder {inp.path}\n", code=1)
    try:
        where = Path(client.checked_dir(client.runtime_dir(), create=inp.action == "start"))
    except FileNotFoundError:
        where = None
    except (client.DirRefused, OSError) as e:
        return Outcome(stderr=f"kb daemon: refusing the socket directory: {e}\n", code=1)
    if inp.action == "status":
        return _status(root, where, inp.json)
    if inp.action == "stop":
        return _stop(root, where, inp.json)
    if inp.action == "start":
        assert where is not None
        return _start(root, where, inp.json)
    return Outcome(
        stdout=usage_of("daemon"),
        stderr=f"kb daemon: no action '{inp.action}'; it is start, stop or status\n",
        code=2,
    )


def daemon_facts(given: str) -> DaemonFacts:
    """What `kb doctor` says of the fleet's daemon: running, and of this build?"""
    from kb.pure.fleet.doctor import DaemonFacts

    try:
        where = Path(client.checked_dir(client.runtime_dir(), create=False))
    except (client.DirRefused, OSError):
        return DaemonFacts(running=False)
    info = _ask_status(_files(os.path.realpath(given), where)[0])
    if info is None:
        return DaemonFacts(running=False)
    pid = info.get("pid")
    return DaemonFacts(
        running=True,
        same_build=info.get("build") == client.build_id(),
        pid=pid if isinstance(pid, int) else None,
    )


def _files(root: str, where: Path) -> tuple[Path, Path, Path]:
    name = client.fleet_id(root)
    return where / f"{name}.sock", where / f"{name}.lock", where / f"{name}.log"


def _held(lock: Path) -> bool:
    """Whether a daemon holds `lock` (the kernel drops a dead process's lock: a pid file
    can lie, a zombie's pid still answers kill 0, the lock cannot)."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _ask_status(sock: Path) -> dict[str, Any] | None:
    try:
        reply = client.exchange(os.fspath(sock), {"op": "status"}, timeout=5.0)
    except (OSError, ValueError):
        return None
    return reply if isinstance(reply, dict) else None


def _status(root: str, where: Path | None, as_json: bool) -> Outcome:
    from kb.pure.render.jsonout import dumps

    info = _ask_status(_files(root, where)[0]) if where is not None else None
    if info is None:
        if as_json:
            return Outcome(stdout=dumps({"root": root, "running": False}) + "\n", code=1)
        return Outcome(stdout=f"kb daemon: none running for {root}\n", code=1)
    same = info.get("build") == client.build_id()
    info = {"root": root, "running": True, **info, "same_build": same}
    if as_json:
        return Outcome(stdout=dumps(info) + "\n")
    watch = info.get("watch", {})
    mode = (
        f"watched by {watch.get('how')}"
        if watch.get("mode") == "watcher"
        else f"a stat pass before every request: {watch.get('why')}"
    )
    if watch.get("overflows"):
        mode += (
            f"; the kernel dropped events {watch.get('overflows')} time(s), each followed by a"
            " stat pass of every open fleet"
        )
    version = f"{info.get('version')} (build {info.get('build')})"
    if not same:
        version += (
            f", not this kb's build {client.build_id()}: calls are answered in-process;"
            " `kb daemon start` replaces it"
        )
    lines = [
        f"kb daemon: running for {root}",
        f"  pid       {info.get('pid')}",
        f"  version   {version}",
        f"  uptime    {_duration(float(info.get('uptime_s', 0)))}",
        f"  requests  {info.get('requests')} served",
        f"  memory    {_memory_line(info.get('memory'))}",
        f"  changes   {mode}",
        f"  idle      stops after {_duration(float(info.get('idle_s', 0)))} without a request",
        f"  socket    {info.get('socket')}",
    ]
    return Outcome(stdout="\n".join(lines) + "\n")


def _memory_line(memory: object) -> str:
    if not isinstance(memory, dict) or not memory.get("fleets"):
        return "no fleet open yet"
    fleets, bases, held = memory.get("fleets"), memory.get("bases"), memory.get("held")
    opened = f"{fleets} open fleet" + ("s" if fleets != 1 else "")
    if held == bases:
        building = "" if memory.get("warm") == fleets else "; the keyword index is being built"
        ranked = ", ranked by numpy" if memory.get("numpy") == held else ", ranked in Python"
        mapped = memory.get("mapped")
        files = f", {mapped} mapped from postings files" if mapped else ""
        return f"{opened}, every base's text index held in memory ({held}){ranked}{files}{building}"
    return f"{opened}, {held} of {bases} bases held in memory; the rest answer from SQLite"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _stop(root: str, where: Path | None, as_json: bool) -> Outcome:
    from kb.pure.render.jsonout import dumps

    if where is None:
        return _stopped(root, None, as_json)
    sock, lock, _log = _files(root, where)
    pid = _stop_daemon(sock, lock)
    if pid is None and _held(lock):
        return Outcome(stderr=f"kb daemon: the daemon for {root} did not stop\n", code=1)
    if as_json:
        return Outcome(stdout=dumps({"root": root, "stopped": pid}) + "\n")
    return _stopped(root, pid, as_json)


def _stopped(root: str, pid: int | None, as_json: bool) -> Outcome:
    from kb.pure.render.jsonout import dumps

    if as_json:
        return Outcome(stdout=dumps({"root": root, "stopped": pid}) + "\n")
    if pid is None:
        return Outcome(stdout=f"kb daemon: none running for {root}\n")
    return Outcome(stdout=f"kb daemon: stopped the daemon for {root} (pid {pid})\n")


def _stop_daemon(sock: Path, lock: Path) -> int | None:
    """Ask the daemon to stop, then signal it if it would not; its pid, or None."""
    info = _ask_status(sock)
    pid = int(info["pid"]) if info and "pid" in info else _pid_of(lock)
    if not _held(lock):
        return None
    with contextlib.suppress(OSError, ValueError):
        client.exchange(os.fspath(sock), {"op": "stop"}, timeout=5.0)
    if not _wait(lambda: not _held(lock), STOP_WAIT_S) and pid is not None:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
        _wait(lambda: not _held(lock), STOP_WAIT_S)
    return pid


def _pid_of(lock: Path) -> int | None:
    try:
        return int(lock.read_text(encoding="utf-8").split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _wait(done: Any, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if done():
            return True
        time.sleep(0.02)
    return bool(done())


def _start(root: str, where: Path, as_json: bool) -> Outcome:
    from kb.pure.render.jsonout import dumps

    sock, lock, log = _files(root, where)
    info = _ask_status(sock)
    replaced = None
    if info is not None and info.get("build") == client.build_id():
        out = f"kb daemon: already running for {root} (pid {info.get('pid')})\n"
        payload = {"root": root, "pid": info.get("pid"), "started": False}
        return Outcome(stdout=dumps(payload) + "\n" if as_json else out)
    if _held(lock):  # another build's daemon, or one that does not answer: replace it
        replaced = _stop_daemon(sock, lock)
        if _held(lock):
            return Outcome(stderr=f"kb daemon: the daemon for {root} did not stop\n", code=1)
    with open(log, "ab") as err:
        os.chmod(log, 0o600)
        proc = subprocess.Popen(
            [sys.executable, "-m", "kb.shell.daemon", root],
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,  # a hook's or a terminal's hang-up does not reach it
            close_fds=True,
        )
    if not _wait(lambda: proc.poll() is not None or _ask_status(sock) is not None, START_WAIT_S):
        return Outcome(stderr=f"kb daemon: the daemon did not answer; see {log}\n", code=1)
    if proc.poll() is not None and _ask_status(sock) is None:
        return Outcome(stderr=f"kb daemon: the daemon exited at once; see {log}\n", code=1)
    if as_json:
        payload = {"root": root, "pid": proc.pid, "started": True, "replaced": replaced}
        return Outcome(stdout=dumps(payload) + "\n")
    again = f", replacing pid {replaced}" if replaced is not None else ""
    return Outcome(stdout=f"kb daemon: started for {root} (pid {proc.pid}{again})\n")


# -- the resident process ----------------------------------------------------------------------


def idle_seconds(root: str) -> float:
    raw = os.environ.get(IDLE_ENV, "").strip()
    with contextlib.suppress(ValueError):
        if raw:
            return max(0.05, float(raw))
    from kb.io.notes.walk import fleet_manifest

    minutes = fleet_manifest(root).first("daemon-idle")
    with contextlib.suppress(ValueError, TypeError):
        if minutes is not None and float(minutes) > 0:
            return float(minutes) * 60
    return DEFAULT_IDLE_MIN * 60


class Stale(BaseException):
    """A speculative answer read a fleet that had changed: raised before the verb writes,
    and caught by the daemon, which answers again from the fleet read afresh. Not an
    Exception, so no verb's own error handling can turn it into an answer."""


class Outside(BaseException):
    """A request the client sent here only because this daemon serves a folder above the
    caller's (kb.client.socket_above) opens a fleet this daemon does not hold: the caller
    answers it in-process instead, and this process never opens a fleet it would drop at
    once (15 such opens at 100,000 notes left the daemon 60 MB larger). Not an Exception,
    so no verb's own error handling can turn it into an answer."""


class Warm:
    """The fleets this daemon holds open, by (cwd, paths as given, scope); the provider
    kb.io.answering.memory asks inside a request."""

    def __init__(self, root: str, watcher: Watcher) -> None:
        self.root = root
        self.watcher = watcher
        # (cwd, paths, scope) -> the open fleet, the watcher's count when it was last
        # checked, and what its last stat pass cost
        self._open: OrderedDict[
            tuple[str, tuple[str, ...], bool], tuple[LiveMemory, int, float]
        ] = OrderedDict()
        self._inside = False
        self._synced: bool | None = None  # this request's cookie came back; None: not waited
        self._sent = False  # this request's cookie was written
        # This request may answer from a held fleet before its cookie is back; the watcher's
        # count each fleet so answered was last checked at, for `confirm`.
        self._speculating = False
        self._pending: list[int] = []
        self._request_thread = threading.get_ident()
        self.asked_above = False  # this request came here as the nearest daemon above
        self._watched_memo: weakref.WeakKeyDictionary[Memory, bool] = weakref.WeakKeyDictionary()
        self._stat_cheaper = 0.0 if os.environ.get(WATCH_ENV) == "watcher" else STAT_CHEAPER_S

    def provide(self, opened: tuple[str, ...], include_private: bool) -> Memory | None:
        from kb.io.answering.live import LiveMemory
        from kb.io.answering.memory import Memory, OpenError
        from kb.io.notes.walk import WalkError, walk_roots

        if self._inside:
            return None  # LiveMemory's own re-open: a real one
        if not all(_inside(os.path.realpath(p), self.root) for p in opened):
            if self.asked_above:
                raise Outside  # the caller's own process opens it: nothing is held here
            return None  # another fleet: opened and closed as in a one-shot process
        key = (os.getcwd(), opened, include_private)
        self._inside = True
        try:
            held = self._open.get(key)
            if held is None:
                generation = self.watcher.generation
                # The open's own walk is what a stat pass costs: measured here, the first
                # reuse need not walk every base to learn it (2 s at 100,000 notes).
                started = time.monotonic()
                try:
                    walked = walk_roots(list(opened), include_private)
                except WalkError as e:
                    raise OpenError(str(e)) from e
                cost = time.monotonic() - started
                memory = Memory.open_walked(opened, walked, include_private)
                memory.resident = True
                # held in memory in the background: the first answers come from SQLite
                memory.warm(wait=False)
                self._open[key] = (LiveMemory(memory), generation, cost)
                while len(self._open) > WARM_LIMIT:
                    _key, (old, _gen, _cost) = self._open.popitem(last=False)
                    old.close()
            else:
                live, seen, cost = held
                cookie = cost >= self._stat_cheaper and self._watched(live)
                # Answered first even when a change has been reported since the fleet was
                # last checked: `confirm` then finds it stale and the question is asked again
                # (one question's cost after an edit), and the tests that hold the guard
                # meet that path every time.
                if cookie and self._speculating and self._send():
                    # answered now, while the cookie travels; `confirm` checks it before
                    # the verb writes anything or its reply is sent
                    self._pending.append(seen)
                    generation = seen
                elif not cookie or not self._sync():
                    generation = self.watcher.generation
                    cost = _refresh(live)
                else:  # read after the cookie came back: every change before it is counted
                    generation = self.watcher.generation
                    if seen != generation:
                        changed = self.watcher.changed_since(seen)
                        spent = _refresh(live, changed)
                        # only a walk of every base says what a stat pass costs
                        cost = spent if changed is None else cost
                self._open[key] = (live, generation, cost)
                self._open.move_to_end(key)
            return self._open[key][0].memory
        finally:
            self._inside = False

    def _watched(self, live: LiveMemory) -> bool:
        """Whether the watcher sees every base: one `attach`ed from outside the fleet root
        makes no event there, and one opened inside a folder the walk skips (`.archive/ada`)
        has its changes passed over as outside any walk (kb.pure.notes.walked), so that fleet
        is checked by stat. Known once per open of the fleet (a Memory's bases do not move; a
        re-open is a new Memory): resolving every base's path was 0.2 ms of each request at
        10,000 notes."""
        memory = live.memory
        known = self._watched_memo.get(memory)
        if known is None:
            from kb.io.answering.live import covered_by

            known = covered_by(memory, [self.root])
            self._watched_memo[memory] = known
        return known

    def begin(self, speculate: bool = False) -> None:
        """A new request: its cookie is not sent yet. `speculate`: a fleet held open may
        answer before the cookie is back, to be confirmed by `confirm` before any write and
        before the reply (see Daemon._run)."""
        self._synced = None
        self._sent = False
        self._speculating = speculate
        self._pending = []
        self._request_thread = threading.get_ident()

    def _sync(self) -> bool:
        if self._synced is None:
            self._synced = (self._sent or self.watcher.send()) and self.watcher.wait()
        return self._synced

    def _send(self) -> bool:
        if not self._sent:
            self._sent = self.watcher.send()
        return self._sent

    def confirm(self) -> bool:
        """Whether every fleet this request answered from before its cookie came back was
        current: the cookie came back and no change was reported since the fleet was last
        checked. After False the request is answered again without speculating."""
        if not self._pending:
            return True
        current = self._sync() and all(seen == self.watcher.generation for seen in self._pending)
        if current:
            self._pending = []  # confirmed once for the request: later writes go straight on
        return current

    def handoff_changes(self, folder: str) -> int | None:
        """How many times a handoff record may have changed under `folder`, once every change
        made before this request is counted (its cookie came back); None where the watcher
        cannot vouch: not trusted, not this request's thread, a folder it does not watch
        (kb.io.sessions.bootstate.watch_handoffs)."""
        watcher = self.watcher
        if threading.get_ident() != self._request_thread or not watcher.alive():
            return None
        if not watcher.cookie_in_order or not _inside(os.path.realpath(folder), self.root):
            return None
        return watcher.handoffs if self._sync() else None

    def before_write(self) -> None:
        """What every writer runs first (kb.io.files.atomic.check_writes): a speculative answer
        that was not current stops the verb here (`Stale`), before anything is written."""
        if threading.get_ident() != self._request_thread:
            return  # a thread of the daemon's own (a base read into memory) answers nothing
        if not self.confirm():
            raise Stale

    def held(self) -> dict[str, int]:
        """How many fleets are open, how many of their bases' text indexes are held in
        memory (decision 0037: read in the background after a fleet opens), of how many."""
        memories = [live.memory for live, _gen, _cost in self._open.values()]
        return {
            "fleets": len(memories),
            "bases": sum(m.base_count() for m in memories),
            "held": sum(m.bases_held()[0] for m in memories),
            # fleets whose keyword index is built too (it follows the text: 8-9 s more at
            # 100,000 notes, while its questions decode keys from the persisted postings)
            "warm": sum(m.is_warm for m in memories),
            # held bases whose text numpy ranks (decision 0052); the others rank in Python
            "numpy": sum(m.bases_held()[1] for m in memories),
            # held bases whose postings are mapped from their postings file (decision 0053)
            "mapped": sum(m.bases_held()[2] for m in memories),
        }

    def close(self) -> None:
        for live, _gen, _cost in self._open.values():
            live.close()
        self._open.clear()


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _refresh(live: LiveMemory, changed: Collection[str] | None = None) -> float:
    started = time.monotonic()
    live.refresh(changed)
    return time.monotonic() - started


class Daemon:
    def __init__(self, root: str, where: Path) -> None:
        self.root = root
        self.sock_path, self.lock_path, _log = _files(root, where)
        self.started = time.time()
        self.requests = 0
        self.sent_back = 0  # requests answered in-process after all (a fallback reply)
        # the process's file pages without any postings pages, measured after each give-back
        self.file_floor: int | None = None
        self.build_facts = client.build_facts()
        self.build = client.build_id()
        self.idle_s = idle_seconds(root)
        # The cookie lives in the fleet's own `.kb/` (kb's state, never synced), inside the
        # watched tree: only there does it come back in order with the changes before it.
        self.watcher = Watcher([root], Path(root) / STATE_DIR / "daemon")
        self.warm = Warm(root, self.watcher)
        self.stopping = False

    def status(self) -> dict[str, Any]:
        from kb.version import __version__

        w = self.watcher
        return {
            "pid": os.getpid(),
            "version": __version__,
            "build": self.build,
            "uptime_s": round(time.time() - self.started, 3),
            "requests": self.requests,
            "sent_back": self.sent_back,
            "watch": {"mode": w.mode, "how": w.how, "why": w.why, "overflows": w.overflows},
            "idle_s": self.idle_s,
            "socket": os.fspath(self.sock_path),
            "memory": self.warm.held(),
        }

    def serve(self) -> int:
        from kb.io.answering.collector import set_freeze_warm
        from kb.io.answering.memory import set_resident
        from kb.io.files import atomic, deferred
        from kb.io.files.atomic import check_writes
        from kb.io.sessions.bootstate import watch_handoffs

        lock_fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 0  # another daemon serves this fleet already
        os.ftruncate(lock_fd, 0)
        os.write(lock_fd, f"{os.getpid()}\n".encode())
        with contextlib.suppress(FileNotFoundError):
            self.sock_path.unlink()  # a dead daemon's socket: the lock is ours, so it is dead
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_mask = os.umask(0o177)  # the socket is 0600 from its first moment
        try:
            listener.bind(os.fspath(self.sock_path))
        finally:
            os.umask(old_mask)
        os.chmod(self.sock_path, 0o600)
        listener.listen(16)
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stopping", True))
        self.watcher.start()
        set_resident(self.warm.provide)
        set_freeze_warm(True)
        check_writes(self.warm.before_write)
        # a refusal's log records and a session's state are written once the caller has
        # its reply (decision 0056)
        deferred.fold_after_reply(True)
        atomic.writes_after_reply(True)
        watch_handoffs(self.warm.handoff_changes)
        last = time.monotonic()
        listener.settimeout(min(1.0, self.idle_s))
        try:
            while not self.stopping and time.monotonic() - last < self.idle_s:
                try:
                    conn, _addr = listener.accept()
                except TimeoutError:
                    deferred.fold_now()  # a log whose lock was busy at the last reply
                    continue
                with conn:
                    asked = self._handle(conn)
                # closed: the client has its answer. Records are deferred only once their
                # request's answer was confirmed current, so its check is over for them.
                self.warm.begin()
                atomic.write_now()
                deferred.fold_now()
                if asked:
                    last = time.monotonic()
                    self.file_floor = _keep_file_pages(self.file_floor)
        finally:
            atomic.write_now()
            atomic.writes_after_reply(False)
            watch_handoffs(None)
            deferred.fold_after_reply(False)
            set_resident(None)
            set_freeze_warm(False)
            check_writes(None)
            with contextlib.suppress(OSError):
                if os.stat(self.sock_path).st_ino == os.fstat(listener.fileno()).st_ino:
                    self.sock_path.unlink()
            with contextlib.suppress(FileNotFoundError):
                self.sock_path.unlink()
            listener.close()
            self.watcher.stop()
            self.warm.close()
            os.close(lock_fd)
        return 0

    def _handle(self, conn: socket.socket) -> bool:
        """Answer one connection; whether it asked a verb (only that keeps the daemon from
        its idle stop: a refused peer or a `kb daemon status` does not)."""
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        if uid != os.geteuid():
            return False  # closed unanswered: only this daemon's owner may ask it
        conn.settimeout(10.0)
        try:
            data = client.receive(conn, json_line=True)
            if data.startswith(client.RUN_MAGIC):
                # a question, in the frame the client sends it (decision 0058)
                request = client.read_run_frame(data)
                if request["build"] != self.build_facts:
                    reply: dict[str, Any] = {"fallback": "wrong version"}
                else:
                    self.requests += 1
                    reply = self._run(request)
                    self.sent_back += "fallback" in reply
                with contextlib.suppress(OSError):
                    conn.sendall(client.reply_frame(reply))
                return True
            request = json.loads(data)
        except (OSError, ValueError):
            return False
        if not isinstance(request, dict):
            return False
        op = request.get("op")
        if op == "status":
            reply = self.status()
        elif op == "stop":
            self.stopping = True
            reply = {"stopping": True, "pid": os.getpid()}
        else:  # a verb comes only as a frame: a JSON one is an older client's, answered there
            reply = {"fallback": f"unknown op {op!r}", "build": self.build}
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps(reply).encode() + b"\n")
        return False

    def _run(self, request: dict[str, Any]) -> dict[str, Any]:
        from kb.shell.cli.main import run

        argv, cwd, env, raw = (request.get(k) for k in ("argv", "cwd", "env", "stdin"))
        if not isinstance(argv, list) or not isinstance(cwd, str) or not isinstance(env, dict):
            return {"fallback": "malformed request"}
        stdin = raw.encode("latin-1") if isinstance(raw, str) else b""
        args = [str(a) for a in argv]
        # `kb route` and `kb boot` (the verbs a hook runs on every prompt) answer while the
        # watcher's cookie travels (about 0.4 ms; it was 3-6 ms with watchfiles): every
        # write they make (a miss, a session event, an abstention) first waits for it
        # (kb.io.files.atomic.before_write), and so does the reply. The other verbs wait first.
        speculate = args[:1] in (["route"], ["boot"])
        self.warm.asked_above = env.get(client.ABOVE_ENV) == "1"
        try:
            # a warming thread waits at its next checkpoint (kb.io.answering.foreground)
            with foreground.serving():
                for _attempt in range(2):
                    self.warm.begin(speculate)
                    try:
                        with _as_caller(cwd, env, stdin) as (out, err):
                            outcome = run(args)
                        if self.warm.confirm():
                            break
                    except Stale:
                        pass
                    speculate = False  # answered again, from the fleet read afresh
        except Outside:
            from kb.io.files import atomic

            atomic.drop_kept()
            return {"fallback": "a fleet outside this daemon's"}
        except Exception as e:  # a fault of ours: the caller answers in-process, as before
            from kb.io.files import atomic

            atomic.drop_kept()  # the caller's own run makes the session's writes
            return {"fallback": f"{type(e).__name__}: {e}"}
        return {
            "stdout": out.getvalue() + outcome.stdout,
            "stderr": err.getvalue() + outcome.stderr,
            "code": outcome.code,
        }


def _keep_file_pages(floor: int | None, kept: int = FILE_PAGES_KEPT) -> int | None:
    """Give the mapped postings pages back when the process's file pages are more than
    `kept` above `floor`, its file pages without them (unknown at first: 0). Returns the
    floor, measured again after a give-back: it rises with every library a request
    imports, so only postings pages count against `kept`."""
    from kb.io.store import postingsfile

    held = postingsfile.resident_file_bytes()
    if held is None or held <= (floor or 0) + kept:
        return floor
    postingsfile.give_back_pages()
    return postingsfile.resident_file_bytes()


@contextlib.contextmanager
def _as_caller(
    cwd: str, env: dict[str, Any], stdin: bytes
) -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """The caller's cwd, KB_* environment and stdin for one verb, restored after; what the
    verb writes to the streams itself is kept for the reply."""
    here = os.getcwd()
    saved = client._env()
    wanted = {str(k): str(v) for k, v in env.items()}
    streams = sys.stdin, sys.stdout, sys.stderr
    out, err = io.StringIO(), io.StringIO()
    os.chdir(cwd)
    try:
        _switch_env(saved, wanted)
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        sys.stdout, sys.stderr = out, err
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        _switch_env(client._env(), saved)
        os.chdir(here)


def _switch_env(now: dict[str, str], wanted: dict[str, str]) -> None:
    """From `now` to `wanted`, touching only what differs: the caller's variables are most
    often the daemon's own, and setting each one afresh was a tenth of a millisecond of
    every request."""
    for k in now.keys() - wanted.keys():
        del os.environ[k]
    for k, v in wanted.items():
        if now.get(k) != v:
            os.environ[k] = v


def main(argv: list[str]) -> int:
    from kb.io.answering.heap import one_arena

    one_arena()  # before the watcher's and the warming threads start
    root = os.path.realpath(argv[0])
    where = Path(client.checked_dir(client.runtime_dir(), create=True))
    return Daemon(root, where).serve()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
