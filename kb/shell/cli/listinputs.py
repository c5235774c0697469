"""The inputs of `kb list` and `kb fleet`, apart from kb.shell.cli.inputs (see
kb.shell.cli.hotinputs for why)."""

from __future__ import annotations

from attrs import field, frozen


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
    # `--where key=value` (repeatable, AND) and `--sort FIELD`: kb.pure.fleet.where.
    where: tuple[str, ...] = field(default=(), kw_only=True)
    sort: str | None = field(default=None, kw_only=True)


@frozen
class FleetInput:
    paths: tuple[str, ...] = ()
    all: bool = False
    json: bool = False
