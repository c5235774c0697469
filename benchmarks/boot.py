"""Measure `kb boot` the way a UserPromptSubmit hook runs it: one process per message.

    python benchmarks/boot.py [--sizes 1000] [--messages 40] [--work DIR] [--seed 0]
                              [--no-example] [--classifier] [--json FILE]

For the example fleet (copied to a scratch directory first) and for generated fleets of
each size (see generate.py; cached under --work when given), it indexes the copy once,
then pipes one hook payload per message into a fresh `kb boot --all` process and times the
wall clock from spawn to exit. Messages come from generate.questions: half answerable from
a note's real keys, half made of words that occur nowhere (refusals). Every message of a
run shares one session id, as a conversation does, so the first one injects the routed
agent's constitution and later ones mostly say `still`.

It prints one markdown table (median, p95 and max wall time, the answerable and refusal
halves, peak RSS) plus two floors timed the same way (`python -c pass`, `kb --version`),
and checks the goal: a median of at most 80 ms per message on the example fleet without a
classifier. `--classifier` adds a run on the example fleet with tests/models/classifier.py
configured, which shows what a model command costs per message even when it answers
instantly (one more process start).

Child processes run with a bytecode cache under --work (PYTHONPYCACHEPREFIX), as an
installed `kb` does; `KB_MISSES_PATH` points at a scratch file so refusals never write a
miss log into a fleet.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from generate import Question, default_agents, questions
from route import child_env, fresh_copy, generated_source, log, pct

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "fleet"
MODELS = ROOT / "tests" / "models"
KB = Path(sys.executable).with_name("kb")
FLOOR_RUNS = 10
GOAL_MS = 80.0


@dataclass
class Timing:
    seconds: float
    max_rss_mb: float
    output: bytes


def timed(cmd: Sequence[str], env: dict[str, str], cwd: Path, stdin: bytes = b"") -> Timing:
    """One process from spawn to exit: wall time, its own peak RSS (os.wait4), its stdout."""
    with tempfile.TemporaryFile(dir=cwd) as out, tempfile.TemporaryFile(dir=cwd) as inp:
        inp.write(stdin)
        inp.seek(0)
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, stdin=inp, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        output = out.read()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {code}:\n{output.decode(errors='replace')}")
    return Timing(seconds, usage.ru_maxrss / 1024, output)


@dataclass
class Result:
    name: str
    messages: int = 0
    ms: list[float] = field(default_factory=list)
    answerable_ms: list[float] = field(default_factory=list)
    refusal_ms: list[float] = field(default_factory=list)
    rss_mb: float = 0.0
    routed: int = 0  # messages whose briefing named an agent
    still: int = 0  # of those, how many said `still` (no constitution)

    def summary(self) -> dict[str, object]:
        out = asdict(self)
        for name in ("ms", "answerable_ms", "refusal_ms"):
            values = out.pop(name)
            out[f"{name.removesuffix('ms')}median_ms"] = pct(values, 50)
            out[f"{name.removesuffix('ms')}p95_ms"] = pct(values, 95)
        return out


def measure(
    name: str, fleet: Path, qs: Sequence[Question], env: dict[str, str], scratch: Path
) -> Result:
    res = Result(name, messages=len(qs))
    session = f"bench-{name.replace(' ', '-').replace(',', '')}"
    # warm-up, not counted: fills the bytecode cache and the header cache
    timed([str(KB), "boot", "--all"], env, scratch, _payload("warm up", "warm", fleet))
    for q in qs:
        t = timed([str(KB), "boot", "--all"], env, scratch, _payload(q.text, session, fleet))
        ms = t.seconds * 1000
        res.ms.append(ms)
        (res.answerable_ms if q.answerable else res.refusal_ms).append(ms)
        res.rss_mb = max(res.rss_mb, t.max_rss_mb)
        text = t.output.decode("utf-8", "replace")
        if text.startswith("VESTA: this message routes to "):
            res.routed += 1
        elif text.startswith("VESTA: still "):
            res.routed += 1
            res.still += 1
    log(f"{name}: median {pct(res.ms, 50):.1f} ms, p95 {pct(res.ms, 95):.1f} ms")
    return res


def _payload(prompt: str, session: str, fleet: Path) -> bytes:
    body = {
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
        "session_id": session,
        "cwd": str(fleet),
    }
    return json.dumps(body).encode()


def index(fleet: Path, env: dict[str, str], scratch: Path) -> None:
    timed([str(KB), "index", str(fleet)], env, scratch)


def table(results: Sequence[Result], floors: dict[str, float]) -> str:
    rows = [
        ("messages (one `kb boot` process each)", lambda r: f"{r.messages}"),
        ("median wall time", lambda r: f"{pct(r.ms, 50):.1f} ms"),
        ("p95 wall time", lambda r: f"{pct(r.ms, 95):.1f} ms"),
        ("max wall time", lambda r: f"{max(r.ms):.1f} ms"),
        ("median, answerable half", lambda r: f"{pct(r.answerable_ms, 50):.1f} ms"),
        ("median, refusal half", lambda r: f"{pct(r.refusal_ms, 50):.1f} ms"),
        ("routed to an agent / of those `still`", lambda r: f"{r.routed} / {r.still}"),
        ("peak RSS", lambda r: f"{r.rss_mb:.0f} MB"),
    ]
    head = "| measure | " + " | ".join(r.name for r in results) + " |"
    rule = "|---|" + "---:|" * len(results)
    body = [f"| {label} | " + " | ".join(fmt(r) for r in results) + " |" for label, fmt in rows]
    floor_lines = [f"- floor: {k} median {v:.1f} ms" for k, v in floors.items()]
    return "\n".join([head, rule, *body, "", *floor_lines])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000", help="generated fleet sizes, comma list")
    parser.add_argument("--messages", type=int, default=40, help="messages per fleet")
    parser.add_argument("--work", type=Path, default=None, help="cache and scratch directory")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-example", action="store_true", help="skip the example fleet")
    parser.add_argument(
        "--classifier",
        action="store_true",
        help="also time the example fleet with tests/models/classifier.py",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write results as JSON")
    args = parser.parse_args(argv)
    if args.messages < 2:
        parser.error("--messages must be at least 2")
    if not KB.exists():
        parser.error(f"no kb console script next to {sys.executable}; activate the venv")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    temp = None if args.work else Path(tempfile.mkdtemp(prefix="kb-boot-bench-"))
    work: Path = (args.work if temp is None else temp).resolve()
    work.mkdir(parents=True, exist_ok=True)
    env = child_env(work)
    env["KB_MISSES_PATH"] = str(work / "kb-misses.txt")
    env.pop("KB_MODEL_TIMEOUT", None)
    results: list[Result] = []
    load_before = os.getloadavg()[0]
    try:
        timed([str(KB), "--version"], env, work)  # fills the bytecode cache
        floors = {
            "`python -c pass`": statistics.median(
                timed([sys.executable, "-c", "pass"], env, work).seconds * 1000
                for _ in range(FLOOR_RUNS)
            ),
            "`kb --version`": statistics.median(
                timed([str(KB), "--version"], env, work).seconds * 1000 for _ in range(FLOOR_RUNS)
            ),
        }
        if not args.no_example:
            scratch = work / "example"
            scratch.mkdir(exist_ok=True)
            fleet = scratch / "run"
            fresh_copy(EXAMPLE, fleet)
            index(fleet, env, scratch)
            qs = questions(EXAMPLE, args.messages, args.seed)
            results.append(measure("example", fleet, qs, env, scratch))
            if args.classifier:
                (fleet / "models").mkdir(exist_ok=True)
                shutil.copy(MODELS / "classifier.py", fleet / "models" / "classifier.py")
                with (fleet / "fleet.txt").open("a", encoding="utf-8") as fh:
                    fh.write("classifier = models/classifier.py\n")
                results.append(measure("example + classifier", fleet, qs, env, scratch))
        for n in sizes:
            src = generated_source(work, n, default_agents(n), args.seed)
            fleet = src.parent / "run"
            fresh_copy(src, fleet)
            index(fleet, env, src.parent)
            qs = questions(src, args.messages, args.seed)
            results.append(measure(f"{n:,} notes", fleet, qs, env, src.parent))
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)

    print(table(results, floors))
    print()
    print(
        f"{os.cpu_count()} CPUs; 1-minute load average {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after; Python {sys.version.split()[0]}"
    )
    example = next((r for r in results if r.name == "example"), None)
    if example is not None:
        median = pct(example.ms, 50)
        verdict = "met" if median <= GOAL_MS else "MISSED"
        print(
            f"\nGoal: `kb boot` median on the example fleet without a classifier {median:.1f} ms "
            f"(goal <= {GOAL_MS:.0f} ms): {verdict}"
        )
    if args.json:
        args.json.write_text(json.dumps([r.summary() for r in results], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
