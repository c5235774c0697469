"""Progress for long work, on a terminal only (issue 26: `kb index` of 25,000 files was silent
for 13-16 s, then printed everything at once).

One line on stderr, rewritten in place (carriage return, erase to the end of the line), at
most `REDRAW_S` apart, and erased when the work is done, so what is left on the terminal
is exactly what the verb prints without it. It is drawn only when stderr is a terminal and
`KB_NO_PROGRESS` is unset: a pipe, a file, a hook, `--json` and every test see nothing.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

from kb.pure.notes.names import printable

# Ten redraws a second reads as live and costs nothing next to reading the notes.
REDRAW_S = 0.1
# Below this much work the line would flash for a moment: not drawn at all.
MIN_TOTAL = 200
ERASE = "\r\x1b[K"


class Progress:
    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream
        self._clock = clock
        self._last = float("-inf")
        self._label = ""
        self._drawn = False

    @classmethod
    def on_terminal(cls, wanted: bool = True) -> Progress | None:
        """A Progress on stderr when it is a terminal and progress is `wanted`; else None."""
        if not wanted or os.environ.get("KB_NO_PROGRESS") or not sys.stderr.isatty():
            return None
        return cls(sys.stderr)

    def step(self, label: str, done: int, total: int) -> None:
        """Show `done` of `total` for `label` (a base's name and what is being done to it)."""
        if total < MIN_TOTAL:
            return
        now = self._clock()
        # a new stage is always shown, so a fast stage still says it ran
        if now - self._last < REDRAW_S and done < total and label == self._label:
            return
        self._last, self._label = now, label
        self._stream.write(f"{ERASE}  {printable(label)}  {done:,} / {total:,}")
        self._stream.flush()
        self._drawn = True

    def clear(self) -> None:
        """Erase the line, once the work is done (or failed)."""
        if self._drawn:
            self._stream.write(ERASE)
            self._stream.flush()
            self._drawn = False


Step = Callable[[int, int], None]


def stepper(progress: Progress | None, label: str) -> Step | None:
    """A `(done, total)` callback drawing `label` on `progress`, or None without one."""
    if progress is None:
        return None
    return lambda done, total: progress.step(label, done, total)
