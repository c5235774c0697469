"""`kb ui`: open the fleet once and serve the reading room on 127.0.0.1 until interrupted."""

from __future__ import annotations

from kb.io.fleet.extras import MISSING_EXTRA_EXIT, missing, needs_line
from kb.shell.cli.inputs import UiInput
from kb.shell.cli.outcome import Outcome


def ui(inp: UiInput) -> Outcome:
    if missing("ui"):  # a core install: one line naming the extra, never a traceback
        return Outcome(stderr=needs_line("ui", "ui") + "\n", code=MISSING_EXTRA_EXIT)
    # The web stack is imported here and nowhere on the read path.
    from kb.shell.ui.server import serve

    # The server writes its own stderr as it goes (the address, a bind or open failure);
    # the Outcome only carries the exit code.
    return Outcome(code=serve(list(inp.paths) or ["."], inp.port, inp.all))
