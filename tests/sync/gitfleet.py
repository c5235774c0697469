"""A fleet replicated through git on this machine, for the `kb sync` tests: a bare
repository as the remote and clones of it as machines, every kb call a real subprocess.

git runs with a fixed identity and no global or system configuration, so the tests see the
same git wherever they run and never touch the user's own settings.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

QUESTIONS = ("zorblax quintessence", "flibber wompus tangle", "gloam trundle spork")


def git_env(home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "gitconfig").touch()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KB_", "GIT_"))}
    env.update(
        {
            "GIT_AUTHOR_NAME": "kb test",
            "GIT_AUTHOR_EMAIL": "kb@test.invalid",
            "GIT_COMMITTER_NAME": "kb test",
            "GIT_COMMITTER_EMAIL": "kb@test.invalid",
            "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": str(home),
        }
    )
    return env


@frozen
class Ran:
    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str


def run(args: Sequence[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> Ran:
    proc = subprocess.run(
        list(args), cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=300
    )
    return Ran(tuple(args), proc.returncode, proc.stdout, proc.stderr)


def kb(args: Sequence[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> Ran:
    return run([sys.executable, "-m", "kb.shell.cli.main", *args], cwd, env, stdin)


def git(args: Sequence[str], cwd: Path, env: dict[str, str]) -> str:
    got = run(["git", *args], cwd, env)
    assert got.code == 0, (args, got.stderr)
    return got.stdout


def seeded_remote(
    root: Path, env: dict[str, str], agents: Sequence[str] = ("ada", "bruno")
) -> Path:
    """A bare repository holding one commit: a fleet of `agents` made by `kb init`."""
    remote = root / "remote.git"
    git(["init", "-q", "--bare", "-b", "main", str(remote)], root, env)
    seed = root / "seed"
    git(["clone", "-q", str(remote), str(seed)], root, env)
    git(["checkout", "-q", "-B", "main"], seed, env)
    for agent in agents:
        made = kb(["init", agent, "."], seed, env)
        assert made.code == 0, made.stderr
    (seed / "fleet.txt").write_text("name = sync test\n", encoding="utf-8")
    git(["add", "-A"], seed, env)
    git(["commit", "-q", "-m", "a fleet"], seed, env)
    git(["push", "-q", "-u", "origin", "main"], seed, env)
    return remote


def clone(remote: Path, where: Path, env: dict[str, str]) -> Path:
    git(["clone", "-q", str(remote), str(where)], where.parent, env)
    return where


def tracked(repo: Path, env: dict[str, str]) -> dict[str, bytes]:
    """Every tracked file's bytes as they are in the working tree."""
    names = [n for n in git(["ls-files", "-z"], repo, env).split("\0") if n]
    return {n: (repo / n).read_bytes() for n in names}


def conflict_lines(files: dict[str, bytes]) -> list[str]:
    out = []
    for name, data in files.items():
        for line in data.decode("utf-8", "replace").split("\n"):
            if line.startswith(("<<<<<<<", ">>>>>>>", "|||||||")):
                out.append(f"{name}: {line}")
    return out
