"""`kb ingest`: names for what is staged, the deposit it writes, and whether the document may
be removed afterwards (workflow-verbs.md §13, §13.1).

Rules of this module:
- Staging is the reversible half and comes first: the original is moved (never copied and
  left) to `inbox/raw/{today}-{slug}.{ext}` and its text is written beside it as the deposit
  `inbox/{today}-{slug}.txt`, `provenance: external`, `stage: raw`. `kb promote` never walks
  `inbox/raw/`, so the original is never offered as a deposit of its own.
- Names are free names: `{stem}.{ext}`, then `{stem}-2.{ext}` to `{stem}-999.{ext}`, then
  `{stem}-{pid}.{ext}`. Nothing is ever written over.
- The document's slug: its file stem lower-cased, ASCII letters and digits kept, every run
  of anything else one `-`, trimmed of `-`, at most 60 characters, `document` when empty.
  The extension is lower-cased, `bin` when there is none.
- Removal is the irreversible half and needs every one of: no `--keep`; the run was not
  stopped by a cap; nothing was unreachable; this run wrote at least one note; and at least
  one note on disk names the deposit in its `captured_from`. Then only what this verb
  built is removed (the deposit and the moved original), never a path the caller typed.
  A document that produced no note is kept: destroying the only copy of something the
  base decided it had nothing to say about is the worst trade available.
- A document in a private layer (judged on the file opened: kb.io.notes.safe_read.private_owner)
  is refused without --all, and with --all it is never moved or removed: the deposit names
  the original where it is, and removal removes the deposit alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from attrs import frozen

from kb.pure.notes.names import printable
from kb.pure.notes.plural import counted
from kb.pure.sessions.session import flatten

SLUG_CHARS = 60
MAX_SUFFIX = 999
ROUTE_BYTES = 4000  # how much of the text the router reads to choose an owner
RAW_DIR = "raw"
INBOX = "inbox"


def document_slug(stem: str) -> str:
    out: list[str] = []
    for c in stem.lower():
        if c.isascii() and c.isalnum():
            out.append(c)
        elif out and out[-1] != "-":
            out.append("-")
    slug = "".join(out).strip("-")[:SLUG_CHARS].strip("-")
    return slug or "document"


def split_name(name: str) -> tuple[str, str]:
    """(stem, extension lower-cased); `bin` when the name has no extension."""
    head, dot, tail = name.rpartition(".")
    if not dot or not head or not tail:
        return name, "bin"
    return head, tail.lower()


def free_names(stem: str, ext: str, pid: int) -> Iterator[str]:
    yield f"{stem}.{ext}"
    for n in range(2, MAX_SUFFIX + 1):
        yield f"{stem}-{n}.{ext}"
    yield f"{stem}-{pid}.{ext}"


def deposit_text(staged_from: str, staged_raw: str, text: str) -> str:
    return (
        "---\n"
        "provenance: external\n"
        "stage: raw\n"
        f"staged_from: {flatten(staged_from)}\n"
        f"staged_raw: {flatten(staged_raw)}\n"
        "---\n\n"
        f"{text.strip()}\n"
    )


# -- removal ----------------------------------------------------------------------------------


@frozen
class Remove:
    pass


@frozen
class Keep:
    reason: str
    by_request: bool  # --keep: exit 0


def removal(
    keep: bool,
    stopped_at: int | None,
    unreachable: Sequence[str],
    written: int,
    proven: bool,
    proposed: int,
    refused: int,
) -> Remove | Keep:
    if keep:
        return Keep("--keep was given", True)
    if stopped_at is not None or unreachable:
        why = (
            f"it stopped at the --max cap of {stopped_at}"
            if stopped_at is not None
            else printable(unreachable[0])
        )
        return Keep(
            f"promotion did not run to completion over this document ({why}), so what it "
            "holds has not all been offered yet",
            False,
        )
    if written == 0 or not proven:
        return Keep(
            "this run wrote no note naming this document, or no note on disk names it. "
            f"{counted(proposed, 'proposal')} {'was' if proposed == 1 else 'were'} made and "
            f"{refused} refused; the reasons are in "
            "kb-rejections.txt. A source that produced no note has not been absorbed, and "
            "destroying the only copy of material the base decided it had nothing to say "
            "about is the worst trade available",
            False,
        )
    return Remove()


# -- messages ---------------------------------------------------------------------------------

NO_FILE = (
    "kb ingest: name the document to ingest. `kb ingest <file> [path] [--agent NAME] [--keep]`"
)


def no_such_file(path: str) -> str:
    return f"kb ingest: there is no file at {printable(path)}"


def needs_models(missing: str) -> str:
    return (
        "kb ingest: the fleet manifest needs both `promoter = ...` and `reviewer = ...`. "
        f"It has no `{missing} = ...` line, and ingesting without both is automatic "
        "extraction into durable memory with nobody deciding what is kept."
    )


def could_not_run(script: str, error: str) -> str:
    return f"kb ingest: could not run {printable(script)}: {printable(error)}"


def exited(script: str, status: str, stderr: str) -> str:
    said = printable(" ".join(stderr.split()))
    return f"kb ingest: {printable(script)} exited with {status}: {said}".rstrip(": ")


def timed_out(script: str, seconds: float) -> str:
    return (
        f"kb ingest: {printable(script)} did not finish within {seconds:g}s and was stopped. "
        "Nothing was moved."
    )


def not_utf8(path: str) -> str:
    return (
        f"kb ingest: {printable(path)} is not UTF-8 text, so it cannot be read as text "
        "without losing characters. Convert it to UTF-8 first, or write an extractor for its "
        "extension under tools/extract/. Nothing was moved."
    )


def no_text(path: str) -> str:
    return (
        f"kb ingest: {printable(path)} produced no text. It has not been moved, because the "
        "original is still the only copy of whatever it holds."
    )


def routed(agent: str, score: float, margin: float, contenders: int) -> str:
    over = f"{margin:.2f}x over the runner-up" if margin != float("inf") else "no runner-up scored"
    scored = counted(contenders, "agent")
    return f"routed to {printable(agent)} (score {score:.1f}, {over}, {scored} scored)"


def no_owner(path: str) -> str:
    return (
        f"kb ingest: no agent in this fleet owns what {printable(path)} is about, so there is "
        "nowhere to file it. Name one with --agent, or decide that this subject needs an "
        "agent. Nothing was moved."
    )


def unknown_agent(name: str) -> str:
    return f"kb ingest: no agent called '{printable(name)}'. `kb fleet` lists the ones that exist."


def dry_run(path: str, owner: str) -> str:
    return (
        f"dry run: {printable(path)} would be staged into {printable(owner)}/inbox and "
        "distilled there. Nothing moved."
    )


def short_copy(path: str, copied: int, size: int) -> str:
    return (
        f"could not move {printable(path)} into the deposit: copied {copied} bytes of {size}. "
        "Nothing was changed and the document is where it was."
    )


def private_source(path: str, base: str) -> str:
    return (
        f"kb ingest: {printable(path)} is in the private layer of {printable(base)}, where it "
        "really is (a link or another name does not change that), so it is not sent to a "
        "model or turned into public notes without --all. Nothing was moved or sent."
    )


KEPT_PRIVATE = "it is private: it stays where it is, and is never moved or removed"


def kept_private(written: int) -> str:
    return (
        f"{counted(written, 'note')} written. The private original is where it was; only the "
        "deposit made from it was removed."
    )


def gone(written: int) -> str:
    return (
        f"{counted(written, 'note')} written. The document is gone from this machine and what it "
        "said "
        "is in the base."
    )
