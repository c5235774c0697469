"""Which model commands named in fleet.txt may run: the rules behind `kb trust` (issue 24,
F21). The facts (git's state, the files' bytes, the approvals on disk) are kb.io.fleet.trust's.

A fleet names a command for each model role (classifier, answerer, promoter, reviewer and
the reading room's chat: kb.pure.fleet.doctor.MODEL_ROLES). `kb boot` runs the classifier on
every message, with the user's rights. A command that arrived in a pull is a program
someone else chose, so:

- **What is approved** is a command: its line and the bytes of every file the line names
  inside the repository (the program, `python models/classify.py`'s script). The approval
  is a SHA-256 over the line and each named file's path and SHA-256, so a pull that changes
  the script a line names changes the command as surely as one that changes the line. A
  file the named script reads in turn is not covered: keep such helpers out of the
  repository, or name them on the line.
- **A fleet that cannot have been pulled runs its commands as its user's own**: one in no
  git work tree, or in a repository that has never fetched (no remote, no FETCH_HEAD). In a
  repository, what runs is recorded as approved, so adding a remote later changes nothing.
- **Otherwise a command runs only when approved.** `kb trust` approves (like direnv's
  `allow`, after showing what it approves), and kb approves by itself a command that is
  this machine's own edit: its line, or a file it names, differs in the working tree from
  HEAD. A pull leaves only committed content in the tree, so an uncommitted difference was
  written here; `kb commit` of fleet.txt or of a named file records its approval before
  committing, so an edit committed through kb stays approved. Nothing is approved by
  itself while a merge, rebase, cherry-pick, revert or squash is in progress: those leave
  other commits' content in the tree uncommitted.
- **Where**: one line per approval in the repository's common git directory,
  `.git/kb-trust`, which no push or pull carries: the digest, the day, the fleet root
  relative to the repository, the line. An approval never expires; a digest no fleet names
  any more is simply never asked for again. Nothing else of the fleet is approved: a new
  line, or a changed script, awaits approval again.
- A command that awaits approval is never run: every verb that would run it treats it as
  a model that did not answer, with a reason that says so, and `kb doctor` lists it.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence

from attrs import frozen

from kb.pure.fleet.doctor import MODEL_ROLES
from kb.pure.notes.manifest import Manifest
from kb.pure.notes.names import printable

TRUST_NAME = "kb-trust"
HEADER = (
    "# kb trust: the model commands this machine's user approved, by digest (docs/verbs/"
    "trust.md).\n# Kept in the git directory, so no push or pull carries it. Never commit it.\n"
)
# The start of every reason a command is not run for: verbs that explain it differently
# (`kb boot`'s briefing) look for it.
AWAITS = "awaits approval"


@frozen
class Named:
    """A file a command line names inside the repository, as one side holds it."""

    rel: str  # relative to the repository's top
    sha256: str | None  # None: that side has no such file


@frozen
class Command:
    role: str
    line: str
    files: tuple[Named, ...] = ()


def commands(manifest: Manifest) -> list[tuple[str, str]]:
    """Each role's command line in fleet.txt, in MODEL_ROLES order (the first line of a
    role is the one every verb runs)."""
    out: list[tuple[str, str]] = []
    for role in MODEL_ROLES:
        line = (manifest.first(role) or "").strip()
        if line:
            out.append((role, line))
    return out


def words_of(line: str) -> list[str]:
    """The words of a command line as kb.io.roles.model splits it; [] when it cannot be split (it
    then never runs, so nothing of it needs approving beyond the line)."""
    try:
        return shlex.split(line, comments=False, posix=True)
    except ValueError:
        return []


def digest(line: str, files: Iterable[Named]) -> str:
    import hashlib  # OpenSSL's import is paid only where a command is about to run

    h = hashlib.sha256()
    h.update(b"kb trust v1\n")
    h.update(line.encode("utf-8", "surrogateescape") + b"\n")
    for f in sorted(files, key=lambda f: f.rel):
        h.update(f"{f.rel}\0{f.sha256 or '-'}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


@frozen
class Facts:
    """What kb.io.fleet.trust found for one command."""

    in_repository: bool
    fetched: bool  # the repository has a remote, or has fetched (FETCH_HEAD)
    busy: bool  # a merge, rebase, cherry-pick, revert or squash is in progress
    approved: bool  # its digest is in the approvals
    own_edit: bool  # the line or a named file differs between the working tree and HEAD


@frozen
class Verdict:
    runs: bool
    record: bool  # record its approval (it runs as the user's own)
    why: str  # "no pull", "approved", "yours", or the reason it awaits approval


def judge(f: Facts) -> Verdict:
    """Whether the command runs, and whether its approval is recorded (module rules)."""
    if not f.in_repository:
        return Verdict(True, False, "no pull")
    if f.approved:
        return Verdict(True, False, "approved")
    if not f.fetched:
        return Verdict(True, True, "no pull")
    if f.own_edit and not f.busy:
        return Verdict(True, True, "yours")
    if f.busy:
        return Verdict(False, False, f"{AWAITS}: a merge or rebase is in progress")
    return Verdict(False, False, f"{AWAITS}: it came with a pull")


# -- the approvals file ---------------------------------------------------------------------


def approved_digests(text: str) -> set[str]:
    out: set[str] = set()
    for line in text.split("\n"):
        word = line.split(" ", 1)[0].strip()
        if len(word) == 64 and all(c in "0123456789abcdef" for c in word):
            out.add(word)
    return out


def with_approvals(text: str, rows: Sequence[tuple[str, str, str, str]]) -> str:
    """The approvals file with (digest, day, fleet root, line) rows added, once each."""
    have = approved_digests(text)
    body = text if text.startswith("#") else HEADER + text
    if body and not body.endswith("\n"):
        body += "\n"
    for d, day, root, line in rows:
        if d in have:
            continue
        have.add(d)
        body += f"{d} {day} {_flat(root) or '.'} {_flat(line)}\n"
    return body


def _flat(text: str) -> str:
    return " ".join(printable(text).split())


# -- what is said -----------------------------------------------------------------------------


def refusal_line(role: str, line: str, why: str, fleet: str) -> str:
    """The one line a verb gives for a command it does not run."""
    return (
        f"the {role} command in fleet.txt ({printable(line)}) {why}, and is not run until this "
        f"machine's user reads it and approves it: kb trust {printable(fleet)}"
    )


def shown(c: Command) -> str:
    """A command as `kb trust` shows it: the line, then each named file and its digest."""
    named = ", ".join(
        f"{printable(f.rel)} (sha256 {f.sha256[:16]})" if f.sha256 else f"{printable(f.rel)}"
        for f in c.files
    )
    return f"{c.role} = {printable(c.line)}" + (f"; runs {named}" if named else "")


# -- kb trust ---------------------------------------------------------------------------------

APPROVED = "approved"
APPROVED_NOW = "approved now"
AWAITING = "awaits approval"
YOURS = "runs as yours"


def state_of(v: Verdict) -> str:
    """How `kb trust --dry-run` names a judged command."""
    if v.why == "approved":
        return APPROVED
    return YOURS if v.runs else AWAITING


def trust_text(
    fleet: str, approvals: str | None, rows: Sequence[tuple[str, Command]], dry_run: bool
) -> str:
    """`kb trust`'s report: each command fleet.txt names, as (state, command)."""
    if approvals is None:
        return (
            f"nothing to approve: {printable(fleet)} is in no git repository, so nothing in it "
            "came with a pull; its model commands run as yours\n"
        )
    if not rows:
        return f"nothing to approve: {printable(fleet)}/fleet.txt names no model command\n"
    lines = [f"model commands of {printable(fleet)} (approvals in {printable(approvals)}):"]
    lines += [f"  {state:<16} {shown(c)}" for state, c in rows]
    if dry_run and any(state == AWAITING for state, _ in rows):
        shown_fleet = printable(fleet)
        lines.append(f"read each command and the files it runs, then: kb trust {shown_fleet}")
    return "\n".join(lines) + "\n"
