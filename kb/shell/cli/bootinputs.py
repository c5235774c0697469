"""The input of `kb boot`, apart from kb.shell.cli.inputs (see kb.shell.cli.hotinputs for why)."""

from __future__ import annotations

from attrs import field, frozen

from kb.shell.cli.validators import _non_negative


@frozen
class BootInput:
    paths: tuple[str, ...] = ()
    top: int = field(default=5, validator=_non_negative)
    all: bool = False
    session: str | None = None
    cwd: str | None = None
    text: bool = False
