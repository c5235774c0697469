"""`kb eval --triad`: an offline RAGAS-style triad, computed from words alone, no model.

Rules of this module:
- Content tokens: split on every character that is not alphanumeric, lowercase, keep
  tokens longer than 2 UTF-8 bytes that are not in the index stopword list.
- The served answer is the refusal sentence when the verdict is `nothing`, else the first
  passage of the reading list, else the keyword top's `base/path`, else empty.
- An answer that says it declines scores (1, 1, 1) when nothing was retrieved either and
  (1, 0, 0.5) when something was: declining is faithful, and answers nothing.
- faithfulness: share of the answer's tokens (repeats counted) found as substrings of the
  lowercased context; 1.0 for an answer without tokens.
- relevance: share of the question's tokens found as substrings of the lowercased answer;
  1.0 for a question without tokens.
- context relevancy: of the context pieces (split on `.`, newline, `;`, trimmed, at least 10
  bytes), the share that contain any question token; 0.0 with no context, 1.0 when no piece
  is long enough to judge.
- Each score is rounded to 2 decimals half away from zero (Rust's `f64::round`, not
  Python's banker's `round`); the composite is the mean of the three rounded scores, rounded
  the same way. Averages are over the rounded row values; the composite average is the mean
  of the three averages.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from attrs import frozen

from kb.pure.notes.plural import counted
from kb.pure.notes.tokens import STOPWORDS

REFUSAL = "The library does not hold this."
ABSTENTION_MARKERS = (
    "library does not hold this",
    "the library does not",
    "nao possui",
    "não possui",
    "not found",
)
MIN_PIECE_BYTES = 10

# Python's \w is str.isalnum() plus the underscore: so this splits on non-alphanumerics.
_NON_ALNUM = re.compile(r"[\W_]+")
_PIECE_SPLIT = re.compile(r"[.\n;]")


@frozen
class TriadScore:
    faithfulness: float
    relevance: float
    context: float
    composite: float


@frozen
class TriadAverages:
    n: int
    faithfulness: float
    relevance: float
    context: float
    composite: float


def round2(x: float) -> float:
    """Round half away from zero to 2 decimals, exactly on the binary value of x * 100."""
    y = abs(x) * 100.0
    whole = math.floor(y)
    if y - whole >= 0.5:
        whole += 1
    return math.copysign(whole / 100.0, x)


def content_tokens(text: str) -> list[str]:
    out: list[str] = []
    for raw in _NON_ALNUM.split(text):
        token = raw.lower()
        if len(token.encode("utf-8")) > 2 and token not in STOPWORDS:
            out.append(token)
    return out


def served_text(verdict: str, passages: Sequence[str], keyword_top: str | None) -> str:
    """What the deterministic stage would hand over for this question."""
    if verdict == "nothing":
        return REFUSAL
    if passages:
        return passages[0]
    return keyword_top or ""


def _share(hits: int, total: int) -> float:
    return hits / total if total else 1.0


def score(question: str, answer: str, context: Sequence[str]) -> TriadScore:
    lowered = answer.lower()
    if any(marker in lowered for marker in ABSTENTION_MARKERS):
        if not context:
            faith, relev, ctx = 1.0, 1.0, 1.0
        else:
            faith, relev, ctx = 1.0, 0.0, 0.5
    else:
        joined = " ".join(context).lower()
        answer_tokens = content_tokens(answer)
        faith = _share(sum(1 for t in answer_tokens if t in joined), len(answer_tokens))
        question_tokens = content_tokens(question)
        relev = _share(sum(1 for t in question_tokens if t in lowered), len(question_tokens))
        ctx = context_relevancy(question_tokens, context)
    faith, relev, ctx = round2(faith), round2(relev), round2(ctx)
    return TriadScore(faith, relev, ctx, round2((faith + relev + ctx) / 3.0))


def context_relevancy(question_tokens: Sequence[str], context: Sequence[str]) -> float:
    if not context:
        return 0.0
    pieces = [
        p.strip().lower()
        for c in context
        for p in _PIECE_SPLIT.split(c)
        if len(p.strip().encode("utf-8")) >= MIN_PIECE_BYTES
    ]
    if not pieces:
        return 1.0
    relevant = sum(1 for p in pieces if any(t in p for t in question_tokens))
    return relevant / len(pieces)


def averages(scores: Sequence[TriadScore]) -> TriadAverages:
    n = len(scores)
    if n == 0:
        return TriadAverages(0, 0.0, 0.0, 0.0, 0.0)
    faith = sum(s.faithfulness for s in scores) / n
    relev = sum(s.relevance for s in scores) / n
    ctx = sum(s.context for s in scores) / n
    return TriadAverages(n, faith, relev, ctx, (faith + relev + ctx) / 3.0)


def render(questions: Sequence[str], scores: Sequence[TriadScore]) -> str:
    """The block printed after the normal report, starting with its blank line."""
    lines = [
        "",
        "TRIAD  offline RAGAS-style evaluation:",
        f"  {'faith':<6} {'relev':<6} {'ctx':<6} {'comp':<6} question",
    ]
    for q, s in zip(questions, scores, strict=True):
        cells = " ".join(
            f"{f'{v:.2f}':<6}" for v in (s.faithfulness, s.relevance, s.context, s.composite)
        )
        lines.append(f"  {cells} {q}")
    avg = averages(scores)
    lines += [
        "",
        f"TRIAD  averages ({counted(avg.n, 'question')}): Faithfulness {avg.faithfulness:.2f} | "
        f"Relevance {avg.relevance:.2f} | Context {avg.context:.2f} | "
        f"Composite {avg.composite:.2f}",
    ]
    return "\n".join(lines) + "\n"
