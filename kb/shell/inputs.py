"""Typed inputs of every verb: one frozen class per verb, the single source of its flags.

The CLI projects each class's fields into positionals and flags (cyclopts reads the
annotations); the MCP server will project the same classes into tool schemas.
"""

from __future__ import annotations

from typing import Annotated

from attrs import field, frozen
from cyclopts import Parameter

Flag = Parameter(negative=())


def _non_negative(_inst: object, attribute: object, value: int) -> None:
    if value < 0:
        name = getattr(attribute, "name", "top")
        raise ValueError(f"--{name} takes a whole number of 0 or more, not {value}")


@frozen
class RouteInput:
    question: Annotated[str, Parameter(help="The question, in the words a person would use.")]
    paths: Annotated[tuple[str, ...], Parameter(help="Bases or fleet roots (default: .).")] = ()
    top: Annotated[int, Parameter(name="--top", help="How many files to return.")] = field(
        default=5, validator=_non_negative
    )
    hybrid: Annotated[
        bool, Parameter(name="--hybrid", negative=(), help="Show the fused list.")
    ] = False
    json: Annotated[bool, Parameter(name="--json", negative=(), help="One line of JSON.")] = False
    all: Annotated[
        bool, Parameter(name="--all", negative=(), help="Include the private layer.")
    ] = False


@frozen
class IndexInput:
    paths: Annotated[tuple[str, ...], Parameter(help="Bases or fleet roots (default: .).")] = ()
    json: Annotated[
        bool, Parameter(name="--json", negative=(), help="Print the keyword entries.")
    ] = False
    all: Annotated[
        bool, Parameter(name="--all", negative=(), help="Include the private layer.")
    ] = False


@frozen
class ListInput:
    paths: Annotated[tuple[str, ...], Parameter(help="Bases or fleet roots (default: .).")] = ()
    base: Annotated[str | None, Parameter(name="--base", help="Only this base.")] = None
    folder: Annotated[str | None, Parameter(name="--folder", help="Only under this folder.")] = None
    kind: Annotated[str | None, Parameter(name="--kind", help="memory, skills or tools.")] = None
    stage: Annotated[
        str | None, Parameter(name="--stage", help="raw, captured, distilled or derived.")
    ] = None
    provenance: Annotated[
        str | None, Parameter(name="--provenance", help="human, agent or external.")
    ] = None
    json: Annotated[bool, Parameter(name="--json", negative=(), help="One line of JSON.")] = False
    all: Annotated[
        bool, Parameter(name="--all", negative=(), help="Include the private layer.")
    ] = False


@frozen
class FleetInput:
    paths: Annotated[tuple[str, ...], Parameter(help="Bases or fleet roots (default: .).")] = ()
    all: Annotated[
        bool, Parameter(name="--all", negative=(), help="Include the private layer.")
    ] = False


@frozen
class NoInput:
    pass
