"""Fuzz: blocks.txt (kb.pure.sessions.blocks): the grammar, the keyword-line stripping, the token
estimates and the report. blocks.txt and the files it lists are decoded strictly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kb.pure.notes.header import SEARCH_LABELS, labelled
from kb.pure.sessions import blocks
from tests.fuzz.hostile import hostile, line_of, raw_text, twice, words

block_lines = st.one_of(
    line_of(
        st.sampled_from(("[", " [", "[[", "")),
        words,
        st.sampled_from(("]", "] on-demand", "]ON-DEMAND", "] resident", "", "]]", "] #x")),
    ),
    line_of(st.sampled_from(("knowledge/", "MAP.md", "../", "/etc/", "a#b", "")), words),
    line_of(st.just("# "), words),
)
blocks_txt = hostile(block_lines)
prose_lines = st.one_of(
    line_of(
        st.sampled_from(("Search for:", "**Search for:**", "Buscar por:", "- Search for:")),
        st.sampled_from((" a, b", " a,", " `x`,", "")),
    ),
    st.sampled_from(("`cont`,", "  `more`", "```", "~~~", "````", "   ```", "    ```", "")),
    words,
)
files_text = hostile(prose_lines)

# A block that survives being written and read back: no syntax in its name or paths.
name = st.text(min_size=1, max_size=10).filter(
    lambda s: s == s.strip() and not any(c in s for c in "]#\n") and s.lower() != "on-demand"
)
path = st.text(min_size=1, max_size=12).filter(
    lambda s: s == s.strip() and not s.startswith("[") and not any(c in s for c in "#\n")
)


@given(text=blocks_txt)
def test_blocks_grammar(text: str) -> None:
    specs = twice(lambda: blocks.parse_blocks(text))
    for spec in specs:
        assert spec.mode in ("resident", "on-demand")
        assert "\n" not in spec.name and "#" not in spec.name
        assert all(p and p == p.strip() and "#" not in p and "\n" not in p for p in spec.paths)


@given(specs=st.lists(st.tuples(name, st.booleans(), st.lists(path, max_size=3)), max_size=5))
def test_blocks_round_trip(specs: list[tuple[str, bool, list[str]]]) -> None:
    text = "".join(
        f"[{n}]{' on-demand' if on_demand else ''}\n" + "".join(f"{p}\n" for p in paths)
        for n, on_demand, paths in specs
    )
    parsed = blocks.parse_blocks(text)
    assert [(b.name, b.mode == "on-demand", list(b.paths)) for b in parsed] == specs


@given(text=files_text)
def test_keyword_stripping_and_tokens(text: str) -> None:
    sent = twice(lambda: blocks.strip_keyword_lines(text))
    assert len(sent) <= len(text)
    kept = sent.split("\n")
    assert not any(labelled(line.strip(), SEARCH_LABELS) is not None for line in kept)
    if not any(labelled(line.strip(), SEARCH_LABELS) is not None for line in text.split("\n")):
        assert sent == text
    n = len(text.encode("utf-8"))
    assert 0 <= twice(lambda: blocks.code_bytes(text)) <= n
    assert twice(lambda: blocks.tokens_of(text)) >= 0
    for name_ in ("a.html", "a.md", "B.SVG", "noext", "dir\\x.xml"):
        assert blocks.tokens_of_artifact(name_, text) >= 0


@given(
    where=raw_text(max_size=40),
    listed=blocks_txt,
    texts=st.lists(st.one_of(st.none(), files_text), max_size=6),
)
def test_measured_report(where: str, listed: str, texts: list[str | None]) -> None:
    measured = []
    for spec in blocks.parse_blocks(listed):
        files = [blocks.BlockFile(p, t) for p, t in zip(spec.paths, texts, strict=False)]
        measured.append(blocks.measure(spec, files))
    report = twice(lambda: blocks.render_report(where, measured))
    assert report.endswith("\n")
    emitted = twice(lambda: blocks.assemble(measured))
    resident = [b for b in measured if b.resident]
    assert emitted.count("<!-- block: ") >= len(resident)
    costs = blocks.invalidation_costs(measured)
    assert [c for _, c in costs] == sorted((c for _, c in costs), reverse=True)
