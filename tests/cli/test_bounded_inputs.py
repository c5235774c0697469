"""Issue 14, items 4 and 11, over real processes: a huge question or request is cut or refused
at the door and the server keeps serving; the MCP fleet tool keeps the person base out."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

from kb.shell.ui.server import MAX_BODY_BYTES, MAX_QUERY_BYTES
from tests.ui.server import kb_ui

REPLY_WAIT_S = 120  # generous for a loaded machine; a cut question answers in well under 1 s


def test_a_query_string_past_the_bound_is_refused_and_the_room_keeps_serving(
    example_fleet: Path,
) -> None:
    question = "backup " * (84 * 1024 // 7)  # the 84 KB GET of the issue
    with kb_ui([str(example_fleet)]) as ui:
        status, _, body = ui.get("/api/route?q=" + question.replace(" ", "+"))
        assert status == 414 and str(MAX_QUERY_BYTES).encode() in body
        status, _, _ = ui.get("/api/route?q=backup+restore+test")
        assert status == 200


def test_a_body_past_the_bound_is_refused(example_fleet: Path) -> None:
    with kb_ui([str(example_fleet)]) as ui:
        request = urllib.request.Request(
            ui.url + "/api/reload", data=b"x" * (MAX_BODY_BYTES + 1), method="POST"
        )
        try:
            urllib.request.urlopen(request, timeout=30)
            status = 200
        except urllib.error.HTTPError as e:
            status = e.code
        assert status == 413
        assert ui.get("/api/fleet")[0] == 200


class Stdio:
    """A bare JSON-RPC line client of `kb serve` (no SDK: the bounds are what is tested)."""

    def __init__(self, fleet: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kb.shell.cli.main", "serve", str(fleet), *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={"KB_MISSES_PATH": str(fleet / "misses.txt"), "PATH": "/usr/bin:/bin"},
        )

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        got: list[str] = []
        reader = threading.Thread(target=lambda: got.append(self.proc.stdout.readline()))  # type: ignore[union-attr]
        reader.start()
        reader.join(REPLY_WAIT_S)
        assert got, f"no reply within {REPLY_WAIT_S} s"
        reply: dict[str, Any] = json.loads(got[0])
        return reply

    def tool(self, name: str, arguments: dict[str, Any], id_: int = 1) -> str:
        reply = self.ask(
            {
                "jsonrpc": "2.0",
                "id": id_,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        text: str = reply["result"]["content"][0]["text"]
        return text

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)


def test_a_one_megabyte_question_is_answered_and_the_server_keeps_serving(
    example_fleet: Path,
) -> None:
    server = Stdio(example_fleet)
    try:
        huge = "restore " * (1024 * 1024 // 8)
        text = server.tool("kb_route", {"question": huge})
        assert "restore" in text
        pong = server.ask({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert pong == {"jsonrpc": "2.0", "id": 2, "result": {}}
    finally:
        server.close()


def test_kb_fleet_names_the_person_base_only_with_all(example_fleet: Path) -> None:
    person_root = str(example_fleet / "fleet" / "person")
    public = Stdio(example_fleet)
    try:
        hidden = public.tool("kb_fleet", {})
    finally:
        public.close()
    assert "Person" not in hidden and person_root not in hidden
    assert "AGENTS: 3" in hidden
    everything = Stdio(example_fleet, "--all")
    try:
        shown = everything.tool("kb_fleet", {})
    finally:
        everything.close()
    assert person_root in shown


def test_a_stopword_only_question_is_explained_as_such_over_mcp(example_fleet: Path) -> None:
    """Issue 16, item 6, on the MCP surface: not a vocabulary miss, and not logged."""
    server = Stdio(example_fleet)
    try:
        text = server.tool("kb_route", {"question": "the how of it"})
    finally:
        server.close()
    assert "nothing was ranked" in text and "not logged as a miss" in text
    assert "vocabulary miss" not in text
    assert not (example_fleet / "misses.txt").exists()
