"""What running a verb produces: text for each stream and an exit code. Nothing is printed
until the surface decides to print it."""

from __future__ import annotations

from attrs import frozen


@frozen
class Outcome:
    stdout: str = ""
    stderr: str = ""
    code: int = 0


# `kb route --exit-code` and `kb answer --exit-code`: the status of a `nothing` verdict, so a
# script can branch on it as on `grep`'s 1. Not 1: that is "the memory could not be opened".
# 0, 1 and 2 mean done, failed and usage error on every verb, so the next free code is 3.
NOTHING_EXIT = 3
