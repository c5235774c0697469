"""Properties of the functional core: tokens, headers, chunking, keyword scorer, verdict."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kb.pure.answering.aliases import expand
from kb.pure.answering.entries import Entry, parse_note, prepare
from kb.pure.answering.keyword import KeywordHit, KeywordIndex
from kb.pure.answering.textrank import NO_STATS, TextStats, fleet_stats
from kb.pure.answering.verdict import confidence_of, floor_for
from kb.pure.notes.chunking import chunk
from kb.pure.notes.header import first_heading, front_matter, header_of, terms_in
from kb.pure.notes.manifest import PrivateLayer
from kb.pure.notes.tokens import STOPWORDS, normalise
from tests.properties.strategies import alias_pairs, entries, questions

PURE = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BIG_TOP = 10_000


def index_of(es: list[Entry]) -> KeywordIndex:
    return KeywordIndex.of(es)


def by_entry(hits: list[KeywordHit]) -> dict[Entry, KeywordHit]:
    """Hits by their entry: a hit carries the entry unpacked again, equal but not the same
    object (kb.pure.answering.entries.Prepared), and equal entries score alike."""
    return {h.entry: h for h in hits}


# -- text that looks like markdown, and text that does not -----------------------------------

md_line = st.one_of(
    st.text(max_size=80),
    st.sampled_from(
        (
            "---",
            " --- ",
            "# Title",
            "#  ",
            "## Search for",
            "### Buscar por",
            "####### seven",
            "**Search for:** a, b; c",
            "Search for: x",
            "Buscar por: y",
            "__Exists to:__ hold things.",
            "```",
            "~~~",
            "key: value",
            " indented: value",
            "\r",
            "",
            "\x00\x1c\x85\u2028",
        )
    ),
    st.text(alphabet=st.sampled_from("ab \n#*:-`~\r\t"), max_size=200),
)
markdownish = st.one_of(
    st.text(),
    st.lists(md_line, max_size=30).map("\n".join),
    st.lists(md_line, max_size=30).map("\r\n".join),
)
# Sections long enough to be windowed (> 1,800 characters), with paragraph breaks.
long_paragraph = st.lists(
    st.text(alphabet=st.sampled_from("abcdé \n"), min_size=50, max_size=700), min_size=1
).map("\n\n".join)
chunkable = st.one_of(
    markdownish,
    st.lists(st.one_of(md_line, long_paragraph), max_size=12).map("\n".join),
    st.text(min_size=1800, max_size=6000),
)


# 7. The parsers never raise, and normalise keeps only comparable words.
@PURE
@given(text=markdownish, rel=st.text(max_size=30))
def test_parsers_never_raise_on_arbitrary_text(text: str, rel: str) -> None:
    h = header_of(text)
    assert all(isinstance(k, str) and k for k in h.keys)
    assert "\n" not in first_heading(text)
    for key, _value in front_matter(text):
        assert key and not key.startswith("#")
    for c in chunk(text):
        assert isinstance(c.text, str)
    parse_note(None, rel, text)
    terms_in(text)


@PURE
@given(text=st.one_of(st.text(), markdownish))
def test_normalise_keeps_only_comparable_words(text: str) -> None:
    out = normalise(text)
    for w in out:
        assert w, out
        assert w not in STOPWORDS, w
        assert len(w.encode("utf-8")) > 1, w
        assert all(ch.isalnum() for ch in w), w
        assert not any("A" <= ch <= "Z" for ch in w), w
    # Normalising normalised words changes nothing.
    assert normalise(" ".join(out)) == out


# 10. Chunks are non-empty, bounded, and never carry keyword lines.
@PURE
@given(text=chunkable)
def test_chunks_are_bounded_and_carry_no_keyword_lines(text: str) -> None:
    for c in chunk(text):
        assert c.text, c
        assert c.text == c.text.strip()
        assert len(c.text) <= 1800  # §8.4 MAX_CHARS
        assert "Search for:" not in c.text
        assert "Buscar por:" not in c.text


# 3. The floor grows with the fleet and is calibrated at 226 entries.
@given(n=st.integers(1, 10_000_000), step=st.integers(1, 1000))
def test_floor_is_strictly_increasing(n: int, step: int) -> None:
    assert floor_for(n) < floor_for(n + step)
    assert floor_for(n) < floor_for(n + 1)


def test_floor_calibration_points() -> None:
    assert math.isclose(floor_for(226), 17.5, abs_tol=1e-9)
    assert f"{floor_for(11):.1f}" == "6.9"
    assert floor_for(0) == 0.0
    assert 0.0 < floor_for(1) < floor_for(2)


# 4. The verdict.
scores = st.floats(min_value=1e-6, max_value=1e4, allow_nan=False, allow_infinity=False)


@st.composite
def ranked_hits(draw: st.DrawFn) -> list[KeywordHit]:
    es = draw(st.lists(entries(), max_size=5))
    ss = sorted((draw(scores) for _ in es), reverse=True)
    return [KeywordHit(e, s, ()) for e, s in zip(es, ss, strict=True)]


@PURE
@given(hits=ranked_hits(), n=st.integers(0, 1), found_text=st.booleans())
def test_never_a_hit_with_fewer_than_two_entries(
    hits: list[KeywordHit], n: int, found_text: bool
) -> None:
    text = {(h.entry.base, h.entry.rel) for h in hits} if found_text else set()
    c = confidence_of(hits, text, n)
    assert c.verdict != "hit"


@PURE
@given(hits=ranked_hits(), n=st.integers(0, 100_000), found_text=st.booleans())
def test_nothing_exactly_when_no_keyword_hit(
    hits: list[KeywordHit], n: int, found_text: bool
) -> None:
    text = {(h.entry.base, h.entry.rel) for h in hits} if found_text else set()
    c = confidence_of(hits, text, n)
    assert (c.verdict == "nothing") == (not hits)
    if hits:
        # Only the floor and the fleet size decide between hit and guess (§7.2).
        assert (c.verdict == "hit") == (n >= 2 and hits[0].score >= floor_for(n))
        assert c.keyword_score == hits[0].score
    else:
        assert (c.agreement, c.keyword_score, c.margin) == (0, 0.0, 0.0)


# 2. Alias expansion is additive.
@PURE
@given(es=st.lists(entries(), max_size=12), q=questions, aliases=alias_pairs)
def test_alias_expansion_never_lowers_a_score_nor_drops_a_result(
    es: list[Entry], q: str, aliases: tuple[tuple[str, str], ...]
) -> None:
    terms = normalise(q)
    expanded = expand(terms, aliases)
    assert expanded[: len(terms)] == terms
    assert set(expanded[len(terms) :]).isdisjoint(terms)
    index = index_of(es)
    plain = by_entry(index.rank(terms, BIG_TOP))
    more = by_entry(index.rank(expanded, BIG_TOP))
    assert plain.keys() <= more.keys()
    for key, hit in plain.items():
        assert more[key].score >= hit.score
        assert set(hit.matched) <= set(more[key].matched)


# 8. A question made only of a note's unique key ranks that note first.
unique_key = st.text(
    alphabet=st.sampled_from("bcdfghjklmnpqrstvwxzBCDFGJKáçõÉ_-"), min_size=2, max_size=10
)


@PURE
@given(
    others=st.lists(entries(), max_size=12),
    target=entries(),
    key=unique_key,
    at=st.integers(0, 12),
    wrapper=st.sampled_from(("{}", "what is the {}?", "{} {}", "how do I {} ...")),
)
def test_a_unique_key_ranks_its_note_first(
    others: list[Entry], target: Entry, key: str, at: int, wrapper: str
) -> None:
    tokens = normalise(key)
    assume(len(tokens) == 1 and len(key.split()) == 1)
    (word,) = tokens
    assume(all(word not in prepare(e).vocabulary for e in others))
    assume(word not in prepare(target).vocabulary)
    target = Entry(
        base=target.base,
        rel=target.rel,
        stem=target.stem,
        title=target.title,
        keywords=(*target.keywords, key),
        summary=target.summary,
    )
    es = list(others)
    es.insert(min(at, len(es)), target)
    terms = normalise(wrapper.format(key, key))
    assert set(terms) == {word}
    hits = index_of(es).rank(terms, BIG_TOP)
    assert hits, terms
    assert hits[0].entry == target
    assert word in hits[0].matched


# 9. The inverted index ranks exactly as scoring every entry does.
@PURE
@given(es=st.lists(entries(), max_size=15), q=questions, top=st.integers(0, 20))
def test_indexed_ranking_equals_naive_ranking(es: list[Entry], q: str, top: int) -> None:
    index = index_of(es)
    terms = normalise(q)
    fast = index.rank(terms, top)
    slow = index.rank_naive(terms, top)
    assert [(h.entry, h.score, h.matched) for h in fast] == [
        (h.entry, h.score, h.matched) for h in slow
    ]


@pytest.mark.parametrize(
    ("phrase", "question"),
    [
        ("calorie floor", "xcalorie floors"),
        ("router kernel", "xrouter kernelx"),
        ("router kernel", "router kernel"),
        ("tide harbour pilot", "ebbtide harbour pilots"),
    ],
)
def test_phrase_matches_inside_words_in_both_rankings(phrase: str, question: str) -> None:
    """Pinned examples of the plain-substring phrase rule (§6.5) that (9) must cover."""
    e = Entry("alpha", "k/a.md", "a", "", (phrase,), "")
    other = Entry("alpha", "k/b.md", "b", "", ("ledger",), "")
    index = index_of([e, other])
    terms = normalise(question)
    assert [h.entry.rel for h in index.rank(terms, 5)] == ["k/a.md"]
    assert index.rank(terms, 5) == index.rank_naive(terms, 5)


# Folder names as `private =` values hold them: mostly plain segments, sometimes nested or
# empty, drawn from a small alphabet so paths often fall under them.
_segment = st.text(alphabet="abr/.", max_size=6)


@given(
    whole=st.booleans(),
    folders=st.lists(_segment, max_size=4),
    kept=st.lists(_segment, max_size=2),
    rels=st.lists(_segment, max_size=12),
)
def test_a_walks_cover_test_agrees_with_covers(
    whole: bool, folders: list[str], kept: list[str], rels: list[str]
) -> None:
    """The walk judges every path with `cover_test()`, faster than `covers` when no folder
    is nested; it must answer exactly as `covers` does, for every layer and path."""
    layer = PrivateLayer(whole, tuple(folders), kept=tuple(kept))
    test = layer.cover_test()
    assert [test(rel) for rel in rels] == [layer.covers(rel) for rel in rels]


_stats = st.builds(
    TextStats,
    st.integers(0, 10_000),
    st.integers(0, 1_000_000),
    st.dictionaries(
        st.sampled_from(("tide", "moon", "floor", "piso", "x")), st.integers(0, 99)
    ).map(lambda d: tuple(d.items())),
)


@given(parts=st.lists(_stats, max_size=6))
def test_fleet_stats_is_the_fold_of_plus(parts: list[TextStats]) -> None:
    """The one-pass sum a question takes over its bases equals folding them with `plus`,
    words in the same order."""
    folded = NO_STATS
    for part in parts:
        folded = folded.plus(part)
    assert fleet_stats(parts) == folded
