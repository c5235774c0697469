"""`kb-rejections.txt`: what the reviewer refused, counted (workflow-verbs.md §10.5, §10.7).

Rules of this module:
- The file is a comment header (lines starting `#`) and then one row per distinct refused
  proposal, tab separated: `{count}\\t{first}\\t{last}\\t{agent}\\t{slug}\\t{lens}\\t{reason}`.
- A row's identity is (agent, slug, lens), compared exactly. Recording a refusal that has a
  row already adds one to its count, keeps its first date, sets the last date to today and
  takes the new reason; anything else starts a row at count 1 dated today on both sides.
- After every recording the rows are sorted by count, highest first; rows with equal counts
  keep their order (a stable sort), so the file reads as "most refused first".
- Every field is flattened before it is written (tab, CR and LF become a space), so no value
  can add a column or a line.
- Reading is forgiving: lines are trimmed (of spaces, not of the tabs that separate
  fields, so an empty reason is still a row), `#` lines and blank lines skipped, a row needs at
  least seven tab fields, an unparsable count reads as 1, and a reason that held tabs (a
  file written by hand) keeps them, rejoined.
- Bounded (issue 24, kb.pure.logs.logbounds): every recorded field is cut to the characters the
  router reads of a question (the writer, kb.io.promotion.rejectlog, scrubbed the reason of secrets
  first: a model's reason may quote a note); past 2,000 rows or 1 MiB the least refused,
  oldest rows are dropped, never the one just recorded.
- `kb rejections` filters by agent and lens with a case-insensitive comparison, prints at
  most `max(top, 1) * 4` rows in file order, and always succeeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import evolve, frozen

from kb.pure.logs.logbounds import bounded, cut, utf8_len
from kb.pure.notes.names import printable
from kb.pure.render.jsonout import dumps
from kb.pure.sessions.session import flatten

LOG_NAME = "kb-rejections.txt"
ROWS_PER_TOP = 4

HEADER = (
    "# kb-rejections.txt: the proposals kb promote's reviewer refused, most refused first.\n"
    "# One line per distinct proposal, tab separated: count, first seen, last seen, agent,\n"
    "# slug, lens, and the reason given the last time.\n"
    "# A proposal refused again and again is a gap in the base rather than a bad proposal:\n"
    "# the deposit keeps saying something the base has no place for. Delete a row once the\n"
    "# gap is dealt with.\n"
)


@frozen
class Row:
    count: int
    first_seen: str
    last_seen: str
    agent: str
    slug: str
    lens: str
    reason: str


def ascii_lower(text: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def parse(text: str) -> tuple[Row, ...]:
    rows: list[Row] = []
    for raw in text.split("\n"):
        # Trimmed of spaces and CR, never of tabs: an empty last field is still a field.
        line = raw.strip(" \r")
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 7:
            continue
        try:
            count = int(fields[0].strip()) if len(fields[0]) <= 18 else 1  # longer is damage
        except ValueError:
            count = 1
        rows.append(
            Row(
                count=count,
                first_seen=fields[1],
                last_seen=fields[2],
                agent=fields[3],
                slug=fields[4],
                lens=fields[5],
                reason="\t".join(fields[6:]),
            )
        )
    return tuple(rows)


def record(
    rows: Sequence[Row], agent: str, slug: str, lens: str, reason: str, today: str
) -> tuple[Row, ...]:
    agent, slug, lens = (cut(flatten(f)).strip() for f in (agent, slug, lens))
    reason = cut(flatten(reason)).strip() or "no reason given"
    out = list(rows)
    for i, row in enumerate(out):
        if (row.agent, row.slug, row.lens) == (agent, slug, lens):
            out[i] = evolve(row, count=row.count + 1, last_seen=today, reason=reason)
            break
    else:
        out.append(Row(1, today, today, agent, slug, lens, reason))
    ranked = sorted(out, key=lambda r: -r.count)
    key = (agent, slug, lens)
    recorded = next(i for i, r in enumerate(ranked) if (r.agent, r.slug, r.lens) == key)
    return tuple(
        bounded(
            ranked,
            lambda r: utf8_len(row_line(r)) + 1,
            lambda r: r.count,
            lambda r: (r.last_seen, r.first_seen),
            utf8_len(HEADER),
            keep=recorded,
        )
    )


def row_line(row: Row) -> str:
    fields = (row.first_seen, row.last_seen, row.agent, row.slug, row.lens, row.reason)
    return "\t".join((str(row.count), *(flatten(f) for f in fields)))


def render(rows: Sequence[Row]) -> str:
    return HEADER + "".join(row_line(r) + "\n" for r in rows)


# -- reading the log back (`kb rejections`) ---------------------------------------------------


def select(rows: Sequence[Row], agent: str | None, lens: str | None) -> tuple[Row, ...]:
    """The rows matching `--agent` and `--lens` (each compared ignoring case), in file order."""
    want_agent = ascii_lower(agent) if agent is not None else None
    want_lens = ascii_lower(lens) if lens is not None else None
    return tuple(
        r
        for r in rows
        if (want_agent is None or ascii_lower(r.agent) == want_agent)
        and (want_lens is None or ascii_lower(r.lens) == want_lens)
    )


def as_json(rows: Sequence[Row]) -> str:
    objects: list[dict[str, Any]] = [
        {
            "count": r.count,
            "first_seen": r.first_seen,
            "last_seen": r.last_seen,
            "agent": r.agent,
            "slug": r.slug,
            "lens": r.lens,
            "reason": r.reason,
        }
        for r in rows
    ]
    return dumps(objects) + "\n"


CLOSING = (
    "A proposal refused again and again for the same reason is a gap in the base, not a bad\n"
    "proposal. Once the gap is dealt with, delete its row (or resolve the note it asks for).\n"
)


def report(path: str, rows: Sequence[Row], top: int) -> str:
    lines = [f"log:      {printable(path)}"]
    if not rows:
        return "\n".join([*lines, "", "  no rejections recorded."]) + "\n"
    total = sum(r.count for r in rows)
    lines.append(f"refused:  {len(rows)} distinct, {total} in total")
    for r in rows[: max(top, 1) * ROWS_PER_TOP]:
        lines += [
            "",
            f"   {r.count}x  {printable(r.agent)}/{printable(r.slug)} "
            f"({printable(r.lens)}, {printable(r.first_seen)} to {printable(r.last_seen)})",
            f"        why: {printable(r.reason)}",
        ]
    return "\n".join([*lines, ""]) + "\n" + CLOSING
