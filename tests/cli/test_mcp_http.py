"""`kb serve --http` as a real subprocess, driven by the mcp SDK's streamable HTTP client.

One server (token from KB_MCP_TOKEN) serves the module; its answers are compared with the
stdio server's on the same copy of the example fleet, tool by tool, text by text.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.cli.test_mcp_conventions import check_result
from tests.conftest import EXAMPLE_FLEET, _copy

TOKEN = "test-token-Zx81"
TOOLS = ["kb_route", "kb_retrieve", "kb_remember", "kb_fleet", "kb_list"]
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("kb_route", {"question": "how often should I run a backup restore test"}),
    ("kb_route", {"question": "how far away is the andromeda galaxy"}),
    ("kb_retrieve", {"question": "o certificado tls do staging expirou", "top": 2}),
    ("kb_retrieve", {"question": "quillfeather contract"}),
    ("kb_remember", {"claim": "restore tests prove a backup works"}),
    ("kb_fleet", {}),
    ("kb_list", {"kind": "tools"}),
    ("kb_list", {"limit": 3}),
]
BAD_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("kb_route", {"question": "   "}),
    ("kb_list", {"stage": "final"}),
    ("kb_nope", {}),
]
INIT: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _copy(EXAMPLE_FLEET, tmp_path_factory.mktemp("http") / "fleet")


def _env(fleet: Path) -> dict[str, str]:
    return {
        "KB_MISSES_PATH": str(fleet / "misses.txt"),
        "KB_MCP_TOKEN": TOKEN,
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }


@pytest.fixture(scope="module")
def url(fleet: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kb.shell.cli.main",
            "serve",
            str(fleet),
            "--http",
            "--port",
            str(port),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(fleet),
    )
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if "bearer token" in line:
            break
    assert any("Ready on http://127.0.0.1:" in x for x in lines), "".join(lines)
    assert lines[-1] == "kb serve: bearer token from KB_MCP_TOKEN\n"  # never echoed
    drain = threading.Thread(target=lambda: lines.extend(proc.stderr or ()), daemon=True)
    drain.start()
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
        drain.join(timeout=5)
        assert proc.returncode == 0, "".join(lines)
        assert out == ""
        assert "Traceback" not in "".join(lines)
        assert TOKEN not in "".join(lines)


def _post(url: str, headers: dict[str, str]) -> Any:
    import httpx2

    return httpx2.post(url, json=INIT, headers={**ACCEPT, **headers}, timeout=10)


def test_no_token_is_401(url: str) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        reply = _post(url, headers)
        assert reply.status_code == 401
        assert reply.headers["www-authenticate"] == "Bearer"
        assert "Authorization: Bearer <token>" in reply.text


def test_foreign_origin_is_403(url: str) -> None:
    right = {"Authorization": f"Bearer {TOKEN}"}
    for origin in ("http://evil.example", "null", "http://localhost.evil.example:80"):
        assert _post(url, {**right, "Origin": origin}).status_code == 403
    assert _post(url, {"Origin": "http://evil.example"}).status_code == 403  # before the token
    for origin in ("http://localhost:5173", "http://127.0.0.1", "https://localhost"):
        reply = _post(url, {**right, "Origin": origin})
        assert reply.status_code == 200
        assert reply.json()["result"]["serverInfo"]["name"] == "kb"


Driven = dict[str, Any]


async def _drive(session: Any) -> Driven:
    init = await session.initialize()
    tools = (await session.list_tools()).tools
    by_name = {t.name: t for t in tools}
    texts, data = [], []
    for name, arguments in CALLS:
        result = await session.call_tool(name, arguments)
        assert result.is_error is False
        texts.append(result.content[0].text)
        data.append(result.structured_content)
        check_result(by_name[name], arguments, texts[-1], data[-1])
    errors = []
    for name, arguments in BAD_CALLS:
        from mcp.shared.exceptions import MCPError

        with pytest.raises(MCPError) as caught:
            await session.call_tool(name, arguments)
        errors.append((caught.value.code, caught.value.message))
    return {"init": init, "tools": tools, "texts": texts, "data": data, "errors": errors}


def _over_http(url: str, token: str | None) -> Driven:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def run() -> Driven:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with (
            create_mcp_http_client(headers=headers) as client,
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            return await _drive(session)

    return anyio.run(run)


def _over_stdio(fleet: Path) -> Driven:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def run() -> Driven:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "kb.shell.cli.main", "serve", str(fleet)],
            env={"KB_MISSES_PATH": str(fleet / "misses.txt")},
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await _drive(session)

    return anyio.run(run)


def test_the_five_tools_answer_as_over_stdio(url: str, fleet: Path) -> None:
    http = _over_http(url, TOKEN)
    texts, errors = http["texts"], http["errors"]
    assert [t.name for t in http["tools"]] == TOOLS
    stdio = _over_stdio(fleet)
    # One definition of what `initialize` says (capabilities, instructions, the version
    # negotiated), of the tools, and of every answer, text and structured alike.
    assert http["init"].model_dump() == stdio["init"].model_dump()
    assert [t.model_dump() for t in http["tools"]] == [t.model_dump() for t in stdio["tools"]]
    assert texts == stdio["texts"]
    assert http["data"] == stdio["data"]
    assert errors == stdio["errors"]
    assert errors[0] == (-32602, "missing or empty argument: question")
    # The private layer stays out, as over stdio: the contract lives in records/.
    assert texts[3].startswith('Nothing matched "quillfeather contract".')
    assert "1. ada/knowledge/backups.md" in texts[0]


@pytest.mark.parametrize(
    ("asked", "given"),
    [("2025-06-18", "2025-06-18"), ("1999-01-01", "2025-11-25"), ("2099-01-01", "2025-11-25")],
)
def test_http_negotiates_as_stdio_does(url: str, asked: str, given: str) -> None:
    import httpx2

    from kb.shell.mcp.mcp_server import initialize_result

    init = {**INIT, "params": {**INIT["params"], "protocolVersion": asked}}
    headers = {**ACCEPT, "Authorization": f"Bearer {TOKEN}"}
    result = httpx2.post(url, json=init, headers=headers, timeout=10).json()["result"]
    assert result["protocolVersion"] == given
    assert result == initialize_result(asked)


def test_the_sdk_client_without_the_token_is_refused(url: str) -> None:
    from mcp.shared.exceptions import MCPError

    with pytest.raises(BaseException) as caught:
        _over_http(url, None)
    found: list[BaseException] = [caught.value]
    while found and not any(isinstance(e, MCPError) for e in found):
        group = [e for e in found if isinstance(e, BaseExceptionGroup)]
        found = [x for g in group for x in g.exceptions]
    assert found, caught.value


def test_loopback_only() -> None:
    from kb.shell.mcp.mcp_http import HOST, listen

    sock = listen(0)
    try:
        assert sock.getsockname()[0] == HOST == "127.0.0.1"
    finally:
        sock.close()
    refused = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "serve", "--http", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2
    assert "--host" in refused.stderr


def test_startup_refusals(tmp_path: Path) -> None:
    def serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "kb.shell.cli.main", "serve", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": os.environ.get("PATH", ""), **(env or {})},
        )

    blank = serve("--http", "--port", "0", env={"KB_MCP_TOKEN": " "})
    assert blank.returncode == 2
    assert blank.stderr.startswith("kb serve: KB_MCP_TOKEN is set but blank")
    assert serve("--port", "5000").returncode == 2
    assert serve("--http", "--port", "65536").returncode == 2
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
        taken = serve(str(fleet), "--http", "--port", str(busy.getsockname()[1]))
    assert taken.returncode == 1
    assert taken.stderr.startswith("kb serve: cannot listen on 127.0.0.1:")
