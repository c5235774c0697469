"""A request before a background read: while a server re-opens a fleet for a request, its
warming thread waits at its next checkpoint.

A re-open walks the fleet: one `stat` a file, each of which lets go of the interpreter, and
each of which must then wait for it while a warming thread (pure Python, building a
keyword index) holds it, up to the switch interval (5 ms). At 100,000 notes a `kb route`
right after an edit took 7-17 s that way instead of about 0.7 s. The warming thread checks
here between its steps: a slice of headers, every 1,024 entries of each step that builds
the keyword index, every 1,024 chunks of a base's text. Between two checkpoints it still
holds the interpreter for a whole switch interval each time it takes it, so while a
request's work runs beside a background read the interval is `SERVING_SWITCH_S` instead.
"""

from __future__ import annotations

import _thread  # not `threading`: kb.io.answering.memory imports this, and a hot verb with it
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

# A checkpoint waits at most this long: a stream of requests slows a warm read, never stops it.
MAX_WAIT_S = 2.0
POLL_S = 0.002
# The switch interval while a request's work runs beside a background read: a `stat` or a
# SQLite call of the request waits at most this long for the reading thread to let go of the
# interpreter (at the default 5 ms, the first edit after a start at 100,000 notes took 3.2 s
# to answer instead of 0.5-0.7). Only then: more switching costs a lone request for nothing.
SERVING_SWITCH_S = 0.00005

_lock = _thread.allocate_lock()
# how many requests' works and background reads run now, by kind
_running = {"request": 0, "read": 0}
_switch_before: float | None = None  # the interval to restore, while it is lowered


@contextmanager
def _marked(kind: str) -> Iterator[None]:
    """Count one running work of `kind` while the block runs, with the switch interval
    short exactly while a request runs beside a read."""
    global _switch_before
    with _lock:
        _running[kind] += 1
        if _running["request"] and _running["read"] and _switch_before is None:
            _switch_before = sys.getswitchinterval()
            sys.setswitchinterval(SERVING_SWITCH_S)
    try:
        yield
    finally:
        with _lock:
            _running[kind] -= 1
            if not (_running["request"] and _running["read"]) and _switch_before is not None:
                sys.setswitchinterval(_switch_before)
                _switch_before = None


def serving() -> AbstractContextManager[None]:
    """Mark a request's work that must not wait on a background read."""
    return _marked("request")


def background() -> AbstractContextManager[None]:
    """Mark a background read (a warming thread's whole run)."""
    return _marked("read")


def wait_idle(limit_s: float = MAX_WAIT_S) -> None:
    """A background read's checkpoint: wait while a request's work runs, at most `limit_s`."""
    end = time.monotonic() + limit_s
    while _running["request"] and time.monotonic() < end:
        time.sleep(POLL_S)
