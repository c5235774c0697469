"""A count and its noun in agreement: `1 file`, `2 files`, never `1 files` or `file(s)`.

Every count a person reads goes through `counted`; JSON carries bare numbers and needs none.
"""

from __future__ import annotations


def counted(n: int, one: str, many: str | None = None) -> str:
    """`n` and the noun it counts; `many` defaults to `one` + "s" (give it for `entries`)."""
    return f"{n} {one if n == 1 else (many if many is not None else one + 's')}"
