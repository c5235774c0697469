"""`kb misses`: the miss log read back on the example fleet after a few refusals.

Dates in the log are today's and are masked by check_golden. The log lives at the fleet
root (the `kb` fixture clears KB_MISSES_PATH), so the printed path is `kb-misses.txt`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import RunKb, check_golden

REFUSED = [
    "quantas luas tem jupiter",
    "how far away is the andromeda galaxy",
    "quantas luas tem jupiter",
    # "forminha" is only in the body of bruno's herbs note, never on its Search for line, and
    # the rest of the question is nowhere: a refusal whose nearest note is found by text
    "forminha de sorvete caseiro com chocolate derretido",
    "quem ganhou a copa de 1970",
]


@pytest.fixture
def missed(example_fleet: Path, kb: RunKb) -> Path:
    assert kb(["index"], cwd=example_fleet).code == 0
    for question in REFUSED:
        out = kb(["route", question, "--json"], cwd=example_fleet)
        assert json.loads(out.stdout)["verdict"] == "nothing", question
    return example_fleet


def test_terminal(missed: Path, kb: RunKb) -> None:
    out = kb(["misses"], cwd=missed)
    assert out.code == 0, out.stderr
    text = out.stdout
    assert text.startswith("log:      kb-misses.txt\n")
    assert "lost:     4 distinct questions, 5 asks\n" in text
    assert "    2x  " in text
    assert "bruno/knowledge/temperos-e-ervas.md  keyword 0.00  text #1" in text
    assert "keyword 0.00 is the finding: the words are in this note's body" in text
    assert text.endswith(
        "which proposes with a model and admits only what the gold set survives.\n"
    )
    check_golden("example/misses.txt", text)


def test_json(missed: Path, kb: RunKb) -> None:
    out = kb(["misses", "--json"], cwd=missed)
    assert out.code == 0, out.stderr
    assert out.stdout.count("\n") == 1
    payload = json.loads(out.stdout)
    assert list(payload) == sorted(payload)
    assert payload["exists"] is True
    assert (payload["total_questions"], payload["total_asks"]) == (4, 5)
    assert payload["misses"][0]["count"] == 2
    herbs = next(m for m in payload["misses"] if m["question"].startswith("forminha"))
    assert herbs["near"][0]["keyword_score"] == 0
    assert len(herbs["near"][0]["keys"]) > 8  # JSON keys are never cut
    check_golden("example/misses.json", out.stdout)


def test_top_bounds_candidates(missed: Path, kb: RunKb) -> None:
    payload = json.loads(kb(["misses", "--json", "--top", "0"], cwd=missed).stdout)
    assert payload["total_questions"] == 4
    assert all(m["near"] == [] for m in payload["misses"])


def test_absent_log_is_healthy(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["misses"], cwd=example_fleet)
    assert out.code == 0, out.stderr
    assert out.stdout == (
        "log:      kb-misses.txt\n"
        "indexed:  14 entries across 4 agents, floor 7.68\n"
        "\n"
        "  nothing has missed here. Either no question has reached this base and\n"
        "  failed, or the log lives somewhere else: KB_MISSES_PATH moves it.\n"
    )
    payload = json.loads(kb(["misses", "--json"], cwd=example_fleet).stdout)
    assert payload["exists"] is False
    assert payload["misses"] == []


def test_log_path_follows_the_environment(missed: Path, kb: RunKb, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    out = kb(["misses"], cwd=missed, env={"KB_MISSES_PATH": str(elsewhere)})
    assert out.code == 0
    assert out.stdout.startswith(f"log:      {elsewhere}\n")
    assert "nothing has missed here" in out.stdout


def test_unreadable_log_exits_1(missed: Path, kb: RunKb) -> None:
    out = kb(["misses"], cwd=missed, env={"KB_MISSES_PATH": str(missed)})  # a directory
    assert out.code == 1
    assert out.stderr.startswith(f"kb: could not read {missed}: ")


def test_apply_refusals(missed: Path, kb: RunKb) -> None:
    before = (missed / "kb-misses.txt").read_text(encoding="utf-8")

    out = kb(["misses", "--apply"], cwd=missed)
    assert (out.code, out.stdout) == (2, "")
    assert "--apply needs --gold <tsv>" in out.stderr

    out = kb(["misses", "--apply", "--gold", "gold.tsv"], cwd=missed)
    assert (out.code, out.stdout) == (2, "")
    assert out.stderr == (
        "kb misses: fleet.txt names no `promoter =` command, so there is no model to propose "
        "alias lines. Add a `promoter = <command>` line there, or write the alias line "
        "yourself.\n"
    )

    out = kb(["misses", "--apply", "--gold", "absent.tsv"], cwd=missed)
    assert out.code == 2
    assert out.stderr.startswith("kb: cannot read absent.tsv: ")

    (missed / "stale.tsv").write_text("q\tada/knowledge/gone.md\n", encoding="utf-8")
    out = kb(["misses", "--apply", "--gold", "stale.tsv"], cwd=missed)
    assert out.code == 2
    assert out.stderr.startswith("kb: 1 gold answer names a file this fleet does not have:\n")

    with (missed / "fleet.txt").open("a", encoding="utf-8") as f:
        f.write("promoter = ./promoter.sh\n")
    out = kb(["misses", "--apply", "--gold", "gold.tsv"], cwd=missed)
    # A promoter that cannot start is silent for every question: nothing is proposed.
    assert out.code == 0, out.stderr
    assert "proposer: 0 declined, 4 silent, 0 unparseable\n" in out.stdout

    assert (missed / "kb-misses.txt").read_text(encoding="utf-8") == before
    assert not any(missed.rglob("kb-aliases.txt.*"))
    assert not (missed / "kb-alias-rejections.txt").exists()
