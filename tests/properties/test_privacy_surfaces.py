"""The private layer across the other surfaces: MCP tools, remember, check and fleet.

Same generated fleets and marker as test_privacy.py; here every MCP tool is called
in-process through the server's own dispatcher, and the other read verbs run through the
CLI projection.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kb.io.memory import Memory
from kb.shell.main import run
from kb.shell.mcp_server import Server
from tests.properties.strategies import (
    NOTE_STEMS,
    FleetSpec,
    NoteSpec,
    add_private_note,
    expected_files,
    fleets,
    markers,
    notes,
    with_marker,
    write_fleet,
)
from tests.properties.test_privacy import assert_no_leak, forced


def _call(server: Server, name: str, arguments: dict[str, object]) -> str:
    reply = server.handle(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
    )
    assert reply is not None and "result" in reply, reply
    text: str = reply["result"]["content"][0]["text"]
    return text


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(fleet=fleets(), marker=markers, extra=notes(), stem=st.sampled_from(NOTE_STEMS))
def test_no_surface_serves_the_private_layer_without_all(
    fleet: FleetSpec, marker: str, extra: NoteSpec, stem: str
) -> None:
    placed = add_private_note(fleet, forced(extra, stem))
    assume(placed is not None)
    assert placed is not None
    fleet = with_marker(placed, marker)
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        root = Path(tmp) / "fleet-root"
        write_fleet(root, fleet)
        mp.setenv("KB_MISSES_PATH", str(Path(tmp) / "misses.txt"))
        where = str(root)
        private = [f for f in expected_files(root, fleet, include_private=True) if f.private]
        assert run(["index", where, "--all"]).code == 0

        with Memory.open([where]) as memory:
            server = Server(memory, 5)
            for question in (marker, f"{marker} floor"):
                for tool in ("kb_route", "kb_retrieve"):
                    text = _call(server, tool, {"question": question, "top": 50})
                    echo = text.replace(question, "")
                    assert_no_leak(echo, marker, private, f"{tool} {question!r}")
            text = _call(server, "kb_remember", {"claim": f"{marker} is a thing"})
            # the claim and its unmatched words (`new:`) are the caller's own input
            echoes = ("claim:", "    new:", "reason:")
            kept = [ln for ln in text.splitlines() if not ln.startswith(echoes)]
            assert_no_leak("\n".join(kept), marker, private, "kb_remember")
            assert_no_leak(_call(server, "kb_list", {"limit": 500}), marker, private, "kb_list")
            assert_no_leak(_call(server, "kb_fleet", {}), marker, private, "kb_fleet")

        claim = f"{marker} floor router"
        out = run(["remember", claim, where, "--json"])
        assert out.code == 0, out.stderr
        payload = json.loads(out.stdout)
        del payload["claim"], payload["reason"]  # both echo the caller's own words
        for e in payload["evidence"]:
            del e["missing"]
        assert_no_leak(json.dumps(payload, ensure_ascii=False), marker, private, "remember")
        out = run(["check", where])
        assert_no_leak(out.stdout + out.stderr, marker, private, "check")

        # With --all the same tool finds it.
        with Memory.open([where], all=True) as memory:
            text = _call(Server(memory, 5), "kb_retrieve", {"question": marker, "top": 50})
            assert any(f"{f.base}/{f.rel}" in text for f in private)
