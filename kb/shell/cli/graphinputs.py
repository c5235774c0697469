"""The inputs of `kb links` and `kb graph`, apart from kb.shell.cli.inputs (see
kb.shell.cli.hotinputs for why): both are parsed by kb.shell.cli.fastargs, since cyclopts
added 7.5 MB to a process that may hold 60 at 100,000 notes."""

from __future__ import annotations

from attrs import field, frozen

from kb.shell.cli.validators import _non_negative, _one_of

# Literal copies of kb.pure.writing.graph.DIRECTIONS and kb.pure.render.graphrender.FORMATS,
# so that a parse does not import the graph modules; a unit test holds them equal.
LINK_DIRECTIONS = ("out", "in", "both")
GRAPH_FORMATS = ("mermaid", "dot", "json")


@frozen
class LinksInput:
    note: str
    paths: tuple[str, ...] = ()
    direction: str = field(default="out", validator=_one_of(LINK_DIRECTIONS))
    depth: int = field(default=1, validator=_non_negative)
    limit: int = field(default=50, validator=_non_negative)
    json: bool = False
    all: bool = False


@frozen
class GraphInput:
    paths: tuple[str, ...] = ()
    format: str = field(default="mermaid", validator=_one_of(GRAPH_FORMATS))
    note: str | None = None
    key: str | None = None
    limit: int = field(default=50, validator=_non_negative)
    all: bool = False
