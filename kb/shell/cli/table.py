"""The command table: every verb declared once.

Each entry names the verb, its usage lines, its typed input class, the function that runs
it (as "module:function", imported only when that verb runs, so `kb route` never pays for
the modules of other verbs), and the line printed when its required positional is missing.
The CLI and the MCP server are projections of this table; a test asserts they cannot drift.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from attrs import frozen

from kb.shell.cli.outcome import Outcome
from kb.version import DOCS_WHERE

# The input classes that live outside kb.shell.cli.inputs (whose thirty classes cost ~35 ms to
# build), by module: the verbs kb.shell.cli.fastargs parses build only their own.
LEAN_INPUTS = {
    "RouteInput": "kb.shell.cli.hotinputs",
    "BootInput": "kb.shell.cli.bootinputs",
    "ListInput": "kb.shell.cli.listinputs",
    "FleetInput": "kb.shell.cli.listinputs",
    "LinksInput": "kb.shell.cli.graphinputs",
    "GraphInput": "kb.shell.cli.graphinputs",
}


@frozen
class Command:
    name: str
    usage: tuple[str, ...]
    input_name: str  # a class of kb.shell.cli.inputs, imported only when this verb runs
    run_ref: str  # "module:function"
    needs: str | None = None  # stderr line when the first required positional is missing
    summary: str = ""
    # Runs on every prompt (route, boot), is a quick look a person or script repeats (list,
    # fleet), or reads a whole fleet within 60 MB (links, graph: cyclopts is 7.5 MB of a
    # process): parsed by kb.shell.cli.fastargs when well-formed, its input in LEAN_INPUTS.
    hot: bool = False
    # Reads every note of a base or fleet (links, graph): the garbage collector stays on,
    # which a hot verb turns off (`kb graph` at 100,000 notes peaked 3-5 MB higher without it).
    reads_every_note: bool = False
    # A hook (`kb boot`): every outcome exits 0, usage errors included, because a failing
    # UserPromptSubmit hook blocks or decorates the user's message.
    hook: bool = False
    # Short spellings the usage line promises (`-m`), rewritten to the field's flag first.
    aliases: tuple[tuple[str, str], ...] = ()

    @property
    def input_type(self) -> type[Any]:
        module = LEAN_INPUTS.get(self.input_name, "kb.shell.cli.inputs")
        cls: type[Any] = getattr(importlib.import_module(module), self.input_name)
        return cls

    def run(self, value: Any) -> Outcome:
        module_name, _, func_name = self.run_ref.partition(":")
        func: Callable[[Any], Outcome] = getattr(importlib.import_module(module_name), func_name)
        return func(value)


COMMANDS: tuple[Command, ...] = (
    Command(
        "index",
        ("kb index [path]... [--json] [--all] [--entries]",),
        "IndexInput",
        "kb.shell.answering.readverbs:index",
        summary="Sync each base's text index and report what no question can reach.",
    ),
    Command(
        "list",
        (
            "kb list [path]... [--base B] [--folder F] [--kind K] [--stage S] [--provenance P]"
            " [--json] [--all]",
            "        [--where key=value]... [--sort FIELD]",
        ),
        "ListInput",
        "kb.shell.answering.readverbs:list_files",
        summary="List the files on disk by facet; a filter, never a ranking.",
        hot=True,
    ),
    Command(
        "route",
        (
            "kb route <question> [path]... [--top N] [--hybrid] [--json] [--all] [--exit-code]",
            "         [--context [--context-chars N] [--context-total N]]",
        ),
        "RouteInput",
        "kb.shell.answering.readverbs:route",
        needs="kb: route needs a question",
        summary="Rank the files that answer a question, with an honest verdict.",
        hot=True,
    ),
    Command(
        "fleet",
        ("kb fleet [path]... [--all] [--json]",),
        "FleetInput",
        "kb.shell.answering.readverbs:fleet",
        summary="Name the fleet and its agents, from the manifests, never the index.",
        hot=True,
    ),
)

COMMANDS += (
    Command(
        "commit",
        ("kb commit <path>... -m <message>",),
        "CommitInput",
        "kb.shell.fleet.commitverb:commit",
        summary="Commit exactly the named paths through git, and show what stayed dirty.",
        aliases=(("-m", "--message"),),
    ),
)

COMMANDS += (
    Command(
        "remember",
        ("kb remember <claim> [path]... [--all] [--json]",),
        "RememberInput",
        "kb.shell.answering.memoryverbs:remember",
        needs="kb: remember needs a claim",
        summary="Propose ADD, UPDATE or NOOP for a claim by its overlap with the base.",
    ),
)

COMMANDS += (
    Command(
        "serve",
        ("kb serve [path]... [--top N] [--all] [--http [--port N]]",),
        "ServeInput",
        "kb.shell.mcp.serveverb:serve",
        summary="Serve the memory over the Model Context Protocol, on stdio or loopback HTTP.",
    ),
)

COMMANDS += (
    Command(
        "source",
        (
            "kb source add [path] --type T --title X --retrieved-on DATE --retrieval-status S",
            "              [--author A]... [--year Y] [--container C] [--volume V] [--pages P]",
            "              [--publisher P] [--url U] [--doi D] [--isbn I] [--lang L]",
            "              [--replaces KEY] [--note N]",
        ),
        "SourceInput",
        "kb.shell.writing.sourceverbs:source",
        needs="kb: the only source verb is `add`",
        summary="Mint a source record under a fresh key and print its bibliography line.",
    ),
    Command(
        "sources",
        ("kb sources [path]... [--json] [--all]",),
        "SourcesInput",
        "kb.shell.writing.sourceverbs:sources",
        summary="List each base's source records, rendered or as CSL JSON, from disk.",
    ),
)

COMMANDS += (
    Command(
        "check",
        ("kb check [path]... [--strict] [--all] [--json]",),
        "CheckInput",
        "kb.shell.writing.checkverbs:check",
        summary="Report broken links, unreachable notes and citation faults; fixes nothing.",
    ),
)

COMMANDS += (
    Command(
        "init",
        ("kb init <name> [fleet-root]", "kb init --person [fleet-root]"),
        "InitInput",
        "kb.shell.writing.initwrite:init",
        # no `needs`: `kb init --person` has no positional at all and is complete; the run
        # function prints `kb: init needs a name for the agent` when a name is due.
        summary="Create an agent, or the person's base, from the skeleton, all or nothing.",
    ),
    Command(
        "write",
        (
            "kb write <agent> <slug> [fleet-root] --keys <a, b> --summary <line> [--title T]",
            "         [--folder F] [--provenance P] [--stage S] [--captured-from PATH]",
            "         (note body on stdin; the keys are written once, on the note's own",
            "         `Search for:` line, and the map entry is the link and the summary)",
        ),
        "WriteInput",
        "kb.shell.writing.initwrite:write",
        needs="kb: write needs an agent and a name for the note",
        summary="Write one note and list it in its base's map, as one act.",
    ),
)

COMMANDS += (
    Command(
        "eval",
        ("kb eval <gold.tsv> [path]... [--top N] [--all] [--classify] [--triad] [--json]",),
        "EvalInput",
        "kb.shell.fleet.evalverbs:evaluate",
        needs="kb: eval needs a gold file",
        summary="Grade files, agents and refusals against a gold file of questions.",
    ),
    Command(
        "misses",
        ("kb misses [path]... [--all] [--top N] [--json] [--apply --gold <tsv>]",),
        "MissesInput",
        "kb.shell.fleet.evalverbs:misses",
        summary="Read the miss log back with what today's index nearly caught.",
    ),
)

COMMANDS += (
    Command(
        "misroute",
        ("kb misroute <message> --chose <agent> --owner <agent|none> [--why <text>] [path]",),
        "MisrouteInput",
        "kb.shell.logs.logverbs:misroute",
        # no `needs`: a missing --chose/--owner is reported first, then a missing message,
        # each as its own line from the run function.
        summary="Record that the router handed a message to an agent that does not own it.",
        # `--owner -` means nobody, but the parser reads a bare `-` as an option; `none` is
        # the same owner, so the word is rewritten before parsing.
        aliases=(("-", "none"),),
    ),
    Command(
        "misroutes",
        ("kb misroutes [path] [--top N]",),
        "MisroutesInput",
        "kb.shell.logs.logverbs:misroutes",
        summary="Read the misroute log back, the most often filed fault first.",
    ),
    Command(
        "abstentions",
        ("kb abstentions [path] [--top N] [--all]",),
        "AbstentionsInput",
        "kb.shell.logs.logverbs:abstentions",
        summary="Read back the subjects no agent covers, with what each scores today.",
    ),
)

COMMANDS += (
    Command(
        "links",
        (
            "kb links <note> [path]... [--direction in|out|both] [--depth N] [--limit N] [--json]"
            " [--all]",
        ),
        "LinksInput",
        "kb.shell.writing.graphverbs:links",
        needs="kb: links needs a note (base/path, a path, or a file name)",
        summary="Walk a note's wikilinks and path links, a bounded number of hops.",
        hot=True,
        reads_every_note=True,
    ),
    Command(
        "graph",
        (
            "kb graph [path]... [--format mermaid|dot|json] [--note N] [--key K] [--limit N]"
            " [--all]",
        ),
        "GraphInput",
        "kb.shell.writing.graphverbs:graph",
        summary="Export the link graph and the shared-key graph as Mermaid, DOT or JSON.",
        hot=True,
        reads_every_note=True,
    ),
)

COMMANDS += (
    Command(
        "blocks",
        ("kb blocks [path] [--emit]",),
        "BlocksInput",
        "kb.shell.sessions.bootverbs:blocks",
        summary="Price an agent's constitution by block, or print it as the model gets it.",
    ),
    Command(
        "boot",
        ("kb boot [path]... [--top N] [--all] [--session ID] [--cwd DIR] [--text]",),
        "BootInput",
        "kb.shell.sessions.bootverbs:boot",
        summary="Route one message before the model sees it (a UserPromptSubmit hook).",
        hot=True,
        hook=True,
    ),
)

COMMANDS += (
    Command(
        "handoff",
        (
            "kb handoff save <agent> --task <task> [--decision <d>]... [--blocker <b>]...",
            "                [--next <n>]... [--ref <r>]... [--session ID] [path]",
            "kb handoff claim <agent> [--session ID] [path]",
            "kb handoff complete [--session ID] [path]",
            "kb handoff [path] [--session ID] [--show] [--json]",
        ),
        "HandoffInput",
        "kb.shell.sessions.sessionverbs:handoff",
        # no `needs`: `kb handoff` alone shows the latest record; the run function words the
        # refusals of `save` and `claim` without their agent.
        summary="Save, claim, complete or read back the baton one session hands the next.",
    ),
    Command(
        "capture",
        ("kb capture [path] [--session ID] [--conclusion <text>]",),
        "CaptureInput",
        "kb.shell.sessions.sessionverbs:capture",
        summary="Turn a session's record into one raw deposit in the routed agent's inbox/.",
    ),
)

COMMANDS += (
    Command(
        "ui",
        ("kb ui [path]... [--port N] [--all]",),
        "UiInput",
        "kb.shell.ui.uiverb:ui",
        summary="Serve the reading room, a local page over the same memory, on 127.0.0.1.",
    ),
)

COMMANDS += (
    Command(
        "answer",
        (
            "kb answer <question> [path]... [--top N] [--all] [--expanded | --complete]",
            "          [--model-timeout S] [--json] [--exit-code]",
        ),
        "AnswerInput",
        "kb.shell.answering.answerverb:answer",
        needs="kb: answer needs a question",
        summary="Have the fleet's answerer model write up what retrieval found, with citations.",
    ),
)

COMMANDS += (
    Command(
        "panel",
        (
            "kb panel <artifact> [path] --owner <agent> [--reviewer <agent>]... [--out D] [--json]",
            "kb panel <artifact> [path] --from <agent> (--objection <text> [--blocking]",
            "                                          | --nothing | --not-returned)"
            " [--why <text>]",
            "kb panel <artifact> [path] --resolve <n> (--taken | --refused | --escalated)"
            " [--why <text>]",
            "                                         [--from <agent>]",
            "kb panel [<artifact>] [path] --ledger [--json]",
        ),
        "PanelInput",
        "kb.shell.roles.panelverbs:panel",
        # no `needs`: `kb panel --ledger` takes no artifact, and each form words its own line
        # when one is due.
        summary="Open an objection round on one artifact, price it, and keep its ledger.",
    ),
)

COMMANDS += (
    Command(
        "promote",
        ("kb promote [path]... [--top N] [--all] [--dry-run] [--max N] [--lock]",),
        "PromoteInput",
        "kb.shell.promotion.promoteverbs:promote",
        summary="Offer each inbox to the promoter; write only what three reviews accept.",
    ),
    Command(
        "rejections",
        ("kb rejections [path]... [--top N] [--agent A] [--lens L] [--json]",),
        "RejectionsInput",
        "kb.shell.promotion.promoteverbs:rejections_verb",
        summary="Read kb-rejections.txt back: what the reviewer refused, most refused first.",
    ),
    Command(
        "ingest",
        ("kb ingest <file> [path]... [--agent NAME] [--keep] [--dry-run] [--top N] [--all]",),
        "IngestInput",
        "kb.shell.roles.ingestverb:ingest",
        # no `needs`: a missing file gets the verb's own one line, without the usage text.
        summary="Stage one document in its owner's inbox and distil it through promote.",
    ),
    Command(
        "consolidate",
        ("kb consolidate <agent> [path] [--sessions N] [--top N] [--dry-run] [--json]",),
        "ConsolidateInput",
        "kb.shell.roles.consolidateverb:consolidate",
        needs="kb: consolidate needs an agent name",
        summary="Propose what recurs across an agent's sessions, cited, through the reviewer.",
    ),
)

COMMANDS += (
    Command(
        "doctor",
        ("kb doctor [fleet] [--settings FILE] [--all]",),
        "DoctorInput",
        "kb.shell.fleet.doctorverb:doctor",
        summary="Check a setup: the fleet, its indexes, model commands, hooks and MCP config.",
    ),
    Command(
        "sync",
        ("kb sync [fleet] [--remote R] [--all]",),
        "SyncInput",
        "kb.shell.fleet.syncverbs:sync",
        summary="Commit kb's own files, rebase onto the remote, push, re-index what changed.",
    ),
    Command(
        "trust",
        ("kb trust [fleet] [--dry-run]",),
        "TrustInput",
        "kb.shell.fleet.trustverb:trust",
        summary="Approve fleet.txt's model commands here; none that came with a pull runs before.",
    ),
    Command(
        "merge-driver",
        ("kb merge-driver <map|misses|log> <base> <ours> <theirs> [path]",),
        "MergeDriverInput",
        "kb.shell.fleet.syncverbs:merge_driver",
        needs="kb: merge-driver needs a kind (map, misses or log) and the files git passes:"
        " %O %A %B",
        summary="Merge one of kb's own files for git (run by git, set up by kb sync).",
    ),
)

COMMANDS += (
    Command(
        "daemon",
        ("kb daemon start|stop|status [fleet-root] [--json]",),
        "DaemonInput",
        "kb.shell.daemon:daemon",
        needs="kb: daemon needs an action: start, stop or status",
        summary="Start, stop or ask after the fleet's resident kb, which answers hooks warm.",
    ),
)

BY_NAME: dict[str, Command] = {c.name: c for c in COMMANDS}


# The order of the original's usage block, which readers of its docs know by heart.
USAGE_ORDER = (
    "check",
    "index",
    "list",
    "route",
    "answer",
    "remember",
    "init",
    "write",
    "source",
    "sources",
    "fleet",
    "blocks",
    "eval",
    "commit",
    "boot",
    "ingest",
    "promote",
    "consolidate",
    "handoff",
    "ui",
    "capture",
    "serve",
    "daemon",
    "misses",
    "misroute",
    "misroutes",
    "abstentions",
    "panel",
    "rejections",
    "links",
    "graph",
    "sync",
    "trust",
    "merge-driver",
)


def _in_usage_order() -> list[Command]:
    rank = {name: i for i, name in enumerate(USAGE_ORDER)}
    return sorted(COMMANDS, key=lambda c: rank.get(c.name, len(rank)))


def usage_text() -> str:
    """What `kb`, `kb help` and `kb --help` print: every verb with its one-line summary, then
    the words that belong to no verb (decision 0035). Each verb's arguments and flags are in
    its own help, `kb help <verb>`, and its usage is what its own usage errors print."""
    width = max(len(c.name) for c in COMMANDS) + 2
    lines = ["usage: kb <verb> [arguments] [flags]", "", "verbs:"]
    lines += [f"  {c.name:<{width}}{c.summary}" for c in _in_usage_order()]
    top = (
        ("kb help <verb>", "a verb's usage, arguments, flags, examples and exit codes"),
        ("kb --version", "the version line"),
        ("kb --completion bash|zsh|fish", "a shell completion script"),
    )
    shown = max(len(s) for s, _ in top) + 2
    lines += ["", *(f"  {s:<{shown}}{why}" for s, why in top)]
    lines += [
        "",
        "Every verb reads plain markdown folders; nothing leaves this machine but what",
        "`kb sync` pushes to your own git remote.",
        f"Docs: {DOCS_WHERE}",
    ]
    return "\n".join(lines) + "\n"


def verb_usage(command: Command) -> str:
    """What a usage error of one verb prints on stdout: that verb's usage lines (as its help
    shows them) and where its arguments and flags are explained."""
    lines = ["usage:", *(f"  {u}" for u in command.usage)]
    lines += ["", f"`kb help {command.name}` says what each argument and flag does."]
    return "\n".join(lines) + "\n"


def usage_of(name: str) -> str:
    """`verb_usage` by verb name, for a run function that words its own usage error."""
    return verb_usage(BY_NAME[name])
