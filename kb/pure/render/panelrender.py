"""What `kb panel` prints (workflow-verbs.md §16): the opened round and its price, the proposal,
the ask text, the receipts for recording and resolving, and the ledger read back.

Rules of this module:
- The shapes the spec pins are kept exactly: the price table's columns, the recording and
  resolving commands, the ledger's markdown table, its `closed`/`OPEN` summary rows, and the
  JSON keys in the spec's order. The explanatory sentences are ours.
- Text a person or a model typed (artifact keys, names, objections, reasons) is shown through
  `printable`, so a control character can never split a line of the report; JSON carries it
  as is (the JSON writer escapes it). A `|` inside a markdown cell is escaped, or one
  objection would become two columns of the table that travels with the piece.
- Nothing here reads a file or decides a rule: the ledger's rules are kb.pure.roles.panel's.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from kb.pure.notes.names import printable
from kb.pure.notes.plural import counted
from kb.pure.render.jsonout import dumps, round6
from kb.pure.roles.panel import (
    NOT_GROUNDED,
    Booted,
    Cost,
    Recorded,
    Resolved,
    Round,
    Row,
    Seated,
    artifacts,
    round_of,
)
from kb.pure.sessions.briefing import first_clause

ROLE_CAP = 100
ENDS_CAP = 150


def _p(text: str) -> str:
    return printable(text)


# -- the ask text (§16.5) ---------------------------------------------------------------------


def ask_text(key: str) -> str:
    """What each reviewer subagent is told, word for word; `<constitution>` is its own file."""
    return (
        "Read <constitution> in full, and answer as that agent for as long as this task lasts.\n"
        f"Then read {key}.\n"
        "Return the single strongest thing wrong with it, seen from inside your own domain, or\n"
        "one line saying you found nothing. Praise is not an objection. Do not rewrite the\n"
        "piece; a suggested line is welcome only as an illustration of the objection. An\n"
        "objection from outside your domain is advisory and must say so. You may mark at most\n"
        "one objection blocking, and only when it is inside your domain and falsifiable: name\n"
        "the invariant, failure mode, limit or rule it breaks, or it will be recorded as\n"
        "advisory."
    )


def _indented(text: str, pad: str = "  ") -> list[str]:
    return [pad + line if line else "" for line in text.split("\n")]


def commands(key: str) -> list[str]:
    k = _p(key)
    return [
        f'  kb panel {k} --from <agent> --objection "<text>" [--blocking]',
        f"  kb panel {k} --from <agent> --nothing",
        f'  kb panel {k} --from <agent> --not-returned --why "<what was decided instead>"',
        f'  kb panel {k} --resolve <n> --taken --why "<text>"',
        f'  kb panel {k} --resolve <n> --refused --why "<text>"',
        f'  kb panel {k} --resolve <n> --escalated --why "<text>"   (blocking only)',
        f"  kb panel {k} --ledger",
    ]


# -- opening (§16.2) --------------------------------------------------------------------------


def _row(label: str, value: int) -> str:
    return f"  {label:<15} {value:>7}"


def opened_text(seated: Seated, booted: Sequence[Booted], cost: Cost, artifact: str) -> str:
    lines = [f"round open on {_p(seated.key)}, owned by {_p(seated.owner)}"]
    if seated.already:
        lines.append(f"  ({len(seated.already)} already seated, so nothing was added for them)")
    lines += ["", f"  {'reviewer':<12} {'~boot':>7}   constitution"]
    lines += [f"  {_p(b.agent):<12} {b.tokens:>7}   {_p(b.constitution)}" for b in booted]
    lines += ["", _row("boot", cost.boot)]
    if cost.artifact_tokens is None:
        lines.append(
            f"{_row('reading', 0)}   {_p(artifact)} is not a readable file, so nothing was "
            "priced for it"
        )
    else:
        lines.append(
            f"{_row('reading', cost.reading)}   {cost.artifact_tokens} tokens of artifact, read "
            f"once by each of {cost.reviewers}"
        )
    lines += [
        "  " + "-" * 24,
        f"{_row('total', cost.total)} tokens, before a word of the review is written",
        "",
        "An owner pays for a piece once per revision; a round table pays again for every",
        "exchange, because every voice rereads everything said so far. So the panel is never a",
        "conversation: boot one subagent per reviewer, each with its own constitution and",
        "nothing else, never two constitutions in one context. Real panels have measured",
        "about six times this estimate, once the reviewers start reading around the piece.",
        "",
        "Hand each subagent its own file, and ask it exactly this:",
        "",
        *_indented(_p_lines(ask_text(seated.key))),
        "",
        "Then put every answer on the record, silence included, and account for each objection:",
        "",
        *commands(seated.key),
    ]
    return "\n".join(lines) + "\n"


def _p_lines(text: str) -> str:
    return "\n".join(_p(line) for line in text.split("\n"))


def opened_json(seated: Seated, booted: Sequence[Booted], cost: Cost, log: str) -> str:
    value = {
        "artifact": seated.key,
        "owner": seated.owner,
        "seated": list(seated.added),
        "panel": [
            {"agent": b.agent, "constitution": b.constitution, "tokens": b.tokens} for b in booted
        ],
        "cost": {
            "boot": cost.boot,
            "reading": cost.reading,
            "total": cost.total,
            "reviewers": cost.reviewers,
            "artifact_tokens": cost.artifact_tokens,
        },
        "ask": ask_text(seated.key),
        "log": log,
    }
    return dumps(value) + "\n"


# -- proposing (§16.3) ------------------------------------------------------------------------


@frozen
class Candidate:
    """A routable agent other than the owner, with what it would cost on the panel."""

    name: str
    tokens: int  # its resident constitution; 0 when it has no blocks.txt
    bootable: bool  # has a blocks.txt
    root: str  # its base, as reached from the fleet root
    role: str | None
    ends: str | None


@frozen
class Proposal:
    artifact: str
    owner: str
    artifact_bytes: int | None  # None: not a readable file
    artifact_tokens: int | None
    ranked: tuple[tuple[Candidate, float], ...]  # by what the artifact's own words reach
    unranked: tuple[Candidate, ...]  # everyone else, in the fleet's order


def proposal_text(p: Proposal) -> str:
    lines = [
        "nothing was opened. This proposes a panel; --reviewer seats one.",
        "",
        f"artifact: {_p(p.artifact)}",
    ]
    if p.artifact_bytes is None:
        lines.append("          not a readable file, so it could not be scored or priced")
    else:
        lines += [
            f"          {p.artifact_bytes} bytes, about {p.artifact_tokens} tokens, paid once by "
            "every reviewer",
        ]
    lines.append(f"owner:    {_p(p.owner)}")
    if p.ranked:
        lines += ["", "  Ranked by what this artifact's own words reach:", ""]
        for c, score in p.ranked:
            lines.append(f"    {_p(c.name):<12} {c.tokens:>7} tokens   score {score:.2f}")
            lines += _candidate_notes(c)
    if p.unranked:
        lines += ["", "  Everyone else, unranked:", ""]
        for c in p.unranked:
            lines.append(f"    {_p(c.name):<12} {c.tokens:>7} tokens")
            lines += _candidate_notes(c)
    lines += [
        "",
        "The ranking finds the agents this piece talks like, which is not the same as the",
        "agents whose subject it claims. Read where each one stops, and seat the ones whose",
        "edges the piece crosses, at most three:",
        "",
        f"  kb panel {_p(p.artifact)} --owner {_p(p.owner)} --reviewer <agent> --reviewer <agent>",
    ]
    return "\n".join(lines) + "\n"


def _candidate_notes(c: Candidate) -> list[str]:
    out: list[str] = []
    if not c.bootable:
        out.append(f"      cannot be booted as itself: no blocks.txt in {_p(c.root)}")
    if c.role:
        out.append(f"      owns:     {_p(first_clause(c.role, ROLE_CAP))}")
    if c.ends:
        out.append(f"      stops at: {_p(first_clause(c.ends, ENDS_CAP))}")
    return out


def proposal_json(p: Proposal) -> str:
    def one(c: Candidate) -> dict[str, object]:
        return {"agent": c.name, "tokens": c.tokens, "bootable": c.bootable}

    value = {
        "artifact": p.artifact,
        "owner": p.owner,
        "opened": False,
        "artifact_bytes": p.artifact_bytes,
        "artifact_tokens": p.artifact_tokens,
        "ranked": [{**one(c), "score": round6(s)} for c, s in p.ranked],
        "unranked": [one(c) for c in p.unranked],
    }
    return dumps(value) + "\n"


# -- recording and resolving (§16.4) ----------------------------------------------------------


def recorded_text(r: Recorded, blocking_asked: bool) -> str:
    who, key = _p(r.reviewer), _p(r.key)
    if r.kind == "nothing":
        return (
            f"{who} found nothing on {key}, and that is on the record too: a reviewer who never "
            "objects is a reviewer who is not being read.\n"
        )
    if r.kind == "not-returned":
        return (
            f"{who} did not return on {key}. Recorded as `not returned`, never as `no objection`.\n"
        )
    lines = [f"objection {r.n} from {who} on {key}"]
    if r.demoted is not None:
        lines.append(f"  recorded as advisory, not blocking: {NOT_GROUNDED} {_p(r.demoted)}")
    elif blocking_asked:
        lines.append("  blocking: the owner may take it or escalate it, never refuse it.")
    lines.append(f"  account for it with --resolve {r.n}. The round does not close until you do.")
    return "\n".join(lines) + "\n"


def resolved_text(r: Resolved) -> str:
    return f"objection {r.n} from {_p(r.reviewer)}: {r.state}\n"


# -- the ledger read back ---------------------------------------------------------------------


def _cell(text: str) -> str:
    return _p(text).replace("|", "\\|")


def markdown(rnd: Round) -> str:
    out = ["| # | Reviewer | Objection | Taken or refused | Why |", "|---|---|---|---|---|"]
    for o in rnd.objections:
        r = o.row
        mark = " **(blocking)**" if r.blocking else ""
        out.append(
            f"| {o.n} | {_cell(r.reviewer)} | {_cell(r.text)}{mark} | {r.state} | {_cell(r.why)} |"
        )
    for s in rnd.seats:
        if s.state == "nothing":
            out.append(
                f"| - | {_cell(s.reviewer)} | found nothing from inside its own domain | - | - |"
            )
        elif s.state == "not-returned":
            out.append(f"| - | {_cell(s.reviewer)} | **not returned** | - | {_cell(s.why)} |")
        elif s.state == "asked":
            out.append(f"| - | {_cell(s.reviewer)} | **asked, still out** | - | - |")
    return "\n".join(out) + "\n"


def ledger_text(rnd: Round) -> str:
    lines = [f"{_p(rnd.artifact)}  owned by {_p(rnd.owner)}", "", markdown(rnd).rstrip("\n"), ""]
    if rnd.closed:
        lines += [
            "  Closed. Every objection is accounted for, and every reviewer answered or was",
            "  marked not returned. The table above travels with the piece: a piece that",
            "  arrives without its ledger has not been through the round.",
        ]
        return "\n".join(lines) + "\n"
    lines.append("  OPEN.")
    blocking = {o.n for o in rnd.blocking_open}
    for o in rnd.blocking_open:
        lines += [
            f"    objection {o.n} from {_p(o.row.reviewer)} is blocking and has not gone to the "
            "person yet.",
            "      It cannot be refused. --taken, or --escalated.",
        ]
    for o in rnd.unaccounted:
        if o.n not in blocking:
            lines.append(f"    objection {o.n} from {_p(o.row.reviewer)} is unaccounted for.")
    for s in rnd.silent:
        lines += [
            f"    {_p(s.reviewer)} was booted and has not answered.",
            "      --not-returned when the window closes, never --nothing.",
        ]
    return "\n".join(lines) + "\n"


def ledger_json(rnd: Round) -> str:
    value = {
        "artifact": rnd.artifact,
        "owner": rnd.owner,
        "closed": rnd.closed,
        "objections": [
            {
                "n": o.n,
                "reviewer": o.row.reviewer,
                "blocking": o.row.blocking,
                "state": o.row.state,
                "text": o.row.text,
                "why": o.row.why,
            }
            for o in rnd.objections
        ],
        "still_out": [s.reviewer for s in rnd.silent],
        "markdown": markdown(rnd),
    }
    return dumps(value) + "\n"


def _rounds(rows: Sequence[Row]) -> list[Round]:
    found = (round_of(rows, a) for a in artifacts(rows))
    return [r for r in found if r is not None]


def summary_text(log: str, rows: Sequence[Row]) -> str:
    """`kb panel --ledger` with no artifact: every round, in the order first opened."""
    rounds = _rounds(rows)
    lines = [f"log: {_p(log)}", ""]
    if not rounds:
        lines.append("  no round has been opened here.")
    for r in rounds:
        status = "closed" if r.closed else "OPEN  "
        lines.append(
            f"  {_p(r.artifact):<40} {status}  ({counted(len(r.objections), 'objection')}, "
            f"{len(r.silent)} still out)"
        )
    return "\n".join(lines) + "\n"


def summary_json(log: str, rows: Sequence[Row]) -> str:
    value = {
        "log": log,
        "rounds": [
            {
                "artifact": r.artifact,
                "owner": r.owner,
                "closed": r.closed,
                "objections": len(r.objections),
                "unaccounted": len(r.unaccounted),
                "still_out": [s.reviewer for s in r.silent],
            }
            for r in _rounds(rows)
        ],
    }
    return dumps(value) + "\n"
