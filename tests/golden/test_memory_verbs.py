"""remember (terminal and JSON) and freshness, pinned on the example fleet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import RunKb, check_golden

CLAIMS = [
    ("remember-noop", "a backup nobody has restored is a hope, not a backup"),
    ("remember-update", "dailies are kept for ten weeks offline"),
    ("remember-add", "penguins migrate across the antarctic ice"),
]


@pytest.mark.parametrize(("name", "claim"), CLAIMS, ids=[c[0] for c in CLAIMS])
def test_remember_outputs(example_fleet: Path, kb: RunKb, name: str, claim: str) -> None:
    kb(["index"], cwd=example_fleet)
    text = kb(["remember", claim], cwd=example_fleet)
    assert text.code == 0, text.stderr
    check_golden(f"example/{name}.txt", text.stdout)
    as_json = kb(["remember", claim, "--json"], cwd=example_fleet)
    payload = json.loads(as_json.stdout)
    assert list(payload) == ["claim", "evidence", "notice", "proposal", "reason"]
    assert payload["proposal"] == name.split("-")[1].upper()
    check_golden(f"example/{name}.json", as_json.stdout)


def test_remember_writes_nothing(example_fleet: Path, kb: RunKb) -> None:
    kb(["index"], cwd=example_fleet)
    before = {p: p.read_bytes() for p in example_fleet.rglob("*") if p.is_file()}
    kb(["remember", "anything at all about backups"], cwd=example_fleet)
    after = {p: p.read_bytes() for p in example_fleet.rglob("*") if p.is_file()}
    assert before.keys() == after.keys()
    changed = [p for p in before if before[p] != after[p] and ".kb" not in p.parts]
    assert changed == []


def test_remember_open_failure(tmp_path: Path, kb: RunKb) -> None:
    out = kb(["remember", "x", str(tmp_path / "nope"), "--json"])
    assert out.code == 1
    assert json.loads(out.stdout)["claim"] == "x"
    assert out.stderr.startswith("kb: cannot read")


def test_freshness_marks_a_note_edited_after_indexing(example_fleet: Path, kb: RunKb) -> None:
    kb(["index"], cwd=example_fleet)
    q = "how often should I run a backup restore test"
    before = json.loads(kb(["route", q, "--json"], cwd=example_fleet).stdout)
    assert [r["stale"] for r in before["results"]] == [False] * len(before["results"])
    note = example_fleet / "fleet" / "ada" / "knowledge" / "backups.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nA line added after indexing.\n")
    after = json.loads(kb(["route", q, "--json"], cwd=example_fleet).stdout)
    stale = {r["path"]: r["stale"] for r in after["results"]}
    assert stale["knowledge/backups.md"] is True
    assert "[changed since kb index" in kb(["route", q, "--hybrid"], cwd=example_fleet).stdout
    kb(["index"], cwd=example_fleet)
    again = json.loads(kb(["route", q, "--json"], cwd=example_fleet).stdout)
    assert not any(r["stale"] for r in again["results"])
