"""The trigram-indexed suggester answers exactly what the full scan answers; a one-letter
typo of a key word of five letters or more is always suggested (issue 26), and nothing else
is offered but a trigram look-alike."""

from __future__ import annotations

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from kb.pure.answering.entries import Entry
from kb.pure.answering.suggest import (
    EDIT_MIN,
    SUGGEST_FLOOR,
    SuggestIndex,
    asked_words,
    kept_by_bound,
    look_alike,
    lookup_keys,
    part_score,
    suggest,
    suggest_among,
    trigrams,
    typo_of,
    within_bound,
    word_bound,
)
from kb.pure.notes.spelling import distance, one_edit
from kb.pure.notes.tokens import normalise, question_terms

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
    # one-letter typos (issue 26): a substitution, a deletion, a swap, a 5-letter middle
    # substitution that shares no trigram at all
    "radium",
    "radiom",
    "gravity",
    "gravty",
    "raidum",
    "cache",
    "caghe",
    "cake",
    "bake",
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


@given(entries=fleets())
def test_each_key_word_lists_a_key_once_where_it_was_first_met(entries: list[Entry]) -> None:
    """A key many entries hold is one candidate, not one per entry; the build dedupes the
    lists it made rather than keeping a set of every key (kb.pure.answering.suggest)."""
    index = SuggestIndex.of_entries(entries)
    first_met = list(dict.fromkeys(k for e in entries for k in e.keywords))
    expected: dict[str, list[str]] = {}
    for k in first_met:
        for part in dict.fromkeys(normalise(k)):
            expected.setdefault(part, []).append(k)
    assert index._keys_of_part == expected


def test_reference_values() -> None:
    assert round(look_alike("publico", "public"), 2) == 0.89
    assert round(look_alike("ingestao", "ingest"), 2) == 0.80
    assert round(look_alike("quando", "quant"), 3) == 0.571  # `K-quant` normalises to `quant`
    assert (
        SuggestIndex.of_entries([Entry("b", "x.md", "x", "", ("never",), "")]).suggest("nunca")
        == []
    )


LETTERS = "abcdefghijklmnopqrstuvwxyz"


@st.composite
def typos(draw: st.DrawFn) -> tuple[str, str]:
    """(a key word of EDIT_MIN letters or more, that word with one letter substituted,
    inserted, deleted, or two neighbours swapped; the typo of EDIT_MIN letters or more too)."""
    word = draw(st.text(LETTERS, min_size=EDIT_MIN + 1, max_size=12))
    kind = draw(st.sampled_from(["substitute", "insert", "delete", "swap"]))
    i = draw(st.integers(0, len(word) - 1))
    letter = draw(st.sampled_from(LETTERS))
    if kind == "substitute":
        typo = word[:i] + letter + word[i + 1 :]
    elif kind == "insert":
        typo = word[:i] + letter + word[i:]
    elif kind == "delete":
        typo = word[:i] + word[i + 1 :]
    else:
        i = min(i, len(word) - 2)
        typo = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word, typo


@settings(max_examples=500)
@given(pair=typos(), others=st.lists(st.sampled_from(WORDS), max_size=5))
@example(pair=("radium", "radiom"), others=[])
@example(pair=("gravity", "gravty"), others=["roll"])
@example(pair=("radium", "raidum"), others=[])
@example(pair=("cache", "caghe"), others=[])  # not one trigram in common
def test_any_single_edit_of_a_key_word_is_suggested(
    pair: tuple[str, str], others: list[str]
) -> None:
    word, typo = pair
    assume(typo != word and normalise(word) == [word] and question_terms(typo) == [typo])
    entries = [Entry("b", "n0.md", "n0", "", (word, *others), "")]
    assert word in suggest(typo, entries)
    assert word in SuggestIndex.of_entries(entries).suggest(typo)
    pairs = [(k, " ".join(normalise(k))) for e in entries for k in e.keywords]
    assert word in suggest_among(typo, pairs)


@settings(max_examples=300)
@given(
    question=st.text(LETTERS, min_size=1, max_size=9),
    keys=st.lists(st.text(LETTERS, min_size=1, max_size=9), min_size=1, max_size=8),
)
def test_nothing_is_suggested_but_a_look_alike_or_a_typo_of_a_long_key_word(
    question: str, keys: list[str]
) -> None:
    """No flood: a key is offered only for a word of it that a question word either looks
    like (trigram Dice from the floor up) or misspells by one letter, and then only when
    that key word has EDIT_MIN letters or more."""
    entries = [Entry("b", "n0.md", "n0", "", tuple(keys), "")]
    asked = question_terms(question)
    for key in suggest(question, entries, limit=100):
        assert any(
            look_alike(w, p) >= SUGGEST_FLOOR or (typo_of(w, p) and len(p) >= EDIT_MIN)
            for p in normalise(key)
            for w in asked
        ), key
    assert SuggestIndex.of_entries(entries).suggest(question, 100) == suggest(
        question, entries, 100
    )


def test_short_key_words_get_no_typo_suggestions() -> None:
    cake = [Entry("b", "x.md", "x", "", ("cake",), "")]
    assert suggest("bake", cake) == []  # one letter from a four-letter word: too often a word
    copia = [Entry("b", "n0.md", "n0", "", ("copia de seguranca",), "")]
    assert suggest("copa", copia) == []  # a four-letter question word is often a word too
    assert suggest("radiom gravty", [Entry("b", "y.md", "y", "", ("radium", "gravity"), "")]) == [
        "gravity",
        "radium",
    ]


@settings(max_examples=2000)
@given(a=st.text("abc", max_size=7), b=st.text("abc", max_size=7))
def test_one_edit_is_distance_one(a: str, b: str) -> None:
    assert one_edit(a, b) == (distance(a, b) == 1)


# Words over a small alphabet repeat trigrams ("aaaa", "abab..."): the case where a set
# intersection undercounts what Dice shares.
small_words = st.text("abrc", min_size=1, max_size=9)


@settings(max_examples=500)
@given(
    part=st.one_of(st.sampled_from(WORDS), small_words).map(
        lambda w: normalise(w)[0] if normalise(w) else "x"
    ),
    words=st.lists(st.one_of(st.sampled_from(WORDS), small_words), min_size=1, max_size=4),
)
@example(part="aaaaaa", words=["aaaa"])
@example(part="gravity", words=["gravty"])  # a typo whose Dice is under the floor
@example(part="radium", words=["raidum"])  # a typo that shares no trigram
@example(part="radium", words=["rdaium"])  # a typo in the first two letters: its end kept
@example(part="radium", words=["xadium"])
@example(part="radium", words=["rdium"])  # a typo one letter shorter, Dice under the floor
@example(part="radium", words=["raxdium"])  # one letter longer
def test_the_bound_never_keeps_out_a_key_word_the_score_keeps(part: str, words: list[str]) -> None:
    asked = asked_words(" ".join(words))
    assume(asked)
    if part_score(part, asked) >= SUGGEST_FLOOR:
        part_lookups = set(lookup_keys(part))
        assert any(
            part_lookups & set(bound.lookups)
            and within_bound(bound, part, len(set(trigrams(part)) & set(bound.trigrams)))
            for bound in (word_bound(w, tris, m) for w, tris, m in asked)
        )


def test_the_bound_keeps_out_a_key_word_that_only_shares_a_common_trigram() -> None:
    ((word, tris, count),) = asked_words("quaxing")
    bound = word_bound(word, tris, count)
    assert not within_bound(bound, "interesting", 1)  # one trigram, too long for a typo
    assert not within_bound(bound, "blaxify", 1)  # a typo's length, but neither end in place
    assert within_bound(bound, "quaxin", 1)  # a typo's length and its first two letters
    assert within_bound(bound, "quaxings", 4)  # Dice 8/11


@settings(max_examples=500)
@given(
    word=st.one_of(st.sampled_from(WORDS), small_words).map(
        lambda w: normalise(w)[0] if normalise(w) else "x"
    ),
    shared=st.dictionaries(
        st.one_of(st.sampled_from(WORDS), small_words), st.integers(0, 9), max_size=12
    ),
)
@example(word="aaaaaa", shared={"aaaaaa": 1, "aaaaa": 0})  # repeated trigrams
@example(word="quaxing", shared={"quaxin": 1, "blaxify": 1, "quaxings": 4, "interesting": 1})
def test_the_bound_filter_keeps_what_the_rule_keeps(word: str, shared: dict[str, int]) -> None:
    """The daemon's filter over a refusal's candidates is the rule applied to each."""
    tris = set(trigrams(word))
    bound = word_bound(word, tris, len(trigrams(word)))
    expected = {p for p, n in shared.items() if within_bound(bound, p, n)}
    assert set(kept_by_bound(bound, shared)) == expected
