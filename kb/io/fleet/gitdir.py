"""Which git repository a folder is in, found without running git.

kb keeps two things of its own in a repository's git directory, which no push or pull ever
carries: the key that marks the indexes this machine wrote (kb.io.notes.indexowner) and the
model commands its user approved (kb.io.fleet.trust). Both are looked up on paths every verb
opens, so the repository is found the way git finds it, in Python, and remembered for the
process:

- From the folder upwards, the first `.git` that is a folder is the git directory; a `.git`
  file (`gitdir: <path>`, a linked worktree or a submodule) names it. The search stops at
  the file-system root and, as git's does by default, at a mount boundary.
- A linked worktree's git directory names the repository's common one in `commondir`;
  kb's files live in the common one, so every worktree of a repository shares them.
- GIT_DIR and GIT_WORK_TREE are not read: kb's files belong to the repository on disk.
"""

from __future__ import annotations

import functools
import os
import stat
from pathlib import Path

from attrs import frozen


@frozen
class Repository:
    top: Path  # the work tree's top folder
    git_dir: Path  # this work tree's git directory
    common_dir: Path  # where refs, config and kb's files live


def _gitdir_file(dot_git: Path) -> Path | None:
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    first = text.split("\n", 1)[0].strip()
    if not first.startswith("gitdir:"):
        return None
    target = Path(first[len("gitdir:") :].strip())
    return target if target.is_absolute() else (dot_git.parent / target).resolve()


def _common(git_dir: Path) -> Path:
    try:
        named = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    common = Path(named)
    return common if common.is_absolute() else (git_dir / common).resolve()


@functools.lru_cache(maxsize=256)
def repository_of(folder: str) -> Repository | None:
    """The repository whose work tree holds `folder` (module rules), or None."""
    try:
        here = Path(folder).resolve()
        device = os.stat(here).st_dev
    except OSError:
        return None
    while True:
        dot_git = here / ".git"
        try:
            st = os.lstat(dot_git)
        except OSError:
            st = None
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                return Repository(here, dot_git, _common(dot_git))
            if stat.S_ISREG(st.st_mode):
                git_dir = _gitdir_file(dot_git)
                if git_dir is not None and git_dir.is_dir():
                    return Repository(here, git_dir, _common(git_dir))
        parent = here.parent
        if parent == here:
            return None
        try:
            if os.stat(parent).st_dev != device:
                return None
        except OSError:
            return None
        here = parent
