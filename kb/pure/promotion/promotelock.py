"""`kb promote --lock`: when the marker another run left may be taken over, and what is said
about it (workflow-verbs.md §10.1).

Rules of this module:
- The marker is `{root}/.kb-promote.lock`, holding `pid {pid}`. A run that holds it touches
  it before every deposit file and every proposal, so its age is the time since the holder
  last did anything, not since it started: a long run is never mistaken for a dead one.
- A marker last touched more than an hour ago (3,600 s, the original's figure) belongs to a
  run that died without releasing it (a kill -9, a machine that went down) and is taken
  over, saying whose it was. Anything younger declines the new run, which then reads and
  writes nothing and exits 0: a second sweep is not an error.
- Where the platform can tell that the holder is still alive (an advisory lock the kernel
  drops when the holder dies), a live holder is never taken over, whatever the age.
- And where it can tell that the holder is dead, its marker is taken over at once, whatever
  the age (issue 24, F20: after a kill -9 the next run was refused for up to an hour): the
  holder takes the advisory lock before it writes its pid, so a marker that names a pid,
  whose advisory lock is free, and whose pid is no process on this machine, was left by a
  run that died.
"""

from __future__ import annotations

import re

from kb.pure.notes.names import printable

LOCK_NAME = ".kb-promote.lock"
STALE_S = 3600.0
HOLDER_CHARS = 200  # the marker is ours, but anything can have been written into it


def is_stale(age_s: float) -> bool:
    return age_s > STALE_S


def marker_text(pid: int) -> str:
    return f"pid {pid}\n"


_PID = re.compile(r"^pid (\d{1,10})\s*$")


def holder_pid(content: str) -> int | None:
    """The pid a marker names (`pid {pid}`), or None when it names none."""
    m = _PID.match(content.strip())
    return int(m.group(1)) if m else None


def took_over_dead(content: str) -> str:
    holder = printable(" ".join(content.split())[:HOLDER_CHARS]) or "an unnamed process"
    return (
        f"kb promote: took over a lock left by {holder}, which is no longer running. A "
        "previous run died without releasing it."
    )


def busy(path: str, age_s: float | None) -> str:
    when = f" (last touched {int(age_s)}s ago)" if age_s is not None else ""
    return (
        f"kb promote: another promotion run holds {path}{when}. Nothing was read and nothing "
        "was written."
    )


def took_over(age_s: float, content: str) -> str:
    holder = printable(" ".join(content.split())[:HOLDER_CHARS]) or "an unnamed process"
    return (
        f"kb promote: took over a lock last touched {int(age_s // 60)} minutes ago, left by "
        f"{holder}. A previous run died without releasing it."
    )


def could_not_write(path: str, error: str) -> str:
    return f"kb promote: could not write {path}: {error}. Nothing was read and nothing was written."


def retake_failed(path: str, error: str) -> str:
    return (
        f"kb promote: {path} is a stale lock, and re-taking it failed: {error}. Nothing was "
        "read and nothing was written."
    )
