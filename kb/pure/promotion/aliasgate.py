"""`kb misses --apply`: the promoter's alias candidates, and the gate that admits or refuses.

Rules of this module (retrieval-core.md §14.5, Appendix A):
- The promoter is asked about one logged question at a time and replies with up to three
  lines `base<TAB>alias<TAB>canonical`, or `NONE`. A line with exactly three tab fields is a
  candidate (fields trimmed); any other non-blank line is ignored. Only the first three
  candidates count. A reply with no candidate is `declined` when a line reads `NONE`
  (any case), else `unparseable`; a call that did not answer is `silent` (the shell's).
- Before anything is measured a candidate is refused, in this order, for: an empty side;
  both sides the same words ignoring case; no logged question behind it (the alias would
  not fire on the question it was proposed for, so efficacy cannot be tested); an equals
  sign inside a side. Beyond these the shell refuses a base the fleet does not have and an
  alias already present in that base's file (left side compared ignoring case).
- A measurement is the question's verdict (`nothing` or not) and three of `kb eval`'s
  deterministic columns over the gold set: file hits, keyword-agent hits, and questions
  answered that the set says to decline.
- Admitted iff the question was `nothing` before, is not `nothing` after, neither hit
  column dropped, and answered-when-should-decline did not rise. Otherwise the first
  failing condition in that order names the refusal.
- `kb-alias-rejections.txt`: a `#` header, then tab-separated `count, first, last, line,
  why`; a row's identity is its line, compared exactly; a repeat adds one to the count,
  keeps the first date, sets the last and takes the new reason; rows sorted by count,
  highest first, stable. Both fields are cut to the characters the router reads (the
  caller scrubbed them of secrets: a reason quotes the question), and past 2,000 rows or
  1 MiB the least refused, oldest rows are dropped, never the one just folded
  (kb.pure.logs.logbounds, issue 24).
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import evolve, frozen

from kb.pure.logs.logbounds import cut, keep_recorded
from kb.pure.notes.tokens import normalise, question_terms
from kb.pure.sessions.session import flatten

MAX_CANDIDATES = 3
REJECTIONS_NAME = "kb-alias-rejections.txt"
ALIASES_NAME = "kb-aliases.txt"


@frozen
class Candidate:
    base: str
    alias: str
    canonical: str

    @property
    def line(self) -> str:
        return f"{self.alias} = {self.canonical}"


@frozen
class Reply:
    """What one promoter reply held: its candidates, or why it held none."""

    candidates: tuple[Candidate, ...]
    declined: bool  # said NONE and proposed nothing
    unparseable: bool  # said something, but neither a candidate nor NONE


@frozen
class Columns:
    file_hits: int
    agent_hits: int
    answered_when_should_decline: int

    def render(self) -> str:
        return (
            f"file {self.file_hits} agent {self.agent_hits} "
            f"answered-when-should-decline {self.answered_when_should_decline}"
        )


@frozen
class Measurement:
    missed: bool  # the logged question's verdict was `nothing`
    columns: Columns


@frozen
class Judgement:
    admitted: bool
    reason: str


def parse_reply(text: str) -> Reply:
    candidates: list[Candidate] = []
    said_none = False
    for raw in text.split("\n"):
        line = raw.strip(" \r")
        if not line.strip():
            continue
        if line.strip().upper() == "NONE":
            said_none = True
            continue
        fields = line.split("\t")
        if len(fields) == 3 and len(candidates) < MAX_CANDIDATES:
            base, alias, canonical = (f.strip() for f in fields)
            candidates.append(Candidate(base, alias, canonical))
    declined = not candidates and said_none
    return Reply(tuple(candidates), declined, not candidates and not said_none)


def alias_fires(question: str, alias: str) -> bool:
    """Whether the alias would expand this question (kb.pure.answering.aliases' matching rule)."""
    words = question_terms(question)
    alias_words = normalise(alias)
    if not alias_words:
        return False
    if len(alias_words) > 1:
        return " ".join(alias_words) in " ".join(words)
    return alias_words[0] in words


def refused_before(line: str, problem: str) -> str:
    return f"`{line}` is refused before measuring: {problem}"


def premeasure(candidate: Candidate, question: str) -> str | None:
    """The pre-measurement refusal reason, or None when the candidate is worth measuring."""
    alias, canonical = candidate.alias, candidate.canonical
    problem: str | None = None
    if not alias or not canonical:
        problem = "an empty side"
    elif alias.casefold() == canonical.casefold():
        problem = "both sides are the same word, so it expands to itself"
    elif not question.strip() or not alias_fires(question, alias):
        problem = "no logged question behind it, so efficacy cannot be tested"
    elif "=" in alias or "=" in canonical:
        problem = "an equals sign inside a side, which the parser splits on"
    return None if problem is None else refused_before(candidate.line, problem)


def aliases_in(text: str) -> frozenset[str]:
    """Left sides already in a kb-aliases.txt, folded (§2.5 line rules)."""
    out: set[str] = set()
    for raw in text.split("\n"):
        line = raw.split("#", 1)[0].strip()
        if "=" not in line:
            continue
        left, right = (side.strip() for side in line.split("=", 1))
        if left and right:
            out.add(left.casefold())
    return frozenset(out)


def judge(question: str, before: Measurement, after: Measurement) -> Judgement:
    """Admitted iff the line fixes its question and costs nothing on the gold set."""
    if not before.missed:
        return Judgement(
            False,
            f"refused: `{question}` does not miss today, so there is nothing for this line to fix",
        )
    if after.missed:
        return Judgement(False, f"refused: `{question}` still finds nothing with the line applied")
    b, a = before.columns, after.columns
    if (
        a.file_hits < b.file_hits
        or a.agent_hits < b.agent_hits
        or a.answered_when_should_decline > b.answered_when_should_decline
    ):
        return Judgement(
            False,
            "refused: it fixes its own question and costs elsewhere. "
            f"before {b.render()} / after {a.render()}",
        )
    return Judgement(
        True, "admitted: the question it was proposed for stops missing, and no column dropped"
    )


def admitted_block(
    candidate: Candidate, question: str, today: str, before: Columns, after: Columns
) -> str:
    """The text appended to kb-aliases.txt for one admitted line (a blank line first)."""
    return (
        "\n"
        f"# admitted {today} by `kb misses --apply`. Proposed for: {flatten(question)}\n"
        f"#   before: {before.render()}\n"
        f"#   after:  {after.render()}\n"
        f"{candidate.line}\n"
    )


def appended(existing: str, blocks: Sequence[str]) -> str:
    """The file's new text: the old text (ending in a newline if it had any) and the blocks."""
    if existing and not existing.endswith("\n"):
        existing += "\n"
    return existing + "".join(blocks)


# -- the rejection log ----------------------------------------------------------------------

REJECTIONS_HEADER = (
    "# kb-alias-rejections.txt: alias lines `kb misses --apply` refused, most refused first.\n"
    "# One line per distinct alias line, tab separated: count, first seen, last seen, the\n"
    "# line, and the reason given the last time.\n"
    "# A line refused again and again means the promoter keeps reaching for a word the gold\n"
    "# set will not let in: fix the note's Search for line by hand instead, and delete the row.\n"
)


@frozen
class Rejection:
    count: int
    first_seen: str
    last_seen: str
    line: str
    why: str


def parse_rejections(text: str) -> tuple[Rejection, ...]:
    rows: list[Rejection] = []
    for raw in text.split("\n"):
        line = raw.strip(" \r")
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 5:
            continue
        try:
            count = int(fields[0].strip())
        except ValueError:
            count = 1
        rows.append(Rejection(count, fields[1], fields[2], fields[3], "\t".join(fields[4:])))
    return tuple(rows)


def fold_rejection(
    rows: Sequence[Rejection], line: str, why: str, today: str
) -> tuple[Rejection, ...]:
    line, why = cut(flatten(line)).strip(), cut(flatten(why)).strip()
    out = list(rows)
    for i, row in enumerate(out):
        if row.line == line:
            out[i] = evolve(row, count=row.count + 1, last_seen=today, why=why)
            break
    else:
        out.append(Rejection(1, today, today, line, why))
    ranked = sorted(out, key=lambda r: -r.count)
    return tuple(
        keep_recorded(
            ranked,
            lambda r: r.line == line,
            _rejection_line,
            lambda r: r.count,
            lambda r: (r.last_seen, r.first_seen),
            REJECTIONS_HEADER,
        )
    )


def _rejection_line(r: Rejection) -> str:
    fields = (str(r.count), r.first_seen, r.last_seen, flatten(r.line), flatten(r.why))
    return "\t".join(fields) + "\n"


def render_rejections(rows: Sequence[Rejection]) -> str:
    return REJECTIONS_HEADER + "".join(_rejection_line(r) for r in rows)


# -- the prompt -----------------------------------------------------------------------------


@frozen
class BaseVocabulary:
    """One base as the promoter sees it: its name and the keys its notes answer to."""

    name: str
    keys: tuple[str, ...]


KEYS_SHOWN = 60


def prompt(question: str, looked_like: Sequence[str], bases: Sequence[BaseVocabulary]) -> str:
    """The promoter's prompt for one logged question (our wording, pinned by a golden)."""
    lines = [
        "You propose alias lines for a plain-text memory. An alias line makes a word people",
        "type also search for the word the notes use. The question below found nothing.",
        "",
        f"THE QUESTION: {flatten(question)}",
    ]
    if looked_like:
        lines.append("WHAT THE BASE OFFERED BACK: " + ", ".join(flatten(w) for w in looked_like))
    lines += ["", "THE BASES, each with the keys its notes answer to:"]
    for b in bases:
        keys = sorted(set(b.keys))
        shown = ", ".join(keys[:KEYS_SHOWN])
        more = f", and {len(keys) - KEYS_SHOWN} more" if len(keys) > KEYS_SHOWN else ""
        lines.append(f"- {b.name}: {shown or '(no keys)'}{more}")
    lines += [
        "",
        "RULES",
        "Reply with at most three lines, each `base<TAB>alias<TAB>canonical`: the base the",
        "line belongs to, a word or phrase taken from the question, and the words the notes",
        "use for it. Nothing else on the line, no `=` anywhere.",
        "If no alias would help, because the memory does not cover the question, reply NONE.",
        "Every line is measured against a gold set before it is written; a line that costs",
        "another question its answer is refused.",
        "",
    ]
    return "\n".join(lines)
