"""Golden files for `kb route --context` on tests/fixtures/context-fleet: a size guide whose
shoe table is larger than the per-file budget, a returns note that fits whole, a short-memory
deposit in inbox/, and totals smaller than the top hit.

Regenerate only on purpose: KB_UPDATE_GOLDEN=1 python -m pytest tests/golden/test_context.py,
then review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.pure.answering.context import TOP_FLOOR, nbytes
from tests.conftest import REPO, RunKb, _copy, check_golden

FIXTURE = REPO / "tests" / "fixtures" / "context-fleet"

CASES: list[tuple[str, list[str]]] = [
    ("shoe-sizes.txt", ["shoe sizes"]),
    ("shoe-sizes.json", ["shoe sizes", "--json"]),
    ("returns-whole.txt", ["return policy refund"]),
    ("dress-sizes.txt", ["dress sizes conversion"]),
    ("total-600.txt", ["shoe sizes", "--context-total", "600"]),
    ("total-600.json", ["shoe sizes", "--context-total", "600", "--json"]),
    ("total-50.txt", ["shoe sizes", "--context-total", "50"]),
    ("chars-300.txt", ["shoe sizes", "--context-chars", "300"]),
]


@pytest.fixture
def shop(tmp_path: Path, kb: RunKb) -> Path:
    fleet = _copy(FIXTURE, tmp_path / "context-fleet")
    assert kb(["index"], cwd=fleet).code == 0
    return fleet


@pytest.mark.parametrize(("name", "args"), CASES, ids=[c[0] for c in CASES])
def test_context_output(shop: Path, kb: RunKb, name: str, args: list[str]) -> None:
    out = kb(["route", *args[:1], "--context", *args[1:]], cwd=shop)
    assert out.code == 0, out.stderr
    assert out.stderr == ""
    check_golden(f"context/{name}", out.stdout)


def test_budgets_hold_on_the_fixture(shop: Path, kb: RunKb) -> None:
    default = kb(["route", "shoe sizes", "--context"], cwd=shop).stdout
    assert nbytes(default) <= 8000
    top_block = default.split("\n\n---\n\n")[0]
    assert nbytes(top_block) <= 4000 + nbytes("## Size guide\n\n")
    # the shoe table is larger than the budget: whole rows from its start, header included
    rows = [line for line in top_block.splitlines() if line.startswith("|")]
    source = (shop / "fleet/shop/knowledge/size-guide.md").read_text(encoding="utf-8")
    table = [line for line in source.splitlines() if line.startswith("| ") and "cm |" in line]
    assert rows[0].startswith("| EU | UK | US men")
    assert rows[2:] == table[: len(rows) - 2]
    assert (
        nbytes(kb(["route", "shoe sizes", "--context", "--context-total", "600"], cwd=shop).stdout)
        <= 600
    )
    tiny = kb(["route", "shoe sizes", "--context", "--context-total", "50"], cwd=shop).stdout
    assert tiny.startswith("## Size guide\n")
    assert nbytes(tiny) <= nbytes("## Size guide") + 3 + TOP_FLOOR


def test_json_carries_the_same_excerpts(shop: Path, kb: RunKb) -> None:
    for extra in ([], ["--context-total", "600"], ["--context-chars", "300"]):
        text = kb(["route", "shoe sizes", "--context", *extra], cwd=shop).stdout
        items = json.loads(
            kb(["route", "shoe sizes", "--context", "--json", *extra], cwd=shop).stdout
        )
        assert [list(item) for item in items] == [
            ["id", "memory", "text", "title", "truncated"] for _ in items
        ]
        blocks = text[:-1].split("\n\n---\n\n")
        assert len(blocks) == len(items)
        for block, item in zip(blocks, items, strict=True):
            head, _, body = block.partition("\n\n")
            assert head.startswith(f"## {item['title']}")
            assert body == item["text"]
            assert ("[short memory" in head) == (item["memory"] == "short")
    whole = json.loads(
        kb(["route", "return policy refund", "--context", "--json"], cwd=shop).stdout
    )
    assert whole[0]["id"] == "shop/knowledge/returns.md" and not whole[0]["truncated"]


def test_refusal_prints_no_context(shop: Path, kb: RunKb) -> None:
    for extra in ([], ["--json"]):
        out = kb(["route", "how far away is the andromeda galaxy", "--context", *extra], cwd=shop)
        assert out.code == 0
        assert out.stdout == ("[]\n" if extra else "")
        assert out.stderr == (
            "kb: nothing here answers this question (verdict: nothing); no context given\n"
        )


def test_budget_flags_need_context(shop: Path, kb: RunKb) -> None:
    out = kb(["route", "shoe sizes", "--context-chars", "100"], cwd=shop)
    assert out.code == 2
    assert out.stdout == ""
    assert out.stderr == (
        "kb route: --context-chars is a budget for --context; add --context or drop it\n"
    )
    bad = kb(["route", "shoe sizes", "--context", "--context-total", "-5"], cwd=shop)
    assert bad.code == 2
    assert bad.stderr == "kb route: --context-total takes a number of bytes, 0 or more, not -5\n"
    plain = kb(["route", "shoe sizes"], cwd=shop)
    assert plain.code == 0 and plain.stdout.splitlines()[1] == "question: shoe sizes"


def test_context_never_serves_the_private_layer_without_all(example_fleet: Path, kb: RunKb) -> None:
    assert kb(["index", "--all"], cwd=example_fleet).code == 0
    q = "quillfeather contract"
    hidden = kb(["route", q, "--context"], cwd=example_fleet)
    assert hidden.code == 0 and "Quillfeather" not in hidden.stdout
    assert "quillfeather" not in kb(["route", q, "--context", "--json"], cwd=example_fleet).stdout
    shown = kb(["route", q, "--context", "--all"], cwd=example_fleet).stdout
    assert "## Quillfeather Logistics contract terms" in shown
