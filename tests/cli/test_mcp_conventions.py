"""MCP conventions, held by the SDK's own client against a real `kb serve`.

Every tool has a title, annotations and an output schema; every `structuredContent`
validates against its tool's `outputSchema` (jsonschema, Draft 2020-12) and says what the
text says; arguments carry their enums and bounds, and a value outside them is refused by
its JSON field's name; `initialize` negotiates the protocol version instead of echoing it.
The same checks run over streamable HTTP in tests/cli/test_mcp_http.py (`check_result`).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]

from kb.pure.fleet.listing import PROVENANCES, STAGES
from kb.pure.notes.paths import KINDS
from tests.cli.test_mcp import Raw
from tests.conftest import EXAMPLE_FLEET, RunKb, _copy

LATEST = "2025-11-25"  # the newest handshake version of mcp 2.3.0 (mcp_types.version)

# Each branch of each tool's output: a hit without a runner-up, a guess with one (beyond
# `top`), refusals, a claim with and without evidence, lists cut, empty and sorted.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("kb_route", {"question": "how often should I run a backup restore test"}),
    ("kb_route", {"question": "kubernetes rollout database", "top": 1}),
    ("kb_route", {"question": "how far away is the andromeda galaxy"}),
    ("kb_retrieve", {"question": "o certificado tls do staging expirou", "top": 2}),
    ("kb_retrieve", {"question": "kubernetes rollout database"}),
    ("kb_retrieve", {"question": "quillfeather contract"}),
    ("kb_remember", {"claim": "restore tests prove a backup works"}),
    ("kb_remember", {"claim": "zyzzyva quokka"}),
    ("kb_fleet", {}),
    ("kb_list", {"kind": "tools"}),
    ("kb_list", {"limit": 3}),
    ("kb_list", {"kind": "SKILLS", "sort": "title", "limit": 1.0}),
    ("kb_list", {"where": "no-such-key=1"}),
]


def check_result(tool: Any, arguments: dict[str, Any], text: str, data: Any) -> None:
    """`data` validates against the tool's outputSchema and carries the facts of `text`."""
    Draft202012Validator(tool.output_schema).validate(data)
    name = tool.name
    if name in ("kb_route", "kb_retrieve"):
        paths = [f"{r['base']}/{r['path']}" for r in data["results"]]
        assert data["question"] == arguments["question"]
        if name == "kb_route":  # the verdict first, in the line `kb route` prints
            assert text.startswith(f"verdict:  {data['verdict']}: ")
            text = text.split("\n\n", 1)[1]
        if not data["gate"]["served"]:
            assert paths == []
            question = arguments["question"]
            # "Nothing matched" only when nothing did; files the verdict refused are named so.
            if data["gate"]["ranked_by_text_only"]:
                assert text.startswith(f'No file covers enough of "{question}" to answer it.')
            else:
                assert text.startswith(f'Nothing matched "{question}".')
            assert all(line in text for line in data["shortfall"])
            assert all(s in text for s in data["suggestions"])
            return
        assert data["shortfall"] == []
        if name == "kb_route":
            listed = re.findall(r"^\d+\. (\S+)", text, re.M)
            assert all(r["passages"] == [] for r in data["results"])
        else:
            listed = [line[3:].split("  ")[0] for line in text.splitlines() if line[:3] == "## "]
            for r in data["results"]:
                assert all(f"### {p['heading_path']}" in text for p in r["passages"])
        assert listed == paths and paths
        words = {"hit": "something here matches", "guess": "a guess", "nothing": "nothing"}
        assert f"Verdict: {words[data['verdict']]}" in text
        no_runner_up = "there is no runner-up" in text
        assert no_runner_up == (data["confidence"]["margin"] is None)
        assert ("leads the runner-up by" in text) != no_runner_up
    elif name == "kb_remember":
        assert f"proposal: {data['proposal']}" in text
        assert all(f"{e['base']}/{e['path']}" in text for e in data["evidence"])
        assert ("Nothing in the base overlaps" in text) == (data["evidence"] == [])
    elif name == "kb_fleet":
        assert text.startswith(f"FLEET: {data['name']}\n")
        assert f"AGENTS: {len(data['agents'])}\n" in text
        assert all(f"- {a['name']}\n  root: {a['root']}\n" in text for a in data["agents"])
    elif name == "kb_list":
        rows = [f"{r['base']}/{r['path']}" for r in data["files"]]
        if data["total"] == 0:
            assert text.startswith("No file in the open bases") and rows == []
            return
        noun = "file" if data["total"] == 1 else "files"
        assert text.startswith(f"{data['total']} {noun}. Nothing here is ranked.")
        shown = text.split("\n\n")[1].splitlines()
        assert [r.split("  ")[0] for r in shown] == rows
        assert len(rows) == min(data["total"], data["limit"])
        assert (f"{data['not_shown']} more not shown" in text) == (data["not_shown"] > 0)
    else:
        raise AssertionError(f"no check for {name}")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _copy(EXAMPLE_FLEET, tmp_path_factory.mktemp("conventions") / "fleet")


@pytest.fixture(scope="module")
def served(fleet: Path) -> dict[str, Any]:
    """One stdio session through the SDK client: initialize, tools/list, every call."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def drive() -> dict[str, Any]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "kb.shell.cli.main", "serve", str(fleet)],
            env={"KB_MISSES_PATH": str(fleet / "misses.txt")},
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            tools = (await session.list_tools()).tools
            results = [await session.call_tool(n, a) for n, a in CALLS]
            return {"init": init, "tools": tools, "results": results}

    return anyio.run(drive)


def test_initialize_negotiates_and_instructs(served: dict[str, Any]) -> None:
    from kb.shell.mcp.mcp_server import CAPABILITIES

    init = served["init"]
    assert init.protocol_version == LATEST  # the SDK client asks for its newest
    assert init.capabilities.model_dump(by_alias=True, exclude_none=True) == CAPABILITIES
    assert init.instructions and "kb_route" in init.instructions
    assert "nothing" in init.instructions and "--all" in init.instructions
    assert init.server_info.name == "kb"


def test_every_tool_has_a_title_annotations_and_an_output_schema(served: dict[str, Any]) -> None:
    for tool in served["tools"]:
        assert tool.title and tool.annotations.title == tool.title
        hints = tool.annotations.model_dump(by_alias=True, exclude_none=True)
        assert {k: v for k, v in hints.items() if k != "title"} == {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        }
        Draft202012Validator.check_schema(tool.output_schema)
        Draft202012Validator.check_schema(tool.input_schema)
        assert tool.output_schema["type"] == "object"
    by_name = {t.name: t.input_schema["properties"] for t in served["tools"]}
    listing = by_name["kb_list"]
    assert listing["kind"]["enum"] == list(KINDS)
    assert listing["stage"]["enum"] == list(STAGES)
    assert listing["provenance"]["enum"] == list(PROVENANCES)
    assert {"where", "sort", "limit"} <= set(listing)
    assert (listing["limit"]["minimum"], listing["limit"]["maximum"]) == (1, 1000)
    for name in ("kb_route", "kb_retrieve"):
        assert (by_name[name]["top"]["minimum"], by_name[name]["top"]["maximum"]) == (1, 50)


def test_structured_content_validates_and_says_what_the_text_says(
    served: dict[str, Any],
) -> None:
    tools = {t.name: t for t in served["tools"]}
    for (name, arguments), result in zip(CALLS, served["results"], strict=True):
        assert result.is_error is False
        check_result(tools[name], arguments, result.content[0].text, result.structured_content)
    by_call = dict(zip((json.dumps(c) for c in CALLS), served["results"], strict=True))

    def data(name: str, arguments: dict[str, Any]) -> Any:
        return by_call[json.dumps((name, arguments))].structured_content

    # The branches are the ones the calls were chosen for.
    hit = data("kb_route", {"question": "how often should I run a backup restore test"})
    assert hit["verdict"] == "hit" and hit["confidence"]["margin"] is None
    guess = data("kb_route", {"question": "kubernetes rollout database", "top": 1})
    assert len(guess["results"]) == 1 and guess["confidence"]["margin"] is not None
    refused = data("kb_route", {"question": "how far away is the andromeda galaxy"})
    assert refused["verdict"] == "nothing" and refused["miss"]["recorded"]
    private = data("kb_retrieve", {"question": "quillfeather contract"})
    assert private["results"] == [] and "records/" not in json.dumps(private)
    assert data("kb_remember", {"claim": "zyzzyva quokka"})["evidence"] == []
    assert data("kb_list", {"limit": 3})["not_shown"] > 0
    assert data("kb_list", {"where": "no-such-key=1"})["total"] == 0


def test_structured_content_is_the_cli_json(served: dict[str, Any], fleet: Path, kb: RunKb) -> None:
    """kb_retrieve serves `kb route --json`, kb_list the `kb list --json` rows, kb_remember
    `kb remember --json`: the MCP adds `shortfall` and writes a margin with no runner-up as
    null (the CLI writes 1.0)."""
    env = {"KB_MISSES_PATH": str(fleet / "cli-misses.txt")}
    by_call = dict(zip((json.dumps(c) for c in CALLS), served["results"], strict=True))

    def data(name: str, arguments: dict[str, Any]) -> Any:
        return by_call[json.dumps((name, arguments))].structured_content

    q = "kubernetes rollout database"
    cli = json.loads(kb(["route", q, str(fleet), "--json"], env=env).stdout)
    mcp = data("kb_retrieve", {"question": q})
    cli["miss"] = mcp["miss"]  # none for a guess; the log path differs by environment
    assert {k: v for k, v in mcp.items() if k != "shortfall"} == cli
    q = "o certificado tls do staging expirou"
    cli = json.loads(kb(["route", q, str(fleet), "--top", "2", "--json"], env=env).stdout)
    mcp = data("kb_retrieve", {"question": q, "top": 2})
    assert mcp["confidence"]["margin"] is None and cli["confidence"]["margin"] == 1
    assert mcp["results"] == cli["results"] and mcp["verdict"] == cli["verdict"]
    rows = json.loads(kb(["list", str(fleet), "--json", "--kind", "tools"]).stdout)
    assert data("kb_list", {"kind": "tools"})["files"] == rows
    claim = "restore tests prove a backup works"
    cli = json.loads(kb(["remember", claim, str(fleet), "--json"]).stdout)
    assert data("kb_remember", {"claim": claim}) == cli


def test_an_empty_base_answers_in_shape(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.io.answering.memory import Memory
    from kb.shell.mcp.mcp_server import Server
    from kb.shell.mcp.mcp_tools import BY_TOOL

    (tmp_path / "fleet" / "solo").mkdir(parents=True)
    (tmp_path / "fleet.txt").write_text("name = Empty\n")
    (tmp_path / "fleet" / "solo" / "agent.txt").write_text("role = nobody yet\n")
    monkeypatch.setenv("KB_MISSES_PATH", str(tmp_path / "misses.txt"))
    with Memory.open([str(tmp_path)]) as memory:
        server = Server(memory, 5)
        for name, arguments in [
            ("kb_route", {"question": "anything at all"}),
            ("kb_retrieve", {"question": "anything at all"}),
            ("kb_list", {}),
            ("kb_fleet", {}),
        ]:
            reply = server.handle(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": name, "arguments": arguments},
                }
            )
            assert reply is not None
            result = reply["result"]
            data = result["structuredContent"]
            Draft202012Validator(BY_TOOL[name].output_schema).validate(data)
            if name in ("kb_route", "kb_retrieve"):
                text = result["content"][0]["text"]
                if name == "kb_route":  # the verdict first, then the empty-base text
                    assert text.startswith("verdict:  nothing: ")
                    text = text.split("\n\n", 1)[1]
                assert text.startswith("This base has no knowledge files")
                assert data["indexed"]["entries"] == 0 and data["results"] == []
                assert not data["gate"]["served"] and data["miss"] is None
    assert not (tmp_path / "misses.txt").exists()  # an empty base is not a miss


@pytest.fixture
def raw(example_fleet: Path) -> Iterator[Raw]:
    server = Raw(example_fleet)
    yield server
    if server.proc.poll() is None:
        server.close()


@pytest.mark.parametrize(
    ("params", "version"),
    [
        ({"protocolVersion": "2025-06-18"}, "2025-06-18"),
        ({"protocolVersion": "2024-11-05"}, "2024-11-05"),
        ({"protocolVersion": LATEST}, LATEST),
        ({"protocolVersion": "1999-01-01"}, LATEST),
        ({"protocolVersion": "2099-01-01"}, LATEST),
        ({"protocolVersion": 20250618}, LATEST),
        ({}, LATEST),
    ],
)
def test_stdio_negotiates_the_version(raw: Raw, params: dict[str, Any], version: str) -> None:
    reply = raw.ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    assert reply["result"]["protocolVersion"] == version


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("kb_list", {"kind": "bogus"}, 'kind must be one of memory, skills, tools (got "bogus")'),
        (
            "kb_list",
            {"stage": "final"},
            'stage must be one of raw, captured, distilled, derived (got "final")',
        ),
        (
            "kb_list",
            {"provenance": 3},
            "provenance must be a string (got 3)",
        ),
        ("kb_list", {"limit": 0}, "limit must be a whole number from 1 to 1000 (got 0)"),
        ("kb_list", {"limit": 1001}, "limit must be a whole number from 1 to 1000 (got 1001)"),
        ("kb_list", {"base": ["ada"]}, 'base must be a string (got ["ada"])'),
        ("kb_route", {"question": "backup", "top": 0}, "top must be a whole number from 1 to 50"),
        ("kb_route", {"question": "backup", "top": 51}, "top must be a whole number from 1 to 50"),
        ("kb_route", {"question": "backup", "top": 2.5}, "(got 2.5)"),
        ("kb_route", {"question": "backup", "top": "3"}, '(got "3")'),
        ("kb_retrieve", {"question": "backup", "top": True}, "(got true)"),
        ("kb_retrieve", {"question": "backup", "top": 1e300}, "(got 1e+300)"),
        ("kb_retrieve", {"question": "backup", "top": 10**400}, "(got 1000000000000000"),
        ("kb_retrieve", {"top": 0}, "missing or empty argument: question"),
        ("kb_list", {"where": "type=plan; status"}, "where takes key=value"),
        ("kb_list", {"sort": " . "}, "sort takes a field name"),
    ],
)
def test_errors_name_the_json_field(
    raw: Raw, tool: str, arguments: dict[str, Any], message: str
) -> None:
    reply = raw.ask(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
    )
    assert reply["error"]["code"] == -32602
    assert message in reply["error"]["message"]
    assert "--" not in reply["error"]["message"]  # no CLI spelling


def test_tools_project_their_verbs() -> None:
    """Every tool argument is a field of its verb's input (the flag the CLI spells `--x`),
    or is named MCP-only; the enums are the CLI's own legal sets."""
    import attrs

    from kb.shell.cli.table import BY_NAME
    from kb.shell.mcp.mcp_tools import TOOLS

    for t in TOOLS:
        fields = {a.name for a in attrs.fields(BY_NAME[t.verb].input_type)}
        extra = {a.name for a in t.args} - fields
        assert extra == set(t.mcp_only), (t.name, extra)


def test_the_evidence_line_says_when_there_is_no_runner_up() -> None:
    from kb.pure.answering.verdict import Confidence
    from kb.pure.render.mcptext import evidence_line

    c = Confidence("guess", 1, 12.0, 1.0, 17.5, 0.3)
    assert "it leads the runner-up by 1.00x" in evidence_line(c, True)
    alone = evidence_line(c, False)
    assert "runner-up by" not in alone
    assert "no other file scored on keywords, so there is no runner-up to lead." in alone
