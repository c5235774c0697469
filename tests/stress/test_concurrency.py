"""Many agents at once (issue 8, item 3): eight writer processes and eight reader processes
on one fleet for a bounded time, then the disk is checked against every call's record.

Writers: `kb write` (four lanes, into folders that exist and folders the first writes race
to create), `kb source add` (two), `kb boot` + `kb capture` (two). Readers: `kb route` on
answerable questions (two) and on refused ones (two, so the miss log is appended to
concurrently), `kb index` (one), `kb misroute` (one), `kb boot` on messages the fake
classifier calls uncovered (one: the abstention log, the miss log and a session events
record), and one mixing `kb list`, `kb misses`, `kb misroutes`, `kb abstentions`,
`kb sources` and the rejections-log writer (only `kb promote` writes that log, and only
with a model, so its writer is called directly). What each lane does is tests/stress/lanes.py.

Afterwards: every call exited 0 with nothing on stderr (no "database is locked", no
traceback); every note, record and deposit a call reported is on disk whole, byte for byte
what that call should have written, listed in its map, listed by `kb list` and found by its
key after a final `kb index`; nothing half-written or temporary is left; every shared log
parses whole with kb's own parser and counts exactly the calls that appended to it; and the
index totals equal the files on disk. CI runs ~20 s of storm; `make stress` several minutes.
"""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.stress import lanes
from tests.stress.budget import scaled, scaled_s

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_FLEET = REPO / "examples" / "fleet"
CLASSIFIER = REPO / "tests" / "models" / "classifier.py"
STORM_S = scaled_s(20.0, 300.0)
MAX_ITERATIONS = scaled(400, 100_000)
# Words no caller may ever see: a locked database, a raw sqlite error, a crash, a lost lock.
FORBIDDEN = (
    "database is locked",
    "OperationalError",
    "sqlite3.",
    "Traceback",
    "another writer held",
    "could not write",
)


@dataclass
class Storm:
    fleet: Path
    rows: list[dict[str, Any]]

    def of(self, role: str, verb: str | None = None) -> Iterator[dict[str, Any]]:
        for r in self.rows:
            if r["role"] == role and (verb is None or r["argv"][0] == verb):
                yield r

    def ok(self, role: str, verb: str | None = None) -> Iterator[dict[str, Any]]:
        return (r for r in self.of(role, verb) if r["code"] == 0)


def _kb(fleet: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    return subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", *args],
        cwd=fleet,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _make_fleet(dst: Path) -> Path:
    shutil.copytree(EXAMPLE_FLEET, dst, ignore=shutil.ignore_patterns(".kb", "kb-misses.txt*"))
    for p in dst.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    # The deterministic fake classifier, so `kb boot` records abstentions (run through the
    # real model-command path; the classifier split honours double quotes).
    with (dst / "fleet.txt").open("a", encoding="utf-8") as fh:
        fh.write(f'\nclassifier = "{sys.executable}" "{CLASSIFIER}"\n')
    done = _kb(dst, "index", ".")
    assert done.returncode == 0, done.stderr
    return dst


def _kill(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # the lane and the kb call it is running
            except ProcessLookupError:
                pass


@pytest.fixture(scope="module")
def storm(tmp_path_factory: pytest.TempPathFactory) -> Storm:
    work = tmp_path_factory.mktemp("storm")
    fleet = _make_fleet(work / "fleet")
    start_at = time.time() + 2.0  # sixteen interpreters start before the first call
    procs: list[subprocess.Popen[bytes]] = []
    outs: list[Path] = []
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["PYTHONPATH"] = str(REPO)
    try:
        for lane, role in lanes.roles():
            out = work / f"{lane}.jsonl"
            plan = {
                "lane": lane,
                "role": role,
                "fleet": str(fleet),
                "out": str(out),
                "repo": str(REPO),
                "start_at": start_at,
                "deadline": start_at + STORM_S,
                "max_iterations": MAX_ITERATIONS,
            }
            plan_path = work / f"{lane}.plan.json"
            plan_path.write_text(json.dumps(plan), encoding="utf-8")
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "tests.stress.lanes", str(plan_path)],
                    cwd=REPO,
                    env=env,
                    start_new_session=True,
                )
            )
            outs.append(out)
        for p in procs:
            # generous: a lane finishes its last call after the deadline
            p.wait(timeout=max(0.0, start_at + STORM_S - time.time()) + 2 * lanes.CALL_TIMEOUT_S)
    finally:
        _kill(procs)
    assert all(p.returncode == 0 for p in procs), [p.returncode for p in procs]
    rows: list[dict[str, Any]] = []
    for out in outs:
        for line in out.read_text(encoding="utf-8").splitlines():
            rows.append(json.loads(line))
    return Storm(fleet, rows)


def _brief(r: dict[str, Any]) -> str:
    return f"{r['lane']}#{r['i']} kb {' '.join(r['argv'][:4])} -> {r['code']}: {r['stderr'][:300]}"


# -- every caller ----------------------------------------------------------------------------


def test_every_lane_made_calls(storm: Storm) -> None:
    by_lane = collections.Counter(r["lane"] for r in storm.rows)
    assert sorted(by_lane) == sorted(lane for lane, _ in lanes.roles())
    # More than one call each, or the lanes barely overlapped.
    assert min(by_lane.values()) >= 2, by_lane


def test_every_call_exits_as_the_spec_allows(storm: Storm) -> None:
    # Every call is well formed and the disk works, so the only exit code the spec's tables
    # (workflow-verbs.md §19, retrieval-core.md §18.5) allow for any of them is 0: a refusal
    # to route is exit 0, a 1 would be an outage (an index that would not open, a log that
    # could not be written), and a 2 a usage error.
    bad = [_brief(r) for r in storm.rows if r["code"] != 0]
    assert not bad, "\n".join(bad[:20])


def test_no_caller_saw_a_locked_database_or_a_traceback(storm: Storm) -> None:
    bad = [_brief(r) for r in storm.rows if any(w in r["stderr"] for w in FORBIDDEN)]
    assert not bad, "\n".join(bad[:20])
    # Nothing else either: none of these calls has anything to warn about.
    noisy = [_brief(r) for r in storm.rows if r["stderr"].strip()]
    assert not noisy, "\n".join(noisy[:20])


# -- the writes ------------------------------------------------------------------------------


def _expected_note(r: dict[str, Any]) -> tuple[str, str]:
    """(path under the fleet, exact text) of the note a write call should have made."""
    from kb.pure.writing.notewrite import NoteRequest, prepare

    call = lanes.calls("write", r["lane"], r["i"])[0]
    note = prepare(
        NoteRequest(
            slug=call.tag["slug"],
            keys=call.argv[call.argv.index("--keys") + 1],
            summary=call.tag["summary"],
            body=call.stdin,
            folder=call.tag["folder"],
        )
    ).unwrap()
    return f"fleet/{call.tag['agent']}/{call.tag['folder']}/{call.tag['slug']}.md", note.text


def test_no_note_is_lost_or_half_written(storm: Storm) -> None:
    from kb.pure.notes.header import front_matter, header_of

    written = list(storm.ok("write"))
    assert written
    maps: dict[str, str] = {}
    for r in written:
        rel, text = _expected_note(r)
        assert r["stdout"].startswith(f"wrote ./{rel}\n"), _brief(r)
        on_disk = (storm.fleet / rel).read_bytes().decode("utf-8")
        assert on_disk == text, f"{rel} is not what {r['lane']}#{r['i']} wrote"
        call = lanes.calls("write", r["lane"], r["i"])[0]
        assert header_of(on_disk).keys[0] == call.tag["key"]
        assert dict(front_matter(on_disk)) == {"provenance": "agent", "stage": "derived"}
        agent = call.tag["agent"]
        if agent not in maps:
            maps[agent] = (storm.fleet / "fleet" / agent / "MAP.md").read_text(encoding="utf-8")
        entry = f"- **[[{call.tag['slug']}]]** {call.tag['summary']}"
        found = [line for line in maps[agent].split("\n") if line == entry]
        assert len(found) == 1, f"{agent}/MAP.md lists [[{call.tag['slug']}]] {len(found)} times"


def test_the_maps_kept_what_they_said_before(storm: Storm) -> None:
    # Concurrent map rewrites must only ever add entries: every original line survives, in
    # order, and every added line is an entry a successful write reported, or a heading.
    entries = {
        f"- **[[{c.tag['slug']}]]** {c.tag['summary']}"
        for r in storm.ok("write")
        for c in lanes.calls("write", r["lane"], r["i"])
    }
    for agent in lanes.AGENTS:
        before = (EXAMPLE_FLEET / "fleet" / agent / "MAP.md").read_text(encoding="utf-8")
        after = (storm.fleet / "fleet" / agent / "MAP.md").read_text(encoding="utf-8")
        it = iter(after.split("\n"))
        assert all(line in it for line in before.rstrip("\n").split("\n")), agent
        added = set(after.split("\n")) - set(before.split("\n"))
        strays = {a for a in added if a and a not in entries and not a.startswith("### ")}
        assert not strays, f"{agent}/MAP.md: {sorted(strays)[:5]}"


def test_every_source_record_is_whole(storm: Storm) -> None:
    from kb.io.writing.sources import load_records

    added = list(storm.ok("source"))
    assert added
    want: dict[str, dict[str, str]] = {}  # key -> the call's tag
    for r in added:
        call = lanes.calls("source", r["lane"], r["i"])[0]
        m = re.match(
            rf"wrote fleet/{call.tag['agent']}/sources/([2-9A-Z]{{10}})\.txt\n", r["stdout"]
        )
        assert m, _brief(r) + r["stdout"]
        want[m.group(1)] = call.tag
    assert len(want) == len(added), "two calls reported the same key"
    for agent in lanes.AGENTS:
        records, broken = load_records(storm.fleet / "fleet" / agent)
        assert not broken, broken
        got = {rec.key: rec for rec in records}
        for key, tag in want.items():
            if tag["agent"] == agent:
                assert key in got, f"{agent}/sources/{key}.txt is missing"
                assert got[key].title == tag["title"]
                assert got[key].authors == ("Doe, Jane",)


def test_every_capture_deposit_is_whole(storm: Storm) -> None:
    from kb.pure.notes.header import front_matter

    captured = list(storm.ok("capture", "capture"))
    assert captured
    for r in captured:
        call = lanes.calls("capture", r["lane"], r["i"])[1]
        session = call.tag["session"]
        m = re.fullmatch(
            rf"captured session {session} into \./(fleet/ada/inbox/\S+\.md)\n", r["stdout"]
        )
        assert m, _brief(r) + r["stdout"]
        text = (storm.fleet / m.group(1)).read_bytes().decode("utf-8")
        assert dict(front_matter(text)) == {"provenance": "agent", "stage": "raw"}
        assert f"- {call.tag['conclusion']}\n" in text
        assert text.endswith("\n") and f"# Session {session}, " in text
        # Captured whole, so the session's record is gone.
        assert not (storm.fleet / ".kb" / "sessions" / f"{session}.events").exists()


def test_nothing_temporary_or_half_written_is_left(storm: Storm) -> None:
    from kb.pure.notes.header import front_matter, header_of

    leftovers = [
        str(p.relative_to(storm.fleet))
        for p in storm.fleet.rglob("*")
        if p.name.endswith((".tmp", ".lock")) or p.name.startswith(".MAP.md.")
    ]
    assert not leftovers, leftovers
    for p in storm.fleet.rglob("*.md"):
        text = p.read_bytes().decode("utf-8")  # whole UTF-8, never a torn character
        assert text.endswith("\n"), f"{p} does not end with a newline"
        header_of(text)
        front_matter(text)


# -- the shared logs -------------------------------------------------------------------------


def _data_lines(text: str) -> list[str]:
    return [ln for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]


def test_the_miss_log_counts_every_refusal(storm: Storm) -> None:
    from kb.io.logs import misslog

    want: collections.Counter[str] = collections.Counter()
    for role in ("route-miss", "boot-gap"):
        for r in storm.ok(role):
            call = lanes.calls(role, r["lane"], r["i"])[0]
            want[call.tag["question"].lower()] += 1
            if "--json" in r["argv"]:
                miss = json.loads(r["stdout"])["miss"]
                assert miss is not None and miss["recorded"] is True, _brief(r)
    path = storm.fleet / "kb-misses.txt"
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    misses = misslog.load(path)
    # Every data line is a miss or its `looked like:` line: nothing torn, nothing dropped.
    looked = [ln for ln in _data_lines(text) if ln.lstrip().startswith("looked like:")]
    assert len(_data_lines(text)) == len(misses) + len(looked)
    got = {m.question.lower(): m.count for m in misses}
    assert {q: got.get(q, 0) for q in want} == dict(want)
    # A hit is never recorded.
    assert not set(q.lower() for q in lanes.HIT_QUESTIONS) & set(got)


def test_the_misroute_log_counts_every_filing(storm: Storm) -> None:
    from kb.io.logs import routelogs

    want: collections.Counter[tuple[str, str]] = collections.Counter()
    for r in storm.ok("misroute"):
        call = lanes.calls("misroute", r["lane"], r["i"])[0]
        want[(call.tag["message"], call.tag["owner"])] += 1
    assert want
    path = routelogs.misroutes_path(str(storm.fleet))
    text = path.read_text(encoding="utf-8")
    rows = routelogs.load_misroutes(path)
    assert len(_data_lines(text)) == len(rows)
    got = {(m.message, m.owner or "none"): m.count for m in rows if m.chose == "ada"}
    assert got == dict(want)


def test_the_abstention_log_counts_every_gap(storm: Storm) -> None:
    from kb.io.logs import routelogs

    want: collections.Counter[str] = collections.Counter()
    for r in storm.ok("boot-gap"):
        want[lanes.calls("boot-gap", r["lane"], r["i"])[0].tag["subject"]] += 1
    path = routelogs.abstentions_path(str(storm.fleet))
    text = path.read_text(encoding="utf-8")
    rows = routelogs.load_abstentions(path)
    assert len(_data_lines(text)) == len(rows)
    # The capture lanes' boots are about backups, which the classifier calls covered.
    assert {a.subject: a.count for a in rows} == dict(want)


def test_the_session_record_holds_every_boot(storm: Storm) -> None:
    from kb.pure.sessions.session import Refused, parse_events

    booted = list(storm.ok("boot-gap"))
    lane = booted[0]["lane"]
    events = storm.fleet / ".kb" / "sessions" / f"stress-{lane}.events"
    text = events.read_text(encoding="utf-8")
    assert text.endswith("\n")
    parsed = parse_events(text)
    assert len(parsed) == len(text.splitlines()) == len(booted)
    want = [lanes.calls("boot-gap", r["lane"], r["i"])[0].tag["question"] for r in booted]
    got = [e.question for e in parsed if isinstance(e, Refused)]
    assert sorted(got) == sorted(want)


def test_the_rejection_log_counts_every_refusal(storm: Storm) -> None:
    from kb.io.promotion import rejectlog

    want: collections.Counter[tuple[str, str, str]] = collections.Counter()
    for r in storm.of("mix"):
        if r["argv"][0] == "-c":
            assert r["code"] == 0 and r["stdout"] == "recorded\n", _brief(r)
            want[tuple(r["argv"][2:5])] += 1
    assert want
    path = rejectlog.log_path(str(storm.fleet))
    text = path.read_text(encoding="utf-8")
    rows = rejectlog.load(path)
    assert len(_data_lines(text)) == len(rows)
    assert {(x.agent, x.slug, x.lens): x.count for x in rows} == dict(want)


# -- reading it all back ---------------------------------------------------------------------


def test_the_index_matches_the_disk_and_finds_every_note(storm: Storm) -> None:
    from kb import Memory
    from kb.io.notes.walk import discover, expand_roots
    from kb.io.writing.sources import load_records

    final = _kb(storm.fleet, "index", ".")
    assert final.returncode == 0 and not final.stderr, final.stderr
    m = re.search(r"total: (\d+) files, \d+ chunks, (\d+) indexes", final.stdout)
    assert m, final.stdout
    here = os.getcwd()
    os.chdir(storm.fleet)  # bases named as a person at the root names them
    try:
        snaps = [discover(b, include_private=False) for b in expand_roots(["."])]
    finally:
        os.chdir(here)
    assert int(m.group(1)) == sum(len(s.files) for s in snaps)
    assert int(m.group(2)) == len(snaps)
    # A second index finds nothing to do: the first saw every file whole.
    again = _kb(storm.fleet, "index", ".")
    assert again.returncode == 0, again.stderr
    for line in again.stdout.splitlines():
        if "reindexed," in line and "total:" not in line:
            assert " 0 reindexed, " in line and " 0 removed, " in line, line
    for s in snaps:
        db = sqlite3.connect(storm.fleet / s.given / ".kb" / "index.db")
        try:
            files = db.execute("SELECT COUNT(*) FROM files WHERE base = ?", (s.name,)).fetchone()
            sources = db.execute("SELECT COUNT(*) FROM sources").fetchone()
        finally:
            db.close()
        assert files[0] == sum(1 for f in s.files if f.rel != s.map_rel), s.name
        assert sources[0] == len(load_records(storm.fleet / s.given)[0]), s.name

    written = [lanes.calls("write", r["lane"], r["i"])[0] for r in storm.ok("write")]
    with Memory.open([str(storm.fleet)]) as memory:
        for call in written:
            rel = f"{call.tag['folder']}/{call.tag['slug']}.md"
            answer = memory.ask(call.tag["key"])
            assert answer.confidence.verdict == "hit", call.tag
            assert (call.tag["agent"], rel) in {(f.base, f.path) for f in answer.found}, call.tag
    # And through the real CLI, for the first and the last note of every writer lane.
    by_lane: dict[str, list[Any]] = collections.defaultdict(list)
    for call in written:
        by_lane[call.tag["slug"].split("-")[0]].append(call)
    for sample in by_lane.values():
        for call in {id(c): c for c in (sample[0], sample[-1])}.values():
            out = _kb(storm.fleet, "route", call.tag["key"], ".", "--json")
            payload = json.loads(out.stdout)
            rel = f"{call.tag['folder']}/{call.tag['slug']}.md"
            assert payload["verdict"] == "hit", out.stdout
            assert payload["keyword_top"] == f"{call.tag['agent']}/{rel}"


def test_list_shows_every_note_and_deposit(storm: Storm) -> None:
    out = _kb(storm.fleet, "list", ".", "--json")
    assert out.returncode == 0, out.stderr
    listed = {(row["base"], row["path"]) for row in json.loads(out.stdout)}
    for r in storm.ok("write"):
        call = lanes.calls("write", r["lane"], r["i"])[0]
        want = (call.tag["agent"], f"{call.tag['folder']}/{call.tag['slug']}.md")
        assert want in listed, want
    for r in storm.ok("capture", "capture"):
        path = r["stdout"].split(" into ./fleet/", 1)[1].strip()
        base, rel = path.split("/", 1)
        assert (base, rel) in listed, path
