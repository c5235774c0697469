"""The five MCP tools, each a projection of a CLI verb in the command table.

A tool names the verb it projects (`verb`); a test asserts the verb exists, that each
argument is a field of that verb's input (or is named MCP-only there), and that the two
surfaces give the same answer on the same input. Handlers take the server's one open
Memory and the call's arguments, and return a `Reply`: the text a person or a model reads,
and the same facts as JSON (`structuredContent`, described by the tool's `outputSchema`,
kb.pure.render.mcpshape).

Arguments are read against the schema the tool declares: a value the schema forbids is
refused with one line naming the argument as its JSON field and the legal values.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen

from kb.io.answering.memory import Answer, Memory, RecallLoss
from kb.io.answering.served import listed
from kb.pure.fleet.listing import PROVENANCES, STAGES, Facets, checked
from kb.pure.fleet.where import ROW_FIELDS, conditions, sort_field, split_joined
from kb.pure.notes.paths import KINDS
from kb.pure.render import mcpshape, mcptext
from kb.pure.roles.remember import to_json
from kb.shell.answering.readverbs import route_value

# The most files kb_route and kb_retrieve return. Measured on a generated 1,000-note fleet
# (benchmarks/generate.py): a kb_retrieve reply at 50 files is up to ~94 KB of JSON, about
# 2 KB a file, already more passages than a model reads with care; at 200 it reached 470 KB.
MAX_TOP = 50
# The most rows kb_list shows. A row is ~100 bytes of text and ~210 of JSON on the same fleet,
# so 1,000 rows is ~300 KB in all; past that a listing is better narrowed than paged.
MAX_LIMIT = 1000
DEFAULT_LIMIT = 50
SHOWN_CHARS = 40  # how much of a refused value an error message repeats


class ToolError(Exception):
    """A tool-level failure, answered as JSON-RPC error -32602 with this message."""


@frozen
class Reply:
    text: str
    data: dict[str, Any]


@frozen
class Arg:
    name: str
    type: str  # "string" | "integer"
    description: str
    required: bool = False
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "description": self.description}
        if self.enum:
            out["enum"] = list(self.enum)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


# Every tool reads the memory and changes nothing in it. kb_route and kb_retrieve append a
# refused question to the miss log (kb-misses.txt), kb's own record for whoever maintains
# the base; no tool answers from it (decision 0020).
READ_ONLY = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}


@frozen
class Tool:
    name: str
    verb: str
    title: str
    description: str
    args: tuple[Arg, ...]
    handler: Callable[[Memory, Mapping[str, Any], int], Reply]
    output_schema: dict[str, Any]
    # Arguments the CLI verb has no flag for, and why (the drift test reads this).
    mcp_only: tuple[str, ...] = ()

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {a.name: a.schema() for a in self.args},
            "required": [a.name for a in self.args if a.required],
        }

    def descriptor(self) -> dict[str, Any]:
        """The tool as `tools/list` gives it (camelCase keys, as the protocol spells them)."""
        return {
            "annotations": {"title": self.title, **READ_ONLY},
            "description": self.description,
            "inputSchema": self.input_schema(),
            "name": self.name,
            "outputSchema": self.output_schema,
            "title": self.title,
        }


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def _text(args: Mapping[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"missing or empty argument: {key}")
    return value


def _optional(args: Mapping[str, Any], arg: Arg) -> str | None:
    """A string argument: absent, null or blank is not given; a value of another type, or
    outside its enum (compared ignoring case), is refused."""
    value = args.get(arg.name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ToolError(f"{arg.name} must be a string (got {_shown(value)})")
    if arg.enum and value.strip().lower() not in arg.enum:
        raise ToolError(f"{arg.name} must be one of {', '.join(arg.enum)} (got {_shown(value)})")
    return value


def _count(args: Mapping[str, Any], arg: Arg, default: int) -> int:
    """An integer argument: absent or null is the default; anything else must be a whole
    number inside the range the schema declares (2.0 is whole; true is not a number)."""
    value = args.get(arg.name)
    if value is None:
        return default
    low, high = arg.minimum or 0, arg.maximum or 0
    # An int is compared as it is (a 400-digit one overflows any conversion to float).
    whole = (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and value.is_integer()
    )
    if not whole or not low <= value <= high:
        raise ToolError(
            f"{arg.name} must be a whole number from {low} to {high} (got {_shown(value)})"
        )
    return int(value)


def _answered(memory: Memory, args: Mapping[str, Any], top: int) -> tuple[Answer, int]:
    question = _text(args, "question")
    n = _count(args, _TOP, top)
    return memory.ask(question, n), n


def _route_data(
    memory: Memory,
    answer: Answer,
    loss: RecallLoss | None,
    served: bool,
    passages: bool = True,
) -> dict[str, Any]:
    """The `kb route --json` payload as the tool serves it; kb_route's results keep no
    passages (its text shows none)."""
    payload = route_value(memory, answer, loss)
    return mcpshape.route_content(
        payload,
        served=served,
        runner_up=mcptext.has_runner_up(answer.keyword_hits),
        shortfall=[]
        if served or memory.is_empty()
        else memory.shortfall(answer.confidence, answer.question),
        results=None if passages else mcpshape.without_passages(payload["results"]),
    )


def _route(memory: Memory, args: Mapping[str, Any], top: int) -> Reply:
    """The fused list the verdict judged, as `kb route` lists it (decision 0029): the same
    files in the same order as kb_retrieve and `kb route --json`, without their passages."""
    answer, _ = _answered(memory, args, top)
    loss = memory.recall_loss(answer.question, answer.confidence)
    served = bool(answer.found) and answer.confidence.verdict != "nothing"
    data = _route_data(memory, answer, loss, served, passages=False)
    if not served:
        return Reply(mcptext.with_verdict(answer.confidence, _refusal(memory, answer, loss)), data)
    text = mcptext.route_reply(
        answer.question,
        answer.confidence,
        answer.found,
        answer.changed,
        mcptext.has_runner_up(answer.keyword_hits),
    )
    return Reply(text, data)


def _retrieve(memory: Memory, args: Mapping[str, Any], top: int) -> Reply:
    answer, _ = _answered(memory, args, top)
    loss = memory.recall_loss(answer.question, answer.confidence)
    # A refusal is a refusal on every tool: no passages on `nothing`, as kb_route and
    # `kb route --context` do.
    served = bool(answer.found) and answer.confidence.verdict != "nothing"
    data = _route_data(memory, answer, loss, served)
    if not served:
        return Reply(_refusal(memory, answer, loss), data)
    text = mcptext.retrieve_reply(
        answer.question,
        answer.confidence,
        answer.found,
        answer.changed,
        mcptext.has_runner_up(answer.keyword_hits),
    )
    return Reply(text, data)


def _refusal(memory: Memory, answer: Answer, loss: RecallLoss | None) -> str:
    if memory.is_empty():
        return mcptext.empty_base_reply(len(memory.unreachable))
    return mcptext.no_match_reply(
        answer.question,
        memory.shortfall(answer.confidence, answer.question),
        list(loss.looked_like) if loss else [],
        closest=bool(answer.found),
    )


def _remember(memory: Memory, args: Mapping[str, Any], _top: int) -> Reply:
    remembered = memory.remember(_text(args, "claim"))
    return Reply(mcptext.remember_reply(remembered), to_json(remembered))


def _fleet(memory: Memory, _args: Mapping[str, Any], _top: int) -> Reply:
    fleet, members = memory.fleet_card()
    return Reply(memory.describe(), mcpshape.fleet_content(fleet, members))


def _list(memory: Memory, args: Mapping[str, Any], _top: int) -> Reply:
    from returns.result import Failure

    given = {a.name: _optional(args, a) for a in _LIST_TEXT}
    limit = _count(args, _LIMIT, DEFAULT_LIMIT)
    names = ("base", "folder", "kind", "stage", "provenance")
    facets = checked(Facets(*(given[k] for k in names)))
    where = conditions(split_joined(given["where"] or ""), "where")
    sort = sort_field(given["sort"], "sort")
    for refused in (facets, where, sort):
        if isinstance(refused, Failure):
            raise ToolError(refused.failure())
    rows = listed(memory, facets.unwrap(), where.unwrap(), sort.unwrap())
    return Reply(mcptext.list_reply(rows, limit), mcpshape.list_content(rows, limit))


_QUESTION = Arg("question", "string", "The question, in the words a person would use.", True)
_TOP = Arg(
    "top",
    "integer",
    f"How many files to return, 1 to {MAX_TOP} (default: the server's --top, 5 unless set).",
    minimum=1,
    maximum=MAX_TOP,
)
_LIST_TEXT = (
    Arg("base", "string", "Only this base."),
    Arg("folder", "string", "Only files under this folder."),
    Arg("kind", "string", "Only this kind of file.", enum=KINDS),
    Arg("stage", "string", "Only files at this stage.", enum=STAGES),
    Arg("provenance", "string", "Only files of this provenance.", enum=PROVENANCES),
    Arg(
        "where",
        "string",
        "Exact front-matter conditions, all of which must hold: "
        '"key=value; key2=value2". Dotted keys reach nested front matter '
        "(relations.supports=notes/a); list values such as tags match ignoring case, "
        "other values match exactly.",
    ),
    Arg(
        "sort",
        "string",
        f"Sort by {', '.join(ROW_FIELDS)} or any front-matter key; missing values last, "
        "ties in listing order.",
    ),
)
_LIMIT = Arg(
    "limit",
    "integer",
    f"At most this many rows, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT}).",
    minimum=1,
    maximum=MAX_LIMIT,
)

TOOLS: tuple[Tool, ...] = (
    Tool(
        "kb_route",
        "route",
        "Route a question to files",
        "Which files answer this question: the verdict (hit, guess or nothing) first, then "
        "the files both scorers' fused ranking puts first (the same files, in the same order, "
        "as kb_retrieve), with an EVIDENCE line stating how much of the question the top file "
        "covers, its keyword score, whether both scorers ranked it and its lead over the "
        "runner-up. On nothing it refuses, says why, and offers declared keys that look like "
        "the words used (spelling, not meaning).",
        (_QUESTION, _TOP),
        _route,
        mcpshape.ROUTE_SCHEMA,
    ),
    Tool(
        "kb_retrieve",
        "route",
        "Retrieve the passages that answer a question",
        "The passages that answer this question, from both scorers fused, with the EVIDENCE "
        "line. Passages from inbox/ are labelled short memory: recent and not yet distilled.",
        (_QUESTION, _TOP),
        _retrieve,
        mcpshape.ROUTE_SCHEMA,
    ),
    Tool(
        "kb_remember",
        "remember",
        "Check a claim against the base before writing it",
        "Before writing a claim down: does the base already say it? Proposes ADD, UPDATE or "
        "NOOP from measured word overlap, with the closest chunks as evidence. Writes nothing.",
        (Arg("claim", "string", "The claim you are about to write down.", True),),
        _remember,
        mcpshape.REMEMBER_SCHEMA,
    ),
    Tool(
        "kb_fleet",
        "fleet",
        "Describe the fleet and its agents",
        "Who this fleet is and which agents it has, read from fleet.txt and each agent.txt. "
        "No index is queried.",
        (),
        _fleet,
        mcpshape.FLEET_SCHEMA,
    ),
    Tool(
        "kb_list",
        "list",
        "List files by facet",
        "List the files on disk by facet. This is a filter, not a search: nothing is ranked. "
        f"kind is {', '.join(KINDS)}; stage is {', '.join(STAGES)}; "
        f"provenance is {', '.join(PROVENANCES)}.",
        (*_LIST_TEXT, _LIMIT),
        _list,
        mcpshape.LIST_SCHEMA,
        # `kb list` prints every row; a tool's reply goes into a model's context.
        mcp_only=("limit",),
    ),
)

BY_TOOL: dict[str, Tool] = {t.name: t for t in TOOLS}
