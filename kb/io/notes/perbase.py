"""One job per base, run on as many of the machine's cores as help (`kb index`, `kb check`).

A fleet's bases are independent: each has its own notes and its own index, so a cold
`kb index` or a `kb check` of a large fleet can work on several at once, each in a process
of its own (Python runs one thread's code at a time). The results come back in the bases'
order, so what a verb prints is the same as when the bases are done one after another,
which is still how it runs wherever a second process would not pay or could not be trusted:

- fewer than `PARALLEL_MIN_FILES` files in all, or one base, or one core;
- not Linux: only there is `fork` the default and safe for a process like kb's (macOS
  made `spawn` its default because system libraries break after a fork);
- another thread is running (a library caller's, a server's): a fork copies every lock
  as it stands, and one held by that thread would never be released in the child;
- `KB_CRASH_AT` is set (the crash tests kill one process at a chosen point);
- `KB_WORKERS` says how many processes at most (1: none of its own).

The largest bases are handed out first, so no core waits at the end for one large base
started last. A worker whose parent is gone (a user's Ctrl-C, a kill) stops at its job's
next progress step instead of writing on alone (`orphan_check`).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

_T = TypeVar("_T")
_R = TypeVar("_R")

# Below this many files a second process costs more than it saves (a fork and a pickled
# result: tens of milliseconds), and every test fleet stays in one process.
PARALLEL_MIN_FILES = 2000
WORKERS_ENV = "KB_WORKERS"


def worker_count(sizes: Sequence[int]) -> int:
    """How many processes to run jobs of these sizes (files per base) in: 1 means here."""
    if len(sizes) < 2 or sum(sizes) < PARALLEL_MIN_FILES:
        return 1
    if sys.platform != "linux" or threading.active_count() > 1:
        return 1
    if os.environ.get("KB_CRASH_AT"):
        return 1
    cores = len(os.sched_getaffinity(0))
    given = os.environ.get(WORKERS_ENV, "").strip()
    if given.isdigit() and int(given) > 0:
        cores = min(cores, int(given))
    return max(1, min(cores, len(sizes)))


def rough_size(root: str) -> int:
    """About how many files lie under `root`, counted by listing folders only (no stat, no
    read; dot folders passed over): enough to hand out the largest jobs first and to tell a
    fleet worth a second process, before each job walks its base properly (about 0.07 s at
    100,000 notes, against 0.7 s for the walk)."""
    count = 0
    pending = [root]
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    else:
                        count += 1
        except OSError:
            continue  # unreadable or gone: the job's own walk says why
    return count


class Orphaned(BaseException):
    """The process that asked for this job is gone: the job stops, and what it was writing
    rolls back. Not an Exception, so no job's own error handling turns it into a result."""


def orphan_check(parent: int) -> Callable[[int, int], None]:
    """A progress step that stops a worker whose parent process has gone."""

    def step(_done: int, _total: int) -> None:
        if os.getppid() != parent:
            raise Orphaned

    return step


def each_base(
    job: Callable[[_T], _R],
    items: Sequence[_T],
    sizes: Sequence[int],
    done: Callable[[_T, _R], None] | None = None,
) -> list[_R]:
    """`job(item)` for every item, in the items' order; `done` is called here with each
    item and its result as they come. Results must be picklable, for when a job runs in
    another process. The job and its items are not sent: each worker is forked after they
    are set aside (`_INHERITED`) and finds them in its own copy of memory. Pickling every
    base's walk and the fleet's stems for each job was about 1 s of `kb check`'s CPU at
    100,000 notes (45 MB made and read back for 11 bases)."""
    workers = worker_count(sizes)
    if workers == 1:
        out: list[_R] = []
        for item in items:
            out.append(job(item))
            if done is not None:
                done(item, out[-1])
        return out
    import multiprocessing
    from collections import deque
    from multiprocessing.connection import Connection, wait

    global _INHERITED
    waiting = deque(sorted(range(len(items)), key=lambda i: -sizes[i]))
    results: dict[int, _R] = {}
    running: dict[Connection, tuple[int, Any]] = {}
    context = multiprocessing.get_context("fork")
    _INHERITED = (job, items)  # before each job's process is forked
    try:
        while waiting or running:
            while waiting and len(running) < workers:
                # A process of its own for each job, forked from this one, which runs no
                # thread that a fork could catch holding a lock: a worker kept for a second
                # base kept the first's heap too (a cold index's largest worker grew from
                # 57 to 66 MB at 100,000 notes, on a smaller second base).
                i = waiting.popleft()
                reader, writer = context.Pipe(duplex=False)
                process = context.Process(target=_forked_job, args=(i, writer), daemon=True)
                process.start()
                writer.close()
                running[reader] = (i, process)
            for ready in wait(list(running)):
                assert isinstance(ready, Connection)
                i, process = running.pop(ready)
                try:
                    outcome, value = ready.recv()  # before the join: a large result fills the pipe
                except EOFError:
                    outcome, value = "died", None
                ready.close()
                process.join()
                if outcome == "died":
                    raise WorkerDied(f"the process working on item {i} died ({process.exitcode})")
                if outcome == "raised":
                    raise value
                results[i] = cast(_R, value)
                if done is not None:
                    done(items[i], results[i])
    finally:
        for reader, (_, process) in running.items():
            process.terminate()
            process.join()
            reader.close()
        _INHERITED = None
    return [results[i] for i in range(len(items))]


class WorkerDied(Exception):
    """A job's process ended without a result (killed, out of memory)."""


def _forked_job(i: int, writer: Any) -> None:
    """In a forked process: the job on the item at `i`, its result or the exception it raised
    sent back through `writer`."""
    try:
        message: tuple[str, object] = ("done", _inherited_job(i))
    except Exception as e:  # re-raised in the parent, as a job run there would raise it
        message = ("raised", e)
    try:
        writer.send(message)
    except Exception as e:  # a result or exception that does not pickle
        writer.send(("raised", WorkerDied(f"item {i}: {e!r}")))
    writer.close()


# The job and items of the `each_base` running now: what its forked workers read.
_INHERITED: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def _inherited_job(i: int) -> object:
    """In a worker: the job on the item at `i`, both as they were when it was forked."""
    assert _INHERITED is not None, "each_base's workers are forked after its jobs are set"
    job, items = _INHERITED
    return job(items[i])
