"""`kb eval`: grading the deterministic stage against a gold file, from values alone.

Rules of this module:
- A row's facts are what the Memory contract answered for its question (the fused reading
  list, the keyword top, the verdict, the router's agent) plus the fused-fold agent and the
  time it took; the shell measures, this module only counts.
- Answers compare by agent folded in ASCII and the relative path exactly, the way a
  directory name and a file path compare everywhere else.
- file hit: the first fused file is an answer. keyword hit: the keyword top is an answer.
  correct agents: the answers' agents that are routable (any answer's agent when nothing
  is routable). A row is ownable when it has an answer and a correct agent.
- routed: with a classifier verdict, its owner when it says the fleet covers the question,
  else nobody; without one (no `--classify`, or the classifier did not answer), nobody
  unless the verdict is `hit`, then the router's agent.
- With `--classify`: a classified hit is an ownable row whose verdict is covered with a
  correct owner; a row to decline is declined by the classifier when it names no owner or
  does not call the question covered. A row the classifier did not answer counts for
  neither: silence is not an answer, and the report says how many were silent.
- The gate: an answerable row whose keyword top is right puts its keyword score among the
  hit scores and is demoted if the verdict is not `hit`; one whose keyword top is wrong puts
  its score among the miss scores and is flagged if the verdict is not `hit`. A row to
  decline is refused (`nothing`), hedged (`guess`) or answered (`hit`).
- Beyond the original: MRR (mean of 1/rank of the first answer file in the fused list, 0
  when absent, over answerable rows) and no-answer accuracy (the share of rows to decline
  that were refused). Either is None when its denominator is 0.
- Percentages print with no decimals and are 0 when the denominator is 0; per-question
  microseconds are integer divisions by max(rows, 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import frozen

from kb.pure.answering.election import AgentChoice, ascii_lower
from kb.pure.answering.fusion import Found
from kb.pure.answering.verdict import NOTHING_MARGIN, Confidence, Verdict
from kb.pure.fleet.gold import GoldRow, answer_key, split_answer
from kb.pure.fleet.triad import TriadScore, averages
from kb.pure.notes.plural import counted
from kb.pure.render.jsonout import round6

VERDICT_WORDS: dict[str, str] = {"hit": "hit", "guess": "guess", "nothing": "none"}


@frozen
class ClassifierVerdict:
    """What a classifier said about one question (`kb eval --classify`)."""

    owner: str | None
    covered: bool
    micros: int


@frozen
class RowFacts:
    row: GoldRow
    top: str | None  # first fused result as base/path
    keyword_top: str | None
    rank: int | None  # 1-based rank of the first answer file in the fused list
    verdict: Verdict
    keyword_score: float
    margin: float
    keyword_agent: str | None  # the keyword fold: what the router uses
    fused_agent: str | None  # the fold over the fused list (measured, never routed by)
    routable: tuple[str, ...]
    fused_us: int
    keyword_us: int
    classifier: ClassifierVerdict | None = None
    classifier_us: int | None = None  # None: not asked; else the time the call took
    coverage: float = 0.0  # the share of the question the top file covers (the verdict's)
    # known share + coverage - the fleet's known-share line: `nothing` below NOTHING_MARGIN
    evidence: float = 0.0


def _key_of(base_path: str | None) -> tuple[str, str] | None:
    return answer_key(base_path) if base_path else None


def facts_of(
    row: GoldRow,
    found: Sequence[Found],
    keyword_top: str | None,
    confidence: Confidence,
    keyword_agent: AgentChoice | None,
    fused_agent: AgentChoice | None,
    routable: Sequence[str],
    fused_us: int,
    keyword_us: int,
    classifier: ClassifierVerdict | None = None,
    classifier_us: int | None = None,
) -> RowFacts:
    wanted = {answer_key(a) for a in row.answers} - {None}
    rank = next(
        (i for i, f in enumerate(found, start=1) if (ascii_lower(f.base), f.path) in wanted),
        None,
    )
    return RowFacts(
        row=row,
        top=f"{found[0].base}/{found[0].path}" if found else None,
        keyword_top=keyword_top,
        rank=rank,
        verdict=confidence.verdict,
        keyword_score=confidence.keyword_score,
        margin=confidence.margin,
        keyword_agent=keyword_agent.agent if keyword_agent else None,
        fused_agent=fused_agent.agent if fused_agent else None,
        routable=tuple(routable),
        fused_us=fused_us,
        keyword_us=keyword_us,
        classifier=classifier,
        classifier_us=classifier_us,
        coverage=confidence.coverage,
        evidence=confidence.known + confidence.coverage - confidence.known_line,
    )


# -- the per-row definitions -------------------------------------------------------------


def is_answer(row: GoldRow, base_path: str | None) -> bool:
    key = _key_of(base_path)
    return key is not None and key in {answer_key(a) for a in row.answers}


def file_hit(f: RowFacts) -> bool:
    return is_answer(f.row, f.top)


def keyword_hit(f: RowFacts) -> bool:
    return is_answer(f.row, f.keyword_top)


def correct_agents(f: RowFacts) -> tuple[str, ...]:
    """The answers' agents that can be elected, spelled as the fleet spells them."""
    parts = [p[0] for p in (split_answer(a) for a in f.row.answers) if p]
    if not f.routable:
        out = parts
    else:
        by_folded = {ascii_lower(n): n for n in f.routable}
        out = [by_folded[ascii_lower(p)] for p in parts if ascii_lower(p) in by_folded]
    return tuple(dict.fromkeys(out))


def _is_correct(f: RowFacts, agent: str | None) -> bool:
    return agent is not None and ascii_lower(agent) in {ascii_lower(a) for a in correct_agents(f)}


def routed(f: RowFacts) -> str | None:
    if f.classifier is not None:
        return f.classifier.owner if f.classifier.covered else None
    return f.keyword_agent if f.verdict == "hit" else None


def classified_hit(f: RowFacts) -> bool:
    c = f.classifier
    return c is not None and c.covered and _is_correct(f, c.owner)


def classifier_declined(f: RowFacts) -> bool:
    c = f.classifier
    return c is not None and (c.owner is None or not c.covered)


def marks(f: RowFacts) -> tuple[str, str, str]:
    """The file, agent and kw columns of a row."""
    if f.row.abstain:
        return ("ok" if f.verdict != "hit" else "BAD", "-", "-")
    return (
        "ok" if file_hit(f) else "MISS",
        "ok" if _is_correct(f, f.keyword_agent) else "MISS",
        "ok" if keyword_hit(f) else "MISS",
    )


# -- the summary -------------------------------------------------------------------------


@frozen
class ScoreRange:
    lo: float
    hi: float


@frozen
class Summary:
    rows: int
    answerable: int
    ownable: int
    file_fused: int
    file_keyword: int
    agent_routes: int
    agent_keyword: int
    agent_fused: int
    baseline: str | None
    baseline_hits: int
    flagged: int
    misses: int
    demoted: int
    hits: int
    declines: int
    refused: int
    hedged: int
    answered: int
    hit_range: ScoreRange | None
    miss_range: ScoreRange | None
    separates: bool | None  # None unless both ranges exist
    mrr: float | None
    no_answer_accuracy: float | None
    fused_us: int  # per question
    keyword_us: int
    # --classify only (None without it): classified hits of `ownable`, declines the
    # classifier got right, questions it did not answer, and its time per question.
    classified: int | None = None
    classifier_declined: int | None = None
    classifier_silent: int | None = None
    classifier_us: int | None = None
    # The verdict, measured: every `hit` verdict and those whose first file is gold; the
    # answerable questions refused outright; and the risk-coverage rows.
    verdict_hits: int = 0
    verdict_hits_right: int = 0
    answerable_refused: int = 0
    risk: tuple[RiskRow, ...] = ()


@frozen
class RiskRow:
    """Serving only the questions that pass `rule`: how many, and how many of them wrong (a
    question to decline counts as wrong when served)."""

    rule: str
    served: int
    wrong: int


# The evidence cut-offs the risk-coverage table reads at (known share + coverage - the
# fleet's line, the scale the verdict's `nothing` is decided on), beside the verdicts; the
# verdict's own margin is among them, marked as where `nothing` starts.
RISK_EVIDENCE = tuple(sorted({0.2, 0.3, 0.4, NOTHING_MARGIN, 0.6, 0.8, 1.0}))


def _wrong(f: RowFacts) -> bool:
    return f.row.abstain or not file_hit(f)


def risk_rows(facts: Sequence[RowFacts]) -> tuple[RiskRow, ...]:
    def row(rule: str, kept: Sequence[RowFacts]) -> RiskRow:
        return RiskRow(rule, len(kept), sum(1 for f in kept if _wrong(f)))

    served = [f for f in facts if f.top is not None]
    out = [
        row("hit", [f for f in served if f.verdict == "hit"]),
        row("hit or guess", [f for f in served if f.verdict != "nothing"]),
    ]
    out += [
        row(
            f"evidence >= {c:.2f}" + (" (nothing below)" if c == NOTHING_MARGIN else ""),
            [f for f in served if f.evidence >= c],
        )
        for c in RISK_EVIDENCE
    ]
    return tuple(out)


def _range(scores: Sequence[float]) -> ScoreRange | None:
    return ScoreRange(min(scores), max(scores)) if scores else None


def summarise(facts: Sequence[RowFacts]) -> Summary:
    answerable = [f for f in facts if not f.row.abstain]
    ownable = [f for f in answerable if correct_agents(f)]
    declines = [f for f in facts if f.row.abstain]
    owners: dict[str, int] = {}
    for f in ownable:
        for agent in correct_agents(f):
            owners[agent] = owners.get(agent, 0) + 1
    baseline = min(owners, key=lambda a: (-owners[a], a)) if owners else None
    baseline_hits = sum(1 for f in ownable if _is_correct(f, baseline))
    hit_scores = [f.keyword_score for f in answerable if keyword_hit(f)]
    miss_scores = [f.keyword_score for f in answerable if not keyword_hit(f)]
    hit_range, miss_range = _range(hit_scores), _range(miss_scores)
    separates = hit_range.lo > miss_range.hi if hit_range and miss_range else None
    mrr = sum(1.0 / f.rank for f in answerable if f.rank) / len(answerable) if answerable else None
    refused = sum(1 for f in declines if f.verdict == "nothing")
    n = max(len(facts), 1)
    asked = [f for f in facts if f.classifier_us is not None]
    return Summary(
        rows=len(facts),
        answerable=len(answerable),
        ownable=len(ownable),
        file_fused=sum(1 for f in answerable if file_hit(f)),
        file_keyword=len(hit_scores),
        agent_routes=sum(1 for f in ownable if _is_correct(f, routed(f))),
        agent_keyword=sum(1 for f in ownable if _is_correct(f, f.keyword_agent)),
        agent_fused=sum(1 for f in ownable if _is_correct(f, f.fused_agent)),
        baseline=baseline,
        baseline_hits=baseline_hits,
        flagged=sum(1 for f in answerable if not keyword_hit(f) and f.verdict != "hit"),
        misses=len(miss_scores),
        demoted=sum(1 for f in answerable if keyword_hit(f) and f.verdict != "hit"),
        hits=len(hit_scores),
        declines=len(declines),
        refused=refused,
        hedged=sum(1 for f in declines if f.verdict == "guess"),
        answered=sum(1 for f in declines if f.verdict == "hit"),
        hit_range=hit_range,
        miss_range=miss_range,
        separates=separates,
        mrr=mrr,
        no_answer_accuracy=refused / len(declines) if declines else None,
        fused_us=sum(f.fused_us for f in facts) // n,
        keyword_us=sum(f.keyword_us for f in facts) // n,
        classified=sum(1 for f in ownable if classified_hit(f)) if asked else None,
        classifier_declined=sum(1 for f in declines if classifier_declined(f)) if asked else None,
        classifier_silent=sum(1 for f in asked if f.classifier is None) if asked else None,
        classifier_us=sum(f.classifier_us or 0 for f in asked) // n if asked else None,
        verdict_hits=sum(1 for f in facts if f.verdict == "hit"),
        verdict_hits_right=sum(1 for f in facts if f.verdict == "hit" and not _wrong(f)),
        answerable_refused=sum(1 for f in answerable if f.verdict == "nothing"),
        risk=risk_rows(facts),
    )


# -- the report --------------------------------------------------------------------------


@frozen
class Report:
    """Everything the report prints; `runtime` names the interpreter that was timed."""

    gold: str
    top: int
    entries: int
    agents: int
    floor: float
    runtime: str
    facts: tuple[RowFacts, ...]
    summary: Summary
    triad: tuple[TriadScore, ...] | None = None


def pct(x: int, d: int) -> str:
    return f"{100.0 * x / d:.0f}" if d else "0"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def row_line(f: RowFacts) -> str:
    file_mark, agent_mark, kw_mark = marks(f)
    verdict = VERDICT_WORDS[f.verdict]
    return (
        f"  {file_mark:<4} {agent_mark:<5} {kw_mark:<4} {f.keyword_score:>6.1f} "
        f"{f.margin:>5.2f} {verdict:<6} {f.row.question}"
    )


def render(r: Report) -> str:
    s = r.summary
    a, o = s.answerable, s.ownable
    lines = [
        f"gold:     {counted(s.rows, 'question')}, {a} answerable",
        f"indexed:  {counted(r.entries, 'entry', 'entries')} across {counted(r.agents, 'agent')}",
        "",
        "  file agent kw    score  marg verdict question",
        *(row_line(f) for f in r.facts),
        "",
        f"FILE   fused   {s.file_fused}/{a}  ({pct(s.file_fused, a)}%)",
        f"       keyword {s.file_keyword}/{a}  ({pct(s.file_keyword, a)}%), "
        "the same question asked of the keyword scorer alone",
    ]
    if s.mrr is None:
        lines.append("       mrr     n/a, no question in this set has a file to find")
    else:
        lines.append(
            f"       mrr     {s.mrr:.3f}, the mean of 1/rank of the first gold file in the "
            f"fused top {r.top}, counting 0 where it is absent"
        )
    lines += [
        f"AGENT  routes  {s.agent_routes}/{o}  ({pct(s.agent_routes, o)}%), "
        "what boot hands over, classifier included",
        f"       keyword {s.agent_keyword}/{o}  ({pct(s.agent_keyword, o)}%), the deterministic "
        "fold alone, which is the fallback when no classifier answers",
        f"       fused   {s.agent_fused}/{o}  ({pct(s.agent_fused, o)}%), the same fold over "
        "the fused list; it chose the owner less often than the keyword fold when it was "
        "measured, so boot does not use it. Shown so that a change in it cannot hide",
    ]
    if o < a:
        excluded = a - o
        lines.append(
            f"       ({_plural(excluded, 'question')} excluded: answered only from an attached "
            "base, which can be read but cannot be the agent who answers)"
        )
    if s.classified is not None:
        lines.append(
            f"       model     {s.classified}/{o}  ({pct(s.classified, o)}%), a classifier "
            "reading the roster and the evidence"
        )
        if s.classifier_silent:
            lines.append(
                f"       ({_plural(s.classifier_silent, 'question')} got no answer from the "
                "classifier: counted as wrong, and routed by the keyword fallback)"
            )
    baseline = s.baseline or "none"
    lines.append(
        f"       always-{baseline}   {s.baseline_hits}/{o}  ({pct(s.baseline_hits, o)}%), "
        "the best a fixed choice can do on this set"
    )
    diff = s.agent_routes - s.baseline_hits
    sign = "+" if diff >= 0 else "-"
    noun = "question" if abs(diff) == 1 else "questions"
    lines += [
        f"       routing beats the fixed choice by {sign}{abs(diff)} {noun}",
        "",
        f"GATE   flagged {s.flagged}/{s.misses} of its own misses as a guess",
        f"       demoted {s.demoted}/{s.hits} correct answers to a guess",
    ]
    if s.declines:
        lines.append(
            f"       of {_plural(s.declines, 'question')} the set says to decline: refused "
            f"{s.refused}, hedged {s.hedged}, answered {s.answered}"
        )
        if s.classifier_declined is not None:
            lines.append(
                f"       model     {s.classifier_declined}/{s.declines}, and this is the answer "
                "it exists to give"
            )
        lines.append(
            f"       no-answer accuracy {s.refused}/{s.declines}  "
            f"({pct(s.refused, s.declines)}%), refused outright; a guess still hands over a "
            "list, so it does not count"
        )
    else:
        lines.append("       no-answer accuracy n/a, no question in this set says to decline")
    lines += verdict_lines(s)
    if s.hit_range and s.miss_range:
        lines += [
            f"       hit scores  {s.hit_range.lo:.2f} to {s.hit_range.hi:.2f}",
            f"       miss scores {s.miss_range.lo:.2f} to {s.miss_range.hi:.2f}",
        ]
        if s.separates and s.miss_range.hi < r.floor <= s.hit_range.lo:
            lines.append(
                f"       SEPARATES: every hit outscored every miss. Floor {r.floor:.1f} sits "
                "in the gap."
            )
        elif s.separates:
            lines.append(
                f"       SEPARATES: every hit outscored every miss, but the floor {r.floor:.1f} "
                f"sits outside the gap ({s.miss_range.hi:.2f} to {s.hit_range.lo:.2f})."
            )
        else:
            lines.append("       OVERLAPS: no floor tells a hit from a miss on this set.")
    lines += [
        "",
        f"SPEED  {s.fused_us} us per question fused, {s.keyword_us} us keyword only. "
        "No model, no network.",
    ]
    if s.classifier_us is not None:
        lines.append(
            f"       {s.classifier_us} us per question in the classifier, "
            f"{s.classifier_us // max(s.fused_us, 1)}x the arithmetic. That is the cost of the "
            "model, and the hook pays it on every message"
        )
    lines += [
        f"       Timed in-process under {r.runtime}, with the fleet already open: a `kb route` "
        "command adds its process start, imports and opening the fleet to these figures.",
    ]
    return "\n".join(lines) + "\n"


def verdict_lines(s: Summary) -> list[str]:
    """The VERDICT block: how far a `hit` can be trusted, and what each rule would serve."""
    lines = [
        f"VERDICT hit precision {s.verdict_hits_right}/{s.verdict_hits}  "
        f"({pct(s.verdict_hits_right, s.verdict_hits)}%), the hits whose first file is gold",
        f"       answerable refused {s.answerable_refused}/{s.answerable}, "
        f"questions to decline answered nothing {s.refused}/{s.declines} "
        f"(guess {s.hedged}, hit {s.answered})",
        "       risk-coverage: served, wrong among them (a question to decline counts wrong);",
        "       evidence is known share + coverage - the fleet's known-share line",
    ]
    lines += [
        f"         {r.rule:<34} {r.served:>4} served, {r.wrong:>4} wrong  "
        f"({pct(r.wrong, r.served)}%)"
        for r in s.risk
    ]
    return lines


# -- JSON --------------------------------------------------------------------------------


def _range_json(r: ScoreRange | None) -> dict[str, float] | None:
    return {"lo": round6(r.lo), "hi": round6(r.hi)} if r else None


def _maybe6(x: float | None) -> float | None:
    return round6(x) if x is not None else None


def row_json(f: RowFacts) -> dict[str, Any]:
    file_mark, agent_mark, kw_mark = marks(f)
    out: dict[str, Any] = {
        "line": f.row.line,
        "question": f.row.question,
        "answers": list(f.row.answers),
        "decline": f.row.abstain,
        "top": f.top,
        "keyword_top": f.keyword_top,
        "rank": f.rank,
        "verdict": f.verdict,
        "keyword_score": round6(f.keyword_score),
        "margin": round6(f.margin),
        "keyword_agent": f.keyword_agent,
        "fused_agent": f.fused_agent,
        "marks": {"file": file_mark, "agent": agent_mark, "kw": kw_mark},
    }
    if f.classifier_us is not None:  # --classify
        c = f.classifier
        out["classifier"] = {
            "answered": c is not None,
            "owner": c.owner if c else None,
            "covered": c.covered if c else None,
            "us": f.classifier_us,
        }
    return out


def to_json(r: Report) -> dict[str, Any]:
    """The `--json` payload; keys in the order written here (docs/verbs/eval.md)."""
    s = r.summary
    out: dict[str, Any] = {
        "gold": r.gold,
        "questions": s.rows,
        "answerable": s.answerable,
        "indexed": {"entries": r.entries, "agents": r.agents},
        "floor": round6(r.floor),
        "top": r.top,
        "rows": [row_json(f) for f in r.facts],
        "file": {"fused": s.file_fused, "keyword": s.file_keyword, "of": s.answerable},
        "agent": {
            "routes": s.agent_routes,
            "keyword": s.agent_keyword,
            "fused": s.agent_fused,
            "of": s.ownable,
            "excluded": s.answerable - s.ownable,
            "baseline": s.baseline,
            "baseline_hits": s.baseline_hits,
        },
        "gate": {
            "flagged": s.flagged,
            "misses": s.misses,
            "demoted": s.demoted,
            "hits": s.hits,
            "decline": {
                "of": s.declines,
                "refused": s.refused,
                "hedged": s.hedged,
                "answered": s.answered,
            },
            "hit_scores": _range_json(s.hit_range),
            "miss_scores": _range_json(s.miss_range),
            "separates": s.separates,
        },
        "mrr": _maybe6(s.mrr),
        "no_answer_accuracy": _maybe6(s.no_answer_accuracy),
        "verdict": {
            "hits": s.verdict_hits,
            "hits_right": s.verdict_hits_right,
            "hit_precision": _maybe6(
                s.verdict_hits_right / s.verdict_hits if s.verdict_hits else None
            ),
            "answerable_refused": s.answerable_refused,
            "decline_answered_hit": s.answered,
            "decline_answered_nothing": s.refused,
            "risk_coverage": [
                {"rule": r.rule, "served": r.served, "wrong": r.wrong} for r in s.risk
            ],
        },
        "speed": {"fused_us": s.fused_us, "keyword_us": s.keyword_us, "runtime": r.runtime},
    }
    if r.triad is not None:
        avg = averages(r.triad)
        out["triad"] = {
            "rows": [
                {
                    "question": f.row.question,
                    "faithfulness": t.faithfulness,
                    "relevance": t.relevance,
                    "context": t.context,
                    "composite": t.composite,
                }
                for f, t in zip(r.facts, r.triad, strict=True)
            ],
            "averages": {
                "faithfulness": round6(avg.faithfulness),
                "relevance": round6(avg.relevance),
                "context": round6(avg.context),
                "composite": round6(avg.composite),
            },
        }
    if s.classified is not None:
        out["classifier"] = {
            "hits": s.classified,
            "of": s.ownable,
            "declined": s.classifier_declined,
            "declines": s.declines,
            "silent": s.classifier_silent,
            "us": s.classifier_us,
        }
    return out
