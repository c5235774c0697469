"""Fuzz: the logs kb keeps at the fleet root and reads back: the miss log (kb.pure.logs.misslog),
the misroute and abstention logs (kb.pure.logs.routelogs) and the rejections log
(kb.pure.promotion.rejections). Their readers decode with `replace`, so any bytes reach them.

For each: the reader never fails, and what it read, written back and read again, is the same
(a rewrite never loses or changes a row); a recorded question, message or reason with a line
break or a tab in it stays one row.
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from kb.pure.logs import misslog, routelogs
from kb.pure.promotion import rejections
from tests.fuzz.hostile import hostile, line_of, raw_text, twice, words

counts = st.sampled_from(("1", "12", "0", "-1", "x", "", "١٢", "9" * 5000, "1_0", " 3"))
dates = st.sampled_from(("2026-01-02", "2026-13-99", "", "-", "today"))
tab_rows = line_of(
    counts,
    st.just("\t"),
    dates,
    st.just("\t"),
    dates,
    st.sampled_from(("\tada\tbruno\t", "\tada\t-\t", "\tadjacent\t-\t", "\t\t\t", "\t")),
    words,
    st.sampled_from(("\twhy", "\t", "", "\tsubject\tmessage\treason\tada 1.0")),
)
miss_rows = st.one_of(
    line_of(counts, st.just(" "), dates, st.just(" "), dates, st.just(" "), words),
    line_of(st.just("     looked like: "), words, st.just(", "), words),
)
misses_files = hostile(st.one_of(miss_rows, line_of(st.just("# "), words)))
tab_files = hostile(st.one_of(tab_rows, line_of(st.just("# "), words)))
today = st.sampled_from(("2026-05-01", "2026-05-02"))


# What a caller records: any text, and often a value broken across lines or columns.
def fields(n: int) -> st.SearchStrategy[str]:
    broken = line_of(words, st.sampled_from(("\n", "\r", "\r\n", "\t", " \n ")), words)
    return st.one_of(raw_text(max_size=n), broken)


@given(text=misses_files, question=fields(60), offered=st.lists(words, max_size=3), day=today)
@example(
    text="9" * 5000 + " 2026-01-01 2026-01-01 huge count\n",
    question="q",
    offered=[],
    day="2026-05-01",
)
@example(text="", question="two\nlines", offered=["a\rb", ""], day="2026-05-01")
def test_miss_log(text: str, question: str, offered: list[str], day: str) -> None:
    rows = twice(lambda: misslog.parse(text))
    rendered = misslog.render(rows)
    assert misslog.parse(rendered) == rows
    after = misslog.record(rows, question, offered, day)
    again = misslog.parse(misslog.render(after))
    assert again == after
    if question.strip():
        assert len(again) in (len(rows), len(rows) + 1)


@given(
    text=tab_files,
    message=fields(40),
    chose=fields(10),
    owner=st.none() | fields(10),
    why=fields(20),
    day=today,
)
@example(
    text="9" * 5000 + "\t2026-01-01\t2026-01-01\tada\tbruno\tmessage\twhy\n",
    message="m",
    chose="ada",
    owner=None,
    why="",
    day="2026-05-01",
)
def test_misroutes_log(
    text: str, message: str, chose: str, owner: str | None, why: str, day: str
) -> None:
    rows = twice(lambda: routelogs.parse_misroutes(text))
    rendered = routelogs.render_misroutes(rows)
    assert routelogs.render_misroutes(routelogs.parse_misroutes(rendered)) == rendered
    after = routelogs.record_misroute(rows, message, chose, owner, why, day)
    written = routelogs.render_misroutes(after)
    assert routelogs.render_misroutes(routelogs.parse_misroutes(written)) == written
    body = written[len(routelogs.MISROUTES_HEADER) :]
    assert body.count("\n") == len(routelogs.parse_misroutes(written))
    report = twice(lambda: routelogs.misroutes_report("kb-misroutes.txt", after, 1))
    # Every field went through `printable`: no row of the report breaks apart.
    shown = routelogs.ordered_misroutes(after)[: routelogs.shown_count(1)]
    assert len(report.splitlines()) == 2 + sum(3 + bool(m.why) for m in shown) + 3


@given(
    text=tab_files,
    coverage=st.sampled_from(routelogs.COVERAGES),
    nearest=st.none() | fields(10),
    subject=fields(20),
    message=fields(40),
    reason=fields(20),
    totals=st.lists(st.tuples(raw_text(max_size=8), st.floats(-1e9, 1e9)), max_size=4),
    day=today,
)
@example(
    text="9" * 5000 + "\t2026-01-01\t2026-01-01\tadjacent\t-\ts\tm\n",
    coverage="adjacent",
    nearest=None,
    subject="s",
    message="m",
    reason="",
    totals=[],
    day="2026-05-01",
)
def test_abstentions_log(
    text: str,
    coverage: str,
    nearest: str | None,
    subject: str,
    message: str,
    reason: str,
    totals: list[tuple[str, float]],
    day: str,
) -> None:
    rows = twice(lambda: routelogs.parse_abstentions(text))
    rendered = routelogs.render_abstentions(rows)
    assert routelogs.render_abstentions(routelogs.parse_abstentions(rendered)) == rendered
    new = routelogs.new_abstention(coverage, nearest, subject, message, reason, totals, day)
    line = routelogs.abstention_line(coverage, nearest, subject, message, reason, totals, day)
    assert line.count("\n") == 1 and line.endswith("\n")
    after = routelogs.record_abstention(rows, new)
    written = routelogs.render_abstentions(after)
    assert routelogs.render_abstentions(routelogs.parse_abstentions(written)) == written
    shown = after[: routelogs.shown_count(1)]
    now = [routelogs.contenders_text(totals)] * len(shown)
    report = twice(lambda: routelogs.abstentions_report("kb-abstentions.txt", after, shown, now))
    closing = len(routelogs.ABSTENTIONS_CLOSING.splitlines())
    assert len(report.splitlines()) == 2 + sum(6 + bool(a.reason) for a in shown) + closing


@given(text=tab_files, values=st.lists(fields(15), min_size=4, max_size=4), day=today)
def test_rejections_log(text: str, values: list[str], day: str) -> None:
    rows = twice(lambda: rejections.parse(text))
    rendered = rejections.render(rows)
    assert rejections.render(rejections.parse(rendered)) == rendered
    agent, slug, lens, reason = values
    after = rejections.record(rows, agent, slug, lens, reason, day)
    written = rejections.render(after)
    assert rejections.render(rejections.parse(written)) == written
    assert len(rejections.parse(written)) == len(after)
    report = twice(lambda: rejections.report("kb-rejections.txt", after, 2))
    # Every value in the report went through `printable`: rows never break apart.
    shown = min(len(after), 2 * rejections.ROWS_PER_TOP)
    assert len(report.splitlines()) == (3 if not after else 2 + 3 * shown + 3)
    rejections.as_json(after)
