"""Issue 24, part 7: degrade, do not fail, and never fail silently. Regression tests for F12,
F19, F20 and the miss log that can never be written, over real processes.

F12 needs a user that file modes really deny: CI runs as root, and root reads a 0700 folder
as if it were open. The test runs kb as an unprivileged user (`nobody`, or one it creates
with `useradd`) through `setpriv`, and skips, saying why, only where that cannot be done.
"""

from __future__ import annotations

import json
import os
import pwd
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_FLEET, RunKb, _copy
from tests.ui.server import free_port, kb_env

UNPRIVILEGED = "kb-unprivileged"


def _unprivileged() -> tuple[int, int]:
    """(uid, gid) of a user the disk's modes apply to, or skip with the reason."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run kb as another user (and root to lock a folder from it)")
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed, so kb cannot be run as another user")
    for name in ("nobody", UNPRIVILEGED):
        try:
            entry = pwd.getpwnam(name)
            return entry.pw_uid, entry.pw_gid
        except KeyError:
            continue
    made = subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", UNPRIVILEGED],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.skip(f"no unprivileged user, and useradd failed: {made.stderr.strip()}")
    entry = pwd.getpwnam(UNPRIVILEGED)
    return entry.pw_uid, entry.pw_gid


class AsUser:
    """kb run as an unprivileged user, on a fleet that user owns."""

    def __init__(self, work: Path, uid: int, gid: int) -> None:
        self.work, self.uid, self.gid = work, uid, gid
        self.fleet = work / "fleet"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
        env.update(HOME=str(self.work), KB_MISSES_PATH=str(self.work / "misses.txt"))
        return env

    def argv(self, *args: str) -> list[str]:
        return [
            "setpriv",
            f"--reuid={self.uid}",
            f"--regid={self.gid}",
            "--clear-groups",
            "--",
            sys.executable,
            "-m",
            "kb.shell.cli.main",
            *args,
        ]

    def kb(self, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*args),
            cwd=self.work,
            env=self.env(),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )


@pytest.fixture
def as_user() -> Iterator[AsUser]:
    uid, gid = _unprivileged()
    work = Path(tempfile.mkdtemp(prefix="kb-unprivileged-", dir="/tmp"))
    try:
        work.chmod(0o755)
        _copy(EXAMPLE_FLEET, work / "fleet")
        for p in [work, *work.rglob("*")]:
            os.chown(p, uid, gid)
        user = AsUser(work, uid, gid)
        done = user.kb("index", str(user.fleet))
        assert done.returncode == 0, done.stderr
        yield user
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _lock_from_user(path: Path) -> None:
    """`path` becomes root's alone: the unprivileged user can neither list nor read it."""
    os.chown(path, 0, 0)
    path.chmod(0o700 if path.is_dir() else 0o600)


def _every_verb(user: AsUser) -> dict[str, subprocess.CompletedProcess[str]]:
    fleet = str(user.fleet)
    return {
        "route": user.kb("route", "pao de fermentacao natural", fleet),
        "index": user.kb("index", fleet),
        "list": user.kb("list", fleet),
        "fleet": user.kb("fleet", fleet),
        "serve": user.kb(
            "serve",
            fleet,
            stdin=json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "kb_route", "arguments": {"question": "bagagem de mao"}},
                }
            )
            + "\n",
        ),
    }


def test_an_unreadable_folder_skips_that_folder_and_the_rest_of_the_fleet_answers(
    as_user: AsUser,
) -> None:
    # F12: one root-only sub-folder made route, index, list, fleet and serve refuse the whole
    # fleet with "cannot read fleet/bruno", naming the base instead of the folder.
    locked = as_user.fleet / "fleet" / "bruno" / "knowledge" / "locked"
    locked.mkdir()
    (locked / "secret.md").write_text("# Locked\n\n**Search for:** locked\n")
    _lock_from_user(locked)
    answers = _every_verb(as_user)
    for verb, done in answers.items():
        assert done.returncode == 0, (verb, done.stderr)
        assert "bruno/knowledge/locked: Permission denied; this folder was skipped" in done.stderr
        assert done.stderr.count("bruno/knowledge/locked") == 1, (verb, done.stderr)
    assert (
        "bruno" in answers["route"].stdout and "pao-fermentacao-natural" in answers["list"].stdout
    )
    assert "bagagem" in answers["serve"].stdout


def test_an_unreadable_base_is_skipped_by_name_and_the_rest_of_the_fleet_answers(
    as_user: AsUser,
) -> None:
    _lock_from_user(as_user.fleet / "fleet" / "bruno")
    answers = _every_verb(as_user)
    for verb, done in answers.items():
        assert done.returncode == 0, (verb, done.stderr)
        assert "cannot read" in done.stderr and "fleet/bruno: Permission denied" in done.stderr
    assert "clara/knowledge/bagagem.md" in answers["list"].stdout
    assert "bagagem" in answers["serve"].stdout


def test_an_unreadable_index_is_named_and_its_base_still_answers(as_user: AsUser) -> None:
    # F12: a root-only index.db in one base did the same.
    index = as_user.fleet / "fleet" / "clara" / ".kb" / "index.db"
    _lock_from_user(index)
    answers = _every_verb(as_user)
    for verb in ("route", "list", "fleet", "serve"):
        done = answers[verb]
        assert done.returncode == 0, (verb, done.stderr)
        assert "clara/.kb/index.db" in done.stderr, (verb, done.stderr)
    listed = as_user.kb("list", str(as_user.fleet)).stdout
    assert "clara" in listed and "bruno" in listed  # the base answers from its headers
    index_run = as_user.kb("index", str(as_user.fleet))
    assert index_run.returncode == 0 and "clara/.kb/index.db" in index_run.stderr
    assert "bruno" in index_run.stdout


def test_a_miss_log_that_cannot_be_written_is_reported_on_every_refusal_and_by_doctor(
    example_fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    # Part 7: each refusal went to the pending folder with `recorded: true`, forever.
    log = tmp_path / "misses.txt"
    log.mkdir()  # a folder in its place
    env = {"KB_MISSES_PATH": str(log)}
    for _ in range(2):
        done = kb(["route", "zanzibar quokka telemetry", "--json"], cwd=example_fleet, env=env)
        miss = json.loads(done.stdout)["miss"]
        assert miss["recorded"] is False and "Is a directory" in miss["error"]
        assert done.stderr.count("\n") == 1 and str(log) in done.stderr
        text = kb(["route", "zanzibar quokka telemetry"], cwd=example_fleet, env=env)
        assert text.stderr.count("\n") == 1 and "could not write" in text.stderr
    doctor = kb(["doctor"], cwd=example_fleet, env=env)
    assert f"FIX  miss log: {log} can never be written (a folder is in its place)" in doctor.stdout
    assert "refused questions wait beside it" in doctor.stdout


def test_a_miss_log_the_user_may_not_write_is_reported(as_user: AsUser) -> None:
    # Part 7, the other way a log can never be written: a folder the user may not write in.
    logs = as_user.work / "logs"
    logs.mkdir()
    _lock_from_user(logs)
    logs.chmod(0o755)  # readable, not writable, by the user
    env = as_user.env() | {"KB_MISSES_PATH": str(logs / "misses.txt")}
    done = subprocess.run(
        as_user.argv("route", "zanzibar quokka telemetry", str(as_user.fleet), "--json"),
        cwd=as_user.work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    miss = json.loads(done.stdout)["miss"]
    assert miss["recorded"] is False and "Permission denied" in miss["error"]
    assert done.stderr.count("\n") == 1
    doctor = subprocess.run(
        as_user.argv("doctor", str(as_user.fleet)),
        cwd=as_user.work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "FIX  miss log:" in doctor.stdout and "cannot be written" in doctor.stdout


# -- F19: the reading room under slow clients ---------------------------------------------------

SLOW_CLIENTS = 400


def _slow_client(port: int, held: list[socket.socket], stop: threading.Event) -> None:
    """Open a connection, send half a request, and trickle a header line now and then."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /api/fleet HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        held.append(s)
        while not stop.wait(1.0):
            s.sendall(b"X-Slow: 1\r\n")
    except OSError:
        pass


def test_slow_clients_cannot_starve_the_reading_room(example_fleet: Path, tmp_path: Path) -> None:
    # F19: 400 slow clients under `ulimit -n 256` starved kb ui ("Too many open files").
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < SLOW_CLIENTS + 100:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
        except (ValueError, OSError):
            pytest.skip(f"this process may hold only {soft} descriptors")
    port = free_port()
    env = kb_env({"KB_MISSES_PATH": str(tmp_path / "m.txt"), "KB_UI_REQUEST_TIMEOUT": "2"})
    ui = ["ui", str(example_fleet), "--port", str(port)]
    proc = subprocess.Popen(
        ["prlimit", "--nofile=256:256", "--", sys.executable, "-m", "kb.shell.cli.main", *ui],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stderr is not None
    said: list[str] = [proc.stderr.readline()]
    assert said[0].startswith("kb ui: http://"), said
    drain = threading.Thread(target=lambda: said.extend(proc.stderr or ()), daemon=True)
    drain.start()
    held: list[socket.socket] = []
    stop = threading.Event()
    clients = [
        threading.Thread(target=_slow_client, args=(port, held, stop), daemon=True)
        for _ in range(SLOW_CLIENTS)
    ]
    try:
        for c in clients:
            c.start()
        time.sleep(1.0)  # every slow client is connected (or was turned away) by now
        served_at = None
        started = time.monotonic()
        while time.monotonic() - started < 30:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/fleet", timeout=5) as r:
                    if r.status == 200 and b"agents" in r.read():
                        served_at = time.monotonic() - started
                        break
            except OSError:
                time.sleep(0.2)
        assert served_at is not None, "".join(said)[-2000:]
        assert proc.poll() is None, "kb ui died"
    finally:
        stop.set()
        for s in held:
            s.close()
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        drain.join(timeout=10)
    print(f"\nkb ui answered {served_at:.1f} s into {SLOW_CLIENTS} slow clients")
    assert "Too many open files" not in "".join(said), "".join(said)[-2000:]


# -- F20: a promote lock whose holder is dead ---------------------------------------------------

HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, f"pid {os.getpid()}\\n".encode())
print("held", flush=True)
time.sleep(600)
"""


def test_a_lock_whose_holder_was_killed_is_taken_over_at_once(
    example_fleet: Path, kb: RunKb
) -> None:
    # F20: after kill -9 of `kb promote --lock`, the next run was refused for up to an hour.
    models = Path(__file__).resolve().parent.parent / "models"
    (example_fleet / "fleet.txt").write_text(
        f"name = Harbor\npromoter = {models / 'promoter.py'} nothing\n"
        f"reviewer = {models / 'reviewer.py'} accept\n",
        encoding="utf-8",
    )
    lock = example_fleet / ".kb-promote.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    busy = kb(["promote", "--lock"], cwd=example_fleet)
    assert "another promotion run holds" in busy.stdout  # alive: never taken over
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    run = kb(["promote", "--lock"], cwd=example_fleet)
    assert run.code == 0, run.stderr
    assert f"took over a lock left by pid {holder.pid}, which is no longer running" in run.stderr
    assert "nothing worth keeping" in run.stdout
    assert not lock.exists()
