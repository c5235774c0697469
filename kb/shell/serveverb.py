"""`kb serve`: run the MCP stdio server until stdin closes."""

from __future__ import annotations

from kb.shell.inputs import ServeInput
from kb.shell.mcp_server import serve as run_server
from kb.shell.outcome import Outcome


def serve(inp: ServeInput) -> Outcome:
    # The server writes its own streams as it goes; the Outcome only carries the exit code.
    return Outcome(code=run_server(list(inp.paths) or ["."], inp.top, inp.all))
