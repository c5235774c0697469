"""Typed inputs of every verb: one frozen class per verb, the single source of its flags.

Field order is argument order: required text first, then the variadic `paths`, then the
flags (`--<field name>`). The CLI projects each class into cyclopts (and, for the hot
verbs, into a small exact parser with the same result); the MCP server will project the
same classes into tool schemas. Nothing here imports a parser.
"""

from __future__ import annotations

from attrs import field, frozen

# The inputs of the verbs kb.shell.cli.fastargs parses live apart, so `kb route`, `kb boot`,
# `kb list` and `kb fleet` each build their own class, not thirty.
from kb.shell.cli.bootinputs import BootInput as BootInput
from kb.shell.cli.graphinputs import GRAPH_FORMATS as GRAPH_FORMATS
from kb.shell.cli.graphinputs import LINK_DIRECTIONS as LINK_DIRECTIONS
from kb.shell.cli.graphinputs import GraphInput as GraphInput
from kb.shell.cli.graphinputs import LinksInput as LinksInput
from kb.shell.cli.hotinputs import RouteInput as RouteInput
from kb.shell.cli.listinputs import FleetInput as FleetInput
from kb.shell.cli.listinputs import ListInput as ListInput
from kb.shell.cli.validators import _budget as _budget
from kb.shell.cli.validators import _non_negative


def _port(_inst: object, _attribute: object, value: int) -> None:
    if not 0 <= value <= 65535:
        raise ValueError(f"--port takes a TCP port from 0 to 65535, not {value}")


def _seconds(_inst: object, attribute: object, value: float | None) -> None:
    if value is not None and not (0 < value < float("inf")):
        name = getattr(attribute, "name", "seconds").replace("_", "-")
        raise ValueError(f"--{name} takes a number of seconds greater than 0, not {value}")


@frozen
class AnswerInput:
    """`kb answer <question> [path]... [--top N] [--all] [--expanded | --complete]
    [--model-timeout S] [--json] [--exit-code]`: `--complete` wins over `--expanded`; the
    timeout defaults to KB_MODEL_TIMEOUT, else 300 s."""

    question: str
    paths: tuple[str, ...] = ()
    top: int = field(default=5, validator=_non_negative)
    all: bool = False
    expanded: bool = False
    complete: bool = False
    model_timeout: float | None = field(default=None, validator=_seconds)
    json: bool = False
    exit_code: bool = False  # a refusal exits 3 instead of 0 (kb route's --exit-code)


@frozen
class IndexInput:
    paths: tuple[str, ...] = ()
    json: bool = False  # the indexing summary as JSON
    all: bool = False
    entries: bool = False  # index nothing: the keyword entries as JSON (what --json once was)


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
    http: bool = False
    port: int = field(default=4115, validator=_port)


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
    json: bool = False


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
    title: str | None = None
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
    classify: bool = False
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


@frozen
class MisrouteInput:
    """`kb misroute <message> --chose <agent> --owner <agent|none> [--why <text>] [path]`.

    The message is optional here so that a missing one gets its own line and exit 2 from the
    run function, after the missing-flag check, in the spec's order. Flags are keyword-only,
    so a stray third positional is refused instead of landing in a field.
    """

    message: str | None = None
    path: str = "."
    chose: str | None = field(default=None, kw_only=True)
    owner: str | None = field(default=None, kw_only=True)
    why: str | None = field(default=None, kw_only=True)


@frozen
class MisroutesInput:
    path: str = "."
    top: int = field(default=5, validator=_non_negative, kw_only=True)


@frozen
class AbstentionsInput:
    path: str = "."
    top: int = field(default=5, validator=_non_negative, kw_only=True)
    all: bool = field(default=False, kw_only=True)


@frozen
class BlocksInput:
    path: str = "."
    emit: bool = False


@frozen
class CaptureInput:
    """`kb capture [path] [--session ID] [--conclusion <text>]`."""

    path: str | None = None
    session: str | None = field(default=None, kw_only=True)
    conclusion: str | None = field(default=None, kw_only=True)


@frozen
class HandoffInput:
    """`kb handoff save|claim|complete|show ...` and `kb handoff [path]`: `action` is the
    word after `handoff` when it is one of those, and otherwise the fleet root (the run
    function tells them apart); `paths` holds the agent and the root that follow it.
    `--claim <agent>` and `--complete` are the original's flag spellings of the actions."""

    action: str | None = None
    paths: tuple[str, ...] = ()
    task: str | None = field(default=None, kw_only=True)
    decision: tuple[str, ...] = field(default=(), kw_only=True)
    blocker: tuple[str, ...] = field(default=(), kw_only=True)
    next: tuple[str, ...] = field(default=(), kw_only=True)
    ref: tuple[str, ...] = field(default=(), kw_only=True)
    reference: tuple[str, ...] = field(default=(), kw_only=True)
    session: str | None = field(default=None, kw_only=True)
    claim: str | None = field(default=None, kw_only=True)
    complete: bool = field(default=False, kw_only=True)
    show: bool = field(default=False, kw_only=True)
    json: bool = field(default=False, kw_only=True)


def _ui_port(_inst: object, _attribute: object, value: int) -> None:
    # 0 ("any free port") is refused too: the address printed at start must be the real one.
    if not 1 <= value <= 65535:
        raise ValueError(f"--port takes a port number from 1 to 65535, not {value}")


@frozen
class UiInput:
    # No flag names an address: the reading room binds 127.0.0.1 and nothing else.
    paths: tuple[str, ...] = ()
    port: int = field(default=4114, validator=_ui_port)
    all: bool = False


# A literal copy of kb.pure.roles.panel.MAX_REVIEWERS, so that parsing does not import the panel's
# modules; tests/properties/test_panel_properties.py holds the two equal.
PANEL_MAX_REVIEWERS = 3


def _panel_size(_inst: object, _attribute: object, value: tuple[str, ...]) -> None:
    # The names as the ledger keys them (kb.pure.roles.panel.name_of): flattened, lower-cased.
    flat = (v.replace("\t", " ").replace("\r", " ").replace("\n", " ").strip() for v in value)
    names = list(dict.fromkeys(n.lower() for n in flat if n))
    if len(names) > PANEL_MAX_REVIEWERS:
        raise ValueError(
            f"--reviewer names at most {PANEL_MAX_REVIEWERS} agents, not {len(names)} "
            f"({', '.join(names)}): a panel seats at most three reviewers, and each one past "
            "three costs a whole constitution and adds less. Keep the three whose domains the "
            "piece claims most."
        )


@frozen
class PanelInput:
    """`kb panel` in its four forms (open, record with --from, --resolve, --ledger), told
    apart by the run function in the spec's order: --ledger, --resolve, --from, else open.
    `artifact` is optional so that each form words its own refusal; the fleet root is the
    second positional. Flags are keyword-only, so a third positional is refused."""

    artifact: str | None = None
    path: str = "."
    owner: str | None = field(default=None, kw_only=True)
    reviewer: tuple[str, ...] = field(default=(), kw_only=True, validator=_panel_size)
    out: str | None = field(default=None, kw_only=True)
    json: bool = field(default=False, kw_only=True)
    from_: str | None = field(default=None, kw_only=True)  # `--from`
    objection: str | None = field(default=None, kw_only=True)
    blocking: bool = field(default=False, kw_only=True)
    nothing: bool = field(default=False, kw_only=True)
    not_returned: bool = field(default=False, kw_only=True)
    why: str | None = field(default=None, kw_only=True)
    # Text, not a number: a bad value gets the spec's own line, which names the --ledger.
    resolve: str | None = field(default=None, kw_only=True)
    taken: bool = field(default=False, kw_only=True)
    refused: bool = field(default=False, kw_only=True)
    escalated: bool = field(default=False, kw_only=True)
    ledger: bool = field(default=False, kw_only=True)


def _cap(_inst: object, _attribute: object, value: int | None) -> None:
    if value is not None and value < 0:
        raise ValueError(f"--max takes a whole number of 0 or more, not {value}")


@frozen
class PromoteInput:
    """`kb promote [path]... [--top N] [--all] [--dry-run] [--max N] [--lock]`."""

    paths: tuple[str, ...] = ()
    top: int = field(default=5, validator=_non_negative)
    all: bool = False
    dry_run: bool = False
    max: int | None = field(default=None, validator=_cap)
    lock: bool = False


@frozen
class RejectionsInput:
    """`kb rejections [path]... [--top N] [--agent A] [--lens L] [--json]`."""

    paths: tuple[str, ...] = ()
    top: int = field(default=5, validator=_non_negative)
    agent: str | None = None
    lens: str | None = None
    json: bool = False


@frozen
class IngestInput:
    """`kb ingest <file> [path]... [--agent NAME] [--keep] [--dry-run] [--top N] [--all]`.
    The file is optional here so that a missing one gets the verb's own line (no usage)."""

    file: str | None = None
    paths: tuple[str, ...] = ()
    agent: str | None = None
    keep: bool = False
    dry_run: bool = False
    top: int = field(default=5, validator=_non_negative)
    all: bool = False


@frozen
class ConsolidateInput:
    """`kb consolidate <agent> [path] [--sessions N] [--top N] [--dry-run] [--json]`."""

    agent: str
    path: str = "."
    sessions: int = field(default=5, validator=_non_negative, kw_only=True)
    top: int = field(default=5, validator=_non_negative, kw_only=True)
    dry_run: bool = field(default=False, kw_only=True)
    json: bool = field(default=False, kw_only=True)


@frozen
class DoctorInput:
    """`kb doctor [fleet] [--settings FILE] [--all]`: without --settings, the first
    `.claude/settings.json` (and `settings.local.json` beside it) from here upward."""

    path: str = "."
    settings: str | None = field(default=None, kw_only=True)
    all: bool = field(default=False, kw_only=True)


@frozen
class MergeDriverInput:
    """`kb merge-driver <kind> <base> <ours> <theirs> [path]`: what git passes a merge
    driver (%O %A %B %P). The kind is checked by the run function, which names the legal
    ones."""

    kind: str
    base: str
    ours: str
    theirs: str
    path: str | None = None


@frozen
class TrustInput:
    """`kb trust [fleet] [--dry-run]`: approve the model commands fleet.txt names."""

    path: str = "."
    dry_run: bool = field(default=False, kw_only=True)


@frozen
class DaemonInput:
    """`kb daemon start|stop|status [fleet-root] [--json]`: the fleet's resident kb."""

    action: str
    path: str = "."
    json: bool = field(default=False, kw_only=True)


@frozen
class SyncInput:
    """`kb sync [fleet] [--remote R] [--all]`. Flags are keyword-only, so a stray second
    positional is refused instead of becoming the remote."""

    fleet: str = "."
    remote: str | None = field(default=None, kw_only=True)
    all: bool = field(default=False, kw_only=True)
