"""Measure one resident kb asked by the callers a real fleet has (decision 0061): a
`kb route` typed at the fleet's root, a hook's `kb boot` with the payload's absolute `cwd`,
and a `kb route` run from an agent's own folder.

    python benchmarks/callers.py FLEET [--asks 15]

FLEET is a fleet root (the folder holding `fleet/` or the bases), used as it is: the
daemon's sockets live in a scratch KB_DAEMON_DIR, and only the miss log and boot's session
files are written into the fleet, as a user's calls write them. The callers come one after
the other; after each first call, it waits until the daemon holds every fleet it opened
(at most `--wait` seconds), then times `--asks` more calls of that caller (whole
processes, medians) and prints the daemon's memory from /proc.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # daemon.py beside this file
from daemon import KB, daemon_memory, hook_payload, questions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fleet", type=Path)
    parser.add_argument("--asks", type=int, default=15)
    parser.add_argument("--wait", type=float, default=60.0)
    args = parser.parse_args()
    fleet: Path = args.fleet.resolve()
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    scratch = Path(tempfile.mkdtemp(prefix="kbc-"))
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    env["KB_DAEMON_DIR"] = str(scratch / "rt")

    def kb(argv: list[str], cwd: Path, stdin: str | None = None) -> float:
        started = time.perf_counter()
        subprocess.run(
            [str(KB), *argv], cwd=cwd, env=env, input=stdin, text=True, capture_output=True
        )
        return (time.perf_counter() - started) * 1000

    def held(fleets: int) -> float:
        started = time.monotonic()
        while time.monotonic() - started < args.wait:
            out = subprocess.run(
                [str(KB), "daemon", "status", "--json"], cwd=fleet, env=env, capture_output=True
            )
            memory = json.loads(out.stdout or "{}").get("memory") or {}
            if memory.get("fleets") == fleets and memory.get("warm") == fleets:
                break
            time.sleep(0.3)
        return time.monotonic() - started

    bases = fleet / "fleet" if (fleet / "fleet").is_dir() else fleet
    agent = next(p / "knowledge" for p in sorted(bases.iterdir()) if (p / "knowledge").is_dir())
    asked = [q for i, q in enumerate(questions(fleet, 2 * args.asks + 2, 3)) if i % 2 == 0]
    rounds = iter(range(10**6))
    callers: list[tuple[str, Callable[[str], float]]] = [
        ("`kb route` at the fleet's root", lambda q: kb(["route", q], fleet)),
        (
            "a hook's `kb boot` (the payload's absolute cwd)",
            lambda q: kb(["boot"], fleet, hook_payload(q, fleet, next(rounds))),
        ),
        (f"`kb route` in {agent.relative_to(fleet)}", lambda q: kb(["route", q], agent)),
    ]
    print("| callers so far | held after | next calls, median | VmRSS | RssAnon | VmHWM |")
    print("|---|---:|---:|---:|---:|---:|")
    subprocess.run([str(KB), "daemon", "start", str(fleet)], env=env, capture_output=True)
    try:
        for n, (name, call) in enumerate(callers, 1):
            call(asked[0])
            took = held(n)
            median = statistics.median(call(q) for q in asked[1 : args.asks + 1])
            m = daemon_memory(fleet, env)
            print(
                f"| + {name} | {took:.1f} s | {median:.1f} ms | {m.get('VmRSS')} MB "
                f"| {m.get('RssAnon')} MB | {m.get('VmHWM')} MB |"
            )
    finally:
        subprocess.run([str(KB), "daemon", "stop", str(fleet)], env=env, capture_output=True)


if __name__ == "__main__":
    main()
