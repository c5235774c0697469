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


@frozen
class RememberInput:
    claim: str
    paths: tuple[str, ...] = ()
    all: bool = False
    json: bool = False


@frozen
class ServeInput:
    paths: tuple[str, ...] = ()
    top: int = field(default=5, validator=_non_negative)
    all: bool = False


@frozen
class SourceInput:
    """`kb source add [path] --type T ...`: `action` is the word after `source` (only `add`).

    Every flag is keyword-only, so a stray positional is refused instead of landing in a
    field (`kb source add base extra` would otherwise set the type to `extra`).
    """

    action: str
    path: str = "."
    type: str | None = field(default=None, kw_only=True)
    title: str | None = field(default=None, kw_only=True)
    retrieved_on: str | None = field(default=None, kw_only=True)
    retrieval_status: str | None = field(default=None, kw_only=True)
    author: tuple[str, ...] = field(default=(), kw_only=True)
    year: str | None = field(default=None, kw_only=True)
    container: str | None = field(default=None, kw_only=True)
    volume: str | None = field(default=None, kw_only=True)
    pages: str | None = field(default=None, kw_only=True)
    publisher: str | None = field(default=None, kw_only=True)
    url: str | None = field(default=None, kw_only=True)
    doi: str | None = field(default=None, kw_only=True)
    isbn: str | None = field(default=None, kw_only=True)
    lang: str | None = field(default=None, kw_only=True)
    replaces: str | None = field(default=None, kw_only=True)
    note: str | None = field(default=None, kw_only=True)


@frozen
class SourcesInput:
    paths: tuple[str, ...] = ()
    json: bool = False
    all: bool = False


@frozen
class CheckInput:
    paths: tuple[str, ...] = ()
    strict: bool = False
    all: bool = False


@frozen
class InitInput:
    # `kb init <name> [fleet-root]` and `kb init --person [fleet-root]`: the positionals mean
    # different things with and without --person, so the run function interprets them (with
    # --person, `name` holds the fleet root). `paths` takes the fleet root after a name.
    name: str | None = None
    paths: tuple[str, ...] = ()
    person: bool = False


@frozen
class WriteInput:
    # agent and slug are optional here so that a missing one gets the spec's own message and
    # exit 2 from the run function, not a parser error; `paths` holds the fleet root.
    agent: str | None = None
    slug: str | None = None
    paths: tuple[str, ...] = ()
    keys: str | None = None
    summary: str | None = None
    folder: str = "knowledge"
    captured_from: str | None = None
    provenance: str = "agent"
    stage: str = "derived"


@frozen
class EvalInput:
    gold: str
    paths: tuple[str, ...] = ()
    top: int = field(default=5, validator=_non_negative)
    all: bool = False
    triad: bool = False
    json: bool = False


@frozen
class MissesInput:
    paths: tuple[str, ...] = ()
    all: bool = False
    top: int = field(default=5, validator=_non_negative)
    json: bool = False
    apply: bool = False
    gold: str | None = None
