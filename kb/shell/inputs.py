"""Typed inputs of every verb: one frozen class per verb, the single source of its flags.

Field order is argument order: required text first, then the variadic `paths`, then the
flags (`--<field name>`). The CLI projects each class into cyclopts (and, for the hot
verbs, into a small exact parser with the same result); the MCP server will project the
same classes into tool schemas. Nothing here imports a parser.
"""

from __future__ import annotations

from attrs import field, frozen


def _non_negative(_inst: object, attribute: object, value: int) -> None:
    if value < 0:
        name = getattr(attribute, "name", "top")
        raise ValueError(f"--{name} takes a whole number of 0 or more, not {value}")


@frozen
class RouteInput:
    question: str
    paths: tuple[str, ...] = ()
    top: int = field(default=5, validator=_non_negative)
    hybrid: bool = False
    json: bool = False
    all: bool = False


@frozen
class IndexInput:
    paths: tuple[str, ...] = ()
    json: bool = False
    all: bool = False


@frozen
class ListInput:
    paths: tuple[str, ...] = ()
    base: str | None = None
    folder: str | None = None
    kind: str | None = None
    stage: str | None = None
    provenance: str | None = None
    json: bool = False
    all: bool = False


@frozen
class FleetInput:
    paths: tuple[str, ...] = ()
    all: bool = False


@frozen
class CommitInput:
    paths: tuple[str, ...] = ()
    message: str | None = None
