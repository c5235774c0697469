"""The private temp folders a watched `kb serve` writes its cookies in, and their clean-up.

A long-lived reader (`kb serve`, a library `LiveMemory` with `watch=True`) proves its watcher
has caught up by writing a cookie into a folder of its own under the temp folder. The folder
is removed when the reader closes; a reader killed outright (SIGKILL, a host that gives up
on it) cannot remove it, and each such end left one `kb-serve-*` folder behind for good (36
after one day of this project's test runs). So each folder's name carries its owner's
process id, and every new one first removes those whose owner is gone.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile

PREFIX = "kb-serve-"


def new_cookie_dir() -> str:
    """A new private folder (mode 0700) for this process's cookies, after removing the
    folders of readers that died without removing theirs."""
    where = tempfile.gettempdir()
    reap_orphans(where)
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=where)


def owner_pid(name: str) -> int | None:
    """The process id a cookie folder's name carries, or None for any other name (older
    folders without one are left alone: nothing says whose they are)."""
    if not name.startswith(PREFIX):
        return None
    pid, dash, rest = name[len(PREFIX) :].partition("-")
    if not (dash and rest and pid.isdigit()):
        return None
    return int(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a process of another user holds that number: not ours to judge
    return True


def reap_orphans(where: str) -> list[str]:
    """Remove every cookie folder in `where` that this user owns and whose process is gone;
    the names removed. Only folders are touched, never a link, and never a live process's
    (a number reused by another process keeps its folder: a leak, never a loss)."""
    removed: list[str] = []
    try:
        entries = list(os.scandir(where))
    except OSError:
        return removed
    me = os.geteuid()
    for entry in entries:
        pid = owner_pid(entry.name)
        if pid is None or pid == os.getpid():
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != me or _alive(pid):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(entry.name)
    return removed
