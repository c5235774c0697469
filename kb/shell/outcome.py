"""What running a verb produces: text for each stream and an exit code. Nothing is printed
until the surface decides to print it."""

from __future__ import annotations

from attrs import frozen


@frozen
class Outcome:
    stdout: str = ""
    stderr: str = ""
    code: int = 0
