"""The verdict that separates (issue 23, decision 0030): the fleet's known-share line, the
evidence rules each stated as the rule it protects, and page-level text scores."""

from __future__ import annotations

from collections import Counter

from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.pure.answering.calibration import (
    EVERYDAY,
    Calibration,
    counted_words,
    everyday_words,
    known_share,
    known_share_line,
    language_of,
    title_sample,
    title_words_known,
)
from kb.pure.answering.textrank import (
    Candidate,
    TextStats,
    counts_of,
    file_text_score,
    page_counts,
    page_score,
    page_words,
    score_chunks,
    term_weights,
)
from kb.pure.answering.verdict import (
    DECLARED_HIT_WORDS,
    HIT_COVERAGE,
    HIT_KEYWORD_LEAD,
    HIT_TEXT_LEAD,
    NOTHING_MARGIN,
    Evidence,
    verdict_of,
)
from tests.properties.strategies import examples

PURE = settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
RANK = {"nothing": 0, "guess": 1, "hit": 2}

rates = st.floats(min_value=0.001, max_value=0.999, allow_nan=False)
shares = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)

evidence = st.builds(
    Evidence,
    coverage=shares,
    matched=st.integers(min_value=0, max_value=8),
    asked=st.integers(min_value=0, max_value=8),
    text_lead=st.floats(min_value=-2, max_value=2, allow_nan=False),
    keyword_lead=st.floats(min_value=0, max_value=100, allow_nan=False),
    declared=st.booleans(),
    entries=st.integers(min_value=0, max_value=5000),
    known=shares,
    known_line=shares,
    declared_words=st.integers(min_value=0, max_value=4),
    passage_coverage=shares,
)

# A question a large fleet answers well: every word known, most of it in one file that
# leads the next by far; the line and the rates are til-dev's (decision 0030).
ANSWERED = Evidence(
    coverage=0.8,
    matched=3,
    asked=3,
    text_lead=0.5,
    keyword_lead=0.0,
    declared=False,
    entries=1871,
    known=1.0,
    known_line=0.74,
    passage_coverage=0.8,
)


# -- the fleet's known-share line --------------------------------------------------------


@PURE
@given(rates, rates)
def test_the_line_lies_between_the_two_rates_when_they_separate(on: float, off: float) -> None:
    line = known_share_line(on, off)
    if off < on - 1e-6:
        assert off < line < on
    elif off >= on:
        assert line == 0.0  # a vocabulary that does not separate refuses nothing by itself


@PURE
@given(rates, rates, st.floats(min_value=0.001, max_value=0.2))
def test_the_line_rises_with_what_everyday_questions_already_know(
    on: float, off: float, more: float
) -> None:
    higher = min(off + more, 0.999)
    if off < higher < on:
        assert known_share_line(on, higher) >= known_share_line(on, off)


def test_a_fleet_knowing_every_everyday_word_has_an_off_topic_rate_near_one() -> None:
    everything = Calibration(90, 100, frozenset(everyday_words()))
    nothing_known = Calibration(90, 100, frozenset())
    assert everything.off_topic("en") > 0.98
    assert nothing_known.off_topic("en") < 0.02
    assert nothing_known.known_line("en") < everything.known_line("en") or (
        everything.known_line("en") == 0.0
    )


def test_the_everyday_questions_are_about_no_dev_corpus_subject() -> None:
    """The reference set must stay everyday language: no software words in it."""
    banned = {"python", "git", "sql", "vim", "code", "file", "server", "database", "api"}
    for language, questions in EVERYDAY.items():
        assert len(questions) >= 60, language
        for q in questions:
            assert not banned & set(counted_words(q)), q


def test_a_question_s_language_is_read_from_its_stopwords() -> None:
    assert language_of("what is the capital of the country") == "en"
    assert language_of("qual a capital do pais onde eu moro") == "pt"
    assert language_of("kubernetes crashloopbackoff") is None


def test_words_of_digits_only_are_never_counted() -> None:
    assert counted_words("port 3000 on rails 7") == ["port", "rails"]
    assert known_share(["port", "3000"], {"port"}) == 1.0
    assert known_share(["3000"], set()) == 0.0


def test_a_title_word_is_known_when_more_chunks_hold_it_than_its_own_note_has() -> None:
    # a note of 3 chunks carries its title in each heading path: 3 is itself, 4 is another
    assert title_words_known("Restore tests", 3, {"restore": 4, "tests": 3}) == (1, 2)


@PURE
@given(st.lists(st.from_regex(r"[a-z]{1,6}\.md", fullmatch=True), unique=True, max_size=60))
def test_the_title_sample_is_a_spread_subset_the_same_every_time(paths: list[str]) -> None:
    sample = title_sample(paths, 10)
    assert sample == title_sample(list(reversed(paths)), 10)
    assert set(sample) <= set(paths)
    assert len(sample) == min(10, len(paths))


# -- the evidence rules ---------------------------------------------------------------------


def test_a_question_the_fleet_knows_and_one_file_holds_and_leads_is_a_hit() -> None:
    assert verdict_of(ANSWERED) == "hit"


def test_without_declared_keys_a_keyword_lead_alone_is_never_a_hit() -> None:
    alone = evolve(ANSWERED, text_lead=0.0, keyword_lead=1000.0, declared=False)
    assert verdict_of(alone) == "guess"
    assert verdict_of(evolve(alone, declared_words=DECLARED_HIT_WORDS)) == "guess"


def test_declared_keys_holding_two_question_words_and_leading_are_a_hit_on_any_fleet() -> None:
    tiny = evolve(
        ANSWERED,
        coverage=0.1,
        passage_coverage=0.1,
        known=0.1,
        known_line=0.1,
        entries=11,
        text_lead=0.0,
        declared=True,
        keyword_lead=HIT_KEYWORD_LEAD,
        declared_words=DECLARED_HIT_WORDS,
        matched=2,
        asked=12,
    )
    assert verdict_of(tiny) == "hit"
    assert verdict_of(evolve(tiny, keyword_lead=HIT_KEYWORD_LEAD * 0.99)) == "nothing"


def test_one_declared_key_that_singles_a_note_out_is_at_least_a_guess() -> None:
    single = evolve(
        ANSWERED,
        coverage=0.1,
        known=0.1,
        declared=True,
        keyword_lead=HIT_KEYWORD_LEAD,
        declared_words=1,
    )
    assert verdict_of(single) == "guess"
    assert verdict_of(evolve(single, declared=False)) == "nothing"


def test_a_question_the_fleet_does_not_know_is_nothing_however_well_its_top_file_leads() -> None:
    line = ANSWERED.known_line + NOTHING_MARGIN
    unknown = evolve(ANSWERED, known=0.3, coverage=line - 0.3 - 0.01)
    assert verdict_of(unknown) == "nothing"
    assert verdict_of(evolve(unknown, coverage=line - 0.3 + 0.01)) != "nothing"


def test_a_hit_needs_its_lead_and_its_passage_to_hold_the_question() -> None:
    assert verdict_of(evolve(ANSWERED, text_lead=HIT_TEXT_LEAD * 0.99)) == "guess"
    assert verdict_of(evolve(ANSWERED, text_lead=HIT_TEXT_LEAD)) == "hit"
    assert verdict_of(evolve(ANSWERED, passage_coverage=HIT_COVERAGE * 0.99)) == "guess"
    assert verdict_of(evolve(ANSWERED, matched=1)) == "guess"
    assert verdict_of(evolve(ANSWERED, entries=1)) == "guess"


def test_nothing_matched_is_nothing_whatever_else_holds() -> None:
    assert verdict_of(evolve(ANSWERED, matched=0)) == "nothing"
    assert verdict_of(evolve(ANSWERED, asked=0)) == "nothing"
    assert verdict_of(evolve(ANSWERED, coverage=0.0)) == "nothing"


@PURE
@given(evidence, shares)
def test_knowing_more_of_the_question_never_lowers_the_verdict(e: Evidence, more: float) -> None:
    better = evolve(e, known=min(1.0, e.known + more))
    assert RANK[verdict_of(better)] >= RANK[verdict_of(e)]


@PURE
@given(evidence, shares)
def test_a_higher_line_never_raises_the_verdict(e: Evidence, more: float) -> None:
    stricter = evolve(e, known_line=min(1.0, e.known_line + more))
    assert RANK[verdict_of(stricter)] <= RANK[verdict_of(e)]


@PURE
@given(evidence)
def test_every_hit_is_backed_by_text_or_by_declared_keys(e: Evidence) -> None:
    if verdict_of(e) == "hit":
        assert e.entries >= 2 and e.matched >= 1
        by_keys = e.declared and e.keyword_lead >= HIT_KEYWORD_LEAD and e.declared_words >= 1
        by_text = e.text_lead >= HIT_TEXT_LEAD and e.passage_coverage >= HIT_COVERAGE
        assert by_keys or by_text
        if not (by_keys and e.declared_words >= DECLARED_HIT_WORDS):
            assert e.known + e.coverage >= e.known_line + NOTHING_MARGIN
            assert e.matched >= min(2, e.asked)


# -- page-level text scores --------------------------------------------------------------

chunk_text = st.lists(
    st.sampled_from(["alpha", "beta", "gamma", "delta", "restore", "backup"]), max_size=40
)


@PURE
@given(chunk_text, st.sampled_from(["Backups", "Backups > Restore", ""]))
def test_a_one_chunk_page_scores_as_its_chunk(body: list[str], heading: str) -> None:
    text = " ".join(body)
    counts = counts_of(heading, text)
    terms = ["restore", "backup", "gamma"]
    stats = TextStats(10, 10 * max(counts[2], 1), (("restore", 2), ("backup", 3), ("gamma", 5)))
    chunk = Candidate("ada", "knowledge/b.md", 1, 0, heading, text, counts)
    scored = score_chunks(terms, [chunk], stats, {t: frozenset({t}) for t in terms})
    weights = term_weights(terms, stats)
    page, held = page_score(counts, weights, {t: frozenset({t}) for t in terms}, stats.tokens / 10)
    if scored:
        assert abs(scored[0].score - page) < 1e-9
        assert held == frozenset(scored[0].matched)
    else:
        assert page == 0.0 and not held


def test_a_page_counts_only_when_its_sections_hold_words_its_best_chunk_lacks() -> None:
    assert file_text_score(1.0, ["restore"], None) == 1.0
    # the page repeats its best chunk's word: no more of an answer
    assert file_text_score(1.0, ["restore"], (3.0, frozenset({"restore"}))) == 1.0
    # the page's other sections hold another question word: the mean of the two
    assert file_text_score(1.0, ["restore"], (3.0, frozenset({"restore", "test"}))) == 2.0
    # a page scoring under its best chunk never lowers it
    assert file_text_score(1.0, ["restore"], (0.5, frozenset({"restore", "test"}))) == 1.0


@PURE
@given(st.lists(st.tuples(chunk_text, chunk_text), min_size=1, max_size=5))
def test_a_page_s_counts_are_its_chunks_counts_summed(
    chunks: list[tuple[list[str], list[str]]],
) -> None:
    """What `Store.page_counts` counts on the joined word lists is what counting each chunk
    and summing gives, repeated neighbours included (`alpha alpha` is two)."""
    head: Counter[str] = Counter()
    body: Counter[str] = Counter()
    length = 0
    for h, b in chunks:
        head.update(h)
        body.update(b)
        length += len(h) + len(b)
    page = page_words((" ".join(h), " ".join(b)) for h, b in chunks)
    forms = ["alpha", "restore", "zeta", "alph"]
    counted_head, counted_body, counted_length = page_counts(page, forms)
    assert counted_length == length
    for word in forms:
        assert counted_head.get(word, 0) == head.get(word, 0)
        assert counted_body.get(word, 0) == body.get(word, 0)
