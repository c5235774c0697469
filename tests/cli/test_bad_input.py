"""Hostile and broken input on the read path: one clear line, the spec's exit code, no
traceback, and nothing written except the index."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import RunKb

READ_VERBS: list[list[str]] = [
    ["index"],
    ["index", "--json"],
    ["route", "backup restore"],
    ["route", "backup restore", "--json"],
    ["route", "backup restore", "--hybrid"],
    ["list"],
    ["list", "--json"],
    ["fleet"],
]


def _no_traceback(out: object) -> None:
    text = getattr(out, "stdout", "") + getattr(out, "stderr", "")
    assert "Traceback" not in text


@pytest.fixture
def broken_fleet(example_fleet: Path) -> Path:
    ada = example_fleet / "fleet" / "ada"
    (ada / "knowledge" / "latin1.md").write_bytes(
        "# Caf\xe9\n\n**Search for:** caf\xe9\n".encode("latin-1")
    )
    (ada / "knowledge" / "blob.md").write_bytes(bytes(range(256)) * 64)
    (ada / "knowledge" / "empty.md").write_bytes(b"")
    big = "# Huge note\n\n**Search for:** enormous, gigantic\n\n" + ("lorem ipsum dolor " * 300_000)
    (ada / "knowledge" / "huge.md").write_text(big, encoding="utf-8")
    (ada / "agent.txt").write_bytes(b"name = Ada\n\xff\xfe garbage === = =\nprivate\nrole\n")
    (example_fleet / "fleet.txt").write_bytes(b"\x00\x01 = \nname Harbor\n= orphan\n")
    (ada / "kb-aliases.txt").write_bytes(b"= nothing\nonly-left =\n\xff\xfe\n")
    return example_fleet


@pytest.mark.parametrize("args", READ_VERBS, ids=[" ".join(a) for a in READ_VERBS])
def test_broken_files_are_survived(broken_fleet: Path, kb: RunKb, args: list[str]) -> None:
    out = kb(args, cwd=broken_fleet, env={"KB_MISSES_PATH": str(broken_fleet / "misses.txt")})
    _no_traceback(out)
    assert out.code == 0, out.stderr


def test_index_reports_unreadable_files(broken_fleet: Path, kb: RunKb) -> None:
    out = kb(["index"], cwd=broken_fleet)
    assert "could not be read as UTF-8 text" in out.stdout
    assert "ada/knowledge/latin1.md: not valid UTF-8" in out.stdout
    assert "ada/knowledge/blob.md: not valid UTF-8" in out.stdout
    # the empty note is an unreachable note, not a crash
    assert "ada/knowledge/empty.md" in out.stdout


def test_huge_note_is_indexed_and_found(broken_fleet: Path, kb: RunKb) -> None:
    kb(["index"], cwd=broken_fleet)
    payload = json.loads(kb(["route", "gigantic", "--json"], cwd=broken_fleet).stdout)
    assert payload["keyword_top"] == "ada/knowledge/huge.md"


@pytest.mark.parametrize("args", READ_VERBS, ids=[" ".join(a) for a in READ_VERBS])
def test_missing_path(tmp_path: Path, kb: RunKb, args: list[str]) -> None:
    missing = tmp_path / "no-such-fleet"
    out = kb([*args, str(missing)], cwd=tmp_path)
    _no_traceback(out)
    assert out.code == 1
    assert out.stderr.startswith(f"kb: cannot read {missing}")
    assert out.stderr.count("\n") == 1
    assert not missing.exists()
    if "--json" in args and args[0] == "route":
        assert json.loads(out.stdout)["error"].startswith("cannot read")


@pytest.mark.parametrize("args", READ_VERBS, ids=[" ".join(a) for a in READ_VERBS])
def test_path_is_a_file(tmp_path: Path, kb: RunKb, args: list[str]) -> None:
    target = tmp_path / "note.md"
    target.write_text("# A file, not a folder\n")
    out = kb([*args, str(target)], cwd=tmp_path)
    _no_traceback(out)
    assert out.code == 1
    assert "not a directory" in out.stderr
    assert sorted(os.listdir(tmp_path)) == ["note.md"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["route", "q", "--top", "abc"], "--top"),
        (["route", "q", "--top", "-2"], "--top"),
        (["route", "q", "--top"], "--top"),
        (["route", "q", "--bogus"], "--bogus"),
        (["list", "--kind"], "--kind"),
        (["index", "--json", "--nope"], "--nope"),
    ],
)
def test_usage_errors_are_one_line(
    tmp_path: Path, kb: RunKb, args: list[str], fragment: str
) -> None:
    out = kb(args, cwd=tmp_path)
    _no_traceback(out)
    assert out.code == 2
    assert fragment in out.stderr
    assert out.stderr.count("\n") == 1
    assert os.listdir(tmp_path) == []


def test_question_with_invalid_utf8_bytes(example_fleet: Path, kb: RunKb) -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kb.shell.cli.main",
            "route",
            b"caf\xff backup".decode("utf-8", "surrogateescape"),
        ],
        cwd=example_fleet,
        capture_output=True,
        env={**os.environ, "KB_MISSES_PATH": str(example_fleet / "m.txt")},
    )
    assert proc.returncode == 0
    assert b"Traceback" not in proc.stderr
    assert "caf\ufffd backup".encode() in proc.stdout


def test_empty_fleet_explains_itself(tmp_path: Path, kb: RunKb) -> None:
    base = tmp_path / "solo"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = Solo\n")
    # Empty: a note with any title, heading or name to go by is an entry by derived keys.
    (base / "knowledge" / "keyless.md").write_text("\n")
    out = kb(["route", "anything at all", str(base)], cwd=tmp_path)
    assert out.code == 0
    assert "this base has no knowledge files yet" in out.stdout
    assert "1 markdown file is already here without that line" in out.stdout
    assert not (tmp_path / "kb-misses.txt").exists()  # an empty fleet records no miss
