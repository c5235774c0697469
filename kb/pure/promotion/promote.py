"""`kb promote`'s decisions: what the promoter proposed, what the reviewer decided, and
whether a proposal may be written (workflow-verbs.md §10.2 to §10.4).

Rules of this module:
- Deposits are the `.md` and `.txt` files under an agent's `inbox/`, at any depth, except
  `inbox/raw/` (where `kb ingest` keeps originals), hidden files and folders, and the
  orientation files (`what-goes-here.md`, `readme.md`, `moved.md`, any case).
- A proposal is a block from a line that trims to `PROPOSAL` to a line that trims to `END`.
  Before `body:` the lines are trimmed and matched by label, ignoring case (`slug:`,
  `folder:`, `summary:`, `keys:`, `sources:`; the first of each wins); after `body:` every
  line is kept as written until `END`. A block missing its slug, summary, keys or a non-blank
  body is dropped, and so is a block the reply never closed with `END` (a reply cut short
  is not a proposal). The folder defaults to `knowledge`; the summary loses every trailing
  `.`; keys are split on `,`, trimmed, stripped of backticks, blanks dropped. A proposal
  carries no reasoning field, so the reviewer can never be shown the promoter's reasons.
- Hard rules come before any model is asked, and are refusals, not outages: the target
  folder must be memory-kind (not tools or skills, ADR-0031), must not be `inbox/` (the short
  memory promote reads; a note written there would be offered again on the next run), and
  must be a folder `kb write` writes into (`knowledge` or `decisions`, no subfolder, nothing
  that leaves the base); the slug must be a usable note name.
- The repetition filter: a proposal (same agent ignoring case, same slug) refused three times
  or more is refused again without a model call, under the lens that refused it.
- Three lenses, always in this order: contradiction, duplication, scope. A proposal is
  admitted only by UNANIMITY: exactly three reviews, one per lens in that order, every one an
  accept. Anything else writes nothing.
- Reading a verdict degrades toward writing nothing: a reply with any reject signal is a
  reject (the original let a later `VERDICT:` line overwrite an earlier reject); a verdict
  line whose value is neither (`VERDICT: maybe`, `VERDICT: unacceptable`) is a reject; a
  reply with no verdict at all is a reject whose reason quotes the reply. Only a reply whose
  every verdict reads accept is an accept.
- The cap (`--max N`) counts ADMITTED proposals (all three lenses accepted, written or not,
  so a dry run stops where a real run would) and is checked before each file is read and
  before each proposal is reviewed.
- A reason is one line of at most 400 UTF-8 bytes: it is printed, and stored in
  kb-rejections.txt, where a line break would be a new row.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from kb.pure.notes.names import is_usable_name, printable
from kb.pure.notes.paths import kind_of
from kb.pure.notes.plural import counted
from kb.pure.promotion.rejections import Row, ascii_lower
from kb.pure.sessions.handoff import cut_bytes
from kb.pure.writing.notewrite import legal_folder, parse_keys
from kb.pure.writing.skeleton import MEMORY_FOLDERS

LENSES = ("contradiction", "duplication", "scope")
REPEAT_LIMIT = 3
REASON_BYTES = 400
QUOTE_CHARS = 200
DEFAULT_FOLDER = "knowledge"
SHORT_MEMORY_FOLDER = "inbox"
# Where a promoted note may land: the memory folders `kb write` writes into that are
# memory-kind and long memory. Derived, so a new memory folder in the skeleton follows.
TARGET_FOLDERS = tuple(
    f for f in MEMORY_FOLDERS if kind_of(f) == "memory" and f != SHORT_MEMORY_FOLDER
)


# -- which files are deposits ------------------------------------------------------------------

DEPOSIT_EXTENSIONS = (".md", ".txt")
NOT_DEPOSITS = frozenset({"what-goes-here.md", "readme.md", "moved.md"})
RAW_DIR = "raw"  # kb ingest's originals: the one folder under inbox/ the walk never enters


def is_deposit_name(name: str) -> bool:
    """A file under `inbox/` promote offers: `.md` or `.txt`, not an orientation file, not
    hidden (a temp file some writer left)."""
    low = ascii_lower(name)
    return low.endswith(DEPOSIT_EXTENSIONS) and low not in NOT_DEPOSITS and not name.startswith(".")


def is_walked_dir(name: str) -> bool:
    return name != RAW_DIR and not name.startswith(".")


@frozen
class Proposal:
    slug: str
    folder: str
    summary: str
    keys: tuple[str, ...]
    body: str
    sources: tuple[str, ...] = ()  # cited sessions (kb consolidate only)


@frozen
class Review:
    lens: str
    accept: bool
    reason: str


# -- the promoter's reply ---------------------------------------------------------------------

_FIELDS = ("slug", "folder", "summary", "keys", "sources")


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def parse_proposals(reply: str) -> tuple[Proposal, ...]:
    out: list[Proposal] = []
    fields: dict[str, str] | None = None
    body: list[str] | None = None
    for raw in _lines(reply):
        line = raw.strip()
        if body is not None and fields is not None:
            if line == "END":
                made = _finish(fields, body)
                if made is not None:
                    out.append(made)
                fields, body = None, None
            else:
                body.append(raw)
            continue
        if line == "PROPOSAL":
            fields = {}
            continue
        if fields is None:
            continue
        if line == "END":  # closed before any body: nothing to propose
            fields = None
            continue
        label, colon, value = line.partition(":")
        name = ascii_lower(label.strip())
        if not colon:
            continue
        if name == "body":
            body = [value.strip()] if value.strip() else []
        elif name in _FIELDS and name not in fields:
            fields[name] = value.strip()
    return tuple(out)


def _finish(fields: dict[str, str], body: list[str]) -> Proposal | None:
    slug = fields.get("slug", "").strip()
    summary = fields.get("summary", "").strip().rstrip(".").strip()
    keys = parse_keys(fields.get("keys"))
    text = "\n".join(body).strip()
    if not slug or not summary or not keys or not text:
        return None
    sources = tuple(s.strip() for s in fields.get("sources", "").split(",") if s.strip())
    return Proposal(
        slug=slug,
        folder=fields.get("folder", "").strip() or DEFAULT_FOLDER,
        summary=summary,
        keys=keys,
        body=text,
        sources=sources,
    )


# -- hard rules, before any model -------------------------------------------------------------


def target_folder(p: Proposal) -> str | None:
    """The folder the note would be written into, or None when a hard rule forbids it."""
    if hard_rule(p) is not None:
        return None
    return legal_folder(p.folder.strip())


def hard_rule(p: Proposal) -> Review | None:
    folder = p.folder.strip()
    kind = kind_of(folder)
    if kind != "memory":
        return Review(
            "scope",
            False,
            "hard rule, not a judgement: ingestion writes memory only, and the target folder "
            f"is {kind}-kind (ADR-0031)",
        )
    target = legal_folder(folder)
    if target == SHORT_MEMORY_FOLDER:
        return Review(
            "scope",
            False,
            "hard rule, not a judgement: inbox/ is the short memory promote reads from, so a "
            "note written there would only be offered again; a promoted note goes into "
            + " or ".join(f"{f}/" for f in TARGET_FOLDERS),
        )
    if target not in TARGET_FOLDERS:
        return Review(
            "scope",
            False,
            f"hard rule, not a judgement: '{one_line(folder)}' is not a folder a promoted note "
            "may be written into; it goes straight into "
            + " or ".join(f"{f}/" for f in TARGET_FOLDERS)
            + " of its own base, with no subfolder and nothing outside the base",
        )
    if not is_usable_name(p.slug):
        return Review(
            "scope",
            False,
            f"hard rule, not a judgement: '{one_line(p.slug)}' is not a usable note name "
            "(lower case letters, digits and hyphens, 40 characters at most, no leading or "
            "trailing hyphen)",
        )
    return None


def already_written(path: str) -> Review:
    """The note the proposal names exists: writing would be a silent deletion."""
    return Review(
        "duplication",
        False,
        f"hard rule, not a judgement: {one_line(path)} already exists, and promote never "
        "writes over a note",
    )


# -- the repetition filter --------------------------------------------------------------------


def _same(row: Row, agent: str, slug: str) -> bool:
    return ascii_lower(row.agent) == ascii_lower(agent) and row.slug == slug


def repeated(rows: Sequence[Row], agent: str, slug: str) -> Row | None:
    """The first row (the most refused) that has refused this proposal three times or more."""
    return next((r for r in rows if _same(r, agent, slug) and r.count >= REPEAT_LIMIT), None)


def repetition(row: Row) -> Review:
    lens = row.lens if row.lens in ("contradiction", "scope") else "duplication"
    return Review(
        lens,
        False,
        clean_reason(
            f"deterministic repetition filter: refused {counted(row.count, 'time')} "
            f"(last {row.last_seen}): {row.reason}"
        ),
    )


def prior(rows: Sequence[Row], agent: str, slug: str, lens: str) -> Row | None:
    """The earlier refusal of this proposal under this lens, if any."""
    return next((r for r in rows if _same(r, agent, slug) and r.lens == lens), None)


# -- the reviewer's reply ---------------------------------------------------------------------

NOTHING_SAID = "the reviewer returned nothing, which is refused rather than guessed at"
NO_REASON = "no reason given"


def undecorate(line: str) -> str:
    text = line.strip().lstrip("-*>#` \t")
    return text.replace("**", "").replace("__", "").strip()


def labelled(text: str, label: str) -> str | None:
    head, colon, tail = text.partition(":")
    if colon and ascii_lower(head.strip()) == label:
        return tail.strip()
    return None


def _reads(value: str) -> bool | None:
    """True accept, False reject, None neither. A reject anywhere in the value wins."""
    low = ascii_lower(value)
    if "reject" in low:
        return False
    words = low.split()
    first = words[0].strip("`'\".,;:!?*_()[]") if words else ""
    if first in ("accept", "accepted", "accepts"):
        return True
    return None


def read_verdict(lens: str, reply: str) -> Review:
    verdicts: list[str] = []
    reason: str | None = None
    bare: list[bool] = []
    for raw in _lines(reply):
        text = undecorate(raw)
        value = labelled(text, "verdict")
        if value is not None:
            verdicts.append(value)
            continue
        said = labelled(text, "reason")
        if said is not None:
            if reason is None:
                reason = said
            continue
        word = ascii_lower(text).rstrip(".")
        if word in ("reject", "rejected"):
            bare.append(False)
        elif word in ("accept", "accepted"):
            bare.append(True)
    given = clean_reason(reason) if reason else NO_REASON
    if verdicts:
        readings = [_reads(v) for v in verdicts]
        if False in readings:
            return Review(lens, False, given)
        unclear = next((v for v, r in zip(verdicts, readings, strict=True) if r is None), None)
        if unclear is not None:
            return Review(
                lens,
                False,
                clean_reason(
                    f"the verdict '{unclear}' reads as neither accept nor reject, which is "
                    "refused rather than guessed at"
                ),
            )
        return Review(lens, True, given)
    if bare:
        return Review(lens, all(bare), given)
    if not reply.strip():
        return Review(lens, False, NOTHING_SAID)
    quoted = " ".join(reply.split())[:QUOTE_CHARS]
    return Review(
        lens,
        False,
        clean_reason(
            f"no verdict could be read, which is refused rather than guessed at. It said: {quoted}"
        ),
    )


# -- unanimity and the cap --------------------------------------------------------------------


def unanimous(reviews: Sequence[Review]) -> bool:
    return (
        len(reviews) == len(LENSES)
        and tuple(r.lens for r in reviews) == LENSES
        and all(r.accept for r in reviews)
    )


def first_refusal(reviews: Sequence[Review]) -> Review | None:
    return next((r for r in reviews if not r.accept), None)


def capped(admitted: int, cap: int | None) -> bool:
    return cap is not None and admitted >= cap


# -- text helpers -----------------------------------------------------------------------------


def one_line(text: str) -> str:
    return printable(" ".join(text.split()))


def clean_reason(text: str) -> str:
    """One line, whitespace collapsed, control characters escaped, at most 400 bytes."""
    flat = one_line(text)
    cut = cut_bytes(flat, REASON_BYTES)
    return cut if cut == flat else cut.rstrip() + " [...]"
