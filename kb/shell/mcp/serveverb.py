"""`kb serve`: run the MCP server, on stdio until stdin closes, or with --http on the
loopback interface until interrupted."""

from __future__ import annotations

from kb.io.fleet.extras import MISSING_EXTRA_EXIT, missing, needs_line
from kb.shell.cli.inputs import ServeInput
from kb.shell.cli.outcome import Outcome

DEFAULT_PORT = 4115  # kb.shell.mcp.mcp_http.DEFAULT_PORT; kept here so stdio never imports it


def serve(inp: ServeInput) -> Outcome:
    if missing("mcp"):  # a core install: one line naming the extra, never a traceback
        return Outcome(stderr=needs_line("serve", "mcp") + "\n", code=MISSING_EXTRA_EXIT)
    # The server writes its own streams as it goes; the Outcome only carries the exit code.
    paths = list(inp.paths) or ["."]
    if not inp.http and inp.port != DEFAULT_PORT:
        return Outcome(stderr="kb serve: --port only applies with --http\n", code=2)
    from kb.io.answering.collector import set_freeze_warm
    from kb.io.answering.heap import one_arena

    one_arena()  # a process of kb's own, its threads not started yet
    # A server holds the fleet warm until it stops: its warm reads leave the collector
    # (kb.io.answering.collector), as the resident kb's do.
    set_freeze_warm(True)
    try:
        if inp.http:
            from kb.shell.mcp.mcp_http import serve_http

            return Outcome(code=serve_http(paths, inp.top, inp.all, inp.port))
        from kb.shell.mcp.mcp_server import serve as run_server

        return Outcome(code=run_server(paths, inp.top, inp.all))
    finally:
        set_freeze_warm(False)
