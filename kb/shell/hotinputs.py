"""Inputs of the hot verbs (`kb route`, `kb boot`), kept apart from kb.shell.inputs.

Each frozen attrs class costs about a millisecond to build at import; a verb that runs on
every prompt builds only its own. kb.shell.inputs re-exports these, so every other reader
sees one module of inputs.
"""

from __future__ import annotations

from attrs import field, frozen


def _non_negative(_inst: object, attribute: object, value: int) -> None:
    if value < 0:
        name = getattr(attribute, "name", "top")
        raise ValueError(f"--{name} takes a whole number of 0 or more, not {value}")


def _budget(_inst: object, attribute: object, value: int | None) -> None:
    if value is not None and value < 0:
        name = getattr(attribute, "name", "budget").replace("_", "-")
        raise ValueError(f"--{name} takes a number of bytes, 0 or more, not {value}")


@frozen
class RouteInput:
    question: str
    paths: tuple[str, ...] = ()
    top: int = field(default=5, validator=_non_negative)
    hybrid: bool = False
    json: bool = False
    all: bool = False
    # `--context`: the served files as budgeted excerpts (kb.pure.context). The budgets are
    # None when not given, so that giving one without --context can be refused.
    context: bool = False
    context_chars: int | None = field(default=None, validator=_budget)
    context_total: int | None = field(default=None, validator=_budget)
    # `--exit-code`: a `nothing` verdict exits 3 instead of 0, as `grep` exits 1 on no match.
    exit_code: bool = False


@frozen
class BootInput:
    paths: tuple[str, ...] = ()
    top: int = field(default=5, validator=_non_negative)
    all: bool = False
    session: str | None = None
    cwd: str | None = None
    text: bool = False
