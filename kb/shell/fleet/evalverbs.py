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

from kb.io.answering.memory import DEFAULT_TOP, Answer, Memory, OpenError
from kb.io.answering.opened import entries_at
from kb.io.logs import misslog
from kb.io.notes.walk import fleet_manifest
from kb.pure.answering.election import ascii_lower, choose_agent_fused
from kb.pure.fleet import evaluation, gold, triad
from kb.pure.logs import nearmiss
from kb.pure.notes.plural import counted
from kb.pure.promotion import aliasgate
from kb.pure.render.jsonout import dumps
from kb.shell.answering.readverbs import open_warnings
from kb.shell.cli.inputs import EvalInput, MissesInput
from kb.shell.cli.outcome import Outcome

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
        warning = open_warnings(memory)
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
        from kb.io.roles.model import model_timeout
        from kb.shell.sessions.bootverbs import roster_agents

        self.command = command
        self.root = Path(memory.opened[0])
        self.roster = roster_agents(memory)
        self.timeout = model_timeout()

    def ask(self, question: str, answer: Answer) -> tuple[evaluation.ClassifierVerdict | None, int]:
        from kb.io.roles.model import run_model
        from kb.pure.roles.classify import dossier, parse_reply

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


def _apply_gates(memory: Memory, gold_path: str) -> tuple[tuple[gold.GoldRow, ...], str] | Outcome:
    """`--apply --gold`: every gate the spec names; the gold rows and promoter, or the refusal."""
    rows, problem = _read_gold(gold_path)
    if rows is None:
        return Outcome(stderr=problem or "", code=2)
    stale = gold.stale_answers(rows, _existing(memory, rows))
    if stale:
        return Outcome(stderr=gold.stale_message(stale), code=2)
    root = memory.opened[0]
    command = fleet_manifest(root).first("promoter")
    if command is None:
        return Outcome(
            stderr=(
                f"kb misses: {Path(root) / 'fleet.txt'} names no `promoter =` command, so "
                "there is no model to propose alias lines. Add a `promoter = <command>` line "
                "there, or write the alias line yourself.\n"
            ),
            code=2,
        )
    return rows, command


def _measure(
    first: str, rows: Sequence[gold.GoldRow], question: str, extra: Sequence[tuple[str, str]]
) -> aliasgate.Measurement:
    """One opening of the first path with --all semantics, the candidate held in memory."""
    with Memory.open([first], all=True, extra_aliases=extra) as memory:
        routable = memory.routable_agents()
        facts = []
        for row in rows:
            answer = memory.ask(row.question, DEFAULT_TOP)
            facts.append(
                evaluation.facts_of(
                    row,
                    answer.found,
                    answer.keyword_top,
                    answer.confidence,
                    answer.agent,
                    choose_agent_fused(answer.found, routable),
                    routable,
                    0,
                    0,
                )
            )
        summary = evaluation.summarise(facts)
        missed = memory.ask(question, DEFAULT_TOP).confidence.verdict == "nothing"
    return aliasgate.Measurement(
        missed,
        aliasgate.Columns(summary.file_fused, summary.agent_keyword, summary.answered),
    )


def _read_or_empty(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def _apply(memory: Memory, inp: MissesInput, rows: Sequence[gold.GoldRow], command: str) -> Outcome:
    from kb.io.clock import today_utc
    from kb.io.files.atomic import write_atomic
    from kb.io.roles.model import model_timeout, run_model
    from kb.pure.notes.names import printable  # the log's questions and the model's lines

    first = memory.opened[0]
    root = Path(first)
    path = misslog.log_path(first)
    try:
        logged = misslog.load(path)[: inp.top]
    except OSError as e:
        return Outcome(stderr=f"kb: could not read {path}: {e.strerror or e}\n", code=1)
    today = today_utc()
    timeout = model_timeout()
    by_name: dict[str, Path] = {}
    for b in memory.bases:
        for name in (b.snapshot.name, b.snapshot.agent_name):
            by_name.setdefault(ascii_lower(name), b.snapshot.root)
    entries = memory.entries  # unpacked on each call where the fleet is held
    vocab = [
        aliasgate.BaseVocabulary(
            b.snapshot.name,
            tuple(k for e in entries if e.base == b.snapshot.name for k in e.keywords),
        )
        for b in memory.bases
    ]
    # The log and the gold set are measured once without any candidate: every candidate is
    # compared with the same before, and nothing is written until every judgement is made.
    out = [f"log:      {path}", f"gold:     {inp.gold}, {counted(len(rows), 'question')}"]
    counts = {"proposed": 0, "admitted": 0, "refused": 0}
    proposer = {"declined": 0, "silent": 0, "unparseable": 0}
    pending: dict[Path, list[str]] = {}
    pending_aliases: dict[Path, set[str]] = {}
    refusals: list[tuple[str, str]] = []
    for miss in logged:
        out += ["", f"  {printable(miss.question)}"]
        reply = run_model(
            command, aliasgate.prompt(miss.question, miss.looked_like, vocab), root, timeout
        )
        if reply.text is None:
            proposer["silent"] += 1
            out.append(f"    the promoter did not answer ({printable(reply.reason)}).")
            continue
        parsed = aliasgate.parse_reply(reply.text)
        if parsed.declined:
            proposer["declined"] += 1
            out.append("    the promoter declined: no alias line would help.")
        elif parsed.unparseable:
            proposer["unparseable"] += 1
            out.append("    the promoter's reply held no `base<TAB>alias<TAB>canonical` line.")
        before: aliasgate.Measurement | None = None
        for cand in parsed.candidates:
            counts["proposed"] += 1
            out.append(f"    {printable(cand.base)}: {printable(cand.line)}")
            why = aliasgate.premeasure(cand, miss.question)
            base_root = by_name.get(ascii_lower(cand.base))
            if why is None and base_root is None:
                why = aliasgate.refused_before(
                    cand.line, f"this fleet has no base named `{cand.base}`"
                )
            if why is None and base_root is not None:
                present = aliasgate.aliases_in(_read_or_empty(base_root / aliasgate.ALIASES_NAME))
                if cand.alias.casefold() in present | pending_aliases.get(base_root, set()):
                    why = aliasgate.refused_before(
                        cand.line,
                        f"`{cand.alias}` is already an alias in "
                        f"{base_root / aliasgate.ALIASES_NAME}",
                    )
            if why is None and base_root is not None:
                if before is None:
                    before = _measure(first, rows, miss.question, ())
                after = _measure(first, rows, miss.question, [(cand.alias, cand.canonical)])
                verdict = aliasgate.judge(miss.question, before, after)
                if verdict.admitted:
                    counts["admitted"] += 1
                    pending.setdefault(base_root, []).append(
                        aliasgate.admitted_block(
                            cand, miss.question, today, before.columns, after.columns
                        )
                    )
                    pending_aliases.setdefault(base_root, set()).add(cand.alias.casefold())
                    out.append(f"      {printable(verdict.reason)}")
                    continue
                why = verdict.reason
            counts["refused"] += 1
            refusals.append((cand.line, why or ""))
            out.append(f"      {printable(why or '')}")
    written: list[str] = []
    try:
        for base_root, blocks in pending.items():
            target = base_root / aliasgate.ALIASES_NAME
            write_atomic(target, aliasgate.appended(_read_or_empty(target), blocks))
            written.append(f"wrote:    {target} ({len(blocks)} line{'s' * (len(blocks) != 1)})")
        if refusals:
            target = root / aliasgate.REJECTIONS_NAME
            folded = aliasgate.parse_rejections(_read_or_empty(target))
            from kb.pure.logs.logbounds import loggable

            for line, why in refusals:
                # a model's line and a reason quoting the question: scrubbed before written
                folded = aliasgate.fold_rejection(folded, loggable(line), loggable(why), today)
            write_atomic(target, aliasgate.render_rejections(folded))
            written.append(f"refused:  folded into {target}")
    except (OSError, UnicodeDecodeError) as e:
        return Outcome(stdout="\n".join(out) + "\n", stderr=f"kb: could not write: {e}\n", code=1)
    out += [
        "",
        f"proposed: {counts['proposed']}, admitted: {counts['admitted']}, "
        f"refused: {counts['refused']}",
        f"proposer: {proposer['declined']} declined, {proposer['silent']} silent, "
        f"{proposer['unparseable']} unparseable",
        *written,
    ]
    return Outcome(stdout="\n".join(out) + "\n")


def misses(inp: MissesInput) -> Outcome:
    if inp.apply and inp.gold is None:
        return Outcome(stderr=APPLY_NEEDS_GOLD, code=2)
    try:
        memory = Memory.open(list(inp.paths) or ["."], all=inp.all)
    except OpenError as e:
        return Outcome(stderr=f"kb: {e}\n", code=1)
    with memory:
        warning = open_warnings(memory)
        if inp.apply and inp.gold is not None:
            gated = _apply_gates(memory, inp.gold)
            if isinstance(gated, Outcome):
                return Outcome(stderr=warning + gated.stderr, code=gated.code)
            done = _apply(memory, inp, *gated)
            return Outcome(stdout=done.stdout, stderr=warning + done.stderr, code=done.code)
        path = misslog.log_path(memory.opened[0])
        try:
            logged = misslog.load(path)
        except OSError as e:
            return Outcome(
                stderr=warning + f"kb: could not read {path}: {e.strerror or e}\n", code=1
            )
        n = memory.entry_count()
        answers = [memory.ask(m.question, inp.top) for m in logged]
        listed = entries_at(memory.bases, ((f.base, f.path) for a in answers for f in a.found))
        views = tuple(
            nearmiss.view_of(m, a.found, listed, a.confidence.verdict == "hit")
            for m, a in zip(logged, answers, strict=True)
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
