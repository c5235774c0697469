"""What `kb boot` prints: the briefing a model reads before the user's message.

Rules of this module:
- Every paragraph Vesta speaks starts `VESTA:`; the exact shapes (the coverage notes, the
  roster, `still {agent}`, the evidence headers, the panel command) are contracts a model and
  `kb capture` rely on; the explanatory sentences are ours.
- A verdict comes from the classifier when it answered. Without one, a retrieval `hit` with
  an elected agent stands in for it (covered, no reviewers), and its reason says whether no
  classifier is configured or the configured one did not answer; the latter marks the
  briefing degraded. Any other case has no verdict.
- A compound message whose sub-questions are each a `hit` for two or more distinct agents
  seats the first as owner when nobody was chosen, and every other one (not the owner, not
  already seated) on the panel, up to three reviewers in all: the cap every panel keeps
  (`kb panel` refuses a fourth), so the command boot prints can always be run.
- A briefing that routes the question shows the list the verdict judged: the retrieval
  verdict line, as `kb route` prints it, then the fused list whole, in `kb route --json`'s
  order (decision 0029). On a `hit` the vouched file is the first of that list. Only under
  `nothing` does a briefing say the library does not appear to cover the message, and then
  it lists no file.
- The hit briefing hands over the vouched file's passages, up to 6,000 UTF-8 bytes of
  trimmed passage text, stopping at the first passage that would not fit (a later, shorter
  one is never tried, so what is shown is the file's own order). Measured upstream: the path
  list it replaces is about 600 bytes and a map is 24-37 KB.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from kb.pure.answering.election import ascii_lower
from kb.pure.notes.plural import counted
from kb.pure.render.terminal import verdict_line
from kb.pure.roles.classify import Judgement, Reviewer, RosterAgent

NO_CLASSIFIER = "chosen by keyword score, with no classifier configured"
CLASSIFIER_SILENT = "chosen by keyword score, because the configured classifier did not answer"
CLASSIFIER_UNAPPROVED = (
    "chosen by keyword score, because the classifier fleet.txt names awaits approval on this "
    "machine"
)
HIT_BUDGET = 6000
SHORT_MEMORY = " [SHORT MEMORY: recent, not distilled]"
ROLE_CAP = 96
MAX_REVIEWERS = 3  # the same cap as the classifier's list and `kb panel --reviewer`
ENDS_CAP = 150
SHORTFALL_SHOWN = 2


# -- the roster -----------------------------------------------------------------------------


def first_clause(text: str, cap: int) -> str:
    """The first sentence when it ends before `cap` bytes; else the text, cut at a word at
    or before `cap` bytes with `...` (a text with no space to cut at stays whole)."""
    data = text.strip().encode("utf-8")
    stop = data.find(b". ")
    if stop != -1 and stop < cap:
        return data[:stop].decode("utf-8")
    if len(data) <= cap:
        return data.decode("utf-8")
    # ASCII whitespace only, so the cut is always on a character boundary.
    cut = max((data.rfind(ws, 0, cap + 1) for ws in (b" ", b"\t", b"\n", b"\r")), default=-1)
    if cut <= 0:
        return data.decode("utf-8")
    return data[:cut].decode("utf-8").rstrip() + "..."


def roster(agents: Sequence[RosterAgent]) -> str:
    lines = ["The fleet:"]
    for a in agents:
        lines.append(f"  {a.name}: {first_clause(a.role, ROLE_CAP)}" if a.role else f"  {a.name}")
        if a.ends:
            lines.append(f"      stops at: {first_clause(a.ends, ENDS_CAP)}")
    return "\n".join(lines) + "\n"


# -- the verdict ----------------------------------------------------------------------------


def fallback(
    retrieval_verdict: str, elected: str | None, configured: bool, unapproved: bool = False
) -> Judgement | None:
    """The verdict when no classifier answered (or it was not run: it awaits approval, kb
    trust): the keyword election, only on a hit."""
    if retrieval_verdict != "hit" or elected is None:
        return None
    reason = CLASSIFIER_SILENT if configured else NO_CLASSIFIER
    if configured and unapproved:
        reason = CLASSIFIER_UNAPPROVED
    return Judgement(subject="", reason=reason, coverage="covered", owner=elected)


def is_degraded(j: Judgement) -> bool:
    return j.reason in (CLASSIFIER_SILENT, CLASSIFIER_UNAPPROVED)


def is_unapproved(j: Judgement) -> bool:
    return j.reason == CLASSIFIER_UNAPPROVED


def coverage_refusal(j: Judgement, roster_text: str) -> str:
    subject = j.subject or "this subject"
    if j.coverage == "adjacent":
        note = (
            f"VESTA: no agent owns {subject}. {j.owner or 'no one'} is the nearest, because "
            f"{j.reason} Answering from there is a stretch, and the honest options are to give "
            "that agent the knowledge or to create an agent for this."
        )
    else:
        note = (
            f"VESTA: nothing in this fleet covers {subject}, and no agent is near enough to "
            f"name. {j.reason} This is a gap in the fleet rather than a gap in the question: it "
            "is worth deciding whether an agent should exist for it."
        )
    nearest = (
        f"\n\nIf you answer anyway, answer as {j.owner} and say plainly that this is outside "
        "the fleet's covered ground.\n"
        if j.owner
        else ""
    )
    return f"{note}{nearest}\n{roster_text}"


# -- compound messages ----------------------------------------------------------------------


@frozen
class Seating:
    chosen: str | None
    panel: tuple[Reviewer, ...]
    note: str | None  # the decomposition note, when the message spanned several domains


def seat_compound(
    chosen: str | None, panel: Sequence[Reviewer], sub_hits: Sequence[tuple[str, str]]
) -> Seating:
    """`sub_hits`: (agent, sub-question) for every sub-question that was a hit, in order."""
    per_agent: dict[str, tuple[str, str]] = {}
    for agent, sub in sub_hits:
        per_agent.setdefault(ascii_lower(agent), (agent, sub))
    if len(per_agent) < 2:
        return Seating(chosen, tuple(panel), None)
    pairs = list(per_agent.values())
    owner = chosen or pairs[0][0]
    seated = list(panel)
    for agent, sub in pairs:
        taken = {ascii_lower(owner)} | {ascii_lower(r.name) for r in seated}
        if ascii_lower(agent) not in taken:
            seated.append(Reviewer(agent, f"cross-domain sub-question: {sub}"))
    note = "\n".join(
        [f"VESTA: decomposed compound inquiry across {len(pairs)} domains:"]
        + [f'  - [{agent}]: "{sub}"' for agent, sub in pairs]
    )
    return Seating(owner, tuple(seated[:MAX_REVIEWERS]), note)


def panel_instruction(owner: str, panel: Sequence[Reviewer], boot_cost: int) -> str:
    listed = "\n".join(f"  {r.name}: {r.why}" if r.why else f"  {r.name}" for r in panel)
    reviewers = " ".join(f"--reviewer {r.name}" for r in panel)
    return (
        "VESTA: this one is not yours alone. You own the answer and are accountable for it; "
        "the agents below are to object to it from inside their own domains:\n"
        f"{listed}\n"
        "Write your draft first, then put it to them. Never poll the panel for direction "
        "before there is a draft. Open the round with:\n"
        f"  kb panel <the file you wrote> --owner {owner} {reviewers}\n"
        f"The price is about {boot_cost} tokens of constitutions, plus the piece read once by "
        "each reviewer; real panels measured about six times higher than that estimate. An "
        "objection you refuse is refused in writing, and a blocking objection is not yours "
        "to refuse.\n\n"
    )


# -- below the gate -------------------------------------------------------------------------


def verdict_paragraph(verdict: str, coverage: float) -> str:
    """The retrieval verdict, in the line `kb route` and kb_route print first."""
    return verdict_line(verdict, coverage) + "\n\n"


def _listed(files: Sequence[str]) -> str:
    return "".join(f"  {f}\n" for f in files)


def librarian(files: Sequence[str], verdict: str, coverage: float) -> str:
    return (
        "VESTA: no agent owns this, and none is needed: the library holds it in a base every "
        "agent reads.\n\n"
        + verdict_paragraph(verdict, coverage)
        + "Answer as the librarian from these files, best first, and say plainly if they do "
        "not cover the question:\n" + _listed(files)
    )


def _why(shortfall: Sequence[str]) -> str:
    why = " ".join(shortfall[:SHORTFALL_SHOWN])
    return f"{why}\n\n" if why else ""


def no_owner(shortfall: Sequence[str], roster_text: str, verdict: str, coverage: float) -> str:
    """Under `nothing`: no owner and no file to read."""
    return (
        "VESTA: routed this message and found no owner.\n\n"
        + verdict_paragraph(verdict, coverage)
        + "Do not assume an agent. Ask the person which agent should take this, or answer as "
        "the librarian and say plainly that the library does not appear to cover it.\n\n"
        + _why(shortfall)
        + roster_text
    )


def unowned(
    files: Sequence[str],
    verdict: str,
    coverage: float,
    shortfall: Sequence[str],
    roster_text: str,
) -> str:
    """A `hit` or a `guess` that no agent was chosen for: the files are shown, not denied.
    A `hit` fell short of nothing, so only a guess says why (the shortfall)."""
    if verdict == "hit":
        files_are = "these files; the first of them covers the message, and the rest are leads"
    else:
        files_are = (
            "these files, which the router ranked but does not vouch for, and say plainly "
            "where they fall short of the message"
        )
    return (
        "VESTA: routed this message and found no owner.\n\n"
        + verdict_paragraph(verdict, coverage)
        + "Do not assume an agent. Ask the person which agent should take this, or answer as "
        f"the librarian from {files_are}:\n"
        + _listed(files)
        + "\n"
        + (_why(shortfall) if verdict != "hit" else "")
        + roster_text
    )


# -- the routed briefing --------------------------------------------------------------------


def switched(agent: str) -> str:
    return (
        f"VESTA: this message routes to {agent}. You are {agent} while that holds. The "
        "fleet's router decided this before you saw the message; no file decided it. If it "
        "is wrong, say so rather than answer as somebody else, and record it with "
        f'`kb misroute "<the message>" --chose {agent} --owner <the right agent, or none>`. '
        "That log is evidence for whoever tunes the router; it edits nothing.\n\n"
    )


def still(agent: str) -> str:
    return f"VESTA: still {agent}.\n\n"


def previously(agent: str) -> str:
    return f"(the conversation was with {agent} until this message)\n\n"


DEGRADED = (
    "VESTA: the configured classifier did not answer, so this was routed by keyword score "
    "alone. Routing is degraded, not stopped: if the choice looks wrong for this message, "
    "say so.\n\n"
)
UNAPPROVED = (
    "VESTA: the classifier fleet.txt names came with a pull and has not been approved on this "
    "machine, so it was not run and this was routed by keyword score alone. Approving it is "
    "for the person who runs this machine, after reading it (kb trust), never for an agent. "
    "Routing is degraded, not stopped: if the choice looks wrong for this message, say so."
    "\n\n"
)


@frozen
class Shown:
    """One passage of the vouched file, as the hit briefing shows it."""

    heading_path: str
    text: str


def hit_briefing(
    vouched: str,
    passages: Sequence[Shown],
    front_of_file: bool,
    short_memory: bool,
    origin: str | None,
    leads: Sequence[str],
    budget: int = HIT_BUDGET,
) -> str | None:
    """The vouched file's passages already read for the model; None when none fits."""
    blocks: list[str] = []
    spent = 0
    layer = SHORT_MEMORY if short_memory else ""
    came_from = f" [captured from {origin}]" if origin else ""
    for p in passages:
        text = p.text.strip()
        size = len(text.encode("utf-8"))
        if spent + size > budget:
            break
        spent += size
        blocks.append(f"\n--- {vouched} ({p.heading_path or 'top'}){layer}{came_from}\n{text}\n")
    if not blocks:
        return None
    if front_of_file:
        intro = (
            f"VESTA: the router vouches for {vouched}, but no passage of it matched the words "
            "of this message, so below is the front of the file, not the part that answers. "
            "The files listed after it are leads the router did not vouch for.\n"
        )
    else:
        intro = (
            f"VESTA: the answer is probably already here. The router vouches for {vouched}, "
            "and below are the passages of it that matched this message. The files listed "
            "after it are leads the router did not vouch for.\n"
        )
    out = intro + "".join(blocks)
    cut = len(passages) - len(blocks)
    if cut:
        out += (
            f"\n({counted(cut, 'more passage')} in that file did not fit the boot budget. "
            "Open it if what is above stops short.)\n"
        )
    if leads:
        out += "\nRanked leads, unvouched:\n" + "".join(f"  {f}\n" for f in leads)
    return out


def reading_list(files: Sequence[str]) -> str:
    if not files:
        return "No file ranked for this message.\n"
    return "Open these before answering:\n" + "\n".join(f"  {f}" for f in files) + "\n"


# The routed evidence under `nothing`: the files the scorers ranked were refused.
REFUSED_EVIDENCE = (
    "No file covers enough of this message to open before answering: say plainly that the "
    "library does not appear to cover it.\n"
)


@frozen
class Routed:
    """Everything a routed briefing says, decided before it is worded."""

    agent: str
    switched: bool
    previous: str | None
    constitution: str | None  # the agent's resident blocks, when it has a blocks.txt
    degraded: bool
    continuity: str | None
    decomposition: str | None
    panel: str | None
    evidence: str
    unapproved: bool = False  # degraded because the classifier awaits approval (kb trust)


def routed_text(r: Routed) -> str:
    out: list[str] = []
    if r.switched:
        out.append(switched(r.agent))
        if r.constitution is not None:
            out.append(r.constitution + "\n\n")
        if r.previous is not None:
            out.append(previously(r.previous))
    else:
        out.append(still(r.agent))
    if r.degraded:
        out.append(UNAPPROVED if r.unapproved else DEGRADED)
    if r.continuity:
        out.append(r.continuity.rstrip("\n") + "\n\n")
    if r.decomposition:
        out.append(r.decomposition + "\n\n")
    if r.panel:
        out.append(r.panel)
    out.append(r.evidence)
    return "".join(out)
