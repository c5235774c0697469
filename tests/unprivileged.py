"""Running a `kb` process as an ordinary user when the tests run as root (issue 25).

Root reads and writes through permission bits, so a test of what kb does with a folder it
may not write in means nothing as root. CI runs as root: `.ci/run` creates an unprivileged
user, makes the test environment readable to it, and names it in KB_TEST_USER; such a test
then runs its `kb` as that user (`setpriv`, util-linux). As an ordinary user the process
simply runs; as root with no such user the test skips and says why (tests/allowed-skips.txt
lists that reason: it never happens in CI).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.conftest import Result

NO_USER = "running as root without KB_TEST_USER: root ignores the permission this test sets"


def _user() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    name = os.environ.get("KB_TEST_USER")
    if not name:
        pytest.skip(NO_USER)
    return pwd.getpwnam(name)


def shared_copy(source: Path, tmp_path: Path) -> Path:
    """A copy of `source` the unprivileged user can reach (pytest's own temporary folder is
    root's alone), removed with `tmp_path`'s cleanup."""
    user = _user()
    if user is None:
        dst = tmp_path / source.name
        shutil.copytree(source, dst)
        return dst
    top = Path(tempfile.mkdtemp(prefix="kb-unprivileged-"))
    top.chmod(0o755)
    dst = top / source.name
    shutil.copytree(source, dst)
    for dirpath, _dirs, _files in os.walk(top):
        os.chown(dirpath, user.pw_uid, user.pw_gid)
        for name in _files:
            os.chown(os.path.join(dirpath, name), user.pw_uid, user.pw_gid)
    (tmp_path / "unprivileged-copy").write_text(str(top), encoding="utf-8")
    return dst


def kb(args: Sequence[str], cwd: Path) -> Result:
    """Run `kb args` in `cwd`, as the unprivileged user when running as root."""
    user = _user()
    prefix: list[str] = []
    if user is not None:
        prefix = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["HOME"] = str(cwd)
    proc = subprocess.run(
        [*prefix, sys.executable, "-m", "kb.shell.cli.main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return Result(proc)
