"""The text the MCP tools return: values in, one string out.

The verdict line, the EVIDENCE line, the memory labels and the list/no-match shapes are
contracts (a model reads them); the explanatory paragraphs are ours. kb_route lists the fused
list the verdict judged, in `kb route --json`'s order, under the verdict line the terminal
prints (decision 0029).
"""

from __future__ import annotations

from collections.abc import Sequence

from kb.pure.answering.fusion import Found, looks_stale, no_agreement
from kb.pure.answering.keyword import KeywordHit
from kb.pure.answering.verdict import Confidence
from kb.pure.fleet.listing import Row, row_line
from kb.pure.notes.plural import counted
from kb.pure.render.terminal import CHANGED_LABEL, verdict_line
from kb.pure.roles.remember import NOTICE, Remembered, evidence_lines

SHORT_LABEL = "  [short memory: recent, not distilled, not yet in the library]"

_VERDICT_WORDS = {
    "hit": "something here matches",
    "guess": "a guess, covering too little of the question or too close to the runner-up to "
    "tell from a coincidence of vocabulary",
    "nothing": "nothing matched",
}
_AGREEMENT_WORDS = {2: "both", 1: "only one", 0: "neither"}


def has_runner_up(keyword_hits: Sequence[KeywordHit]) -> bool:
    """Whether a second file scored on keywords: the margin is top / runner-up only then
    (kb.pure.answering.verdict.confidence_of writes 1.0 when there is none, which is not a tie)."""
    return len(keyword_hits) > 1 and keyword_hits[1].score > 0


def evidence_line(c: Confidence, runner_up: bool) -> str:
    lead = (
        f"it leads the runner-up by {c.margin:.2f}x"
        if runner_up
        else "no other file scored on keywords, so there is no runner-up to lead"
    )
    return (
        f"EVIDENCE: the top file covers {c.coverage:.0%} of the question; keyword score "
        f"{c.keyword_score:.1f}; "
        f"{_AGREEMENT_WORDS.get(c.agreement, 'neither')} of the two independent scorers ranked "
        f"the top file; {lead}. "
        f"Verdict: {_VERDICT_WORDS[c.verdict]}."
    )


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def empty_base_reply(unreachable: int) -> str:
    parts = [
        "This base has no knowledge files yet, so nothing could have matched. That is a fact "
        "about the base and not about the question.",
        "A base is filled by putting markdown in the agent's folder, giving each file its own "
        "`Search for:` line near the top with the words a real question would use, and running "
        "`kb index`. The line lives in the file it describes, not in a list elsewhere, so a "
        "file without one is a file nothing can reach.",
    ]
    if unreachable:
        one = unreachable == 1
        parts.append(
            f"{unreachable} markdown {_plural(unreachable, 'file is', 'files are')} already in "
            f"the open bases without that line: {'it is' if one else 'they are'} on disk, a "
            f"person can read {'it' if one else 'them'}, and no question reaches "
            f"{'it' if one else 'them'}. `kb check` names each one."
        )
    parts.append(
        "kb_fleet works regardless: who this fleet is and which agents exist is read from "
        "fleet.txt and each agent.txt, not from the index, so identity is answerable before a "
        "single note is written."
    )
    return "\n\n".join(parts)


def no_match_reply(
    question: str, shortfall: Sequence[str], suggestions: Sequence[str], closest: bool = False
) -> str:
    """The refusal (verdict `nothing`). `closest`: the scorers did rank files, and the verdict
    refused them, so the reply does not say that nothing matched."""
    if closest:
        text = (
            f'No file covers enough of "{question}" to answer it.\n\n'
            "The closest files the scorers found cover too little of the question, so none is "
            "served as an answer. kb says so plainly on purpose: a router that always returns "
            "something teaches you to trust a guess."
        )
    else:
        text = (
            f'Nothing matched "{question}".\n\n'
            "Either the base does not cover it, or its keyword lines do not carry the words a "
            "real question uses. kb says so plainly on purpose: a router that always returns "
            "something teaches you to trust a guess."
        )
    if shortfall:
        text += "\n\n" + " ".join(shortfall)
    if suggestions:
        text += (
            "\n\nThe base does know these, and they look like words you used: "
            f"{', '.join(suggestions)}.\n\n"
            "That comparison is spelling, not meaning: it finds a typo or a cognate and never a "
            "translation. If the question was asked in one language and the base was written in "
            "another, ask again with the terms above or with the canonical words you expect."
        )
    return text


def with_verdict(confidence: Confidence, text: str) -> str:
    """kb_route's reply: the verdict line first, as the terminal prints it."""
    return f"{verdict_line(confidence.verdict, confidence.coverage)}\n\n{text}"


def route_reply(
    question: str,
    confidence: Confidence,
    found: Sequence[Found],
    changed: frozenset[tuple[str, str]],
    runner_up: bool,
) -> str:
    """The fused list, best first: path and title, which scorers ranked it, the words it
    matched by keyword (a file found by text alone has none to show), its purpose."""
    lines = [f"Files to open for: {question}", "", evidence_line(confidence, runner_up), ""]
    for i, f in enumerate(found, 1):
        head = f"{i}. {f.base}/{f.path}"
        if f.title:
            head += f"  ({f.title})"
        if f.layer == "short":
            head += SHORT_LABEL
        if (f.base, f.path) in changed:
            head += f"  {CHANGED_LABEL}"
        lines += [head, f"   ranked by: {' + '.join(f.why)}"]
        if f.matched:
            lines.append(f"   matched: {', '.join(f.matched)}")
        purpose = f.purpose.replace("\n", " ").strip()
        if purpose:
            lines.append(f"   {purpose}")
    return with_verdict(confidence, "\n".join(lines))


NO_AGREEMENT_NOTE = (
    "NOTE: only one of the two scorers ranked any of these, so treat this as a guess rather "
    "than an answer. Agreement between the keyword index and the full-text index is observed, "
    "never assumed, and here there is none. Agreement says a file is on topic, not that the "
    "base covers the question, so it is reported and never gates a verdict; it is also weaker "
    "than it sounds, because the text side is merged round robin per agent, so each agent's "
    "best match gets in without competing with the others. Read these as leads, and consider "
    "that the base may not cover the question at all."
)
STALE_NOTE = (
    "NOTE: the keyword index ranked these files, but the full-text index holds no chunks for "
    "any of them, which usually means the index is stale or was built over other bases. Run "
    "`kb index` over the same paths this server was started with. The ranking still stands; "
    "missing passages are not evidence that the files are empty."
)


def retrieve_reply(
    question: str,
    confidence: Confidence,
    found: Sequence[Found],
    changed: frozenset[tuple[str, str]],
    runner_up: bool,
) -> str:
    out = [f"Passages for: {question}\n\n{evidence_line(confidence, runner_up)}\n\n"]
    if no_agreement(found):
        out.append(NO_AGREEMENT_NOTE + "\n\n")
    if looks_stale(found):
        out.append(STALE_NOTE + "\n\n")
    for f in found:
        head = f"## {f.base}/{f.path}"
        if f.title:
            head += f"  ({f.title})"
        if f.layer == "short":
            head += SHORT_LABEL
        if (f.base, f.path) in changed:
            head += f"  {CHANGED_LABEL}"
        out.append(f"{head}\n   ranked by: {' + '.join(f.why)}\n")
        if not f.passages:
            out.append("   (ranked by keywords only; open the file for its text)\n\n")
            continue
        for p in f.passages:
            prov = ""
            if p.provenance and p.stage:
                prov = f"  [{p.provenance}/{p.stage}]"
            elif p.provenance:
                prov = f"  [{p.provenance}]"
            out.append(f"\n### {p.heading_path}{prov}\n{p.text.strip()}\n")
        out.append("\n")
    return "".join(out).rstrip("\n")


def remember_reply(r: Remembered) -> str:
    lines = [f"claim: {r.claim}", f"proposal: {r.proposal}", f"reason: {r.reason}", ""]
    if not r.evidence:
        lines += ["Nothing in the base overlaps this claim.", ""]
    else:
        lines.append("evidence, closest first:")
        lines += evidence_lines(r, new_label="new: ")
        lines.append("")
    lines += [
        "---",
        NOTICE,
        "",
        "This tool wrote nothing. Applying the proposal is a separate, deliberate act.",
    ]
    return "\n".join(lines)


def list_reply(rows: Sequence[Row], limit: int) -> str:
    if not rows:
        return (
            "No file in the open bases carries every facet you named. That is a fact about the "
            "filter and about what is on disk, not a ranking: nothing was scored and nothing "
            "was refused."
        )
    shown = rows[: max(limit, 1)]
    text = f"{counted(len(rows), 'file')}. Nothing here is ranked.\n\n" + "\n".join(
        row_line(r) for r in shown
    )
    cut = len(rows) - len(shown)
    if cut:
        text += f"\n\n{cut} more not shown. Narrow the facets, or raise limit.\n"
    return text


INSTRUCTIONS = (
    "kb serves a fleet's markdown memory, read-only. kb_route says which files answer a "
    "question (paths and why, cheap); kb_retrieve gives the passages of the same files, in "
    "the same order; kb_list "
    "filters the files on disk by facet and never ranks; kb_fleet says who the fleet and "
    "its agents are; kb_remember, before you write a claim down, proposes ADD, UPDATE or "
    "NOOP from word overlap and writes nothing. Every answer to a question carries a "
    "verdict: hit (the top file covers the question), guess (a lead to check, not an "
    "answer) or nothing. On nothing the tools refuse instead of guessing: say the memory "
    "does not cover it, and do not answer from the keys it offers back, which are matched "
    "by spelling, not meaning. Each tool returns prose to read and the same facts as "
    "structuredContent, described by its outputSchema. Without `kb serve --all` the "
    "private layer is absent from every tool."
)
