"""The text half of a question over every open base: each base's index picks its best
chunks, one fleet-wide scale ranks them all, a file with several chunks is scored by its
page, and passages are fetched only for the files an answer keeps (kb.io.answering.memory asks).

Apart from the Memory because these steps hold no state of their own: they read the open
bases' stores, and every rule they apply is kb.pure.answering.textrank's or
kb.pure.answering.fusion's.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from attrs import evolve

from kb.io.answering.opened import OpenBase
from kb.io.store import Store, match_expression
from kb.pure.answering.fusion import Found, Passage, TextHit, opening_excerpt
from kb.pure.answering.textrank import (
    Candidate,
    Scored,
    TextStats,
    file_text_score,
    fleet_stats,
    page_score,
    score_chunks,
    term_weights,
)
from kb.pure.notes.paths import stem_of

# How many files, best chunk first, are also scored as whole pages (`file_scores`): each
# costs a read of its chunks' word lists. On pydocs (fused top-1 / top-5 of 88): every
# ranked file (about 16) 54 / 77 at 29 ms a question; the first 10, 54 / 78 at 20 ms; the
# first 5, 53 / 73 at 15 ms (best chunks alone: 50 / 73 at 12 ms).
PAGE_CANDIDATES = 10


def ranked_text(
    stores: Sequence[Store],
    in_scope: Sequence[Container[str]],
    include_private: bool,
    terms: Sequence[str],
    limit: int,
    per_base: int,
) -> tuple[list[TextHit], list[str], TextStats, dict[tuple[str, str], float]]:
    """One text ranking over every open base, as stubs (base, path, rowid, score; no
    text yet), and each base's MATCH expression, so passages are fetched only for the
    files an answer keeps. Each base's own index picks its best `per_base`
    chunks; they are scored again on the fleet's
    scale (`kb.pure.answering.textrank`) and merged by that score. The index's own private column
    can be stale (a folder declared private after it was indexed), so every chunk must
    also be a file this open found in scope. The last value is each ranked file's text
    score: its best chunk's, averaged with its page's when it has several chunks
    (`textrank.file_text_score`)."""
    candidates: list[Candidate] = []
    exprs: list[str] = []
    stats: list[TextStats] = []
    forms: dict[str, set[str]] = {t: {t} for t in terms}
    if not terms or limit <= 0:
        return [], ["" for _ in stores], fleet_stats(()), {}
    ranked: list[tuple[int, list[tuple[int, str, str]]]] = []
    for i, (store, scope) in enumerate(zip(stores, in_scope, strict=True)):
        base_stats, variants = store.vocabulary.text_stats(terms)
        stats.append(base_stats)
        for t, found in variants.items():
            forms.setdefault(t, {t}).update(found)
        words = [w for t in terms for w in variants.get(t, (t,))]
        rows: list[tuple[int, str, str]]
        # `holds_none` and `rank` through the Store, where tests count and stand in for them
        if store.holds_none(words):
            # the expression the ranking would have built (absent words are never
            # pruned as too common), and no rows: nothing here can match
            expr, rows = match_expression(dict.fromkeys(words)), []
        else:
            expr, rows = store.rank(words, per_base, include_private)
        exprs.append(expr)
        ranked.append((i, [(rowid, base, path) for rowid, base, path in rows if path in scope]))
    fleet = fleet_stats(stats)
    stem_forms = {t: frozenset(v) for t, v in forms.items()}
    # Counted once every base has named its words: a warm base counts only the words
    # scoring reads, and another base's variants are among them.
    every_form = {f for v in stem_forms.values() for f in v}
    for i, kept in ranked:
        store = stores[i]
        counted = store.text.chunk_counts([rowid for rowid, _, _ in kept], every_form)
        texts = store.text.chunk_texts([rowid for rowid, _, _ in kept if rowid not in counted])
        for rowid, base, path in kept:
            if rowid in counted:
                heading, counts = counted[rowid]
                candidates.append(Candidate(base, path, rowid, i, heading, "", counts))
            elif rowid in texts:
                candidates.append(Candidate(base, path, rowid, i, *texts[rowid]))
    scored = score_chunks(terms, candidates, fleet, stem_forms)[:limit]
    by_file = file_scores(stores, scored, terms, fleet, stem_forms)
    stubs = [
        TextHit(
            s.candidate.base,
            s.candidate.path,
            s.candidate.heading_path,
            "",
            "",
            None,
            None,
            None,
            rowid=s.candidate.rowid,
            source=s.candidate.source,
            score=s.score,
            matched=s.matched,
        )
        for s in scored
    ]
    return stubs, exprs, fleet, by_file


def file_scores(
    stores: Sequence[Store],
    scored: Sequence[Scored],
    terms: Sequence[str],
    fleet: TextStats,
    variants: dict[str, frozenset[str]],
) -> dict[tuple[str, str], float]:
    """Each ranked file's text score (`textrank.file_text_score`): the page of a file
    with several chunks is scored from its chunks' counts, on the fleet's scale (the
    same word weights; its length against the fleet's mean page)."""
    best: dict[tuple[str, str], float] = {}
    best_words: dict[tuple[str, str], tuple[str, ...]] = {}
    by_store: dict[int, dict[str, str]] = {}  # store -> path -> base
    for s in scored:
        key = (s.candidate.base, s.candidate.path)
        if key not in best:
            best[key] = s.score
            best_words[key] = s.matched
            if len(best) <= PAGE_CANDIDATES:
                by_store.setdefault(s.candidate.source, {})[s.candidate.path] = key[0]
    pages = sum(store.text.page_total() for store in stores)
    average = fleet.tokens / pages if pages else 0.0
    weights = term_weights(terms, fleet)
    out = dict(best)
    forms = {f for t in terms for f in variants.get(t, frozenset({t}))}
    for i, paths in by_store.items():
        by_base: dict[str, list[str]] = {}
        for path, base in paths.items():
            by_base.setdefault(base, []).append(path)
        counted = {
            (base, path): counts
            for base, rels in by_base.items()
            for path, counts in stores[i].text.page_counts(base, rels, forms).items()
        }
        for key, counts in counted.items():
            if key in best:
                out[key] = file_text_score(
                    best[key],
                    best_words[key],
                    page_score(counts, weights, variants, average),
                )
    return out


def details(
    stores: Sequence[Store], stubs: Sequence[TextHit], exprs: Sequence[str]
) -> dict[tuple[int, int], tuple[str, str, str, str | None, str | None, str | None]]:
    """(store, rowid) -> the chunk's heading path, excerpt, text and file facts, fetched
    from each base's index for exactly these stubs."""
    wanted: dict[int, list[int]] = {}
    for stub in stubs:
        wanted.setdefault(stub.source, []).append(stub.rowid)
    return {
        (i, rowid): row
        for i, rowids in wanted.items()
        for rowid, row in stores[i].text.details(exprs[i], rowids).items()
    }


def with_passages(
    stores: Sequence[Store], found: Sequence[Found], stubs: Sequence[TextHit], exprs: Sequence[str]
) -> tuple[Found, ...]:
    kept = {(f.base, f.path) for f in found}
    fetched = details(stores, [s for s in stubs if (s.base, s.path) in kept], exprs)
    out: list[Found] = []
    for f in found:
        passages = tuple(
            Passage(d[0], d[2], d[1], d[3], d[4])
            for stub in stubs
            if (stub.base, stub.path) == (f.base, f.path)
            for d in [fetched.get((stub.source, stub.rowid))]
            if d is not None
        )
        out.append(evolve(f, passages=passages))
    return tuple(out)


def completed(
    bases: Sequence[OpenBase], stores: Sequence[Store], found: Sequence[Found]
) -> tuple[Found, ...]:
    """What a caller handing results on needs of every file: its absolute path, a title
    (its header's, else its file name's stem) and purpose, and at least one passage (a
    file found by its keys alone gets its opening chunk)."""
    named: dict[str, list[int]] = {}
    for n, b in enumerate(bases):
        named.setdefault(b.snapshot.name, []).append(n)

    def holder(f: Found) -> int | None:
        # Two open bases may share a folder name: the one that holds this file in
        # scope is its base; when more than one does, none is guessed at.
        held = [n for n in named.get(f.base, ()) if f.path in bases[n].light]
        return held[0] if len(held) == 1 else None

    where = {(f.base, f.path): holder(f) for f in found}
    untitled: dict[int, list[str]] = {}
    bare: dict[int, list[str]] = {}
    for f in found:
        at = where[(f.base, f.path)]
        if at is None:
            continue
        if not f.title or not f.purpose:
            untitled.setdefault(at, []).append(f.path)
        if not f.passages:
            bare.setdefault(at, []).append(f.path)
    headers = {
        (i, rel): h
        for i, rels in untitled.items()
        for rel, h in stores[i]
        .headers.full(bases[i].snapshot, bases[i].scan, rels, bases[i].light)
        .items()
    }
    openings = {
        (i, rel): chunk
        for i, rels in bare.items()
        for rel, chunk in stores[i].text.opening_chunks(bases[i].snapshot.name, rels).items()
    }
    out: list[Found] = []
    for f in found:
        at = where[(f.base, f.path)]
        if at is None:
            out.append(evolve(f, title=f.title or stem_of(f.path)))
            continue
        h = headers.get((at, f.path))
        title = f.title or (h.title if h is not None else "") or stem_of(f.path)
        purpose = f.purpose or (h.purpose if h is not None else "")
        passages = f.passages
        opening = openings.get((at, f.path))
        if not passages and opening is not None:
            heading, body, provenance, stage = opening
            passages = (Passage(heading, body, opening_excerpt(body), provenance, stage),)
        file = str(bases[at].snapshot.root / f.path)
        out.append(evolve(f, title=title, purpose=purpose, passages=passages, file=file))
    return tuple(out)
