"""`kb index` shows progress on a terminal and nowhere else (issue 26): one line on stderr,
rewritten in place and erased at the end, only when stderr is a terminal, never under
`--json`, in a pipe or with KB_NO_PROGRESS set. Real processes, stderr on a pseudo-terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from kb.io.notes.progress import ERASE, MIN_TOTAL

NOTES = MIN_TOTAL + 100


@pytest.fixture
def big_base(tmp_path: Path) -> Path:
    base = tmp_path / "fleet" / "fleet" / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = ada\nrole = notes\n", encoding="utf-8")
    lines = ["# Map", ""]
    for i in range(NOTES):
        (base / "knowledge" / f"n{i}.md").write_text(
            f"# Note {i}\n\nSearch for: topic{i}\n\nBody of note number {i}.\n", encoding="utf-8"
        )
        lines.append(f"- [Note {i}](knowledge/n{i}.md): note {i}")
    (base / "MAP.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path / "fleet"


def _index_on_a_terminal(
    fleet: Path, *flags: str, env: dict[str, str] | None = None
) -> tuple[str, str]:
    """(stdout, what reached the terminal on stderr) of `kb index` with stderr on a pty."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kb.shell.cli.main", "index", *flags],
            cwd=fleet,
            stdout=subprocess.PIPE,
            stderr=slave,
            env={**os.environ, **(env or {})},
        )
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            seen += chunk
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0
        return out.decode(), seen.decode()
    finally:
        os.close(master)


def test_a_cold_index_on_a_terminal_shows_progress_and_erases_it(big_base: Path) -> None:
    out, terminal = _index_on_a_terminal(big_base)
    assert "indexing" in terminal and f"/ {NOTES}" in terminal
    assert terminal.startswith(ERASE) and terminal.endswith(ERASE)
    assert "\r" not in out and "ada" in out  # the report itself is unchanged


def test_no_progress_in_json_with_the_opt_out_or_in_a_pipe(big_base: Path) -> None:
    assert _index_on_a_terminal(big_base, "--json")[1] == ""
    (big_base / "fleet" / "ada" / "knowledge" / "n0.md").write_text("# Changed\n\nx\n")
    assert _index_on_a_terminal(big_base, env={"KB_NO_PROGRESS": "1"})[1] == ""
    piped = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "index"],
        cwd=big_base,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "KB_NO_PROGRESS": ""},
    )
    assert piped.returncode == 0 and "\r" not in piped.stderr and "\x1b" not in piped.stderr
