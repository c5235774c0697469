"""Properties of `kb check`: extraction (§2.3, §2.5), grouping (§2.2), and E02 against the index.

The extraction oracle is structural: texts are built from pieces whose kind is known (plain
prose, inline code, fenced blocks), code pieces carry markers no prose piece can contain,
and no extracted target or token may ever carry a marker.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.io.answering.memory import Memory
from kb.io.notes.walk import BaseSnapshot
from kb.io.writing.checker import check_read, discover_fleet, read_base, read_fleet
from kb.pure.notes.header import lines_of
from kb.pure.notes.links import citations, wikilinks
from kb.pure.writing.checks import (
    BaseFacts,
    Finding,
    check_base,
    counts,
    fleet_stems,
    group_findings,
    group_line,
    judge_base,
    judge_found,
)
from tests.properties.strategies import FleetSpec, fleets, write_fleet

MARK = "\u00a7"  # appears only inside code; prose is drawn without it

FAST = settings(max_examples=200, deadline=None)
FLEET_SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Prose: anything but a backtick, a tilde, a newline or the marker, salted with the brackets
# the scanners look for so links and citations actually occur.
_prose_chars = st.characters(exclude_characters="`~\n\r" + MARK)
prose = st.lists(
    st.one_of(
        st.text(_prose_chars, max_size=8),
        st.sampled_from(["[[", "]]", "|", "#", "[src:", "]", " ", "[[a]]", "[src:K]"]),
    ),
    max_size=8,
).map("".join)
# Code content: may hold anything a prose piece holds, plus the marker inside would-be links.
code_body = st.lists(
    st.one_of(
        st.text(_prose_chars, max_size=6),
        st.just(f"[[{MARK}]]"),
        st.just(f"[src:{MARK}]"),
        st.just(f"[[x{MARK}|y]]"),
    ),
    max_size=5,
).map("".join)
inline_code = code_body.map(lambda s: f"`{s}`")
fence_marker = st.sampled_from(["```", "~~~", "  ```python", "\t~~~~"])


@st.composite
def line_outside(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.one_of(prose, inline_code), max_size=5))
    text = "".join(pieces)
    # Two inline spans side by side (`` then `x`) can open a line with three backticks,
    # which is a fence marker: such a line is not the plain line this strategy promises.
    return "x " + text if text.lstrip().startswith(("```", "~~~")) else text


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            lines.append(draw(line_outside()))
        else:
            lines.append(draw(fence_marker))
            lines += draw(st.lists(code_body, max_size=3))  # no line starts with a marker
            lines.append(draw(fence_marker))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    final = draw(st.booleans())
    return end.join(lines) + (end if lines and final else "")


@FAST
@given(st.text())
def test_extraction_never_raises(text: str) -> None:
    for line, target in wikilinks(text):
        assert line >= 1 and target == target.strip() and target
    for line, _token in citations(text):
        assert line >= 1


@FAST
@given(documents())
def test_nothing_is_extracted_from_code_or_fences(text: str) -> None:
    n_lines = len(lines_of(text))
    for line, target in wikilinks(text):
        assert MARK not in target
        assert 1 <= line <= n_lines
    for line, token in citations(text):
        assert MARK not in token
        assert 1 <= line <= n_lines


@FAST
@given(prose, st.text(_prose_chars, min_size=1, max_size=6).filter(lambda t: t.strip() == t))
def test_a_plain_link_outside_code_is_found_on_its_line(before: str, target: str) -> None:
    if any(c in target for c in "[]|#"):
        return
    text = f"first line\n{before.replace('[[', '').replace('[src:', '')} [[{target}]]\n"
    assert (2, target) in wikilinks(text)


findings_strategy = st.lists(
    st.builds(
        Finding,
        file=st.sampled_from(["a.md", "b.md", "sources/X.txt", ".gitignore"]),
        line=st.integers(0, 12),
        code=st.sampled_from(["E01", "E02", "W03", "W06"]),
        level=st.sampled_from(["error", "warning"]),
        message=st.sampled_from(["one", "two", "three"]),
    ),
    max_size=40,
)


@FAST
@given(findings_strategy)
def test_grouping_preserves_every_finding(findings: list[Finding]) -> None:
    groups = group_findings(findings)
    assert sum(len(g.lines) for g in groups) == len(findings)
    assert len({(g.file, g.code, g.message) for g in groups}) == len(groups)
    for g in groups:
        assert list(g.lines) == sorted(g.lines)
        line = group_line(g)
        if len(g.lines) > 1:
            assert f"  ({len(g.lines)} times, also on " in line
            if len(g.lines) > 4:
                assert line.endswith(f", and {len(g.lines) - 4} more)")
    order = [(g.file, g.lines[0], g.code) for g in groups]
    assert order == sorted(order)
    assert sum(counts(findings)) == len(findings)


def _e02(bases: list[object]) -> set[str]:
    out: set[str] = set()
    for b in bases:
        if isinstance(b, BaseFacts):
            out |= {f"{b.label}/{f.file}" for f in check_base(b) if f.code == "E02"}
    return out


@FLEET_SETTINGS
@given(fleet=fleets(), include_private=st.booleans())
def test_e02_names_exactly_what_the_index_counts_unreachable(
    fleet: FleetSpec, include_private: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_fleet(root, fleet)
        e02 = _e02(list(read_fleet([str(root)], include_private)))
        with Memory.open([str(root)], all=include_private) as memory:
            unreachable = set(memory.unreachable)
        assert e02 == unreachable


@FLEET_SETTINGS
@given(fleet=fleets(), include_private=st.booleans())
def test_a_base_judged_file_by_file_as_read_is_judged_as_when_held_whole(
    fleet: FleetSpec, include_private: bool
) -> None:
    # `kb check` judges each file as it reads it (kb.io.writing.checker.check_read) and holds
    # no base's text; the reading room holds every text (read_base): one report either way
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_fleet(root, fleet)
        snaps = [
            s for s in discover_fleet([str(root)], include_private) if isinstance(s, BaseSnapshot)
        ]
        stems = fleet_stems((s.name, [f.rel for f in s.files]) for s in snaps)
        for snap in snaps:
            facts, found = check_read(snap, include_private)
            assert facts.texts == ()
            held = read_base(snap, include_private)
            assert facts.skipped == held.skipped
            assert judge_found(facts, found, stems) == judge_base(held, stems)
