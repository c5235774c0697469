"""Measure what a resident kb buys a hook: whole `kb route` and `kb boot` processes with and
without a daemon, against `python -c pass`, in paired runs (decision 0036).

    python benchmarks/daemon.py [--runs 15] [--fleet DIR]... [--no-example]

For the example fleet and each --fleet (each copied twice to a scratch directory and
indexed there first, one copy for the daemon and one for the in-process runs: nothing is
written into the source tree or into the fleet given), it starts
`kb daemon start`, then runs --runs rounds; each round times, in a shuffled order, one
`python -c pass`, one `kb route "<q>"` answered by the daemon and one answered in-process
(`KB_NO_DAEMON=1`), and one `kb boot .` each way with a prompt hook's payload on stdin (a
session of its own per round), the question the same within a round and changing between
rounds (half of them taken from notes' `Search for:` lines, half made of absent words, so
refusals are measured too). It prints the medians, and each median over the floor's, as a
markdown table, then the daemon's memory once it holds the fleet and after the rounds.
Refusals write the miss log into each copy's root, where a user's goes; the daemon's sockets
live in a scratch KB_DAEMON_DIR, stopped at the end.
Every process gets a bytecode cache under the scratch directory (PYTHONPYCACHEPREFIX).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "fleet"
KB = Path(sys.executable).with_name("kb")
KEYS = re.compile(r"^\*\*Search for:\*\*\s*(.+)$", re.M)
ABSENT = ("zorbly quaxing", "wibbleton frundle", "plaxter vooming", "grindelwup snarf")


def questions(fleet: Path, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    notes = sorted(fleet.rglob("*.md"))
    rng.shuffle(notes)
    found: list[str] = []
    for note in notes:
        if "records" in note.parts or "person" in note.parts:
            continue
        m = KEYS.search(note.read_text(encoding="utf-8", errors="replace"))
        if m:
            found.append(m.group(1).split(",")[0].strip(" `"))
        if len(found) >= count:
            break
    out: list[str] = []
    for i in range(count):
        out.append(found[i % len(found)] if i % 2 == 0 and found else ABSENT[i % len(ABSENT)])
    return out


def timed(cmd: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(
        cmd,
        cwd=cwd,
        env=env,
        input=stdin,
        text=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return (time.perf_counter() - started) * 1000


def hook_payload(question: str, cwd: Path, round_no: int) -> str:
    """What a runtime's prompt hook hands `kb boot` on stdin: a session of its own per
    round, so each boot is a session's first message (its briefing is built in full)."""
    return json.dumps({"session_id": f"bench-{round_no}", "cwd": str(cwd), "prompt": question})


def _held_in_memory(fleet: Path, env: dict[str, str], limit_s: float = 120.0) -> None:
    """Wait until the daemon holds every base of the fleet it opened in memory, and its
    keyword index (decision 0037: read in the background after its first request), so the
    rounds time a warm daemon, as a session's hooks meet it after its first prompts (at
    100,000 notes the keyword index follows the text by 8-9 s: rounds timed in that wait
    answered from the persisted postings)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        out = subprocess.run(
            [str(KB), "daemon", "status", "--json"], cwd=fleet, env=env, capture_output=True
        )
        memory = json.loads(out.stdout or "{}").get("memory") or {}
        if memory.get("fleets") and memory.get("warm") == memory.get("fleets"):
            return
        time.sleep(0.5)


def daemon_memory(fleet: Path, env: dict[str, str]) -> dict[str, int]:
    """The daemon's resident memory in MB from /proc (Linux): `VmRSS` is `RssAnon` (its heap,
    which only it can free) plus `RssFile` (pages of mapped files, the postings files of
    decision 0053 among them: the page cache's, which the system drops under pressure and
    reads again) plus `RssShmem`; `VmHWM` is the peak."""
    out = subprocess.run(
        [str(KB), "daemon", "status", "--json"], cwd=fleet, env=env, capture_output=True
    )
    pid = json.loads(out.stdout or "{}").get("pid")
    found: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                    found[key] = int(value.split()[0]) // 1024
    except (OSError, ValueError):
        pass
    return found


def memory_row(name: str, when: str, found: dict[str, int]) -> str:
    cells = " | ".join(f"{found.get(k, 0):,} MB" for k in ("VmRSS", "RssAnon", "RssFile", "VmHWM"))
    return f"| {name} | {when} | {cells} |"


def measure(
    name: str, fleet: Path, alone_copy: Path, runs: int, work: Path, memory: list[str]
) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    # The miss log where a user's is, in each copy's root: a benchmark that moved it out of
    # the fleet hid a stat pass after every refusal (decision 0036, eighth session).
    env["KB_DAEMON_DIR"] = str(work / "rt")
    # A bytecode cache, as an installed kb has one (this sandbox sets
    # PYTHONDONTWRITEBYTECODE=1, under which every process compiles kb again): route.py too.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    alone = {**env, "KB_NO_DAEMON": "1"}
    for root in (fleet, alone_copy):
        subprocess.run([str(KB), "index"], cwd=root, env=alone, capture_output=True, check=True)
    subprocess.run([str(KB), "daemon", "start"], cwd=fleet, env=env, check=True)
    asked = questions(fleet, runs, seed=0)
    kinds: dict[str, Callable[[str], list[str]]] = {
        "python -c pass": lambda q: [sys.executable, "-c", "pass"],
        "kb route, daemon": lambda q: [str(KB), "route", q],
        "kb route, no daemon": lambda q: [str(KB), "route", q],
        "kb boot, daemon": lambda q: [str(KB), "boot", "."],
        "kb boot, no daemon": lambda q: [str(KB), "boot", "."],
    }
    daemon_kinds = ("python -c pass", "kb route, daemon", "kb boot, daemon")
    envs = {k: env if k in daemon_kinds else alone for k in kinds}
    # The in-process runs get a copy of their own: each one opens and closes the index,
    # which the daemon would see as a change to its fleet (the WAL file comes and goes).
    cwds = {k: fleet if k in daemon_kinds else alone_copy for k in kinds}
    times: dict[str, list[float]] = {k: [] for k in kinds}

    def stdin(k: str, q: str, n: int) -> str | None:
        return hook_payload(q, cwds[k], n) if k.startswith("kb boot") else None

    try:
        for k in kinds:  # one uncounted warm-up each: the daemon's first open, page cache
            timed(kinds[k](asked[0]), cwds[k], envs[k], stdin(k, asked[0], -1))
        _held_in_memory(fleet, env)
        memory.append(memory_row(name, "held", daemon_memory(fleet, env)))
        rng = random.Random(1)
        for n, q in enumerate(asked):
            order = list(kinds)
            rng.shuffle(order)
            for k in order:
                times[k].append(timed(kinds[k](q), cwds[k], envs[k], stdin(k, q, n)))
        memory.append(memory_row(name, f"after {runs} rounds", daemon_memory(fleet, env)))
    finally:
        subprocess.run([str(KB), "daemon", "stop"], cwd=fleet, env=env, capture_output=True)
    floor = statistics.median(times["python -c pass"])
    rows = []
    for k, values in times.items():
        med = statistics.median(values)
        rows.append(f"| {name} | {k} | {med:.1f} ms | {med / floor:.2f} |")
    return rows


def editable_install() -> bool:
    """Whether the kb this venv runs comes from a source tree (`pip install -e`) rather than
    its site-packages: an editable install's `.pth` finder (and a development venv's coverage
    hook) runs in every process of the venv, `python -c pass` included, so it swells the
    floor every ratio is divided by. Asked of a fresh process outside any checkout."""
    found = subprocess.run(
        [sys.executable, "-c", "import kb; print(kb.__file__)"],
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return not any(part in ("site-packages", "dist-packages") for part in Path(found).parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--fleet", action="append", default=[], type=Path)
    parser.add_argument("--no-example", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kbb-", dir="/tmp"))
    try:
        targets = [] if args.no_example else [("example", EXAMPLE)]
        targets += [(p.name, p) for p in args.fleet]
        lines = ["| fleet | process | median | ÷ `python -c pass` |", "|---|---|---:|---:|"]
        memory = [
            "| fleet | the daemon | VmRSS | RssAnon | RssFile | VmHWM |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for name, source in targets:
            copies = (work / name, work / f"{name}-alone")
            for copy in copies:
                shutil.copytree(source, copy, ignore=shutil.ignore_patterns("kb-misses.txt*"))
            lines += measure(name, *copies, args.runs, work, memory)
            for copy in copies:
                shutil.rmtree(copy)
        print("\n".join(lines))
        print()
        print("\n".join(memory))
        if editable_install():
            # 2026-12-03: `python -c pass` took 32-37 ms in the development venv and 15-17 ms
            # in a `pip install .` venv, so ratios here read about half what users see
            print(
                "\nkb is an editable install in this venv: every process, `python -c pass` "
                "included, pays for its finder at start-up, which shrinks every ratio. For "
                "the figures a user sees, run this with a venv made by `pip install .`."
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
