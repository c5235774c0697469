"""`kb misses --apply --gold`: deterministic promoters proposing alias lines on a copy of the
example fleet, each line judged against the gold set before anything is written.

Dates are today's and are masked by check_golden.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import RunKb, check_golden

MODELS = Path(__file__).resolve().parent.parent / "models"
LOG = "1    2026-01-01 2026-01-02 {q}\n"


def _setup(fleet: Path, kb: RunKb, mode: str, *questions: str) -> None:
    assert kb(["index"], cwd=fleet).code == 0
    (fleet / "kb-misses.txt").write_text(
        "# a miss log\n" + "".join(LOG.format(q=q) for q in questions), encoding="utf-8"
    )
    script = MODELS / ("hang.py" if mode == "hang" else "alias_promoter.py")
    args = "" if mode == "hang" else f" {mode}"
    with (fleet / "fleet.txt").open("a", encoding="utf-8") as f:
        f.write(f"promoter = {sys.executable} {script}{args}\n")


def _run(fleet: Path, kb: RunKb) -> str:
    out = kb(["misses", "--apply", "--gold", "gold.tsv"], cwd=fleet, env={"KB_MODEL_TIMEOUT": "2"})
    assert out.code == 0, out.stderr
    assert not any(fleet.rglob("kb-aliases.txt.*"))
    return out.stdout


def test_good_line_is_admitted(example_fleet: Path, kb: RunKb) -> None:
    _setup(example_fleet, kb, "good", "remolho noturno")
    assert kb(["route", "remolho noturno", "--json"], cwd=example_fleet).stdout.count(
        '"verdict":"nothing"'
    )
    text = _run(example_fleet, kb)
    assert "proposed: 3, admitted: 1, refused: 2\n" in text
    check_golden("misses_apply/good.txt", text)
    aliases = (example_fleet / "fleet" / "bruno" / "kb-aliases.txt").read_text(encoding="utf-8")
    assert aliases.endswith("remolho = soak beans\n")
    check_golden("misses_apply/good-aliases.txt", aliases)
    rejections = (example_fleet / "kb-alias-rejections.txt").read_text(encoding="utf-8")
    check_golden("misses_apply/good-rejections.txt", rejections)
    # The alias is now on disk: the question stops missing for every reader.
    assert (
        '"verdict":"nothing"'
        not in kb(["route", "remolho noturno", "--json"], cwd=example_fleet).stdout
    )
    # A second run proposes the same line again: already present, refused, count folded.
    again = _run(example_fleet, kb)
    assert "admitted: 0" in again
    rows = (example_fleet / "kb-alias-rejections.txt").read_text(encoding="utf-8")
    assert rows.count("\n2\t") == 2  # the two refused lines, refused twice, sorted first
    assert "\n1\t" in rows and rows.endswith("already an alias in fleet/bruno/kb-aliases.txt\n")
    assert (example_fleet / "fleet" / "bruno" / "kb-aliases.txt").read_text(
        encoding="utf-8"
    ) == aliases


def test_costly_line_is_refused(example_fleet: Path, kb: RunKb) -> None:
    ada = example_fleet / "fleet" / "ada" / "kb-aliases.txt"
    before = ada.read_text(encoding="utf-8")
    _setup(example_fleet, kb, "costly", "tempo de remolho")
    text = _run(example_fleet, kb)
    assert "refused: it fixes its own question and costs elsewhere. before file" in text
    check_golden("misses_apply/costly.txt", text)
    check_golden(
        "misses_apply/costly-rejections.txt",
        (example_fleet / "kb-alias-rejections.txt").read_text(encoding="utf-8"),
    )
    assert not (example_fleet / "fleet" / "bruno" / "kb-aliases.txt").exists()
    assert ada.read_text(encoding="utf-8") == before


def test_sides_refused_before_measuring(example_fleet: Path, kb: RunKb) -> None:
    # The second question hits today: a line proposed for it has nothing to fix.
    _setup(example_fleet, kb, "sides", "remolho noturno", "cafe com levain")
    text = _run(example_fleet, kb)
    check_golden("misses_apply/sides.txt", text)
    check_golden(
        "misses_apply/sides-rejections.txt",
        (example_fleet / "kb-alias-rejections.txt").read_text(encoding="utf-8"),
    )
    assert not (example_fleet / "fleet" / "bruno" / "kb-aliases.txt").exists()


@pytest.mark.parametrize(
    ("mode", "counts"),
    [
        ("malformed", "proposer: 0 declined, 0 silent, 1 unparseable\n"),
        ("none", "proposer: 1 declined, 0 silent, 0 unparseable\n"),
        ("hang", "proposer: 0 declined, 1 silent, 0 unparseable\n"),
    ],
)
def test_proposer_said_nothing(example_fleet: Path, kb: RunKb, mode: str, counts: str) -> None:
    _setup(example_fleet, kb, mode, "remolho noturno")
    text = _run(example_fleet, kb)
    assert "proposed: 0, admitted: 0, refused: 0\n" + counts in text
    check_golden(f"misses_apply/{mode}.txt", text)
    assert not (example_fleet / "kb-alias-rejections.txt").exists()
    assert not (example_fleet / "fleet" / "bruno" / "kb-aliases.txt").exists()
