"""`kb eval --classify`: one classifier call per gold question, graded beside the arithmetic,
with the deterministic scripts of tests/models/ as the classifier."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.conftest import GOLDEN, RunKb, check_golden
from tests.golden.test_eval import masked

MODELS = Path(__file__).resolve().parent.parent / "models"
ANNOUNCE = "kb eval: asking the classifier about every question, one model call each.\n"


def _classifier(fleet: Path, script: str) -> None:
    (fleet / "models").mkdir(exist_ok=True)
    shutil.copy(MODELS / script, fleet / "models" / script)
    with (fleet / "fleet.txt").open("a", encoding="utf-8") as fh:
        fh.write(f"classifier = models/{script}\n")


def test_the_classifier_column(example_fleet: Path, kb: RunKb) -> None:
    _classifier(example_fleet, "classifier.py")
    assert kb(["index"], cwd=example_fleet).code == 0
    out = kb(["eval", "gold.tsv", "--classify"], cwd=example_fleet)
    assert out.code == 0, out.stderr
    assert out.stderr == ANNOUNCE
    text = masked(out.stdout)
    # the table answers only the backup question; every other one it calls uncovered
    assert "       model     1/12  (8%), a classifier reading the roster and the evidence\n" in (
        text
    )
    assert "       model     3/3, and this is the answer it exists to give\n" in text
    assert "AGENT  routes  1/12  (8%), what boot hands over, classifier included\n" in text
    assert "       keyword 12/12  (100%), the deterministic fold" in text
    assert " us per question in the classifier, " in text
    assert "x the arithmetic. That is the cost of the model" in text
    check_golden("example/eval-classify.txt", _masked_ratio(text))


def _masked_ratio(text: str) -> str:
    return re.sub(r"\b\d+x the arithmetic", "<N>x the arithmetic", text)


def test_a_silent_classifier_falls_back_and_is_counted(example_fleet: Path, kb: RunKb) -> None:
    _classifier(example_fleet, "silent.py")
    assert kb(["index"], cwd=example_fleet).code == 0
    out = kb(["eval", "gold.tsv", "--classify"], cwd=example_fleet)
    assert out.code == 0
    assert "       model     0/12  (0%), a classifier" in out.stdout
    assert "(15 questions got no answer from the classifier: counted as wrong, and routed by " in (
        out.stdout
    )
    # no verdict: routing falls back to the keyword choice on a hit (all 12 answers are
    # hits, the visa question by its declared keys: decision 0030)
    assert "AGENT  routes  12/12  (100%)" in out.stdout
    assert "       model     0/3, and this is the answer it exists to give\n" in out.stdout


def test_json_carries_the_classifier(example_fleet: Path, kb: RunKb) -> None:
    _classifier(example_fleet, "classifier.py")
    assert kb(["index"], cwd=example_fleet).code == 0
    out = kb(["eval", "gold.tsv", "--classify", "--json"], cwd=example_fleet)
    assert out.code == 0
    payload = json.loads(out.stdout)
    summary = payload["classifier"]
    assert (summary["hits"], summary["of"], summary["declined"], summary["declines"]) == (
        1,
        12,
        3,
        3,
    )
    assert summary["silent"] == 0
    first = payload["rows"][0]["classifier"]
    assert (first["answered"], first["owner"], first["covered"]) == (True, "ada", True)
    assert list(payload)[-1] == "classifier"


def test_without_a_classifier_line_classify_is_refused(example_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=example_fleet).code == 0
    out = kb(["eval", "gold.tsv", "--classify"], cwd=example_fleet)
    assert out.code == 2
    assert out.stdout == ""
    assert out.stderr.startswith("kb eval: --classify asks the command named by `classifier =`")
    assert "fleet.txt" in out.stderr


def test_without_classify_the_report_is_unchanged(example_fleet: Path, kb: RunKb) -> None:
    _classifier(example_fleet, "classifier.py")
    assert kb(["index"], cwd=example_fleet).code == 0
    out = kb(["eval", "gold.tsv"], cwd=example_fleet)
    assert out.stderr == ""
    assert "       model " not in out.stdout
    # the plain report is the existing golden, byte for byte (read, never rewritten here)
    assert masked(out.stdout) == (GOLDEN / "example" / "eval.txt").read_text(encoding="utf-8")
