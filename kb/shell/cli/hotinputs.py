"""The input of `kb route`, kept apart from kb.shell.cli.inputs.

Each frozen attrs class costs about a millisecond to build at import, and kb.shell.cli.inputs
builds thirty: a verb parsed by kb.shell.cli.fastargs (route here, boot in kb.shell.cli.bootinputs,
list and fleet in kb.shell.cli.listinputs) builds only its own. kb.shell.cli.inputs re-exports
them all, so every other reader sees one module of inputs.
"""

from __future__ import annotations

from attrs import field, frozen

from kb.shell.cli.validators import _budget, _non_negative


@frozen
class RouteInput:
    question: str
    paths: tuple[str, ...] = ()
    top: int = field(default=5, validator=_non_negative)
    hybrid: bool = False  # kept for old scripts: the terminal always shows the fused list
    json: bool = False
    all: bool = False
    # `--context`: the served files as budgeted excerpts (kb.pure.answering.context). The budgets
    # are None when not given, so that giving one without --context can be refused.
    context: bool = False
    context_chars: int | None = field(default=None, validator=_budget)
    context_total: int | None = field(default=None, validator=_budget)
    # `--exit-code`: a `nothing` verdict exits 3 instead of 0, as `grep` exits 1 on no match.
    exit_code: bool = False
