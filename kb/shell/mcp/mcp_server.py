"""`kb serve`: the Model Context Protocol over stdio, newline-delimited JSON-RPC 2.0.

The loop is ours rather than the SDK's server class, because the protocol rules kb keeps
differ from it (measured again on mcp 2.3.0, decision 0020): `initialize` is answered but
never required, an unparseable line gets -32700 instead of silence, `"id": null` is
answered, and notifications are never answered. What a client learns at `initialize` is
defined once here and served unchanged over HTTP (kb.shell.mcp.mcp_http): the capabilities,
the instructions, and the protocol version, negotiated by the SDK's own rule over the
SDK's own list of versions. The SDK's client drives the end-to-end tests.

stdout carries protocol messages only; everything a person should see goes to stderr.
"""

from __future__ import annotations

import json
import math
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any

from kb.io.answering.live import LiveMemory
from kb.io.answering.memory import Memory, OpenError
from kb.pure.notes.plural import counted
from kb.pure.render.mcptext import INSTRUCTIONS
from kb.shell.mcp.mcp_tools import BY_TOOL, TOOLS, ToolError
from kb.version import __version__

MAX_DEPTH = 64
# What the server offers: tools, and a list that never changes while it runs. The SDK
# derives the same from a server with tool handlers; kb.shell.mcp.mcp_http serves this one.
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": False}}


class ParseError(Exception):
    pass


def _depth(value: Any, level: int = 1) -> int:
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level)
    return level


def _no_lone_surrogates(value: Any) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ParseError("lone surrogate in a string") from e
    elif isinstance(value, dict):
        for k, v in value.items():
            _no_lone_surrogates(k)
            _no_lone_surrogates(v)
    elif isinstance(value, list):
        for v in value:
            _no_lone_surrogates(v)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is past what a double holds")
    return value


def parse_line(line: str) -> Any:
    try:
        # Strict JSON: NaN and Infinity are not JSON, and a number past a double (1e400)
        # would come back as inf and be echoed as `Infinity`, which no client can parse.
        value = json.loads(line, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError as e:
        raise ParseError(f"nesting deeper than {MAX_DEPTH}") from e
    except ValueError as e:
        raise ParseError(str(e)) from e
    if _depth(value) > MAX_DEPTH:
        raise ParseError(f"nesting deeper than {MAX_DEPTH}")
    _no_lone_surrogates(value)
    return value


def _error(id_: Any, code: int, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}, "id": id_, "jsonrpc": "2.0"}


def _result(id_: Any, result: Any) -> dict[str, Any]:
    return {"id": id_, "jsonrpc": "2.0", "result": result}


def tools_list() -> dict[str, Any]:
    return {"tools": [t.descriptor() for t in TOOLS]}


def negotiate(requested: Any) -> str:
    """The protocol version to answer `initialize` with: the client's when the server
    speaks it, else the newest the server speaks (the handshake rule of the MCP spec). The
    versions are the SDK's handshake versions, so stdio and HTTP agree by construction."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    return requested if requested in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION


def initialize_result(requested: Any) -> dict[str, Any]:
    return {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": negotiate(requested),
        "serverInfo": {"name": "kb", "version": __version__},
    }


class Server:
    """Answers MCP messages from one open Memory; given a LiveMemory, from whatever it holds
    at each call (the fleet opened again when the disk changed, kb.io.answering.live)."""

    def __init__(self, memory: Memory, top: int, live: LiveMemory | None = None) -> None:
        self._memory = memory
        self.live = live
        self.top = top

    @property
    def memory(self) -> Memory:
        return self.live.current() if self.live is not None else self._memory

    def handle(self, message: Any) -> dict[str, Any] | None:
        """One reply for one message, or None for a notification."""
        if not isinstance(message, dict):
            return _error(None, -32600, "no method")
        is_request = "id" in message
        id_ = message.get("id")
        method = message.get("method")
        if not isinstance(method, str):
            return _error(id_, -32600, "no method") if is_request else None
        if not is_request:
            return None
        params = message.get("params")
        params = params if isinstance(params, Mapping) else {}
        if method == "initialize":
            return _result(id_, initialize_result(params.get("protocolVersion")))
        if method == "ping":
            return _result(id_, {})
        if method == "tools/list":
            return _result(id_, tools_list())
        if method == "tools/call":
            return self._call(id_, params)
        return _error(id_, -32601, f"unknown method: {method}")

    def _call(self, id_: Any, params: Mapping[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str) or not name:
            return _error(id_, -32602, "tools/call needs a name")
        tool = BY_TOOL.get(name)
        if tool is None:
            return _error(id_, -32602, f"unknown tool: {name}")
        arguments = params.get("arguments")
        arguments = arguments if isinstance(arguments, Mapping) else {}
        try:
            reply = tool.handler(self.memory, arguments, self.top)
        except ToolError as e:
            return _error(id_, -32602, str(e))
        return _result(
            id_,
            {
                "content": [{"text": reply.text, "type": "text"}],
                "isError": False,
                "structuredContent": reply.data,
            },
        )


def dumps_line(reply: Mapping[str, Any]) -> str:
    # json.dumps escapes newlines inside strings, so a reply is always one physical line;
    # allow_nan=False keeps it strict JSON (a reply that cannot be becomes an error).
    try:
        text = json.dumps(
            reply, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False
        )
    except ValueError:
        text = json.dumps(_error(None, -32603, "the reply was not representable as JSON"))
    return text + "\n"


def banner(memory: Memory, include_private: bool, where: str) -> str:
    """The start-up lines on stderr, shared by the stdio and the HTTP transports."""
    out = ""
    if memory.index_was_rebuilt:
        out += (
            "kb serve: an index predated the private column (ADR-0034) and was emptied.\n"
            "    Run `kb index` before relying on retrieval.\n"
        )
    # What every verb that opens the bases warns about (a look-alike of a private folder, a
    # `private =` line naming nothing, a folder or index that cannot be read), said here too.
    out += "".join(f"kb serve: {w}\n" for w in memory.warnings())
    for b in memory.bases:
        extra = "  (private layer INCLUDED)" if include_private else ""
        out += f"kb serve: {b.snapshot.agent_name} ({b.snapshot.given}){extra}\n"
    scope = "All" if include_private else "Public"
    return out + (
        f"kb serve: {counted(memory.entry_count(), 'map entry', 'map entries')}, "
        f"{counted(memory.alias_count(), 'alias', 'aliases')}, "
        f"scope {scope}. Ready on {where}\n"
    )


def open_live(
    paths: list[str], include_private: bool, stderr: IO[str]
) -> tuple[Memory, LiveMemory] | None:
    """The fleet as both transports serve it: opened, warming in the background, watched;
    None once the reason it cannot be opened is on `stderr`."""
    try:
        memory = Memory.open(paths, all=include_private, warm=True)
    except OpenError as e:
        stderr.write(f"kb serve: {e}\n")
        return None
    return memory, LiveMemory(memory, watch=True, warn=warner(stderr))


def warner(stderr: IO[str]) -> Callable[[str], None]:
    """What a served fleet does with a warning a re-open brings: one `kb serve:` line."""

    def warn(line: str) -> None:
        try:
            stderr.write(f"kb serve: {line}\n")
            stderr.flush()
        except (OSError, ValueError):
            pass  # a closed stderr must not stop the server

    return warn


def serve(
    paths: list[str],
    top: int,
    include_private: bool,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    # Before anything it makes: a SIGTERM from here on ends it through the clean-up below
    # (the watcher's cookie folder appears while the fleet opens).
    stop = _TermStop()
    try:
        opened = open_live(paths, include_private, stderr)
        if opened is None:
            return 1
        memory, live = opened
        try:
            stderr.write(banner(memory, include_private, "stdio."))
            stderr.flush()
            server = Server(memory, top, live)
            # Bytes, when the stream has them: a line that is not UTF-8 is then a parse
            # error like any other, not a UnicodeDecodeError out of the loop (how a text
            # stdin decodes depends on the locale).
            for raw in stop.reading(bounded_lines(getattr(stdin, "buffer", stdin))):
                reply = answer_line(server, raw)
                if reply is None:
                    continue
                try:
                    stdout.write(reply)
                    stdout.flush()
                except OSError:
                    return 1
        except _Terminated:
            pass
        finally:
            live.close()
    finally:
        stop.restore()
    return 0


class _Terminated(Exception):
    """SIGTERM arrived while the server waited for its next line."""


class _TermStop:
    """SIGTERM (how a host stops a server it started) ends `serve` as a closed stdin does:
    the watcher stopped, its temp folder removed, exit 0. Python's default ends the process
    where it stands, and every stopped server left its cookie folder in the temp folder.
    A signal that lands while a line is being answered waits for that answer to be written
    (a verb may be writing the miss log); one that lands while the server waits for a line
    ends the wait. Only the main thread may set a handler: elsewhere nothing changes."""

    def __init__(self) -> None:
        self.waiting = False
        self.asked = False
        self._installed = threading.current_thread() is threading.main_thread()
        self._previous: Any = signal.SIG_DFL
        if self._installed:
            self._previous = signal.signal(signal.SIGTERM, self._on_term)

    def _on_term(self, _signum: int, _frame: object) -> None:
        self.asked = True
        if self.waiting:
            raise _Terminated

    def reading(self, lines: Iterator[bytes]) -> Iterator[bytes]:
        """`lines`, stopping at the first SIGTERM: at once while waiting, else once the line
        in hand is answered."""
        while not self.asked:
            self.waiting = True
            try:
                if self.asked:
                    return
                raw = next(lines, None)
            finally:
                self.waiting = False
            if raw is None:
                return
            yield raw

    def restore(self) -> None:
        if self._installed:
            # None: a handler set outside Python, which Python cannot put back; the default
            signal.signal(signal.SIGTERM, self._previous or signal.SIG_DFL)
            self._installed = False


# One JSON-RPC message is one line; a line past this is not read into memory whole: it is
# skipped to its end and answered with a parse error. A question is read up to 2,000
# characters anyway (tokens.MAX_QUESTION_CHARS); 8 MiB leaves room for any real call.
MAX_LINE_BYTES = 8 * 1024 * 1024
TOO_LONG = b"\x00kb: line too long\x00"


def bounded_lines(stream: Any) -> Iterator[Any]:
    """The stream's lines, each at most `MAX_LINE_BYTES`; a longer one is drained in pieces
    and yielded as `TOO_LONG`, which `answer_line` answers with -32700."""
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_LINE_BYTES and not line.endswith(
            b"\n" if isinstance(line, bytes) else "\n"
        ):
            while True:
                rest = stream.readline(MAX_LINE_BYTES)
                if not rest or rest.endswith(b"\n" if isinstance(rest, bytes) else "\n"):
                    break
            yield TOO_LONG
            continue
        yield line


def answer_line(server: Server, raw: str | bytes) -> str | None:
    """The reply line (with its newline) to one line read from the client, or None when
    nothing is owed (a blank line, a notification). Every line gets a JSON-RPC result or
    error; bytes that are not UTF-8 or JSON are -32700."""
    if raw == TOO_LONG:
        return dumps_line(_error(None, -32700, f"parse error: a line past {MAX_LINE_BYTES} bytes"))
    text = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw
    line = text.strip(" \t\r\n")  # JSON's whitespace: a line of `\x1c` is not blank
    if not line:
        return None
    try:
        message = parse_line(line)
    except ParseError as e:
        reply: dict[str, Any] | None = _error(None, -32700, f"parse error: {e}")
    else:
        reply = server.handle(message)
    return None if reply is None else dumps_line(reply)
