"""`kb eval`: the gold files of the demo fleet and the example fleet graded end to end.

The only moving parts of the report are the SPEED figures and the interpreter's name, which
are masked before the golden comparison. Regenerate with KB_UPDATE_GOLDEN=1 and review.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import SHARED_DEMO, RunKb, check_golden


def masked(text: str) -> str:
    text = re.sub(r"\b\d+ us\b", "<N> us", text)
    text = re.sub(r"under [^,\n]+, with the fleet", "under <RUNTIME>, with the fleet", text)
    text = re.sub(r'"(fused_us|keyword_us)":\d+', r'"\1":0', text)
    return re.sub(r'"runtime":"[^"]*"', '"runtime":"<RUNTIME>"', text)


def test_demo_fleet_grades_perfectly(demo_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=demo_fleet).code == 0
    out = kb(["eval", str(SHARED_DEMO / "gold.tsv"), str(demo_fleet)])
    assert out.code == 0, out.stderr
    assert out.stderr == ""
    text = out.stdout
    assert "gold:     13 questions, 10 answerable\n" in text
    assert "FILE   fused   10/10  (100%)\n" in text
    assert "AGENT  routes  10/10  (100%)" in text
    assert "       keyword 10/10  (100%), the deterministic fold" in text
    assert "of 3 questions the set says to decline: refused 3, hedged 0, answered 0" in text
    assert "demoted 0/10 correct answers" in text
    check_golden("ulpia-demo/eval.txt", masked(text))


def test_example_fleet_report(example_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=example_fleet).code == 0
    out = kb(["eval", "gold.tsv", "."], cwd=example_fleet)
    assert out.code == 0, out.stderr
    text = out.stdout
    assert "gold:     15 questions, 12 answerable\n" in text
    assert "FILE   fused   12/12  (100%)\n" in text
    assert "       keyword 12/12  (100%), the same question" in text
    assert "refused 3, hedged 0, answered 0" in text
    assert "no-answer accuracy 3/3  (100%)" in text
    assert "       mrr     1.000," in text
    check_golden("example/eval.txt", masked(text))


def test_example_fleet_triad(example_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=example_fleet).code == 0
    out = kb(["eval", "gold.tsv", "--triad"], cwd=example_fleet)
    assert out.code == 0, out.stderr
    assert "\nTRIAD  offline RAGAS-style evaluation:\n  faith  relev  ctx    comp   question\n" in (
        out.stdout
    )
    # a refused question retrieved nothing, so declining scores full marks
    assert "  1.00   1.00   1.00   1.00   quantas luas tem jupiter\n" in out.stdout
    check_golden("example/eval-triad.txt", masked(out.stdout))


def test_example_fleet_json(example_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=example_fleet).code == 0
    out = kb(["eval", "gold.tsv", "--json", "--triad"], cwd=example_fleet)
    assert out.code == 0, out.stderr
    assert out.stdout.count("\n") == 1
    payload = json.loads(out.stdout)
    assert list(payload) == [
        "gold",
        "questions",
        "answerable",
        "indexed",
        "floor",
        "top",
        "rows",
        "file",
        "agent",
        "gate",
        "mrr",
        "no_answer_accuracy",
        "verdict",
        "speed",
        "triad",
    ]
    assert payload["file"] == {"fused": 12, "keyword": 12, "of": 12}
    assert payload["gate"]["decline"] == {"of": 3, "refused": 3, "hedged": 0, "answered": 0}
    assert payload["mrr"] == 1 and payload["no_answer_accuracy"] == 1
    verdict = payload["verdict"]
    assert (verdict["hits"], verdict["hits_right"], verdict["hit_precision"]) == (12, 12, 1)
    assert (verdict["answerable_refused"], verdict["decline_answered_hit"]) == (0, 0)
    assert verdict["decline_answered_nothing"] == 3
    assert verdict["risk_coverage"][0] == {"rule": "hit", "served": 12, "wrong": 0}
    assert [r["marks"]["file"] for r in payload["rows"]] == ["ok"] * 15
    check_golden("example/eval.json", masked(out.stdout))
    plain = json.loads(kb(["eval", "gold.tsv", "--json"], cwd=example_fleet).stdout)
    assert "triad" not in plain


def test_stale_gold_is_refused(example_fleet: Path, kb: RunKb) -> None:
    gold = example_fleet / "stale.tsv"
    gold.write_text(
        "# two rows name a file that is gone, one names no agent\n"
        "restore test\tada/knowledge/backups.md|ada/knowledge/gone.md\n"
        "again\tada/knowledge/gone.md\n"
        "no agent\tbackups.md\n"
        "unknown agent\tzoe/knowledge/x.md\n",
        encoding="utf-8",
    )
    out = kb(["eval", "stale.tsv"], cwd=example_fleet)
    assert out.code == 1
    assert out.stdout == ""
    assert out.stderr == (
        "kb: 3 gold answers name files this fleet does not have:\n"
        "      ada/knowledge/gone.md\n"
        "      backups.md (not in agent/path form)\n"
        "      zoe/knowledge/x.md\n"
        "    Grading against a stale gold file reports a wrong number confidently.\n"
    )


def test_agent_names_compare_without_case(example_fleet: Path, kb: RunKb) -> None:
    (example_fleet / "upper.tsv").write_text(
        "how often should I run a backup restore test\tADA/knowledge/backups.md\n",
        encoding="utf-8",
    )
    out = kb(["eval", "upper.tsv", "--json"], cwd=example_fleet)
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["file"] == {"fused": 1, "keyword": 1, "of": 1}


def test_malformed_and_missing_gold(example_fleet: Path, kb: RunKb) -> None:
    (example_fleet / "notab.tsv").write_text("# fine\nquestion without a tab\n", encoding="utf-8")
    out = kb(["eval", "notab.tsv"], cwd=example_fleet)
    assert (out.code, out.stdout) == (2, "")
    assert out.stderr == "kb: notab.tsv:2: no tab, so this row has no answer\n"

    (example_fleet / "empty.tsv").write_text("# only comments\n\n   \n", encoding="utf-8")
    out = kb(["eval", "empty.tsv"], cwd=example_fleet)
    assert (out.code, out.stderr) == (2, "kb: empty.tsv has no gradeable rows\n")

    (example_fleet / "blank.tsv").write_text("a question\t | \n", encoding="utf-8")
    out = kb(["eval", "blank.tsv"], cwd=example_fleet)
    assert out.code == 2
    assert out.stderr.startswith("kb: blank.tsv:1: the answer column names no file; write - ")

    out = kb(["eval", "absent.tsv"], cwd=example_fleet)
    assert out.code == 2
    assert out.stderr.startswith("kb: cannot read absent.tsv: ")

    out = kb(["eval"], cwd=example_fleet)
    assert out.code == 2
    assert out.stderr == "kb: eval needs a gold file\n\n"
    assert out.stdout.startswith("usage:\n")

    out = kb(["eval", "gold.tsv", "--top", "abc"], cwd=example_fleet)
    assert out.code == 2


def test_open_failure_exits_1(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["eval", "gold.tsv", "no-such-dir"], cwd=example_fleet)
    assert out.code == 1
    assert out.stderr.startswith("kb: cannot read no-such-dir")
