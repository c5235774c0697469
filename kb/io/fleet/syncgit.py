"""The git binary as `kb sync` runs it: one environment for every call, git's own reason in
one line when a call fails, and the few questions sync asks of refs.

Apart from kb.io.fleet.sync so that the sync's order of steps reads without the plumbing under it.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from kb.io.fleet.git import LOCK_BACKOFF_MS
from kb.pure.notes.names import printable


class SyncFailure(Exception):
    """One line for stderr (without `kb: `): the sync stopped, and nothing was lost."""


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # KB_COMMIT: a fleet's pre-commit hook refuses raw commits without it. No prompt: a
    # remote that wants a password is an unreachable remote here, not a hung sync.
    env = {**os.environ, "KB_COMMIT": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true"}
    # A crash point names a moment of this process (kb.io.files.atomic), not of the merge drivers
    # git starts for it: they would count the same labels on their own.
    env.pop("KB_CRASH_AT", None)
    for delay in (*LOCK_BACKOFF_MS, None):
        proc = subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            encoding="utf-8",
            errors="surrogateescape",
        )
        if proc.returncode == 0 or "index.lock" not in proc.stderr or delay is None:
            return proc
        time.sleep(delay / 1000)
    raise AssertionError("unreachable")


def last_line(proc: subprocess.CompletedProcess[str]) -> str:
    """git's own reason in one line: its first `fatal:` or `error:` line, else its last."""
    lines = [x.strip() for x in (proc.stderr or proc.stdout).splitlines() if x.strip()]
    said = [x for x in lines if not x.startswith("hint:")]
    fatal = next((x for x in said if x.startswith(("fatal:", "error:"))), None)
    detail = fatal.split(":", 1)[1].strip() if fatal else (said[-1] if said else "")
    return printable(detail) or f"git exited {proc.returncode}"


def stale_lock(proc: subprocess.CompletedProcess[str]) -> str | None:
    """The lock file git could not create, when that is why it failed (`Unable to create
    '<path>.lock': File exists`, also when the remote's git reports it). Another git may
    still be running there, or one was killed and left it: trying again cannot help then."""
    for line in (proc.stderr or "").splitlines():
        _, found, rest = line.partition("Unable to create '")
        path, quoted, after = rest.partition("'")
        if found and quoted and path.endswith(".lock") and "File exists" in after:
            return printable(path)
    return None


def git(repo: Path, *args: str) -> str:
    proc = run(repo, *args)
    if proc.returncode != 0:
        raise SyncFailure(f"git {args[0]} failed: {last_line(proc)}")
    return proc.stdout


def ref(repo: Path, ref: str) -> str | None:
    proc = run(repo, "rev-parse", "-q", "--verify", ref + "^{commit}")
    return proc.stdout.strip() if proc.returncode == 0 else None


def is_ancestor(repo: Path, older: str, newer: str) -> bool:
    return run(repo, "merge-base", "--is-ancestor", older, newer).returncode == 0
