"""Edit distance, for the two places kb guesses what was meant by a misspelt word: a key word
behind a refused question (kb.pure.answering.suggest) and a verb the command line does not have.

Rules of this module:
- The distance is the optimal string alignment distance: the fewest one-letter
  substitutions, insertions, deletions and swaps of two neighbouring letters that turn one
  word into the other (`radiom`/`radium` 1, `gravty`/`gravity` 1, `raidum`/`radium` 1).
- `one_edit` answers "at most one edit apart" in one pass, without the distance table: it is
  what the suggestions ask of every candidate key word.
- `deletions` is a word's deletion neighbourhood: the word itself and every word one
  deletion away. Two words are at most one edit apart only if their neighbourhoods share a
  word, which lets an index find them without comparing a question with every key.
- A verb is guessed only when it is close: within one edit for a word of up to four letters,
  two for a longer one; else the one verb the word begins. `find` offers nothing rather
  than `index`.
"""

from __future__ import annotations

from collections.abc import Iterable


def distance(a: str, b: str) -> int:
    """The optimal string alignment distance between `a` and `b`."""
    if a == b:
        return 0
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by exactly one substitution, insertion, deletion or swap of
    two neighbouring letters (equal words are not one edit apart)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):  # one letter inserted into `a` at i
        return a[i:] == b[i + 1 :]
    if a[i + 1 :] == b[i + 1 :]:  # one letter substituted at i
        return True
    # two neighbouring letters swapped at i
    return i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]


def deletions(word: str) -> set[str]:
    """`word` and every word one deletion away from it."""
    return {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}


def nearest(word: str, names: Iterable[str]) -> str | None:
    """The name `word` most probably misspells, or None when no name is close: the nearest
    within the module's bound (ties by the order given), else the one name `word` begins."""
    pool = list(dict.fromkeys(names))
    if not word or word in pool:
        return None
    bound = 1 if len(word) <= 4 else 2
    best: tuple[int, str] | None = None
    for name in pool:
        d = distance(word, name)
        if d <= bound and (best is None or d < best[0]):
            best = (d, name)
    if best is not None:
        return best[1]
    begun = [name for name in pool if len(word) >= 2 and name.startswith(word)]
    return begun[0] if len(begun) == 1 else None
