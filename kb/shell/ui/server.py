"""`kb ui`: the reading room served over HTTP, on 127.0.0.1 and nowhere else.

Rules of this module:
- The listening socket is made here, by `bind_loopback`, which refuses every host but
  127.0.0.1 before it touches a socket and checks the address it got after binding. There
  is no flag, setting or variable that names another address: the page has no business
  leaving the machine.
- Requests must name this machine in their Host header (127.0.0.1 or localhost): a page
  elsewhere that re-points a DNS name at 127.0.0.1 cannot read the fleet through it.
- The two routes that do something (POST /api/reload, GET /api/chat, which starts the
  person's agent runtime) also need the token written into the page this process served.
  Another site can make a browser send a request here but cannot read the page, so it
  cannot know the token.
- Routes are the spec's (§18) plus the page's two static files; every other path, and a
  known path with the wrong method, is 404 `no such page`. A file the fleet does not
  serve is 404 `not a file this fleet serves`.
- Every JSON body is written by kb.pure.render.jsonout from a payload kb.pure.render.uiapi shaped.
"""

from __future__ import annotations

import hmac
import secrets
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from kb.io.answering.memory import OpenError
from kb.pure.notes.plural import counted
from kb.pure.render.jsonout import dumps
from kb.pure.render.uiapi import NO_SUCH_PAGE, NOT_SERVED, Json, error_payload
from kb.shell.ui.chat import chat_events
from kb.shell.ui.room import Reader

LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 4114
ALLOWED_HOSTS = frozenset({"127.0.0.1", "localhost"})
TOKEN_PLACEHOLDER = "__KB_TOKEN__"
BACKLOG = 64

PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
API_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


# -- the bind ------------------------------------------------------------------------------


def loopback_only(host: str) -> str:
    """The one host `kb ui` may bind; anything else is a bug, refused before any socket."""
    if host != LOOPBACK:
        raise ValueError(f"kb ui binds {LOOPBACK} only, never {host!r}")
    return host


def bind_loopback(host: str, port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:port. OSError when the port cannot be had."""
    loopback_only(host)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        # Lets a restart reuse a port in TIME_WAIT; a port another process listens on
        # still refuses the bind.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        bound = sock.getsockname()[0]
        if bound != LOOPBACK:  # pragma: no cover - the kernel binds what it was given
            raise OSError(f"bound {bound} instead of {LOOPBACK}")
        sock.listen(BACKLOG)
    except BaseException:
        sock.close()
        raise
    return sock


# -- responses ------------------------------------------------------------------------------


def _json(payload: Json, status: int = 200) -> Response:
    return Response(
        dumps(payload),
        status_code=status,
        media_type="application/json",
        headers=API_HEADERS,
    )


def _not_found(message: str = NO_SUCH_PAGE) -> Response:
    return PlainTextResponse(message, status_code=404, headers=API_HEADERS)


def _static(name: str) -> str:
    return resources.files("kb.shell.ui").joinpath("static", name).read_text("utf-8")


# Bounds on what one request may carry. A question is read up to 2,000 characters
# (tokens.MAX_QUESTION_CHARS), 24 KB percent-encoded at worst; a file path is at most a few
# KB. The page never sends a body larger than a chat message. Past them: 414 and 413, unread.
MAX_QUERY_BYTES = 64 * 1024
MAX_BODY_BYTES = 64 * 1024


class HostGuard:
    """Refuses any request whose Host header does not name this machine, and any request
    past the size bounds above."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[MutableMapping[str, Any]]],
        send: Callable[[MutableMapping[str, Any]], Awaitable[None]],
    ) -> None:
        if scope["type"] == "http":
            host = ""
            for key, value in scope.get("headers", []):
                if key == b"host":
                    host = value.decode("latin-1")
                    break
            name = host.rsplit(":", 1)[0] if not host.startswith("[") else host
            if name.lower() not in ALLOWED_HOSTS:
                response = PlainTextResponse("wrong host", status_code=403)
                await response(scope, receive, send)
                return
            refused = _too_large(scope)
            if refused is not None:
                await refused(scope, receive, send)
                return
            receive = _bounded(receive)
        await self.app(scope, receive, send)


def _too_large(scope: MutableMapping[str, Any]) -> Response | None:
    if len(scope.get("query_string", b"")) > MAX_QUERY_BYTES:
        return PlainTextResponse(
            f"query string past {MAX_QUERY_BYTES} bytes; ask a shorter question", status_code=414
        )
    for key, value in scope.get("headers", []):
        if key == b"content-length" and (not value.isdigit() or int(value) > MAX_BODY_BYTES):
            return PlainTextResponse(f"body past {MAX_BODY_BYTES} bytes", status_code=413)
    return None


def _bounded(
    receive: Callable[[], Awaitable[MutableMapping[str, Any]]],
) -> Callable[[], Awaitable[MutableMapping[str, Any]]]:
    """`receive`, ending the request once a body without a declared length passes the
    bound (a chunked upload is cut, not buffered)."""
    seen = 0

    async def wrapped() -> MutableMapping[str, Any]:
        nonlocal seen
        message = await receive()
        if message.get("type") == "http.request":
            seen += len(message.get("body", b""))
            if seen > MAX_BODY_BYTES:
                return {"type": "http.disconnect"}
        return message

    return wrapped


def build_app(reader: Reader, token: str) -> Callable[..., Awaitable[None]]:
    """The ASGI app over an opened Reader. `token` guards reload and chat."""
    page = _static("index.html").replace(TOKEN_PLACEHOLDER, token)
    assets = {
        "app.js": (_static("app.js"), "text/javascript; charset=utf-8"),
        "app.css": (_static("app.css"), "text/css; charset=utf-8"),
    }

    def authorised(given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), token.encode())

    async def index(_: Request) -> Response:
        return Response(page, media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)

    async def static(request: Request) -> Response:
        found = assets.get(request.path_params["name"])
        if found is None:
            return _not_found()
        return Response(found[0], media_type=found[1], headers=PAGE_HEADERS)

    async def fleet(_: Request) -> Response:
        return _json(await reader.call(lambda room: room.fleet))

    async def route(request: Request) -> Response:
        question = request.query_params.get("q", "")
        return _json(await reader.call(lambda room: room.route(question)))

    async def stacks(_: Request) -> Response:
        return _json(await reader.call(lambda room: room.stacks))

    async def blocks(_: Request) -> Response:
        return _json(await reader.call(lambda room: room.blocks))

    async def check(_: Request) -> Response:
        return _json(await reader.call(lambda room: room.check))

    async def file(request: Request) -> Response:
        base = request.query_params.get("base", "")
        rel = request.query_params.get("rel", "")
        payload = await reader.call(lambda room: room.file(base, rel))
        return _json(error_payload(NOT_SERVED), 404) if payload is None else _json(payload)

    async def reload(request: Request) -> Response:
        if not authorised(request.headers.get("x-kb-token")):
            return _not_found()
        try:
            await reader.reload()
        except (OpenError, OSError) as e:
            return _json({"ok": False, "error": str(e)}, 500)
        return _json({"ok": True})

    async def chat(request: Request) -> Response:
        if not authorised(request.query_params.get("token")):
            return _not_found()
        events = chat_events(
            reader, request.query_params.get("m", ""), request.query_params.get("chat", "")
        )
        return StreamingResponse(
            events,
            media_type="text/event-stream",
            headers={**API_HEADERS, "X-Accel-Buffering": "no"},
        )

    async def missing(_: Request, __: Exception) -> Response:
        return _not_found()

    app = Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/static/{name}", static, methods=["GET"]),
            Route("/api/fleet", fleet, methods=["GET"]),
            Route("/api/route", route, methods=["GET"]),
            Route("/api/stacks", stacks, methods=["GET"]),
            Route("/api/blocks", blocks, methods=["GET"]),
            Route("/api/check", check, methods=["GET"]),
            Route("/api/file", file, methods=["GET"]),
            Route("/api/reload", reload, methods=["POST"]),
            Route("/api/chat", chat, methods=["GET"]),
        ],
        exception_handlers={404: missing, 405: missing},
    )
    app.router.redirect_slashes = False  # `/api/fleet/` is not a page; no redirect to one
    return HostGuard(app)


# -- the verb ------------------------------------------------------------------------------


def start_line(port: int, agents: int, entries: int, private: bool) -> str:
    scope = ", private layer INCLUDED" if private else ""
    counts = f"{counted(agents, 'agent')}, {counted(entries, 'entry', 'entries')}"
    return f"kb ui: http://{LOOPBACK}:{port}/  ({counts}{scope})\n"


def _warn(line: str) -> None:
    try:
        sys.stderr.write(f"kb ui: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # a closed stderr must not stop the room


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def serve(paths: list[str], port: int, include_private: bool) -> int:
    """Bind, open, print the address, serve until interrupted (Ctrl-C or SIGTERM: exit 0)."""
    # uvicorn shuts down gracefully on either signal and then re-raises it with the handler
    # it found; with this one that is a KeyboardInterrupt, caught below, not a traceback.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return _serve(paths, port, include_private)
    except KeyboardInterrupt:
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)


def _serve(paths: list[str], port: int, include_private: bool) -> int:
    import uvicorn

    from kb.shell.ui.guard import GuardedH11, accept_burst, connection_cap, request_timeout

    try:
        sock = bind_loopback(LOOPBACK, port)
    except OSError as e:
        sys.stderr.write(f"kb ui: cannot bind {LOOPBACK}:{port}: {e.strerror or e}\n")
        return 1
    reader = Reader(paths, include_private, warn=_warn)
    try:
        room = reader.open_now()
    except OpenError as e:
        sock.close()
        sys.stderr.write(f"kb ui: {e}\n")
        return 1
    sys.stderr.write(
        start_line(port, room.memory.agent_count(), room.memory.entry_count(), include_private)
    )
    # What every verb that opens the bases warns about, after the address line
    for line in room.memory.warnings():
        _warn(line)
    sys.stderr.flush()
    cap = connection_cap()
    protocol = type("RoomProtocol", (GuardedH11,), {"cap": cap, "timeout": request_timeout()})
    config = uvicorn.Config(
        build_app(reader, secrets.token_hex(16)),
        host=LOOPBACK,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ws="none",
        http=protocol,  # a deadline per request and a cap on connections (kb.shell.ui.guard)
        proxy_headers=False,
        server_header=False,
        timeout_graceful_shutdown=2,
        timeout_keep_alive=5,
        # asyncio accepts up to `backlog` connections at a time before any of them reaches the
        # protocol (where one past the cap is closed): a small figure keeps a burst of
        # clients from taking every descriptor first (kb.shell.ui.guard)
        backlog=accept_burst(cap),
        # requests past the cap are closed at accept; this bounds the tasks behind them
        limit_concurrency=cap + 1,
        # a request line and headers arriving in pieces are held up to this much: the query
        # string's own bound (MAX_QUERY_BYTES, answered 414) plus room for the headers
        h11_max_incomplete_event_size=MAX_QUERY_BYTES + 16 * 1024,
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
        reader.close()
    return 0
