"""Measure `kb` on the read path and the index path, and compare with the issue's goals.

    python benchmarks/route.py [--sizes 1000,10000] [--queries 500] [--route-runs 20]
                               [--work DIR] [--seed 0] [--json FILE] [--no-example]

For the example fleet (copied to a scratch directory first: nothing is written into the
source tree) and for generated fleets of each size (see generate.py; cached under --work
when given, so a second run skips generating), it prints one markdown table:

- cold `kb index`: a subprocess on a fresh copy with no `.kb/`: wall time, notes/s, peak RSS
- warm `kb index`: the no-op re-index right after it (median of 3), peak RSS
- `Memory.open` in this process, with the header cache emptied (every header re-read and
  re-saved; median of 3) and warm (median of 5); the OS page cache is warm in both
- `Memory.ask` in this process: p50/p95 over --queries questions (half answerable from real
  keys, half made of words absent from the fleet), overall and per half, plus how often the
  answerable ones put their source note first and how often the absent ones were refused
- `kb route "<q>" <fleet>`: one whole process (the venv's `kb` console script), median and
  p95 wall time over --route-runs runs (after one uncounted warm-up), overall and per half,
  and its peak RSS; `python -c pass` and `kb --version` are timed the same way as floors
- the size of every `.kb/` directory on disk

Peak RSS is the child's own `ru_maxrss`, read with `os.wait4` for that one process, which a
small helper process starts (so the benchmark's own size does not leak into it; see run).
`KB_MISSES_PATH` points at a scratch file for every run, so refusals never write a miss log
into a fleet. Every `kb` process runs with a bytecode cache under `--work` (see child_env).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Container, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from generate import GENERATOR_VERSION, Question, default_agents, generate, questions

from kb.io.answering.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "fleet"
KB = Path(sys.executable).with_name("kb")
REINDEX_RUNS = 3
OPEN_WARM_RUNS = 5
OPEN_COLD_RUNS = 3
FLOOR_RUNS = 10


@dataclass
class Result:
    name: str
    notes: int = 0  # markdown files in scope for `kb index` (its "total: N files")
    md_bytes: int = 0
    cold_index_s: float = 0.0
    cold_index_rss_mb: float = 0.0
    warm_index_s: float = 0.0
    warm_index_rss_mb: float = 0.0
    index_bytes: int = 0
    open_cold_s: float = 0.0
    open_warm_s: float = 0.0
    entries: int = 0
    ask_ms: list[float] = field(default_factory=list)
    ask_answerable_ms: list[float] = field(default_factory=list)
    ask_absent_ms: list[float] = field(default_factory=list)
    # the same questions on a Memory held in memory (`Memory.warm`, decision 0037)
    warm_s: float = 0.0
    warm_mb: float = 0.0
    warm_ask_answerable_ms: list[float] = field(default_factory=list)
    warm_ask_absent_ms: list[float] = field(default_factory=list)
    warm_same_answers: float = 0.0
    answerable_top1: float = 0.0
    absent_refused: float = 0.0
    route_ms: list[float] = field(default_factory=list)
    route_answerable_ms: list[float] = field(default_factory=list)
    route_absent_ms: list[float] = field(default_factory=list)
    route_rss_mb: float = 0.0
    python_ms: float = 0.0
    version_ms: float = 0.0

    @property
    def notes_per_s(self) -> float:
        return self.notes / self.cold_index_s if self.cold_index_s else 0.0

    def summary(self) -> dict[str, object]:
        out = asdict(self)
        for name in (
            "ask_ms",
            "ask_answerable_ms",
            "ask_absent_ms",
            "warm_ask_answerable_ms",
            "warm_ask_absent_ms",
        ):
            values = out.pop(name)
            stem = name.removesuffix("_ms")
            out[f"{stem}_p50_ms"] = pct(values, 50)
            out[f"{stem}_p95_ms"] = pct(values, 95)
        for name in ("route_ms", "route_answerable_ms", "route_absent_ms"):
            values = out.pop(name)
            stem = name.removesuffix("_ms")
            out[f"{stem}_median_ms"] = pct(values, 50)
            out[f"{stem}_p95_ms"] = pct(values, 95)
        out.update(
            notes_per_s=self.notes_per_s,
            queries=len(self.ask_ms),
            route_runs=len(self.route_ms),
        )
        return out


def pct(values: Sequence[float], p: float) -> float:
    """The p-th percentile (nearest rank)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, round(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- processes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    seconds: float
    max_rss_mb: float
    output: str


# Every measured process is started by this small helper, never by the benchmark itself.
# Linux carries the spawning process's RSS high-water mark into the child's `ru_maxrss`
# across fork (or vfork) + exec, so a child spawned by a benchmark that has opened a
# 10,000-note fleet in-process reports at least the benchmark's own peak: `kb --version`
# read 324 MB after the parent had touched 300 MB. The helper stays at ~12 MB, which is
# then the floor of every figure (a bare `python -c pass` reads 12 MB through it).
_SPAWNER = r"""
import json, os, subprocess, sys, time
for line in sys.stdin:
    req = json.loads(line)
    try:
        with open(req["out"], "wb") as out:
            start = time.perf_counter()
            stdin = open(req["stdin"], "rb") if req.get("stdin") else subprocess.DEVNULL
            proc = subprocess.Popen(
                req["cmd"], stdin=stdin, stdout=out, stderr=subprocess.STDOUT, env=req["env"],
                cwd=req["cwd"],
            )
            _, status, usage = os.wait4(proc.pid, 0)
            if stdin is not subprocess.DEVNULL:
                stdin.close()
            seconds = time.perf_counter() - start
        reply = {
            "seconds": seconds,
            "code": os.waitstatus_to_exitcode(status),
            "maxrss_kib": usage.ru_maxrss,
        }
    except OSError as e:
        reply = {"error": str(e)}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"""
_spawner: subprocess.Popen[str] | None = None


def _spawn_helper() -> subprocess.Popen[str]:
    global _spawner
    if _spawner is None or _spawner.poll() is not None:
        _spawner = subprocess.Popen(
            [sys.executable, "-c", _SPAWNER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        atexit.register(_stop_helper, _spawner)
    return _spawner


def _stop_helper(helper: subprocess.Popen[str]) -> None:
    if helper.stdin is not None:
        helper.stdin.close()
    helper.wait(timeout=10)


def run(
    cmd: Sequence[str],
    env: dict[str, str],
    cwd: Path,
    ok: Container[int] = (0,),
    stdin: Path | None = None,
) -> Run:
    """Run one process to the end; its wall time and its own peak RSS (os.wait4).

    The process is started by a small helper process (see _SPAWNER), so its `ru_maxrss` is
    its own and not this benchmark's. An exit code outside `ok` raises (`kb check` exits 1
    on a fleet with errors, so scale.py passes `ok=(0, 1)` for it)."""
    helper = _spawn_helper()
    assert helper.stdin is not None and helper.stdout is not None
    fd, name = tempfile.mkstemp(dir=cwd, prefix=".kb-bench-out-")
    os.close(fd)
    out = Path(name)
    try:
        request = {
            "cmd": list(cmd),
            "env": env,
            "cwd": str(cwd),
            "out": str(out),
            "stdin": str(stdin) if stdin else "",
        }
        helper.stdin.write(json.dumps(request) + "\n")
        helper.stdin.flush()
        line = helper.stdout.readline()
        text = out.read_bytes().decode("utf-8", "replace")
    finally:
        out.unlink(missing_ok=True)
    if not line:
        raise RuntimeError(f"the spawn helper died while running {' '.join(cmd)}")
    reply = json.loads(line)
    if "error" in reply:
        raise RuntimeError(f"{' '.join(cmd)}: {reply['error']}")
    code = int(reply["code"])
    if code not in ok:
        raise RuntimeError(f"{' '.join(cmd)} exited {code}:\n{text}")
    return Run(float(reply["seconds"]), reply["maxrss_kib"] / 1024, text)  # KiB on Linux


# -- the fleet on disk -----------------------------------------------------------------


def fresh_copy(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".kb", "kb-misses.txt*"))


def kb_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob(".kb") if p.is_dir())


def tree_bytes(path: Path, pattern: str = "*") -> int:
    return sum(p.stat().st_size for p in path.rglob(pattern) if p.is_file())


def empty_header_caches(root: Path) -> None:
    for d in kb_dirs(root):
        conn = sqlite3.connect(d / "index.db")
        try:
            conn.execute("DELETE FROM headers")
            # and the kept stat passes, which stand for those rows: with them an open reads
            # no header at all, and "cache empty" measured a warm open
            conn.execute("DELETE FROM scan_lights")
            conn.commit()
        finally:
            conn.close()


def generated_source(work: Path, notes: int, agents: int, seed: int) -> Path:
    """A generated fleet under `work`, reused when a previous run wrote the same one."""
    home = work / f"gen-{notes}-a{agents}-s{seed}"
    src = home / "src"
    params = {"notes": notes, "agents": agents, "seed": seed, "version": GENERATOR_VERSION}
    stamp = home / "params.json"
    if stamp.exists() and json.loads(stamp.read_text()) == params and (src / "fleet").is_dir():
        log(f"reusing the generated fleet in {src}")
        return src
    if home.exists():
        shutil.rmtree(home)
    log(f"generating {notes} notes across {agents} agents into {src}")
    summary = generate(src, notes, agents, seed)
    stamp.write_text(json.dumps(params))
    log(f"  {summary.bytes / 1e6:.1f} MB, {summary.bytes / notes / 1e3:.1f} KB per note")
    return src


# -- measuring -------------------------------------------------------------------------


INDEX_TOTAL = re.compile(r"total: (\d+) files")


def child_env(work: Path) -> dict[str, str]:
    """The environment of every `kb` process: the caller's, with a bytecode cache.

    An installed `kb` normally runs from cached bytecode. This sandbox sets
    PYTHONDONTWRITEBYTECODE=1, which would make every process compile kb's modules again,
    so the cache goes to `work/pycache` (PYTHONPYCACHEPREFIX): nothing is written into the
    source tree, and a warm-up run fills it before anything is timed.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


def measure(
    name: str, src: Path, scratch: Path, qs: Sequence[Question], args: argparse.Namespace
) -> Result:
    env = child_env(args.work_dir)
    res = Result(name)
    fleet = scratch / "run"
    log(f"{name}: fresh copy of {src} into {fleet}")
    fresh_copy(src, fleet)
    res.md_bytes = tree_bytes(fleet, "*.md")

    log(f"{name}: cold kb index")
    cold = run([str(KB), "index", str(fleet)], env, scratch)
    found = INDEX_TOTAL.search(cold.output)
    res.notes = int(found.group(1)) if found else 0
    res.cold_index_s, res.cold_index_rss_mb = cold.seconds, cold.max_rss_mb
    log(f"  {cold.seconds:.2f} s, {res.notes_per_s:.0f} notes/s, {cold.max_rss_mb:.0f} MB")

    warm = [run([str(KB), "index", str(fleet)], env, scratch) for _ in range(REINDEX_RUNS)]
    res.warm_index_s = statistics.median(r.seconds for r in warm)
    res.warm_index_rss_mb = max(r.max_rss_mb for r in warm)
    res.index_bytes = sum(tree_bytes(d) for d in kb_dirs(fleet))
    log(f"{name}: warm kb index {res.warm_index_s:.3f} s")

    paths = [str(fleet)]
    cold_opens: list[float] = []
    for _ in range(OPEN_COLD_RUNS):
        empty_header_caches(fleet)
        start = time.perf_counter()
        Memory.open(paths).close()
        cold_opens.append(time.perf_counter() - start)
    res.open_cold_s = statistics.median(cold_opens)
    warm_opens: list[float] = []
    for _ in range(OPEN_WARM_RUNS):
        start = time.perf_counter()
        Memory.open(paths).close()
        warm_opens.append(time.perf_counter() - start)
    res.open_warm_s = statistics.median(warm_opens)
    log(f"{name}: Memory.open cold {res.open_cold_s:.3f} s, warm {res.open_warm_s:.3f} s")

    top1 = refused = answerable = absent = 0
    cold_answers: list[object] = []
    with Memory.open(paths) as memory:
        res.entries = memory.entry_count()
        for i in range(args.queries):
            q = qs[i % len(qs)]
            start = time.perf_counter()
            answer = memory.ask(q.text)
            ms = (time.perf_counter() - start) * 1000
            cold_answers.append(_answer_facts(answer))
            res.ask_ms.append(ms)
            (res.ask_answerable_ms if q.answerable else res.ask_absent_ms).append(ms)
            if q.answerable:
                answerable += 1
                top1 += answer.keyword_top == q.source
            else:
                absent += 1
                refused += answer.confidence.verdict == "nothing"
    res.answerable_top1 = top1 / answerable if answerable else 0.0
    res.absent_refused = refused / absent if absent else 0.0
    log(f"{name}: ask p50 {pct(res.ask_ms, 50):.3f} ms, p95 {pct(res.ask_ms, 95):.3f} ms")

    with Memory.open(paths) as memory:
        before = _rss_mb()
        start = time.perf_counter()
        memory.warm()
        res.warm_s = time.perf_counter() - start
        res.warm_mb = _rss_mb() - before
        same = 0
        for i in range(args.queries):
            q = qs[i % len(qs)]
            start = time.perf_counter()
            answer = memory.ask(q.text)
            ms = (time.perf_counter() - start) * 1000
            (res.warm_ask_answerable_ms if q.answerable else res.warm_ask_absent_ms).append(ms)
            same += _answer_facts(answer) == cold_answers[i]
        res.warm_same_answers = same / args.queries if args.queries else 1.0
    log(
        f"{name}: warm in {res.warm_s:.2f} s (+{res.warm_mb:.0f} MB), answerable ask p50 "
        f"{pct(res.warm_ask_answerable_ms, 50):.3f} ms, same answers {res.warm_same_answers:.0%}"
    )

    def route(i: int) -> Run:
        return run([str(KB), "route", qs[i % len(qs)].text, str(fleet)], env, scratch)

    route(0)  # warm-up, not counted: compiles into the bytecode cache if it is stale
    routes = [route(i) for i in range(args.route_runs)]
    res.route_ms = [r.seconds * 1000 for r in routes]
    for i, ms in enumerate(res.route_ms):
        answerable = qs[i % len(qs)].answerable
        (res.route_answerable_ms if answerable else res.route_absent_ms).append(ms)
    res.route_rss_mb = max(r.max_rss_mb for r in routes)
    log(f"{name}: kb route median {pct(res.route_ms, 50):.1f} ms")

    floor = [run([sys.executable, "-c", "pass"], env, scratch) for _ in range(FLOOR_RUNS)]
    res.python_ms = statistics.median(r.seconds for r in floor) * 1000
    version = [run([str(KB), "--version"], env, scratch) for _ in range(FLOOR_RUNS)]
    res.version_ms = statistics.median(r.seconds for r in version) * 1000
    return res


def _answer_facts(answer: object) -> tuple[object, ...]:
    """What must not change between a cold and a warm Memory: files, scores, verdict."""
    found = getattr(answer, "found", ())
    return (
        tuple((f.base, f.path, f.score) for f in found),
        getattr(answer, "confidence", None),
    )


def _rss_mb() -> float:
    """This process's resident memory now (Linux), in MB."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except (OSError, ValueError, IndexError):
        return 0.0


# -- reporting -------------------------------------------------------------------------


def table(results: Sequence[Result]) -> str:
    rows: list[tuple[str, Callable[[Result], str]]] = [
        ("notes indexed (`kb index` total)", lambda r: f"{r.notes:,}"),
        ("keyword entries", lambda r: f"{r.entries:,}"),
        ("markdown on disk", lambda r: f"{r.md_bytes / 1e6:.2f} MB"),
        ("cold `kb index` wall", lambda r: f"{r.cold_index_s:.2f} s"),
        ("cold `kb index` rate", lambda r: f"{r.notes_per_s:,.0f} notes/s"),
        ("cold `kb index` peak RSS", lambda r: f"{r.cold_index_rss_mb:.0f} MB"),
        ("warm no-op `kb index` wall (median of 3)", lambda r: f"{r.warm_index_s:.3f} s"),
        ("warm no-op `kb index` peak RSS", lambda r: f"{r.warm_index_rss_mb:.0f} MB"),
        ("index size on disk (all `.kb/`)", lambda r: f"{r.index_bytes / 1e6:.2f} MB"),
        ("`Memory.open`, header cache empty", lambda r: f"{r.open_cold_s * 1000:.0f} ms"),
        ("`Memory.open`, header cache warm", lambda r: f"{r.open_warm_s * 1000:.1f} ms"),
        ("`memory.ask` p50, all questions", lambda r: f"{pct(r.ask_ms, 50):.3f} ms"),
        ("`memory.ask` p95, all questions", lambda r: f"{pct(r.ask_ms, 95):.3f} ms"),
        ("`memory.ask` p50, answerable half", lambda r: f"{pct(r.ask_answerable_ms, 50):.3f} ms"),
        ("`memory.ask` p95, answerable half", lambda r: f"{pct(r.ask_answerable_ms, 95):.3f} ms"),
        ("`memory.ask` p50, absent-word half", lambda r: f"{pct(r.ask_absent_ms, 50):.3f} ms"),
        (
            "`memory.warm()`: time, resident memory added",
            lambda r: f"{r.warm_s:.2f} s, {r.warm_mb:.0f} MB",
        ),
        (
            "warm `memory.ask` p50, answerable half",
            lambda r: f"{pct(r.warm_ask_answerable_ms, 50):.3f} ms",
        ),
        (
            "warm `memory.ask` p95, answerable half",
            lambda r: f"{pct(r.warm_ask_answerable_ms, 95):.3f} ms",
        ),
        (
            "warm `memory.ask` p50, absent-word half",
            lambda r: f"{pct(r.warm_ask_absent_ms, 50):.3f} ms",
        ),
        ("warm answers equal to cold ones", lambda r: f"{r.warm_same_answers:.0%}"),
        ("answerable questions: source note first", lambda r: f"{r.answerable_top1:.0%}"),
        ("absent-word questions: refused", lambda r: f"{r.absent_refused:.0%}"),
        ("`kb route` process median", lambda r: f"{pct(r.route_ms, 50):.0f} ms"),
        ("`kb route` process p95", lambda r: f"{pct(r.route_ms, 95):.0f} ms"),
        (
            "`kb route` median, answerable half",
            lambda r: f"{pct(r.route_answerable_ms, 50):.0f} ms",
        ),
        ("`kb route` median, absent-word half", lambda r: f"{pct(r.route_absent_ms, 50):.0f} ms"),
        ("`kb route` peak RSS", lambda r: f"{r.route_rss_mb:.0f} MB"),
        ("floor: `kb --version` median", lambda r: f"{r.version_ms:.0f} ms"),
        ("floor: `python -c pass` median", lambda r: f"{r.python_ms:.0f} ms"),
    ]
    head = "| measure | " + " | ".join(r.name for r in results) + " |"
    rule = "|---|" + "---:|" * len(results)
    body = [f"| {label} | " + " | ".join(fmt(r) for r in results) + " |" for label, fmt in rows]
    return "\n".join([head, rule, *body])


def goals(results: Sequence[Result]) -> list[str]:
    by = {r.name: r for r in results}
    out: list[str] = []

    def check(label: str, value: float, limit: float, unit: str, at_most: bool = True) -> None:
        met = value <= limit if at_most else value >= limit
        sign = "<=" if at_most else ">="
        verdict = "met" if met else "MISSED"
        shown = f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
        out.append(f"- {label}: {shown} {unit} (goal {sign} {limit:,} {unit}): {verdict}")

    if "example" in by:
        ex = by["example"]
        check("ask p50, example fleet", pct(ex.ask_ms, 50), 1.2, "ms")
        check("ask p50, example fleet, answerable half", pct(ex.ask_answerable_ms, 50), 1.2, "ms")
        check("`kb route` median, example fleet", pct(ex.route_ms, 50), 60, "ms")
    for r in results:
        if r.name != "example":
            check(f"cold index rate, {r.name}", r.notes_per_s, 1000, "notes/s", at_most=False)
    if "10,000 notes" in by:
        big = by["10,000 notes"]
        check("ask p50, 10,000 notes", pct(big.ask_ms, 50), 10, "ms")
        check("ask p50, 10,000 notes, answerable half", pct(big.ask_answerable_ms, 50), 10, "ms")
        check("warm no-op re-index, 10,000 notes", big.warm_index_s, 1, "s")
        warm_answerable = big.warm_ask_answerable_ms
        check("warm ask p50, 10,000 notes, answerable half", pct(warm_answerable, 50), 5, "ms")
        check("warm ask p95, 10,000 notes, answerable half", pct(warm_answerable, 95), 20, "ms")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="generated fleet sizes, comma list")
    parser.add_argument("--queries", type=int, default=500, help="in-process asks per fleet")
    parser.add_argument("--route-runs", type=int, default=20, help="`kb route` processes")
    parser.add_argument("--work", type=Path, default=None, help="cache and scratch directory")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", type=int, default=None, help="agents per generated fleet")
    parser.add_argument("--no-example", action="store_true", help="skip the example fleet")
    parser.add_argument("--json", type=Path, default=None, help="also write results as JSON")
    args = parser.parse_args(argv)
    if args.queries < 1 or args.route_runs < 1:
        parser.error("--queries and --route-runs must be positive")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if not KB.exists():
        parser.error(f"no kb console script next to {sys.executable}; activate the venv")

    temp = None if args.work else Path(tempfile.mkdtemp(prefix="kb-bench-"))
    work: Path = (args.work if temp is None else temp).resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.environ["KB_MISSES_PATH"] = str(work / "kb-misses.txt")
    args.work_dir = work
    run([str(KB), "--version"], child_env(work), work)  # fills the bytecode cache before any timing
    results: list[Result] = []
    load_before = os.getloadavg()[0]
    try:
        if not args.no_example:
            qs = questions(EXAMPLE, max(args.queries, args.route_runs), args.seed)
            scratch = work / "example"
            scratch.mkdir(exist_ok=True)
            results.append(measure("example", EXAMPLE, scratch, qs, args))
        for n in sizes:
            agents = args.agents or default_agents(n)
            src = generated_source(work, n, agents, args.seed)
            qs = questions(src, max(args.queries, args.route_runs), args.seed)
            results.append(measure(f"{n:,} notes", src, src.parent, qs, args))
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)

    print(table(results))
    print()
    print(
        f"{os.cpu_count()} CPUs; 1-minute load average {load_before:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after; Python {sys.version.split()[0]}; "
        f"SQLite {sqlite3.sqlite_version}"
    )
    print()
    print("Goals:")
    print("\n".join(goals(results)))
    if args.json:
        args.json.write_text(json.dumps([r.summary() for r in results], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
