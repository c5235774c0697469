"""Python's cyclic collector around warm reads and re-opens, in a process that holds fleets
for good.

`kb serve` and the resident kb (and nothing else: the collector belongs to the host process)
read each fleet into memory, and open it again after a change, with the collector paused,
then take what was built out of it (`gc.freeze`) before it runs again. A warm read builds
millions of arrays, dicts and strings that live as long as the fleet is held.

Measured at 100,000 notes (benchmarks/warmgc.py, benchmarks/README.md): reading the largest
base and the keyword index took 19.5 s, 5.3 s of it in 12 full collections whose pauses (up
to 1 s each) held up every question asked meanwhile; paused, 14.3 s, with 0.1 s of pauses in
all. Left to it afterwards, the first full collection scanned it all during a request: 1.35 s
in one `kb_route` call. A re-open after a change (a walk and an open, a value for every file)
took 2.15 s, 0.7 s of it in 3-5 full collections; paused, 1.45 s.

Frozen objects are still freed by their reference counts, and neither a warm read, a
released warm Memory nor a question leaves a cycle (the collector finds nothing after them),
so nothing frozen leaks (decision 0037).
"""

from __future__ import annotations

import _thread
import functools
import gc
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

_S = TypeVar("_S")
_P = ParamSpec("_P")

_on = False
_paused = 0  # reads under way with the collector paused, across threads and Memories
_paused_lock = _thread.allocate_lock()
_resume = False  # whether the collector ran before the first of them paused it
_built = False  # whether one of them built something to hold (a walk that found no change
# built only garbage its reference counts free: freezing then would only take whatever else
# is alive, another library's objects among them, out of the collector for nothing)


def set_freeze_warm(on: bool) -> None:
    """Whether warm reads and re-opens pause the cyclic collector and take what they built
    out of it when done: for a process that holds its fleets until it stops."""
    global _on
    _on = on


def paused_while_reading(
    read: Callable[Concatenate[_S, _P], bool | None],
) -> Callable[Concatenate[_S, _P], None]:
    """`read` (a Memory's warm read, a LiveMemory's re-open) with the collector paused when
    switched on. It returns False when it built nothing to hold. The last read running
    freezes what was built, if any read built something, then lets the collector run again,
    unless the host had turned it off."""

    @functools.wraps(read)
    def reading(holder: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> None:
        global _paused, _resume, _built
        if not _on:
            read(holder, *args, **kwargs)
            return
        with _paused_lock:
            if _paused == 0:
                _resume = gc.isenabled()
                gc.disable()
            _paused += 1
        built = True
        try:
            built = read(holder, *args, **kwargs) is not False
        finally:
            with _paused_lock:
                _paused -= 1
                _built = _built or built
                if _paused == 0:
                    if _built:
                        gc.freeze()  # before the collector runs: it never scans what was read
                    _built = False
                    if _resume:
                        gc.enable()

    return reading
