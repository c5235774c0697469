"""The objection round (`kb panel`, workflow-verbs.md §16): its ledger, the rules every change
to the ledger obeys, the constitutional test a blocking objection must pass, and the price of
a round before it is spent.

Rules of this module:
- The ledger is rows, one per fact. A reviewer's seat is its row with `seq 0`; its
  objections are rows with `seq 1` and up. Rows keep the order they were written in, and an
  objection's number is its position among the round's objections plus one, so the number
  `kb panel` hands back is the number `--resolve` and `--ledger` use. New rows are only ever
  appended, so a number never changes once given.
- A round has one owner for its whole life, and at most three reviewers (MAX_REVIEWERS: the
  spec's README caps reviewer lists at three everywhere; past three each constitution costs
  as much and adds less). Reopening with the same owner seats the reviewers not yet seated
  and changes nothing for the others; a reviewer can never be the owner.
- A seat answers once. The legal moves are the tables SEAT_MOVES and OBJECTION_MOVES; every
  other move is refused with its own line, and a refusal changes nothing:
    asked      + objection     -> objection   (and the objection row is appended)
    objection  + objection     -> objection   (a reviewer may raise several)
    asked      + nothing       -> nothing
    asked      + not-returned  -> not-returned
  `nothing` and `not-returned` are never merged: a silent reviewer is not an endorsement.
- Objections: at most one blocking objection per reviewer (a reviewer who can block
  everything holds a veto). A blocking objection must state a mechanism (`validate`, §16.6);
  one that does not is recorded as advisory, with the reason, rather than refused: the
  reviewer's point is kept, it just cannot block. An objection is accounted for once:
    objection + taken      -> taken
    objection + refused    -> refused     (advisory only, and only with a reason)
    objection + escalated  -> escalated   (blocking only: it goes to the person)
  A blocking objection cannot be refused: that is the one judgement the owner does not hold.
- A round is closed when it exists, no objection is unaccounted, no blocking objection sits
  outside taken/escalated, and no seat is still `asked`. Nothing else closes it.
- Text fields are flattened (tab, CR, LF become spaces; trimmed) so an objection cannot forge
  a row; names are flattened and lower-cased. The artifact key drops one leading `./` and
  turns `\\` into `/`, so one file is one round however it is typed.
- Price: each reviewer's resident constitution (kb.pure.sessions.blocks tokens, the same figure
  `kb blocks` and `kb boot` print) plus the artifact read once by every reviewer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from attrs import evolve, frozen
from returns.result import Failure, Result, Success

State = Literal["asked", "nothing", "not-returned", "objection", "taken", "refused", "escalated"]
STATES: tuple[State, ...] = (
    "asked",
    "nothing",
    "not-returned",
    "objection",
    "taken",
    "refused",
    "escalated",
)
Outcome = Literal["taken", "refused", "escalated"]
OUTCOMES: tuple[Outcome, ...] = ("taken", "refused", "escalated")
AnswerKind = Literal["objection", "nothing", "not-returned"]

LEDGER_NAME = "kb-rounds.txt"
MAX_REVIEWERS = 3
MIN_OBJECTION_BYTES = 10

HEADER = """\
# Objection rounds: which reviewers were asked about which artifact, and what came back.
#
# One row per fact, tab-separated:
#   artifact  owner  reviewer  seq  state  opened  updated  blocking|-  text  why
# `seq 0` is the reviewer's own seat: its state says whether it has answered at all.
# `seq 1` and up are its objections, each with how the owner accounted for it, and why.
#
# States:
#   asked         booted and handed the piece; no answer yet. Never read as `nothing`
#   nothing       answered, and found nothing wrong from inside its own domain
#   not-returned  did not answer in time; the piece went on without it (why: what instead)
#   objection     raised and not yet accounted for; the round stays open
#   taken         the owner changed the piece
#   refused       the owner did not, and the reason is on the row (advisory objections only)
#   escalated     a blocking objection handed to the person; the owner may not refuse it
#
# Written by `kb panel`, which rewrites the whole file on every change. It is evidence,
# never action: nothing reads it to edit a piece, an agent or a base. Do not commit it:
# a round names work in progress and another agent's criticism of it.
"""


# -- rows and the file ------------------------------------------------------------------------


@frozen
class Row:
    artifact: str
    owner: str
    reviewer: str
    seq: int  # 0: the seat; 1 and up: the reviewer's objections, in the order raised
    state: State
    opened: str
    updated: str
    blocking: bool = False
    text: str = ""
    why: str = ""


def flatten(text: str) -> str:
    """One field on one line: a tab or a newline in it would forge a column or a row."""
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ").strip()


def name_of(agent: str) -> str:
    return flatten(agent).lower()


def key_of(artifact: str) -> str:
    """The artifact as typed, as one stable key: `./site\\a.html` and `site/a.html` are one
    round, or the ledger splits and each half looks complete."""
    key = artifact.strip().replace("\\", "/")
    return key[2:] if key.startswith("./") else key


def parse_ledger(text: str) -> tuple[Row, ...]:
    """Rows in stored order. Comments, blank lines, rows of fewer than 8 fields and rows with
    an unknown state are skipped; an unparsable seq reads as 0."""
    rows: list[Row] = []
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        if line.startswith("#") or not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) < 8 or parts[4] not in STATES:
            continue
        try:
            seq = int(parts[3].strip())
        except ValueError:
            seq = 0
        rows.append(
            Row(
                artifact=parts[0],
                owner=parts[1],
                reviewer=parts[2],
                seq=max(seq, 0),
                state=_state(parts[4]),
                opened=parts[5],
                updated=parts[6],
                blocking=parts[7].strip() == "blocking",
                text=parts[8] if len(parts) > 8 else "",
                why=parts[9] if len(parts) > 9 else "",
            )
        )
    return tuple(rows)


def _state(word: str) -> State:
    return next(s for s in STATES if s == word)


def render_ledger(rows: Iterable[Row]) -> str:
    lines = [
        "\t".join(
            (
                r.artifact,
                r.owner,
                r.reviewer,
                str(r.seq),
                r.state,
                r.opened,
                r.updated,
                "blocking" if r.blocking else "-",
                r.text,
                r.why,
            )
        )
        + "\n"
        for r in rows
    ]
    return HEADER + "".join(lines)


# -- reading a round back ---------------------------------------------------------------------


@frozen
class Numbered:
    n: int  # the round-wide objection number
    row: Row


@frozen
class Round:
    artifact: str
    owner: str
    seats: tuple[Row, ...]  # in the order seated
    objections: tuple[Numbered, ...]  # in the order raised

    @property
    def unaccounted(self) -> tuple[Numbered, ...]:
        return tuple(o for o in self.objections if o.row.state == "objection")

    @property
    def blocking_open(self) -> tuple[Numbered, ...]:
        """Blocking objections that have neither been taken nor gone to the person."""
        return tuple(
            o
            for o in self.objections
            if o.row.blocking and o.row.state not in ("taken", "escalated")
        )

    @property
    def silent(self) -> tuple[Row, ...]:
        """Seats booted and never answered: not the same fact as `nothing`."""
        return tuple(s for s in self.seats if s.state == "asked")

    @property
    def closed(self) -> bool:
        return bool(self.seats) and not (self.unaccounted or self.blocking_open or self.silent)


def round_of(rows: Sequence[Row], artifact: str) -> Round | None:
    """The round on `artifact` (any spelling of it), or None when nobody was seated on it."""
    key = key_of(artifact)
    seats = tuple(r for r in rows if r.artifact == key and r.seq == 0)
    if not seats:
        return None
    mine = (r for r in rows if r.artifact == key and r.seq > 0)
    objections = tuple(Numbered(i, r) for i, r in enumerate(mine, start=1))
    return Round(key, seats[0].owner, seats, objections)


def artifacts(rows: Iterable[Row]) -> tuple[str, ...]:
    """Every artifact with a row, in the order its round was first opened."""
    seen: dict[str, None] = {}
    for r in rows:
        seen.setdefault(r.artifact, None)
    return tuple(seen)


# -- the four forms ---------------------------------------------------------------------------

Form = Literal["ledger", "resolve", "record", "open"]

# The flags each form takes, as the usage block groups them. A flag of another form is
# refused rather than ignored: `--blocking` slipped onto a `--resolve` would otherwise look
# like it did something.
FORM_FLAGS: dict[Form, frozenset[str]] = {
    "open": frozenset({"--owner", "--reviewer", "--out", "--json"}),
    "record": frozenset(
        {"--from", "--objection", "--blocking", "--nothing", "--not-returned", "--why"}
    ),
    "resolve": frozenset({"--resolve", "--taken", "--refused", "--escalated", "--why", "--from"}),
    "ledger": frozenset({"--ledger", "--json"}),
}
_NAMED: dict[Form, str] = {
    "open": "--owner",
    "record": "--from",
    "resolve": "--resolve",
    "ledger": "--ledger",
}


def form_of(ledger: bool, resolve: bool, record: bool) -> Form:
    """The spec's dispatch order: --ledger, then --resolve, then --from, else open."""
    if ledger:
        return "ledger"
    if resolve:
        return "resolve"
    return "record" if record else "open"


def stray_flag(form: Form, given: Iterable[str]) -> str | None:
    """The refusal for the first given flag that belongs to another form, if any."""
    for flag in given:
        if flag in FORM_FLAGS[form]:
            continue
        homes = [_NAMED[f] for f in FORM_FLAGS if flag in FORM_FLAGS[f]]
        return (
            f"{flag} goes with {' or '.join(homes)}, not with {_NAMED[form]}: each form of "
            "kb panel takes its own flags (`kb --help` lists them)."
        )
    return None


# -- refusals ---------------------------------------------------------------------------------


@frozen
class Refusal:
    """A move the ledger does not take. The shell prints `kb: {message}` and exits 2."""

    message: str


def no_round(key: str) -> Refusal:
    return Refusal(
        f"no round is open on '{key}'. Open one with --owner and --reviewer before recording "
        "an answer against it."
    )


def no_objection(key: str, n: int, reviewer: str | None = None) -> Refusal:
    whose = f" from {reviewer}" if reviewer else ""
    return Refusal(f"'{key}' has no objection {n}{whose}. `kb panel {key} --ledger` numbers them.")


def too_many(names: Sequence[str]) -> Refusal:
    return Refusal(
        f"a panel seats at most {MAX_REVIEWERS} reviewers, and {len(names)} were named "
        f"({', '.join(names)}). Every reviewer costs a whole constitution and adds less than the "
        f"one before; keep the {MAX_REVIEWERS} whose domains the piece claims most."
    )


def owner_on_panel(owner: str) -> Refusal:
    return Refusal(
        f"{owner} owns this piece and cannot review it. An objection from the owner is a "
        "revision, not an objection, and putting it in the ledger would make the round look "
        "reviewed by somebody who was never outside it."
    )


NO_REVIEWERS = Refusal(
    "a round needs at least one reviewer. Run without --reviewer to see who the artifact's "
    "own words reach and what each one would cost."
)


# -- opening (seating) ------------------------------------------------------------------------


@frozen
class Seated:
    rows: tuple[Row, ...]
    key: str
    owner: str
    added: tuple[str, ...]  # reviewers given a new seat by this move
    already: tuple[str, ...]  # reviewers named again who already had one


def distinct_names(names: Iterable[str]) -> tuple[str, ...]:
    """Flattened, lower-cased, blanks dropped, each name once, in the order first named."""
    seen: dict[str, None] = {}
    for n in names:
        name = name_of(n)
        if name:
            seen.setdefault(name, None)
    return tuple(seen)


def seat(
    rows: Sequence[Row], artifact: str, owner: str, reviewers: Sequence[str], today: str
) -> Result[Seated, Refusal]:
    """Open the round on `artifact`, or seat more reviewers on it."""
    key = key_of(artifact)
    boss = name_of(owner)
    names = distinct_names(reviewers)
    if not names:
        return Failure(NO_REVIEWERS)
    if boss in names:
        return Failure(owner_on_panel(boss))
    if len(names) > MAX_REVIEWERS:
        return Failure(too_many(names))
    current = round_of(rows, key)
    seated = tuple(s.reviewer for s in current.seats) if current else ()
    if current is not None and current.owner != boss:
        return Failure(
            Refusal(
                f"'{key}' is already owned by {current.owner}, so {boss} cannot open a round on "
                "it. A round has one owner for its whole life; a piece with two owners is "
                "owned by neither. Ask the owner to seat the reviewers, or review another file."
            )
        )
    added = tuple(n for n in names if n not in seated)
    if len(seated) + len(added) > MAX_REVIEWERS:
        return Failure(
            Refusal(
                f"'{key}' already seats {', '.join(seated)}, and a panel seats at most "
                f"{MAX_REVIEWERS} reviewers, so {', '.join(added)} cannot join it. Every "
                "reviewer costs a whole constitution; keep the ones whose domains the piece "
                "claims most."
            )
        )
    new = tuple(Row(key, boss, n, 0, "asked", today, today) for n in added)
    already = tuple(n for n in names if n in seated)
    return Success(Seated(tuple(rows) + new, key, boss, added, already))


# -- recording an answer ----------------------------------------------------------------------


@frozen
class Objection:
    text: str
    blocking: bool = False


@frozen
class FoundNothing:
    pass


@frozen
class NotReturned:
    why: str = ""


Answer = Objection | FoundNothing | NotReturned


def kind_of(answer: Answer) -> AnswerKind:
    if isinstance(answer, Objection):
        return "objection"
    return "nothing" if isinstance(answer, FoundNothing) else "not-returned"


# (seat state before, what the reviewer answered) -> seat state after. Missing: refused.
SEAT_MOVES: dict[tuple[State, AnswerKind], State] = {
    ("asked", "objection"): "objection",
    ("objection", "objection"): "objection",
    ("asked", "nothing"): "nothing",
    ("asked", "not-returned"): "not-returned",
}


@frozen
class Recorded:
    rows: tuple[Row, ...]
    key: str
    reviewer: str
    kind: AnswerKind
    n: int | None = None  # the objection's round-wide number
    demoted: str | None = None  # why a blocking objection was recorded as advisory


def _seat_refusal(key: str, reviewer: str, state: State, kind: AnswerKind) -> Refusal:
    said = {
        "nothing": "found nothing",
        "not-returned": "is recorded as not returned",
        "objection": "has raised objections",
    }
    asked = {
        "nothing": "that it found nothing",
        "not-returned": "that it did not return",
        "objection": "an objection",
    }
    return Refusal(
        f"{reviewer} {said.get(state, 'answered')} on '{key}', so it cannot also record "
        f"{asked[kind]}. A seat answers once, so that the ledger never says two things about "
        f"one reviewer; `kb panel {key} --ledger` shows what it holds."
    )


def record(
    rows: Sequence[Row], artifact: str, reviewer: str, answer: Answer, today: str
) -> Result[Recorded, Refusal]:
    key = key_of(artifact)
    who = name_of(reviewer)
    current = round_of(rows, key)
    if current is None:
        return Failure(no_round(key))
    seat_at = next(
        (i for i, r in enumerate(rows) if r.artifact == key and r.reviewer == who and r.seq == 0),
        None,
    )
    if seat_at is None:
        return Failure(
            Refusal(
                f"{who} is not on the panel for '{key}'. An answer from an agent nobody asked is "
                "not a review; add it to the panel first, which costs its constitution and says so."
            )
        )
    seat_row = rows[seat_at]
    kind = kind_of(answer)
    after = SEAT_MOVES.get((seat_row.state, kind))
    if after is None:
        return Failure(_seat_refusal(key, who, seat_row.state, kind))
    updated = list(rows)
    if not isinstance(answer, Objection):
        why = flatten(answer.why) if isinstance(answer, NotReturned) else ""
        updated[seat_at] = evolve(seat_row, state=after, updated=today, why=why)
        return Success(Recorded(tuple(updated), key, who, kind))
    text = flatten(answer.text)
    if not text:
        return Failure(
            Refusal("an objection needs its text: the single strongest thing wrong with the piece.")
        )
    mine = [r for r in rows if r.artifact == key and r.reviewer == who and r.seq > 0]
    blocking = answer.blocking
    demoted = None
    if blocking:
        prior = next((r for r in mine if r.blocking), None)
        if prior is not None:
            n = next(o.n for o in current.objections if o.row == prior)
            return Failure(
                Refusal(
                    f"{who} already marked objection {n} blocking, and blocking is bounded to one "
                    "per reviewer: a reviewer who can block everything holds a veto, which is not "
                    "what the owner agreed to. Raise this one without --blocking, or say which of "
                    "the two cannot be refused."
                )
            )
        problem = validate(text)
        if problem is not None:
            blocking = False
            demoted = problem
    seq = max((r.seq for r in mine), default=0) + 1
    updated[seat_at] = evolve(seat_row, state=after, updated=today)
    updated.append(Row(key, current.owner, who, seq, "objection", today, today, blocking, text))
    n = len(current.objections) + 1  # appended last, so it is the round's newest number
    return Success(Recorded(tuple(updated), key, who, kind, n, demoted))


# -- constitutional validation (blocking objections only) ------------------------------------

SUBJECTIVE = (
    "i don't like the tone",
    "i don't like this approach",
    "feels wrong",
    "feels weird",
    "looks ugly",
    "feels a bit wordy",
    "needs more flair",
    "not a fan",
)
# A blocking objection names what breaks: an invariant, a failure mode, a limit, a rule.
# Plain substring tests, as the original's rubric (so `rule` also matches `rules`).
MECHANISMS = (
    "invariant",
    "violates",
    "violation",
    "mechanism",
    "failure mode",
    "use-after-free",
    "memory",
    "leak",
    "race condition",
    "concurrency",
    "deadlock",
    "overflow",
    "underflow",
    "rule",
    "adr-",
    "w03",
    "citation",
    "unbounded",
    "backpressure",
    "correctness",
    "security",
    "contract",
    "broken",
    "regression",
    "crash",
    "panic",
    "false",
    "incorrect",
    "error",
    "untrue",
    "claim",
    "latency",
)
NOT_GROUNDED = (
    "a blocking objection must be constitutionally grounded in a mechanism, invariant, or "
    "failure mode."
)


def validate(text: str) -> str | None:
    """None when `text` may block; else why it cannot (it stays on the record as advisory)."""
    trimmed = text.strip()
    if len(trimmed.encode("utf-8")) < MIN_OBJECTION_BYTES:
        return "objection is too brief to state a concrete mechanism or invariant"
    lower = trimmed.lower()
    if any(s in lower for s in SUBJECTIVE) and "because" not in lower and "violates" not in lower:
        return (
            f"objection '{trimmed}' is purely subjective; constitutional critique requires "
            "stating a concrete mechanism, failure mode, or invariant"
        )
    if any(m in lower for m in MECHANISMS):
        return None
    return f"objection '{trimmed}' is advisory; blocking objections must be constitutional"


# -- resolving an objection -------------------------------------------------------------------

# (objection state before, outcome, blocking) -> state after. Missing: refused.
OBJECTION_MOVES: dict[tuple[State, Outcome, bool], State] = {
    ("objection", "taken", False): "taken",
    ("objection", "taken", True): "taken",
    ("objection", "refused", False): "refused",
    ("objection", "escalated", True): "escalated",
}


@frozen
class Resolved:
    rows: tuple[Row, ...]
    key: str
    n: int
    reviewer: str
    state: State


def refusal_needs_why() -> Refusal:
    return Refusal(
        "a refusal needs --why.\n"
        "    Refusing is the owner's right and its price: the reason is written down, so that\n"
        "    it can be read again once the piece has met its readers."
    )


def resolve(
    rows: Sequence[Row],
    artifact: str,
    n: int,
    outcome: Outcome,
    why: str,
    reviewer: str | None,
    today: str,
) -> Result[Resolved, Refusal]:
    key = key_of(artifact)
    current = round_of(rows, key)
    if current is None:
        return Failure(no_round(key))
    who = name_of(reviewer) if reviewer is not None else None
    target = next((o for o in current.objections if o.n == n), None)
    if target is None or (who is not None and target.row.reviewer != who):
        return Failure(no_objection(key, n, who))
    row = target.row
    if row.state != "objection":
        return Failure(
            Refusal(
                f"objection {n} is already {row.state}. The ledger is append-once per objection "
                "so that a refusal cannot be quietly rewritten into a taken after the piece "
                "underperformed."
            )
        )
    after = OBJECTION_MOVES.get((row.state, outcome, row.blocking))
    if after is None and outcome == "refused":
        return Failure(
            Refusal(
                f"objection {n} was marked blocking, and a blocking objection cannot be refused "
                "by the owner: blocking is bounded to one per reviewer so that it stays "
                "expensive, and in exchange it leaves the owner's judgement. Take it, or "
                "escalate it to the person with --escalated."
            )
        )
    if after is None:
        return Failure(
            Refusal(
                f"objection {n} is advisory, so it is the owner's to account for: --taken, or "
                "--refused with --why. --escalated is for a blocking objection, the one the "
                "owner may not refuse."
            )
        )
    text = flatten(why)
    if after == "refused" and not text:
        return Failure(refusal_needs_why())
    at = rows.index(row)
    updated = list(rows)
    updated[at] = evolve(row, state=after, why=text, updated=today)
    return Success(Resolved(tuple(updated), key, n, row.reviewer, after))


# -- the price of a round ---------------------------------------------------------------------


@frozen
class Booted:
    """One reviewer, assembled: where its constitution was written and what it costs."""

    agent: str
    constitution: str
    tokens: int


@frozen
class Cost:
    boot: int  # every reviewer's resident constitution
    reading: int  # the artifact, once per reviewer
    reviewers: int
    artifact_tokens: int | None  # None: the artifact is not a readable file

    @property
    def total(self) -> int:
        return self.boot + self.reading


def price(booted: Sequence[Booted], artifact_tokens: int | None) -> Cost:
    """What a round costs before a word of the review is written. The artifact counts once
    per reviewer because every one of them reads it; a static estimate of constitutions
    alone was measured about 6.7 times under a real panel's bill."""
    per_reader = artifact_tokens or 0
    return Cost(
        boot=sum(b.tokens for b in booted),
        reading=per_reader * len(booted),
        reviewers=len(booted),
        artifact_tokens=artifact_tokens,
    )
