"""The alias gate is a pure rule: admitted iff the question stops missing and no column
costs (retrieval-core.md §14.5)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kb.pure.promotion.aliasgate import Columns, Measurement, judge

counts = st.integers(min_value=0, max_value=20)
measurements = st.builds(Measurement, st.booleans(), st.builds(Columns, counts, counts, counts))


@given(measurements, measurements)
def test_admitted_iff_rule(before: Measurement, after: Measurement) -> None:
    b, a = before.columns, after.columns
    rule = (
        before.missed
        and not after.missed
        and a.file_hits >= b.file_hits
        and a.agent_hits >= b.agent_hits
        and a.answered_when_should_decline <= b.answered_when_should_decline
    )
    verdict = judge("q", before, after)
    assert verdict.admitted == rule
    assert verdict.reason.startswith("admitted: " if rule else "refused: ")
