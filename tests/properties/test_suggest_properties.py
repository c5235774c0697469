"""The trigram-indexed suggester answers exactly what the full scan answers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.entries import Entry
from kb.pure.suggest import SuggestIndex, look_alike, suggest, suggest_among
from kb.pure.tokens import normalise

WORDS = [
    "publico",
    "public",
    "repositorio",
    "repository",
    "ingestao",
    "ingest",
    "quando",
    "K-quant",
    "deploy",
    "deployment",
    "rollback",
    "roll",
    "ab",
    "a",
    "zz",
    "backup",
    "backups",
    "restaurar",
    "restore",
    "café",
    "cafe",
    "nunca",
    "never",
]
key = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)


@st.composite
def fleets(draw: st.DrawFn) -> list[Entry]:
    n = draw(st.integers(0, 8))
    return [
        Entry("b", f"n{i}.md", f"n{i}", "", tuple(draw(st.lists(key, max_size=6))), "")
        for i in range(n)
    ]


@settings(max_examples=300)
@given(entries=fleets(), question=key, limit=st.integers(1, 10))
def test_index_equals_full_scan(entries: list[Entry], question: str, limit: int) -> None:
    expected = suggest(question, entries, limit)
    assert SuggestIndex.of_entries(entries).suggest(question, limit) == expected
    pairs = [(k, " ".join(normalise(k))) for e in entries for k in e.keywords]
    assert suggest_among(question, pairs, limit) == expected


def test_reference_values() -> None:
    assert round(look_alike("publico", "public"), 2) == 0.89
    assert round(look_alike("ingestao", "ingest"), 2) == 0.80
    assert round(look_alike("quando", "quant"), 3) == 0.571  # `K-quant` normalises to `quant`
    assert (
        SuggestIndex.of_entries([Entry("b", "x.md", "x", "", ("never",), "")]).suggest("nunca")
        == []
    )
