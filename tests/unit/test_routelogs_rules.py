"""The rules of kb.pure.logs.routelogs, one test per rule (the module's docstring, docs/verbs/
misroute.md, misroutes.md, abstentions.md).

Pure and in-process, so the mutation runner (tests/mutation/mutate.py, module `routelogs`)
can kill mutants with them; the golden tests run the installed kb and cannot.
"""

from __future__ import annotations

import pytest
from returns.result import Failure, Success

from kb.pure.logs import routelogs as rl
from kb.pure.logs.logbounds import MAX_TEXT_CHARS

ROSTER = ("ada", "bruno")


def abst(**changes: object) -> rl.Abstention:
    base: dict[str, object] = {
        "count": 1,
        "first": "2026-01-01",
        "last": "2026-01-01",
        "coverage": "adjacent",
        "nearest": "ada",
        "subject": "visas",
        "message": "do I need a visa",
        "reason": "travel",
        "contenders": "ada 1.0",
    }
    base.update(changes)
    return rl.Abstention(**base)  # type: ignore[arg-type]


def mis(**changes: object) -> rl.Misroute:
    base: dict[str, object] = {
        "count": 1,
        "first": "2026-01-01",
        "last": "2026-01-01",
        "chose": "ada",
        "owner": "bruno",
        "message": "m",
        "why": "w",
    }
    base.update(changes)
    return rl.Misroute(**base)  # type: ignore[arg-type]


# -- misroute arguments and names -------------------------------------------------------------


def test_a_misroute_needs_both_names_before_its_message() -> None:
    """No --chose or no --owner is refused first (exit 2), then a message with no words."""
    both = (
        "misroute needs --chose <agent> and --owner <agent|none>: --chose is who kb boot "
        "picked, --owner is who should have had it (read the log back with `kb misroutes`)."
    )
    assert rl.check_misroute_arguments(None, None, "bruno") == Failure(rl.Refusal(both, 2))
    assert rl.check_misroute_arguments("m", "ada", None) == Failure(rl.Refusal(both, 2))
    no_message = rl.Refusal("misroute needs the message that was routed wrong, as one argument.", 2)
    assert rl.check_misroute_arguments(None, "ada", "bruno") == Failure(no_message)
    assert rl.check_misroute_arguments(" \t\r\n ", "ada", "bruno") == Failure(no_message)
    assert rl.check_misroute_arguments("m", "ada", "bruno") == Success(None)


def test_nobody_is_a_dash_or_none_in_any_case() -> None:
    """`-` and `none` (ASCII case-insensitive, trimmed) mean the message was nobody's."""
    for owner in ("-", " - ", "none", "None", " NONE "):
        assert rl.is_nobody(owner), owner
    for owner in ("", "nobody", "n-one", "--", "nonex"):
        assert not rl.is_nobody(owner), owner


def test_names_are_checked_against_the_roster_case_insensitively() -> None:
    """Both names must be routable agents (ASCII case ignored); the filing keeps them as typed,
    flattened, with no owner for nobody and an empty why when none was given."""
    assert rl.check_misroute_names("m\tx", " Ada ", "BRUNO", None, ROSTER) == Success(
        rl.Filing(message="m x", chose="Ada", owner="BRUNO", why="")
    )
    assert rl.check_misroute_names("m", "ada", "None", "a\nb", ROSTER) == Success(
        rl.Filing(message="m", chose="ada", owner=None, why="a b")
    )


def test_an_unknown_name_is_refused_with_the_fleet_listed() -> None:
    """An unknown chosen agent or owner is named with the roster; an empty roster says so."""
    assert rl.check_misroute_names("m", "zed", "ada", None, ROSTER) == Failure(
        rl.Refusal("no routable agent named `zed`. The fleet: ada, bruno", 2)
    )
    assert rl.check_misroute_names("m", "zed", "ada", None, ()) == Failure(
        rl.Refusal("no routable agent named `zed`. The fleet has no routable agent at all", 2)
    )
    assert rl.check_misroute_names("m", "ada", "zed", None, ROSTER) == Failure(
        rl.Refusal(
            "no routable agent named `zed`. The fleet: ada, bruno. Use `none` when the message "
            "belonged to no agent at all.",
            2,
        )
    )


def test_the_chosen_agent_cannot_be_the_owner() -> None:
    """Chose and owner naming one agent (in any case) is no misroute at all."""
    assert rl.check_misroute_names("m", "Ada", " ada", None, ROSTER) == Failure(
        rl.Refusal("`Ada` was chosen and is named as the owner, so nothing was wrong.", 2)
    )


def test_the_recorded_message_names_both_agents_and_the_log() -> None:
    """`kb misroute` says who was handed whose message, where it went, and that it is evidence."""
    text = rl.recorded_text(rl.Filing("m", "ada", None, ""), "/f/kb-misroutes.txt")
    assert text == (
        "recorded: ada was handed a message that belongs to nobody\n"
        "  /f/kb-misroutes.txt\n"
        "\n"
        "  This is evidence, not a fix: no base was edited. It widens what `kb misses --apply`\n"
        "  may propose for these agents' keys, and the gate still decides what is admitted.\n"
    )
    named = rl.recorded_text(rl.Filing("m", "ada", "bruno", ""), "L")
    assert named.startswith("recorded: ada was handed a message that belongs to bruno\n")


# -- misroutes: recording ---------------------------------------------------------------------


def test_a_repeat_filing_adds_one_and_keeps_the_old_why_when_none_is_given() -> None:
    """Same fault (names in any case): count + 1, last moves to today, an empty why keeps
    the old one, and the names stay as first typed."""
    rows = [mis(chose="Ada", owner="Bruno", why="old")]
    (row,) = rl.record_misroute(rows, "m", "ada", "bruno", "", "2026-02-02")
    assert row == mis(chose="Ada", owner="Bruno", why="old", count=2, last="2026-02-02")
    (row,) = rl.record_misroute(rows, "m", "ada", "bruno", "new", "2026-02-02")
    assert row.why == "new"


def test_a_new_fault_is_a_new_row_and_an_empty_owner_is_nobody() -> None:
    """A first filing starts at one, first and last today; no owner is stored as nobody."""
    rows = rl.record_misroute([mis(count=3)], " x\ty ", "ada", "", "because", "2026-02-02")
    assert rows == [
        mis(count=3),
        rl.Misroute(1, "2026-02-02", "2026-02-02", "ada", None, "x y", "because"),
    ]


def test_old_long_misroute_fields_are_cut_and_fold() -> None:
    """A row an older kb wrote longer than the limit is cut when the log is next recorded, and
    two rows that then share a key fold into one."""
    long_a = "a" * MAX_TEXT_CHARS + "1"
    long_b = "a" * MAX_TEXT_CHARS + "2"
    rows = [mis(message=long_a, count=2), mis(message=long_b, count=3, why="")]
    (row,) = rl.record_misroute(rows, "other", "ada", None, "", "2026-02-02")[:1]
    assert row.message == "a" * MAX_TEXT_CHARS and row.count == 5 and row.why == "w"


# -- abstentions: a new one and recording -----------------------------------------------------


def test_a_covered_verdict_is_never_an_abstention() -> None:
    """Only adjacent and uncovered are abstentions; anything else is a bug in the caller."""
    with pytest.raises(ValueError, match="adjacent or uncovered, not 'covered'"):
        rl.new_abstention("covered", None, "s", "m", "r", (), "2026-01-01")


def test_a_new_abstention_is_seen_once_today_with_its_fields_flattened() -> None:
    """count 1, first and last today, every text flattened, no nearest for none or `-`,
    the contenders as `name score` best first, at most three."""
    a = rl.new_abstention(
        "uncovered",
        " - ",
        " visas\t",
        "a\nb",
        "r\rs",
        (("ada", 12.34), ("bruno", 4.0), ("c\td", 1.06), ("e", 0.5)),
        "2026-01-01",
    )
    assert a == rl.Abstention(
        1, "2026-01-01", "2026-01-01", "uncovered", None, "visas", "a b", "r s",
        "ada 12.3, bruno 4.0, c d 1.1",
    )  # fmt: skip
    assert rl.new_abstention("adjacent", None, "", "m", "", (), "d").nearest is None
    assert rl.new_abstention("adjacent", " ada ", "", "m", "", (), "d").nearest == "ada"


def test_an_abstention_folds_on_its_subject_or_else_its_message_lower_cased() -> None:
    """The key is the subject lower-cased, or the message lower-cased when no subject."""
    assert rl.abstention_key(" Visas ", "anything") == "visas"
    assert rl.abstention_key(" \t", "Do I Need") == "do i need"


def test_a_repeat_abstention_takes_todays_moment_and_keeps_the_first_subject() -> None:
    """A repeat adds its count, moves last, replaces coverage, nearest, message, reason and
    contenders together; first and the subject's first spelling stay."""
    old = abst(count=2, subject="Visas")
    new = rl.new_abstention(
        "uncovered", None, "VISAS", "new message", "new reason", (("bruno", 2.0),), "2026-03-03"
    )
    assert rl.record_abstention([abst(subject="apples"), old], new) == [
        rl.Abstention(
            3, "2026-01-01", "2026-03-03", "uncovered", None, "Visas", "new message",
            "new reason", "bruno 2.0",
        ),
        abst(subject="apples"),
    ]  # fmt: skip


def test_a_first_abstention_on_a_subject_is_its_own_row_ranked_by_count_then_subject() -> None:
    """Abstentions rank count descending, then subject ascending."""
    new = rl.new_abstention("adjacent", "ada", "b", "m2", "", (), "2026-03-03")
    out = rl.record_abstention([abst(subject="c"), abst(subject="a")], new)
    assert [a.subject for a in out] == ["a", "b", "c"]
    out = rl.record_abstention([abst(subject="c", count=5), abst(subject="a")], new)
    assert [a.subject for a in out] == ["c", "a", "b"]


@pytest.mark.parametrize("name", ["nearest", "subject", "message", "reason", "contenders"])
def test_an_old_long_abstention_field_cuts_every_field_of_its_row(name: str) -> None:
    """A row with any text field past the limit has every text field cut when the log is next
    recorded; a row within the limit is left exactly as it was."""
    long = "b" * (MAX_TEXT_CHARS + 5)
    row = abst(**{name: long})
    within = abst(subject="apples", nearest=None, reason="", contenders="")
    new = rl.new_abstention("adjacent", None, "zzz", "m", "", (), "2026-03-03")
    out = rl.record_abstention([row, within], new)
    cut = next(a for a in out if a.subject in ("visas", "b" * MAX_TEXT_CHARS))
    for text in (cut.nearest or "", cut.subject, cut.message, cut.reason, cut.contenders):
        assert len(text) <= MAX_TEXT_CHARS
    assert getattr(cut, name) == "b" * MAX_TEXT_CHARS
    assert within in out


def test_old_long_abstentions_that_share_a_key_once_cut_fold() -> None:
    """Two subjects that differ only past the limit become one row when cut."""
    one = abst(subject="s" * MAX_TEXT_CHARS + "1", count=2)
    two = abst(subject="s" * MAX_TEXT_CHARS + "2", count=3)
    new = rl.new_abstention("adjacent", None, "other", "m", "", (), "2026-03-03")
    out = rl.record_abstention([one, two], new)
    assert [(a.subject, a.count) for a in out] == [("s" * MAX_TEXT_CHARS, 5), ("other", 1)]


# -- reading abstentions: rows that share a subject fold --------------------------------------


def _row(a: rl.Abstention) -> str:
    return rl.render_abstention(a)


def test_rows_for_one_subject_fold_and_the_later_row_describes_it() -> None:
    """Counts add, dates widen, the row with the later `last` gives coverage, nearest,
    message, reason and contenders, and the subject keeps the first row's spelling."""
    early = abst(count=2, first="2026-01-05", last="2026-01-09", subject="Visas", message="old")
    late = abst(
        count=3, first="2026-01-01", last="2026-02-01", subject="visas", coverage="uncovered",
        nearest=None, message="new", reason="r2", contenders="bruno 3.0",
    )  # fmt: skip
    want = rl.Abstention(
        5, "2026-01-01", "2026-02-01", "uncovered", None, "Visas", "new", "r2", "bruno 3.0"
    )
    assert rl.parse_abstentions(_row(early) + _row(late)) == [want]
    # read the other way round, the later row still describes it; the subject is the first read
    assert rl.parse_abstentions(_row(late) + _row(early)) == [
        rl.Abstention(
            5, "2026-01-01", "2026-02-01", "uncovered", None, "visas", "new", "r2", "bruno 3.0"
        )
    ]


def test_on_a_tie_the_row_read_later_describes_the_subject() -> None:
    """Two rows with the same `last`: the one further down the file wins."""
    a = abst(message="first read")
    b = abst(message="read later", reason="r2")
    (row,) = rl.parse_abstentions(_row(a) + _row(b))
    assert (row.message, row.reason, row.count) == ("read later", "r2", 2)


# -- the reports ------------------------------------------------------------------------------


def test_the_report_shows_four_rows_per_top_and_never_fewer_than_four() -> None:
    """`--top N` shows max(N, 1) * 4 rows."""
    assert [rl.shown_count(t) for t in (-2, 0, 1, 2, 5)] == [4, 4, 4, 8, 20]


def test_an_empty_misroutes_log_says_why_it_may_be_empty() -> None:
    """No rows: the log and the likelier, silent reason."""
    assert rl.misroutes_report("L\n", [], 1) == (
        "log:      L\\n\n"
        "\n"
        "  nothing reported. Either the router has not been caught choosing wrong, or the\n"
        "  agents are not calling `kb misroute` when handed a message they do not own,\n"
        "  which is the likelier case and the silent one.\n"
    )


def test_the_misroutes_report_shows_the_most_filed_first_every_value_printable() -> None:
    """Totals over every row, then the rows most filed first up to the bound, nobody for no
    owner, a why line only when there is a why, control characters escaped."""
    rows = [
        mis(count=1, chose="c\x1b", owner=None, message="m1", why="", first="f\r", last="l"),
        mis(count=4, message="m\x072", why="w\n2"),
        *(mis(count=1, message=f"extra {i}") for i in range(4)),
    ]
    report = rl.misroutes_report("L", rows, 1)
    assert report == (
        "log:      L\n"
        "reported: 6 distinct, 9 in total\n"
        "\n   4x  ada to bruno  (2026-01-01 to 2026-01-01)\n"
        "        m\\x072\n"
        "        why: w\\n2\n"
        "\n   1x  c\\x1b to nobody  (f\\r to l)\n"
        "        m1\n"
        "\n   1x  ada to bruno  (2026-01-01 to 2026-01-01)\n"
        "        extra 0\n"
        "        why: w\n"
        "\n   1x  ada to bruno  (2026-01-01 to 2026-01-01)\n"
        "        extra 1\n"
        "        why: w\n"
        "\n"
        "  A count above one is a standing defect in these agents' keys or aliases, not bad\n"
        "  luck. Fix the keys or add the alias line, then delete the row from the log.\n"
    )
    assert rl.misroutes_report("L", rows, 2).count("x  ") == 6


def test_an_empty_abstentions_log_is_not_an_error() -> None:
    """No rows: the log, why it may be empty, and that an absent log is fine."""
    assert rl.abstentions_report("L\x1b", [], [], []) == "log:      L\\x1b\n" + (
        rl.ABSTENTIONS_EMPTY
    )
    assert rl.ABSTENTIONS_EMPTY.rstrip().endswith("An absent log is not an error.")


def test_every_abstention_shown_needs_its_scored_now_line() -> None:
    """A caller handing fewer `now` lines than rows shown is a bug, said so."""
    with pytest.raises(ValueError, match=r"^every abstention shown needs its `scored now` line$"):
        rl.abstentions_report("L", [abst()], [abst()], [])


def test_the_abstentions_report_shows_each_subject_with_then_and_now() -> None:
    """Totals in words, each row with its coverage and nearest (or none near enough), the
    subject (or unnamed), the message, a reason only when given, scored then and now."""
    named = abst(count=2, reason="r\x1b", contenders="ada 1.0")
    unnamed = abst(subject="", nearest=None, reason="", contenders="", coverage="uncovered")
    report = rl.abstentions_report("L", [named, unnamed, abst()], [named, unnamed], ["", "b 2.0"])
    assert report == (
        "log:      L\n"
        "recorded: 3 distinct subjects, 4 abstentions in total\n"
        "\n   2x  adjacent, nearest ada  (2026-01-01 to 2026-01-01)\n"
        "        subject: visas\n"
        "        message: do I need a visa\n"
        "        reason:  r\\x1b\n"
        "        scored then: ada 1.0\n"
        "        scored now:  nothing at all\n"
        "\n   1x  uncovered, no agent near enough to name  (2026-01-01 to 2026-01-01)\n"
        "        subject: (unnamed)\n"
        "        message: do I need a visa\n"
        "        scored then: nothing at all\n"
        "        scored now:  b 2.0\n" + rl.ABSTENTIONS_CLOSING
    )
    one = rl.abstentions_report("L", [abst()], [], [])
    assert "recorded: 1 distinct subject, 1 abstention in total\n" in one


# -- the bound: past 2,000 rows the least filed, oldest go, never the one just recorded -------

MAX_ROWS = 2_000


def test_the_misroute_just_recorded_survives_the_bound() -> None:
    """A full log keeps the new filing even though it is the least filed row."""
    rows = [mis(count=5, message=f"m{i}") for i in range(MAX_ROWS)]
    out = rl.record_misroute(rows, "new", "ada", "bruno", "", "2026-02-02")
    assert len(out) == MAX_ROWS and out[-1].message == "new"


def test_the_misroute_bound_drops_the_least_filed_before_the_oldest() -> None:
    """How often a fault was filed comes first; among equals the one seen longest ago goes."""
    rows = [mis(count=9, message="old", last="2020-01-01")]
    rows += [mis(count=2, message=f"m{i}", last="2026-01-05") for i in range(MAX_ROWS - 2)]
    rows += [mis(count=1, message="young", last="2026-01-06")]
    out = rl.record_misroute(rows, "new", "ada", "bruno", "", "2026-02-02")
    kept = {m.message for m in out}
    assert "old" in kept and "young" not in kept and "new" in kept
    rows = [mis(count=2, message="stale", last="2020-01-01")]
    rows += [mis(count=2, message=f"m{i}", last="2026-01-05") for i in range(MAX_ROWS - 1)]
    kept = {m.message for m in rl.record_misroute(rows, "new", "ada", "bruno", "", "2026-02-02")}
    assert "stale" not in kept and f"m{MAX_ROWS - 2}" in kept and "new" in kept


def test_the_abstention_just_recorded_survives_the_bound() -> None:
    """A full log keeps the new abstention even though it is the least recorded row."""
    rows = [abst(count=5, subject=f"s{i:04d}") for i in range(MAX_ROWS)]
    new = rl.new_abstention("adjacent", None, "zzz", "m", "", (), "2026-02-02")
    out = rl.record_abstention(rows, new)
    assert len(out) == MAX_ROWS and out[-1].subject == "zzz"


def test_the_abstention_bound_drops_the_least_recorded_before_the_oldest() -> None:
    """Count first; among equals the row seen longest ago goes."""
    rows = [abst(count=9, subject="old", last="2020-01-01")]
    rows += [abst(count=2, subject=f"s{i:04d}", last="2026-01-05") for i in range(MAX_ROWS - 2)]
    rows += [abst(count=1, subject="young", last="2026-01-06")]
    new = rl.new_abstention("adjacent", None, "zzz", "m", "", (), "2026-02-02")
    kept = {a.subject for a in rl.record_abstention(rows, new)}
    assert "old" in kept and "young" not in kept and "zzz" in kept
    rows = [abst(count=2, subject="a-stale", last="2020-01-01")]
    rows += [abst(count=2, subject=f"s{i:04d}", last="2026-01-05") for i in range(MAX_ROWS - 1)]
    kept = {a.subject for a in rl.record_abstention(rows, new)}
    assert "a-stale" not in kept and f"s{MAX_ROWS - 2:04d}" in kept and "zzz" in kept


# -- more recording rules ---------------------------------------------------------------------


def test_a_new_misroute_owner_is_stored_as_a_field() -> None:
    """The owner is flattened and trimmed like every other field of the row."""
    (row,) = rl.record_misroute([], "m", "ada", " bru\tno ", "", "2026-02-02")
    assert row.owner == "bru no"


@pytest.mark.parametrize("name", ["chose", "owner", "message", "why"])
def test_an_old_long_misroute_field_is_cut_and_the_rest_kept(name: str) -> None:
    """Any field past the limit is cut to it; the row keeps its other fields, and rows with
    no owner stay rows with no owner."""
    long = "c" * (MAX_TEXT_CHARS + 3)
    rows = [mis(count=4, **{name: long}), mis(count=2, owner=None, message="n")]
    out = rl.record_misroute(rows, "other", "ada", None, "", "2026-02-02")
    want = {"count": 4, name: "c" * MAX_TEXT_CHARS}
    assert out[0] == mis(**want)
    assert out[1] == mis(count=2, owner=None, message="n")


def test_a_misroute_field_of_exactly_the_limit_is_within_it() -> None:
    """Nothing is rewritten when no field is past the limit: a row is kept as it was read,
    a CR a hand edit left inside a field included."""
    rows = [mis(count=3, message="a\rb"), mis(count=2, message="x" * MAX_TEXT_CHARS)]
    out = rl.record_misroute(rows, "other", "ada", None, "", "2026-02-02")
    assert out[:2] == rows


def test_an_abstention_field_of_exactly_the_limit_is_within_it() -> None:
    """As for misroutes: a row within the limit is left exactly as it was read."""
    rows = [
        abst(count=3, message="a\rb"),
        abst(count=2, subject="y" * MAX_TEXT_CHARS, reason="c\rd"),
    ]
    new = rl.new_abstention("adjacent", None, "zzz", "m", "", (), "2026-02-02")
    assert rl.record_abstention(rows, new)[:2] == rows


def test_a_long_abstention_with_no_nearest_keeps_no_nearest() -> None:
    """Cutting a row leaves a missing nearest agent missing."""
    rows = [abst(subject="s" * (MAX_TEXT_CHARS + 1), nearest=None)]
    new = rl.new_abstention("adjacent", None, "zzz", "m", "", (), "2026-02-02")
    assert rl.record_abstention(rows, new)[0].nearest is None


def test_a_repeat_abstention_names_todays_nearest_agent() -> None:
    """The nearest agent is part of today's moment and replaces the old one."""
    new = rl.new_abstention("adjacent", "bruno", "visas", "m", "", (), "2026-03-03")
    (row,) = rl.record_abstention([abst()], new)
    assert row.nearest == "bruno"


# -- reading abstentions ----------------------------------------------------------------------


def test_an_abstention_row_needs_seven_fields_and_reason_and_contenders_are_optional() -> None:
    """Seven fields read with no reason and no contenders, eight with a reason; fewer than
    seven or a bad count skip the row, and reading goes on after it."""
    seven = "2\td1\td2\tadjacent\t\tvisas\tmsg\n"
    eight = "3\td1\td2\tuncovered\t-\tbeans\tmsg2\twhy\n"
    bad = "x\td1\td2\tadjacent\t-\tbad\tmsg\n" + "1\td1\td2\tadjacent\t-\tshort\n"
    assert rl.parse_abstentions(bad + seven + eight) == [
        rl.Abstention(3, "d1", "d2", "uncovered", None, "beans", "msg2", "why", ""),
        rl.Abstention(2, "d1", "d2", "adjacent", None, "visas", "msg", "", ""),
    ]


def test_folded_abstention_dates_widen_to_the_earliest_first() -> None:
    """The earliest `first` of the rows is kept even when another row describes the subject."""
    early = abst(first="2026-01-01", last="2026-01-09")
    late = abst(first="2026-01-05", last="2026-02-01", message="new")
    (row,) = rl.parse_abstentions(_row(early) + _row(late))
    assert (row.first, row.last, row.message) == ("2026-01-01", "2026-02-01", "new")


# -- reading misroutes ------------------------------------------------------------------------


def test_a_misroute_comment_is_skipped_even_when_it_looks_like_a_row() -> None:
    """A `#` line (indented or not) is a comment however many TABs it holds: an unparsable
    count would otherwise read it as a filing. Blank lines are skipped too."""
    comment = "# 1\td\td\tada\tbruno\tnot a row\twhy\n" + "   #\td\td\tada\tbruno\tnor this\n"
    row = "2\td1\td2\tada\tbruno\tm\tw\n"
    assert rl.parse_misroutes(comment + "\n  \n" + row) == [
        rl.Misroute(2, "d1", "d2", "ada", "bruno", "m", "w")
    ]


def test_a_misroute_row_needs_six_fields_and_the_why_is_optional() -> None:
    """Six fields read with an empty why; fewer are skipped and reading goes on after them;
    an unparsable count reads as one filing."""
    text = "1\td\td\tada\tbruno\n" + "x\td1\td2\tada\t-\tm\n"
    assert rl.parse_misroutes(text) == [rl.Misroute(1, "d1", "d2", "ada", None, "m", "")]


def test_misroute_rows_for_one_fault_fold_on_reading() -> None:
    """Rows sharing a fault (names in any case) fold: counts add, first is the earliest,
    last the latest, and the why of the row read later replaces the earlier unless empty."""
    a = rl.misroute_line(mis(count=2, first="2026-01-05", last="2026-01-09", why="old"))
    b = rl.misroute_line(
        mis(count=3, first="2026-01-01", last="2026-01-07", chose="ADA", why="new")
    )
    c = rl.misroute_line(mis(count=1, first="2026-01-06", last="2026-01-06", why=""))
    assert rl.parse_misroutes(a + b + c) == [
        mis(count=6, first="2026-01-01", last="2026-01-09", why="new")
    ]
    assert rl.parse_misroutes(b + a) == [
        mis(count=5, first="2026-01-01", last="2026-01-09", chose="ADA", why="old")
    ]


def test_a_crlf_log_reads_like_an_lf_log() -> None:
    """One CR before each LF is the line ending, not content, down to the last character."""
    lf = "2\td1\td2\tada\tbruno\tm\twhy\n"
    assert rl.parse_misroutes(lf.replace("\n", "\r\n")) == rl.parse_misroutes(lf)
    ab = "2\td1\td2\tadjacent\t-\tvisas\tmsg\treason\tada 1.0\n"
    assert rl.parse_abstentions(ab.replace("\n", "\r\n")) == rl.parse_abstentions(ab)


def test_a_count_of_more_than_eighteen_digits_is_damage() -> None:
    """Eighteen digits are a count; nineteen are not (a misroute then reads as one filing,
    an abstention row is skipped)."""
    big = "9" * 18
    assert rl.parse_misroutes(f"{big}\td\td\tada\tbruno\tm\n")[0].count == int(big)
    assert rl.parse_misroutes(f"{big}9\td\td\tada\tbruno\tm\n")[0].count == 1
    assert rl.parse_abstentions(f"{big}\td\td\tadjacent\t-\ts\tm\n")[0].count == int(big)
    assert rl.parse_abstentions(f"{big}9\td\td\tadjacent\t-\ts\tm\n") == []
