"""What running a verb produces: text for each stream and an exit code. Nothing is printed
until the surface decides to print it."""

from __future__ import annotations

from collections.abc import Iterable

from attrs import field, frozen


@frozen
class Outcome:
    stdout: str = ""
    stderr: str = ""
    code: int = 0
    # The rest of stdout, made piece by piece as it is printed: a verb whose output grows
    # with the fleet (`kb list` wrote 9 MB of text or 19 MB of JSON at 100,000 notes) never
    # holds it whole. `kb.shell.cli.main.run` joins it for a caller that needs one string.
    rest: Iterable[str] = field(default=(), eq=False, repr=False)


# `kb route --exit-code` and `kb answer --exit-code`: the status of a `nothing` verdict, so a
# script can branch on it as on `grep`'s 1. Not 1: that is "the memory could not be opened".
# 0, 1 and 2 mean done, failed and usage error on every verb, so the next free code is 3.
NOTHING_EXIT = 3
