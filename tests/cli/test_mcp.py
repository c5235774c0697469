"""`kb serve` as a real subprocess: driven by the mcp SDK's own client, and by raw lines."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import RunKb

TOOLS = ["kb_route", "kb_retrieve", "kb_remember", "kb_fleet", "kb_list"]


def test_sdk_client_lists_and_calls_every_tool(example_fleet: Path) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    texts: dict[str, str] = {}

    async def drive() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "kb.shell.cli.main", "serve", str(example_fleet)],
            env={"KB_MISSES_PATH": str(example_fleet / "misses.txt")},
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = [t.name for t in (await session.list_tools()).tools]
            calls: dict[str, dict[str, Any]] = {
                "kb_route": {"question": "how often should I run a backup restore test"},
                "kb_retrieve": {"question": "o certificado tls do staging expirou", "top": 2},
                "kb_remember": {"claim": "restore tests prove a backup works"},
                "kb_fleet": {},
                "kb_list": {"kind": "tools"},
            }
            for name, arguments in calls.items():
                result = await session.call_tool(name, arguments)
                texts[name] = result.content[0].text  # type: ignore[union-attr]
            return names

    names = anyio.run(drive)
    assert names == TOOLS
    assert texts["kb_route"].startswith("verdict:  hit: ")
    assert "\n\nFiles to open for: how often should I run" in texts["kb_route"]
    assert "EVIDENCE: the top file covers" in texts["kb_route"]
    assert "Verdict: something here matches." in texts["kb_route"]
    assert "1. ada/knowledge/backups.md" in texts["kb_route"]
    assert "## ada/inbox/2026-11-20-session.md" in texts["kb_retrieve"]
    assert "[short memory: recent, not distilled, not yet in the library]" in texts["kb_retrieve"]
    assert "proposal: " in texts["kb_remember"]
    assert texts["kb_remember"].endswith("separate, deliberate act.")
    assert texts["kb_fleet"].startswith("FLEET: ")
    assert texts["kb_list"].startswith("1 file. Nothing here is ranked.")


class Raw:
    def __init__(self, fleet: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kb.shell.cli.main", "serve", str(fleet), *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={"KB_MISSES_PATH": str(fleet / "misses.txt"), "PATH": "/usr/bin:/bin"},
        )

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def ask(self, message: dict[str, Any] | str) -> dict[str, Any]:
        self.send(message if isinstance(message, str) else json.dumps(message))
        assert self.proc.stdout is not None
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return reply

    def close(self) -> tuple[str, str, int]:
        out, err = self.proc.communicate(timeout=30)
        return out, err, self.proc.returncode


@pytest.fixture
def raw(example_fleet: Path) -> Iterator[Raw]:
    server = Raw(example_fleet)
    yield server
    if server.proc.poll() is None:  # a test that did not close it leaves no server behind
        server.close()


def test_handshake_rules(raw: Raw) -> None:
    listed = raw.ask({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert [t["name"] for t in listed["result"]["tools"]] == TOOLS
    schema = listed["result"]["tools"][0]["inputSchema"]
    assert schema["required"] == ["question"]
    assert schema["properties"]["top"]["type"] == "integer"
    # A version the server does not speak (or none) is answered with the newest it does;
    # tests/cli/test_mcp_conventions.py holds the whole negotiation.
    init = raw.ask({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {}})
    assert init["result"]["protocolVersion"] == "2025-11-25"
    assert init["result"]["serverInfo"]["name"] == "kb"
    unknown = raw.ask(
        {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "X"}}
    )
    assert unknown["result"]["protocolVersion"] == "2025-11-25"
    spoken = raw.ask(
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18"},
        }
    )
    assert spoken["result"]["protocolVersion"] == "2025-06-18"
    raw.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    raw.send(json.dumps({"jsonrpc": "2.0", "method": "no/such/notification"}))
    assert raw.ask({"jsonrpc": "2.0", "id": None, "method": "ping"}) == {
        "id": None,
        "jsonrpc": "2.0",
        "result": {},
    }


@pytest.mark.parametrize(
    ("line", "code", "fragment"),
    [
        ("this is not json", -32700, "parse error"),
        ('{"jsonrpc":"2.0","id":1,"method":"x"} trailing', -32700, "parse error"),
        ('{"jsonrpc":"2.0","id":1,"method":"a\\ud800"}', -32700, "parse error"),
        ("[" * 70 + "]" * 70, -32700, "parse error"),
        ('{"jsonrpc":"2.0","id":7}', -32600, "no method"),
        ('{"jsonrpc":"2.0","id":7,"method":"frobnicate"}', -32601, "unknown method: frobnicate"),
        ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}', -32602, "needs a name"),
        (
            '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"kb_nope"}}',
            -32602,
            "unknown tool: kb_nope",
        ),
        (
            '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"kb_route",'
            '"arguments":{"question":"   "}}}',
            -32602,
            "missing or empty argument: question",
        ),
        (
            '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"kb_list",'
            '"arguments":{"stage":"final"}}}',
            -32602,
            "stage must be one of raw, captured, distilled, derived",
        ),
    ],
)
def test_errors_keep_the_server_serving(raw: Raw, line: str, code: int, fragment: str) -> None:
    reply = raw.ask(line)
    assert reply["error"]["code"] == code
    assert fragment in reply["error"]["message"]
    assert raw.ask({"jsonrpc": "2.0", "id": 99, "method": "ping"})["result"] == {}
    out, err, status = raw.close()
    assert out == "" and status == 0
    assert "Traceback" not in err


def test_stdout_carries_only_json_rpc(raw: Raw) -> None:
    raw.send("")
    raw.send(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "kb_route",
                    "arguments": {"question": "how far away is the andromeda galaxy"},
                },
            }
        )
    )
    raw.send(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "kb_list", "arguments": {"limit": 2}},
            }
        )
    )
    out, err, status = raw.close()
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == 2
    replies = [json.loads(line) for line in lines]
    verdict, refusal = replies[0]["result"]["content"][0]["text"].split("\n\n", 1)
    assert verdict.startswith("verdict:  nothing: ")
    assert refusal.startswith('Nothing matched "how far away is the andromeda galaxy".')
    assert (
        "more not shown. Narrow the facets, or raise limit."
        in (replies[1]["result"]["content"][0]["text"])
    )
    assert "Ready on stdio." in err


def test_private_layer_only_with_all(example_fleet: Path) -> None:
    public = Raw(example_fleet)
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "kb_retrieve", "arguments": {"question": "quillfeather contract"}},
    }
    hidden = public.ask(call)["result"]["content"][0]["text"]
    public.close()
    assert "records/" not in hidden
    assert hidden.startswith('Nothing matched "quillfeather contract".')
    everything = Raw(example_fleet, "--all")
    shown = everything.ask(call)["result"]["content"][0]["text"]
    everything.close()
    assert "ada/records/quillfeather-contract.md" in shown


def test_tools_and_cli_verbs_agree(example_fleet: Path, kb: RunKb) -> None:
    """Every tool projects a CLI verb, and both surfaces give the same answer."""
    from kb.shell.cli.table import BY_NAME
    from kb.shell.mcp.mcp_tools import TOOLS as TOOL_TABLE

    assert all(t.verb in BY_NAME for t in TOOL_TABLE)
    server = Raw(example_fleet)

    def call(name: str, arguments: dict[str, Any]) -> str:
        reply = server.ask(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        text: str = reply["result"]["content"][0]["text"]
        return text

    env = {"KB_MISSES_PATH": str(example_fleet / "misses.txt")}
    q = "how often should I run a backup restore test"
    route_run = kb(["route", q, "--json"], cwd=example_fleet, env=env)
    assert route_run.code == 0, route_run.stderr
    routed = json.loads(route_run.stdout)
    retrieved = call("kb_retrieve", {"question": q})
    order = [line[3:].split("  ")[0] for line in retrieved.splitlines() if line.startswith("## ")]
    assert order == [f"{r['base']}/{r['path']}" for r in routed["results"]]
    route_text = call("kb_route", {"question": q})
    listed = re.findall(r"^\d+\. (\S+)", route_text, re.M)
    assert listed == [f"{r['base']}/{r['path']}" for r in routed["results"]]
    assert call("kb_fleet", {}) == kb(["fleet", str(example_fleet)]).stdout
    listed = json.loads(kb(["list", "--json", "--kind", "skills"], cwd=example_fleet).stdout)
    tool_rows = call("kb_list", {"kind": "skills"}).split("\n\n", 1)[1].splitlines()
    assert [r.split("  ")[0] for r in tool_rows] == [f"{r['base']}/{r['path']}" for r in listed]
    claim = "restore tests prove a backup works"
    remembered = json.loads(kb(["remember", claim, "--json"], cwd=example_fleet).stdout)
    assert f"proposal: {remembered['proposal']}" in call("kb_remember", {"claim": claim})
    server.close()
