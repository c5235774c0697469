"""What the MCP tools return as `structuredContent`, and the `outputSchema` each declares.

Rules of this module:
- The structured content of a tool carries the facts of its text, as JSON. Where the CLI
  has a `--json` shape for the same verb, it is that shape: kb_route and kb_retrieve give
  the `kb route --json` payload, kb_remember the `kb remember --json` object, kb_list the
  `kb list --json` rows (inside an object: MCP wants an object at the top).
- Every object in a schema lists each of its keys as required and allows no other, so a
  payload that drifts from its schema fails the test that validates every tool's output.
- kb_route and kb_retrieve serve the same `results`, the fused list the verdict judged, in
  the CLI's order; kb_route's carry no passages, as its text shows none (decision 0029).
- A refusal serves nothing in JSON either: `results` is empty and `gate.served` is false
  (the CLI's `--json` keeps the text-ranked files, marked unserved; a client may hand the
  structured content to a model instead of the text).
- `confidence.margin` is null when no second file scored on keywords: the text says there
  is no runner-up, and the CLI's 1.0 would read as a tie.
- Keys are in codepoint order, as in the CLI's JSON shapes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kb.pure.fleet.fleetcard import Card, Member
from kb.pure.fleet.listing import PROVENANCES, STAGES, Row, row_json
from kb.pure.notes.paths import KINDS
from kb.pure.render.jsonout import sorted_keys

Schema = dict[str, Any]

VERDICTS = ("hit", "guess", "nothing")
LAYERS = ("long", "short")
PROPOSALS = ("ADD", "UPDATE", "NOOP")


def _obj(description: str, **properties: Schema) -> Schema:
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _str(description: str) -> Schema:
    return {"type": "string", "description": description}


def _num(description: str) -> Schema:
    return {"type": "number", "description": description}


def _int(description: str) -> Schema:
    return {"type": "integer", "minimum": 0, "description": description}


def _bool(description: str) -> Schema:
    return {"type": "boolean", "description": description}


def _enum(values: Sequence[str], description: str) -> Schema:
    return {"type": "string", "enum": list(values), "description": description}


def _list(items: Schema, description: str) -> Schema:
    return {"type": "array", "items": items, "description": description}


def _or_null(schema: Schema) -> Schema:
    return {**schema, "type": [schema["type"], "null"]}


_WORDS = _list({"type": "string"}, "")

_PASSAGE = _obj(
    "One chunk of the file, as the text index holds it.",
    excerpt=_str("The chunk's best few lines around the question's words."),
    heading_path=_str("The headings above the chunk, outermost first."),
    provenance=_or_null(_str("The file's `provenance` front matter, when it has one.")),
    stage=_or_null(_str("The file's `stage` front matter, when it has one.")),
    text=_str("The chunk's text."),
)
_RESULT = _obj(
    "One ranked file.",
    base=_str("The base (agent) the file belongs to."),
    keyword_score=_num("Its score on the declared and derived keys; 0 when found by text alone."),
    matched={
        **_WORDS,
        "description": "The keys of the file the question matched; empty when found by text alone.",
    },
    memory=_enum(LAYERS, "short: an inbox/ deposit, recent and not yet distilled."),
    passages=_list(_PASSAGE, "Its passages (kb_retrieve); always empty from kb_route."),
    path=_str("The file's path inside its base."),
    purpose=_str("The file's own one-line summary."),
    score=_num("The fused score the ranking used (both scorers, on one scale)."),
    stale=_bool("The file changed since `kb index`: its passages may be out of date."),
    title=_str("The file's title, or empty."),
    why=_list(
        {"type": "string", "pattern": "^(keywords|text) #[1-9][0-9]*$"},
        "Which scorer ranked it where: `keywords #1`, `text #3`.",
    ),
)
ROUTE_SCHEMA = _obj(
    "The `kb route --json` payload. On a refusal `results` is empty and `gate.served` false.",
    agent=_or_null(
        _obj(
            "The agent whose files the keyword ranking favours.",
            contenders=_int("How many agents scored."),
            files=_int("How many of its files scored."),
            margin=_or_null(_num("Its total over the runner-up's; null with no runner-up.")),
            name=_str("The agent."),
            score=_num("Its total keyword score."),
            totals=_list(
                _obj("One agent's total.", agent=_str(""), score=_num("")),
                "Every agent that scored, best first.",
            ),
        )
    ),
    confidence=_obj(
        "The facts the verdict was judged from.",
        agreement={
            **_int("2: both scorers ranked the top file; 1: only one; 0: neither."),
            "maximum": 2,
        },
        coverage=_num("The share of the question the top file covers, 0 to 1."),
        keyword_score=_num("The top keyword score."),
        margin=_or_null(_num("Top keyword score over the runner-up's; null with no runner-up.")),
    ),
    gate=_obj(
        "Whether the answer was served.",
        floor=_num("The keyword score a hit needed under the old floor, kept as a fact."),
        ranked_by_text_only=_bool("The text scorer ranked files, no keyword matched."),
        served=_bool("False on a refusal: no file is served."),
    ),
    index_was_rebuilt=_bool("An index predated the private column and was emptied."),
    indexed=_obj(
        "What the open bases hold.",
        agents=_int("Agents."),
        aliases=_int("Alias lines."),
        entries=_int("Routable notes."),
    ),
    keyword_top=_or_null(_str("base/path of the keyword ranking's first file.")),
    miss=_or_null(
        _obj(
            "The refused question, as recorded in the miss log.",
            date=_str("The day, UTC."),
            error=_or_null(_str("Why it could not be recorded, or null.")),
            log=_str("The miss log's path."),
            looked_like=_list({"type": "string"}, "Keys spelled like the question's words."),
            question=_str("The question."),
            recorded=_bool("Whether it was recorded."),
        )
    ),
    question=_str("The question, as asked."),
    results=_list(_RESULT, "The fused list the verdict judged, best first (`kb route --json`)."),
    shortfall=_list({"type": "string"}, "On a refusal, why nothing matched, one reason each."),
    skipped=_list({"type": "string"}, "Always empty (kept for the CLI's shape)."),
    suggestions=_list({"type": "string"}, "Declared keys spelled like the question's words."),
    unreachable=_obj(
        "Files no question can reach.",
        files=_int("Markdown files with nothing to be found by."),
        paths=_list({"type": "string"}, "The first few of them."),
        unindexed=_int("Files on disk the text index does not hold."),
        unindexed_paths=_list({"type": "string"}, "The first few of them."),
    ),
    verdict=_enum(VERDICTS, "hit, guess, or nothing (a refusal)."),
)

_ROW = _obj(
    "One file on disk.",
    base=_str("Its base."),
    folder=_str("Its folder inside the base."),
    kind=_enum(KINDS, "memory, skills or tools."),
    layer=_enum(LAYERS, "short: an inbox/ deposit."),
    path=_str("Its path inside the base."),
    private=_bool("In the private layer (listed only with `kb serve --all`)."),
    provenance=_or_null(_str(f"Its `provenance` front matter ({', '.join(PROVENANCES)}).")),
    stage=_or_null(_str(f"Its `stage` front matter ({', '.join(STAGES)}).")),
    title=_str("Its title, or empty."),
)
LIST_SCHEMA = _obj(
    "The files that carry every facet named, in listing order; nothing is ranked.",
    files=_list(_ROW, "The rows shown, at most `limit` (the `kb list --json` rows)."),
    limit=_int("The limit applied."),
    not_shown=_int("Rows past the limit."),
    total=_int("Rows that matched."),
)

REMEMBER_SCHEMA = _obj(
    "The `kb remember --json` object. Nothing was written.",
    claim=_str("The claim."),
    evidence=_list(
        _obj(
            "One chunk that shares words with the claim.",
            base=_str(""),
            containment=_num("The share of the claim's words the chunk holds, 0 to 1."),
            excerpt=_str(""),
            heading_path=_str(""),
            missing=_list({"type": "string"}, "The claim's words the chunk lacks."),
            path=_str(""),
            shared=_list({"type": "string"}, "The claim's words the chunk holds."),
        ),
        "Closest first.",
    ),
    notice=_str("What the proposal does and does not measure."),
    proposal=_enum(PROPOSALS, "ADD, UPDATE or NOOP."),
    reason=_str("Why, in words."),
)

FLEET_SCHEMA = _obj(
    "Who the fleet is, from fleet.txt and each agent.txt; no index was queried.",
    agents=_list(
        _obj(
            "One agent (a base).",
            name=_str("Its name."),
            role=_or_null(_str("Its role line, or null when agent.txt sets none.")),
            root=_str("Its folder."),
        ),
        "The open bases.",
    ),
    name=_str("The fleet's name."),
    role=_or_null(_str("The fleet's role line, or null when fleet.txt sets none.")),
)


def without_passages(results: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """kb_route's files: the `kb route --json` results, in their order, passages left out."""
    return [{**r, "passages": []} for r in results]


def route_content(
    payload: Mapping[str, Any],
    *,
    served: bool,
    runner_up: bool,
    shortfall: Sequence[str],
    results: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The route payload as a tool serves it: `results` replaced when given (kb_route's,
    without passages), emptied on a refusal, and the margin null without a runner-up."""
    out = dict(payload)
    confidence = dict(payload["confidence"])
    if not runner_up:
        confidence["margin"] = None
    out["confidence"] = confidence
    out["gate"] = {**payload["gate"], "served": served}
    if results is not None:
        out["results"] = list(results)
    if not served:
        out["results"] = []
    out["shortfall"] = list(shortfall) if not served else []
    result: dict[str, Any] = sorted_keys(out)
    return result


def list_content(rows: Sequence[Row], limit: int) -> dict[str, Any]:
    shown = rows[:limit]
    return {
        "files": [row_json(r) for r in shown],
        "limit": limit,
        "not_shown": len(rows) - len(shown),
        "total": len(rows),
    }


def fleet_content(fleet: Card, members: Sequence[Member]) -> dict[str, Any]:
    return {
        "agents": [{"name": m.name, "role": m.role, "root": m.root} for m in members],
        "name": fleet.name,
        "role": fleet.role,
    }
