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

BY_NAME: dict[str, Command] = {c.name: c for c in COMMANDS}


def usage_text() -> str:
    lines = ["usage:", "  kb --version"]
    for c in COMMANDS:
        lines.extend(f"  {u}" for u in c.usage)
    lines += [
        "",
        "Every verb reads plain markdown folders; nothing leaves this machine.",
        "Docs: docs/README.md in the source tree.",
    ]
    return "\n".join(lines) + "\n"
