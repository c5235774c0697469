"""The two routing logs at the fleet root: `kb-misroutes.txt` and `kb-abstentions.txt`.

A misroute is filed by the agent that was handed a message it does not own (`kb misroute`);
an abstention is recorded by `kb boot` when the classifier finds that no agent covers a
message. Both are evidence, never edits: nothing here decides who was right. This module
holds their line formats, parsing, folding, ranking and the two read-back reports.

Rules of this module:
- A row is one line of TAB-separated fields, every field flattened (TAB, CR and LF become a
  space, then trimmed), so no value can split a row or a line:
    misroutes:   {count} {first} {last} {chose} {owner|-} {message} {why}
    abstentions: {count} {first} {last} {adjacent|uncovered} {nearest|-} {subject} {message}
                 {reason} {contenders}
  `contenders` is the router's agent totals, best first, at most three, as `name 12.3`
  joined by `, ` (empty when nothing scored).
- A misroute's fault is (message, chose, owner): the message exact, the two agent names
  compared in ASCII case-insensitively, because `--chose Ada` and `--chose ada` name the
  same agent and the same fault must be counted once (the original compared them exactly;
  names are still stored as first typed). A repeat adds one, moves `last` to today and
  replaces `why` only with a non-empty one.
- An abstention folds on its subject lower-cased, or on the message lower-cased when the
  subject is blank: keying on the words of the message would leave every real gap at a
  count of one forever. A repeat adds one, moves `last` to today and replaces coverage,
  nearest, message, reason and contenders together (they describe one moment); the subject
  keeps its first spelling.
- Ranking is by how often the same fault was filed and by nothing else: misroutes count
  descending, ties in file order; abstentions count descending, then subject ascending.
- The read-back reports show every value read from a log through `printable`, so a control
  character a hand edit left in a field cannot split or overwrite a report line.
- Bounded (issue 24, kb.pure.logs.logbounds): every field a row is recorded with is cut to the
  characters the router reads of a question (the writer, kb.io.logs.routelogs, scrubbed the
  message, the subject, the reason and the why of secrets first); a field an older kb left
  longer is cut when the log is next recorded (rows that then share a key fold); past 2,000
  rows or 1 MiB the least filed, oldest rows are dropped, never the one just recorded.
- Reading never fails. Comment (`#`) and blank lines are skipped; a misroute row with
  fewer than 6 fields is skipped and an unparsable count reads as 1; an abstention row with
  fewer than 7 fields or an unparsable count is skipped. A torn last line (a writer killed
  mid-line) therefore reads as the fields it still has or as nothing, and the next record
  rewrites the file whole, which repairs it. Rows that share a key (a log written by an
  appender, or two logs merged by hand) fold into one: counts add, the dates widen, and
  the newest row describes the fault.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from attrs import evolve, frozen
from returns.result import Failure, Result, Success

from kb.pure.answering.election import ascii_lower
from kb.pure.logs.logbounds import MAX_TEXT_CHARS, cut, keep_recorded
from kb.pure.notes.names import printable
from kb.pure.notes.plural import counted

MISROUTES_NAME = "kb-misroutes.txt"
ABSTENTIONS_NAME = "kb-abstentions.txt"
NOBODY = "-"
COVERAGES = ("adjacent", "uncovered")
CONTENDERS_SHOWN = 3
ROWS_PER_TOP = 4  # the reports show max(top, 1) * 4 rows

MISROUTES_HEADER = """\
# Misroutes: messages the router handed to an agent that does not own them.
#
# Filed by the agent that received the message, with `kb misroute`; read back with
# `kb misroutes`. One row per distinct fault, most filed first, TAB-separated:
#   count, first filed, last filed, chosen agent, owner (- for nobody), message, why
#
# A count above one is a standing defect in the keys or aliases of the agents involved,
# not bad luck. Fix the keys, then delete the row. Nothing here was ever applied to a base.
#
# These are real messages a person sent. Do not commit this file.
"""

ABSTENTIONS_HEADER = """\
# Abstentions: messages for which the router found no agent that covers the subject.
#
# Recorded by `kb boot` when the classifier answers adjacent or uncovered; read back with
# `kb abstentions`. One row per subject, most recorded first, TAB-separated:
#   count, first, last, coverage, nearest agent (- for none), subject, message, reason,
#   the agents that scored anyway
#
# Each row is a gap in the fleet, not in the question: give an agent the knowledge, or
# create one for the subject, then delete the row.
#
# These are real messages a person sent. Do not commit this file.
"""


def flatten(text: str) -> str:
    """One field of one row: no TAB, CR or LF can survive to split it."""
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ").strip()


def field(text: str) -> str:
    """A field as a recorded row holds it: flattened and cut to the log's limit."""
    return cut(flatten(text)).strip()


def _lines(text: str) -> list[str]:
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def _count(field: str) -> int | None:
    value = field.strip()
    # More than 18 digits is damage, not a count (and past 4,300 `int()` itself raises).
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 18 else None


# -- misroutes ----------------------------------------------------------------------------


@frozen
class Misroute:
    count: int
    first: str
    last: str
    chose: str
    owner: str | None  # None: the message belonged to no agent (`-` on disk)
    message: str
    why: str


def misroute_key(message: str, chose: str, owner: str | None) -> tuple[str, str, str]:
    return (flatten(message), ascii_lower(flatten(chose)), ascii_lower(flatten(owner or NOBODY)))


def _misroute_key_of(m: Misroute) -> tuple[str, str, str]:
    return misroute_key(m.message, m.chose, m.owner)


def misroute_line(m: Misroute) -> str:
    """One row of `kb-misroutes.txt`, ending with its newline."""
    fields = (
        str(m.count),
        flatten(m.first),
        flatten(m.last),
        flatten(m.chose),
        flatten(m.owner) if m.owner else NOBODY,
        flatten(m.message),
        flatten(m.why),
    )
    return "\t".join(fields) + "\n"


def parse_misroutes(text: str) -> list[Misroute]:
    rows: list[Misroute] = []
    for line in _lines(text):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        f = line.split("\t")
        if len(f) < 6:
            continue
        count = _count(f[0])  # unparsable reads as one filing: the row is still evidence
        owner = f[4].strip()
        rows.append(
            Misroute(
                count=1 if count is None else count,
                first=f[1].strip(),
                last=f[2].strip(),
                chose=f[3].strip(),
                owner=None if owner == NOBODY else owner,
                message=f[5].strip(),
                why=f[6].strip() if len(f) > 6 else "",
            )
        )
    return ordered_misroutes(_fold_misroutes(rows))


def _fold_misroutes(rows: Iterable[Misroute]) -> list[Misroute]:
    by_key: dict[tuple[str, str, str], Misroute] = {}
    for m in rows:
        key = _misroute_key_of(m)
        seen = by_key.get(key)
        if seen is None:
            by_key[key] = m
            continue
        by_key[key] = evolve(
            seen,
            count=seen.count + m.count,
            first=min(seen.first, m.first),
            last=max(seen.last, m.last),
            why=m.why or seen.why,
        )
    return list(by_key.values())


def ordered_misroutes(rows: Iterable[Misroute]) -> list[Misroute]:
    return sorted(rows, key=lambda m: -m.count)  # stable: ties keep file order


def record_misroute(
    rows: Sequence[Misroute],
    message: str,
    chose: str,
    owner: str | None,
    why: str,
    today: str,
) -> list[Misroute]:
    """The log after one more filing of this fault (fields cut, the log bounded)."""
    message, chose, why = field(message), field(chose), field(why)
    owner = field(owner) if owner else owner
    key = misroute_key(message, chose, owner)
    out: list[Misroute] = []
    found = False
    for m in _misroutes_within_limit(rows):
        if not found and _misroute_key_of(m) == key:
            found = True
            out.append(evolve(m, count=m.count + 1, last=today, why=why or m.why))
        else:
            out.append(m)
    if not found:
        out.append(
            Misroute(
                count=1,
                first=today,
                last=today,
                chose=chose,
                owner=owner or None,
                message=message,
                why=why,
            )
        )
    out = ordered_misroutes(out)
    return keep_recorded(
        out,
        lambda m: _misroute_key_of(m) == key,
        misroute_line,
        lambda m: m.count,
        lambda m: (m.last, m.first),
        MISROUTES_HEADER,
    )


def _misroutes_within_limit(rows: Sequence[Misroute]) -> Sequence[Misroute]:
    """Every field cut to the limit (an older kb wrote whole messages); rows that then share
    a key fold."""

    def long(m: Misroute) -> bool:
        return any(len(f) > MAX_TEXT_CHARS for f in (m.chose, m.owner or "", m.message, m.why))

    if not any(long(m) for m in rows):
        return rows
    cut_rows = [
        evolve(
            m,
            chose=field(m.chose),
            owner=field(m.owner) if m.owner else None,
            message=field(m.message),
            why=field(m.why),
        )
        for m in rows
    ]
    return ordered_misroutes(_fold_misroutes(cut_rows))


def render_misroutes(rows: Sequence[Misroute]) -> str:
    return MISROUTES_HEADER + "".join(misroute_line(m) for m in ordered_misroutes(rows))


# -- misroute validation ------------------------------------------------------------------


@frozen
class Refusal:
    """Why a verb refused, as its one stderr line (without `kb: `), and the exit code."""

    message: str
    code: int


@frozen
class Filing:
    """A validated misroute: names as typed, owner None for nobody."""

    message: str
    chose: str
    owner: str | None
    why: str


def is_nobody(owner: str) -> bool:
    value = owner.strip()
    return value == NOBODY or ascii_lower(value) == "none"


def check_misroute_arguments(
    message: str | None, chose: str | None, owner: str | None
) -> Result[None, Refusal]:
    """The checks that need no fleet: both flags, then the message."""
    if chose is None or owner is None:
        return Failure(
            Refusal(
                "misroute needs --chose <agent> and --owner <agent|none>: --chose is who "
                "kb boot picked, --owner is who should have had it (read the log back with "
                "`kb misroutes`).",
                2,
            )
        )
    if message is None or not flatten(message):
        return Failure(
            Refusal("misroute needs the message that was routed wrong, as one argument.", 2)
        )
    return Success(None)


def _unknown(name: str, roster: Sequence[str]) -> str:
    if not roster:
        return f"no routable agent named `{name}`. The fleet has no routable agent at all"
    return f"no routable agent named `{name}`. The fleet: {', '.join(roster)}"


def check_misroute_names(
    message: str, chose: str, owner: str, why: str | None, roster: Sequence[str]
) -> Result[Filing, Refusal]:
    """Both names against the fleet's routable agents (ASCII case-insensitive)."""
    known = {ascii_lower(n) for n in roster}
    if ascii_lower(chose.strip()) not in known:
        return Failure(Refusal(_unknown(chose, roster), 2))
    nobody = is_nobody(owner)
    if not nobody and ascii_lower(owner.strip()) not in known:
        return Failure(
            Refusal(
                _unknown(owner, roster)
                + ". Use `none` when the message belonged to no agent at all.",
                2,
            )
        )
    if not nobody and ascii_lower(chose.strip()) == ascii_lower(owner.strip()):
        return Failure(
            Refusal(f"`{chose}` was chosen and is named as the owner, so nothing was wrong.", 2)
        )
    return Success(
        Filing(
            message=flatten(message),
            chose=flatten(chose),
            owner=None if nobody else flatten(owner),
            why=flatten(why or ""),
        )
    )


def recorded_text(filing: Filing, log: str) -> str:
    """What `kb misroute` prints once the filing is on disk."""
    return (
        f"recorded: {filing.chose} was handed a message that belongs to "
        f"{filing.owner or 'nobody'}\n"
        f"  {log}\n"
        "\n"
        "  This is evidence, not a fix: no base was edited. It widens what `kb misses --apply`\n"
        "  may propose for these agents' keys, and the gate still decides what is admitted.\n"
    )


# -- abstentions --------------------------------------------------------------------------


@frozen
class Abstention:
    count: int
    first: str
    last: str
    coverage: str  # adjacent | uncovered (read back as written)
    nearest: str | None  # None: no agent near enough to name (`-` on disk)
    subject: str
    message: str
    reason: str
    contenders: str  # already rendered: `ada 12.3, bruno 4.0`, or empty


def abstention_key(subject: str, message: str) -> str:
    subject = flatten(subject)
    return subject.lower() if subject else flatten(message).lower()


def _abstention_key_of(a: Abstention) -> str:
    return abstention_key(a.subject, a.message)


def contenders_text(totals: Sequence[tuple[str, float]]) -> str:
    """The router's agent totals, best first as given, at most three: `ada 12.3, bruno 4.0`."""
    return ", ".join(f"{flatten(name)} {score:.1f}" for name, score in totals[:CONTENDERS_SHOWN])


def new_abstention(
    coverage: str,
    nearest: str | None,
    subject: str,
    message: str,
    reason: str,
    totals: Sequence[tuple[str, float]],
    today: str,
) -> Abstention:
    """One abstention seen today, fields flattened. `coverage` must be adjacent or uncovered
    (a covered verdict is never an abstention; passing one is a bug in the caller)."""
    if coverage not in COVERAGES:
        raise ValueError(f"an abstention's coverage is adjacent or uncovered, not {coverage!r}")
    near = field(nearest or "")
    return Abstention(
        count=1,
        first=today,
        last=today,
        coverage=coverage,
        nearest=near if near and near != NOBODY else None,
        subject=field(subject),
        message=field(message),
        reason=field(reason),
        contenders=field(contenders_text(totals)),
    )


def render_abstention(a: Abstention) -> str:
    """One row of `kb-abstentions.txt`, ending with its newline."""
    fields = (
        str(a.count),
        flatten(a.first),
        flatten(a.last),
        flatten(a.coverage),
        flatten(a.nearest) if a.nearest else NOBODY,
        flatten(a.subject),
        flatten(a.message),
        flatten(a.reason),
        flatten(a.contenders),
    )
    return "\t".join(fields) + "\n"


def abstention_line(
    coverage: str,
    nearest: str | None,
    subject: str,
    message: str,
    reason: str,
    totals: Sequence[tuple[str, float]],
    today: str,
) -> str:
    """One `kb-abstentions.txt` row for an abstention seen today, count 1, in the §17.4 format,
    ending with exactly one newline (ready for a single whole-line append).

    coverage: the classifier's verdict, `adjacent` or `uncovered` (anything else raises
        ValueError: a covered message is never an abstention).
    nearest:  the verdict's owner, or None (written `-`) when no agent is near enough.
    subject:  the classifier's SUBJECT, may be empty (the message then keys the row).
    message:  the text that was routed (boot's `asked`).
    reason:   the classifier's REASON, may be empty.
    totals:   the router's agent totals best first (`AgentChoice.totals`), or () when
              nothing scored; at most three are written, each as `name score:.1`.
    today:    `YYYY-MM-DD` (UTC), passed in: this module reads no clock.

    A writer that folds (`record_abstention`, or kb.io.logs.routelogs) is preferred; a log that
    holds several rows for one subject is still read correctly, the rows fold on reading.
    """
    return render_abstention(
        new_abstention(coverage, nearest, subject, message, reason, totals, today)
    )


def parse_abstentions(text: str) -> list[Abstention]:
    rows: list[Abstention] = []
    for line in _lines(text):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        f = line.split("\t")
        count = _count(f[0])
        if len(f) < 7 or count is None:
            continue
        nearest = f[4].strip()
        rows.append(
            Abstention(
                count=count,
                first=f[1].strip(),
                last=f[2].strip(),
                coverage=f[3].strip(),
                nearest=None if nearest in ("", NOBODY) else nearest,
                subject=f[5].strip(),
                message=f[6].strip(),
                reason=f[7].strip() if len(f) > 7 else "",
                contenders=f[8].strip() if len(f) > 8 else "",
            )
        )
    return ordered_abstentions(_fold_abstentions(rows))


def _newest(seen: Abstention, new: Abstention) -> Abstention:
    """The later of two rows for one subject describes it (ties: the one read later)."""
    describe = new if new.last >= seen.last else seen
    return evolve(
        describe,
        count=seen.count + new.count,
        first=min(seen.first, new.first),
        last=max(seen.last, new.last),
        subject=seen.subject,
    )


def _fold_abstentions(rows: Iterable[Abstention]) -> list[Abstention]:
    by_key: dict[str, Abstention] = {}
    for a in rows:
        key = _abstention_key_of(a)
        seen = by_key.get(key)
        by_key[key] = a if seen is None else _newest(seen, a)
    return list(by_key.values())


def ordered_abstentions(rows: Iterable[Abstention]) -> list[Abstention]:
    return sorted(rows, key=lambda a: (-a.count, a.subject))


def record_abstention(rows: Sequence[Abstention], new: Abstention) -> list[Abstention]:
    """The log after one more abstention (`new` from `new_abstention`), the log bounded."""
    new = _abstention_within_limit(new)
    key = _abstention_key_of(new)
    out: list[Abstention] = []
    found = False
    if any(_abstention_within_limit(a) is not a for a in rows):
        rows = ordered_abstentions(_fold_abstentions(_abstention_within_limit(a) for a in rows))
    for a in rows:
        if not found and _abstention_key_of(a) == key:
            found = True
            out.append(
                evolve(
                    a,
                    count=a.count + new.count,
                    last=new.last,
                    coverage=new.coverage,
                    nearest=new.nearest,
                    message=new.message,
                    reason=new.reason,
                    contenders=new.contenders,
                )
            )
        else:
            out.append(a)
    if not found:
        out.append(new)
    out = ordered_abstentions(out)
    return keep_recorded(
        out,
        lambda a: _abstention_key_of(a) == key,
        render_abstention,
        lambda a: a.count,
        lambda a: (a.last, a.first),
        ABSTENTIONS_HEADER,
    )


def _abstention_within_limit(a: Abstention) -> Abstention:
    """The row with every text field cut to the limit (the same row when none is longer)."""
    texts = (a.nearest or "", a.subject, a.message, a.reason, a.contenders)
    if all(len(t) <= MAX_TEXT_CHARS for t in texts):
        return a
    return evolve(
        a,
        nearest=field(a.nearest) if a.nearest else None,
        subject=field(a.subject),
        message=field(a.message),
        reason=field(a.reason),
        contenders=field(a.contenders),
    )


def render_abstentions(rows: Sequence[Abstention]) -> str:
    return ABSTENTIONS_HEADER + "".join(render_abstention(a) for a in ordered_abstentions(rows))


# -- the read-back reports ----------------------------------------------------------------


def shown_count(top: int) -> int:
    return max(top, 1) * ROWS_PER_TOP


def _span(first: str, last: str) -> str:
    return f"({printable(first)} to {printable(last)})"


def misroutes_report(log: str, rows: Sequence[Misroute], top: int) -> str:
    """`kb misroutes`: the log most filed first, bounded to max(top, 1) * 4 rows."""
    out = [f"log:      {printable(log)}\n"]
    if not rows:
        out.append(
            "\n"
            "  nothing reported. Either the router has not been caught choosing wrong, or the\n"
            "  agents are not calling `kb misroute` when handed a message they do not own,\n"
            "  which is the likelier case and the silent one.\n"
        )
        return "".join(out)
    total = sum(m.count for m in rows)
    out.append(f"reported: {len(rows)} distinct, {total} in total\n")
    for m in ordered_misroutes(rows)[: shown_count(top)]:
        out.append(
            f"\n   {m.count}x  {printable(m.chose)} to {printable(m.owner or 'nobody')}  "
            f"{_span(m.first, m.last)}\n"
            f"        {printable(m.message)}\n"
        )
        if m.why:
            out.append(f"        why: {printable(m.why)}\n")
    out.append(
        "\n"
        "  A count above one is a standing defect in these agents' keys or aliases, not bad\n"
        "  luck. Fix the keys or add the alias line, then delete the row from the log.\n"
    )
    return "".join(out)


ABSTENTIONS_EMPTY = """
  no gap recorded. Either the router has not abstained on any message here, or it
  could not write this log. A fleet whose fleet.txt names no `classifier =` command
  records nothing here on purpose: only the classifier judges whether an agent covers
  a subject, and keyword scores alone cannot say so. Questions that scored nothing at
  all are in another log, kb-misses.txt; read it with `kb misses`.
  An absent log is not an error.
"""

ABSTENTIONS_CLOSING = """
  `scored now` asks each stored message again against the fleet as it is today, by
  keyword score alone; it does not judge coverage again. A name there that `scored then`
  lacked is an agent created or a card widened since. An agent that scored and was still
  not chosen needs its card (role, ends, keys) fixed. Once a subject is covered, delete
  its row.
"""


def abstentions_report(
    log: str, every: Sequence[Abstention], shown: Sequence[Abstention], now: Sequence[str]
) -> str:
    """`kb abstentions`: totals over `every` row, then the `shown` rows (the first
    `shown_count(top)`), each with `now[i]`, the `contenders_text` of today's totals."""
    if not every:
        return f"log:      {printable(log)}\n" + ABSTENTIONS_EMPTY
    if len(now) != len(shown):
        raise ValueError("every abstention shown needs its `scored now` line")
    total = sum(a.count for a in every)
    out = [
        f"log:      {printable(log)}\n",
        f"recorded: {counted(len(every), 'distinct subject')}, "
        f"{counted(total, 'abstention')} in total\n",
    ]
    for a, today in zip(shown, now, strict=True):
        nearest = f"nearest {printable(a.nearest)}" if a.nearest else "no agent near enough to name"
        out.append(
            f"\n   {a.count}x  {printable(a.coverage)}, {nearest}  {_span(a.first, a.last)}\n"
            f"        subject: {printable(a.subject) or '(unnamed)'}\n"
            f"        message: {printable(a.message)}\n"
        )
        if a.reason:
            out.append(f"        reason:  {printable(a.reason)}\n")
        out.append(
            f"        scored then: {printable(a.contenders) or 'nothing at all'}\n"
            f"        scored now:  {printable(today) or 'nothing at all'}\n"
        )
    out.append(ABSTENTIONS_CLOSING)
    return "".join(out)
