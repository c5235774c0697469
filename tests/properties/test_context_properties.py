"""Properties of `kb route --context` (kb.pure.answering.context) over generated notes and budgets.

The output never exceeds the total budget except by the top hit's mandatory minimum; a
table row is never split; every line printed comes from the served files (apart from the
headings, labels, `…` and `---` the module adds); cuts land on character boundaries.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.pure.answering.context import (
    ELLIPSIS,
    SEPARATOR,
    SHORT_LABEL,
    Budget,
    Served,
    assemble,
    body_lines,
    cut_bytes,
    mandatory_minimum,
    nbytes,
    render_json,
    render_text,
)
from kb.pure.notes.header import first_heading, lines_of

PROPS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Words with one-, two-, three- and four-byte characters, so cuts fall inside characters.
VOCAB = ("shoe", "size", "table", "drill", "café", "tamanhos", "größe", "—", "日本", "🙂", "a")
TERMS = ("shoe", "size", "table", "drill", "cafe", "tamanhos", "日本")

# Fixed pools, drawn from by index: drawing every word separately made generation, not the
# code under test, take most of the run.
_RNG = random.Random(20260502)
PROSE = [" ".join(_RNG.choices(VOCAB, k=_RNG.randint(1, 14))) for _ in range(60)]
CELLS = [" ".join(_RNG.choices(VOCAB, k=_RNG.randint(1, 3))) for _ in range(30)]
ROWS = {
    w: ["| " + " | ".join(_RNG.choices(CELLS, k=w)) + " |" for _ in range(40)] for w in range(1, 5)
}

word = st.sampled_from(VOCAB)
prose = st.sampled_from(PROSE)


@st.composite
def table(draw: st.DrawFn) -> list[str]:
    width = draw(st.integers(1, 4))
    header = draw(st.sampled_from(ROWS[width]))
    rule = "|" + "|".join("---" for _ in range(width)) + "|"
    rows = draw(st.lists(st.sampled_from(ROWS[width]), max_size=30))
    return [header, rule, *rows] if draw(st.booleans()) else [header, *rows]


@st.composite
def paragraph(draw: st.DrawFn) -> list[str]:
    kind = draw(st.sampled_from(["prose", "prose", "table", "fence", "heading", "blank", "keys"]))
    if kind == "table":
        return draw(table())
    if kind == "fence":
        return [
            "```",
            *draw(st.lists(st.one_of(prose, st.sampled_from(ROWS[1])), max_size=4)),
            "```",
        ]
    if kind == "heading":
        return [f"{'#' * draw(st.integers(2, 4))} {draw(prose)}"]
    if kind == "blank":
        return [""]
    if kind == "keys":
        return [f"**Search for:** `{draw(word)}`, `{draw(word)}`,", f"`{draw(word)}`"]
    return draw(st.lists(prose, min_size=1, max_size=4))


@st.composite
def note(draw: st.DrawFn) -> str:
    lines: list[str] = []
    if draw(st.booleans()):
        lines += ["---", f"stage: {draw(word)}", "---"]
    if draw(st.booleans()):
        lines.append(f"# {draw(prose)}")
    for block in draw(st.lists(paragraph(), max_size=12)):
        lines += [*block, ""]
    return "\n".join(lines) + ("\n" if draw(st.booleans()) else "")


@st.composite
def served_list(draw: st.DrawFn) -> list[Served]:
    texts = draw(st.lists(note(), min_size=1, max_size=4))
    return [
        Served(f"base/n{i}.md", first_heading(t), draw(st.booleans()), t)
        for i, t in enumerate(texts)
    ]


budgets = st.builds(Budget, st.integers(0, 3000), st.integers(0, 6000))
terms = st.lists(st.sampled_from(TERMS), max_size=3)


def _source_lines(served: list[Served]) -> list[str]:
    return [line for s in served for line in lines_of(s.text)]


def _added(line: str, served: list[Served]) -> bool:
    """The lines kb.pure.answering.context writes itself: headings, labels, `…`, `---`, blanks."""
    if line in ("", ELLIPSIS, SEPARATOR):
        return True
    return any(line == f"## {s.title or s.id}" + (SHORT_LABEL if s.short else "") for s in served)


@PROPS
@given(served_list(), terms, budgets)
def test_total_budget_holds_except_for_the_top_minimum(
    served: list[Served], ts: list[str], budget: Budget
) -> None:
    excerpts = assemble(served, ts, budget)
    out = render_text(excerpts)
    assert excerpts and excerpts[0].id == served[0].id  # the top hit is never dropped
    assert nbytes(out) <= max(budget.total, mandatory_minimum(served[0], budget))
    for e in excerpts:
        assert nbytes(e.text) <= budget.per_file


@PROPS
@given(served_list(), terms, budgets)
def test_no_table_row_is_ever_split(served: list[Served], ts: list[str], budget: Budget) -> None:
    source = set(_source_lines(served))
    for line in render_text(assemble(served, ts, budget)).splitlines():
        if line.startswith("|"):
            assert line in source, line


@PROPS
@given(served_list(), terms, budgets)
def test_every_line_printed_comes_from_the_served_files(
    served: list[Served], ts: list[str], budget: Budget
) -> None:
    source = _source_lines(served)
    out = render_text(assemble(served, ts, budget))
    out.encode("utf-8")  # valid UTF-8: no lone surrogate from a cut
    for line in out.splitlines():
        if _added(line, served):
            continue
        # verbatim, or (one cut line per excerpt) the start of a line, ending on a character
        assert any(src.startswith(line) for src in source), line


@PROPS
@given(served_list(), terms, budgets)
def test_json_is_the_same_excerpts(served: list[Served], ts: list[str], budget: Budget) -> None:
    excerpts = assemble(served, ts, budget)
    items = render_json(excerpts)
    assert [i["id"] for i in items] == [e.id for e in excerpts]
    blocks = render_text(excerpts)[:-1].split(f"\n\n{SEPARATOR}\n\n")
    for block, item in zip(blocks, items, strict=True):
        assert block.partition("\n\n")[2] == item["text"]


@PROPS
@given(served_list(), terms, st.integers(0, 3000))
def test_a_body_that_fits_comes_back_whole(
    served: list[Served], ts: list[str], per_file: int
) -> None:
    excerpts = assemble(served, ts, Budget(per_file, 10**9))
    for e, s in zip(excerpts, served, strict=True):
        body = "\n".join(body_lines(s.text))
        if nbytes(body) <= per_file:
            assert (e.text, e.truncated) == (body, False)
        else:
            assert e.truncated


@PROPS
@given(st.text(), st.integers(-3, 200))
def test_cuts_land_on_character_boundaries(text: str, cap: int) -> None:
    cut = cut_bytes(text, cap)
    assert text.startswith(cut)
    assert nbytes(cut) <= max(cap, 0)
    if len(cut) < len(text):  # the longest prefix: one more character would not fit
        assert nbytes(text[: len(cut) + 1]) > cap
