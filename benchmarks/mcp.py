"""MCP server latency: cold start to first answer, and warm `kb_route` round trips.

    python benchmarks/mcp.py [--notes 1000] [--calls 500] [--work DIR] [--settle 20]

Starts `kb serve` as a real subprocess over stdio on the example fleet and on a generated
fleet (benchmarks/generate.py), sends raw JSON-RPC lines, and prints:
- cold start: process start to the first `kb_route` reply (median of 5 starts);
- warm round trip: p50/p95 of `kb_route` calls on one running server (`--calls` calls,
  questions cycled from generate.questions: half answerable, half refusals), `--settle`
  seconds after its first answers: `kb serve` holds the fleet in memory in the background
  (decision 0037), about 7 s at 10,000 notes, and answers from SQLite until then.
Issue 15's goals: warm p95 <= 5 ms at 10,000 notes, refusals included, and no call over
50 ms after the first (`warm max`; `--notes 10000`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from generate import questions
from route import child_env, fresh_copy, generated_source, pct

REPO = Path(__file__).resolve().parent.parent


def _call(proc: subprocess.Popen[str], n: int, question: str) -> float:
    assert proc.stdin is not None and proc.stdout is not None
    message = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": "kb_route", "arguments": {"question": question}},
    }
    start = time.perf_counter()
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    elapsed = time.perf_counter() - start
    assert reply.get("id") == n and "result" in reply, reply
    return elapsed


def _start(fleet: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "kb.shell.cli.main", "serve", str(fleet)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )


def measure(name: str, fleet: Path, calls: int, env: dict[str, str], settle: float) -> str:
    subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "index", str(fleet)],
        check=True,
        capture_output=True,
        env=env,
    )
    asked = questions(fleet, 100, 0)
    qs = [q.text for q in asked]
    colds = []
    for i in range(5):
        start = time.perf_counter()
        proc = _start(fleet, env)
        _call(proc, 1, qs[i])
        colds.append(time.perf_counter() - start)
        proc.communicate(timeout=30)
    proc = _start(fleet, env)
    for i in range(10):  # warm-up: page cache, first-refusal suggestion index
        _call(proc, i, qs[i % len(qs)])
    time.sleep(settle)  # the server's own warming thread reads the fleet meanwhile
    times = [_call(proc, 100 + i, qs[i % len(qs)]) for i in range(calls)]
    proc.communicate(timeout=30)
    ms = [t * 1000 for t in times]
    # the two halves apart: an answerable question ranks text in every base, a refusal
    # mostly does not (and asks for suggestions instead)
    halves = [
        [m for i, m in enumerate(ms) if asked[i % len(asked)].answerable == answerable]
        for answerable in (True, False)
    ]
    return (
        f"| {name} | {statistics.median(colds) * 1000:.0f} ms | {pct(ms, 50):.2f} ms | "
        f"{pct(ms, 95):.2f} ms | {max(ms):.2f} ms | "
        + " | ".join(f"{pct(h, 50):.2f} / {pct(h, 95):.2f} ms" for h in halves)
        + " |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--settle", type=float, default=20.0, help="seconds before timing")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kb-mcp-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    env = child_env(work)
    env["KB_MISSES_PATH"] = str(work / "misses.txt")
    rows = [
        "| fleet | cold start to first answer | warm p50 | warm p95 | warm max "
        "| answerable p50 / p95 | refused p50 / p95 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    example = work / "example"
    fresh_copy(REPO / "examples" / "fleet", example)
    rows.append(measure("example fleet", example, args.calls, env, args.settle))
    src = generated_source(work, args.notes, max(1, min(10, args.notes // 50)), 0)
    gen = work / f"gen-{args.notes}-run"
    fresh_copy(src, gen)
    rows.append(measure(f"{args.notes} notes", gen, args.calls, env, args.settle))
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
