"""The miss log `kb-misses.txt`: one line per distinct question whatever the repetition,
a faithful render/parse round trip, and a torn file that still reads."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kb.io.answering.memory import Memory
from kb.io.logs import misslog as misslog_io
from kb.pure.answering.verdict import Confidence
from kb.pure.logs.misslog import Miss, ordered, parse, record, render
from tests.conftest import EXAMPLE_FLEET

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# every refusal rewrites the log through a lock and an fsync: fewer, costlier examples
DISK = settings(SETTINGS, max_examples=40)

# Questions as people type them: letters in both cases, digits, accents, punctuation, spaces.
_QUESTION_CHARS = st.sampled_from(
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ?,.-'éãçÉ")
)
questions = st.text(_QUESTION_CHARS, min_size=1, max_size=40).filter(lambda q: q.strip() == q)

# Anything without a newline: the log is line-based, and the question is the rest of a line.
any_question = st.text(
    st.characters(blacklist_characters="\n", blacklist_categories=["Cs"]), min_size=1, max_size=30
).filter(lambda q: q == q.strip() and bool(q))
dates = st.from_regex(r"20[0-9]{2}-[01][0-9]-[0-3][0-9]", fullmatch=True)
offers = st.lists(
    st.text(st.characters(blacklist_characters="\n,", blacklist_categories=["Cs"]), min_size=1)
    .map(str.strip)
    .filter(bool),
    max_size=3,
)


@st.composite
def miss_lists(draw: st.DrawFn) -> list[Miss]:
    qs = draw(st.lists(any_question, max_size=6, unique_by=str.lower))
    return [
        Miss(draw(st.integers(0, 99999)), draw(dates), draw(dates), q, tuple(draw(offers)))
        for q in qs
    ]


@pytest.fixture(scope="module")
def memory() -> Iterator[Memory]:
    root = Path(tempfile.mkdtemp(prefix="kb-misses-prop-"))
    shutil.copytree(EXAMPLE_FLEET, root / "fleet", ignore=shutil.ignore_patterns(".kb", "kb-*"))
    with Memory.open([str(root / "fleet")]) as m:
        yield m
    shutil.rmtree(root, ignore_errors=True)


def _flip_ascii_case(text: str, mask: int) -> str:
    return "".join(
        c.swapcase() if c.isascii() and c.isalpha() and (mask >> (i % 30)) & 1 else c
        for i, c in enumerate(text)
    )


@DISK
@given(question=questions, spellings=st.lists(st.integers(0, 2**30), min_size=1, max_size=6))
def test_k_refusals_make_one_line_counted_k(
    memory: Memory, question: str, spellings: list[int]
) -> None:
    assume(memory.searchable(question))  # a question of stopwords alone is no miss (below)
    nothing = Confidence("nothing", 0, 0.0, 0.0, memory.floor())
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "kb-misses.txt"
        old = os.environ.get("KB_MISSES_PATH")
        os.environ["KB_MISSES_PATH"] = str(log)
        try:
            for mask in spellings:
                loss = memory.recall_loss(_flip_ascii_case(question, mask), nothing)
                assert loss is not None and loss.recorded, loss
        finally:
            if old is None:
                del os.environ["KB_MISSES_PATH"]
            else:
                os.environ["KB_MISSES_PATH"] = old
        text = log.read_text(encoding="utf-8")
        lines = [
            line
            for line in text.split("\n")
            if line.strip() and not line.startswith("#") and "looked like:" not in line
        ]
        assert len(lines) == 1, text
        (miss,) = misslog_io.load(log)
        assert miss.count == len(spellings)
        assert miss.question == _flip_ascii_case(question, spellings[0])  # first spelling kept


@SETTINGS
@given(misses=miss_lists())
def test_parse_render_round_trips(misses: list[Miss]) -> None:
    assert parse(render(misses)) == ordered(misses)


# What a refusal hands `record`: any text at all, line breaks, commas, runs of spaces and
# questions past the length the log keeps included.
_raw = st.text(st.characters(blacklist_categories=["Cs"]), max_size=600)


@SETTINGS
@given(
    start=miss_lists(),
    asked=st.lists(
        st.tuples(st.one_of(_raw, any_question), st.lists(_raw, max_size=3), dates), max_size=4
    ),
)
def test_what_record_returns_is_what_its_render_reads_back(
    start: list[Miss], asked: list[tuple[str, list[str], str]]
) -> None:
    """A resident kb keeps the rows it wrote rather than reading them back
    (kb.io.logs.misslog._rows), so the two must be the same rows."""
    misses = ordered(start)
    for question, offered, day in asked:
        misses = record(misses, question, offered, day)
        assert parse(render(misses)) == misses


@SETTINGS
@given(misses=miss_lists(), data=st.data())
def test_a_torn_file_loses_at_most_the_last_entry(misses: list[Miss], data: st.DataObject) -> None:
    kept = ordered(misses)
    whole = render(kept).encode("utf-8")
    cut = data.draw(st.integers(0, len(whole)), label="cut")
    torn = parse(whole[:cut].decode("utf-8", errors="replace"))
    # the entries whose whole block (count line and looked-like line) lies before the cut
    intact = next((i for i in range(len(kept), 0, -1) if len(render(kept[:i]).encode()) <= cut), 0)
    complete = kept[:intact]
    extra = [m for m in torn if m not in complete]
    lost = [m for m in complete if m not in torn]
    assert len(extra) <= 1, (torn, complete)
    # a torn question can shorten into an earlier one and overwrite it (later lines win):
    # still one entry lost, never more
    assert len(lost) <= 1
    if lost:
        assert extra and extra[0].question.lower() == lost[0].question.lower()


@DISK
@given(
    question=st.one_of(
        # one language's stopwords (a question drops its own language's list: in an
        # English question `de` is a word), with stray letters and punctuation
        st.lists(st.sampled_from(["the", "how", "What", "?", "a", "is", "x", "-"]), min_size=1),
        st.lists(st.sampled_from(["o", "que", "?", "a", "x", "-", "de", "Como"]), min_size=1),
    ).map(lambda words: " ".join(words[:5]))
)
def test_a_question_of_stopwords_alone_is_never_logged(memory: Memory, question: str) -> None:
    """No word reaches a scorer, so no note or alias would have caught it: not a miss
    (issue 16). `recall_loss` writes nothing and says so with None."""
    assert not memory.searchable(question)
    nothing = Confidence("nothing", 0, 0.0, 0.0, memory.floor())
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "kb-misses.txt"
        old = os.environ.get("KB_MISSES_PATH")
        os.environ["KB_MISSES_PATH"] = str(log)
        try:
            assert memory.recall_loss(question, nothing) is None
        finally:
            if old is None:
                del os.environ["KB_MISSES_PATH"]
            else:
                os.environ["KB_MISSES_PATH"] = old
        assert not log.exists()
