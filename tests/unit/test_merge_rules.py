"""The counted-log merge's row rules, each stated as the rule it protects (issue 25: a merge
in which the later first-seen date won passed every test)."""

from __future__ import annotations

from kb.pure.merge import merge_misses
from kb.pure.misslog import Miss, parse, render


def _log(*misses: Miss) -> str:
    return render(list(misses))


def test_a_merged_row_keeps_the_earliest_first_seen_and_the_latest_last_seen() -> None:
    base = _log(Miss(1, "2026-11-10", "2026-11-10", "slow build", ()))
    ours = _log(Miss(2, "2026-11-10", "2026-11-20", "slow build", ()))
    theirs = _log(Miss(2, "2026-11-05", "2026-11-15", "slow build", ()))  # an older copy
    for a, b in ((ours, theirs), (theirs, ours)):
        [row] = parse(merge_misses(base, a, b).text)
        assert (row.first, row.last) == ("2026-11-05", "2026-11-20")
        assert row.count == 3  # 2 + 2 - 1


def test_the_offer_comes_from_the_side_whose_row_changed_last() -> None:
    base = _log(Miss(1, "2026-11-10", "2026-11-10", "q", ("old",)))
    ours = _log(Miss(2, "2026-11-10", "2026-11-12", "q", ("ours",)))
    theirs = _log(Miss(2, "2026-11-10", "2026-11-18", "q", ("theirs",)))
    [row] = parse(merge_misses(base, ours, theirs).text)
    assert row.looked_like == ("theirs",)
    [row] = parse(merge_misses(base, theirs, ours).text)
    assert row.looked_like == ("theirs",)


def test_a_row_deleted_on_one_side_and_not_asked_again_on_the_other_is_gone() -> None:
    row = Miss(1, "2026-11-10", "2026-11-10", "q", ())
    base = _log(row)
    assert parse(merge_misses(base, _log(), base).text) == []
    asked = Miss(2, "2026-11-10", "2026-11-12", "q", ())
    [kept] = parse(merge_misses(base, _log(), _log(asked)).text)
    assert kept.count == 1  # 0 + 2 - 1: the other side's new refusal survives


def test_new_rows_from_both_sides_are_all_kept() -> None:
    base = _log()
    ours = _log(Miss(1, "2026-11-10", "2026-11-10", "a", ()))
    theirs = _log(Miss(1, "2026-11-11", "2026-11-11", "b", ()))
    merged = {m.question: m.count for m in parse(merge_misses(base, ours, theirs).text)}
    assert merged == {"a": 1, "b": 1}
