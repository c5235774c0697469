"""Reading and recording the routing logs at the fleet root (`kb-misroutes.txt`,
`kb-abstentions.txt`), safely under concurrent writers.

How a record is made safe: an exclusive lock file (`<log>.lock`, created with O_EXCL, the
marker the miss log uses) held while the log is read, folded by kb.pure.logs.routelogs and
rewritten whole (temp file + fsync + rename). Not a bare O_APPEND of one line: the format
keeps one counted row per fault, sorted by count, and a person is told to delete the row
once the fault is fixed; appended duplicates would scatter one fault over many rows. The
rename means a reader sees the old log or the new one, never half a line, and the lock
means two agents filing at once lose neither filing. A lock left by a writer that died is
taken over (kb.io.files.lockfile).

Waiting differs by caller: `kb misroute` is a deliberate act and waits up to 5 s for the
lock; `kb boot` runs on every prompt and waits 0.5 s, as the miss log does. Past the wait
the record is deferred and folded in by the next writer (kb.io.files.deferred): never dropped.

What a record holds of a message is scrubbed of secrets and cut first, and the logs are
bounded (kb.pure.logs.logbounds, issue 24): `kb sync` pushes them, and nobody decided to write them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kb.io.files import deferred
from kb.pure.logs import routelogs
from kb.pure.logs.logbounds import loggable

MISROUTE_LOCK_WAIT_S = 5.0
ABSTENTION_LOCK_WAIT_S = 0.5


def misroutes_path(root: str) -> Path:
    return Path(root) / routelogs.MISROUTES_NAME


def abstentions_path(root: str) -> Path:
    return Path(root) / routelogs.ABSTENTIONS_NAME


def _fold_misroutes(text: str, records: Sequence[deferred.Record]) -> str:
    rows = routelogs.parse_misroutes(text)
    for r in records:
        owner = r.get("owner")
        rows = routelogs.record_misroute(
            rows,
            str(r.get("message", "")),
            str(r.get("chose", "")),
            None if owner is None else str(owner),
            str(r.get("why", "")),
            str(r.get("date", "")),
        )
    return routelogs.render_misroutes(rows)


def record_misroute(path: Path, filing: routelogs.Filing, today: str) -> str | None:
    """File one misroute; None when it is in the log or deferred (kb.io.files.deferred), else the
    one-line reason nothing was kept."""
    record = {
        # scrubbed of secrets before anything is written, a deferred record included
        "message": loggable(filing.message),
        "chose": filing.chose,
        "owner": filing.owner,
        "why": loggable(filing.why),
        "date": today,
    }
    return deferred.update(path, record, _fold_misroutes, MISROUTE_LOCK_WAIT_S)


_ABSTENTION_FIELDS = (
    "count",
    "first",
    "last",
    "coverage",
    "nearest",
    "subject",
    "message",
    "reason",
    "contenders",
)


def _fold_abstentions(text: str, records: Sequence[deferred.Record]) -> str:
    rows = routelogs.parse_abstentions(text)
    for r in records:
        try:
            new = routelogs.Abstention(**{k: r[k] for k in _ABSTENTION_FIELDS})
        except (KeyError, TypeError):
            continue  # a damaged pending record: nothing to fold
        rows = routelogs.record_abstention(rows, new)
    return routelogs.render_abstentions(rows)


def record_abstention(
    path: Path,
    coverage: str,
    nearest: str | None,
    subject: str,
    message: str,
    reason: str,
    totals: Sequence[tuple[str, float]],
    today: str,
) -> str | None:
    """Record one abstention (for `kb boot`); None when it is in the log or deferred, else
    why it was not kept. The arguments are `kb.pure.logs.routelogs.abstention_line`'s."""
    # the message a person sent, and what the classifier said of it, scrubbed of secrets
    # before anything is written, a deferred record included
    new = routelogs.new_abstention(
        coverage, nearest, loggable(subject), loggable(message), loggable(reason), totals, today
    )
    record = {k: getattr(new, k) for k in _ABSTENTION_FIELDS}
    return deferred.update(path, record, _fold_abstentions, ABSTENTION_LOCK_WAIT_S)


def load_misroutes(path: Path) -> list[routelogs.Misroute]:
    """The log in rank order; an absent log is empty. Other read errors raise OSError."""
    return routelogs.parse_misroutes(deferred.read_folded(path, _fold_misroutes))


def load_abstentions(path: Path) -> list[routelogs.Abstention]:
    """The log in rank order; an absent log is empty. Other read errors raise OSError."""
    return routelogs.parse_abstentions(deferred.read_folded(path, _fold_abstentions))
