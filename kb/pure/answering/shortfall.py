"""The sentences printed under a refusal or a guess: why nothing was a hit, in numbers.

Each sentence carries one fact a person can act on: too few entries to rank anything,
files that no question can reach, or how much of the question the best file covered against
what a hit needs (or that no word matched at all, which is a vocabulary miss, not a near
miss).
"""

from __future__ import annotations


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


# A question of stopwords only ("the how") reached no scorer at all: no base is missing
# anything, so the sentence is about the question, and the miss log does not record it.
NO_SEARCHABLE_WORD = (
    "Every word of the question is one kb leaves out of every search (a stopword such as "
    "`the` or `how`, or punctuation), so there was nothing to look for and nothing was "
    "ranked. Ask again with the words that carry the meaning: the thing, the tool, the "
    "place. This is not a gap in the library, so it is not logged as a miss."
)


def shortfall(
    entries: int,
    agents: int,
    coverage: float,
    unreachable: int,
    hit_coverage: float,
    searchable: bool = True,
    unknown: tuple[float, float] | None = None,
) -> list[str]:
    """`searchable` is False when the question kept no word once stopwords went; `unknown`
    is (known share, the fleet's line) when the verdict refused because the fleet does not
    know the question well enough (`kb.pure.answering.verdict.unknown_to_fleet`)."""
    if entries == 0:
        return []
    if not searchable:
        return [NO_SEARCHABLE_WORD]
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
            f"{'has' if one else 'have'} no `Search for:` line and nothing else to be found "
            "by (no title, heading, front matter or file name with a word in it), so the "
            f"index holds no entry for {'it' if one else 'them'}. "
            f"`kb check` names {'it' if one else 'them'}."
        )
    if unknown is not None and coverage > 0:
        known, line = unknown
        out.append(
            f"{known:.0%} of the question's words are used by some note here, and the best "
            f"file covers {coverage:.0%} of it: too little for this fleet, where a question "
            f"its notes answer usually has more than {line:.0%} of its words known. If the "
            "fleet should answer it, the note that does needs the words people use for it "
            "(on its `Search for:` line, or as an alias line)."
        )
    elif coverage > 0:
        out.append(
            f"The best file covers {coverage:.0%} of the question, each word weighed by how "
            f"rare it is here; a hit needs {hit_coverage:.0%} and a clear lead over the next "
            "file. The words it lacks are the ones to add, as keys or as an alias line."
        )
    else:
        out.append(
            "No word of the question matched any note here, so nothing was ranked at all. "
            "That is a vocabulary miss rather than a near miss: asking again with the words "
            "the notes use is what changes it."
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
