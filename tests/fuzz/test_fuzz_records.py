"""Fuzz: source records `sources/{KEY}.txt` (kb.pure.writing.sources) and the gold file `gold.tsv`
(kb.pure.fleet.gold). Both are decoded strictly; a refusal is a `Failure` holding one message."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from kb.pure.fleet import gold
from kb.pure.writing import sources
from tests.fuzz.hostile import hostile, line_of, one_line, raw_text, twice, words

# -- source records ------------------------------------------------------------------------

FIELDS = (
    "type", "title", "author", "year", "container", "volume", "pages", "publisher", "url",
    "doi", "isbn", "lang", "retrieved_on", "retrieval_status", "replaces", "note", "TYPE",
)  # fmt: skip
record_lines = st.one_of(
    line_of(
        st.sampled_from(FIELDS),
        st.sampled_from((" = ", "=", " == ", " ")),
        st.sampled_from(
            (*sources.TYPES, *sources.STATUSES, "2026-01-02", "23456789AB", "Doe, J.", "")
        ),
    ),
    line_of(st.just("# "), words),
    words,
)
records = hostile(record_lines)
keys = st.one_of(
    st.text(st.sampled_from(sources.ALPHABET), min_size=10, max_size=10),
    st.text(st.sampled_from(sources.ALPHABET + "01Oo/."), min_size=0, max_size=12),
    raw_text(surrogate=True, max_size=12),  # a stem is a file name: any bytes
)
# A value a record can hold: one line, trimmed, not empty.
value = st.text(min_size=1, max_size=20).filter(lambda s: s == s.strip() and "\n" not in s)


@given(stem=keys, text=records)
def test_record_parser(stem: str, text: str) -> None:
    got = twice(lambda: sources.parse_record(stem, text))
    if isinstance(got, Failure):
        assert isinstance(got.failure(), str) and one_line(got.failure()), got
        return
    record = got.unwrap()
    assert sources.is_key(record.key) and record.type in sources.TYPES
    line = twice(lambda: sources.bibliography_line(record))
    assert line.endswith(".")
    json.dumps(sources.csl_item(record))  # the CSL export is always valid JSON


@given(
    key=st.text(st.sampled_from(sources.ALPHABET), min_size=10, max_size=10),
    kind=st.sampled_from(sources.TYPES),
    status=st.sampled_from(sources.STATUSES),
    title=value,
    retrieved=value,
    authors=st.lists(value, max_size=3),
    optional=st.fixed_dictionaries(
        {},
        optional={
            f: value
            for f in ("year", "container", "volume", "pages", "publisher", "url", "doi", "isbn")
        },
    ),
    note=st.none() | value,
)
def test_record_round_trip(
    key: str,
    kind: str,
    status: str,
    title: str,
    retrieved: str,
    authors: list[str],
    optional: dict[str, str],
    note: str | None,
) -> None:
    record = sources.Record(
        key=key,
        type=kind,
        title=title,
        authors=tuple(authors),
        retrieved_on=retrieved,
        retrieval_status=status,
        note=note,
        **optional,
    )
    assert sources.parse_record(key, sources.render_record(record)) == Success(record)


@given(
    fields=st.fixed_dictionaries(
        {},
        optional={
            f: st.none() | raw_text(max_size=20)
            for f in ("type", "title", "retrieved_on", "retrieval_status", "replaces", "note")
        },
    ),
    authors=st.lists(raw_text(max_size=20), max_size=2),
    existing=st.frozensets(keys, max_size=3),
)
def test_source_add_draft(
    fields: dict[str, str | None], authors: list[str], existing: frozenset[str]
) -> None:
    draft = sources.Draft(
        authors=tuple(a for a in (sources.clean_value(x) for x in authors) if a),
        **{k: sources.clean_value(v) for k, v in fields.items()},
    )
    problem = twice(lambda: sources.draft_problem(draft, existing, "base"))
    if problem is None:
        record = sources.record_of(draft, "23456789AB")
        # Whatever `kb source add` accepts, it reads back the same.
        assert sources.parse_record("23456789AB", sources.render_record(record)) == Success(record)


# -- gold.tsv --------------------------------------------------------------------------------

gold_lines = st.one_of(
    line_of(
        words,
        st.sampled_from(("\t", "\t\t", " ", "")),
        st.sampled_from(("-", "ada/knowledge/x.md", "a|b", "|", " | ", "", "ada/", "/x")),
    ),
    line_of(st.just("#"), words),
)
gold_files = hostile(gold_lines)
cell = st.text(min_size=1, max_size=15).filter(
    lambda s: s == s.strip() and not any(c in s for c in "\t\n|") and not s.startswith("#")
)


@given(text=gold_files, existing=st.frozensets(st.tuples(words, words), max_size=3))
def test_gold_parser(text: str, existing: frozenset[tuple[str, str]]) -> None:
    got = twice(lambda: gold.parse(text, "gold.tsv"))
    if isinstance(got, Failure):
        message = got.failure()
        assert message.startswith("gold.tsv") and "\n" not in message
        return
    rows = got.unwrap()
    assert rows
    for row in rows:
        assert row.question and row.question == row.question.strip()
        assert all(a and a == a.strip() and "|" not in a for a in row.answers)
    twice(lambda: gold.stale_answers(rows, existing))


@given(
    rows=st.lists(
        st.tuples(cell, st.none() | st.lists(cell, min_size=1, max_size=3)), min_size=1, max_size=6
    )
)
def test_gold_round_trip(rows: list[tuple[str, list[str] | None]]) -> None:
    text = "".join(f"{q}\t{'|'.join(a) if a else '-'}\n" for q, a in rows)
    parsed = gold.parse(text, "gold.tsv").unwrap()
    assert [(r.question, list(r.answers) or None) for r in parsed] == [
        (q, None if a in (None, ["-"]) else a) for q, a in rows
    ]
