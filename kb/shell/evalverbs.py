"""The measuring verbs: `kb eval` (a gold file graded through the Memory contract) and
`kb misses` (the miss log read back beside today's near misses).

Both take their typed input and return an Outcome; the answering is the Memory contract's,
the counting and the wording are kb.pure's. This module reads the gold file, stats the
files it names, and holds the clock for the timings.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from returns.result import Failure

from kb.io import misslog
from kb.io.memory import Answer, Memory, OpenError
from kb.io.walk import fleet_manifest
from kb.pure import evaluation, gold, nearmiss, triad
from kb.pure.election import ascii_lower, choose_agent_fused
from kb.pure.jsonout import dumps
from kb.shell.inputs import EvalInput, MissesInput
from kb.shell.outcome import Outcome
from kb.shell.readverbs import REBUILT_WARNING

APPLY_NEEDS_GOLD = (
    "kb misses: --apply writes alias lines into kb-aliases.txt, and a line is admitted only "
    "if the gold set survives it, so --apply needs --gold <tsv>. Without --gold, run "
    "`kb misses` to read the log and write the line yourself.\n"
)


def _runtime() -> str:
    return f"{platform.python_implementation()} {platform.python_version()}"


def _read_gold(path: str) -> tuple[tuple[gold.GoldRow, ...], None] | tuple[None, str]:
    """The parsed rows, or the `kb: ...` line saying why the file cannot be graded."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as e:
        return None, f"kb: cannot read {path}: {e.strerror or e}\n"
    except UnicodeDecodeError:
        return None, f"kb: cannot read {path}: it is not UTF-8 text\n"
    parsed = gold.parse(text, path)
    if isinstance(parsed, Failure):
        return None, f"kb: {parsed.failure()}\n"
    return parsed.unwrap(), None


def _existing(memory: Memory, rows: Sequence[gold.GoldRow]) -> frozenset[tuple[str, str]]:
    """The answers whose file is on disk under an opened base (agent compared in ASCII case)."""
    roots: dict[str, Path] = {}
    for b in memory.bases:
        for name in (b.snapshot.agent_name, b.snapshot.name):
            roots.setdefault(ascii_lower(name), b.snapshot.root)
    out: set[tuple[str, str]] = set()
    for row in rows:
        for answer in row.answers:
            key = gold.answer_key(answer)
            if key is not None and key[0] in roots and (roots[key[0]] / key[1]).is_file():
                out.add(key)
    return frozenset(out)


def _micros(start_ns: int) -> int:
    return (time.perf_counter_ns() - start_ns) // 1000


def evaluate(inp: EvalInput) -> Outcome:
    rows, problem = _read_gold(inp.gold)
    if rows is None:
        return Outcome(stderr=problem or "", code=2)
    try:
        memory = Memory.open(list(inp.paths) or ["."], all=inp.all)
    except OpenError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    with memory:
        warning = REBUILT_WARNING if memory.index_was_rebuilt else ""
        stale = gold.stale_answers(rows, _existing(memory, rows))
        if stale:
            return Outcome(stderr=warning + gold.stale_message(stale), code=1)
        routable = memory.routable_agents()
        classifier: _Classifier | None = None
        if inp.classify:
            found = _classifier(memory)
            if isinstance(found, Outcome):
                return Outcome(stderr=warning + found.stderr, code=found.code)
            classifier = found
        facts: list[evaluation.RowFacts] = []
        scores: list[triad.TriadScore] = []
        for row in rows:
            start = time.perf_counter_ns()
            answer = memory.ask(row.question, inp.top)
            fused_us = _micros(start)
            start = time.perf_counter_ns()
            memory.route(row.question, inp.top)
            keyword_us = _micros(start)
            verdict, classifier_us = (
                classifier.ask(row.question, answer) if classifier else (None, None)
            )
            facts.append(
                evaluation.facts_of(
                    row,
                    answer.found,
                    answer.keyword_top,
                    answer.confidence,
                    answer.agent,
                    choose_agent_fused(answer.found, routable),
                    routable,
                    fused_us,
                    keyword_us,
                    verdict,
                    classifier_us,
                )
            )
            if inp.triad:
                passages = [p.text for f in answer.found for p in f.passages]
                served = triad.served_text(answer.confidence.verdict, passages, answer.keyword_top)
                scores.append(triad.score(row.question, served, passages))
        report = evaluation.Report(
            gold=inp.gold,
            top=inp.top,
            entries=memory.entry_count(),
            agents=memory.agent_count(),
            floor=memory.floor(),
            runtime=_runtime(),
            facts=tuple(facts),
            summary=evaluation.summarise(facts),
            triad=tuple(scores) if inp.triad else None,
        )
    if inp.json:
        return Outcome(stdout=dumps(evaluation.to_json(report)) + "\n", stderr=warning)
    text = evaluation.render(report)
    if inp.triad:
        text += triad.render([r.question for r in rows], scores)
    return Outcome(stdout=text, stderr=warning)


class _Classifier:
    """The fleet's classifier, asked about one gold question at a time (`--classify`)."""

    def __init__(self, memory: Memory, command: str) -> None:
        from kb.io.model import model_timeout
        from kb.shell.bootverbs import roster_agents

        self.command = command
        self.root = Path(memory.opened[0])
        self.roster = roster_agents(memory)
        self.timeout = model_timeout()

    def ask(self, question: str, answer: Answer) -> tuple[evaluation.ClassifierVerdict | None, int]:
        from kb.io.model import run_model
        from kb.pure.classify import dossier, parse_reply

        prompt = dossier(
            self.roster, question, answer.found, answer.keyword_hits, answer.confidence
        )
        reply = run_model(self.command, prompt, self.root, self.timeout)
        micros = int(reply.elapsed_s * 1_000_000)
        judged = parse_reply(reply.text, [a.name for a in self.roster]) if reply.text else None
        if judged is None:
            return None, micros
        return evaluation.ClassifierVerdict(
            judged.owner, judged.coverage == "covered", micros
        ), micros


def _classifier(memory: Memory) -> _Classifier | Outcome:
    root = memory.opened[0]
    command = fleet_manifest(root).first("classifier")
    if command is None:
        return Outcome(
            stderr=(
                f"kb eval: --classify asks the command named by `classifier =` in "
                f"{Path(root) / 'fleet.txt'}, and there is no such line. Add one, or grade "
                "without --classify.\n"
            ),
            code=2,
        )
    # Said before the first call, not with the report: the calls can take minutes, and a
    # silent terminal reads as a hang.
    sys.stderr.write("kb eval: asking the classifier about every question, one model call each.\n")
    sys.stderr.flush()
    return _Classifier(memory, command)


def _apply_refusal(memory: Memory, gold_path: str) -> Outcome:
    """`--apply --gold`: every gate the spec names, then the honest end of this version."""
    rows, problem = _read_gold(gold_path)
    if rows is None:
        return Outcome(stderr=problem or "", code=2)
    stale = gold.stale_answers(rows, _existing(memory, rows))
    if stale:
        return Outcome(stderr=gold.stale_message(stale), code=2)
    root = memory.opened[0]
    if fleet_manifest(root).first("promoter") is None:
        return Outcome(
            stderr=(
                f"kb misses: {Path(root) / 'fleet.txt'} names no `promoter =` command, so "
                "there is no model to propose alias lines. Add a `promoter = <command>` line "
                "there, or write the alias line yourself.\n"
            ),
            code=2,
        )
    return Outcome(
        stderr=(
            "kb misses: a promoter is configured, but proposing alias lines with a model and "
            "measuring them against the gold set is not built in this version of kb; nothing "
            "was written. Run `kb misses` and write the alias line yourself.\n"
        ),
        code=2,
    )


def misses(inp: MissesInput) -> Outcome:
    if inp.apply and inp.gold is None:
        return Outcome(stderr=APPLY_NEEDS_GOLD, code=2)
    try:
        memory = Memory.open(list(inp.paths) or ["."], all=inp.all)
    except OpenError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    with memory:
        warning = REBUILT_WARNING if memory.index_was_rebuilt else ""
        if inp.apply and inp.gold is not None:
            refusal = _apply_refusal(memory, inp.gold)
            return Outcome(stderr=warning + refusal.stderr, code=refusal.code)
        path = misslog.log_path(memory.opened[0])
        try:
            logged = misslog.load(path)
        except OSError as e:
            return Outcome(
                stderr=warning + f"kb: could not read {path}: {e.strerror or e}\n", code=1
            )
        n = memory.entry_count()
        views = tuple(
            nearmiss.view_of(m, memory.retrieve(m.question, inp.top), memory.entries, n)
            for m in logged
        )
        report = nearmiss.MissesReport(
            log=str(path),
            exists=path.exists(),
            entries=n,
            agents=memory.agent_count(),
            floor=memory.floor(),
            views=views,
        )
    if inp.json:
        return Outcome(stdout=dumps(nearmiss.to_json(report)) + "\n", stderr=warning)
    return Outcome(stdout=nearmiss.render(report), stderr=warning)
