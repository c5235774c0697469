"""The sentences printed under a refusal: why nothing was a hit, in numbers.

Each sentence carries one fact a person can act on: too few entries to rank anything,
keyless files that no question can reach, or how far the top score fell short of the floor
(or that no term matched at all, which is a vocabulary miss, not a near miss).
"""

from __future__ import annotations


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def shortfall(
    entries: int, agents: int, floor: float, scored: float, unreachable: int
) -> list[str]:
    if entries == 0:
        return []
    out: list[str] = []
    if entries < 2:
        out.append(
            f"The library holds {_n(entries, 'entry', 'entries')} across "
            f"{_n(agents, 'agent', 'agents')}, and below two entries nothing can be a hit "
            "whatever it scores: with a single entry every word is equally rare, so the "
            "ranking has nothing to tell apart. A second note changes that; a better "
            "question does not."
        )
    if unreachable > 0:
        one = unreachable == 1
        out.append(
            f"{_n(unreachable, 'markdown file', 'markdown files')} in the open bases "
            f"{'has' if one else 'have'} no `Search for:` line, so the index holds no entry "
            f"for {'it' if one else 'them'} and {'it scores' if one else 'they score'} zero "
            f"on every question. `kb check` names {'it' if one else 'them'}."
        )
    if scored > 0:
        if scored < floor:
            out.append(
                f"The top result scored {scored:.1f} against a floor of {floor:.1f}; the "
                "floor grows with the size of the corpus, it is not a fixed number."
            )
    elif scored == 0:
        out.append(
            "No word of the question matched any key here, so nothing was ranked at all. "
            "That is a vocabulary miss rather than a near miss: asking again with the words "
            "the notes declare is what changes it."
        )
    return out


def wrap(sentence: str, width: int = 72, indent: str = "  ") -> list[str]:
    """Greedy word wrap: words are never split, each row indented."""
    rows: list[str] = []
    current = ""
    for word in sentence.split():
        if current and len(current) + 1 + len(word) > width:
            rows.append(indent + current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        rows.append(indent + current)
    return rows
