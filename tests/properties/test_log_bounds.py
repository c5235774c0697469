"""The counted logs cannot be used against their owner and cannot grow without bound (issue
24, kb.pure.logs.logbounds): what lands in them is scrubbed and cut to what the router reads, and
past 2,000 rows or 1 MiB the least counted, oldest rows go first, never the one just
recorded. Every counted log kb writes on a question or a model's verdict is held to it:
kb-misses.txt, kb-misroutes.txt, kb-abstentions.txt, kb-rejections.txt,
kb-alias-rejections.txt."""

from __future__ import annotations

import random
import string

from hypothesis import example, given, settings
from hypothesis import strategies as st

from kb.pure.logs import misslog, routelogs
from kb.pure.logs.logbounds import (
    MAX_BYTES,
    MAX_ROWS,
    MAX_TEXT_CHARS,
    SCRUB_MARGIN,
    bounded,
    cut,
    loggable,
    utf8_len,
)
from kb.pure.notes.tokens import MAX_QUESTION_CHARS
from kb.pure.promotion import aliasgate, rejections
from tests.properties.test_secrets_corpus import CAUGHT, fill_seeded, leaks

MARKERS = ("[REDACTED_KEY]", "[REDACTED_TOKEN]", "[REDACTED_SECRET]", "[REDACTED_PRIVATE_KEY]")


def test_the_limit_is_what_the_router_reads() -> None:
    assert MAX_TEXT_CHARS == MAX_QUESTION_CHARS


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.integers(0, 40), st.sampled_from(MARKERS))
@example(prefix="[", at=15, marker="[REDACTED_KEY]")  # fits whole: its own `[` is kept
def test_a_cut_never_leaves_half_a_marker(prefix: str, at: int, marker: str) -> None:
    text = "x" * (MAX_TEXT_CHARS - at) + marker + prefix
    out = cut(text)
    assert len(out) <= MAX_TEXT_CHARS
    assert text.startswith(out)
    if out != text:  # cut: what is kept never ends in half a marker
        tail = out[out.rfind("[") :] if "[" in out else ""
        assert not any(m.startswith(tail) and m != tail for m in MARKERS if tail), out[-30:]
    # a text that fits is kept whole, even one that ends in its own `[`
    assert out == text or len(text) > MAX_TEXT_CHARS
    assert cut(out) == out


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 3 * MAX_TEXT_CHARS))
def test_a_logged_text_holds_no_secret_and_no_more_than_the_router_reads(
    rnd: random.Random, offset: int
) -> None:
    # a secret anywhere in a long question, across the cut included
    secret = fill_seeded(rnd.choice(CAUGHT), rnd)
    prose = "".join(rnd.choice(string.ascii_lowercase + "  ") for _ in range(offset))
    text = prose + " " + secret.text + " and then more words"
    out = loggable(text)
    assert len(out) <= MAX_TEXT_CHARS
    assert not leaks(out, [secret], text), (secret.shape, out[-300:])


def test_a_huge_question_costs_what_the_window_does() -> None:
    text = "word " * 500_000  # F16's 500,000-word question
    out = loggable(text)
    assert len(out) <= MAX_TEXT_CHARS
    assert out == cut(text[: MAX_TEXT_CHARS + SCRUB_MARGIN])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 4), st.integers(1, 9), st.integers(1, 60)), max_size=40),
    st.integers(1, 10),
    st.integers(60, 600),
    st.data(),
)
def test_bounded_keeps_the_bounds_the_recorded_row_and_the_most_counted(
    rows: list[tuple[int, int, int]], max_rows: int, max_bytes: int, data: st.DataObject
) -> None:
    keep = data.draw(st.integers(0, len(rows) - 1)) if rows else None
    kept = bounded(
        rows,
        size=lambda r: r[2],
        count=lambda r: r[0],
        seen=lambda r: (f"2026-01-0{r[1]}", "2026-01-01"),
        header_bytes=10,
        keep=keep,
        max_rows=max_rows,
        max_bytes=max_bytes,
    )
    # the rows kept are in their order, and the recorded one is among them
    it = iter(rows)
    assert all(any(r is x for x in it) for r in kept)
    if keep is not None:
        assert any(r is rows[keep] for r in kept)
    others = [r for r in kept if keep is None or r is not rows[keep]]
    recorded = 0 if keep is None else rows[keep][2]
    # within both bounds, unless the recorded row alone passes them
    if len(kept) > max_rows or 10 + sum(r[2] for r in kept) > max_bytes:
        assert others == []
        assert 10 + recorded > max_bytes or max_rows < 1
    # nothing dropped ranks above something kept: count first, then the last date
    dropped = [r for i, r in enumerate(rows) if i != keep and not any(r is x for x in kept)]
    for d in dropped:
        for k in others:
            assert (d[0], d[1]) <= (k[0], k[1]), (d, k)


def _miss_log(n: int, question_chars: int = 20) -> list[misslog.Miss]:
    return [
        misslog.Miss(
            1 + (i % 3 == 0),
            "2026-01-01",
            f"2026-{1 + i % 12:02d}-01",
            f"q{i:05d} " + "w" * question_chars,
            (),
        )
        for i in range(n)
    ]


def test_the_miss_log_keeps_2000_rows_dropping_the_oldest_single_questions_first() -> None:
    full = misslog.ordered(_miss_log(MAX_ROWS))
    after = misslog.record(full, "a brand new question", ["looked"], "2026-12-31")
    assert len(after) == MAX_ROWS
    assert any(m.question == "a brand new question" for m in after)
    (gone,) = [m for m in full if m not in after]
    assert gone.count == 1
    assert gone.last == min(m.last for m in full if m.count == 1)
    # a repeat is counted, as before, and drops nothing
    again = misslog.record(after, "A BRAND NEW question", [], "2026-12-31")
    assert len(again) == MAX_ROWS
    assert next(m for m in again if m.question == "a brand new question").count == 2


def test_the_miss_log_never_passes_one_mebibyte() -> None:
    # 2,000-character questions: the bytes bind long before the rows
    log = misslog.ordered(_miss_log(600, question_chars=MAX_TEXT_CHARS - 10))
    for i in range(5):
        log = misslog.record(log, f"new {i} " + "z" * 5000, [], "2026-12-31")
        assert utf8_len(misslog.render(log)) <= MAX_BYTES
        assert all(len(m.question) <= MAX_TEXT_CHARS for m in log)
        assert any(m.question.startswith(f"new {i} ") for m in log)


def test_a_question_an_older_kb_logged_whole_is_cut_and_keeps_its_count() -> None:
    long = "quantas luas " * 1000
    old = [misslog.Miss(7, "2025-01-01", "2025-02-01", long, ()), *_miss_log(3)]
    after = misslog.record(misslog.ordered(old), "another question", [], "2026-12-31")
    kept = next(m for m in after if m.question.startswith("quantas luas"))
    assert kept.count == 7 and len(kept.question) <= MAX_TEXT_CHARS
    assert utf8_len(misslog.render(after)) < 40_000


def test_the_misroutes_are_bounded() -> None:
    rows = [
        routelogs.Misroute(1, "2026-01-01", f"2026-01-{1 + i % 28:02d}", "ada", None, f"m{i}", "")
        for i in range(MAX_ROWS)
    ]
    after = routelogs.record_misroute(rows, "x" * 9000, "ada", "bruno", "y" * 9000, "2026-12-31")
    assert len(after) == MAX_ROWS
    new = next(m for m in after if m.owner == "bruno")
    assert len(new.message) <= MAX_TEXT_CHARS and len(new.why) <= MAX_TEXT_CHARS
    text = routelogs.render_misroutes(after)
    assert utf8_len(text) <= MAX_BYTES


def test_the_abstentions_are_bounded() -> None:
    rows: list[routelogs.Abstention] = []
    for i in range(MAX_ROWS + 5):
        new = routelogs.new_abstention(
            "uncovered",
            None,
            f"subject {i}",
            "m" * 9000,
            "r" * 9000,
            [],
            f"2026-01-{1 + i % 28:02d}",
        )
        rows = routelogs.record_abstention(rows, new)
        assert new.subject in {a.subject for a in rows}
    assert len(rows) <= MAX_ROWS
    assert utf8_len(routelogs.render_abstentions(rows)) <= MAX_BYTES
    assert all(len(a.message) <= MAX_TEXT_CHARS for a in rows)


def test_the_rejection_logs_are_bounded() -> None:
    rows: tuple[rejections.Row, ...] = ()
    alias: tuple[aliasgate.Rejection, ...] = ()
    for i in range(700):
        rows = rejections.record(rows, "ada", f"slug-{i}", "lens", "why " * 2000, "2026-12-31")
        alias = aliasgate.fold_rejection(alias, f"a{i} = b", "why " * 2000, "2026-12-31")
    assert utf8_len(rejections.render(rows)) <= MAX_BYTES
    assert utf8_len(aliasgate.render_rejections(alias)) <= MAX_BYTES
    assert rows[-1].slug == "slug-699" or any(r.slug == "slug-699" for r in rows)
    assert any(r.line == "a699 = b" for r in alias)
    assert all(len(r.reason) <= MAX_TEXT_CHARS for r in rows)
