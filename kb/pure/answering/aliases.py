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

from kb.pure.notes.tokens import normalise, question_terms


def _matching(
    terms: list[str], aliases: tuple[tuple[str, str], ...]
) -> list[tuple[list[str], list[str]]]:
    """The (alias words, canonical words) of every alias line the question's own words match,
    computed once against those words (never against what another line adds)."""
    query_norm = " ".join(terms)
    asked = frozenset(terms)
    out: list[tuple[list[str], list[str]]] = []
    for alias, canonical in aliases:
        alias_words = normalise(alias)
        if not alias_words:
            continue
        if len(alias_words) > 1:
            matches = " ".join(alias_words) in query_norm
        else:
            matches = alias_words[0] in asked
        if matches:
            out.append((alias_words, normalise(canonical)))
    return out


def expand(terms: list[str], aliases: tuple[tuple[str, str], ...]) -> list[str]:
    out = list(terms)
    present = set(out)
    for _, canonical in _matching(terms, aliases):
        for word in canonical:
            if word not in present:
                out.append(word)
                present.add(word)
    return out


def expand_query(question: str, aliases: tuple[tuple[str, str], ...]) -> list[str]:
    """The one term list both scorers receive: the question's words, each once (a repeat is
    not more evidence), then what the aliases add."""
    return expand(question_terms(question), aliases)


def expansion_sources(
    terms: list[str], aliases: tuple[tuple[str, str], ...]
) -> dict[str, tuple[str, ...]]:
    """For each word `expand` adds to `terms`, the question words whose alias line added it:
    evidence for the added word is evidence for them (what the verdict's coverage counts)."""
    asked = frozenset(terms)
    sources: dict[str, list[str]] = {}
    for alias_words, canonical in _matching(terms, aliases):
        for word in canonical:
            if word not in asked:
                sources.setdefault(word, []).extend(alias_words)
    return {w: tuple(dict.fromkeys(ws)) for w, ws in sources.items()}
