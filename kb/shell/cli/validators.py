"""Checks the verbs' input classes share (kb.shell.cli.inputs and the lean input modules)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _non_negative(_inst: object, attribute: object, value: int) -> None:
    if value < 0:
        name = getattr(attribute, "name", "top")
        raise ValueError(f"--{name} takes a whole number of 0 or more, not {value}")


def _budget(_inst: object, attribute: object, value: int | None) -> None:
    if value is not None and value < 0:
        name = getattr(attribute, "name", "budget").replace("_", "-")
        raise ValueError(f"--{name} takes a number of bytes, 0 or more, not {value}")


def _one_of(legal: tuple[str, ...]) -> Callable[[Any, Any, str], None]:
    def check(_inst: Any, attribute: Any, value: str) -> None:
        if value not in legal:
            name = getattr(attribute, "name", "value")
            raise ValueError(f"--{name} takes one of {', '.join(legal)}, not {value!r}")

    return check
