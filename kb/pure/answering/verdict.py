"""The verdict: `hit`, `guess` or `nothing`, from named evidence with named lines.

Rules of this module (decision 0030 has the measurements behind every line):
- The evidence is the fused top file's (`evidence_for`): how much of the question's
  weight it holds (`coverage`, each word weighted by its rarity over the fleet's text), how
  far its text score leads the next file's, whether its keys were declared on a
  `Search for:` line and how many question words they hold; and the fleet's side: how many
  of the question's words the fleet knows at all (exact words, in any note's text or keys),
  and the fleet's own known-share line (`kb.pure.answering.calibration`), which moves with the
  fleet's size and vocabulary.
- `nothing`: no file, no word matched, or the known share plus the top file's coverage
  falls below the fleet's line plus `NOTHING_MARGIN`: the fleet does not know the question,
  or knows its words only scattered over notes that each hold a little of it.
- Declared keys are their author's statement of what a note answers: a top file whose
  declared keys hold two of the question's words and lead the keyword ranking
  `HIT_KEYWORD_LEAD` times over is a `hit` on any fleet, and one holding one such word is
  at least a `guess`, however little else of the question the fleet knows.
- `hit` otherwise needs two entries or more, two matched words (one, for a one-word
  question), `HIT_COVERAGE` of the question's weight, and a lead: by text
  (`HIT_TEXT_LEAD` of what a complete text answer scores) or by declared keys.
- Everything else is a `guess`, served with its list.
- The original's floor (`floor_for`, `confidence_of`) decides nothing any more: its number
  is still reported (`gate.floor`, the promoter's EVIDENCE line) with the keyword
  scorer's agreement and margin.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from attrs import frozen

from kb.pure.answering.fusion import Found, TextHit
from kb.pure.answering.keyword import W_KEYWORD, KeywordHit
from kb.pure.notes.tokens import normalise

Verdict = Literal["hit", "guess", "nothing"]


@frozen
class Confidence:
    verdict: Verdict
    agreement: int
    keyword_score: float
    margin: float
    floor: float
    # The share of the question the top file covers (`Evidence.coverage`); 0 when unjudged.
    coverage: float = 0.0
    # The share of the question's words the fleet knows, and the fleet's line for it.
    known: float = 0.0
    known_line: float = 0.0


# -- the evidence verdict ----------------------------------------------------------------

# `nothing` when known share + coverage < the fleet's known-share line + this margin. Chosen
# on both dev corpora together (decision 0030): every margin from 0.45 to 0.5 met the
# `nothing` goals on both; 0.5 is the band's end that refuses more.
NOTHING_MARGIN = 0.45
# A hit needs the top file to hold this share of the question's weight ...
HIT_COVERAGE = 0.4
# ... and to lead: its text score ahead of the next file's by this share of what a complete
# text answer scores, or (declared keys only) its keyword score this many times the
# runner-up's.
HIT_TEXT_LEAD = 0.2
HIT_KEYWORD_LEAD = 3.0
# Declared keys holding this many of the question's words, with that keyword lead, are a
# hit on any fleet.
DECLARED_HIT_WORDS = 2


@frozen
class Evidence:
    """What the fused top file, and the fleet, show for one question, as plain numbers."""

    coverage: float  # share of the question's weight the file matched, in [0, 1]
    matched: int  # how many of the question's words it matched
    asked: int  # how many distinct informative words the question has
    text_lead: float  # (its file text score - the best other file's) / a complete answer's
    keyword_lead: float  # top/runner-up keyword score when it is the keyword top; else 0
    declared: bool  # its keys were declared on a `Search for:` line
    entries: int
    known: float = 1.0  # share of the question's words the fleet knows (exact words)
    known_line: float = 0.0  # the fleet's known-share line (`kb.pure.answering.calibration`)
    declared_words: int = 0  # question words its declared keys hold
    # share of the question's weight its best passage holds with its keys (a long page
    # holds most everyday words somewhere; a hit's passage must hold the question itself)
    passage_coverage: float = -1.0


NO_EVIDENCE = Evidence(0.0, 0, 0, 0.0, 0.0, False, 0)


def coverage_of(weights: Mapping[str, float], matched: set[str] | frozenset[str]) -> float:
    """The matched words' share of the question's total weight, in [0, 1]."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return min(1.0, sum(w for t, w in weights.items() if t in matched) / total)


def declared_lead(e: Evidence) -> bool:
    """The top file's declared keys hold a question word and single it out."""
    return e.declared and e.declared_words >= 1 and e.keyword_lead >= HIT_KEYWORD_LEAD


def unknown_to_fleet(e: Evidence) -> bool:
    """The fleet does not know the question well enough to serve a list for it."""
    return e.known + e.coverage < e.known_line + NOTHING_MARGIN


def refused_as_unknown(c: Confidence) -> bool:
    """Whether a refusal was for what the fleet knows of the question (the line), rather than
    for no word matching at all: the shortfall explains the two differently."""
    return c.verdict == "nothing" and c.known + c.coverage < c.known_line + NOTHING_MARGIN


def verdict_of(e: Evidence) -> Verdict:
    """hit, guess or nothing from the evidence alone (the module's rules)."""
    if e.asked == 0 or e.matched == 0 or e.coverage <= 0.0:
        return "nothing"
    singled_out = declared_lead(e)
    if singled_out and e.declared_words >= DECLARED_HIT_WORDS and e.entries >= 2:
        return "hit"
    if unknown_to_fleet(e):
        return "guess" if singled_out else "nothing"
    if e.entries < MIN_ENTRIES_TO_ROUTE or e.matched < min(2, e.asked):
        return "guess"
    leads = e.text_lead >= HIT_TEXT_LEAD or singled_out
    passage = e.coverage if e.passage_coverage < 0 else e.passage_coverage
    return "hit" if passage >= HIT_COVERAGE and leads else "guess"


def judged(
    keyword_hits: Sequence[KeywordHit],
    text_keys: set[tuple[str, str]],
    n: int,
    evidence: Evidence,
) -> Confidence:
    """The confidence an answer reports: the evidence verdict, with the keyword scorer's
    agreement, score and margin kept as facts beside it."""
    facts = confidence_of(keyword_hits, text_keys, n)
    return Confidence(
        verdict_of(evidence),
        facts.agreement,
        facts.keyword_score,
        facts.margin,
        facts.floor,
        evidence.coverage,
        evidence.known,
        evidence.known_line,
    )


def evidence_for(
    top: Found | None,
    keyword_hits: Sequence[KeywordHit],
    text_hits: Sequence[TextHit],
    weights: dict[str, float],
    sources: dict[str, tuple[str, ...]],
    entries: int,
    text_scale: float,
    known: float = 1.0,
    known_line: float = 0.0,
) -> Evidence:
    """The evidence the fused top file `top` gives for a question whose own words carry
    `weights`. A word counts as matched when the file's keys or text hold it, or hold a word
    an alias line added for it (`sources`: added word -> the question words behind it).
    `text_scale` is what a complete text answer scores (the lead is a share of it, between
    best passages: a long page's whole-page score lifts its rank, not its lead); `known`
    and `known_line` the fleet's side, passed through."""
    if top is None or not weights:
        return evidence_none(entries, len(weights), known, known_line)
    key = (top.base, top.path)
    held: set[str] = {w for m in top.matched for w in normalise(m)}
    declared_held: set[str] = set()
    for hit in keyword_hits:
        if (hit.entry.base, hit.entry.rel) == key:
            # Every word the note says about itself counts as held, a word inside a
            # several-word key too (`zero downtime` holds `downtime`), though only the whole
            # phrase scores.
            e = hit.entry
            for text in (*e.keywords, e.title, e.stem, e.summary):
                held.update(normalise(text))
            if not e.derived:
                declared_held = {w for k in e.keywords for w in normalise(k)}
            break
    best: dict[tuple[str, str], float] = {}
    passage: set[str] = set(held)
    first_passage = True
    for t in text_hits:
        k = (t.base, t.path)
        if k == key:
            held.update(t.matched)
            if first_passage:  # text hits come best first: this is its best passage
                passage.update(t.matched)
                first_passage = False
        best[k] = max(best.get(k, 0.0), t.score)
    for word in list(held):
        held.update(sources.get(word, ()))
    for word in list(declared_held):
        declared_held.update(sources.get(word, ()))
    for word in list(passage):
        passage.update(sources.get(word, ()))
    matched = {w for w in weights if w in held}
    others = max((v for k, v in best.items() if k != key), default=0.0)
    text_lead = (best.get(key, 0.0) - others) / text_scale if text_scale > 0 else 0.0
    keyword_lead = 0.0
    declared = False
    if keyword_hits and (keyword_hits[0].entry.base, keyword_hits[0].entry.rel) == key:
        declared = not keyword_hits[0].entry.derived
        runner_up = keyword_hits[1].score if len(keyword_hits) > 1 else 0.0
        keyword_lead = keyword_hits[0].score / runner_up if runner_up > 0 else math.inf
    return Evidence(
        coverage_of(weights, matched),
        len(matched),
        len(weights),
        text_lead,
        keyword_lead,
        declared,
        entries,
        known,
        known_line,
        sum(w in declared_held for w in weights) if declared else 0,
        coverage_of(weights, {w for w in weights if w in passage}),
    )


def evidence_none(
    entries: int, asked: int, known: float = 1.0, known_line: float = 0.0
) -> Evidence:
    return Evidence(0.0, 0, asked, 0.0, 0.0, False, entries, known, known_line)


# -- the original's floor, reported only ------------------------------------------------

SCORE_FLOOR = 17.5
FLOOR_CALIBRATED_AT = 226
MIN_ENTRIES_TO_ROUTE = 2
MIN_MARGIN = 1.5  # reported in docs only; never gates


def idf_unique(n: int) -> float:
    """The idf of a word found in exactly one of `n` entries."""
    return math.log(1.0 + n / 2.0)


FLOOR_IN_UNIQUE_KEYS = SCORE_FLOOR / (W_KEYWORD * idf_unique(FLOOR_CALIBRATED_AT))


def floor_for(n: int) -> float:
    """The original's floor at `n` entries (0.6158 unique keys' score): reported, never
    decides."""
    if n <= 0:
        return 0.0
    return FLOOR_IN_UNIQUE_KEYS * W_KEYWORD * idf_unique(n)


def confidence_of(
    keyword_hits: Sequence[KeywordHit], text_keys: set[tuple[str, str]], n: int
) -> Confidence:
    """The keyword scorer's facts (agreement, top score, margin, the original's floor) with
    the original's floor verdict; `judged` replaces that verdict by the evidence's."""
    floor = floor_for(n)
    if not keyword_hits:
        return Confidence("nothing", 0, 0.0, 0.0, floor)
    top = keyword_hits[0]
    runner_up = keyword_hits[1].score if len(keyword_hits) > 1 else 0.0
    margin = top.score / runner_up if runner_up > 0 else 1.0
    agreement = 2 if (top.entry.base, top.entry.rel) in text_keys else 1
    verdict: Verdict = "hit" if n >= MIN_ENTRIES_TO_ROUTE and top.score >= floor else "guess"
    return Confidence(verdict, agreement, top.score, margin, floor)
