"""A line break or NUL in a question or a note's title never splits a line of output: the
route report's `question:` line and `kb list`'s rows show them escaped."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import RunKb


def test_a_question_with_a_line_break_stays_on_its_line(example_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=example_fleet).code == 0
    out = kb(["route", "backup\nrestore\rtest"], cwd=example_fleet)
    assert out.code == 0
    lines = out.stdout.splitlines()
    assert lines[0].startswith("verdict:  ")  # the verdict names itself first (issue 13)
    assert lines[1] == "question: backup\\nrestore\\rtest"


def test_a_title_with_control_characters_stays_on_its_row(example_fleet: Path, kb: RunKb) -> None:
    note = example_fleet / "fleet" / "ada" / "knowledge" / "odd-title.md"
    note.write_bytes(b"# Odd\rtitle\x00here\n\n**Search for:** `oddtitle`\n")
    out = kb(["list"], cwd=example_fleet)
    assert out.code == 0
    rows = [line for line in out.stdout.splitlines() if "odd-title.md" in line]
    assert len(rows) == 1 and rows[0].endswith("Odd\\rtitle\\x00here")
    assert "\r" not in out.stdout and "\x00" not in out.stdout
