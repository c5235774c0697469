"""Invariants of the session path: session file names, block pricing, keyword stripping,
the classifier's reply, envelopes and the routed text."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.answering.decompose import decompose_query
from kb.pure.notes.header import SEARCH_LABELS, labelled
from kb.pure.roles.classify import MAX_PANEL, parse_reply
from kb.pure.sessions.blocks import (
    Block,
    BlockFile,
    BlockSpec,
    assemble,
    code_bytes,
    invalidation_costs,
    measure,
    parse_blocks,
    strip_keyword_lines,
)
from kb.pure.sessions.bootinput import ROUTE_BUDGET, routed_text, strip_envelopes
from kb.pure.sessions.session import safe_session

ROOT = Path("/fleet")
SESSIONS = ROOT / ".kb" / "sessions"

# Text made of pieces that matter to the rules (labels, emphasis, fences, backticks, commas)
# as well as anything at all.
PIECES = st.sampled_from(
    [
        "Search for:",
        "**Search for:**",
        "Buscar por:",
        "search FOR :",
        "`Search for:`",
        "- Search for:",
        "`a`,",
        "`b`",
        ",",
        "\n",
        "\r\n",
        " ",
        "```",
        "~~~",
        "```py",
        "word",
        "é",
        "#",
        ":",
        "*",
        "_",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=30).map("".join)


@settings(max_examples=500)
@given(st.text(min_size=1))
def test_a_session_file_never_leaves_the_sessions_folder(session: str) -> None:
    safe = safe_session(session)
    assert safe and all(c.isascii() and (c.isalnum() or c in "-_") for c in safe)
    for name in (safe, f"{safe}.events", f"{safe}.handoff.md"):
        resolved = (SESSIONS / name).resolve()
        assert resolved.parent == SESSIONS.resolve()


@settings(max_examples=300)
@given(TEXT)
def test_stripping_never_adds_bytes(text: str) -> None:
    stripped = strip_keyword_lines(text)
    assert len(stripped.encode()) <= len(text.encode())
    assert code_bytes(stripped) <= len(stripped.encode())


@settings(max_examples=300)
@given(TEXT)
def test_stripping_is_identity_without_a_labelled_line(text: str) -> None:
    if not any(labelled(line.strip(), SEARCH_LABELS) is not None for line in text.split("\n")):
        assert strip_keyword_lines(text) == text


@settings(max_examples=300)
@given(TEXT)
def test_stripping_keeps_every_line_it_does_not_drop_whole(text: str) -> None:
    kept = strip_keyword_lines(text).split("\n")
    original = text.split("\n")
    it = iter(original)
    assert all(any(line == o for o in it) for line in kept[:-1])  # a subsequence


blocks_strategy = st.lists(
    st.tuples(
        st.text(alphabet="abcdefgh", min_size=1, max_size=6),
        st.sampled_from(["resident", "on-demand"]),
        st.lists(st.one_of(st.none(), TEXT), max_size=4),
    ),
    max_size=6,
)


def _blocks(raw: list[tuple[str, str, list[str | None]]]) -> list[Block]:
    out = []
    for name, mode, texts in raw:
        files = [BlockFile(f"f{i}.md", t) for i, t in enumerate(texts)]
        spec = BlockSpec(name, mode, tuple(f.path for f in files))  # type: ignore[arg-type]
        out.append(measure(spec, files))
    return out


@settings(max_examples=300)
@given(blocks_strategy)
def test_the_cost_of_changing_a_block_is_itself_and_every_resident_block_after(
    raw: list[tuple[str, str, list[str | None]]],
) -> None:
    blocks = _blocks(raw)
    resident = [b for b in blocks if b.resident]
    costs = invalidation_costs(blocks)
    assert [name for name, _ in costs] == [b.name for b in resident]
    for i, (_, cost) in enumerate(costs):
        assert cost == sum(b.tokens for b in resident[i:])
    assert all(a >= b for (_, a), (_, b) in pairwise(costs))
    for b in blocks:
        assert b.bytes <= b.file_bytes
        assert b.code_bytes <= b.bytes
        assert len(b.files) == len(b.sent)
    emitted = assemble(blocks)
    assert emitted.count("<!-- block: ") == len(resident)


@settings(max_examples=300)
@given(TEXT)
def test_parsing_blocks_never_invents_a_file(text: str) -> None:
    listed = set()
    for raw in text.split("\n"):
        listed.add(raw.split("#", 1)[0].strip())
    for spec in parse_blocks(text):
        assert all(p in listed for p in spec.paths)


ROSTER = ["ada", "Bruno", "clara", "dora"]
NAMES = st.sampled_from([*ROSTER, "ADA", "zeus", "", "none", "-", "*bruno*", "`clara`"])


@st.composite
def replies(draw: st.DrawFn) -> str:
    lines = draw(
        st.lists(
            st.one_of(
                st.builds(lambda n: f"OWNER: {n}", NAMES),
                st.builds(
                    lambda ns: "REVIEWERS: " + "; ".join(f"{n}: why" for n in ns),
                    st.lists(NAMES, max_size=7),
                ),
                st.sampled_from(["COVERAGE: covered", "**COVERAGE:** Adjacent", "COVERAGE: x"]),
                st.text(max_size=20),
            ),
            max_size=6,
        )
    )
    return "\n".join(lines)


@settings(max_examples=500)
@given(replies())
def test_a_reply_never_names_an_agent_outside_the_roster(reply: str) -> None:
    judged = parse_reply(reply, ROSTER)
    if judged is None:
        return
    assert judged.owner is None or judged.owner in ROSTER
    names = [r.name for r in judged.reviewers]
    assert len(names) <= MAX_PANEL
    assert len(set(names)) == len(names)
    assert all(n in ROSTER for n in names)
    assert judged.owner not in names


@settings(max_examples=300)
@given(st.text(max_size=300))
def test_decomposition_yields_pieces_of_the_message(text: str) -> None:
    subs = decompose_query(text)
    if not text.strip():
        assert subs == []
        return
    assert subs
    for sub in subs:
        assert sub.strip() == sub
        assert sub in text or sub == text.strip()


@settings(max_examples=300)
@given(st.text(max_size=200), st.integers(min_value=0, max_value=12000))
def test_envelopes_and_routing_only_ever_shorten(text: str, pad: int) -> None:
    assert len(strip_envelopes(text)) <= len(text)
    long = text + "x" * pad
    assert len(routed_text(long).encode()) <= ROUTE_BUDGET + 1
    if len(long.encode()) <= ROUTE_BUDGET:
        assert routed_text(long) == long


WORD = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=10
).filter(lambda s: not s.startswith("-") and s.strip() == s)


@st.composite
def boot_argv(draw: st.DrawFn) -> list[str]:
    tokens: list[list[str]] = [[p] for p in draw(st.lists(WORD, max_size=3))]
    flags = draw(
        st.lists(
            st.one_of(
                st.sampled_from([["--all"], ["--text"]]),
                st.integers(min_value=0, max_value=99).map(lambda n: ["--top", str(n)]),
                WORD.map(lambda w: ["--session", w]),
                WORD.map(lambda w: ["--cwd", w]),
            ),
            max_size=4,
            unique_by=lambda t: t[0],
        )
    )
    for flag in flags:
        tokens.insert(draw(st.integers(min_value=0, max_value=len(tokens))), flag)
    return [t for group in tokens for t in group]


@settings(max_examples=150, deadline=None)
@given(boot_argv())
def test_boots_fast_parser_agrees_with_cyclopts(argv: list[str]) -> None:
    from kb.shell.cli.fastargs import fast_parse
    from kb.shell.cli.inputs import BootInput
    from kb.shell.cli.main import _parse
    from kb.shell.cli.table import BY_NAME

    fast = fast_parse(BootInput, argv)
    slow = _parse(BY_NAME["boot"], argv)
    assert fast is not None
    assert fast == slow
