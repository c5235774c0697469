"""Properties of `kb list --where` / `--sort` (kb.pure.notes.frontmatter, kb.pure.fleet.where, and
kb.io.answering.served.listed on a real base): the nested reader gives back what was written; k
conditions select exactly the intersection of what each selects alone; the sort is stable,
ordered, and puts missing values last.
"""

from __future__ import annotations

import itertools
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.io.answering.memory import Memory
from kb.io.answering.served import listed
from kb.io.notes.indexer import index_bases
from kb.pure.fleet.listing import Facets, Row
from kb.pure.fleet.where import ROW_FIELDS, Condition, holds, holds_all, sort_rows
from kb.pure.notes.frontmatter import Fields, parse

PROPS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

KEYS = ("type", "status", "area", "tags", "relations", "supports", "review", "state", "due")
VALUES = ("plan", "note", "done", "Done", "in-progress", "Infra", "infra", "2", "10", "x y")

scalar = st.sampled_from(VALUES)
tree = st.recursive(
    scalar | st.lists(scalar, max_size=3),
    lambda inner: st.dictionaries(st.sampled_from(KEYS), inner, min_size=1, max_size=3),
    max_leaves=8,
)
specs = st.dictionaries(st.sampled_from(KEYS), tree, max_size=5)


@st.composite
def rendered(draw: st.DrawFn, spec: dict[str, Any]) -> str:
    """`spec` written as front matter in one of the styles people use."""
    step = draw(st.sampled_from([2, 4]))
    lines: list[str] = []

    def put(fields: dict[str, Any], pad: int) -> None:
        for key, value in fields.items():
            at = " " * pad
            if isinstance(value, str):
                quoted = draw(st.sampled_from(["{}", '"{}"', "'{}'", "{}  # note"]))
                lines.append(f"{at}{key}: {quoted.format(value)}")
            elif isinstance(value, list):
                if not value or draw(st.booleans()):
                    lines.append(f"{at}{key}: [{', '.join(value)}]")
                else:
                    lines.append(f"{at}{key}:")
                    item_pad = pad + step if draw(st.booleans()) else pad  # compact form
                    lines.extend(f"{' ' * item_pad}- {v}" for v in value)
            else:
                lines.append(f"{at}{key}:")
                put(value, pad + step)

    put(spec, 0)
    return "\n".join(["---", *lines, "---", "# A note", "", "Text."]) + "\n"


def plain(value: Any) -> Any:
    if isinstance(value, Fields):
        return {k: plain(v) for k, v in value.pairs}
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value


@PROPS
@given(st.data(), specs)
def test_nested_front_matter_reads_back_what_was_written(
    data: st.DataObject, spec: dict[str, Any]
) -> None:
    assert plain(parse(data.draw(rendered(spec)))) == spec


def paths_of(spec: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [prefix] if prefix else []
    if isinstance(spec, dict):
        for k, v in spec.items():
            out += paths_of(v, (*prefix, k))
    return out


@st.composite
def corpus(draw: st.DrawFn) -> tuple[list[Fields], list[Condition]]:
    notes = draw(st.lists(specs, min_size=1, max_size=6))
    fronts = [parse(draw(rendered(n))) for n in notes]
    known = sorted({p for n in notes for p in paths_of(n)}) or [("type",)]
    conditions = draw(
        st.lists(
            st.builds(
                Condition,
                st.sampled_from(known) | st.tuples(st.sampled_from(KEYS)),
                scalar.map(str.upper) | scalar,
            ),
            min_size=1,
            max_size=4,
        )
    )
    return fronts, conditions


@PROPS
@given(corpus())
def test_k_conditions_select_the_intersection(case: tuple[list[Fields], list[Condition]]) -> None:
    fronts, conditions = case
    together = {i for i, f in enumerate(fronts) if holds_all(f, conditions)}
    alone = [{i for i, f in enumerate(fronts) if holds(f, c)} for c in conditions]
    assert together == set.intersection(*alone)


def _row(i: int, title: str, stage: str | None) -> Row:
    return Row("b", f"n{i:02d}.md", title, "memory", "long", "", None, stage, False)


TITLES = ("alpha", "Alpha", "beta", "", "10", "9", "2.5")


@st.composite
def rows_and_fronts(draw: st.DrawFn) -> tuple[list[Row], list[Fields]]:
    n = draw(st.integers(0, 12))
    rows = [
        _row(i, draw(st.sampled_from(TITLES)), draw(st.sampled_from([None, "raw", "Raw"])))
        for i in range(n)
    ]
    fronts = [parse(draw(rendered(draw(specs)))) for _ in range(n)]
    return rows, fronts


_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")


def oracle(value: Any) -> tuple[int, float, str]:
    """The documented order: numbers (numerically), then text ignoring case, then missing."""
    if isinstance(value, list):
        value = ", ".join(v for v in value if isinstance(v, str))
    if not isinstance(value, str) or not value:
        return (2, 0.0, "")
    if _NUMBER.fullmatch(value):
        return (0, float(value), "")
    return (1, 0.0, value.casefold())


@PROPS
@given(rows_and_fronts(), st.sampled_from([*ROW_FIELDS, "type", "review.state", "tags"]))
def test_sort_is_stable_ordered_and_puts_missing_last(
    case: tuple[list[Row], list[Fields]], field: str
) -> None:
    rows, fronts = case
    out = sort_rows(rows, field, fronts)
    assert sorted(out, key=lambda r: r.path) == rows  # a permutation
    by_path = {r.path: i for i, r in enumerate(rows)}

    def value(r: Row) -> Any:
        if field in ROW_FIELDS:
            return getattr(r, field)
        f: Any = plain(fronts[by_path[r.path]])
        for step in field.split("."):
            f = f.get(step) if isinstance(f, dict) else None
        return f

    keys = [oracle(value(r)) for r in out]
    assert keys == sorted(keys)
    for a, b in itertools.pairwise(out):  # ties keep the listing order
        if oracle(value(a)) == oracle(value(b)):
            assert by_path[a.path] < by_path[b.path]
    assert sort_rows(out, field, [fronts[by_path[r.path]] for r in out]) == out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.lists(specs, min_size=1, max_size=5))
def test_listed_on_disk_is_the_intersection(
    data: st.DataObject, notes: list[dict[str, Any]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "vault"
        (base / "notes").mkdir(parents=True)
        for i, spec in enumerate(notes):
            (base / "notes" / f"n{i}.md").write_text(data.draw(rendered(spec)), encoding="utf-8")
        index_bases([str(base)], False)
        known = sorted({p for n in notes for p in paths_of(n)}) or [("type",)]
        conditions = data.draw(
            st.lists(st.builds(Condition, st.sampled_from(known), scalar), min_size=1, max_size=3)
        )
        with Memory.open([str(base)]) as memory:
            together = {r.path for r in listed(memory, Facets(), conditions)}
            alone = [{r.path for r in listed(memory, Facets(), [c])} for c in conditions]
        assert together == set.intersection(*alone)


@PROPS
@given(st.lists(st.text(alphabet=" -:#[]|>ab\"'\t", max_size=12), max_size=15))
def test_the_reader_never_fails_on_any_front_matter(lines: list[str]) -> None:
    parse("---\n" + "\n".join(lines) + "\n---\n")


def test_the_reader_is_bounded_on_deep_nesting() -> None:
    deep = "---\n" + "".join(" " * i + f"k{i}:\n" for i in range(3000)) + "---\n"
    assert parse(deep).get("k0") is not None
