"""Golden files for `kb list --where` / `--sort`, on the example fleet (flat front matter)
and on tests/fixtures/where-fleet (nested front matter, tags in both list forms, records,
numbers next to words), plus the refusals and the MCP projection (`kb_list`'s `where`).

Regenerate only on purpose: KB_UPDATE_GOLDEN=1 python -m pytest tests/golden/test_where.py,
then review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.io.answering.memory import Memory
from kb.shell.mcp.mcp_tools import BY_TOOL, ToolError
from tests.conftest import REPO, RunKb, _copy, check_golden

FIXTURE = REPO / "tests" / "fixtures" / "where-fleet"

EXAMPLE_CASES: list[tuple[str, list[str]]] = [
    ("list-where-stage-raw.txt", ["--where", "stage=raw"]),
    ("list-where-provenance-sort-title.txt", ["--where", "provenance=agent", "--sort", "title"]),
    ("list-where-and-facet.json", ["--where", "stage=distilled", "--kind", "memory", "--json"]),
    ("list-sort-stage.txt", ["--sort", "stage"]),
    ("list-where-case.txt", ["--where", "stage=Raw"]),
]

FIXTURE_CASES: list[tuple[str, list[str]]] = [
    ("plan.txt", ["--where", "type=plan"]),
    (
        "plan-in-progress-sort-area.txt",
        ["--where", "type=plan", "--where", "status=in-progress", "--sort", "area"],
    ),
    (
        "plan-in-progress-sort-area.json",
        ["--where", "type=plan", "--where", "status=in-progress", "--sort", "area", "--json"],
    ),
    ("tags-any-case.txt", ["--where", "tags=LOCAL-FIRST"]),
    ("tags-inline.json", ["--where", "tags=storage", "--json"]),
    ("nested-list.txt", ["--where", "relations.supports=notes/durable-memory"]),
    ("nested-scalar.txt", ["--where", "review.state=open"]),
    ("scalar-case-sensitive.txt", ["--where", "status=In-progress"]),
    ("quoted-with-comment.txt", ["--where", "area=memory"]),
    ("sort-priority.txt", ["--sort", "priority"]),
    ("sort-nested.txt", ["--sort", "review.due"]),
    ("sort-title.txt", ["--where", "type=note", "--sort", "title"]),
]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return _copy(FIXTURE, tmp_path / "where-fleet")


@pytest.mark.parametrize(("name", "args"), EXAMPLE_CASES, ids=[c[0] for c in EXAMPLE_CASES])
def test_where_on_example_fleet(example_fleet: Path, kb: RunKb, name: str, args: list[str]) -> None:
    out = kb(["list", *args], cwd=example_fleet)
    assert out.code == 0, out.stderr
    check_golden(f"example/{name}", out.stdout)


@pytest.mark.parametrize(("name", "args"), FIXTURE_CASES, ids=[c[0] for c in FIXTURE_CASES])
def test_where_on_nested_fixture(vault: Path, kb: RunKb, name: str, args: list[str]) -> None:
    out = kb(["list", *args], cwd=vault)
    assert out.code == 0, out.stderr
    check_golden(f"where/{name}", out.stdout)


@pytest.mark.parametrize(
    "bad", ["status", "=done", " =done", "review..state=open", ".state=open", "state.=x"]
)
def test_malformed_where_is_a_usage_error(vault: Path, kb: RunKb, bad: str) -> None:
    out = kb(["list", "--where", "type=plan", "--where", bad], cwd=vault)
    assert out.code == 2
    assert out.stdout == ""
    assert out.stderr == (
        "kb: --where takes key=value, a front-matter key (dotted for nested keys) and the "
        "value it must have, e.g. --where status=done or --where relations.supports=notes/a "
        f"(got {bad!r})\n"
    )


def test_facets_are_checked_first_and_sort_needs_a_name(vault: Path, kb: RunKb) -> None:
    out = kb(["list", "--kind", "memories", "--where", "nonsense"], cwd=vault)
    assert out.code == 2
    assert out.stderr == (
        "kb: --kind memories is not a value this facet has. Legal: memory, skills, tools\n"
    )
    blank = kb(["list", "--sort", " "], cwd=vault)
    assert blank.code == 2
    assert blank.stderr.startswith("kb: --sort takes a field name: one of base, path, title")
    # an empty value is a legal condition: it asks for a key that is present and blank
    assert kb(["list", "--where", "status="], cwd=vault).code == 0


def test_mcp_kb_list_where_agrees_with_the_cli(vault: Path, kb: RunKb) -> None:
    cli = json.loads(
        kb(
            [
                "list",
                "--where",
                "type=plan",
                "--where",
                "status=in-progress",
                "--sort",
                "area",
                "--json",
            ],
            cwd=vault,
        ).stdout
    )
    tool = BY_TOOL["kb_list"]
    assert "where" in tool.input_schema()["properties"]
    with Memory.open([str(vault)]) as memory:
        reply = tool.handler(memory, {"where": "type=plan; status=in-progress;", "sort": "area"}, 5)
        rows = reply.text.split("\n\n", 1)[1].splitlines()
        assert [r.split("  ")[0] for r in rows] == [f"{r['base']}/{r['path']}" for r in cli]
        assert reply.data["files"] == cli
        with pytest.raises(ToolError, match=r"^where takes key=value.*\(got ' status'\)$"):
            tool.handler(memory, {"where": "type=plan; status"}, 5)
