"""Alias expansion: one direction (alias -> canonical), additive, never transitive.

Rules of this module:
- Matching is computed against the question's own words once; a word added by one alias
  line never triggers another line.
- A one-word alias matches a question word exactly; a several-word alias matches as a plain
  substring of the question's words joined by spaces.
- Expansion only appends words that are not already present: it can never remove a term,
  so it can never lower a note's keyword score.
"""

from __future__ import annotations

from kb.pure.tokens import normalise


def expand(terms: list[str], aliases: tuple[tuple[str, str], ...]) -> list[str]:
    query_norm = " ".join(terms)
    out = list(terms)
    present = set(out)
    for alias, canonical in aliases:
        alias_words = normalise(alias)
        if not alias_words:
            continue
        if len(alias_words) > 1:
            matches = " ".join(alias_words) in query_norm
        else:
            matches = alias_words[0] in terms
        if matches:
            for word in normalise(canonical):
                if word not in present:
                    out.append(word)
                    present.add(word)
    return out


def expand_query(question: str, aliases: tuple[tuple[str, str], ...]) -> list[str]:
    """The one term list both scorers receive."""
    return expand(normalise(question), aliases)
