"""`kb answer`: what the answerer model is sent, and what the person is shown.

Rules of this module (workflow-verbs.md §11):
- Three modes. fast reads the top 5 files (up to 8 passages each) in one model call;
  expanded the top 12 (16 passages each) in one call; complete every keyed file in scope, 10
  files per map call, then one reduce call. `--complete` wins over `--expanded`.
- A `nothing` verdict, or no result at all, never reaches a model: the refusal costs zero
  calls (a model handed nothing to ground an answer in is how fluent fabrication happens).
- Small-to-big assembly, per file: its first (mode passages) passages in rank order; those
  sharing a heading path and a captured-from are merged into the first one's place (a chunk
  is already a section, or a window of one; overlapping windows of a long section are
  stitched back on their overlap); every merged text over 1,800 UTF-8 bytes is cut at a
  paragraph break past 900 bytes, else at a sentence end past 900, else at the byte cap,
  always on a character boundary.
- The prompt's prose is ours; its markers are the contract: the `WHAT RETRIEVAL THINKS.`
  line, `THE PASSAGES:`, the passage header `--- {base}/{path} ({heading or "top"})`, the
  short-memory label `[SHORT MEMORY: recent, not distilled]` on EVERY passage of an inbox/
  file (a model reading passage four does not reliably remember what was said above passage
  one), `[captured from {src}]`, and `THE QUESTION:`. The citation the model must write is
  the passage header's `{base}/{path}` in parentheses after each claim.
- Complete mode: the map reply's facts are its trimmed lines starting `- ` (the `FILE ...`
  verdict lines are the map being visible, not evidence); the reduce prompt carries only
  those lines.
- Every byte budget is measured in UTF-8 bytes and cut at a character boundary at or below
  the cap.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Literal

from attrs import frozen

from kb.pure.answering.fusion import Found, Passage
from kb.pure.answering.verdict import Confidence, Verdict
from kb.pure.notes.names import printable
from kb.pure.notes.plural import counted
from kb.pure.render.terminal import empty_base_text, shortfall_block

Label = Literal["fast", "expanded", "complete"]


@frozen
class Mode:
    label: Label
    files: int  # results read in one call (fast, expanded); 0 for complete (every file)
    passages: int  # passages taken per file


# Passage caps measured upstream over 145 knowledge notes: sections per note had a median
# of 7 and a p90 of 15, so 8 covers most notes whole and 16 nearly all.
FAST = Mode("fast", 5, 8)
EXPANDED = Mode("expanded", 12, 16)
COMPLETE = Mode("complete", 0, 32)

READING_LIST = 5  # the reading list is route's default top, whatever the mode
BATCH = 10  # files per map call in complete mode
WINDOW_CAP = 1800  # bytes per assembled passage (about 450 tokens of prose)
BREAK_FLOOR = 900  # a cut earlier than this would throw away half the window
MIN_OVERLAP = 10  # characters: a shorter shared run is a coincidence, not an overlap

SHORT_MEMORY = "[SHORT MEMORY: recent, not distilled]"
TERMINAL_SHORT = "[short memory]"

_PROMPT_VERDICT: dict[Verdict, str] = {
    "hit": "something here matches",
    "guess": "a guess; the match may be a coincidence of vocabulary",
    "nothing": "nothing matched",
}
_SHOWN_VERDICT: dict[Verdict, str] = {
    "hit": "hit",
    "guess": "guess, read the sources yourself",
    "nothing": "nothing",
}


def mode_of(expanded: bool, complete: bool) -> Mode:
    return COMPLETE if complete else EXPANDED if expanded else FAST


def verdict_phrase(verdict: Verdict) -> str:
    """The word printed under an answer: `hit`, `guess, read the sources yourself`, `nothing`."""
    return _SHOWN_VERDICT[verdict]


def worth_asking(confidence: Confidence, found: Sequence[Found]) -> bool:
    return confidence.verdict != "nothing" and bool(found)


def one_line(text: str) -> str:
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def cut_bytes(text: str, cap: int) -> str:
    """The longest prefix of `text` of at most `cap` UTF-8 bytes, ending on a character."""
    data = text.encode("utf-8")
    if len(data) <= cap:
        return text
    return data[:cap].decode("utf-8", errors="ignore")


# -- small-to-big assembly -------------------------------------------------------------------


@frozen
class Window:
    """One assembled passage: a section of a file, merged and capped."""

    heading_path: str
    text: str
    origin: str | None  # the captured_from of its file, when it has one


@frozen
class ServedFile:
    """One result as the answerer reads it."""

    base: str
    path: str
    short: bool  # inbox/: short memory, labelled on every passage
    purpose: str
    windows: tuple[Window, ...]

    @property
    def id(self) -> str:
        return f"{self.base}/{self.path}"


def merge(a: str, b: str) -> str:
    """Two passages of one section as one text: containment, else the overlap stitched once."""
    a, b = a.strip(), b.strip()
    if b in a:
        return a
    if a in b:
        return b
    for k in range(min(len(a), len(b)), MIN_OVERLAP - 1, -1):
        if a.endswith(b[:k]):
            return a + "\n" + b[k:].lstrip()
    return a + "\n\n" + b


def cap(text: str, limit: int = WINDOW_CAP) -> str:
    """At most `limit` bytes, cut where a reader would stop: a paragraph, else a sentence."""
    if nbytes(text) <= limit:
        return text
    head = cut_bytes(text, limit)
    para = head.rfind("\n\n")
    if para != -1 and nbytes(head[:para]) > BREAK_FLOOR:
        return head[:para].strip()
    stop = head.rfind(". ")
    if stop != -1 and nbytes(head[:stop]) > BREAK_FLOOR:
        return head[:stop].strip() + "."
    return head.strip()


def windows(passages: Sequence[Passage], origin: str | None, limit: int) -> tuple[Window, ...]:
    """A file's first `limit` passages merged by section (heading path and origin), capped."""
    order: list[str] = []
    merged: dict[str, str] = {}
    for p in passages[:limit]:
        key = p.heading_path  # every passage of one file shares its file's origin
        if key in merged:
            merged[key] = merge(merged[key], p.text)
        else:
            order.append(key)
            merged[key] = p.text.strip()
    capped = ((key, cap(merged[key])) for key in order)
    return tuple(Window(key, text, origin) for key, text in capped if text)


def served_files(
    found: Sequence[Found], origins: Mapping[tuple[str, str], str | None], mode: Mode
) -> tuple[ServedFile, ...]:
    """The first (mode files) results, each with its assembled passages."""
    return tuple(
        ServedFile(
            f.base,
            f.path,
            f.layer == "short",
            f.purpose,
            windows(f.passages, origins.get((f.base, f.path)), mode.passages),
        )
        for f in found[: mode.files]
    )


# -- the answerer's prompt (fast and expanded) -----------------------------------------------

ANSWER_RULES = f"""\
You answer ONE question from a personal knowledge library, using ONLY the passages below.
Rules:
- Every claim must be supported by a passage. Use no outside knowledge and do not fill a \
gap, however obvious the gap looks.
- If the passages do not hold the answer, or hold only part of it, say so plainly and say \
what is missing. "The library does not hold this" is a correct and complete answer.
- After each claim, cite the file it came from in parentheses, written exactly as the \
passage header names it, for example (ada/knowledge/backups.md).
- A passage marked {SHORT_MEMORY} is a recent note nobody has reviewed yet. You may use it, \
but the answer must say that it rests on recent, unreviewed material.
- A passage marked [captured from ...] names the source document it was distilled from; \
that document is the answer to a question about where something came from.
- Answer in the language the question was asked in, and briefly: the reader asked a \
question, not for a report.
"""


def retrieval_line(confidence: Confidence) -> str:
    return (
        f"WHAT RETRIEVAL THINKS. The top file covers {confidence.coverage:.0%} of the "
        f"question; verdict: {_PROMPT_VERDICT[confidence.verdict]}. "
        "Short of a hit, treat every passage as a lead, not an answer."
    )


def passage_header(f: ServedFile, w: Window) -> str:
    layer = f" {SHORT_MEMORY}" if f.short else ""
    origin = f" [captured from {w.origin}]" if w.origin else ""
    return f"--- {f.id} ({w.heading_path or 'top'}){layer}{origin}"


def answer_prompt(question: str, confidence: Confidence, served: Sequence[ServedFile]) -> str:
    out = [ANSWER_RULES, "\n", retrieval_line(confidence), "\n\n", "THE PASSAGES:\n"]
    for f in served:
        for w in f.windows:
            out.append(f"\n{passage_header(f, w)}\n{w.text.strip()}\n")
        if not f.windows and f.purpose:
            # A keyword-only hit carries no chunk; its purpose still says what the file is
            # for, so the model can point at it instead of inventing its contents.
            purpose = one_line(f.purpose).strip()
            out.append(f"\n--- {f.id} (no passage retrieved; the file exists to: {purpose})\n")
    out.append(f"\nTHE QUESTION:\n{one_line(question)}\n")
    return "".join(out)


# -- what the person sees --------------------------------------------------------------------


def refusal_text(
    empty: bool,
    unreachable: int,
    shortfall: Sequence[str],
    suggestions: Sequence[str],
    searchable: bool = True,
) -> str:
    """A `nothing` verdict: the reason, in numbers, and the vocabulary the base does know.
    `searchable` is False when every word of the question was a stopword."""
    if empty:
        return "\n".join(empty_base_text(unreachable)) + "\n"
    lines = (
        [
            "nothing in the library matched. Either it does not cover this, or the",
            "Search for lines do not carry the words the question used.",
        ]
        if searchable
        else ["nothing was searched: the question holds no word to search by."]
    )
    lines += shortfall_block(shortfall)
    if suggestions:
        if shortfall:  # the shortfall block ends in a wrapped paragraph: keep them apart
            lines.append("")
        lines.append(f"  it does know: {', '.join(suggestions)}")
    return "\n".join(lines) + "\n"


def reading_list(found: Sequence[Found]) -> list[str]:
    return [
        f"  {i}. {f.base}/{f.path}" + (f"  {TERMINAL_SHORT}" if f.layer == "short" else "")
        for i, f in enumerate(found[:READING_LIST], 1)
    ]


def no_answerer_text(found: Sequence[Found]) -> str:
    lines = ["no `answerer = ...` in the fleet manifest, so here is the reading list:", ""]
    return "\n".join(lines + reading_list(found)) + "\n"


def silent_text(found: Sequence[Found], reason: str) -> str:
    why = f" ({printable(reason)})" if reason else ""
    head = f"kb answer: the answerer did not reply{why}, so here is the reading list:"
    return "\n".join([head, *reading_list(found)]) + "\n"


def answered_text(reply: str, found: Sequence[Found], mode: Mode, confidence: Confidence) -> str:
    """The model's reply as the person reads it: its lines kept, every control character
    and bidi control escaped (a model's ANSI escapes never reach the terminal: F13)."""
    sources = "".join(f" {printable(f.base)}/{printable(f.path)}" for f in found[: mode.files])
    return (
        f"{printable(reply.strip(), lines=True)}\n\n"
        f"sources served:{sources}\n"
        f"mode: {mode.label} | confidence: covers {confidence.coverage:.0%} of the question; "
        f"{verdict_phrase(confidence.verdict)}\n"
    )


# A citation is a path-looking token (at least one `/`, a file extension) inside parentheses.
_PARENS = re.compile(r"\(([^()\n]*)\)")
_PATH = re.compile(r"[\w.\-]+(?:/[\w.\-]+)+\.\w+")


def cited_paths(reply: str) -> list[str]:
    """The file paths the reply cites in parentheses, first occurrence first."""
    out: list[str] = []
    for group in _PARENS.findall(reply):
        for path in _PATH.findall(group):
            if path not in out:
                out.append(path)
    return out


def unserved_citations(reply: str, served: Sequence[str]) -> list[str]:
    """Cited paths that name no served file (`base/path`, or a served file's own `path`)."""
    return [p for p in cited_paths(reply) if not any(s == p or s.endswith("/" + p) for s in served)]


def unserved_warning(path: str) -> str:
    return (
        f"kb answer: the answer cites {path}, which retrieval did not serve; check that claim "
        "against the sources line before trusting it\n"
    )


# -- complete mode: map, then reduce ---------------------------------------------------------


@frozen
class PlanFile:
    name: str  # `{base}/{rel}`
    text: str  # as read off disk, keyword lines stripped ("" when unreadable)
    short: bool


def batch_count(files: int) -> int:
    return math.ceil(files / BATCH)


def batches(files: Sequence[PlanFile]) -> list[Sequence[PlanFile]]:
    return [files[i : i + BATCH] for i in range(0, len(files), BATCH)]


NO_ANSWERER_COMPLETE = (
    "kb answer --complete: no `answerer = ...` in the fleet manifest, and this\n"
    "mode is nothing but model calls. Configure one or use the default mode.\n"
)
NOTHING_TO_READ = "the base serves no keyed files, so there is nothing to read.\n"
NOTHING_FOUND = (
    "complete search read every file and found nothing bearing on the question.\n"
    "The library does not hold this.\n"
)


def estimate_text(files: int) -> str:
    m = batch_count(files)
    return (
        f"complete search: reading all {counted(files, 'file')} in "
        f"{counted(m, 'batch', 'batches')}, {counted(m + 1, 'model call')} total.\n"
        f"This is the slow mode by design: one call per {BATCH} files, then one to compose the "
        "answer.\n"
    )


def first_batch_line(total: int, seconds: float) -> str:
    return (
        f"  batch 1/{total} took {seconds:.1f}s; at that pace the whole read is "
        f"~{seconds * (total + 1) / 60:.1f} min\n"
    )


def batch_done_line(k: int, total: int) -> str:
    return f"  batch {k}/{total} done\n"


def map_failed_text(k: int, total: int, reason: str) -> str:
    why = f" ({reason})" if reason else ""
    return (
        f"kb answer --complete: map batch {k}/{total} got no reply{why}; its files are\n"
        "missing from the answer, which is now incomplete by that much.\n"
    )


MAP_RULES = f"""\
You read part of a personal knowledge library for ONE question. For EVERY file below, write \
exactly one verdict line, one of:
FILE <path>: facts below
FILE <path>: no relevant mention
Under a `facts below` line, put each fact that bears on the question on its own line: a \
bullet `- `, the fact, then the file path and the session date in parentheses, like this:
- the restore drill ran on a Tuesday (history/memory/003-2023-05-20.md, 2023-05-20)
Rules:
- Only what a file literally states. No inference across files, no outside knowledge.
- The session date is the date the file gives for itself (in its name or its text); write \
undated when it gives none.
- A file marked {SHORT_MEMORY} is recent and unreviewed; its facts still count.
"""


def map_prompt(question: str, batch: Sequence[PlanFile]) -> str:
    out = [MAP_RULES, "\n"]
    for f in batch:
        label = f" {SHORT_MEMORY}" if f.short else ""
        out.append(f"--- {f.name}{label}\n{f.text}\n\n")
    out.append(f"THE QUESTION:\n{one_line(question)}\n")
    return "".join(out)


def fact_lines(reply: str) -> list[str]:
    """The map reply's fact bullets, trimmed; everything else is dropped."""
    return [line.strip() for line in reply.splitlines() if line.strip().startswith("- ")]


REDUCE_RULES = """\
Answer ONE question using ONLY the fact lines below. They were extracted from a personal \
knowledge library, each with its source file and session date in parentheses. Work in this \
order:
CANDIDATES: list every fact that bears on the question, with its source and date, each \
marked `counted` or `excluded (reason)`.
Then one line starting ANSWER: with the answer you commit to, before any caveat. When the \
question asks for a number, that line holds a number. When the facts do not hold the \
answer, write: ANSWER: the library does not hold this
Caveats, if any, come only after the ANSWER line. Carry each fact's file into the answer in \
parentheses. Answer in the language the question was asked in.
"""


def reduce_prompt(question: str, facts: Sequence[str]) -> str:
    return (
        f"{REDUCE_RULES}\nTHE FACTS:\n"
        + "\n".join(facts)
        + f"\n\nTHE QUESTION:\n{one_line(question)}\n"
    )


def complete_text(reply: str, files: int, calls: int, seconds: float) -> str:
    return (
        f"{printable(reply.strip(), lines=True)}\n\n"
        f"mode: complete | read {counted(files, 'file')} in {counted(calls, 'model call')} | "
        f"{seconds:.1f}s total\n"
    )


def reduce_failed_text(reason: str, facts: Sequence[str]) -> str:
    why = f" ({printable(reason)})" if reason else ""
    head = f"kb answer --complete: the reduce call failed{why}; the extracted facts:"
    return "\n".join([head, *(printable(f) for f in facts)]) + "\n"


# -- `kb answer --json` ----------------------------------------------------------------------

# What happened, one word a script can branch on. The ones that say the library holds no
# answer are the `nothing` of `--exit-code`.
AnswerOutcome = Literal[
    "answered",  # the answerer replied (any mode)
    "refused",  # verdict nothing: no model was asked
    "empty",  # the bases hold no entry at all
    "reading_list",  # no `answerer =` line: the files retrieval served
    "silent",  # the answerer did not reply: the reading list instead (exit 1)
    "nothing_to_read",  # --complete: no keyed file in scope
    "nothing_found",  # --complete: every file read, no fact bore on the question
    "reduce_failed",  # --complete: the facts were found, the composing call failed (exit 1)
]
HOLDS_NOTHING: frozenset[str] = frozenset({"refused", "empty", "nothing_to_read", "nothing_found"})


def _file(f: Found) -> dict[str, str]:
    return {"base": f.base, "memory": f.layer, "path": f.path}


def answer_json(
    question: str,
    mode: Mode,
    outcome: AnswerOutcome,
    *,
    confidence: Confidence | None = None,
    reply: str | None = None,
    served: Sequence[Found] = (),
    reading: Sequence[Found] = (),
    unserved: Sequence[str] = (),
    shortfall: Sequence[str] = (),
    suggestions: Sequence[str] = (),
    reason: str | None = None,
    facts: Sequence[str] = (),
    files_read: int | None = None,
    calls: int | None = None,
) -> dict[str, object]:
    """The one JSON object `kb answer --json` prints: every key always present (null or
    empty when it does not apply), keys sorted, so a reader needs no case analysis to parse
    it. `answer` is the model's reply as it wrote it, trimmed; the text mode's framing
    (sources line, mode line) is in the other keys."""
    return {
        "answer": reply.strip() if reply is not None else None,
        "calls": calls,
        "coverage": round(confidence.coverage, 6) if confidence is not None else None,
        "facts": list(facts),
        "files_read": files_read,
        "mode": mode.label,
        "outcome": outcome,
        "question": question,
        "reading_list": [_file(f) for f in reading[:READING_LIST]],
        "reason": reason or None,
        "served": [_file(f) for f in served],
        "shortfall": list(shortfall),
        "suggestions": list(suggestions),
        "unserved_citations": list(unserved),
        "verdict": confidence.verdict if confidence is not None else None,
    }
