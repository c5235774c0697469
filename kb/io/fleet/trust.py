"""The facts `kb trust`'s rules need (kb.pure.fleet.trust), gathered, and approvals recorded.

For a fleet root: the repository it is in (kb.io.fleet.gitdir, no git process), the command
lines its fleet.txt names, the files each line names inside the repository (their bytes'
SHA-256, on disk and in HEAD), whether the repository has ever fetched, whether a merge or
rebase is in progress, and `.git/kb-trust`. HEAD's side is read with one
`git cat-file --batch`, and only for a command not approved yet: an approved command costs
a read of fleet.txt, of the files it names and of the approvals.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

from kb.io import clock
from kb.io.files.atomic import write_atomic
from kb.io.files.lockfile import LockBusy, locked, read_or_empty
from kb.io.fleet.gitdir import Repository, repository_of
from kb.io.notes.walk import read_text
from kb.pure.fleet import trust as rules
from kb.pure.fleet.trust import Command, Facts, Named, Verdict
from kb.pure.notes.manifest import parse_manifest

BUSY = (
    "MERGE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "SQUASH_MSG",
    "rebase-merge",
    "rebase-apply",
    "sequencer",
)
LOCK_WAIT_S = 2.0


@frozen
class Judged:
    command: Command
    digest: str
    verdict: Verdict


@frozen
class Fleet:
    root: Path
    repo: Repository | None
    rel: str  # the fleet root relative to the repository's top ("." for the top)
    judged: tuple[Judged, ...]

    @property
    def approvals(self) -> Path | None:
        return self.repo.common_dir / rules.TRUST_NAME if self.repo else None

    @property
    def awaiting(self) -> tuple[Judged, ...]:
        return tuple(j for j in self.judged if not j.verdict.runs)


def _content(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _sha(path: Path, link_target: bytes | None = None) -> str | None:
    """A named file's digest: its bytes' SHA-256; for a link, over the link's target text
    and the bytes it leads to, so neither can change unseen. `link_target` stands for the
    link's own text (HEAD's blob of a link is its target)."""
    if link_target is None and path.is_symlink():
        with contextlib.suppress(OSError):
            link_target = os.fsencode(os.readlink(path))
    if link_target is not None:
        led_to = _content(path) or b""
        return hashlib.sha256(b"link\0" + link_target + b"\0" + led_to).hexdigest()
    data = _content(path)
    return hashlib.sha256(data).hexdigest() if data is not None else None


def _named(words: Sequence[str], root: Path, top: Path) -> list[Path]:
    """The paths a command's words name inside the repository (relative to the fleet root,
    as kb.io.roles.model resolves a program, or absolute), judged by where they are written, not
    where a link leads: each a file, or a link."""
    out: list[Path] = []
    for word in words:
        if not word or (word.startswith("-") and "/" not in word):
            continue
        candidate = Path(os.path.normpath(word if os.path.isabs(word) else root / word))
        try:
            candidate.relative_to(top)
        except ValueError:
            continue
        if (candidate.is_symlink() or candidate.is_file()) and candidate not in out:
            out.append(candidate)
    return out


def _rel(path: Path, top: Path) -> str:
    return path.relative_to(top).as_posix()


def _fetched(repo: Repository) -> bool:
    for d in (repo.git_dir, repo.common_dir):
        if (d / "FETCH_HEAD").exists():
            return True
    config = read_or_empty(repo.common_dir / "config")
    if any(line.strip().startswith('[remote "') for line in config.split("\n")):
        return True
    remotes = repo.common_dir / "refs" / "remotes"
    with contextlib.suppress(OSError):
        if any(remotes.iterdir()):
            return True
    return " refs/remotes/" in read_or_empty(repo.common_dir / "packed-refs")


def _busy(repo: Repository) -> bool:
    return any((repo.git_dir / name).exists() for name in BUSY)


def _head_blobs(top: Path, rels: Sequence[str]) -> dict[str, bytes | None]:
    """Each path's bytes in HEAD (None when HEAD has no such file), in one git process."""
    if not rels:
        return {}
    query = "".join(f"HEAD:{r}\n" for r in rels).encode("utf-8", "surrogateescape")
    try:
        proc = subprocess.run(
            ["git", "-C", str(top), "cat-file", "--batch"],
            input=query,
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return {r: None for r in rels}
    out: dict[str, bytes | None] = {}
    data = proc.stdout
    at = 0
    for rel in rels:
        end = data.find(b"\n", at)
        if end < 0:
            out[rel] = None
            continue
        header = data[at:end].split(b" ")
        at = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            out[rel] = data[at : at + size]
            at += size + 1
        else:
            out[rel] = None
    return out


def _approved(repo: Repository | None) -> set[str]:
    if repo is None:
        return set()
    return rules.approved_digests(read_or_empty(repo.common_dir / rules.TRUST_NAME))


def examine(root: Path, record: bool = True) -> Fleet:
    """Every command fleet.txt at `root` names, judged (kb.pure.fleet.trust); the approvals the
    rules grant by themselves are recorded when `record` (every verb about to run one;
    `kb doctor` only looks)."""
    root = root.resolve()
    text = read_text(root / "fleet.txt")
    lines = rules.commands(parse_manifest(text)) if text is not None else []
    repo = repository_of(str(root))
    if repo is None:
        outside = rules.judge(Facts(False, False, False, False, False))
        return Fleet(root, None, ".", tuple(Judged(Command(r, x), "", outside) for r, x in lines))
    top = repo.top.resolve()
    rel = os.path.relpath(root, top).replace(os.sep, "/")
    approved = _approved(repo)
    fetched = _fetched(repo)
    busy = _busy(repo)
    found: list[tuple[str, str, list[Path]]] = [
        (role, line, _named(rules.words_of(line), root, top)) for role, line in lines
    ]
    disk: list[Command] = [
        Command(role, line, tuple(Named(_rel(p, top), _sha(p)) for p in named))
        for role, line, named in found
    ]
    digests = [rules.digest(c.line, c.files) for c in disk]
    pending = [i for i, d in enumerate(digests) if d not in approved]
    head: dict[str, bytes | None] = {}
    head_lines: set[str] = set()
    if pending and fetched:
        fleet_rel = f"{rel}/fleet.txt" if rel != "." else "fleet.txt"
        wanted = {fleet_rel, *(f.rel for i in pending for f in disk[i].files)}
        head = _head_blobs(top, sorted(wanted))
        head_text = (head.get(fleet_rel) or b"").decode("utf-8", "replace")
        head_lines = {line for _, line in rules.commands(parse_manifest(head_text))}
    judged: list[Judged] = []
    rows: list[tuple[str, str, str, str]] = []
    for i, c in enumerate(disk):
        own = False
        if i in pending and fetched:
            same_files = all(_as_in_head(top / f.rel, f, head.get(f.rel)) for f in c.files)
            own = c.line not in head_lines or not same_files
        verdict = rules.judge(Facts(True, fetched, busy, digests[i] in approved, own))
        judged.append(Judged(c, digests[i], verdict))
        if verdict.record:
            rows.append((digests[i], clock.today_utc(), rel, c.line))
    if record and rows:
        approve(repo, rows)
    return Fleet(root, repo, rel, tuple(judged))


def _as_in_head(path: Path, named: Named, blob: bytes | None) -> bool:
    """Whether a named file is on disk as HEAD holds it."""
    if blob is None:
        return named.sha256 is None
    if path.is_symlink():
        return _sha(path, link_target=blob) == named.sha256
    return hashlib.sha256(blob).hexdigest() == named.sha256


def approve(repo: Repository, rows: Sequence[tuple[str, str, str, str]]) -> bool:
    """Add approvals (digest, day, fleet root, line); False when they could not be written
    (a busy lock, a git directory kb may not write in): the verb still runs what it judged
    runnable, and the rules judge the same way next time."""
    path = repo.common_dir / rules.TRUST_NAME
    try:
        with locked(path.with_name(path.name + ".lock"), LOCK_WAIT_S):
            text = read_or_empty(path)
            updated = rules.with_approvals(text, rows)
            if updated != text:
                write_atomic(path, updated)
    except (LockBusy, OSError):
        return False
    return True


def approve_all(fleet: Fleet) -> list[Judged]:
    """`kb trust`: record every command of `fleet` not approved yet; those recorded."""
    if fleet.repo is None:
        return []
    todo = [j for j in fleet.judged if j.verdict.why != "approved" and j.digest]
    rows = [(j.digest, clock.today_utc(), fleet.rel, j.command.line) for j in todo]
    if rows and not approve(fleet.repo, rows):
        raise OSError(f"cannot write {fleet.approvals}")
    return todo


def refusal(command_line: str, root: Path) -> str | None:
    """Why the command `command_line` may not run for the fleet at `root` (one line), or
    None when it may. A line fleet.txt does not name (one from the environment) is the
    user's own."""
    fleet = examine(root)
    for j in fleet.judged:
        if j.command.line == command_line.strip() and not j.verdict.runs:
            return rules.refusal_line(j.command.role, j.command.line, j.verdict.why, str(root))
    return None


def note_own(paths: Sequence[str]) -> None:
    """Before `kb commit` commits `paths`: record the approval of every command that is the
    user's own edit in each fleet whose fleet.txt is at or above one of them, so committing
    an edit does not make it await approval (kb.pure.fleet.trust)."""
    roots: set[Path] = set()
    for given in paths:
        p = Path(given).absolute()
        repo = repository_of(str(p if p.is_dir() else p.parent))
        if repo is None:
            continue
        top = repo.top.resolve()
        here = (p if p.is_dir() else p.parent).resolve()
        while True:
            if (here / "fleet.txt").is_file():
                roots.add(here)
            if here == top or here.parent == here:
                break
            here = here.parent
    for root in sorted(roots):
        examine(root)
