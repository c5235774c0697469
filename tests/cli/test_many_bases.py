"""File descriptors do not grow with the number of bases (issue 14, item 6): 500 bases are
indexed, routed and served under `ulimit -n 256`, macOS's default."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

BASES = 500
FD_LIMIT = 256


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def _kb(args: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["KB_MISSES_PATH"] = str(cwd / "misses.txt")
    return subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=_limited,
    )


def test_five_hundred_bases_under_a_256_descriptor_limit(tmp_path: Path) -> None:
    fleet = tmp_path / "fleet"
    for i in range(BASES):
        base = fleet / f"agent{i:03d}"
        (base / "knowledge").mkdir(parents=True)
        (base / "agent.txt").write_text(f"name = agent{i:03d}\nrole = keeps note {i}\n")
        word = f"topic{i:03d}"
        (base / "knowledge" / "note.md").write_text(
            f"# Note {i}\n\n**Search for:** {word}, shared\n\nThe word {word} lives here.\n"
        )
    indexed = _kb(["index"], tmp_path)
    assert indexed.returncode == 0, indexed.stderr
    routed = _kb(["route", "topic417 shared", "--json"], tmp_path)
    assert routed.returncode == 0, routed.stderr
    payload = json.loads(routed.stdout)
    assert payload["keyword_top"] == "agent417/knowledge/note.md"
    assert payload["indexed"]["agents"] == BASES
    calls = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
        *(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "kb_route", "arguments": {"question": f"topic{i:03d}"}},
            }
            for i in (1, 250, 499)
        ),
    ]
    served = _kb(["serve"], tmp_path, "\n".join(json.dumps(c) for c in calls) + "\n")
    assert served.returncode == 0, served.stderr
    replies = [json.loads(line) for line in served.stdout.splitlines()]
    assert len(replies) == 4 and all("error" not in r for r in replies)
    assert "agent250/knowledge/note.md" in replies[2]["result"]["content"][0]["text"]
