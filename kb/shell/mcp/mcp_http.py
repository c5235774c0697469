"""`kb serve --http`: the same five tools over the MCP streamable HTTP transport, loopback only.

The transport is the SDK's (`StreamableHTTPSessionManager` in stateless mode, JSON
responses), so any MCP client that speaks streamable HTTP can connect. The answers are not
the SDK's: its `tools/list` and `tools/call` handlers hand every request to the stdio
server's `Server.handle`, which dispatches to kb.shell.mcp.mcp_tools.TOOLS. One tool table, one
dispatcher, one open Memory: a question gets the same text and the same structured content
over either transport. `initialize` is the SDK's, fed the stdio server's capabilities and
instructions; it negotiates the version by the rule and the list the stdio server uses. The
Memory is held by a LiveMemory (kb.io.answering.live): a note written, or pulled by `kb sync`, while
the server runs is seen at the next call, re-validated by stat, without a restart.

Guarding (decided in kb.pure.fleet.httpguard): the socket is bound to 127.0.0.1 and nothing else
(there is no flag for another address), a request with a foreign Origin gets 403, and one
without the bearer token gets 401. The token is KB_MCP_TOKEN when set, otherwise a fresh
`secrets.token_urlsafe(32)` printed on stderr at start. The SDK's own Host and Origin
check stays on, configured to accept exactly the origins the guard accepts.

Tool handlers run on the event loop's thread, the thread that opened the Memory (SQLite
connections belong to the thread that made them), one call at a time: the tools are fast
and the callers are local, so nothing is gained by threads and a shared connection is not
put at risk.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import sys
from collections.abc import Callable
from typing import IO, Any

from kb.io.answering.live import LiveMemory
from kb.pure.fleet.httpguard import LOCAL_HOSTS, origin_allowed, refusal
from kb.pure.render.mcptext import INSTRUCTIONS
from kb.shell.mcp.mcp_server import CAPABILITIES, banner, open_live, tools_list
from kb.shell.mcp.mcp_server import Server as Dispatcher
from kb.version import __version__

HOST = "127.0.0.1"
DEFAULT_PORT = 4115
PATH = "/mcp"
TOKEN_ENV = "KB_MCP_TOKEN"
TOKEN_BYTES = 32  # 256 bits of randomness, 43 URL-safe characters

ASGIApp = Callable[..., Any]


class _Stopped(Exception):
    pass


def _stop(_signum: int, _frame: object) -> None:
    raise _Stopped


def token_from(env: dict[str, str] | os._Environ[str]) -> tuple[str, bool] | str:
    """(token, generated?) or, when KB_MCP_TOKEN is set but blank, the refusal message."""
    given = env.get(TOKEN_ENV)
    if given is None:
        return secrets.token_urlsafe(TOKEN_BYTES), True
    if not given.strip() or given != given.strip():
        return (
            f"{TOKEN_ENV} is set but blank or padded with spaces; unset it to get a fresh "
            "token, or give the token itself"
        )
    return given, False


class Guard:
    """ASGI middleware: the Origin rule, then the bearer token, for every HTTP request."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # lifespan events carry no request
            await self.app(scope, receive, send)
            return
        from starlette.datastructures import Headers
        from starlette.responses import PlainTextResponse

        headers = Headers(scope=scope)
        origins = headers.getlist("origin")
        # Several Origin headers pass only when every one of them would pass alone.
        foreign = [o for o in origins if not origin_allowed(o)]
        origin = foreign[0] if foreign else (origins[0] if origins else None)
        refused = refusal(origin, headers.get("authorization"), self.token)
        if refused is None:
            await self.app(scope, receive, send)
            return
        extra = {"WWW-Authenticate": "Bearer"} if refused.status == 401 else {}
        response = PlainTextResponse(refused.message + "\n", refused.status, headers=extra)
        await response(scope, receive, send)


def build_app(live: LiveMemory, top: int, token: str) -> ASGIApp:
    import mcp_types
    from mcp.server.lowlevel.server import NotificationOptions, Server
    from mcp.server.transport_security import TransportSecuritySettings
    from mcp.shared.exceptions import MCPError

    class KbServer(Server[Any]):
        """The SDK's server with the capabilities the stdio server advertises: one
        definition (kb.shell.mcp.mcp_server.CAPABILITIES) for `initialize` on both transports."""

        def get_capabilities(
            self,
            notification_options: NotificationOptions | None = None,
            experimental_capabilities: dict[str, dict[str, Any]] | None = None,
            extensions: dict[str, dict[str, Any]] | None = None,
            *,
            protocol_version: str | None = None,
        ) -> mcp_types.ServerCapabilities:
            return mcp_types.ServerCapabilities.model_validate(CAPABILITIES)

    dispatcher = Dispatcher(live.memory, top, live)

    async def list_tools(_ctx: Any, _params: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult.model_validate(tools_list())

    async def call_tool(_ctx: Any, params: mcp_types.CallToolRequestParams) -> Any:
        reply = dispatcher.handle(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "tools/call",
                "params": {"name": params.name, "arguments": params.arguments or {}},
            }
        )
        assert reply is not None  # a request always gets a reply
        if "error" in reply:
            raise MCPError(reply["error"]["code"], reply["error"]["message"])
        return mcp_types.CallToolResult.model_validate(reply["result"])

    server = KbServer(
        "kb",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    origins = [f"{s}://{h}{p}" for s in ("http", "https") for h in LOCAL_HOSTS for p in ("", ":*")]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{h}{p}" for h in LOCAL_HOSTS for p in ("", ":*")],
        allowed_origins=origins,
    )
    app = server.streamable_http_app(
        streamable_http_path=PATH,
        stateless_http=True,
        json_response=True,
        transport_security=security,
        host=HOST,
    )
    return Guard(app, token)


def listen(port: int) -> socket.socket:
    """A listening socket on the loopback address, and only there."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    bound = sock.getsockname()[0]
    # The whole security model rests on this: a socket on any other address is a bug.
    assert bound == HOST, f"kb serve --http bound {bound}, not {HOST}"
    return sock


def serve_http(
    paths: list[str],
    top: int,
    include_private: bool,
    port: int,
    env: dict[str, str] | os._Environ[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    err = stderr or sys.stderr
    got = token_from(os.environ if env is None else env)
    if isinstance(got, str):
        err.write(f"kb serve: {got}\n")
        return 2
    token, generated = got
    opened = open_live(paths, include_private, err)
    if opened is None:
        return 1
    memory, live = opened
    try:
        try:
            sock = listen(port)
        except OSError as e:
            err.write(f"kb serve: cannot listen on {HOST}:{port}: {e.strerror or e}\n")
            return 1
        actual = sock.getsockname()[1]
        err.write(banner(memory, include_private, f"http://{HOST}:{actual}{PATH}"))
        if generated:
            err.write(f"kb serve: bearer token {token}\n")
        else:
            err.write(f"kb serve: bearer token from {TOKEN_ENV}\n")
        err.flush()
        import uvicorn

        config = uvicorn.Config(
            build_app(live, top, token), log_level="warning", access_log=False, lifespan="on"
        )
        # uvicorn shuts down gracefully on SIGINT/SIGTERM, then raises the signal again with
        # the handler it found; these handlers turn that into a clean exit 0.
        previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            uvicorn.Server(config).run(sockets=[sock])
        except _Stopped:
            pass
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            sock.close()
        err.write("kb serve: stopped\n")
    finally:
        live.close()
    return 0
