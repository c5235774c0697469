"""`kb promote` and `kb rejections` end to end through the real process, with deterministic
model scripts (tests/models/promoter.py, tests/models/reviewer.py) run through the real
model-command path, on a copy of the example fleet with `promoter =` and `reviewer =` set in
its fleet.txt: a promoter proposing one good note, one aimed outside the memory folders, and
malformed output; reviewers that accept, refuse on one lens, omit the verdict line, hang
past the timeout, crash, print bytes that are not UTF-8. The notes written, the rejection
log, the prompts and the outputs are golden files; regenerate with KB_UPDATE_GOLDEN=1 and
review the diff. Also: the lock (busy, stale, released), a run killed with SIGKILL mid-run,
the cap, the repetition filter, privacy of the deposit walk, progress on a terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kb.io.files.lockfile import held_by_live
from tests.conftest import RunKb, check_golden

MODELS = Path(__file__).resolve().parent.parent / "models"
END = "=== END PROMPT ==="
DEPOSIT = "fleet/ada/inbox/2026-11-20-session.md"
NOTE = "fleet/ada/knowledge/note-2026-11-20-session.md"


def script(name: str, *args: str) -> str:
    return " ".join(shlex.quote(a) for a in (str(MODELS / name), *args))


def manifest(fleet: Path, promoter: list[str] | None, reviewer: list[str] | None) -> None:
    lines = ["name = Harbor", "role = A toy household fleet"]
    if promoter is not None:
        lines.append(f"promoter = {script('promoter.py', *promoter)}")
    if reviewer is not None:
        lines.append(f"reviewer = {script('reviewer.py', *reviewer)}")
    (fleet / "fleet.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def prompts(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [p.lstrip("\n") for p in log.read_text(encoding="utf-8").split(END + "\n") if p]


def tree(root: Path) -> dict[str, bytes]:
    """Every file under the fleet except the derived index, by relative path."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".kb" not in p.relative_to(root).parts
    }


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie still answers signal 0; /proc says it is gone
        return " Z " not in Path(f"/proc/{pid}/stat").read_text().split(")", 1)[1][:4]
    except OSError:
        return False


@pytest.fixture
def fleet(example_fleet: Path, kb: RunKb) -> Path:
    assert kb(["index"], cwd=example_fleet).code == 0
    return example_fleet


# -- preconditions ----------------------------------------------------------------------------


def test_without_a_promoter_or_a_reviewer_it_stops(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, None, ["accept"])
    r = kb(["promote"], cwd=fleet)
    assert (r.code, r.stdout) == (2, "")
    assert r.stderr == (
        "kb promote: no `promoter = ...` in the fleet manifest, so there is nothing to "
        "propose with.\n"
    )
    manifest(fleet, ["good"], None)
    r = kb(["promote"], cwd=fleet)
    assert (r.code, r.stdout) == (2, "")
    assert r.stderr.startswith("kb promote: no `reviewer = ...` in the fleet manifest. ")
    assert r.stderr.count("\n") == 1


def test_bad_flag_values_are_usage_errors(fleet: Path, kb: RunKb) -> None:
    for args in (["--max", "-1"], ["--max", "x"], ["--top", "abc"]):
        r = kb(["promote", *args], cwd=fleet)
        assert r.code == 2, args
        assert r.stderr.startswith("kb promote: ") and r.stderr.count("\n") == 1


def test_a_missing_base_is_exit_1(tmp_path: Path, kb: RunKb) -> None:
    r = kb(["promote", str(tmp_path / "nowhere")], cwd=tmp_path)
    assert r.code == 1
    assert r.stderr.startswith("kb: cannot read ")


# -- the run ----------------------------------------------------------------------------------


def test_one_good_note_is_written_and_the_outside_one_refused(
    fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    plog, rlog = tmp_path / "promoter.log", tmp_path / "reviewer.log"
    manifest(
        fleet,
        ["good,outside,malformed", "--log", str(plog)],
        ["accept", "--log", str(rlog)],
    )
    before = (fleet / "fleet/ada/MAP.md").read_text(encoding="utf-8")
    r = kb(["promote"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("promote/good-outside.txt", r.stdout)
    check_golden("promote/good-note.md", (fleet / NOTE).read_text(encoding="utf-8"))
    after = (fleet / "fleet/ada/MAP.md").read_text(encoding="utf-8")
    assert after.startswith(before.rstrip())
    check_golden("promote/good-map-tail.md", after[len(before.rstrip()) :])
    check_golden("promote/good-rejections.txt", (fleet / "kb-rejections.txt").read_text("utf-8"))
    (sent,) = prompts(plog)
    check_golden("promote/promoter-prompt.txt", sent)
    reviews = prompts(rlog)
    assert len(reviews) == 3  # the outside proposal never reached the reviewer
    check_golden("promote/review-prompt-contradiction.txt", reviews[0])
    for review, lens in zip(reviews, ("contradiction", "duplication", "scope"), strict=True):
        assert "THE PROPOSED NOTE\nagent: ada\nfile: knowledge/note-2026-11-20-session.md\n" in (
            review
        ), lens
        # the reviewer never sees who proposed the note or the deposit it came from
        assert "THE DEPOSIT FILE" not in review and "promoter" not in review.lower()
        assert "inbox/" not in review  # short memory is not evidence of what the base holds
    assert not list(fleet.rglob("tools/grafana-runbook.md"))
    # the note is found by the next route, through its own keys
    routed = kb(["route", "cert-manager token renovacao de certificado"], cwd=fleet)
    assert "note-2026-11-20-session.md" in routed.stdout


def test_a_malformed_promoter_reply_is_barren(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["malformed"], ["accept"])
    before = tree(fleet)
    r = kb(["promote"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("promote/barren.txt", r.stdout)
    assert tree(fleet) == before


def test_one_lens_refusing_writes_nothing(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["good"], ["refuse:scope"])
    before = tree(fleet)
    r = kb(["promote"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("promote/refused-scope.txt", r.stdout)
    log = fleet / "kb-rejections.txt"
    check_golden("promote/refused-scope-rejections.txt", log.read_text(encoding="utf-8"))
    after = tree(fleet)
    assert set(after) - set(before) == {"kb-rejections.txt"}
    assert all(after[k] == before[k] for k in before)


def test_a_reply_without_a_verdict_is_a_refusal(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["good"], ["noverdict"])
    r = kb(["promote"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("promote/no-verdict.txt", r.stdout)
    assert not (fleet / NOTE).exists()
    rows = (fleet / "kb-rejections.txt").read_text(encoding="utf-8").splitlines()
    assert [row.split("\t")[5] for row in rows if not row.startswith("#")] == ["contradiction"]


def test_bytes_that_are_not_utf8_are_refused_not_guessed(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["good"], ["garbage"])
    r = kb(["promote"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("promote/garbage.txt", r.stdout)
    assert not (fleet / NOTE).exists()


def test_a_crashing_reviewer_did_not_answer(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["good"], ["crash"])
    before = tree(fleet)
    r = kb(["promote"], cwd=fleet)
    assert r.code == 1
    check_golden("promote/crash.txt", r.stdout)
    assert r.stderr == (
        "kb promote: could not reach reviewer contradiction, on note-2026-11-20-session "
        "(exit status 3), so nothing was written for it.\n"
    )
    assert tree(fleet) == before  # an outage is not a judgement: nothing recorded either


def test_a_crashing_promoter_did_not_answer(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["crash"], ["accept"])
    before = tree(fleet)
    r = kb(["promote"], cwd=fleet)
    assert r.code == 1
    assert r.stderr == (
        "kb promote: could not reach promoter, on ada/inbox/2026-11-20-session.md "
        "(exit status 3), so nothing was written for it.\n"
    )
    assert tree(fleet) == before


def test_a_hanging_reviewer_is_killed_at_the_timeout(
    fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    manifest(fleet, ["good"], ["hang", "--pid", str(pids)])
    before = tree(fleet)
    started = time.monotonic()
    r = kb(["promote"], cwd=fleet, env={"KB_MODEL_TIMEOUT": "2"})
    assert time.monotonic() - started < 30
    assert r.code == 1
    assert r.stderr == (
        "kb promote: could not reach reviewer contradiction, on note-2026-11-20-session "
        "(timed out after 2s), so nothing was written for it.\n"
    )
    assert tree(fleet) == before
    for pid in map(int, pids.read_text().split()):
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), "the reviewer's process group outlived the timeout"


def test_a_refusal_at_the_write_is_a_fourth_review(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["dashed"], ["accept"])
    with (fleet / "fleet.txt").open("a", encoding="utf-8") as f:
        f.write("style = no-dashes\n")  # the house style kb write holds the note to
    r = kb(["promote"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("promote/dashed.txt", r.stdout)
    assert not (fleet / "fleet/ada/knowledge/dashed-note.md").exists()


def test_a_dash_is_written_where_the_fleet_has_no_house_style(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["dashed"], ["accept"])
    r = kb(["promote"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    assert "1 written, 0 refused" in r.stdout
    assert (fleet / "fleet/ada/knowledge/dashed-note.md").exists()


def test_a_dry_run_decides_everything_and_writes_nothing(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["good,outside,inbox"], ["accept"])
    before = tree(fleet)
    r = kb(["promote", "--dry-run"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("promote/dry-run.txt", r.stdout)
    assert tree(fleet) == before


def test_the_cap_stops_the_run(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["many:3"], ["accept"])
    r = kb(["promote", "--max", "2"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("promote/max-2.txt", r.stdout)
    written = sorted(p.name for p in (fleet / "fleet/ada/knowledge").glob("note-*.md"))
    assert written == ["note-2026-11-20-session-1.md", "note-2026-11-20-session-2.md"]
    r = kb(["promote", "--max", "0"], cwd=fleet)
    assert r.code == 0
    assert r.stdout.startswith("\n0 proposals: 0 written, 0 refused.")
    assert "Stopped at the cap of 0." in r.stdout


def test_a_note_already_there_is_refused_before_review(
    fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    manifest(fleet, ["good"], ["accept"])
    assert kb(["promote"], cwd=fleet).code == 0
    rlog = tmp_path / "reviewer.log"
    manifest(fleet, ["good"], ["accept", "--log", str(rlog)])
    r = kb(["promote"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("promote/already-there.txt", r.stdout)
    assert prompts(rlog) == []


def test_three_refusals_and_the_fourth_costs_no_model_call(
    fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    rlog = tmp_path / "reviewer.log"
    manifest(fleet, ["good"], ["refuse:duplication", "--log", str(rlog)])
    for _ in range(3):
        assert kb(["promote"], cwd=fleet).code == 0
    assert len(prompts(rlog)) == 9
    second = prompts(rlog)[4]  # the second run's duplication reader sees the first refusal
    assert "PRIOR REJECTION UNDER THIS LENS (1 time(s), last " in second
    assert '  "the duplication reader refuses it."' in second
    r = kb(["promote"], cwd=fleet)
    assert len(prompts(rlog)) == 9
    check_golden("promote/repetition.txt", r.stdout)
    check_golden("promote/repetition-rejections.txt", (fleet / "kb-rejections.txt").read_text())


def test_the_private_layer_is_not_offered_without_all(
    fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    bruno = fleet / "fleet/bruno"
    (bruno / "agent.txt").write_text(
        (bruno / "agent.txt").read_text(encoding="utf-8") + "private = inbox\n", "utf-8"
    )
    (bruno / "inbox").mkdir()
    (bruno / "inbox/2026-11-22-session-k.md").write_text("# Fubá cake\n\n- secret\n", "utf-8")
    plog = tmp_path / "promoter.log"
    manifest(fleet, ["nothing", "--log", str(plog)], ["accept"])
    assert kb(["promote"], cwd=fleet).code == 0
    assert [p for p in prompts(plog) if "Fubá" in p] == []
    assert kb(["promote", "--all"], cwd=fleet).code == 0
    assert len([p for p in prompts(plog) if "Fubá" in p]) == 1


def test_progress_goes_to_a_terminal_only(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["good"], ["accept"])
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    proc = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "promote", "--dry-run"],
        cwd=fleet,
        env=env,
        stdout=subprocess.PIPE,
        stderr=follower,
        timeout=120,
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    err = seen.decode("utf-8").replace("\r\n", "\n")
    assert proc.returncode == 0
    assert "kb promote: [1/1] ada/inbox/2026-11-20-session.md: asking the promoter\n" in err
    assert "the reviewer reads it for scope\n" in err
    assert b"asking the promoter" not in proc.stdout
    piped = kb(["promote", "--dry-run"], cwd=fleet)
    assert piped.stderr == ""


# -- the lock ---------------------------------------------------------------------------------


def test_the_lock_is_released_and_a_fresh_one_declines(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["nothing"], ["accept"])
    r = kb(["promote", "--lock"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    assert not (fleet / ".kb-promote.lock").exists()
    # a live holder: it keeps the marker's flock (this test process plays it)
    lock = fleet / ".kb-promote.lock"
    lock.write_text(f"pid {os.getpid()}\n", encoding="utf-8")
    with lock.open("rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        r = kb(["promote", "--lock"], cwd=fleet)
    assert r.code == 0
    assert re.fullmatch(
        r"kb promote: another promotion run holds \.kb-promote\.lock \(last touched \d+s ago\)\. "
        r"Nothing was read and nothing was written\.\n",
        r.stdout,
    ), r.stdout
    # without --lock no lock is consulted
    assert "nothing worth keeping" in kb(["promote"], cwd=fleet).stdout


def test_a_stale_lock_is_taken_over(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["nothing"], ["accept"])
    lock = fleet / ".kb-promote.lock"
    # a pid that is a live process (this one), so only the age can tell the marker is dead
    lock.write_text(f"pid {os.getpid()}\n", encoding="utf-8")
    old = time.time() - 2 * 3600
    os.utime(lock, (old, old))
    r = kb(["promote", "--lock"], cwd=fleet)
    assert r.code == 0
    assert r.stderr == (
        f"kb promote: took over a lock last touched 120 minutes ago, left by pid {os.getpid()}. "
        "A previous run died without releasing it.\n"
    )
    assert "nothing worth keeping in ada/inbox/2026-11-20-session.md" in r.stdout
    assert not lock.exists()
    lock.write_text("", encoding="utf-8")
    os.utime(lock, (old, old))
    r = kb(["promote", "--lock"], cwd=fleet)
    assert "left by an unnamed process." in r.stderr


def _wait_for(path: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_a_run_killed_mid_way_leaves_no_half_note_and_never_blocks_forever(
    fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    manifest(fleet, ["many:3"], ["sleep:0.5", "--pid", str(pids)])
    before = tree(fleet)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kb.shell.cli.main", "promote", "--lock"],
        cwd=fleet,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_for(pids, 30)
    # three reviews of 0.5 s per note: killed while the second note is being decided
    time.sleep(1.6)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    for pid in map(int, pids.read_text().split()):
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    after = tree(fleet)
    lock = fleet / ".kb-promote.lock"
    assert lock.read_text(encoding="utf-8") == f"pid {proc.pid}\n"
    added = set(after) - set(before) - {".kb-promote.lock"}
    knowledge = "fleet/ada/knowledge/"
    map_text = (fleet / "fleet/ada/MAP.md").read_text(encoding="utf-8")
    map_lock = "fleet/ada/MAP.md.lock"
    if map_lock in added:
        # killed while listing a note in the map: its lock file stays, held by nobody, and
        # the run below takes it (a load that slows the reviews lands the kill there)
        assert not held_by_live(fleet / map_lock)
        added.discard(map_lock)
    for rel in added:
        # a temp file may be left by a kill, but only hidden, and never as a note
        name = rel.rsplit("/", 1)[-1]
        assert name.startswith(".") or (rel.startswith(knowledge) and rel.endswith(".md")), rel
        if not name.startswith("."):
            text = after[rel].decode("utf-8")
            assert text.startswith("---\nprovenance: agent\nstage: captured\n"), rel
            assert text.endswith(
                "\n- Updated the secret, forced a renewal, gateway healthy again by 10:15.\n"
            ), rel
            assert "**Exists to:** What the deposit 2026-11-20-session taught\n" in text
            assert f"[[{name[:-3]}]]" in map_text, f"{rel} written but not listed"
    # Issue 24, F20: the holder is dead (its flock is free and its pid is no process), so
    # the next locked run takes the lock over at once, not an hour later, and finishes the job
    manifest(fleet, ["many:3"], ["accept"])
    r = kb(["promote", "--lock"], cwd=fleet)
    assert r.code == 0
    assert r.stderr.startswith(f"kb promote: took over a lock left by pid {proc.pid}, ")
    assert "which is no longer running" in r.stderr
    assert not lock.exists()
    notes = sorted(p.name for p in (fleet / knowledge).glob("note-2026-11-20-session-*.md"))
    assert notes == [f"note-2026-11-20-session-{n}.md" for n in (1, 2, 3)]


# -- kb rejections ----------------------------------------------------------------------------


def test_rejections_reads_the_log_back(fleet: Path, kb: RunKb) -> None:
    r = kb(["rejections"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    assert r.stdout == "log:      kb-rejections.txt\n\n  no rejections recorded.\n"
    assert kb(["rejections", "--json"], cwd=fleet).stdout == "[]\n"
    manifest(fleet, ["good,outside"], ["refuse:contradiction"])
    assert kb(["promote"], cwd=fleet).code == 0
    assert kb(["promote"], cwd=fleet).code == 0
    r = kb(["rejections"], cwd=fleet)
    assert r.code == 0
    check_golden("promote/rejections.txt", r.stdout)
    check_golden("promote/rejections.json", kb(["rejections", "--json"], cwd=fleet).stdout)
    r = kb(["rejections", ".", "--lens", "SCOPE", "--agent", "ADA", "--json"], cwd=fleet)
    assert [row for row in r.stdout.split('{"count"')[1:]] and '"lens":"scope"' in r.stdout
    assert '"contradiction"' not in r.stdout
    r = kb(["rejections", "--agent", "bruno"], cwd=fleet)
    assert r.stdout.endswith("\n  no rejections recorded.\n")
    r = kb(["rejections", "--top", "0"], cwd=fleet)  # max(top, 1) * 4 rows: both fit
    assert r.stdout.count("why: ") == 2
