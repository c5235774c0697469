"""The keyword scorer's rules, one test each: the weights of each field, the derived share,
phrases, idf, the order of hits, and the early stop of the indexed ranking (which entries it
scores, and that a layer's bound is what its entries can really add)."""

from __future__ import annotations

import math
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.answering import keyword
from kb.pure.answering.entries import Entry, Prepared, prepared_from, token_sets
from kb.pure.answering.keyword import (
    LAYERED_MIN,
    W_WORD_MAX,
    KeywordIndex,
    Stopped,
    idf_of,
    phrase_words,
    postings_words,
    rank_bounded,
    rank_prepared,
    sorted_pairs,
    term_prefixes,
    word_weight,
)


def note(
    rel: str,
    keys: tuple[str, ...] = (),
    title: str = "",
    summary: str = "",
    derived: bool = False,
    stem: str = "note",
) -> Entry:
    return Entry("ada", rel, stem, title, keys, summary, derived)


class Counting(KeywordIndex):
    """An index that remembers which entries a ranking scored."""

    def __init__(self, entries: list[Entry]) -> None:
        super().__init__(
            entries, [token_sets(e.stem, e.title, e.keywords, e.summary) for e in entries]
        )
        self.scored: list[int] = []

    def prepared_at(self, i: int) -> Prepared:
        self.scored.append(i)
        return super().prepared_at(i)


def test_idf_is_the_log_of_one_plus_total_over_one_plus_df() -> None:
    assert idf_of(9, 2) == pytest.approx(math.log(4.0))
    assert idf_of(0, 0) == 0.0


def test_each_field_adds_its_weight_times_idf_and_derived_keys_half() -> None:
    cases = {
        note("a.md", keys=("lantern",)): 6.0,
        note("b.md", keys=("lantern",), derived=True): 3.0,
        note("c.md", title="lantern"): 3.0,
        note("d.md", stem="lantern"): 3.0,
        note("e.md", summary="lantern"): 1.0,
        note("f.md", keys=("lantern",), title="lantern", summary="lantern", stem="lantern"): 13.0,
    }
    index = KeywordIndex.of(list(cases))
    w = index.idf("lantern")
    assert w == pytest.approx(math.log(1 + 6 / 7))
    scores = {h.entry: h.score for h in index.rank_naive(["lantern"], 10)}
    assert scores == {e: pytest.approx(weight * w) for e, weight in cases.items()}
    for e, weight in cases.items():
        sets = token_sets(e.stem, e.title, e.keywords, e.summary)
        assert word_weight("lantern", prepared_from(e, sets)) == weight
    assert W_WORD_MAX == 13.0


def test_a_phrase_found_whole_adds_ten_times_its_words_mean_idf() -> None:
    e = note("a.md", keys=("harbor pilot",))
    other = note("b.md", keys=("harbor",))
    index = KeywordIndex.of([e, other])
    (hit,) = index.rank(["the", "harbor", "pilot"], 5)[:1]
    mean = (index.idf("harbor") + index.idf("pilot")) / 2
    assert hit.entry == e
    assert hit.score == pytest.approx(10.0 * mean)
    assert hit.matched == ("harbor pilot",)
    assert phrase_words([index.prepared_at(0)], ["harbor", "pilot"]) == {"harbor", "pilot"}


def test_hits_sort_by_score_then_path_then_entry_order_and_zero_scores_drop() -> None:
    es = [note("z.md", keys=("vigil",)), note("a.md", keys=("vigil",)), note("m.md")]
    index = KeywordIndex.of(es)
    assert [h.entry.rel for h in index.rank(["vigil"], 5)] == ["a.md", "z.md"]
    assert [h.entry.rel for h in index.rank_naive(["vigil"], 1)] == ["a.md"]
    assert index.rank(["vigil"], 0) == []


def test_the_postings_rows_and_the_prefixes_a_phrase_can_start_with() -> None:
    sets = token_sets("note", "Lantern", ("harbor pilot", "vigil"), "keeps watch")
    rows = postings_words(("harbor pilot", "vigil"), sets)
    assert rows.vocabulary == frozenset({"vigil", "lantern", "note", "keeps", "watch"})
    assert rows.second == frozenset({"pilot"})
    assert rows.parts == frozenset(
        {("harbor", "harbor pilot"), ("pilot", "harbor pilot"), ("vigil", "vigil")}
    )
    assert term_prefixes(["ab"]) == {"a", "ab"}


def _crowd(n: int, **fields: str) -> list[Entry]:
    return [note(f"crowd/{k:03}.md", **fields) for k in range(n)]  # type: ignore[arg-type]


def test_the_early_stop_scores_only_the_layers_that_can_reach_the_top() -> None:
    # three declared holders of the word, then a crowd naming it only in their purpose line
    keyed = [note(f"k{k}.md", keys=("lantern",)) for k in range(3)]
    index = Counting([*keyed, *_crowd(2 * LAYERED_MIN, summary="lantern")])
    hits = index.rank(["lantern"], 3)
    assert [h.entry.rel for h in hits] == ["k0.md", "k1.md", "k2.md"]
    assert sorted(index.scored) == [0, 1, 2]
    # one more than the keyed can hold reads the crowd too
    assert [h.entry.rel for h in index.rank(["lantern"], 4)][3] == "crowd/000.md"


def test_a_layer_bounds_what_a_declared_key_adds_at_its_full_weight() -> None:
    # the best read first holds the word in its title and purpose (4); a declared key alone
    # (6) sits in a later layer than it and must still be read
    best_first = note("t.md", title="lantern", summary="lantern")
    declared = note("k.md", keys=("lantern",))
    index = KeywordIndex.of([best_first, declared, *_crowd(LAYERED_MIN, summary="lantern")])
    assert [h.entry for h in index.rank(["lantern"], 1)] == [declared]
    assert [h.entry for h in index.rank(["lantern"], 2)] == [declared, best_first]


def test_the_layer_that_can_add_most_is_read_first() -> None:
    # `harbor` is rarer (worth more a hit) than `lantern`: its two keyed holders come before
    # the lantern crowd's best, and once they fill the top no lantern entry is scored
    harbor = [note(f"h{k}.md", keys=("harbor",)) for k in range(2)]
    crowd = _crowd(2 * LAYERED_MIN, title="lantern")
    index = Counting([*harbor, *crowd, *_crowd(LAYERED_MIN, summary="harbor")])
    assert index.idf("harbor") > index.idf("lantern")
    hits = index.rank(["lantern", "harbor"], 2)
    assert [h.entry.rel for h in hits] == ["h0.md", "h1.md"]
    assert sorted(index.scored) == [0, 1]


def test_a_word_said_twice_counts_twice_in_the_bound() -> None:
    # said twice, `lantern` in a title (3 x 2) outweighs `harbor` in a key (6 x 1) only
    # when the bound counts it twice too
    one = note("a.md", keys=("harbor",))
    two = note("b.md", title="lantern")
    index = KeywordIndex.of([one, *_crowd(LAYERED_MIN, summary="harbor"), two])
    assert index.idf("lantern") > index.idf("harbor")
    question = ["lantern", "harbor", "lantern"]
    assert index.rank(question, 1) == index.rank_naive(question, 1)
    assert index.rank(question, 1)[0].entry == two
    assert index.rank(question, 1)[0].matched == ("lantern",)  # a word said twice, once


def test_a_word_is_matched_by_whichever_field_holds_it() -> None:
    es = [
        note("t.md", title="lantern"),
        note("s.md", stem="lantern"),
        note("p.md", summary="lantern"),
        note("k.md", keys=("lantern",)),
    ]
    hits = KeywordIndex.of(es).rank(["lantern"], 5)
    assert {h.entry.rel: h.matched for h in hits} == {e.rel: ("lantern",) for e in es}


def test_every_phrase_found_adds_and_a_word_no_note_holds_has_the_rarest_idf() -> None:
    e = note("a.md", keys=("harbor pilot", "pilot boat"))
    index = KeywordIndex.of([e, note("b.md", keys=("harbor",))])
    assert index.idf("pilot") == idf_of(2, 0)
    assert not index.holds("pilot") and index.holds("harbor")
    (hit,) = [h for h in index.rank(["harbor", "pilot", "boat"], 5) if h.entry == e]
    harbor, pilot, boat = (index.idf(w) for w in ("harbor", "pilot", "boat"))
    assert hit.score == pytest.approx(10.0 * (harbor + pilot) / 2 + 10.0 * (pilot + boat) / 2)
    assert hit.matched == ("harbor pilot", "pilot boat")


def test_a_phrase_of_four_words_is_found_by_its_first_two_and_a_one_letter_word() -> None:
    four = note("a.md", keys=("harbor pilot boat deck",))
    short = note("b.md", keys=("plan ø",))  # a lone non-ASCII letter is a word
    index = KeywordIndex.of([four, short])
    assert postings_words(four.keywords, token_sets("a", "", four.keywords, "")).second == {"pilot"}
    assert [h.entry for h in index.rank(["harbor", "pilot", "boat", "deck"], 5)] == [four]
    assert [h.entry for h in index.rank(["plan", "ø"], 5)] == [short]


def test_a_phrase_only_begun_in_the_question_scores_nothing() -> None:
    index = KeywordIndex.of([note("a.md", keys=("harbor pilot boat",))])
    assert index.rank(["harbor", "pilot"], 5) == []


def test_the_persisted_ranking_compares_phrases_only_for_the_entries_it_is_told() -> None:
    index = KeywordIndex.of([note("a.md", keys=("harbor pilot",))])
    prepared = [(0, index.prepared_at(0))]
    terms = ["harbor", "pilot"]
    assert [h.matched for h in rank_prepared(prepared, terms, 5, index.idf, {0})] == [
        ("harbor pilot",)
    ]
    assert rank_prepared(prepared, terms, 5, index.idf, set()) == []


def test_key_norms_pair_each_key_with_its_words_and_prepare_all_prepares_every_entry() -> None:
    es = [note("a.md", keys=("Harbor Pilots", "vigil")), note("b.md", keys=("the lantern",))]
    index = Counting(es)
    assert list(index.key_norms()) == [
        ("Harbor Pilots", "harbor pilots"),
        ("vigil", "vigil"),
        ("the lantern", "lantern"),
    ]
    index.prepare_all()
    assert sorted(index.scored) == [0, 1]


def test_derived_holders_wait_in_a_lower_layer_than_declared_ones() -> None:
    declared = [note(f"k{k}.md", keys=("lantern",)) for k in range(3)]
    derived = [note(f"d/{k:03}.md", keys=("lantern",), derived=True) for k in range(LAYERED_MIN)]
    index = Counting([*declared, *derived])
    assert [h.entry for h in index.rank(["lantern"], 3)] == declared
    assert sorted(index.scored) == [0, 1, 2]


def test_a_whole_layer_is_read_and_then_the_ranking_stops() -> None:
    # three holders at the top weight, two asked for: all three are scored (a layer is read
    # whole), and not one of the crowd below them
    keyed = [note(f"k{k}.md", keys=("lantern",)) for k in range(3)]
    index = Counting([*keyed, *_crowd(LAYERED_MIN, summary="lantern")])
    assert [h.entry for h in index.rank(["lantern"], 2)] == keyed[:2]
    assert sorted(index.scored) == [0, 1, 2]


def test_entries_found_by_a_phrase_do_not_end_the_ranking_before_the_words_are_read() -> None:
    # the phrase's holder is scored first and fills a top of one; the words' own holder
    # scores more (9 a word against 10 for the phrase's two words' mean) and must win
    phrase = note("p.md", keys=("harbor pilot",))
    words = note("w.md", keys=("harbor", "pilot"), title="harbor pilot")
    index = KeywordIndex.of([phrase, words])
    assert [h.entry for h in index.rank(["harbor", "pilot"], 1)] == [words]


def test_a_warm_index_layers_every_common_word_before_any_question() -> None:
    # the crowd comes first in entry order, the keyed holder last: layered, it leads
    crowd = _crowd(LAYERED_MIN, summary="lantern")
    index = KeywordIndex.of([*crowd, note("k.md", keys=("lantern",)), note("r.md", title="vigil")])
    index.prepare_all()
    assert index._postings["lantern"][0] == LAYERED_MIN
    assert index._postings["vigil"] == [LAYERED_MIN + 1]


def test_prepare_all_stops_when_told() -> None:
    """A Memory let go mid-read stops preparing (seconds of a core at 100,000 notes)."""
    from kb.pure.answering.entries import Entry
    from kb.pure.answering.keyword import STOP_CHECK_EVERY, KeywordIndex

    entries = [
        Entry(base="a", rel=f"n{i}.md", stem=f"n{i}", title="t", keywords=("k",), summary="")
        for i in range(STOP_CHECK_EVERY + 10)
    ]
    index = KeywordIndex.of(entries)
    with pytest.raises(Stopped):
        KeywordIndex.of_prepared([index.prepared_at(0)], lambda: True)
    index = KeywordIndex.of(entries)
    index.prepare_all(lambda: True)
    assert index._prepared == [None] * len(entries)
    index.prepare_all(lambda: False)
    assert None not in index._prepared


def test_hits_tied_on_score_and_path_keep_the_entry_order() -> None:
    # two bases can hold the same path: the entry order (the fleet's) breaks the tie
    es = [Entry(base, "k.md", "k", "", ("vigil",), "", False) for base in ("ada", "bruno")]
    index = KeywordIndex.of(es)
    prepared = [(1, index.prepared_at(1)), (0, index.prepared_at(0))]
    assert [h.entry.base for h in rank_prepared(prepared, ["vigil"], 5, index.idf)] == [
        "ada",
        "bruno",
    ]


def test_the_persisted_ranking_decodes_until_the_top_is_above_every_bound_left() -> None:
    """At idf 0.01: the entry holding both words scores 0.2 (keys, title and purpose) and
    bounds 0.26; each holder of one word bounds 0.13, so once the first is decoded nothing
    else is. The phrasal candidate's 0.01 is the best score until then. Every score is
    under 1, and the bound's factor is 1, not 2."""
    strong = note("a.md", keys=("lantern", "vigil"), title="lantern vigil", summary="lantern vigil")
    weak = [note(f"b{k}.md", keys=("lantern",)) for k in range(4)]
    hooked = note("p.md", keys=("harbor hook",), summary="lantern")
    index = KeywordIndex.of([strong, *weak, hooked])
    holding = {0: ["lantern", "vigil"], **{k: ["lantern"] for k in range(1, 5)}}
    decoded: list[list[int]] = []

    def decode(ids: list[int]) -> list[tuple[int, Prepared]]:
        decoded.append(ids)
        return [(i, index.prepared_at(i)) for i in ids]

    def idf(_word: str) -> float:
        return 0.01

    phrasal = [(5, index.prepared_at(5))]
    hits = rank_bounded(phrasal, holding, decode, ["lantern", "vigil"], 1, idf, slice_size=1)
    assert [h.entry for h in hits] == [strong] and hits[0].score == pytest.approx(0.2)
    assert decoded == [[0]]


def test_the_index_and_prepare_all_look_at_stopped_every_so_many_entries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(keyword, "STOP_CHECK_EVERY", 2)
    es = [note(f"n{k}.md", keys=(f"w{k}",)) for k in range(4)] + [note("x.md", keys=("w4", "w5"))]
    sets = [token_sets(e.stem, e.title, e.keywords, e.summary) for e in es]
    looks: list[int] = []

    def counted() -> bool:
        looks.append(1)
        return False

    index = KeywordIndex(es, sets, counted)
    assert len(looks) == 3  # before entries 0, 2 and 4
    looks.clear()
    index.prepare_all(counted)
    # w0-w5 and the stem `note`: an odd count, so looks before words 0, 2, 4 and 6 are told
    # from looks before words 1, 3 and 5
    assert len(index._postings) == 7
    assert len(looks) == 3 + 4  # entries, then words
    looks.clear()

    def second() -> bool:
        looks.append(1)
        return len(looks) == 2

    with pytest.raises(Stopped):
        KeywordIndex(es, sets, second)
    assert len(looks) == 2


def test_an_index_of_prepared_entries_is_the_index_of_those_entries() -> None:
    """A held fleet builds its index from entries prepared a slice at a time
    (`KeywordIndex.of_prepared`): the same postings, phrase pairs, keys and rankings as the
    index of the entries themselves, and the same entries handed back, before every entry
    is prepared and after (when the entries and their token sets are let go)."""
    es = [
        note("a.md", keys=("Harbor Pilots", "vigil"), title="Lantern watch"),
        note("b.md", keys=("the lantern", "harbor pilot boats"), summary="keeps the vigil"),
        note("c.md", keys=("harbor",), derived=True, stem="harbor-notes"),
        note("d.md", title="pilot"),
    ]
    built = KeywordIndex.of(es)
    held = KeywordIndex.of_prepared(
        [prepared_from(e, token_sets(e.stem, e.title, e.keywords, e.summary)) for e in es]
    )
    assert held._postings == built._postings and held.total == built.total == len(es)
    assert (held._pair_hash, held._pair_entry) == (built._pair_hash, built._pair_entry)
    assert held._pair_firsts == built._pair_firsts == {"harbor"}
    pairs = [("Harbor Pilots", "harbor pilots"), ("vigil", "vigil"), ("the lantern", "lantern")]
    assert list(built.key_norms())[:3] == pairs
    assert built.entries() == tuple(es) and built.entry_at(2) == es[2]
    # read from the entries, none prepared: a refusal's suggestions and a listing in a
    # one-shot process
    assert built._prepared == [None] * len(es)
    for index in (built, held):
        assert list(index.key_norms()) == list(built.key_norms())
        assert index.entries() == tuple(es) and index.entry_at(2) == es[2]
        for question in (["harbor", "pilot", "boats"], ["lantern"], ["vigil", "pilot"]):
            assert index.rank(question, 3) == built.rank_naive(question, 3)
    built.prepare_all()
    assert built._entries is None and built._sets is None
    assert list(built.key_norms()) == list(held.key_norms())
    assert built.entries() == tuple(es)


@settings(max_examples=200)
@given(
    pairs=st.lists(
        st.tuples(
            st.one_of(st.integers(-3, 3), st.integers(-(2**63), 2**63 - 1)),
            st.integers(0, 2**31 - 1),
        ),
        max_size=40,
    ),
    run=st.integers(1, 7),
)
def test_phrase_pairs_sorted_a_run_at_a_time_are_sorted_whole(
    pairs: list[tuple[int, int]], run: int
) -> None:
    """The index keeps its phrase pairs by hash, then entry; sorting them in runs and merging
    keeps the build's memory low and must give the one order a whole sort gives."""
    hashes = array("q", [h for h, _ in pairs])
    entries = array("i", [e for _, e in pairs])
    by_hash, by_entry = sorted_pairs(hashes, entries, run)
    assert list(zip(by_hash, by_entry, strict=True)) == sorted(pairs)
    assert (by_hash.typecode, by_entry.typecode) == ("q", "i")
    assert len(by_hash) == len(by_entry) == len(pairs)
