"""`kb commit` through the real git binary: commit exactly the named paths, then prove it.

Every git call runs with KB_COMMIT=1 (a fleet's pre-commit hook may refuse raw commits
without it). A failure that mentions index.lock is another git process mid-commit, so it
is retried with backoff for about three seconds before giving up.

Before committing, the model commands of every fleet.txt at or above a committed path that
are this user's own uncommitted edit are approved (kb.io.fleet.trust), so committing them does
not make them await approval as if they had come with a pull.

The commit runs under the repository's tree lock (`.git/kb-tree.lock`, kb.io.files.lockfile), the
lock `kb sync` holds while it commits kb's own files and rebases: a commit made in the middle
of a rebase would land on a detached HEAD the rebase then moves away from.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from kb.io.files.lockfile import LockBusy, locked
from kb.pure.fleet.commitplan import dirty_paths, left_alone, report, unasked
from kb.pure.notes.plural import counted

LOCK_BACKOFF_MS = (100, 200, 400, 800, 1600, 1600)  # ~3.1 s: longer than a commit takes
TREE_LOCK_NAME = "kb-tree.lock"
# `kb sync` holds the tree lock while it folds its logs, commits them and rebases, all on
# this machine: measured under 2 s on a loaded 2-core box; a minute is generous.
TREE_LOCK_WAIT_S = 60.0


class CommitError(Exception):
    pass


def _git(repo: str, *args: str) -> str:
    env = {**os.environ, "KB_COMMIT": "1"}
    for delay in (*LOCK_BACKOFF_MS, None):
        proc = subprocess.run(
            ["git", "-C", repo, *args], capture_output=True, text=True, env=env, check=False
        )
        if proc.returncode == 0:
            return proc.stdout
        if "index.lock" in proc.stderr and delay is not None:
            time.sleep(delay / 1000)
            continue
        if "index.lock" in proc.stderr:
            raise CommitError(
                "another git process held the index for longer than the retry window. It is "
                "probably another session committing right now: try again"
            )
        raise CommitError(f"git refused: {proc.stderr.strip()}")
    raise AssertionError("unreachable")


def _repo_of(path: str) -> str:
    p = Path(path)
    start = p if p.is_dir() else p.parent
    while str(start) not in ("", ".") and not start.exists():
        start = start.parent
    directory = str(start) or "."
    try:
        return _git(directory, "rev-parse", "--show-toplevel").strip()
    except (CommitError, OSError) as e:
        raise CommitError(f"{path} is not inside a git repository") from e


def _relative(path: str, repo: str) -> str:
    p = Path(path)
    try:
        full = p.resolve(strict=True)
    except OSError:
        try:
            full = p.parent.resolve(strict=True) / p.name
        except OSError:
            return path.replace("\\", "/")
    try:
        return full.relative_to(Path(repo).resolve()).as_posix()
    except ValueError:
        return path.replace("\\", "/")


NOTHING = "none of those paths has changes. Nothing was committed"


def commit(paths: Sequence[str], message: str | None) -> str:
    if not paths:
        raise CommitError(
            "commit needs the paths it should commit. There is deliberately no flag that "
            "means everything: another session's work is usually in this tree"
        )
    if message is None or not message.strip():
        raise CommitError("commit needs a message, with -m")
    repos = [_repo_of(p) for p in paths]
    for other in repos[1:]:
        if other != repos[0]:
            raise CommitError(
                f"those paths are in two different repositories, {repos[0]} and {other}. "
                "Commit them separately, so each message describes one repository's change"
            )
    repo = repos[0]
    rels = [_relative(p, repo) for p in paths]
    # An edit of fleet.txt's model commands committed here is this user's own: approved
    # before it is committed, after which nothing tells it from one that came with a pull.
    from kb.io.fleet.trust import note_own

    with contextlib.suppress(OSError):
        note_own(paths)
    lock = tree_lock(repo)
    try:
        with locked(lock, TREE_LOCK_WAIT_S):
            return _commit(repo, rels, message)
    except LockBusy as e:
        raise CommitError(
            f"a kb sync held this repository for longer than {int(TREE_LOCK_WAIT_S)} s "
            f"({lock}); try again once it has finished"
        ) from e


def tree_lock(repo: str) -> Path:
    """The lock `kb commit` and `kb sync` take before they change the index or HEAD."""
    return Path(_git(repo, "rev-parse", "--absolute-git-dir").strip()) / TREE_LOCK_NAME


def _commit(repo: str, rels: list[str], message: str) -> str:
    before = dirty_paths(_git(repo, "status", "--porcelain", "-z"))
    if not before:
        raise CommitError(NOTHING)
    _git(repo, "add", "--", *rels)
    if not _git(repo, "diff", "--cached", "--name-only", "--", *rels).strip():
        raise CommitError(NOTHING)
    _git(repo, "commit", "-q", "-m", message, "--", *rels)
    sha = _git(repo, "rev-parse", "--short", "HEAD").strip()
    landed = [
        line.strip() for line in _git(repo, "show", "--pretty=", "--name-only", "HEAD").splitlines()
    ]
    landed = [f for f in landed if f]
    extra = unasked(landed, rels)
    if extra:
        raise CommitError(
            f"the commit landed but it contains {counted(len(extra), 'path')} that "
            f"{'was' if len(extra) == 1 else 'were'} not asked for: "
            f"{', '.join(extra)}. Another session's work was swept in. This is not repaired "
            "automatically because undoing it rewrites history"
        )
    after = dirty_paths(_git(repo, "status", "--porcelain", "-z"))
    return report(sha, landed, left_alone(before, after))
