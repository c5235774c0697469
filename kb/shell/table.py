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

from kb.shell import inputs
from kb.shell.outcome import Outcome


@frozen
class Command:
    name: str
    usage: tuple[str, ...]
    input_type: type[Any]
    run_ref: str  # "module:function"
    needs: str | None = None  # stderr line when the first required positional is missing
    summary: str = ""
    hot: bool = False  # runs on every prompt: parsed by kb.shell.fastargs when well-formed
    # Short spellings the usage line promises (`-m`), rewritten to the field's flag first.
    aliases: tuple[tuple[str, str], ...] = ()

    def run(self, value: Any) -> Outcome:
        module_name, _, func_name = self.run_ref.partition(":")
        func: Callable[[Any], Outcome] = getattr(importlib.import_module(module_name), func_name)
        return func(value)


COMMANDS: tuple[Command, ...] = (
    Command(
        "index",
        ("kb index [path]... [--json] [--all]",),
        inputs.IndexInput,
        "kb.shell.readverbs:index",
        summary="Sync each base's text index and report what no question can reach.",
    ),
    Command(
        "list",
        (
            "kb list [path]... [--base B] [--folder F] [--kind K] [--stage S] [--provenance P]"
            " [--json] [--all]",
        ),
        inputs.ListInput,
        "kb.shell.readverbs:list_files",
        summary="List the files on disk by facet; a filter, never a ranking.",
    ),
    Command(
        "route",
        ("kb route <question> [path]... [--top N] [--hybrid] [--json] [--all]",),
        inputs.RouteInput,
        "kb.shell.readverbs:route",
        needs="kb: route needs a question",
        summary="Rank the files that answer a question, with an honest verdict.",
        hot=True,
    ),
    Command(
        "fleet",
        ("kb fleet [path]... [--all]",),
        inputs.FleetInput,
        "kb.shell.readverbs:fleet",
        summary="Name the fleet and its agents, from the manifests, never the index.",
    ),
)

COMMANDS += (
    Command(
        "commit",
        ("kb commit <path>... -m <message>",),
        inputs.CommitInput,
        "kb.shell.commitverb:commit",
        summary="Commit exactly the named paths through git, and show what stayed dirty.",
        aliases=(("-m", "--message"),),
    ),
)

COMMANDS += (
    Command(
        "remember",
        ("kb remember <claim> [path]... [--all] [--json]",),
        inputs.RememberInput,
        "kb.shell.memoryverbs:remember",
        needs="kb: remember needs a claim",
        summary="Propose ADD, UPDATE or NOOP for a claim by its overlap with the base.",
    ),
)

COMMANDS += (
    Command(
        "serve",
        ("kb serve [path]... [--top N] [--all]",),
        inputs.ServeInput,
        "kb.shell.serveverb:serve",
        summary="Serve the memory over the Model Context Protocol on stdio.",
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
        inputs.SourceInput,
        "kb.shell.sourceverbs:source",
        needs="kb: the only source verb is `add`",
        summary="Mint a source record under a fresh key and print its bibliography line.",
    ),
    Command(
        "sources",
        ("kb sources [path]... [--json] [--all]",),
        inputs.SourcesInput,
        "kb.shell.sourceverbs:sources",
        summary="List each base's source records, rendered or as CSL JSON, from disk.",
    ),
)

COMMANDS += (
    Command(
        "check",
        ("kb check [path]... [--strict] [--all]",),
        inputs.CheckInput,
        "kb.shell.checkverbs:check",
        summary="Report broken links, unreachable notes and citation faults; fixes nothing.",
    ),
)

COMMANDS += (
    Command(
        "init",
        ("kb init <name> [fleet-root]", "kb init --person [fleet-root]"),
        inputs.InitInput,
        "kb.shell.initwrite:init",
        # no `needs`: `kb init --person` has no positional at all and is complete; the run
        # function prints `kb: init needs a name for the agent` when a name is due.
        summary="Create an agent, or the person's base, from the skeleton, all or nothing.",
    ),
    Command(
        "write",
        (
            "kb write <agent> <slug> [fleet-root] --keys <a, b> --summary <line> [--folder F]",
            "         [--provenance P] [--stage S] [--captured-from PATH]",
            "         (note body on stdin; the keys are written once, on the note's own",
            "         `Search for:` line, and the map entry is the link and the summary)",
        ),
        inputs.WriteInput,
        "kb.shell.initwrite:write",
        needs="kb: write needs an agent and a name for the note",
        summary="Write one note and list it in its base's map, as one act.",
    ),
)

COMMANDS += (
    Command(
        "eval",
        ("kb eval <gold.tsv> [path]... [--top N] [--all] [--triad] [--json]",),
        inputs.EvalInput,
        "kb.shell.evalverbs:evaluate",
        needs="kb: eval needs a gold file",
        summary="Grade files, agents and refusals against a gold file of questions.",
    ),
    Command(
        "misses",
        ("kb misses [path]... [--all] [--top N] [--json] [--apply --gold <tsv>]",),
        inputs.MissesInput,
        "kb.shell.evalverbs:misses",
        summary="Read the miss log back with what today's index nearly caught.",
    ),
)

BY_NAME: dict[str, Command] = {c.name: c for c in COMMANDS}


# The order of the original's usage block, which readers of its docs know by heart.
USAGE_ORDER = (
    "check", "index", "list", "route", "answer", "remember", "init", "write", "source",
    "sources", "fleet", "blocks", "eval", "commit", "boot", "ingest", "promote", "consolidate",
    "handoff", "ui", "capture", "serve", "misses", "misroute", "misroutes", "abstentions",
    "panel", "rejections", "links", "graph",
)


def usage_text() -> str:
    lines = ["usage:", "  kb --version"]
    rank = {name: i for i, name in enumerate(USAGE_ORDER)}
    for c in sorted(COMMANDS, key=lambda c: rank.get(c.name, len(rank))):
        lines.extend(f"  {u}" for u in c.usage)
    lines += [
        "",
        "Every verb reads plain markdown folders; nothing leaves this machine.",
        "Docs: docs/README.md in the source tree.",
    ]
    return "\n".join(lines) + "\n"
