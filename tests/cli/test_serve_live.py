"""`kb serve --http` notices the disk change under it: a note written, or an existing note's
keys edited, while the server runs is in the very next answers, without a restart
(kb.io.answering.live re-validates by stat before a call)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.cli.test_mcp_http import free_port
from tests.conftest import EXAMPLE_FLEET, _copy

TOKEN = "live-token-Q7"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    port = free_port()
    env = {
        "KB_MISSES_PATH": str(tmp_path / "misses.txt"),
        "KB_MCP_TOKEN": TOKEN,
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
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
        env=env,
    )
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any("bearer token" in x for x in lines):
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
    assert any("Ready on" in x for x in lines), "".join(lines)
    drain = threading.Thread(target=lambda: lines.extend(proc.stderr or ()), daemon=True)
    drain.start()
    try:
        yield f"http://127.0.0.1:{port}/mcp", fleet
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
        drain.join(timeout=5)
        assert proc.returncode == 0, "".join(lines)
        assert "Traceback" not in "".join(lines)


def _route(url: str, question: str) -> str:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def run() -> str:
        async with (
            create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"}) as client,
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result: Any = await session.call_tool("kb_route", {"question": question})
            text: str = result.content[0].text
            return text

    return anyio.run(run)


SEEN_WITHIN_S = 30  # the watcher walks every 0.2 s here; generous for a loaded machine


def _route_until(url: str, question: str, wanted: str) -> str:
    """Ask until `wanted` is in the answer: the server notices a change on its watcher's
    next walk, a fraction of a second after the write, not on the very next call."""
    deadline = time.monotonic() + SEEN_WITHIN_S
    while True:
        got = _route(url, question)
        if wanted in got or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def test_a_note_written_under_a_running_server_is_answered(served: tuple[str, Path]) -> None:
    url, fleet = served
    question = "quokka telemetry"
    verdict, refusal = _route(url, question).split("\n\n", 1)
    assert verdict.startswith("verdict:  nothing: ")
    assert refusal.startswith(f'Nothing matched "{question}".')
    wrote = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "write", "ada", "quokka-telemetry", str(fleet),
         "--keys", "quokka telemetry, quokka", "--summary", "Where the quokka telemetry goes"],
        input="The quokka telemetry goes to the second dashboard.\n",
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert wrote.returncode == 0, wrote.stderr
    wanted = "ada/knowledge/quokka-telemetry.md"
    assert wanted in _route_until(url, question, wanted)

    # An edit in place (no new file, same folder listing): the keys of an existing note.
    backups = fleet / "fleet" / "ada" / "knowledge" / "backups.md"
    text = backups.read_text(encoding="utf-8")
    assert "zymurgy" not in text and "**Search for:**" in text
    assert _route(url, "zymurgy").split("\n\n", 1)[1].startswith('Nothing matched "zymurgy".')
    backups.write_text(text.replace("**Search for:** ", "**Search for:** `zymurgy`, ", 1))
    wanted = "1. ada/knowledge/backups.md"
    assert wanted in _route_until(url, "zymurgy", wanted)
