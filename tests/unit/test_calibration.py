"""The fleet's known-share line, formula by formula (issue 25: each rule stated as the one
it protects; the mutation run of kb/pure/answering/calibration.py is killed by these)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kb.pure.answering.calibration import (
    EVERYDAY,
    NO_CALIBRATION,
    Calibration,
    counted_words,
    everyday_words,
    fleet_calibration,
    known_share,
    known_share_line,
    language_of,
    title_sample,
    title_words_known,
)


def test_the_on_topic_rate_is_smoothed_by_one_known_and_one_unknown_word() -> None:
    assert Calibration(0, 0, frozenset()).on_topic() == pytest.approx(0.5)
    assert Calibration(9, 10, frozenset()).on_topic() == pytest.approx(10 / 12)
    assert Calibration(1, 4, frozenset()).on_topic() == pytest.approx(2 / 6)


def test_the_off_topic_rate_is_the_mean_known_share_of_the_languages_questions() -> None:
    english = [counted_words(q) for q in EVERYDAY["en"]]
    known = frozenset(english[0])  # every word of the first English question
    c = Calibration(0, 0, known)
    shares = [sum(w in known for w in ws) / len(ws) for ws in english if ws]
    assert c.off_topic("en") == pytest.approx((sum(shares) + 0.5) / (len(shares) + 1))
    both = [counted_words(q) for lang in ("en", "pt") for q in EVERYDAY[lang]]
    shares = [sum(w in known for w in ws) / len(ws) for ws in both if ws]
    assert c.off_topic(None) == pytest.approx((sum(shares) + 0.5) / (len(shares) + 1))
    assert c.off_topic("pt") < c.off_topic("en")
    assert NO_CALIBRATION.off_topic("pt") == pytest.approx(0.5 / (len(EVERYDAY["pt"]) + 1))


def test_the_line_is_where_both_rates_are_equally_likely() -> None:
    on, off = 0.9, 0.4
    line = known_share_line(on, off)
    # a share of `line` known words is as likely at either rate (per word, in logs)
    at_on = line * math.log(on) + (1 - line) * math.log(1 - on)
    at_off = line * math.log(off) + (1 - line) * math.log(1 - off)
    assert at_on == pytest.approx(at_off)
    c = Calibration(89, 98, frozenset())
    assert c.known_line("en") == pytest.approx(known_share_line(c.on_topic(), c.off_topic("en")))
    assert c.known_line("pt") == pytest.approx(known_share_line(c.on_topic(), c.off_topic("pt")))
    assert c.known_line("pt") != pytest.approx(c.known_line(None))


def test_no_line_where_the_rates_do_not_separate_or_reach_their_bounds() -> None:
    assert known_share_line(0.5, 0.0) == 0.0
    assert known_share_line(1.0, 0.5) == 0.0
    assert known_share_line(0.5, 0.5) == 0.0
    assert known_share_line(0.4, 0.5) == 0.0
    assert known_share_line(1.5, 0.5) == 0.0
    assert 0.0 < known_share_line(0.99, 0.01) < 1.0


def test_the_fleet_sums_its_bases() -> None:
    one = Calibration(3, 5, frozenset({"egg"}))
    two = Calibration(4, 6, frozenset({"tea", "egg"}))
    assert one.plus(two) == Calibration(7, 11, frozenset({"egg", "tea"}))
    assert fleet_calibration([one, two]) == one.plus(two)
    assert fleet_calibration([]) == NO_CALIBRATION == Calibration(0, 0, frozenset())


def test_a_question_is_as_english_or_portuguese_as_its_stopwords() -> None:
    assert language_of("how do I boil an egg") == "en"
    assert language_of("como cozinhar um ovo") == "pt"
    # one stopword of each: no language
    assert language_of("the ovo de") is None
    assert language_of("the com") is None


def test_the_sample_keeps_every_title_up_to_its_limit_and_spreads_past_it() -> None:
    paths = [f"n{i:03d}.md" for i in range(10)]
    assert title_sample(paths, 10) == paths
    assert title_sample(paths, 11) == paths
    spread = title_sample([f"n{i:03d}.md" for i in range(100)], 10)
    assert spread == [f"n{i:03d}.md" for i in range(0, 100, 10)]


def test_a_title_word_in_no_other_chunk_is_unknown() -> None:
    assert title_words_known("Lantern tides", 1, {"lantern": 1}) == (0, 2)
    assert title_words_known("Lantern tides", 1, {"lantern": 2, "tides": 1}) == (1, 2)
    assert title_words_known("Port 3000", 1, {"port": 5}) == (1, 1)


def test_the_known_share_counts_words_not_numbers() -> None:
    assert known_share(["alpha", "beta", "gamma", "delta"], {"alpha"}) == pytest.approx(0.25)
    assert known_share(["alpha", "beta"], {"alpha", "beta"}) == 1.0
    assert everyday_words() == tuple(sorted(set(everyday_words())))


def test_a_note_with_no_chunk_gives_the_sample_no_title(tmp_path: Path) -> None:
    """A note indexed with no chunk has the span (n, n - 1), whose first rowid is the next
    file's chunk: the sample must not take that file's title for its own."""
    from kb.io.notes.indexer import index_bases
    from kb.io.store import Store

    base = tmp_path / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = Ada\n", encoding="utf-8")
    (base / "MAP.md").write_text("# Ada\n", encoding="utf-8")
    (base / "knowledge" / "a-keys-only.md").write_text(
        "# Lantern\n\n**Search for:** `lantern`\n", encoding="utf-8"
    )
    (base / "knowledge" / "b-tides.md").write_text(
        "# Spring tides\n\ntides twice a month\n", encoding="utf-8"
    )
    index_bases([str(base)], False)
    store = Store.open(base)
    try:
        measured = store.calibration()
    finally:
        store.close()
    assert measured.title_words == 2  # `spring`, `tides`: b's title once, not twice


def test_a_title_word_in_no_chunk_is_not_known() -> None:
    from kb.pure.answering.calibration import title_words_known

    assert title_words_known("zebra crossing", 0, {}) == (0, 2)
    assert title_words_known("zebra crossing", 1, {"zebra": 2}) == (1, 2)
