"""Conformance with the original's demo fleet: its published results must hold here."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import RunKb, check_golden


def gold_rows(fleet: Path) -> list[tuple[str, str]]:
    rows = []
    for line in (fleet / "gold.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            question, target = line.split("\t")
            rows.append((question, target))
    return rows


def test_floor_prints_for_eleven_entries(demo_fleet: Path, kb: RunKb) -> None:
    out = kb(["route", "deploy", "--json"], cwd=demo_fleet)
    payload = json.loads(out.stdout)
    assert payload["indexed"]["entries"] == 11
    assert f"{payload['gate']['floor']:.1f}" == "6.9"


def test_every_gold_question_routes_and_every_refusal_refuses(demo_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=demo_fleet).code == 0
    for i, (question, target) in enumerate(gold_rows(demo_fleet)):
        out = kb(["route", question, "--json"], cwd=demo_fleet)
        assert out.code == 0, out.stderr
        payload = json.loads(out.stdout)
        if target == "-":
            assert payload["verdict"] == "nothing", question
            assert payload["gate"]["served"] is False
        else:
            assert payload["keyword_top"] == target, question
            assert payload["agent"]["name"] == target.split("/")[0], question
            assert payload["verdict"] == "hit", question
        check_golden(f"ulpia-demo/route-{i:02d}.json", out.stdout)


def test_index_totals_are_pinned(demo_fleet: Path, kb: RunKb) -> None:
    first = kb(["index"], cwd=demo_fleet)
    assert first.code == 0
    check_golden("ulpia-demo/index-cold.txt", first.stdout)
    second = kb(["index"], cwd=demo_fleet)
    check_golden("ulpia-demo/index-warm.txt", second.stdout)
    assert "0 reindexed" in second.stdout
