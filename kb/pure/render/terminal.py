"""Terminal text for the read-path verbs: route, index, list. Values in, text out.

The line shapes (widths, labels, the order of blocks) are the contract golden files pin;
the explanatory sentences are ours.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from kb.pure.answering.fusion import Found, no_agreement
from kb.pure.answering.shortfall import wrap
from kb.pure.notes.names import printable
from kb.pure.notes.plural import counted

PATHS_SHOWN = 8
CHANGED_LABEL = "[changed since kb index: passages may be stale]"


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def empty_base_text(unreachable: int) -> list[str]:
    lines = [
        "  this base has no knowledge files yet, so nothing could have matched.",
        "  That is a fact about the base, not about the question.",
        "",
        "  Put markdown in the agent's knowledge/ folder, give each note a",
        "  `Search for:` line naming the words a real question would use, then",
        "  run `kb index`. A note without that line is a note nothing can reach.",
    ]
    if unreachable:
        verb = _plural(unreachable, "file is", "files are")
        lines += [
            "",
            f"  {unreachable} markdown {verb} already here without that line, which is",
            "  why there is nothing to search. "
            f"`kb check` names {_plural(unreachable, 'it', 'them')}.",
        ]
    lines += [
        "",
        "  `kb fleet` works regardless: identity is read from fleet.txt and",
        "  agent.txt, never from the index.",
    ]
    return lines


def suggestion_block(suggestions: Sequence[str]) -> list[str]:
    if not suggestions:
        return []
    return [
        "",
        "  the base does know these, and they look like words you used:",
        f"    {', '.join(suggestions)}",
        "  that is spelling and not meaning, so it finds a typo or a cognate",
        "  and never finds a translation.",
    ]


def shortfall_block(sentences: Sequence[str]) -> list[str]:
    out: list[str] = []
    for s in sentences:
        out.append("")
        out.extend(wrap(s))
    return out


@frozen
class RouteView:
    """Everything the terminal route output needs, computed by the contract."""

    question: str
    entries: int
    agents: int
    aliases: int
    unreachable: int
    found: tuple[Found, ...]  # the fused list the verdict judged, best first (`--json` results)
    shortfall: tuple[str, ...]
    suggestions: tuple[str, ...]
    changed: frozenset[tuple[str, str]] = frozenset()
    verdict: str = "nothing"
    coverage: float = 0.0
    searchable: bool = True  # False: every word of the question was a stopword


def verdict_line(verdict: str, coverage: float) -> str:
    """The first line of a terminal route: the verdict and the coverage behind it, so a
    guess never reads as a hit. kb_route and `kb boot` print the same line."""
    share = f"{coverage:.0%}"
    if verdict == "hit":
        return f"verdict:  hit: the top file covers {share} of the question and leads the rest"
    if verdict == "guess":
        return (
            f"verdict:  guess: the top file covers {share} of the question; "
            "read the list, it may not answer"
        )
    if coverage > 0:
        return f"verdict:  nothing: no file covers more than {share} of the question; refused"
    return "verdict:  nothing: no file covers the question; refused"


NOTHING_MATCHED = [
    "  nothing matched, in either scorer. Either the base does not cover",
    "  it, or the Search for lines do not carry the words a real question",
    "  uses.",
]
# `nothing` although the text scorer ranked files: they are the closest, and not an answer.
CLOSEST_REFUSED = [
    "  no file covers enough of the question: the closest ones the scorers",
    "  found are not an answer, so none is listed. `--json` still carries",
    "  them, marked as not served.",
]
NO_AGREEMENT = [
    "  NOTE: only one scorer ranked any of these, so this is a guess rather",
    "  than an answer. The base may not cover the question at all.",
]


def _refusal(v: RouteView) -> list[str]:
    if v.entries == 0:
        return empty_base_text(v.unreachable)
    if not v.searchable:
        return [
            "  nothing was searched: the question holds no word to search by.",
            *shortfall_block(v.shortfall),
        ]
    lines = list(CLOSEST_REFUSED if v.found else NOTHING_MATCHED)
    return lines + shortfall_block(v.shortfall) + suggestion_block(v.suggestions)


def result_lines(f: Found, changed: bool) -> list[str]:
    """One file of the fused list: score, base, path, which scorers ranked it (and labels);
    the question's words it matched, when it matched any by keyword; its first passage."""
    label = "  [short memory]" if f.layer == "short" else ""
    if changed:
        label += f"  {CHANGED_LABEL}"
    base, path = printable(f.base), printable(f.path)  # a file name may hold anything
    lines = [f"  {f.score:>5.3f}  {base:<8} {path:<44} {' + '.join(f.why)}{label}"]
    if f.matched:
        lines.append(f"         matched: {', '.join(f.matched)}")
    if f.passages:
        first = f.passages[0]
        excerpt = printable(first.excerpt.replace("\n", " ").strip(), lines=True)
        lines.append(f"         {printable(first.heading_path)}: {excerpt}")
    return lines


def route_text(v: RouteView) -> str:
    """The verdict, then the fused list in `--json`'s order; a refusal lists no file."""
    lines = [
        verdict_line(v.verdict, v.coverage),
        f"question: {printable(v.question)}",  # a line break in it must not split the report
        # Inflected (`1 entry`): a script reads the counts from --json, not from this line.
        f"indexed:  {counted(v.entries, 'entry', 'entries')} across {counted(v.agents, 'agent')},"
        f" {counted(v.aliases, 'alias', 'aliases')}",
        "",
    ]
    if v.verdict == "nothing":
        lines += _refusal(v)
        return "\n".join(lines) + "\n"
    if v.verdict == "guess" and no_agreement(v.found):
        lines += [*NO_AGREEMENT, ""]
    for f in v.found:
        lines += result_lines(f, (f.base, f.path) in v.changed)
    return "\n".join(lines) + "\n"


@frozen
class BaseIndexLine:
    name: str
    reindexed: int
    unchanged: int
    removed: int
    chunks: int
    unreachable: int


def index_text(
    per_base: Sequence[BaseIndexLine],
    files: int,
    exempt: int,
    unreachable_paths: Sequence[str],
    unreadable: Sequence[tuple[str, str]],
) -> str:
    lines = [
        f"  {b.name:<10} {b.reindexed} reindexed, {b.unchanged} unchanged, {b.removed} removed, "
        f"{counted(b.chunks, 'chunk')}, {b.unreachable} unreachable"
        for b in per_base
    ]
    chunks = sum(b.chunks for b in per_base)
    lines.append(
        f"  total: {counted(files, 'file')}, {counted(chunks, 'chunk')}, "
        f"{counted(len(per_base), 'index', 'indexes')}, "
        f"{len(unreachable_paths)} unreachable, {exempt} unsearchable by design"
    )
    if unreachable_paths:
        lines += [f"    {p}" for p in unreachable_paths[:PATHS_SHOWN]]
        if len(unreachable_paths) > PATHS_SHOWN:
            lines.append(f"    ... and {len(unreachable_paths) - PATHS_SHOWN} more")
        lines.append(
            "    no `Search for:` line, so no question reaches them. "
            "`kb check` names each one as E02"
        )
    if unreadable:
        lines.append(
            f"  skipped {len(unreadable)} {_plural(len(unreadable), 'file', 'files')} "
            "that could not be read as UTF-8 text:"
        )
        lines += [f"    {p}: {why}" for p, why in unreadable[:PATHS_SHOWN]]
        if len(unreadable) > PATHS_SHOWN:
            lines.append(f"    ... and {len(unreadable) - PATHS_SHOWN} more")
    return "\n".join(lines) + "\n"


def index_json_summary(
    per_base: Sequence[BaseIndexLine],
    files: int,
    exempt: int,
    unreachable_paths: Sequence[str],
    unreadable: Sequence[tuple[str, str]],
) -> str:
    """`kb index --json`: what the text summary says, as one line of JSON, every path listed
    (the text shows eight)."""
    from kb.pure.render.jsonout import dumps

    payload = {
        "bases": [
            {
                "chunks": b.chunks,
                "name": b.name,
                "reindexed": b.reindexed,
                "removed": b.removed,
                "unchanged": b.unchanged,
                "unreachable": b.unreachable,
            }
            for b in per_base
        ],
        "total": {
            "chunks": sum(b.chunks for b in per_base),
            "files": files,
            "indexes": len(per_base),
            "unreachable": len(unreachable_paths),
            "unsearchable_by_design": exempt,
        },
        "unreachable_paths": list(unreachable_paths),
        "unreadable": [{"path": p, "reason": why} for p, why in unreadable],
    }
    return dumps(payload) + "\n"


def index_json(entries: Sequence[tuple[str, str, str, str, tuple[str, ...], str]]) -> str:
    """The hand-laid `kb index --entries` list (the original's `--json`): one entry per
    line, keys in a fixed order."""
    from kb.pure.render.jsonout import escape

    rows = [
        "  {"
        f'"base":{escape(b)},"path":{escape(p)},"name":{escape(n)},"title":{escape(t)},'
        f'"keywords":[{",".join(escape(k) for k in ks)}],"summary":{escape(s)}'
        "}"
        for b, p, n, t, ks, s in entries
    ]
    return "[\n" + ",\n".join(rows) + "\n]\n"
