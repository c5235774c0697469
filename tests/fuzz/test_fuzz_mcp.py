"""Fuzz: the MCP server's line handler (kb.shell.mcp.mcp_server.answer_line), the function the stdio
loop calls for every line a client sends, over a real opened Memory of the example fleet.

Every line gets exactly one JSON-RPC reply line (a result or an error with a standard code),
or nothing for a notification or a blank line; never an exception, whatever the bytes.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from kb.io.answering.memory import Memory
from kb.io.notes.indexer import index_bases
from kb.shell.mcp.mcp_server import Server, answer_line
from tests.conftest import EXAMPLE_FLEET
from tests.fuzz.hostile import no_hang, raw_text

CODES = {-32700, -32600, -32601, -32602}
TOOLS = ("kb_route", "kb_retrieve", "kb_remember", "kb_fleet", "kb_list")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("mcp") / "fleet"
    shutil.copytree(EXAMPLE_FLEET, root, ignore=shutil.ignore_patterns(".kb", "kb-misses.txt*"))
    # Indexed with the private layer, served without it: the ranking then widens its window
    # past private rows, a path the public index alone never takes.
    index_bases([str(root)], True)
    saved = os.environ.get("KB_MISSES_PATH")
    os.environ["KB_MISSES_PATH"] = str(root.parent / "misses.txt")
    memory = Memory.open([str(root)], all=False)
    try:
        yield Server(memory, 5)
    finally:
        memory.close()
        if saved is None:
            os.environ.pop("KB_MISSES_PATH", None)
        else:
            os.environ["KB_MISSES_PATH"] = saved


numbers = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from((0, 1, 5, 10**30, -1, 2**63, 2**64, 10**400)),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=5),
)
json_scalars = st.one_of(st.none(), st.booleans(), numbers, raw_text(max_size=60))


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=3) | st.dictionaries(raw_text(max_size=8), inner, max_size=3)


json_values = st.recursive(json_scalars, _containers, max_leaves=10)
texts = st.one_of(
    raw_text(max_size=80),
    st.sampled_from(
        (
            "how often should I run a backup restore test",
            "o certificado tls do staging expirou",
            "status=done; tags=infra",
            "a.b.c=",
            "=x",
            ";;;",
            '"',
            "NEAR(a b)",
            "* OR -",
        )
    ),
)
arguments = st.fixed_dictionaries(
    {},
    optional={
        "question": texts | json_values,
        "claim": texts | json_values,
        "top": numbers,
        "limit": numbers,
        "where": texts,
        "sort": texts,
        "base": texts,
        "folder": texts,
        "kind": st.sampled_from(("memory", "skills", "tools", "MEMORY", "")) | texts,
        "stage": st.sampled_from(("raw", "captured", "distilled", "derived")) | texts,
        "provenance": st.sampled_from(("human", "agent", "external")) | texts,
    },
)
ids = st.one_of(st.integers(), st.text(max_size=8), st.none(), st.floats(), json_values)
methods = st.sampled_from(
    ("initialize", "ping", "tools/list", "tools/call", "notifications/initialized", "x/y", "")
) | raw_text(max_size=15)


@st.composite
def messages(draw: st.DrawFn) -> Any:
    """A JSON-RPC message, mostly well formed, sometimes not at all."""
    message: dict[str, Any] = {}
    if draw(st.integers(0, 9)):
        message["jsonrpc"] = draw(st.sampled_from(("2.0", "1.0", 2)))
    if draw(st.integers(0, 4)):
        message["id"] = draw(ids)
    if draw(st.integers(0, 9)):
        message["method"] = draw(methods | json_values)
    kind = draw(st.integers(0, 4))
    if kind == 0:
        message["params"] = draw(json_values)
    elif kind in (1, 2, 3):
        message["method"] = "tools/call"
        params: dict[str, Any] = {"name": draw(st.sampled_from(TOOLS) | raw_text(max_size=10))}
        if draw(st.integers(0, 5)):
            params["arguments"] = draw(arguments | json_values)
        message["params"] = params
    return message if draw(st.integers(0, 9)) else draw(json_values)


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    """One line as the client's bytes: JSON (valid or cut short), or raw bytes."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.binary(max_size=200)).replace(b"\n", b" ")
    if kind == 1:
        depth = draw(st.integers(1, 3000))
        return b'{"jsonrpc":"2.0","id":1,"method":"ping","params":' + b"[" * depth + b"]" * depth
    text = json.dumps(draw(messages()), ensure_ascii=draw(st.booleans()))
    if kind == 2:
        text = text[: draw(st.integers(0, len(text)))]
    data = text.encode("utf-8", "surrogatepass")  # JSON may carry a lone surrogate raw
    if kind == 3 and data:
        at = draw(st.integers(0, len(data)))
        data = (
            data[:at] + draw(st.sampled_from((b"\xff", b"\x00", b"\xc3", b"\r", b"\t"))) + data[at:]
        )
    return data


def _is_notification(line: bytes) -> bool:
    try:
        value = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    # retrieval-core.md §19.2: a message without an `id` key is never answered.
    return isinstance(value, dict) and "id" not in value


@given(line=lines(), as_text=st.booleans())
@example(
    line=b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"kb_route",'
    b'"arguments":{"question":"backup","top":1e300}}}',
    as_text=False,
)
@example(line=b"\xff\xfe{}", as_text=False)
@example(line=b"\x1c", as_text=False)  # not JSON whitespace: a parse error, not a blank line
def test_every_line_gets_one_reply(server: Server, line: bytes, as_text: bool) -> None:
    raw: str | bytes = line.decode("utf-8", "surrogateescape") if as_text else line
    with no_hang():
        reply = answer_line(server, raw)
    if reply is None:
        assert not line.strip(b" \t\r\n") or _is_notification(line), line
        return
    assert reply.endswith("\n") and reply.count("\n") == 1
    reply.encode("utf-8")  # writable to any stdout
    payload = json.loads(reply)
    assert payload["jsonrpc"] == "2.0" and "id" in payload
    assert ("result" in payload) != ("error" in payload)
    if "error" in payload:
        assert payload["error"]["code"] in CODES and payload["error"]["message"]
    else:
        result = payload["result"]
        assert isinstance(result, dict)
        if "content" in result:
            assert result["isError"] is False and isinstance(result["content"][0]["text"], str)


@given(message=messages())
def test_handler_is_deterministic(server: Server, message: Any) -> None:
    line = json.dumps(message)
    with no_hang():
        first = answer_line(server, line)
        second = answer_line(server, line)
    if first is not None and second is not None and "tools/call" not in line:
        assert json.loads(first) == json.loads(second) or _nan_in(first)


def _nan_in(reply: str) -> bool:
    def walk(v: Any) -> bool:
        if isinstance(v, float):
            return math.isnan(v)
        if isinstance(v, dict):
            return any(walk(x) for x in v.values())
        if isinstance(v, list):
            return any(walk(x) for x in v)
        return False

    return walk(json.loads(reply))


def test_fixture_fleet_answers(server: Server) -> None:
    line = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"kb_route",'
        '"arguments":{"question":"how often should I run a backup restore test"}}}'
    )
    reply = json.loads(answer_line(server, line) or "{}")
    assert "ada/knowledge/backups.md" in reply["result"]["content"][0]["text"]
    assert Path(os.environ["KB_MISSES_PATH"]).parent.is_dir()
