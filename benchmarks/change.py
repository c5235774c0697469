"""Measure how soon a resident kb answers with a change: edit a note's keys, then at once run
`kb route` for the key just added, as a whole process (issue 27: within 1 s).

    python benchmarks/change.py --fleet DIR [--edits 8] [--pause 5]

DIR must be an indexed fleet, and a scratch one: each edit adds a made-up key to one note's
`**Search for:**` line and is undone after it is measured (the undo is a change too, seen
before the next edit). A daemon is started for DIR with its sockets in a scratch
KB_DAEMON_DIR, and the edits begin once every base is held in memory. Each row says how long
the `kb route` process took and whether the edited note came back first. `--pause` is the
time between one edit's undo and the next edit: shorter than the daemon's warm read (about
13 s at 100,000 notes), the edits are a burst.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KB = Path(sys.executable).with_name("kb")
KEYS = re.compile(r"^(\*\*Search for:\*\*.*)$", re.M)


def _held(fleet: Path, env: dict[str, str], limit_s: float = 600.0) -> float:
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        out = subprocess.run(
            [str(KB), "daemon", "status", "--json"], cwd=fleet, env=env, capture_output=True
        )
        memory = json.loads(out.stdout or b"{}").get("memory") or {}
        if memory.get("fleets") and memory.get("held") == memory.get("bases"):
            return time.monotonic() - started
        time.sleep(1.0)
    raise SystemExit(f"the daemon did not hold {fleet} within {limit_s:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fleet", type=Path, required=True)
    parser.add_argument("--edits", type=int, default=8)
    parser.add_argument("--pause", type=float, default=5.0)
    args = parser.parse_args()
    fleet = args.fleet.resolve()
    # not `records/`: private by default, so `kb route` without --all rightly finds nothing
    notes = [
        n
        for n in sorted(fleet.glob("fleet/*/*/*.md"))
        if n.parent.name != "records" and KEYS.search(n.read_text())
    ]
    if not notes:
        raise SystemExit(f"no note under {fleet}/fleet has a **Search for:** line")
    rng = random.Random(7)
    env = {k: v for k, v in os.environ.items() if k != "KB_NO_DAEMON"}
    with tempfile.TemporaryDirectory(prefix="kb-change-") as work:
        env["KB_DAEMON_DIR"] = os.path.join(work, "rt")
        subprocess.run([str(KB), "daemon", "start", str(fleet)], env=env, check=True)
        try:
            subprocess.run(
                [str(KB), "route", "a first question"], cwd=fleet, env=env, capture_output=True
            )
            print(f"held in memory after {_held(fleet, env):.0f} s", flush=True)
            times: list[float] = []
            print("| edit | note | `kb route` | edited note first |\n|---:|---|---:|---|")
            for i in range(args.edits):
                note = rng.choice(notes)
                key = "zq" + "".join(rng.choice("bcdfghklmnprstvw") for _ in range(8))
                text = note.read_text()
                note.write_text(KEYS.sub(rf"\1, {key}", text, count=1))
                started = time.perf_counter()
                out = subprocess.run(
                    [str(KB), "route", key, "--json"], cwd=fleet, env=env, capture_output=True
                )
                took = time.perf_counter() - started
                found = json.loads(out.stdout or b"{}").get("results") or [{}]
                first = note.name in json.dumps(found[0])
                times.append(took)
                rel = note.relative_to(fleet)
                print(f"| {i + 1} | {rel} | {took * 1000:.0f} ms | {first} |", flush=True)
                note.write_text(text)
                time.sleep(args.pause)
            rest = times[1:] or times
            print(
                f"\nfirst {times[0] * 1000:.0f} ms (it may fall in the daemon's keyword index "
                f"read, which follows the text); the rest: median "
                f"{statistics.median(rest) * 1000:.0f} ms, max {max(rest) * 1000:.0f} ms"
            )
            status = subprocess.run(
                [str(KB), "daemon", "status", "--json"], cwd=fleet, env=env, capture_output=True
            )
            watch = json.loads(status.stdout or b"{}").get("watch") or {}
            print(f"changes seen by: {watch.get('mode')} {watch.get('why') or ''}".rstrip())
        finally:
            subprocess.run([str(KB), "daemon", "stop", str(fleet)], env=env)


if __name__ == "__main__":
    main()
