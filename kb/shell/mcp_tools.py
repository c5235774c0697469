"""The five MCP tools, each a projection of a CLI verb in the command table.

A tool names the verb it projects (`verb`); a test asserts the verb exists and that the two
surfaces give the same answer on the same input. Handlers take the server's one open
Memory and the call's arguments, and return the tool's text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from attrs import frozen

from kb.io.memory import Memory
from kb.io.served import listed
from kb.pure import mcptext
from kb.pure.listing import Facets, checked
from kb.pure.where import conditions, sort_field, split_joined


class ToolError(Exception):
    """A tool-level failure, answered as JSON-RPC error -32602 with this message."""


@frozen
class Arg:
    name: str
    type: str  # "string" | "integer"
    description: str
    required: bool = False


@frozen
class Tool:
    name: str
    verb: str
    description: str
    args: tuple[Arg, ...]
    handler: Callable[[Memory, Mapping[str, Any], int], str]

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                a.name: {"type": a.type, "description": a.description} for a in self.args
            },
            "required": [a.name for a in self.args if a.required],
        }


def _text(args: Mapping[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"missing or empty argument: {key}")
    return value


def _optional_text(args: Mapping[str, Any], key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _count(args: Mapping[str, Any], key: str, default: int) -> int:
    value = args.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    if not math.isfinite(value) or value < 0:
        return default
    return int(value)


def _route(memory: Memory, args: Mapping[str, Any], top: int) -> str:
    question = _text(args, "question")
    n = _count(args, "top", top)
    answer = memory.ask(question, n)
    loss = memory.recall_loss(question, answer.confidence)
    hits = answer.keyword_hits[:n]
    if not hits or answer.confidence.verdict == "nothing":
        return _refusal(memory, question, answer.confidence, loss.looked_like if loss else ())
    return mcptext.route_reply(question, answer.confidence, hits)


def _retrieve(memory: Memory, args: Mapping[str, Any], top: int) -> str:
    question = _text(args, "question")
    answer = memory.ask(question, _count(args, "top", top))
    loss = memory.recall_loss(question, answer.confidence)
    # A refusal is a refusal on every tool: no passages on `nothing`, as kb_route and
    # `kb route --context` do.
    if not answer.found or answer.confidence.verdict == "nothing":
        return _refusal(memory, question, answer.confidence, loss.looked_like if loss else ())
    return mcptext.retrieve_reply(question, answer.confidence, answer.found, answer.changed)


def _refusal(memory: Memory, question: str, confidence: Any, suggestions: Any) -> str:
    if memory.is_empty():
        return mcptext.empty_base_reply(len(memory.unreachable))
    return mcptext.no_match_reply(question, memory.shortfall(confidence), list(suggestions))


def _remember(memory: Memory, args: Mapping[str, Any], _top: int) -> str:
    return mcptext.remember_reply(memory.remember(_text(args, "claim")))


def _fleet(memory: Memory, _args: Mapping[str, Any], _top: int) -> str:
    return memory.describe()


def _list(memory: Memory, args: Mapping[str, Any], _top: int) -> str:
    from returns.result import Failure

    facets = checked(
        Facets(
            *(_optional_text(args, k) for k in ("base", "folder", "kind", "stage", "provenance"))
        )
    )
    where = conditions(split_joined(_optional_text(args, "where") or ""), "where")
    sort = sort_field(_optional_text(args, "sort"), "sort")
    for refused in (facets, where, sort):
        if isinstance(refused, Failure):
            raise ToolError(refused.failure())
    rows = listed(memory, facets.unwrap(), where.unwrap(), sort.unwrap())
    return mcptext.list_reply(rows, _count(args, "limit", 50))


_QUESTION = Arg("question", "string", "The question, in the words a person would use.", True)
_TOP = Arg("top", "integer", "How many files to return (default: the server's --top).")

TOOLS: tuple[Tool, ...] = (
    Tool(
        "kb_route",
        "route",
        "Which files answer this question: ranked paths with an EVIDENCE line stating the "
        "keyword score, the floor and the verdict (hit, guess or nothing). On a miss it says "
        "so and offers declared keys that look like the words used (spelling, not meaning).",
        (_QUESTION, _TOP),
        _route,
    ),
    Tool(
        "kb_retrieve",
        "route",
        "The passages that answer this question, from both scorers fused, with the EVIDENCE "
        "line. Passages from inbox/ are labelled short memory: recent and not yet distilled.",
        (_QUESTION, _TOP),
        _retrieve,
    ),
    Tool(
        "kb_remember",
        "remember",
        "Before writing a claim down: does the base already say it? Proposes ADD, UPDATE or "
        "NOOP from measured word overlap, with the closest chunks as evidence. Writes nothing.",
        (Arg("claim", "string", "The claim you are about to write down.", True),),
        _remember,
    ),
    Tool(
        "kb_fleet",
        "fleet",
        "Who this fleet is and which agents it has, read from fleet.txt and each agent.txt. "
        "No index is queried.",
        (),
        _fleet,
    ),
    Tool(
        "kb_list",
        "list",
        "List the files on disk by facet. This is a filter, not a search: nothing is ranked. "
        "kind is memory, skills or tools; stage is raw, captured, distilled or derived; "
        "provenance is human, agent or external.",
        (
            Arg("base", "string", "Only this base."),
            Arg("folder", "string", "Only files under this folder."),
            Arg("kind", "string", "memory, skills or tools."),
            Arg("stage", "string", "raw, captured, distilled or derived."),
            Arg("provenance", "string", "human, agent or external."),
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
                "Sort by base, path, title, folder, kind, stage, provenance or any "
                "front-matter key; missing values last, ties in listing order.",
            ),
            Arg("limit", "integer", "At most this many rows (default 50)."),
        ),
        _list,
    ),
)

BY_TOOL: dict[str, Tool] = {t.name: t for t in TOOLS}
