"""The lanes of the many-agents stress test: what each of its processes does, call by call.

A lane is one driver process looping its role's calls until a deadline: each call is a real
`kb` subprocess (or, for the rejections log, which only `kb promote` writes and only with a
model, a `python -c` call of kb.io.promotion.rejectlog.record), run from the fleet root, and each
call's argv, stdin, exit code, stdout and stderr are appended as one JSON line to the lane's own
result file. The test (tests/stress/test_concurrency.py) starts eight writer lanes and eight reader
lanes at once on one fleet, then checks the disk against these records.

Run as `python -m tests.stress.lanes PLAN.json` from the repository root. `calls()` is pure
(role, lane, iteration -> the calls), so the test derives what every call should have left
on disk from the same function the driver ran. Every name, key, title, message and session
carries the lane and the iteration, so each write is checkable on its own afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

AGENTS = ("ada", "bruno", "clara")
# `knowledge` exists in every agent; `decisions` and `templates` exist in none, so the first
# writes into them race to create the folder.
FOLDERS = ("knowledge", "decisions", "templates")
WRITER_ROLES = ("write", "write", "write", "write", "source", "source", "capture", "capture")
READER_ROLES = (
    "route-hit",
    "route-miss",
    "route-miss",
    "index",
    "index",
    "misroute",
    "boot-gap",
    "mix",
)
HIT_QUESTIONS = (
    "how do I test a backup restore",
    "rolling out a service on kubernetes",
    "natural sourdough fermentation",
    "what can I take in my luggage",
    "database schema migration without downtime",
    "passport and visa",
)
# Asked again and again, so the miss log's counting (not only its appending) is exercised.
REPEATED_MISSES = ("zorblax quintessence", "frumious bandersnatch", "galumphing tumtum")
MISROUTE_MESSAGES = (
    ("where do I moor the sailboat", "none"),
    ("how much yeast for a brioche", "bruno"),
    ("which gate for the Lisbon flight", "clara"),
)
# The mixed reader lane's rotation: every read-back verb, and the rejections-log writer.
MIX = (
    "rejection",
    "list",
    "misses",
    "rejection",
    "misroutes",
    "abstentions",
    "rejection",
    "sources",
    "route",
)
REJECTED = (("ada", "restic-notes", "scope"), ("bruno", "bean-soak", "evidence"))
CALL_TIMEOUT_S = 180.0  # a call stuck this long is a hang, reported as code "timeout"
REJECTION_WRITER = (
    "import sys\n"
    "from pathlib import Path\n"
    "from kb.io.promotion import rejectlog\n"
    "a = sys.argv[1:]\n"
    "e = rejectlog.record(Path('kb-rejections.txt'), a[0], a[1], a[2], a[3], '2026-01-02')\n"
    "print(e or 'recorded')\n"
    "raise SystemExit(1 if e else 0)\n"
)


@dataclass(frozen=True)
class Call:
    """One process to run from the fleet root. `program` is `kb` or `python`."""

    argv: tuple[str, ...]
    stdin: str = ""
    program: str = "kb"
    tag: dict[str, str] = field(default_factory=dict)

    @property
    def verb(self) -> str:
        return self.argv[0] if self.program == "kb" else "rejectlog.record"


def roles() -> list[tuple[str, str]]:
    """(lane name, role) for all sixteen lanes."""
    return [(f"w{n}", r) for n, r in enumerate(WRITER_ROLES)] + [
        (f"r{n}", r) for n, r in enumerate(READER_ROLES)
    ]


def note_body(lane: str, i: int) -> str:
    """About 2.6 KB of prose (two chunks), ending in a marker that shows the note is whole."""
    para = (
        f"Paragraph {{k}} of stress note {lane} {i}. Several agents write at once and every "
        "one of them must find its note whole on disk afterwards, listed in its map, "
        "indexed, and reachable by the key it was given.\n"
    )
    paras = "\n".join(para.format(k=k) for k in range(10))
    return f"{paras}\nEND-OF-NOTE {lane} {i}\n"


def calls(role: str, lane: str, i: int) -> list[Call]:
    """The calls iteration `i` of `lane` makes (pure: the test re-derives them)."""
    n = int(lane[1:])
    agent = AGENTS[(n + i) % len(AGENTS)]
    if role == "write":
        slug = f"{lane}-n{i}"
        keys = f"qz{lane}n{i}, kestrel {lane} {i}"
        folder = FOLDERS[i % len(FOLDERS)]
        summary = f"Stress note {lane} {i}"
        argv: tuple[str, ...] = ("write", agent, slug, ".", "--keys", keys, "--summary", summary)
        tag = {"agent": agent, "slug": slug, "folder": folder, "key": f"qz{lane}n{i}"}
        tag["summary"] = summary
        return [Call((*argv, "--folder", folder), note_body(lane, i), tag=tag)]
    if role == "source":
        title = f"Stress source {lane} {i}"
        argv = ("source", "add", f"fleet/{agent}", "--type", "webpage", "--title", title)
        argv += ("--retrieved-on", "2026-01-02", "--retrieval-status", "full")
        argv += ("--url", f"https://example.org/{lane}/{i}", "--author", "Doe, Jane")
        return [Call(argv, tag={"agent": agent, "title": title})]
    if role == "capture":
        session = f"stress-{lane}-{i}"
        conclusion = f"decided {lane} {i}: restic over borg"
        boot = Call(
            ("boot", ".", "--session", session, "--text"),
            f"how do I test a backup restore, drill {lane} {i}",
            tag={"session": session},
        )
        capture = Call(
            ("capture", ".", "--session", session, "--conclusion", conclusion),
            tag={"session": session, "conclusion": conclusion},
        )
        return [boot, capture]
    if role == "route-hit":
        q = HIT_QUESTIONS[i % len(HIT_QUESTIONS)]
        extra: tuple[str, ...] = ("--json",) if i % 2 else ("--hybrid",) if i % 4 == 2 else ()
        return [Call(("route", q, ".", *extra), tag={"question": q})]
    if role == "route-miss":
        q = REPEATED_MISSES[i % len(REPEATED_MISSES)] if i % 2 == 0 else f"vorpal{lane}q{i} snark"
        extra = ("--json",) if i % 3 == 0 else ()
        return [Call(("route", q, ".", *extra), tag={"question": q, "miss": "1"})]
    if role == "index":
        return [Call(("index", "."))]
    if role == "misroute":
        if i % 2 == 0:
            msg, owner = MISROUTE_MESSAGES[i % len(MISROUTE_MESSAGES)]
        else:
            msg, owner = f"where do I park the boat {lane} {i}", "bruno"
        argv = ("misroute", msg, "--chose", "ada", "--owner", owner, "--why", f"filed {i}", ".")
        return [Call(argv, tag={"message": msg, "owner": owner})]
    if role == "boot-gap":
        # The fake classifier (tests/models/classifier.py) answers `jupiter` as uncovered
        # (subject astronomy) and anything it does not know as uncovered (subject unknown);
        # neither word is in any key, so each boot is also a refusal for the miss log.
        if i % 2 == 0:
            msg, subject = f"jupiter moons {lane}q{i} zorp", "astronomy"
        else:
            msg, subject = f"zorblax{lane}q{i} quux", "unknown"
        return [
            Call(
                ("boot", ".", "--session", f"stress-{lane}", "--text"),
                msg,
                tag={"question": msg, "miss": "1", "subject": subject, "session": f"stress-{lane}"},
            )
        ]
    if role == "mix":
        step = MIX[i % len(MIX)]
        if step == "rejection":
            if i % 2:  # refused again and again: counted, not appended
                who, slug, lens = REJECTED[(i // 2) % len(REJECTED)]
            else:
                who, slug, lens = agent, f"{lane}-n{i}", "x"
            argv = ("-c", REJECTION_WRITER, who, slug, lens, f"refused at {lane} {i}")
            return [Call(argv, program="python", tag={"agent": who, "slug": slug, "lens": lens})]
        if step == "route":
            q = HIT_QUESTIONS[i % len(HIT_QUESTIONS)]
            return [Call(("route", q, ".", "--json", "--top", "3"), tag={"question": q})]
        return [Call((step, "fleet/ada" if step == "sources" else "."))]
    raise ValueError(f"unknown role {role}")


def _clean_env() -> dict[str, str]:
    # Like the `kb` fixture: no KB_* setting of the caller's leaks into the run.
    return {k: v for k, v in os.environ.items() if not k.startswith("KB_")}


def run_lane(plan: dict[str, object]) -> None:
    role, lane = str(plan["role"]), str(plan["lane"])
    fleet, out = str(plan["fleet"]), str(plan["out"])
    deadline, start_at = float(str(plan["deadline"])), float(str(plan["start_at"]))
    max_iterations = int(str(plan["max_iterations"]))
    env = _clean_env()
    env["PYTHONPATH"] = str(plan["repo"])
    time.sleep(max(0.0, start_at - time.time()))  # every lane starts together
    with open(out, "a", encoding="utf-8") as fh:
        i = 0
        while i < max_iterations and time.time() < deadline:
            for call in calls(role, lane, i):
                head = [sys.executable] + (
                    ["-m", "kb.shell.cli.main"] if call.program == "kb" else []
                )
                started = time.time()
                try:
                    proc = subprocess.run(
                        [*head, *call.argv],
                        cwd=fleet,
                        env=env,
                        input=call.stdin.encode("utf-8"),
                        capture_output=True,
                        timeout=CALL_TIMEOUT_S,
                    )
                    code: int | str = proc.returncode
                    stdout, stderr = proc.stdout, proc.stderr
                except subprocess.TimeoutExpired as e:
                    code, stdout, stderr = "timeout", e.stdout or b"", e.stderr or b""
                row = {
                    "lane": lane,
                    "role": role,
                    "i": i,
                    "argv": list(call.argv),
                    "code": code,
                    "stdout": stdout.decode("utf-8", "replace"),
                    "stderr": stderr.decode("utf-8", "replace"),
                    "started": started,
                    "ended": time.time(),
                }
                fh.write(json.dumps(row) + "\n")
                fh.flush()
            i += 1


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as plan_file:
        run_lane(json.load(plan_file))
