"""What `kb promote` prints (workflow-verbs.md §10.6), and the per-proposal lines `kb ingest`
and `kb consolidate` print in the same words.

Rules of this module:
- stdout carries the decisions and the summary; stderr carries one line per thing that
  could not be reached. Progress, when there is any, is the shell's and goes to a terminal's
  stderr only.
- A decided proposal prints as written, would write (an admitted proposal in a dry run) or
  refused with one `{lens} says:` line per refusing review, and is followed by the deposit
  (or sessions) it came from.
- The summary counts the decided proposals: written (in a dry run: would be written) and
  refused. Dropped keys are not printed by `promote` (the original's choice, kept); `ingest`
  prints them.
- Every value that came from a model or from disk goes through `printable`, so one item is
  one line.
"""

from __future__ import annotations

from collections.abc import Sequence

from kb.pure.notes.names import printable
from kb.pure.notes.plural import counted
from kb.pure.promotion.promoterun import Barren, Decided, Report
from kb.pure.promotion.rejections import LOG_NAME

DRY_RUN = "dry run: nothing was written and no refusal was recorded."
INDENT = "          "


def decided_lines(d: Decided) -> list[str]:
    name = f"{printable(d.agent)}/{printable(d.slug)}"
    if d.written is not None:
        lines = [f"  wrote   {name}", f"{INDENT}{printable(d.written)}"]
    elif d.admitted and not d.refused:
        lines = [f"  would write {name}"]
    else:
        lines = [f"  refused {name}"]
        lines += [
            f"{INDENT}{r.lens} says: {printable(r.reason)}" for r in d.reviews if not r.accept
        ]
    lines.append(f"{INDENT}from {printable(d.source)}")
    return lines


def counts(decided: Sequence[Decided], dry_run: bool) -> tuple[int, int]:
    """(written, refused); in a dry run, written counts what would have been."""
    if dry_run:
        written = sum(1 for d in decided if d.admitted and not d.refused)
    else:
        written = sum(1 for d in decided if d.written is not None)
    return written, sum(1 for d in decided if d.refused)


def stopped_line(cap: int) -> str:
    return (
        f"Stopped at the cap of {cap}. The rest of the deposit was not read and is still "
        "there. Run again, or raise --max, once you have looked at these."
    )


def promote_stdout(report: Report, dry_run: bool) -> str:
    lines: list[str] = [DRY_RUN, ""] if dry_run else []
    for e in report.entries:
        if isinstance(e, Barren):
            lines.append(f"  nothing worth keeping in {printable(e.source)}")
        else:
            lines += decided_lines(e)
    decided = report.decided
    written, refused = counts(decided, dry_run)
    did = "would be written" if dry_run else "written"
    lines += [
        "",
        f"{counted(len(decided), 'proposal')}: {written} {did}, {refused} refused. "
        f"{counted(len(report.barren), 'deposit file')} held nothing.",
    ]
    if refused and not dry_run:
        lines.append(f"Refusals are counted in {LOG_NAME}.")
    if report.stopped_at is not None:
        lines.append(stopped_line(report.stopped_at))
    return "\n".join(lines) + "\n"


def unreachable_stderr(verb: str, items: Sequence[str]) -> str:
    return "".join(
        f"kb {verb}: could not reach {printable(item)}, so nothing was written for it.\n"
        for item in items
    )


def ingest_lines(report: Report) -> list[str]:
    """The per-proposal lines `kb ingest` prints after staging (§13 step 12)."""
    lines: list[str] = []
    for d in report.decided:
        name = f"{printable(d.agent)}/{printable(d.slug)}"
        if d.written is not None:
            lines += [f"  wrote   {name}", f"{INDENT}{printable(d.written)}"]
        else:
            lines.append(f"  refused {name}")
            lines += [
                f"{INDENT}{r.lens} says: {printable(r.reason)}" for r in d.reviews if not r.accept
            ]
    lines += [f"  could not reach {printable(item)}" for item in report.unreachable]
    for d in report.decided:
        if d.written is not None and d.dropped:
            keys = ", ".join(printable(k) for k in d.dropped)
            noun = "key" if len(d.dropped) == 1 else "keys"
            lines.append(f"  {printable(d.slug)}: dropped unreachable {noun} {keys}")
    return lines
