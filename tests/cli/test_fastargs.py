"""The hot verbs' small parser and cyclopts must read every command line the same way."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.shell.cli.fastargs import fast_parse
from kb.shell.cli.inputs import GRAPH_FORMATS, LINK_DIRECTIONS, FleetInput, ListInput, RouteInput
from kb.shell.cli.main import _parse
from kb.shell.cli.outcome import Outcome
from kb.shell.cli.table import BY_NAME

word = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12
).filter(lambda s: not s.startswith("-") and s.strip() == s and s != "")

flag_tokens = st.lists(
    st.one_of(
        st.sampled_from([["--json"], ["--all"], ["--hybrid"], ["--context"], ["--exit-code"]]),
        st.integers(min_value=0, max_value=500).map(lambda n: ["--top", str(n)]),
        st.integers(min_value=0, max_value=20_000).map(lambda n: ["--context-chars", str(n)]),
        st.integers(min_value=0, max_value=20_000).map(lambda n: ["--context-total", str(n)]),
    ),
    max_size=6,
    unique_by=lambda t: t[0],
)


def _agrees(input_type: type[Any], verb: str, argv: list[str]) -> None:
    """Well-formed arguments: the fast parser answers, exactly as cyclopts does."""
    slow = _parse(BY_NAME[verb], argv)
    assert not isinstance(slow, Outcome), slow
    assert fast_parse(input_type, argv) == slow


@st.composite
def route_argv(draw: st.DrawFn) -> list[str]:
    positionals = [draw(word), *draw(st.lists(word, max_size=3))]
    flags = draw(flag_tokens)
    tokens: list[list[str]] = [[p] for p in positionals]
    for flag in flags:  # flags may sit anywhere after the question
        tokens.insert(draw(st.integers(min_value=1, max_value=len(tokens))), flag)
    return [t for group in tokens for t in group]


@settings(max_examples=150, deadline=None)
@given(route_argv())
def test_fast_parser_agrees_with_cyclopts_on_well_formed_route(argv: list[str]) -> None:
    _agrees(RouteInput, "route", argv)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            word,
            st.sampled_from(
                [
                    "--top",
                    "--json",
                    "-x",
                    "--top=3",
                    "--kind",
                    "--context",
                    "--context-chars",
                    "--context_total",
                    "--exit-code",
                    "--exit_code",
                    "-1",
                    "12",
                ]
            ),
        ),
        max_size=6,
    )
)
def test_fast_parser_never_disagrees_it_only_declines(argv: list[str]) -> None:
    fast = fast_parse(RouteInput, argv)
    if fast is not None:
        assert fast == _parse(BY_NAME["route"], argv)


def test_declines_what_it_does_not_handle() -> None:
    assert fast_parse(RouteInput, []) is None
    assert fast_parse(RouteInput, ["q", "--top", "abc"]) is None
    assert fast_parse(RouteInput, ["q", "--top=3"]) is None
    assert fast_parse(RouteInput, ["q", "--json", "--json"]) is None
    assert fast_parse(RouteInput, ["q", "--nope"]) is None
    assert fast_parse(RouteInput, ["q", "--context-chars", "-1"]) is None
    assert fast_parse(RouteInput, ["q", "--context_chars", "10"]) is None
    assert fast_parse(RouteInput, ["q", "--context", "--context-total", "90"]) == RouteInput(
        "q", context=True, context_total=90
    )
    assert fast_parse(ListInput, ["a", "--kind", "tools"]) == ListInput(paths=("a",), kind="tools")


def test_exit_code_is_read_by_the_fast_parser() -> None:
    """`kb route q --exit-code` stays on the fast path (issue 16): no cyclopts for it."""
    parsed = fast_parse(RouteInput, ["q", "fleet", "--exit-code"])
    assert parsed == RouteInput(question="q", paths=("fleet",), exit_code=True)


# `kb list` and `kb fleet` are parsed by the small parser too (issue 15): cyclopts alone cost
# them ~60 ms a process. The same two promises hold for them.
list_flag_tokens = st.lists(
    st.one_of(
        st.sampled_from([["--json"], ["--all"]]),
        st.tuples(
            st.sampled_from(["--base", "--folder", "--kind", "--stage", "--provenance", "--sort"]),
            word,
        ).map(list),
    ),
    max_size=6,
    unique_by=lambda t: t[0],
)


@st.composite
def list_argv(draw: st.DrawFn) -> list[str]:
    tokens: list[list[str]] = [[p] for p in draw(st.lists(word, max_size=3))]
    for flag in draw(list_flag_tokens):  # flags may sit anywhere, before the paths too
        tokens.insert(draw(st.integers(min_value=0, max_value=len(tokens))), flag)
    return [t for group in tokens for t in group]


@settings(max_examples=150, deadline=None)
@given(list_argv())
def test_fast_parser_agrees_with_cyclopts_on_well_formed_list(argv: list[str]) -> None:
    _agrees(ListInput, "list", argv)


@st.composite
def fleet_argv(draw: st.DrawFn) -> list[str]:
    tokens = draw(st.lists(word, max_size=3))
    for flag in draw(st.lists(st.sampled_from(["--json", "--all"]), max_size=2, unique=True)):
        tokens.insert(draw(st.integers(min_value=0, max_value=len(tokens))), flag)
    return tokens


@settings(max_examples=100, deadline=None)
@given(fleet_argv())
def test_fast_parser_agrees_with_cyclopts_on_well_formed_fleet(argv: list[str]) -> None:
    _agrees(FleetInput, "fleet", argv)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            word,
            st.sampled_from(
                [
                    "--where",
                    "k=v",
                    "--sort",
                    "--kind",
                    "--kind=tools",
                    "--json",
                    "--all",
                    "--paths",
                    "-x",
                    "--base",
                    "-1",
                    "12",
                ]
            ),
        ),
        max_size=6,
    )
)
def test_fast_parser_never_disagrees_on_list_it_only_declines(argv: list[str]) -> None:
    fast = fast_parse(ListInput, argv)
    if fast is not None:
        assert fast == _parse(BY_NAME["list"], argv)
    fleet = fast_parse(FleetInput, argv)
    if fleet is not None:
        assert fleet == _parse(BY_NAME["fleet"], argv)


# `kb links` and `kb graph` too (decision 0051): cyclopts added 7.5 MB to a process held to
# 60 MB at 100,000 notes. Both their well-formed lines and everything else.
graph_flag_tokens = st.lists(
    st.one_of(
        st.just(["--all"]),
        st.just(["--json"]),
        st.tuples(
            st.sampled_from(["--format", "--direction"]),
            st.sampled_from(["mermaid", "dot", "json", "out", "in", "both"]),
        ).map(list),
        st.tuples(st.sampled_from(["--note", "--key"]), word).map(list),
        st.tuples(st.sampled_from(["--limit", "--depth"]), st.integers(0, 500).map(str)).map(list),
    ),
    max_size=5,
    unique_by=lambda t: t[0],
)


@st.composite
def graph_argv(draw: st.DrawFn, verb: str) -> list[str]:
    legal = {
        "graph": ("--all", "--format", "--note", "--key", "--limit"),
        "links": ("--all", "--json", "--direction", "--depth", "--limit"),
    }[verb]
    positionals = draw(st.lists(word, min_size=1 if verb == "links" else 0, max_size=3))
    tokens: list[list[str]] = [[p] for p in positionals]
    for flag in draw(graph_flag_tokens):
        if flag[0] not in legal or (flag[0] == "--format" and flag[1] not in GRAPH_FORMATS):
            continue
        if flag[0] == "--direction" and flag[1] not in LINK_DIRECTIONS:
            continue
        first = 1 if verb == "links" else 0  # the note comes first
        tokens.insert(draw(st.integers(min_value=first, max_value=len(tokens))), flag)
    return [t for group in tokens for t in group]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(("graph", "links")).flatmap(lambda v: st.tuples(st.just(v), graph_argv(v))))
def test_fast_parser_agrees_with_cyclopts_on_well_formed_graph_and_links(
    verb_argv: tuple[str, list[str]],
) -> None:
    verb, argv = verb_argv
    _agrees(BY_NAME[verb].input_type, verb, argv)


GRAPH_WORDS = (
    "--format", "dot", "bogus", "--limit", "-1", "7", "--note", "--key", "--depth",
    "--direction", "sideways", "in", "--json", "--all", "--format=dot", "-x",
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            word,
            st.sampled_from(GRAPH_WORDS),
        ),
        max_size=6,
    )
)
def test_fast_parser_never_disagrees_on_graph_or_links_it_only_declines(argv: list[str]) -> None:
    for verb in ("graph", "links"):
        fast = fast_parse(BY_NAME[verb].input_type, argv)
        if fast is not None:
            assert fast == _parse(BY_NAME[verb], argv)
