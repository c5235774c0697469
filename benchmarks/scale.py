"""Measure `kb` as a fleet grows, and show what grows worse than linearly.

    python benchmarks/scale.py [--sizes 1000,10000] [--work DIR] [--queries 400]
                               [--route-runs 10] [--cli-runs 3] [--seed 0] [--agents A]
                               [--json FILE]

For a generated fleet of each size (generate.py; cached under --work when given, so a second
run skips generating) it measures, on a fresh copy with no `.kb/`:

- cold `kb index` (one process) and the warm no-op re-index right after it (median of 3)
- `kb check` and `kb list` (one process each, median of --cli-runs)
- `kb route "<q>" <fleet>` (one process per question; --route-runs runs after one uncounted
  warm-up, a quarter of them, at least 3, from 100,000 notes on)
- peak RSS of every one of those processes (its own `ru_maxrss`, via route.run's os.wait4)
- in this process: `Memory.open` with the header cache warm (median of 3) and `Memory.ask`
  p50/p95 over --queries questions, over all of them and over each half (answerable from a
  note's real keys, refusals made of absent words)
- markdown and index (`.kb/`) bytes on disk

It prints one markdown table, then for each measure its growth between consecutive sizes
divided by the growth in notes (1.0 = linear; above 1.5 is flagged), then the issue's goals.
Reuses route.py's process runner and fleet helpers; nothing is written into the source tree.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from pathlib import Path

from generate import Question, default_agents, questions
from route import (
    INDEX_TOTAL,
    KB,
    ROOT,
    child_env,
    fresh_copy,
    generated_source,
    kb_dirs,
    log,
    pct,
    run,
    tree_bytes,
)

from kb.io.answering.memory import Memory

REINDEX_RUNS = 3
OPEN_RUNS = 3
FLOOR_RUNS = 5
LARGE = 100_000  # from this size on, fewer `kb route` and CLI runs
FLAG_ABOVE = 1.5  # growth / size growth above this is called worse than linear


@dataclass
class Size:
    """Every figure for one generated fleet."""

    size: int  # notes asked of the generator
    notes: int = 0  # `kb index`'s "total: N files" (public markdown, maps included)
    entries: int = 0
    md_bytes: int = 0
    index_bytes: int = 0
    cold_index_s: float = 0.0
    cold_index_rss_mb: float = 0.0
    warm_index_s: float = 0.0
    warm_index_rss_mb: float = 0.0
    check_s: float = 0.0
    check_rss_mb: float = 0.0
    list_s: float = 0.0
    list_rss_mb: float = 0.0
    open_s: float = 0.0
    ask_ms: list[float] = field(default_factory=list)
    ask_answerable_ms: list[float] = field(default_factory=list)
    ask_refusal_ms: list[float] = field(default_factory=list)
    route_ms: list[float] = field(default_factory=list)
    route_rss_mb: float = 0.0
    boot_ms: list[float] = field(default_factory=list)
    boot_rss_mb: float = 0.0
    version_ms: float = 0.0

    @property
    def label(self) -> str:
        return f"{self.size:,} notes"

    def peak_rss(self) -> tuple[float, str]:
        """The largest child peak RSS, and which command it was."""
        return max(
            (self.cold_index_rss_mb, "cold `kb index`"),
            (self.warm_index_rss_mb, "warm `kb index`"),
            (self.check_rss_mb, "`kb check`"),
            (self.list_rss_mb, "`kb list`"),
            (self.route_rss_mb, "`kb route`"),
            (self.boot_rss_mb, "`kb boot`"),
        )

    def summary(self) -> dict[str, object]:
        out = asdict(self)
        for name in ("ask_ms", "ask_answerable_ms", "ask_refusal_ms", "route_ms", "boot_ms"):
            values = out.pop(name)
            stem = name.removesuffix("_ms")
            out[f"{stem}_p50_ms"] = pct(values, 50)
            out[f"{stem}_p95_ms"] = pct(values, 95)
            out[f"{stem}_count"] = len(values)
        out["peak_rss_mb"], out["peak_rss_of"] = self.peak_rss()
        return out


# -- measuring -------------------------------------------------------------------------


def _median_run(
    cmd: Sequence[str], env: dict[str, str], cwd: Path, runs: int, ok: tuple[int, ...] = (0,)
) -> tuple[float, float]:
    """Median wall seconds and largest peak RSS (MB) of `runs` runs of one command."""
    done = [run(cmd, env, cwd, ok) for _ in range(runs)]
    return statistics.median(r.seconds for r in done), max(r.max_rss_mb for r in done)


def measure(size: int, src: Path, qs: Sequence[Question], args: argparse.Namespace) -> Size:
    env = child_env(args.work_dir)
    res = Size(size)
    large = size >= LARGE
    scratch = src.parent
    fleet = scratch / "run"
    name = res.label
    log(f"{name}: fresh copy of {src} into {fleet}")
    fresh_copy(src, fleet)
    res.md_bytes = tree_bytes(fleet, "*.md")

    log(f"{name}: cold kb index")
    cold = run([str(KB), "index", str(fleet)], env, scratch)
    found = INDEX_TOTAL.search(cold.output)
    res.notes = int(found.group(1)) if found else 0
    res.cold_index_s, res.cold_index_rss_mb = cold.seconds, cold.max_rss_mb
    log(f"  {cold.seconds:.2f} s, {cold.max_rss_mb:.0f} MB")
    res.warm_index_s, res.warm_index_rss_mb = _median_run(
        [str(KB), "index", str(fleet)], env, scratch, REINDEX_RUNS
    )
    res.index_bytes = sum(tree_bytes(d) for d in kb_dirs(fleet))
    log(f"{name}: warm kb index {res.warm_index_s:.3f} s")

    cli_runs = 1 if large else args.cli_runs
    # `kb check` exits 1 on a fleet with errors, and every generated fleet has some (E02, E05)
    res.check_s, res.check_rss_mb = _median_run(
        [str(KB), "check", str(fleet)], env, scratch, cli_runs, ok=(0, 1)
    )
    log(f"{name}: kb check {res.check_s:.2f} s, {res.check_rss_mb:.0f} MB")
    res.list_s, res.list_rss_mb = _median_run([str(KB), "list", str(fleet)], env, scratch, cli_runs)
    log(f"{name}: kb list {res.list_s:.2f} s, {res.list_rss_mb:.0f} MB")

    paths = [str(fleet)]
    Memory.open(paths).close()  # the header cache is warm after `kb index`; this warms imports
    opens: list[float] = []
    for _ in range(OPEN_RUNS):
        start = time.perf_counter()
        Memory.open(paths).close()
        opens.append(time.perf_counter() - start)
    res.open_s = statistics.median(opens)
    log(f"{name}: Memory.open {res.open_s:.3f} s")

    with Memory.open(paths) as memory:
        res.entries = memory.entry_count()
        for i in range(args.queries):
            q = qs[i % len(qs)]
            start = time.perf_counter()
            memory.ask(q.text)
            ms = (time.perf_counter() - start) * 1000
            res.ask_ms.append(ms)
            (res.ask_answerable_ms if q.answerable else res.ask_refusal_ms).append(ms)
    log(f"{name}: ask p50 {pct(res.ask_ms, 50):.3f} ms, p95 {pct(res.ask_ms, 95):.3f} ms")

    route_runs = max(3, args.route_runs // 4) if large else args.route_runs
    run([str(KB), "route", qs[0].text, str(fleet)], env, scratch)  # warm-up, not counted
    routes = [
        run([str(KB), "route", qs[i % len(qs)].text, str(fleet)], env, scratch)
        for i in range(route_runs)
    ]
    res.route_ms = [r.seconds * 1000 for r in routes]
    res.route_rss_mb = max(r.max_rss_mb for r in routes)
    log(f"{name}: kb route median {pct(res.route_ms, 50):.0f} ms")
    res.boot_ms, res.boot_rss_mb = _boots(fleet, qs, env, scratch, route_runs)
    log(f"{name}: kb boot median {pct(res.boot_ms, 50):.0f} ms")

    version = [run([str(KB), "--version"], env, scratch) for _ in range(FLOOR_RUNS)]
    res.version_ms = statistics.median(r.seconds for r in version) * 1000
    return res


def _boots(
    fleet: Path, qs: Sequence[Question], env: dict[str, str], scratch: Path, runs: int
) -> tuple[list[float], float]:
    """`kb boot <fleet>` once per question, each handed the hook's JSON on stdin (a fresh
    session id each time, as a new conversation would be)."""
    payload = scratch / "boot-payload.json"
    times: list[float] = []
    rss = 0.0
    for i in range(runs + 1):
        q = qs[i % len(qs)]
        payload.write_text(json.dumps({"prompt": q.text, "session_id": f"bench-{i}"}))
        done = run([str(KB), "boot", str(fleet)], env, scratch, stdin=payload)
        if i:  # the first is a warm-up, not counted
            times.append(done.seconds * 1000)
            rss = max(rss, done.max_rss_mb)
    payload.unlink(missing_ok=True)
    return times, rss


def measure_example(args: argparse.Namespace) -> Size:
    """`kb route` and `kb boot` per process on a copy of examples/fleet (the small fleet a
    newcomer starts with), after one `kb index`."""
    res = Size(0)
    scratch = args.work_dir / "example"
    fleet = scratch / "fleet"
    fresh_copy(ROOT / "examples" / "fleet", fleet)
    env = child_env(args.work_dir)
    run([str(KB), "index", str(fleet)], env, scratch)
    gold = [line.split("\t")[0] for line in (fleet / "gold.tsv").read_text().splitlines()]
    qs = [Question(q, True, None) for q in gold if q and not q.startswith("#")]
    run([str(KB), "route", qs[0].text, str(fleet)], env, scratch)  # warm-up
    routes = [
        run([str(KB), "route", qs[i % len(qs)].text, str(fleet)], env, scratch)
        for i in range(args.route_runs)
    ]
    res.route_ms = [r.seconds * 1000 for r in routes]
    res.route_rss_mb = max(r.max_rss_mb for r in routes)
    res.boot_ms, res.boot_rss_mb = _boots(fleet, qs, env, scratch, args.route_runs)
    log(
        f"example fleet: kb route median {pct(res.route_ms, 50):.0f} ms, "
        f"kb boot median {pct(res.boot_ms, 50):.0f} ms"
    )
    return res


# -- reporting -------------------------------------------------------------------------

# (label, value for the growth ratio, how to show it); a value of 0 is left out of ratios
Row = tuple[str, Callable[[Size], float], Callable[[float], str]]


def _ms(v: float) -> str:
    return f"{v:,.0f} ms" if v >= 100 else f"{v:.2f} ms"


def _s(v: float) -> str:
    return f"{v:.2f} s" if v >= 0.1 else f"{v * 1000:.0f} ms"


def _mb(v: float) -> str:
    return f"{v:,.0f} MB" if v >= 10 else f"{v:.1f} MB"


ROWS: list[Row] = [
    ("notes indexed (`kb index` total)", lambda r: r.notes, lambda v: f"{v:,.0f}"),
    ("keyword entries", lambda r: r.entries, lambda v: f"{v:,.0f}"),
    ("markdown on disk", lambda r: r.md_bytes / 1e6, _mb),
    ("index on disk (all `.kb/`)", lambda r: r.index_bytes / 1e6, _mb),
    ("cold `kb index` wall", lambda r: r.cold_index_s, _s),
    ("cold `kb index` peak RSS", lambda r: r.cold_index_rss_mb, _mb),
    ("warm no-op `kb index` wall (median of 3)", lambda r: r.warm_index_s, _s),
    ("warm no-op `kb index` peak RSS", lambda r: r.warm_index_rss_mb, _mb),
    ("`kb check` wall", lambda r: r.check_s, _s),
    ("`kb check` peak RSS", lambda r: r.check_rss_mb, _mb),
    ("`kb list` wall", lambda r: r.list_s, _s),
    ("`kb list` peak RSS", lambda r: r.list_rss_mb, _mb),
    ("`Memory.open`, header cache warm (median of 3)", lambda r: r.open_s, _s),
    ("`Memory.ask` p50, all", lambda r: pct(r.ask_ms, 50), _ms),
    ("`Memory.ask` p95, all", lambda r: pct(r.ask_ms, 95), _ms),
    ("`Memory.ask` p50, answerable half", lambda r: pct(r.ask_answerable_ms, 50), _ms),
    ("`Memory.ask` p95, answerable half", lambda r: pct(r.ask_answerable_ms, 95), _ms),
    ("`Memory.ask` p50, refusal half", lambda r: pct(r.ask_refusal_ms, 50), _ms),
    ("`Memory.ask` p95, refusal half", lambda r: pct(r.ask_refusal_ms, 95), _ms),
    ("`kb route` process median", lambda r: pct(r.route_ms, 50), _ms),
    ("`kb route` process p95", lambda r: pct(r.route_ms, 95), _ms),
    ("`kb route` peak RSS", lambda r: r.route_rss_mb, _mb),
    ("`kb boot` process median", lambda r: pct(r.boot_ms, 50), _ms),
    ("`kb boot` process p95", lambda r: pct(r.boot_ms, 95), _ms),
    ("`kb boot` peak RSS", lambda r: r.boot_rss_mb, _mb),
    ("floor: `kb --version` median", lambda r: r.version_ms, _ms),
]


def table(results: Sequence[Size]) -> str:
    head = "| measure | " + " | ".join(r.label for r in results) + " |"
    rule = "|---|" + "---:|" * len(results)
    body = [
        f"| {label} | " + " | ".join(show(value(r)) for r in results) + " |"
        for label, value, show in ROWS
    ]
    counts = " | ".join(f"{len(r.ask_ms)} / {len(r.route_ms)}" for r in results)
    return "\n".join([head, rule, *body, f"| asks / `kb route` runs | {counts} |"])


def growth(results: Sequence[Size]) -> dict[str, dict[str, float]]:
    """measure -> "a→b" -> (value growth) / (size growth), for consecutive sizes."""
    out: dict[str, dict[str, float]] = {}
    for label, value, _ in ROWS:
        for a, b in pairwise(results):
            va, vb = value(a), value(b)
            if va > 0 and vb > 0:
                out.setdefault(label, {})[f"{a.size}->{b.size}"] = (vb / va) / (b.size / a.size)
    return out


def growth_table(results: Sequence[Size], ratios: dict[str, dict[str, float]]) -> str:
    steps = [f"{a.size}->{b.size}" for a, b in pairwise(results)]
    if not steps:
        return "(one size only: no growth to compare)"
    head = "| measure | " + " | ".join(s.replace("->", " → ") for s in steps) + " |"
    rule = "|---|" + "---:|" * len(steps)
    body = []
    for label, _, _ in ROWS:
        cells = []
        for step in steps:
            r = ratios.get(label, {}).get(step)
            cells.append(
                "n/a"
                if r is None
                else f"**{r:.2f} worse than linear**"
                if r > FLAG_ABOVE
                else f"{r:.2f}"
            )
        body.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join([head, rule, *body])


def goals(results: Sequence[Size], example: Size | None = None) -> list[str]:
    """Issue 15's goals, per process unless said (bytecode caches allowed)."""
    by = {r.size: r for r in results}
    if example is not None:
        by[0] = example
    out: list[str] = []

    def check(
        label: str, size: int, value: Callable[[Size], float], limit: float, unit: str
    ) -> None:
        if size not in by:
            where = "drop --no-example" if size == 0 else f"add {size} to --sizes"
            out.append(f"- {label}: not measured ({where})")
            return
        v = value(by[size])
        verdict = "met" if v <= limit else "MISSED"
        out.append(f"- {label}: {v:,.3g} {unit} (goal <= {limit:g} {unit}): {verdict}")

    def route(r: Size) -> float:
        return pct(r.route_ms, 50)

    def boot(r: Size) -> float:
        return pct(r.boot_ms, 50)

    check("`kb route` median, example fleet", 0, route, 60, "ms")
    check("`kb route` median, 10,000 notes", 10_000, route, 120, "ms")
    check("`kb route` median, 100,000 notes", 100_000, route, 200, "ms")
    check("`kb route` peak RSS, 100,000 notes", 100_000, lambda r: r.route_rss_mb, 60, "MB")
    check("`kb boot` median, example fleet", 0, boot, 80, "ms")
    check("`kb boot` median, 10,000 notes", 10_000, boot, 150, "ms")
    for half, values in (
        ("answerable", lambda r: r.ask_answerable_ms),
        ("refused", lambda r: r.ask_refusal_ms),
    ):
        check(
            f"in-process ask p50, 10,000 notes, {half} half",
            10_000,
            lambda r, v=values: pct(v(r), 50),
            2,
            "ms",
        )
        check(
            f"in-process ask p95, 10,000 notes, {half} half",
            10_000,
            lambda r, v=values: pct(v(r), 95),
            20,
            "ms",
        )
    # notes per second is a floor, not a ceiling: checked as seconds per 1,500 notes
    check(
        "cold `kb index`, 100,000 notes, seconds per 1,500 notes (>= 1,500 notes/s)",
        100_000,
        lambda r: r.cold_index_s / max(r.notes, 1) * 1500,
        1,
        "s",
    )
    check("warm no-op `kb index`, 100,000 notes", 100_000, lambda r: r.warm_index_s, 3, "s")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="generated fleet sizes, comma list")
    parser.add_argument("--queries", type=int, default=400, help="in-process asks per fleet")
    parser.add_argument("--route-runs", type=int, default=10, help="`kb route` processes")
    parser.add_argument("--cli-runs", type=int, default=3, help="`kb check`/`kb list` runs")
    parser.add_argument("--work", type=Path, default=None, help="cache and scratch directory")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agents", type=int, default=None, help="agents per generated fleet")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure as JSON")
    parser.add_argument(
        "--no-example", action="store_true", help="skip route and boot on examples/fleet"
    )
    args = parser.parse_args(argv)
    if args.queries < 2 or args.route_runs < 1 or args.cli_runs < 1:
        parser.error("--queries must be at least 2, --route-runs and --cli-runs at least 1")
    sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    if not sizes or sizes[0] < 1:
        parser.error("--sizes must list positive note counts")
    if not KB.exists():
        parser.error(f"no kb console script next to {sys.executable}; activate the venv")

    temp = None if args.work else Path(tempfile.mkdtemp(prefix="kb-scale-"))
    work: Path = (args.work if temp is None else temp).resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.environ["KB_MISSES_PATH"] = str(work / "kb-misses.txt")
    args.work_dir = work
    run([str(KB), "--version"], child_env(work), work)  # fills the bytecode cache before timing
    started = time.strftime("%Y-%m-%d %H:%M")
    load_before = os.getloadavg()[0]
    results: list[Size] = []
    example = None if args.no_example else measure_example(args)
    try:
        for n in sizes:
            agents = args.agents or default_agents(n)
            src = generated_source(work, n, agents, args.seed)
            log(f"{n:,} notes: building {args.queries} questions")
            qs = questions(src, args.queries, args.seed)
            results.append(measure(n, src, qs, args))
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
    load_after = os.getloadavg()[0]

    ratios = growth(results)
    print(table(results))
    print()
    print(
        f"Started {started}; {os.cpu_count()} CPUs; 1-minute load average {load_before:.2f} "
        f"before, {load_after:.2f} after; Python {sys.version.split()[0]}; "
        f"SQLite {sqlite3.sqlite_version}"
    )
    print()
    print(
        "Growth between sizes, divided by the growth in notes "
        f"(1.0 = linear; above {FLAG_ABOVE} flagged):"
    )
    print()
    print(growth_table(results, ratios))
    print()
    if example is not None:
        print(
            f"Example fleet: `kb route` median {pct(example.route_ms, 50):.1f} ms "
            f"(p95 {pct(example.route_ms, 95):.1f}), peak {example.route_rss_mb:.0f} MB; "
            f"`kb boot` median {pct(example.boot_ms, 50):.1f} ms "
            f"(p95 {pct(example.boot_ms, 95):.1f}), peak {example.boot_rss_mb:.0f} MB"
        )
        print()
    print("Goals:")
    print("\n".join(goals(results, example)))
    if args.json:
        payload = {
            "started": started,
            "command": " ".join(["python", "benchmarks/scale.py", *(argv or sys.argv[1:])]),
            "cpus": os.cpu_count(),
            "load_before": load_before,
            "load_after": load_after,
            "python": sys.version.split()[0],
            "sqlite": sqlite3.sqlite_version,
            "sizes": [r.summary() for r in results],
            "growth_over_size": ratios,
            "example": example.summary() if example is not None else None,
            "goals": goals(results, example),
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
