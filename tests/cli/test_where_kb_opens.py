"""Where kb opens when it is run from a folder that is not itself a base (issue 26): inside a
fleet it opens the fleet, as git opens the repository from a subfolder, so a refusal's miss
log lands at the fleet root and never among the notes; a folder of notes that is in no
fleet is read as before, and the warning says it is not a base (not that it cannot be
written)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import RunKb

ANSWERABLE = "how often should I run a backup restore test"
REFUSED = "quem ganhou a copa de 1970"


def test_a_subfolder_of_a_base_answers_as_the_fleet_does(example_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=example_fleet).code == 0
    inside = example_fleet / "fleet" / "ada" / "knowledge"
    at_root = kb(["route", ANSWERABLE, "--json"], cwd=example_fleet)
    from_inside = kb(["route", ANSWERABLE, "--json"], cwd=inside)
    given = kb(["route", ANSWERABLE, "--json", str(inside)], cwd=example_fleet)
    assert at_root.code == from_inside.code == given.code == 0
    assert json.loads(from_inside.stdout)["results"] == json.loads(at_root.stdout)["results"]
    assert json.loads(given.stdout)["results"] == json.loads(at_root.stdout)["results"]
    assert from_inside.stderr == at_root.stderr == ""


def test_a_refusal_from_a_subfolder_is_logged_at_the_fleet_root(
    example_fleet: Path, kb: RunKb
) -> None:
    inside = example_fleet / "fleet" / "ada" / "knowledge"
    out = kb(["route", REFUSED, "--json"], cwd=inside)
    assert out.code == 0 and json.loads(out.stdout)["verdict"] == "nothing"
    assert (example_fleet / "kb-misses.txt").is_file()
    assert not (inside / "kb-misses.txt").exists()
    assert not (inside / ".kb").exists()


def test_a_folder_of_notes_in_no_fleet_says_it_is_not_a_base(tmp_path: Path, kb: RunKb) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "tea.md").write_text("# Tea\n\nGreen tea steeps at eighty degrees.\n")
    out = kb(["route", "green tea steeping temperature"], cwd=notes)
    assert out.code == 0
    assert "is not a base" in out.stderr and "cannot be written" not in out.stderr
    assert not (notes / ".kb").exists()
