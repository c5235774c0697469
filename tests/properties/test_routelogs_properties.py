"""The routing logs (`kb-misroutes.txt`, `kb-abstentions.txt`): a faithful render/parse round
trip, k filings of one fault counted as k, and a torn last line that never raises."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.pure.logs import routelogs as rl

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Anything a person or a classifier might type, line breaks and tabs included.
raw_text = st.text(st.characters(codec="utf-8"), max_size=30)
# A field as it sits on disk: already flattened.
field_text = raw_text.map(rl.flatten)
names = st.text("abcdefgABCDEFG-_ é", min_size=1, max_size=8).map(rl.flatten).filter(bool)
dates = st.from_regex(r"20[0-9]{2}-[01][0-9]-[0-3][0-9]", fullmatch=True)
owners = st.one_of(st.none(), names.filter(lambda n: n != rl.NOBODY))
totals = st.lists(
    st.tuples(names, st.floats(0, 1000, allow_nan=False, allow_infinity=False)), max_size=5
)


@st.composite
def misroute_rows(draw: st.DrawFn) -> list[rl.Misroute]:
    rows = draw(
        st.lists(
            st.builds(
                rl.Misroute,
                count=st.integers(0, 9999),
                first=dates,
                last=dates,
                chose=names,
                owner=owners,
                message=field_text,
                why=field_text,
            ),
            max_size=6,
            unique_by=lambda m: rl.misroute_key(m.message, m.chose, m.owner),
        )
    )
    return rows


@st.composite
def abstention_rows(draw: st.DrawFn) -> list[rl.Abstention]:
    return draw(
        st.lists(
            st.builds(
                rl.Abstention,
                count=st.integers(0, 9999),
                first=dates,
                last=dates,
                coverage=st.sampled_from(rl.COVERAGES),
                nearest=owners,
                subject=field_text,
                message=field_text,
                reason=field_text,
                contenders=totals.map(rl.contenders_text),
            ),
            max_size=6,
            unique_by=lambda a: rl.abstention_key(a.subject, a.message),
        )
    )


def _ascii_upper(name: str) -> str:
    """Agent names compare in ASCII case only (`É` is not `é` to the router either)."""
    return "".join(c.upper() if c.isascii() else c for c in name)


# -- round trips ----------------------------------------------------------------------------


@SETTINGS
@given(misroute_rows())
def test_misroutes_round_trip(rows: list[rl.Misroute]) -> None:
    assert rl.parse_misroutes(rl.render_misroutes(rows)) == rl.ordered_misroutes(rows)


@SETTINGS
@given(abstention_rows())
def test_abstentions_round_trip(rows: list[rl.Abstention]) -> None:
    assert rl.parse_abstentions(rl.render_abstentions(rows)) == rl.ordered_abstentions(rows)


@SETTINGS
@given(st.sampled_from(rl.COVERAGES), owners, raw_text, raw_text, raw_text, totals, dates)
def test_abstention_line_reads_back(
    coverage: str,
    nearest: str | None,
    subject: str,
    message: str,
    reason: str,
    scored: list[tuple[str, float]],
    today: str,
) -> None:
    line = rl.abstention_line(coverage, nearest, subject, message, reason, scored, today)
    assert line.endswith("\n") and line.count("\n") == 1
    assert line.count("\t") == 8
    parsed = rl.parse_abstentions(line)
    assert parsed == [rl.new_abstention(coverage, nearest, subject, message, reason, scored, today)]
    assert parsed[0].contenders.count(", ") == max(0, min(len(scored), 3) - 1)


# -- counting -------------------------------------------------------------------------------


@SETTINGS
@given(
    misroute_rows(),
    raw_text.filter(lambda m: bool(rl.flatten(m))),
    names,
    owners,
    st.lists(st.tuples(st.booleans(), raw_text), min_size=1, max_size=8),
)
def test_k_misroute_filings_count_k(
    rows: list[rl.Misroute],
    message: str,
    chose: str,
    owner: str | None,
    filings: list[tuple[bool, str]],
) -> None:
    key = rl.misroute_key(message, chose, owner)
    rows = [m for m in rows if rl.misroute_key(m.message, m.chose, m.owner) != key]
    before = sum(m.count for m in rows)
    text = rl.render_misroutes(rows)
    for shout, why in filings:
        # the same agents typed in another case are the same fault
        typed = _ascii_upper(chose) if shout else chose
        updated = rl.record_misroute(
            rl.parse_misroutes(text), message, typed, owner, why, "2026-11-29"
        )
        text = rl.render_misroutes(updated)
    final = rl.parse_misroutes(text)
    mine = [m for m in final if rl.misroute_key(m.message, m.chose, m.owner) == key]
    assert len(mine) == 1 and mine[0].count == len(filings)
    assert sum(m.count for m in final) == before + len(filings)
    whys = [rl.flatten(w) for _, w in filings if rl.flatten(w)]
    assert mine[0].why == (whys[-1] if whys else "")


@SETTINGS
@given(
    st.text("abc XYZ", min_size=1, max_size=6).filter(lambda s: bool(rl.flatten(s))),
    st.lists(st.tuples(st.booleans(), raw_text, st.sampled_from(rl.COVERAGES)), min_size=1),
)
def test_k_abstentions_on_one_subject_count_k(
    subject: str, seen: list[tuple[bool, str, str]]
) -> None:
    rows: list[rl.Abstention] = []
    for shout, message, coverage in seen:
        typed = subject.upper() if shout else subject.lower()
        new = rl.new_abstention(coverage, None, typed, message, "", (), "2026-11-29")
        rows = rl.parse_abstentions(rl.render_abstentions(rl.record_abstention(rows, new)))
    assert len(rows) == 1
    assert rows[0].count == len(seen)
    assert rows[0].message == rl.flatten(seen[-1][1])  # the newest describes the subject
    assert rows[0].coverage == seen[-1][2]


@SETTINGS
@given(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=12))
def test_appended_lines_fold_on_reading(faults: list[str]) -> None:
    """A log written line by line (count 1 each, never folded) reads like a folded one."""
    appended = "".join(
        rl.misroute_line(rl.Misroute(1, "2026-11-29", "2026-11-29", "ada", None, f, ""))
        for f in faults
    )
    counts = {m.message: m.count for m in rl.parse_misroutes(appended)}
    assert counts == {f: faults.count(f) for f in set(faults)}
    lines = "".join(
        rl.abstention_line("uncovered", None, f, "m", "", (), "2026-11-29") for f in faults
    )
    assert {a.subject: a.count for a in rl.parse_abstentions(lines)} == counts


# -- torn files -----------------------------------------------------------------------------


@SETTINGS
@given(misroute_rows(), st.data())
def test_torn_misroutes_never_raise(rows: list[rl.Misroute], data: st.DataObject) -> None:
    text = rl.render_misroutes(rows)
    cut = data.draw(st.integers(0, len(text)))
    torn = rl.parse_misroutes(text[:cut])
    whole = rl.ordered_misroutes(rows)
    assert sum(m.count for m in torn) <= sum(m.count for m in whole)
    assert len([m for m in torn if m not in whole]) <= 1  # at most the torn row itself
    # the next filing rewrites the file whole, which repairs it
    repaired = rl.render_misroutes(rl.record_misroute(torn, "m", "ada", None, "", "2026-11-29"))
    body = [line for line in repaired.split("\n")[:-1] if not line.startswith("#")]
    assert repaired.endswith("\n") and all(line.count("\t") == 6 for line in body)


@SETTINGS
@given(abstention_rows(), st.data())
def test_torn_abstentions_never_raise(rows: list[rl.Abstention], data: st.DataObject) -> None:
    text = rl.render_abstentions(rows)
    cut = data.draw(st.integers(0, len(text)))
    torn = rl.parse_abstentions(text[:cut])
    whole = rl.ordered_abstentions(rows)
    assert sum(a.count for a in torn) <= sum(a.count for a in whole)
    assert len([a for a in torn if a not in whole]) <= 1


@SETTINGS
@given(st.text(max_size=200))
def test_any_text_reads_without_raising(text: str) -> None:
    rl.parse_misroutes(text)
    rl.parse_abstentions(text)
