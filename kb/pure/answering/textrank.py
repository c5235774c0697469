"""One text ranking over the whole fleet: BM25 with fleet-wide statistics.

Each base keeps its own full-text index, and SQLite's bm25() weighs a word by its rarity in
that one index, so scores from two bases are not comparable (a word common in one agent is
rare in another). Each base's index still chooses its best chunks; this module scores those
candidates again with the statistics of all open bases summed (chunk count, tokens, and
each word's document frequency), so every chunk is weighed on one scale and the merged list
is ordered by score, never by which base came first.

Rules of this module:
- BM25 with k1 = 1.2 and b = 0.75 (SQLite FTS5's own), idf = ln(1 + (N - n + 0.5)/(n + 0.5))
  (never negative, so a word in most chunks still counts a little, never against).
- Words compare by their stem (`tokens.stem`): `commits` in a note is evidence for `commit`
  in a question, and a question word's document frequency is its stem class's.
- A chunk's term frequency is its heading-path count times `W_HEADING` plus its text count;
  its length is all its tokens, heading path included, as FTS5 counts them.
- Ties sort by path, then base, then rowid: the order never depends on base order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from attrs import frozen

from kb.pure.notes.tokens import stem, words

# (heading word counts, body word counts, length in words): what BM25 reads of a chunk.
Counts = tuple[Mapping[str, int], Mapping[str, int], int]

K1 = 1.2
B = 0.75
W_HEADING = 2.0  # the heading path is the note's title and sections: FTS5 ranked it x2 too


@frozen
class TextStats:
    """What one text index (or the sum of several) says about a question's words."""

    chunks: int
    tokens: int
    df: tuple[tuple[str, int], ...]

    def plus(self, other: TextStats) -> TextStats:
        merged = Counter(dict(self.df))
        merged.update(dict(other.df))
        return TextStats(
            self.chunks + other.chunks, self.tokens + other.tokens, tuple(merged.items())
        )


NO_STATS = TextStats(0, 0, ())


def fleet_stats(parts: Iterable[TextStats]) -> TextStats:
    """The sum of `parts`, as folding them with `plus` gives it (words in order of first
    appearance), in one pass: a question sums one part per base."""
    chunks = tokens = 0
    df: dict[str, int] = {}
    for part in parts:
        chunks += part.chunks
        tokens += part.tokens
        for word, n in part.df:
            df[word] = df.get(word, 0) + n
    return TextStats(chunks, tokens, tuple(df.items()))


@frozen
class Candidate:
    """One chunk a base's own index chose, with what scoring it again needs."""

    base: str
    path: str
    rowid: int
    source: int  # which open store holds it
    heading_path: str
    text: str
    # The chunk's word counts as the index stored them (`counts_of` at index time): scoring
    # then tokenises nothing. None for a chunk an older index holds: its text is counted.
    counts: Counts | None = None


@frozen
class Scored:
    candidate: Candidate
    score: float
    matched: tuple[str, ...]  # the question's words this chunk contains, in question order


def idf(chunks: int, df: int) -> float:
    return math.log(1.0 + (chunks - df + 0.5) / (df + 0.5))


def term_weights(terms: Sequence[str], stats: TextStats) -> dict[str, float]:
    """Each question word's idf over the fleet's chunks; a word no chunk holds gets the
    largest idf there is (df 0)."""
    df = dict(stats.df)
    n = max(stats.chunks, 1)
    return {t: idf(n, min(df.get(t, 0), n)) for t in terms}


def evidence_weights(terms: Sequence[str], stats: TextStats) -> dict[str, float]:
    """Each question word's weight as evidence (what the verdict's coverage sums):
    ln(1 + N / (1 + df)) over the fleet's chunks, the keyword scorer's idf. Unlike BM25's
    idf it never falls to zero, so a word every note shares still counts as on topic, and a
    word no note holds weighs ln(1 + N), not unboundedly more."""
    df = dict(stats.df)
    n = max(stats.chunks, 1)
    return {t: math.log(1.0 + n / (1.0 + min(df.get(t, 0), n))) for t in terms}


# Tokenising a candidate is most of a question's cost (150 chunks of up to 1,800 characters
# at 10,000 notes in 10 bases), and the same chunks come back across questions: the counts
# of the most recent ones are kept. Pure: the same text always gives the same counts.
_COUNTED_MEMO = 4096


def counts_of(heading_path: str, text: str) -> Counts:
    """A chunk's word counts, as the index stores them beside the chunk and as scoring
    counts a chunk the index holds no counts for."""
    head_words = words(heading_path)
    body_words = words(text)
    return Counter(head_words), Counter(body_words), len(head_words) + len(body_words)


_counted = lru_cache(maxsize=_COUNTED_MEMO)(counts_of)


def score_chunks(
    terms: Sequence[str],
    candidates: Iterable[Candidate],
    stats: TextStats,
    variants: dict[str, frozenset[str]] | None = None,
) -> list[Scored]:
    """Every candidate that holds a question word, scored on the fleet's scale, best first.
    `variants` maps a question word to the indexed words that share its stem (the index
    knows them; without it a word's variants are the chunk words whose stem is its own)."""
    weights = term_weights(terms, stats)
    avgdl = stats.tokens / stats.chunks if stats.chunks and stats.tokens else 0.0
    asked = list(weights)
    # Each counted word -> the question words it is a form of. A term frequency is a sum of
    # whole counts (exact in a float in any order), so a chunk's counts can be read from
    # whichever side is shorter: its own counted words (a warm base hands over only the
    # question's forms it holds) or every form the question asks (a chunk counted whole).
    # Reading only the forms, one generator a word, took 188 us a question at 10,000
    # notes; this takes 118 (600 questions, the same scores to the bit).
    owners: dict[str, list[int]] = {}
    roots = [stem(t) for t in asked]  # for counted chunks: a word is a form by its stem
    if variants is not None:
        for k, t in enumerate(asked):
            for w in variants.get(t, frozenset()) | {t}:
                owners.setdefault(w, []).append(k)
    out: list[Scored] = []
    for c in candidates:
        head, body, length = c.counts if c.counts is not None else _counted(c.heading_path, c.text)
        if variants is None:
            owners = {}
            for k, t in enumerate(asked):
                for w in {*head, *body, t}:
                    if w == t or stem(w) == roots[k]:
                        owners.setdefault(w, []).append(k)
        tf = [0.0] * len(asked)
        if len(head) + len(body) < len(owners):
            for counted, weight in ((head, W_HEADING), (body, 1.0)):
                for w, n in counted.items():
                    for k in owners.get(w, ()):
                        tf[k] += weight * n
        else:
            for w, ks in owners.items():
                if f := W_HEADING * head.get(w, 0) + body.get(w, 0):
                    for k in ks:
                        tf[k] += f
        norm = K1 * (1.0 - B + B * (length / avgdl)) if avgdl else K1
        score = 0.0
        matched: list[str] = []
        for k, t in enumerate(asked):
            if f := tf[k]:
                score += weights[t] * f * (K1 + 1.0) / (f + norm)
                matched.append(t)
        if matched:
            out.append(Scored(c, score, tuple(matched)))
    out.sort(key=lambda s: (-s.score, s.candidate.path, s.candidate.base, s.candidate.rowid))
    return out


@frozen
class PageWords:
    """One page's chunks' stored word lists (heading paths, texts), joined for counting:
    each word between two spaces on either side, so a whole-word count never overlaps."""

    heads: str
    bodies: str
    length: int  # words in all its chunks, heading paths included (as BM25 counts length)


def page_words(stored: Iterable[tuple[str, str]]) -> PageWords:
    """`stored` is each chunk's (heading words, text words), each a list joined by single
    spaces as the index keeps them (`kb.io.store.textreader.counts_text`)."""
    heads: list[str] = []
    bodies: list[str] = []
    length = 0
    for head, body in stored:
        for words_of, out in ((head, heads), (body, bodies)):
            if words_of:
                out.append(words_of)
                length += words_of.count(" ") + 1
    return PageWords(
        "  " + "  ".join(h.replace(" ", "  ") for h in heads) + "  ",
        "  " + "  ".join(b.replace(" ", "  ") for b in bodies) + "  ",
        length,
    )


def page_counts(page: PageWords, forms: Iterable[str]) -> Counts:
    """How often each of `forms` occurs in the page's heading paths and texts (a whole-word
    count per form: counting every word of a 19-chunk page cost about 1 ms)."""
    head: dict[str, int] = {}
    body: dict[str, int] = {}
    for w in forms:
        if n := page.heads.count(f" {w} "):
            head[w] = n
        if n := page.bodies.count(f" {w} "):
            body[w] = n
    return head, body, page.length


def page_score(
    counts: Counts,
    weights: Mapping[str, float],
    forms: Mapping[str, frozenset[str]],
    average_length: float,
) -> tuple[float, frozenset[str]]:
    """A whole page scored as one document (BM25 over its chunks' counts summed), with the
    chunk scale's word weights so the two scores compare, and the question words it holds.
    A page whose answer is spread over several sections holds more of the question than
    any one of its chunks."""
    head, body, length = counts
    norm = K1 * (1.0 - B + B * (length / average_length)) if average_length else K1
    score = 0.0
    held: list[str] = []
    for t, w in weights.items():
        tf = sum(W_HEADING * head.get(f, 0) + body.get(f, 0) for f in forms.get(t, (t,)))
        if tf:
            score += w * tf * (K1 + 1.0) / (tf + norm)
            held.append(t)
    return score, frozenset(held)


def file_text_score(
    best_chunk: float,
    best_words: Iterable[str],
    page: tuple[float, frozenset[str]] | None,
) -> float:
    """A file's text score: its best chunk's, averaged with its page's when the page's
    sections together hold question words its best chunk lacks (a page that only repeats
    its best chunk's words is no more of an answer). Measured (fused top-1 / top-5): on the
    pydocs corpus of 312 long pages (of 88) best chunk alone 50 / 73, the larger of chunk
    and page 49 / 73, the mean whenever the page scores higher 54 / 78, this rule ...;
    til-dev's short notes (of 150) ..."""
    if page is None:
        return best_chunk
    score, held = page
    if not held - frozenset(best_words) or score <= best_chunk:
        return best_chunk
    return (best_chunk + score) / 2.0
