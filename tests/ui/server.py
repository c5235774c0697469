"""Starting a real `kb ui` process on a free port, for the API and browser tests."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import EXAMPLE_FLEET, _copy

START_TIMEOUT_S = 30.0

# A blocks.txt for Ada, so the blocks view has something to price. Its third block lists a
# private file: without --all it is withheld (counted, never read).
ADA_BLOCKS = """\
# Ada's constitution, most stable first
[identity]
agent.txt
MAP.md
[skills]
skills/incident-postmortem.md
[contracts]
records/quillfeather-contract.md
[tools] on-demand
tools/grafana.md
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def reading_room_fleet(tmp: Path) -> Path:
    """A copy of the example fleet, indexed, with a blocks.txt for Ada and an empty note (the
    one file nothing can reach: E02, for the check tab to show)."""
    root = _copy(EXAMPLE_FLEET, tmp / "fleet")
    (root / "fleet" / "ada" / "blocks.txt").write_text(ADA_BLOCKS, encoding="utf-8")
    (root / "fleet" / "ada" / "knowledge" / "blank.md").write_text("\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["KB_MISSES_PATH"] = str(tmp / "misses.txt")
    done = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "index", str(root), "--all"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return root


def kb_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update(extra or {})
    return env


class Running:
    def __init__(self, proc: subprocess.Popen[str], port: int, first_line: str) -> None:
        self.proc = proc
        self.port = port
        self.first_line = first_line
        self.url = f"http://127.0.0.1:{port}"

    def get(self, path: str) -> tuple[int, str, bytes]:
        """(status, content type, body) of a GET, 4xx and 5xx included."""
        request = urllib.request.Request(self.url + path)
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, r.headers.get("content-type", ""), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("content-type", ""), e.read()


@contextmanager
def kb_ui(args: list[str], env: dict[str, str] | None = None) -> Iterator[Running]:
    """`kb ui <args> --port <free>` as a real process; yields once its address is printed."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kb.shell.cli.main", "ui", *args, "--port", str(port)],
        env=kb_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    line: list[str] = []
    reader = threading.Thread(
        target=lambda: line.append(proc.stderr.readline() if proc.stderr else "")
    )
    reader.start()
    reader.join(START_TIMEOUT_S)
    try:
        assert line and line[0].startswith("kb ui: http://"), (
            f"kb ui did not start: {line!r} {proc.poll()}"
        )
        yield Running(proc, port, line[0])
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


def chromium() -> str | None:
    path = "/usr/bin/chromium"
    return path if Path(path).is_file() and shutil.which(path) else None
