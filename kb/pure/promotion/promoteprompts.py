"""What `kb promote` sends its two model commands (workflow-verbs.md §10.3, §10.4), and the
router's evidence the reviewer reads.

Rules of this module:
- The promoter sees the deposit file, the agent's name and where the agent says it stops.
  It never sees the base: a proposer that can read the base proposes what the base already
  says.
- The reviewer sees one proposal, the agent's own description of itself, and what the
  catalogue answers for the proposal's keys. It is never told who wrote the proposal or
  why, and is asked ONE question per call (one lens), so three calls are three readings.
- The evidence comes from the deterministic router, never from a model, which is the only
  reason the word independent applies to the review.
- The structure is a contract the parsers depend on (`PROPOSAL` ... `END` blocks, the two
  `VERDICT:` / `REASON:` lines); the prose around it is ours.
- Lines in the rules are numbered rather than bulleted, so that no instruction can be read
  back as a line of the deposit by a model that lists a deposit's bullets.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from kb.pure.answering.fusion import Found
from kb.pure.answering.keyword import KeywordHit
from kb.pure.answering.verdict import confidence_of
from kb.pure.notes.paths import layer_of
from kb.pure.promotion.promote import TARGET_FOLDERS, Proposal
from kb.pure.promotion.rejections import Row
from kb.pure.sessions.handoff import cut_bytes

HOLDS_BYTES = 400


# -- the promoter -----------------------------------------------------------------------------

FORMAT = (
    "PROPOSAL\n"
    "slug: short-kebab-case-name\n"
    "folder: knowledge\n"
    "summary: one line, no trailing period\n"
    "keys: term, term, term\n"
    "{extra}"
    "body:\n"
    "the markdown body of the note\n"
    "END\n"
)


def _rules(extra: Sequence[str] = ()) -> str:
    folders = " or ".join(TARGET_FOLDERS)
    rules = [
        "Propose nothing rather than something. An empty answer costs nothing; a weak note "
        "costs every future reader.",
        "One note answers one question. Two questions are two proposals.",
        "No note that only records that a conversation happened. A note states what is true "
        "or what to do, and would still be worth reading in a year.",
        "keys: 30 to 70 words and short phrases a real question would use, in Portuguese and "
        "in English. Avoid generic multi-word keys.",
        "Every key must survive stopword removal on its own: a phrase made mostly of small "
        "words (o que e, how to) reduces to one word and is thrown away.",
        "summary: what the note is about, in one line, without a trailing period.",
        "No em dash and no en dash anywhere. Use a comma, a colon or parentheses.",
        f"folder: {folders}, and nothing else. Nothing else will be written.",
        "slug: lower case letters, digits and hyphens, 40 characters at most. It becomes the "
        "file name.",
        *extra,
    ]
    return "".join(f"{i}. {r}\n" for i, r in enumerate(rules, 1))


def promoter_prompt(agent: str, ends: str | None, source: str, text: str) -> str:
    parts = [
        "The file below is deposit material: short memory nobody has reviewed. Read it and "
        "propose notes for the long memory of the agent named here, if anything in it "
        "deserves one. You will not see what the base already holds; a separate reviewer "
        "compares every proposal with it and refuses most of them. That is how it should be.\n",
        f"\nTHE AGENT: {agent}\n",
    ]
    if ends:
        parts.append(f"WHERE IT STOPS: {ends}\n")
    body = text if text.endswith("\n") else text + "\n"
    parts += [
        f"\nTHE DEPOSIT FILE: {source}\n---\n{body}---\n",
        "\nRULES\n" + _rules(),
        "\nFORMAT: one block per note, exactly like this:\n\n" + FORMAT.format(extra=""),
        "\nIf nothing in the file belongs in the long memory, output the single word NOTHING.\n",
    ]
    return "".join(parts)


# -- the reviewer -----------------------------------------------------------------------------

QUESTIONS = {
    "contradiction": (
        "Does this note assert something that cannot be true at the same time as what the "
        "base already states: a different number for the same quantity, a different fact, an "
        "instruction reversed? Being covered by the base is NOT a contradiction: if the base "
        "says the same thing, accept; whether the note repeats the base is another reader's "
        "question."
    ),
    "duplication": (
        "Is this note already held by a listed file: the same question answered with the "
        "same content, even in other words? If it is, reject and name the file. If it "
        "genuinely adds something the listed files do not hold, accept."
    ),
    "scope": (
        "Does this note belong to THIS agent, by its subject and by where the agent says it "
        "stops? This is not about whether it is true or well written. If it belongs to "
        "another agent, reject and name that agent."
    ),
}


@frozen
class EvidenceItem:
    base: str
    path: str
    title: str
    purpose: str
    passage: str  # "" when the text scorer gave no passage


@frozen
class Evidence:
    """What the router answered for a proposal's keys."""

    keyword_score: float
    floor: float
    agreement: int  # 2: both scorers ranked the top file, 1: only one, 0: neither
    margin: float
    items: tuple[EvidenceItem, ...]


def evidence_of(
    keyword: Sequence[KeywordHit], found: Sequence[Found], entries: int, top: int
) -> Evidence:
    """The router's answer restricted to long memory: the deposit a proposal came from sits
    in `inbox/`, and shown as evidence it would prove that the base "already holds" every
    proposal ever made from it. The verdict numbers are recomputed over what is shown."""
    long_hits = [h for h in keyword if layer_of(h.entry.rel) == "long"]
    shown = [f for f in found if f.layer == "long"]
    by_text = {(f.base, f.path) for f in shown if f.passages}
    c = confidence_of(long_hits, by_text, entries)
    items = tuple(
        EvidenceItem(f.base, f.path, f.title, f.purpose, f.passages[0].text if f.passages else "")
        for f in shown[:top]
    )
    return Evidence(c.keyword_score, c.floor, c.agreement, c.margin, items)


def evidence_text(e: Evidence) -> str:
    scorers = {2: "both", 1: "only one"}.get(e.agreement, "neither")
    lines = [
        "EVIDENCE from the deterministic router, not a model: what the base holds for the "
        "proposed note's keys.",
        f"  top keyword score {e.keyword_score:.1f} against a floor of {e.floor:.1f}; "
        f"{scorers} of the two independent scorers ranked the top file; it leads the "
        f"runner-up by {e.margin:.2f}x",
    ]
    if not e.items:
        lines.append("  Nothing in the base ranks for these words at all.")
    for i, item in enumerate(e.items, 1):
        lines.append(f"{i}. {item.base}/{item.path}  ({item.title or 'untitled'})")
        lines.append(f"   about: {item.purpose or 'no purpose line'}")
        if item.passage.strip():
            flat = " ".join(item.passage.replace("\r", " ").replace("\n", " ").split())
            lines.append(f"   holds: {cut_bytes(flat, HOLDS_BYTES)}")
    return "\n".join(lines) + "\n"


def review_prompt(
    lens: str,
    agent: str,
    role: str | None,
    ends: str | None,
    p: Proposal,
    folder: str,
    evidence: str,
    earlier: Row | None,
) -> str:
    parts = [
        "You judge ONE proposed note against an existing base. You are not told who wrote it "
        "or why, and you need not know: judge the note as it stands, on one question only. "
        "Rejecting is normal and costs nothing; a wrong accept stays in the base.\n",
        f"\nYOUR ONE QUESTION: {QUESTIONS[lens]}\n",
        "\nTHE PROPOSED NOTE\n"
        f"agent: {agent}\n"
        f"file: {folder}/{p.slug}.md\n"
        f"about: {p.summary}\n"
        f"keys: {', '.join(p.keys)}\n"
        f"---\n{p.body.strip()}\n---\n",
    ]
    said = [
        f"WHO THE AGENT IS: {role}\n" if role else "",
        f"WHERE IT STOPS: {ends}\n" if ends else "",
    ]
    if any(said):
        parts.append("\n" + "".join(said))
    parts.append("\n" + evidence)
    if earlier is not None and earlier.reason.strip():
        parts.append(
            f"\nPRIOR REJECTION UNDER THIS LENS ({earlier.count} time(s), last "
            f"{earlier.last_seen}):\n"
            f'  "{earlier.reason.strip()}"\n'
            "Judge whether this proposal resolves that defect or repeats it.\n"
        )
    parts.append(
        "\nANSWER in exactly two lines:\n"
        "VERDICT: accept\n"
        "REASON: one sentence\n"
        "or\n"
        "VERDICT: reject\n"
        "REASON: one sentence naming the file or the line that decided it\n"
    )
    return "".join(parts)
