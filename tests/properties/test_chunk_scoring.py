"""`textrank.score_chunks` reads each chunk's counts from whichever side is shorter (its own
counted words, or the question's forms): it must score every chunk as the plain formula
does, summing each question word's forms one by one, to the last bit."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.pure.answering.textrank import (
    K1,
    W_HEADING,
    B,
    Candidate,
    TextStats,
    score_chunks,
    term_weights,
)
from kb.pure.notes.tokens import stem

PURE = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# few letters, so stems collide and a chunk often holds several forms of one word
word = st.text(alphabet="abs", min_size=1, max_size=5)
counts = st.dictionaries(word, st.integers(min_value=1, max_value=9), max_size=8)


def plain(
    terms: list[str],
    chunks: list[Candidate],
    stats: TextStats,
    variants: Mapping[str, frozenset[str]] | None,
) -> list[tuple[int, float, tuple[str, ...]]]:
    """Each question word's term frequency summed form by form, as BM25 is written."""
    weights = term_weights(terms, stats)
    avgdl = stats.tokens / stats.chunks if stats.chunks and stats.tokens else 0.0
    out = []
    for c in chunks:
        assert c.counts is not None
        head, body, length = c.counts
        norm = K1 * (1.0 - B + B * (length / avgdl)) if avgdl else K1
        score, matched = 0.0, []
        for t in weights:
            if variants is None:
                forms = {w for w in (*head, *body) if stem(w) == stem(t)}
            else:
                forms = set(variants.get(t, frozenset())) | {t}
            tf = sum(W_HEADING * head.get(w, 0) + body.get(w, 0) for w in forms)
            if tf:
                score += weights[t] * tf * (K1 + 1.0) / (tf + norm)
                matched.append(t)
        if matched:
            out.append((c.rowid, score, tuple(matched)))
    return sorted(out, key=lambda r: (-r[1], r[0]))


@PURE
@given(
    terms=st.lists(word, min_size=1, max_size=5, unique=True),
    chunk_counts=st.lists(st.tuples(counts, counts, st.integers(0, 40)), max_size=12),
    variant_lists=st.lists(st.frozensets(word, max_size=4), min_size=5, max_size=5),
    known_variants=st.booleans(),
    df=st.lists(st.integers(0, 30), min_size=5, max_size=5),
)
def test_every_chunk_scores_as_the_plain_formula(
    terms: list[str],
    chunk_counts: list[tuple[dict[str, int], dict[str, int], int]],
    variant_lists: list[frozenset[str]],
    known_variants: bool,
    df: list[int],
) -> None:
    chunks = [
        Candidate("b", "p.md", rowid, 0, "", "", (head, body, len(head) + len(body) + extra))
        for rowid, (head, body, extra) in enumerate(chunk_counts)
    ]
    stats = TextStats(30, 30 * 20, tuple(zip(terms, df, strict=False)))
    variants = dict(zip(terms, variant_lists, strict=False)) if known_variants else None
    got = [
        (s.candidate.rowid, s.score, s.matched)
        for s in score_chunks(terms, chunks, stats, variants)
    ]
    assert got == plain(terms, chunks, stats, variants)
