"""The keyword index's early stop: over fleets where every question word is common enough to
be read in layers, `rank` keeps exactly the entries, scores and matched words that scoring
every entry keeps (`rank_naive`), for any `top`; so does the persisted postings' ranking, which
decodes its candidates only while they can reach the `top` (`rank_bounded`)."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from kb.pure.answering import keyword
from kb.pure.answering.entries import Entry, Prepared
from kb.pure.answering.keyword import (
    BOUNDED_SLICE,
    LAYERED_MIN,
    KeywordHit,
    KeywordIndex,
    rank_bounded,
    term_prefixes,
)

# Not shrunk: an example is a hundred entries, and shrinking one took minutes. A failure
# prints its example whole.
LAYERED = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)

# Few words, so each is held by many entries and read in layers; few paths, so equal scores
# are common and the tie-break by path decides who is kept. A rare word is held by too few
# entries to be layered: it is read whole, bounded by the most a word can add.
COMMON = ("lantern", "harbor", "quorum", "vigil", "sparrow")
RARE = "tessera"
PATHS = ("a.md", "k/b.md", "k/c.md", "z.md")
FIELDS = ("keys", "title", "stem", "summary")
# Where one entry holds one word: mostly nowhere or in one field, so a question's best entries
# are few and the early stop is reached; sometimes in several fields at once.
PLACES = st.one_of(
    st.just(frozenset[str]()),
    st.sampled_from(FIELDS).map(lambda f: frozenset((f,))),
    st.frozensets(st.sampled_from(FIELDS)),
)


@st.composite
def common_entries(draw: st.DrawFn) -> Entry:
    """An entry holding each common word (and seldom the rare one) in some of the fields a
    score reads, declared or derived; sometimes a phrase of two common words."""
    held = {w: draw(PLACES) for w in COMMON}
    if draw(st.integers(0, 19)) == 0:
        held[RARE] = draw(PLACES)
    fields = {f: [w for w, places in held.items() if f in places] for f in FIELDS}
    keys = fields["keys"]
    if draw(st.integers(0, 3)) == 0:
        keys.append(" ".join(draw(st.lists(st.sampled_from(COMMON), min_size=2, max_size=2))))
    stem = "-".join(fields["stem"]) or "note"
    return Entry(
        base=draw(st.sampled_from(("alpha", "beta"))),
        rel=draw(st.sampled_from(PATHS)).replace(".md", f"-{stem}.md"),
        stem=stem,
        title=" ".join(fields["title"]),
        keywords=tuple(keys),
        summary=" ".join(fields["summary"]),
        derived=draw(st.booleans()),
    )


# a layered index's entries, a question of its words, and any `top` up to past them all
FLEETS = st.lists(common_entries(), min_size=LAYERED_MIN, max_size=2 * LAYERED_MIN)
QUESTIONS = st.lists(st.sampled_from((*COMMON, RARE, "absent")), min_size=1, max_size=5)
TOPS = st.integers(1, 3 * LAYERED_MIN)


def _kept(hits: list[KeywordHit]) -> list[tuple[Entry, float, tuple[str, ...]]]:
    return [(h.entry, h.score, h.matched) for h in hits]


def _phrase_norms(p: Prepared) -> list[str]:
    return [p.norms[k] for k in p.phrases]


def _bounded(
    index: KeywordIndex, question: list[str], top: int, slice_size: int = BOUNDED_SLICE
) -> tuple[list[KeywordHit], int]:
    """`rank_bounded` as the persisted postings call it (kb.io.answering.memory): the entries
    that may hold a phrase decoded first, the others by the question terms they hold. Also
    how many entries it decoded."""
    prefixes = term_prefixes(question)
    count = index.total
    phrasal = [
        (i, index.prepared_at(i))
        for i in range(count)
        if any(n.split()[1] in prefixes for n in _phrase_norms(index.prepared_at(i)))
    ]
    skip = {i for i, _ in phrasal}
    holding = {
        i: words
        for i in range(count)
        if i not in skip
        and (words := [t for t in question if t in index.prepared_at(i).vocabulary])
    }
    decoded: list[int] = []

    def decode(part: list[int]) -> list[tuple[int, Prepared]]:
        decoded.extend(part)
        return [(i, index.prepared_at(i)) for i in part]

    hits = rank_bounded(phrasal, holding, decode, question, top, index.idf_memo(), slice_size)
    return hits, len(decoded)


@LAYERED
@given(es=FLEETS, question=QUESTIONS, top=TOPS, slice_size=st.integers(1, 8))
def test_a_ranking_that_stops_early_keeps_what_scoring_every_entry_keeps(
    es: list[Entry], question: list[str], top: int, slice_size: int
) -> None:
    index = KeywordIndex.of(es)
    assert _kept(index.rank(question, top)) == _kept(index.rank_naive(question, top))
    # asked again, the layers are read from the memo
    assert _kept(index.rank(question, top)) == _kept(index.rank_naive(question, top))
    # and the persisted postings' ranking, which decodes only what can reach the `top` (in
    # slices small enough that it stops early here)
    bounded, _ = _bounded(index, question, top, slice_size)
    assert _kept(bounded) == _kept(index.rank_naive(question, top))


def test_the_bounded_ranking_decodes_no_slice_that_cannot_reach_the_top() -> None:
    """One entry holds a rare word as a key; 599 hold a common word in their purpose only.
    The rare word's entry comes in the first slice, and its score is above what any other
    entry could score: the second slice is never decoded."""
    rare = Entry("alpha", "k/tessera.md", "tessera", "", ("tessera",), "", False)
    common = [
        Entry("alpha", f"k/note-{n:03d}.md", f"note-{n:03d}", "", (), "lantern", False)
        for n in range(599)
    ]
    index = KeywordIndex.of([*common, rare])
    hits, decoded = _bounded(index, ["tessera", "lantern"], 1)
    assert _kept(hits) == _kept(index.rank_naive(["tessera", "lantern"], 1))
    assert hits[0].entry == rare
    assert decoded == BOUNDED_SLICE


@LAYERED
@given(es=FLEETS, question=QUESTIONS, top=TOPS, buckets=st.integers(1, 3))
def test_phrase_word_pairs_sharing_a_hash_change_no_ranking(
    es: list[Entry], question: list[str], top: int, buckets: int
) -> None:
    """The phrase index holds word pairs by their hash: pairs that share one make more
    candidates, never another ranking. Here every pair falls in one of `buckets` hashes."""
    exact = KeywordIndex.of(es)
    with patch.object(keyword, "hash", lambda pair: len(pair[0]) % buckets, create=True):
        crowded = KeywordIndex.of(es)
        found = crowded._phrasal(question)
        assert found >= exact._phrasal(question)
        assert _kept(crowded.rank(question, top)) == _kept(exact.rank_naive(question, top))
