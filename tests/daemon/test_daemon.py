"""The resident kb (issue 27, decision 0036), with real processes: lifecycle, the socket's
security, the version check, the same answers with and without it, privacy per request,
the idle timeout and changes on disk. Every daemon a test starts is stopped by the
fixture's finalizer, by its lock file's pid, whatever the test did."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from kb.io.answering.watcher import WATCHER_HOW
from kb.io.store.warm import dense_ranking
from kb.shell.cli.outcome import NOTHING_EXIT
from tests.conftest import EXAMPLE_FLEET, Result, _copy

QUESTIONS = (
    ["route", "how often should I run a backup restore test"],
    ["route", "meu pod fica em crashloopbackoff no kubernetes, o que olho primeiro", "--json"],
    ["route", "where can I find cheap flights with a short layover", "--top", "2"],
    ["route", "how do we roll back a deploy"],  # a refusal: the miss log is written
    ["route", "how do we roll back a deploy", "--json", "--exit-code"],
    ["route", "backpu restore", "--context"],
    ["route", "quillfeather contract"],
    ["route", "zzz qqq"],
    ["route", "the"],
    ["list"],
    ["list", "--json", "--base", "ada"],
    ["fleet"],
    ["fleet", "--json"],
    ["misses"],
    ["misses", "--json"],
)
BOOT = (
    {"prompt": "how long can leftovers stay outside the fridge", "session_id": "s1"},
    {"prompt": "o certificado tls do staging expirou de novo", "session_id": "s1"},
    {"prompt": "how do we roll back a deploy", "session_id": "s2"},
    {"prompt": "", "session_id": "s3"},
)


class Daemons:
    """Runs `kb` (through the entry point that asks a daemon) with its own socket folder."""

    def __init__(self, where: Path, home: Path) -> None:
        self.where = where
        self.home = home
        self.roots: list[Path] = []

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
        env.update({"KB_DAEMON_DIR": str(self.where), "HOME": str(self.home)})
        env.update(extra or {})
        return env

    def kb(
        self,
        args: Sequence[str],
        cwd: Path,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
        daemon: bool = True,
    ) -> Result:
        extra = dict(env or {})
        if not daemon:
            extra["KB_NO_DAEMON"] = "1"
        proc = subprocess.run(
            [sys.executable, "-m", "kb", *args],
            cwd=cwd,
            env=self.env(extra),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return Result(proc)

    def start(self, root: Path, env: dict[str, str] | None = None) -> Result:
        self.roots.append(root)
        out = self.kb(["daemon", "start"], root, env)
        assert out.code == 0, out.stderr
        return out

    def status(self, root: Path) -> dict[str, object]:
        out = self.kb(["daemon", "status", "--json"], root)
        value = json.loads(out.stdout)
        assert isinstance(value, dict)
        return value

    def pids(self) -> list[int]:
        out = []
        for lock in self.where.glob("*.lock"):
            try:
                out.append(int(lock.read_text().split()[0]))
            except (OSError, ValueError, IndexError):
                continue
        return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture
def daemons(tmp_path: Path) -> Iterator[Daemons]:
    # A short folder of its own: a socket's path must fit in 107 bytes.
    where = Path(tempfile.mkdtemp(prefix="kbd-", dir="/tmp")) / "rt"
    d = Daemons(where, tmp_path)
    try:
        yield d
    finally:
        for root in d.roots:
            d.kb(["daemon", "stop"], root)
        for pid in d.pids():
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(where.parent, ignore_errors=True)


@pytest.fixture
def fleet(tmp_path: Path) -> Path:
    return _copy(EXAMPLE_FLEET, tmp_path / "fleet")


def _requests(d: Daemons, root: Path) -> int:
    value = d.status(root).get("requests")
    assert isinstance(value, int)
    return value


def test_start_status_stop(daemons: Daemons, fleet: Path) -> None:
    none = daemons.kb(["daemon", "status"], fleet)
    assert none.code == 1 and "none running" in none.stdout
    started = daemons.start(fleet)
    assert "started for" in started.stdout
    again = daemons.kb(["daemon", "start"], fleet)
    assert again.code == 0 and "already running" in again.stdout
    assert len(daemons.pids()) == 1
    status = daemons.status(fleet)
    assert status["running"] is True and status["same_build"] is True
    assert status["watch"] == {"mode": "watcher", "how": WATCHER_HOW, "why": "", "overflows": 0}
    assert status["memory"] == {
        "fleets": 0,
        "bases": 0,
        "held": 0,
        "warm": 0,
        "numpy": 0,
        "mapped": 0,
    }
    assert daemons.kb(["route", "backup restore"], fleet).code == 0
    assert _requests(daemons, fleet) == 1
    # the fleet it opened is read into memory in the background
    deadline = time.monotonic() + 20
    ranked = 4 if dense_ranking() else 0  # numpy ranks each held base where it is installed
    held = {"fleets": 1, "bases": 4, "held": 4, "warm": 1, "numpy": ranked, "mapped": 0}
    while daemons.status(fleet)["memory"] != held:
        assert time.monotonic() < deadline, daemons.status(fleet)
        time.sleep(0.1)
    text = daemons.kb(["daemon", "status"], fleet).stdout
    for field in ("pid", "version", "uptime", "requests  1 served", "changes", "socket"):
        assert field in text
    way = "by numpy" if ranked else "in Python"
    assert (
        f"memory    1 open fleet, every base's text index held in memory (4), ranked {way}\n"
        in text
    )
    stopped = daemons.kb(["daemon", "stop"], fleet)
    assert stopped.code == 0 and f"pid {status['pid']}" in stopped.stdout
    assert daemons.kb(["daemon", "status"], fleet).code == 1
    assert not list(daemons.where.glob("*.sock"))
    assert daemons.kb(["daemon", "stop"], fleet).stdout.startswith("kb daemon: none running")


def test_socket_0600_in_a_folder_0700(daemons: Daemons, fleet: Path) -> None:
    daemons.start(fleet)
    assert stat.S_IMODE(daemons.where.stat().st_mode) == 0o700
    (sock,) = daemons.where.glob("*.sock")
    assert stat.S_ISSOCK(sock.stat().st_mode) and stat.S_IMODE(sock.stat().st_mode) == 0o600


def test_a_folder_others_may_write_in_is_refused(daemons: Daemons, fleet: Path) -> None:
    daemons.where.mkdir(parents=True)
    daemons.where.chmod(0o777)
    out = daemons.kb(["daemon", "start"], fleet)
    assert out.code == 1 and "writable by others" in out.stderr
    assert not list(daemons.where.glob("*.sock"))


def test_another_user_is_refused_even_through_an_open_socket(daemons: Daemons, fleet: Path) -> None:
    from tests.unprivileged import _user

    user = _user() if os.geteuid() == 0 else None
    if user is None:
        pytest.skip("not running as root: there is no second user to connect as")
    daemons.start(fleet)
    (sock,) = daemons.where.glob("*.sock")
    probe = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n"
        "    s.connect(sys.argv[1])\n"
        "except PermissionError:\n"
        "    print('denied'); raise SystemExit\n"
        "try:\n"
        '    s.sendall(b\'{"op": "status"}\\n\'); s.shutdown(socket.SHUT_WR)\n'
        "    print('answer:' + s.recv(65536).decode())\n"
        "except (BrokenPipeError, ConnectionResetError):\n"
        "    print('answer:')\n"
    )
    as_user = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]

    def connect() -> str:
        proc = subprocess.run(
            [*as_user, sys.executable, "-c", probe, str(sock)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd="/",
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip()

    assert connect() == "denied"  # the modes alone keep the user out
    # Opened up by mistake, the peer's uid still keeps it out: closed, unanswered.
    daemons.where.parent.chmod(0o755)
    daemons.where.chmod(0o755)
    sock.chmod(0o666)
    assert connect() == "answer:"
    assert _requests(daemons, fleet) == 0


def test_another_build_falls_back_and_start_replaces_it(daemons: Daemons, fleet: Path) -> None:
    daemons.start(fleet, {"KB_TEST_BUILD": "an older kb"})
    old = daemons.status(fleet)
    assert old["same_build"] is False
    text = daemons.kb(["daemon", "status"], fleet).stdout
    assert "calls are answered in-process" in text
    for args in QUESTIONS[:3]:
        with_old = daemons.kb(args, fleet)
        alone = daemons.kb(args, fleet, daemon=False)
        assert (with_old.stdout, with_old.stderr, with_old.code) == (
            alone.stdout,
            alone.stderr,
            alone.code,
        )
    assert _requests(daemons, fleet) == 0
    replaced = daemons.kb(["daemon", "start"], fleet)
    assert f"replacing pid {old['pid']}" in replaced.stdout
    assert daemons.status(fleet)["same_build"] is True


def _normal(text: str, root: Path) -> str:
    return text.replace(str(root), "<FLEET>")


def test_the_same_answers_with_and_without_a_daemon(
    daemons: Daemons, tmp_path: Path, fleet: Path
) -> None:
    alone = _copy(EXAMPLE_FLEET, tmp_path / "alone" / "fleet")
    for root in (fleet, alone):
        assert daemons.kb(["index"], root, daemon=False).code == 0
    daemons.start(fleet)
    asked = 0
    for args in QUESTIONS:
        a = daemons.kb(args, fleet)
        b = daemons.kb(args, alone, daemon=False)
        assert (_normal(a.stdout, fleet), _normal(a.stderr, fleet), a.code) == (
            _normal(b.stdout, alone),
            _normal(b.stderr, alone),
            b.code,
        ), args
        asked += 1
    for payload in BOOT:
        a = daemons.kb(["boot"], fleet, stdin=json.dumps({**payload, "cwd": str(fleet)}))
        b = daemons.kb(
            ["boot"], alone, stdin=json.dumps({**payload, "cwd": str(alone)}), daemon=False
        )
        assert (_normal(a.stdout, fleet), a.stderr, a.code) == (
            _normal(b.stdout, alone),
            b.stderr,
            b.code,
        ), payload
        asked += 1
    assert _requests(daemons, fleet) == asked  # every one was the daemon's
    misses = [(r / "kb-misses.txt").read_text(encoding="utf-8") for r in (fleet, alone)]
    assert misses[0] == misses[1] and "roll back" in misses[0]


def test_all_is_a_property_of_a_request(daemons: Daemons, fleet: Path) -> None:
    daemons.kb(["index", "--all"], fleet, daemon=False)
    daemons.start(fleet)
    question = ["route", "quillfeather contract sla credit"]
    public = daemons.kb(question, fleet, daemon=False)
    private = daemons.kb([*question, "--all"], fleet)
    assert "records/quillfeather-contract.md" in private.stdout
    for args in (question, [*question, "--json"], ["list"], ["list", "--json"]):
        after = daemons.kb(args, fleet)
        assert "quillfeather-contract" not in after.stdout, args
    assert daemons.kb(question, fleet).stdout == public.stdout
    assert _requests(daemons, fleet) == 6


def test_an_idle_daemon_stops(daemons: Daemons, fleet: Path) -> None:
    daemons.start(fleet, {"KB_DAEMON_IDLE_S": "1"})
    (pid,) = daemons.pids()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and daemons.kb(["daemon", "status"], fleet).code == 0:
        time.sleep(0.2)
    assert daemons.kb(["daemon", "status"], fleet).code == 1
    assert not _alive(pid) and not list(daemons.where.glob("*.sock"))


def test_a_killed_daemon_is_replaced_and_never_answers(daemons: Daemons, fleet: Path) -> None:
    daemons.start(fleet)
    (pid,) = daemons.pids()
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(daemons.where.glob("*.sock"))  # a stale socket stays behind
    question = ["route", "backup restore"]
    stale = daemons.kb(question, fleet)
    assert stale.stdout == daemons.kb(question, fleet, daemon=False).stdout
    assert daemons.kb(["daemon", "status"], fleet).code == 1
    assert "started for" in daemons.start(fleet).stdout
    assert daemons.kb(question, fleet).stdout == stale.stdout


NOTE = "# Zanzibar ferry timetable\n\n**Search for:** zanzibar ferry, ferry timetable\n\n{body}\n"


def _asked_at_once(d: Daemons, root: Path, question: str) -> str:
    started = time.monotonic()
    out = d.kb(["route", question, "--json"], root)
    assert time.monotonic() - started < 1.0 + 0.5  # the process itself; the answer within 1 s
    assert out.code == 0, out.stderr
    served = json.loads(out.stdout)["results"]
    return " ".join(f"{r['base']}/{r['path']}" for r in served)


@pytest.mark.parametrize("check", ["", "watcher"])  # the example fleet's own: by stat
def test_changes_on_disk_are_in_the_next_answer(daemons: Daemons, fleet: Path, check: str) -> None:
    daemons.kb(["index"], fleet, daemon=False)
    daemons.start(fleet, {"KB_DAEMON_WATCH": check})
    question = "zanzibar ferry timetable"
    assert "zanzibar" not in _asked_at_once(daemons, fleet, question)
    wrote = daemons.kb(
        [
            "write",
            "clara",
            "zanzibar",
            "--keys",
            "zanzibar ferry, ferry timetable",
            "--summary",
            "Ferries to Zanzibar",
        ],
        fleet,
        stdin=NOTE.format(body="The ferry leaves at nine."),
        daemon=False,
    )
    assert wrote.code == 0, wrote.stderr
    assert "clara/knowledge/zanzibar.md" in _asked_at_once(daemons, fleet, question)
    # an editor's save, in place: the keys now answer another question
    note = fleet / "fleet" / "clara" / "knowledge" / "zanzibar.md"
    note.write_text(NOTE.replace("zanzibar ferry", "pemba dhow").format(body="Dhows."))
    assert "zanzibar.md" in _asked_at_once(daemons, fleet, "pemba dhow timetable")
    renamed = note.with_name("pemba.md")
    note.rename(renamed)
    seen = _asked_at_once(daemons, fleet, "pemba dhow timetable")
    assert "clara/knowledge/pemba.md" in seen and "zanzibar.md" not in seen
    renamed.unlink()
    assert "pemba.md" not in _asked_at_once(daemons, fleet, "pemba dhow timetable")
    assert daemons.status(fleet)["watch"]["mode"] == "watcher"  # type: ignore[index]


def test_a_refusal_is_logged_once_the_daemon_has_replied(daemons: Daemons, fleet: Path) -> None:
    """The daemon replies before it rewrites the miss log (kb.io.files.deferred, decision
    0056): the record waits beside the log, where `kb misses` finds it at once, and is in the
    file itself before the daemon answers anything else."""
    daemons.kb(["index"], fleet, daemon=False)
    daemons.start(fleet)
    out = daemons.kb(["route", "quokka husbandry", "--json"], fleet)
    miss = json.loads(out.stdout)["miss"]
    assert (miss["recorded"], miss["error"]) == (True, None)
    alone = daemons.kb(["misses", "--json"], fleet, daemon=False)
    assert "quokka husbandry" in alone.stdout  # seen by a reader at once, folded or not
    daemons.status(fleet)
    log = fleet / "kb-misses.txt"
    assert "quokka husbandry" in log.read_text(encoding="utf-8")
    assert not any((fleet / ".kb-misses.txt.pending").glob("*.json"))
    assert _requests(daemons, fleet) == 1


def test_a_boot_writes_its_session_state_once_the_daemon_has_replied(
    daemons: Daemons, fleet: Path
) -> None:
    """The session's agent and its event line are what later messages read, not what this
    reply reports: the daemon writes them after replying, and the session's next message,
    asked of the daemon or of a one-shot kb, reads them as if written in line."""
    daemons.kb(["index"], fleet, daemon=False)
    daemons.start(fleet)
    payload = {"session_id": "after-reply", "cwd": str(fleet), "prompt": "backup restore"}
    first = daemons.kb(["boot"], fleet, stdin=json.dumps(payload))
    assert first.code == 0
    daemons.status(fleet)
    sessions = fleet / ".kb" / "sessions"
    agent = (sessions / "after-reply").read_text(encoding="utf-8")
    assert agent and agent in first.stdout
    assert len((sessions / "after-reply.events").read_text(encoding="utf-8").splitlines()) == 1
    warm = daemons.kb(["boot"], fleet, stdin=json.dumps(payload))
    cold = daemons.kb(["boot"], fleet, stdin=json.dumps(payload), daemon=False)
    assert warm.stdout == cold.stdout and warm.stdout != first.stdout  # not briefed again
    daemons.status(fleet)
    assert len((sessions / "after-reply.events").read_text(encoding="utf-8").splitlines()) == 3


def test_a_handoff_saved_by_hand_reaches_the_next_session_through_the_daemon(
    daemons: Daemons, fleet: Path
) -> None:
    """With no `latest-handoff.txt`, a session's first boot takes the newest record by mtime,
    which means listing the sessions folder; the daemon keeps that listing until its watcher
    reports a change to a record (kb.io.sessions.bootstate.watch_handoffs), so a record
    written just before the prompt is in the briefing, as in a one-shot kb's."""
    daemons.kb(["index"], fleet, daemon=False)
    daemons.start(fleet, {"KB_DAEMON_WATCH": "watcher"})

    def boot(session: str, daemon: bool = True) -> str:
        payload = {"session_id": session, "cwd": str(fleet), "prompt": "backup restore"}
        out = daemons.kb(["boot"], fleet, stdin=json.dumps(payload), daemon=daemon)
        assert out.code == 0, out.stderr
        return out.stdout

    assert "CONTINUITY" not in boot("first")  # listed: no record
    # answered once that boot's session files are written: the folder exists from then on
    daemons.status(fleet)
    folder = fleet / ".kb" / "sessions"
    for n, task in enumerate(("Move the backups offsite", "Test a restore")):
        (folder / f"by-hand-{n}.handoff.md").write_text(
            f"---\nsession: by-hand-{n}\nagent: ada\nstatus: pending\n"
            f"updated_at: 2026-12-0{n + 1}\n---\n\n# Task\n{task}\n\n",
            encoding="utf-8",
        )
        warm = boot(f"next-{n}")
        assert f"Active task: {task}" in warm, warm
        assert warm == boot(f"next-{n}-alone", daemon=False).replace(f"-{n}-alone", f"-{n}")
    assert _requests(daemons, fleet) == 3


def test_an_answer_given_before_the_cookie_came_back_is_never_logged_stale(
    daemons: Daemons, fleet: Path
) -> None:
    """`kb route` answers while the watcher's cookie travels; a note written just before the
    question makes that first answer a stale refusal, which must be neither printed nor
    written to the miss log: the daemon answers again from the fleet read afresh."""
    daemons.kb(["index"], fleet, daemon=False)
    daemons.start(fleet, {"KB_DAEMON_WATCH": "watcher"})
    assert daemons.kb(["route", "backup restore"], fleet).code == 0  # the fleet is held now
    misses = fleet / "kb-misses.txt"
    note = fleet / "fleet" / "clara" / "knowledge" / "zanzibar.md"
    for attempt in range(5):  # each time a new note, asked at once
        question = f"zanzibar ferry timetable {attempt}"
        note.write_text(NOTE.format(body="The ferry leaves at nine."))
        out = daemons.kb(["route", "zanzibar ferry timetable", "--exit-code"], fleet)
        assert out.code == 0 and "zanzibar.md" in out.stdout, out.stdout
        note.unlink()
        gone = daemons.kb(["route", question, "--exit-code"], fleet)
        assert gone.code == NOTHING_EXIT and "zanzibar.md" not in gone.stdout, gone.stdout
    daemons.status(fleet)  # answered after the last refusal's record is folded into the file
    logged = misses.read_text(encoding="utf-8").splitlines()
    assert not any(line.endswith(" zanzibar ferry timetable") for line in logged)
    assert all(any(line.endswith(f" timetable {n}") for line in logged) for n in range(5))


def test_a_boot_answered_before_the_cookie_came_back_writes_its_events_once(
    daemons: Daemons, fleet: Path
) -> None:
    """`kb boot` answers while the cookie travels too; a note written just before the
    prompt makes that first answer stale, and its session event must not be written twice
    (once by the stale answer, once by the fresh one)."""
    daemons.kb(["index"], fleet, daemon=False)
    daemons.start(fleet, {"KB_DAEMON_WATCH": "watcher"})
    assert daemons.kb(["route", "backup restore"], fleet).code == 0  # the fleet is held now
    note = fleet / "fleet" / "clara" / "knowledge" / "zanzibar.md"
    for attempt in range(5):
        note.write_text(NOTE.format(body="The ferry leaves at nine."))
        payload = {"session_id": f"ferry{attempt}", "cwd": str(fleet), "prompt": "zanzibar ferry"}
        out = daemons.kb(["boot"], fleet, stdin=json.dumps(payload))
        assert out.code == 0 and "zanzibar.md" in out.stdout, out.stdout
        note.unlink()
        daemons.status(fleet)  # answered once the boot's session state is written
        events = fleet / ".kb" / "sessions" / f"ferry{attempt}.events"
        assert len(events.read_text(encoding="utf-8").splitlines()) == 1


def test_without_a_watcher_each_request_checks_by_stat(daemons: Daemons, fleet: Path) -> None:
    daemons.kb(["index"], fleet, daemon=False)
    daemons.start(fleet, {"KB_DAEMON_WATCH": "stat"})
    watch = daemons.status(fleet)["watch"]
    assert isinstance(watch, dict) and watch["mode"] == "stat" and watch["why"]
    assert "a stat pass before every request" in daemons.kb(["daemon", "status"], fleet).stdout
    note = fleet / "fleet" / "clara" / "knowledge" / "zanzibar.md"
    note.write_text(NOTE.format(body="The ferry leaves at nine."))
    assert "zanzibar.md" in _asked_at_once(daemons, fleet, "zanzibar ferry timetable")


def test_a_call_from_an_agents_folder_is_answered_by_the_fleets_daemon(
    daemons: Daemons, fleet: Path
) -> None:
    """Run from `fleet/ada/knowledge`, kb opens the fleet around it, and so does the daemon
    started at the fleet's root: it answers, as the call would have been answered
    in-process."""
    folder = fleet / "fleet" / "ada" / "knowledge"
    alone = [daemons.kb(list(q), folder, daemon=False).stdout for q in QUESTIONS[:3]]
    daemons.start(fleet)
    before = _requests(daemons, fleet)
    assert [daemons.kb(list(q), folder).stdout for q in QUESTIONS[:3]] == alone
    assert _requests(daemons, fleet) == before + 3
    assert daemons.status(fleet)["sent_back"] == 0


def test_a_daemon_asked_from_below_for_a_fleet_it_does_not_hold_sends_it_back(
    daemons: Daemons, fleet: Path
) -> None:
    """A daemon started for the folder of bases (`fleet/fleet`) is the nearest above an
    agent's folder, but kb opens the whole fleet from there, which that daemon does not
    hold: the call is answered in-process, and the daemon opens nothing."""
    folder = fleet / "fleet" / "ada" / "knowledge"
    alone = daemons.kb(["route", "backup restore"], folder, daemon=False).stdout
    bases = fleet / "fleet"
    daemons.start(bases)
    assert daemons.kb(["route", "backup restore"], folder).stdout == alone
    status = daemons.status(bases)
    assert status["requests"] == status["sent_back"] == 1
    assert isinstance(status["memory"], dict) and status["memory"]["fleets"] == 0


def test_the_client_imports_nothing_heavy(daemons: Daemons, fleet: Path) -> None:
    daemons.start(fleet)
    probe = (
        "import io, sys, contextlib\n"
        "sys.argv = ['kb', 'route', 'backup restore']\n"
        "from kb import client\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    code = client.main()\n"
        "heavy = [m for m in ('cyclopts', 'attrs', 'sqlite3', 'json', '_json', 'kb.shell.cli.main',"
        " 'kb.version', 'kb.io.answering.memory') if m in sys.modules]\n"
        "print(code, heavy, 'verdict' in out.getvalue())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=fleet,
        env=daemons.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout.strip() == "0 [] True", proc.stderr
    assert _requests(daemons, fleet) == 1


def _answered_by_a_stand_in(
    daemons: Daemons, fleet: Path, reply: bytes, env: dict[str, str] | None = None
) -> tuple[int, bytes, bytes]:
    """`kb route "backup restore"` in `fleet`, with a socket of ours in the daemon's place
    that reads the question and sends `reply`: the process's code, stdout and stderr."""
    from kb.client import socket_path

    daemons.where.mkdir(parents=True, mode=0o700)
    path = socket_path(str(fleet), str(daemons.where))
    with socket.socket(socket.AF_UNIX) as stand_in:
        stand_in.bind(str(path))
        stand_in.listen(1)
        stand_in.settimeout(30)
        proc = subprocess.Popen(
            [sys.executable, "-m", "kb", "route", "backup restore"],
            cwd=fleet,
            env=env or daemons.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        conn, _ = stand_in.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(reply)
        out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def test_a_socket_that_answers_nonsense_is_not_believed(daemons: Daemons, fleet: Path) -> None:
    code, out, _err = _answered_by_a_stand_in(daemons, fleet, b'{"stdout": 1}\n')
    assert code == 0 and out.decode() == daemons.kb(["route", "backup restore"], fleet).stdout


@pytest.mark.parametrize("lines", [3, 20_000])
def test_an_answer_ends_the_process_whole_with_its_code(
    daemons: Daemons, fleet: Path, lines: int
) -> None:
    """The client ends without the interpreter's finalization once a daemon has answered
    (kb.client.run): an answer still in stdout's buffer, one larger than a pipe holds, and
    a warning with no newline all arrive whole, with the daemon's exit code."""
    from kb.client import reply_frame

    answer = "".join(f"line {i} of a long answer\n" for i in range(lines)) + "no newline"
    reply = {"stdout": answer, "stderr": "a warning, unfinished", "code": 3}
    env = daemons.env()
    env.pop("PYTHONUNBUFFERED", None)  # buffered, as a user's own shell has it
    code, out, err = _answered_by_a_stand_in(daemons, fleet, reply_frame(reply), env)
    assert (code, err) == (3, b"a warning, unfinished")
    assert out.decode() == answer


def test_the_client_asks_no_socket_in_a_folder_others_may_write_in(
    daemons: Daemons, fleet: Path
) -> None:
    """A socket planted in a folder another user can write in never hears the question,
    and never speaks for kb: the client answers in-process."""
    from kb.client import socket_path

    daemons.where.mkdir(parents=True, mode=0o700)
    daemons.where.chmod(0o777)
    path = socket_path(str(fleet), str(daemons.where))
    with socket.socket(socket.AF_UNIX) as planted:
        planted.bind(str(path))
        planted.listen(1)
        planted.settimeout(2)
        out = daemons.kb(["route", "backup restore"], fleet)
        with pytest.raises(TimeoutError):
            planted.accept()
    daemons.where.chmod(0o700)
    assert out.code == 0 and out.stdout == daemons.kb(["route", "backup restore"], fleet).stdout


def test_kb_doctor_names_a_running_daemon_and_one_of_another_build(
    daemons: Daemons, fleet: Path
) -> None:
    def daemon_line(env: dict[str, str] | None = None) -> str:
        out = daemons.kb(["doctor", "."], fleet, env)
        (line,) = [x for x in out.stdout.splitlines() if x[5:].startswith("daemon:")]
        return line

    assert daemon_line().startswith("ok   daemon: none running, and none needed at ")
    daemons.start(fleet)
    pid = daemons.status(fleet)["pid"]
    assert daemon_line() == (
        f"ok   daemon: running (pid {pid}): route, boot, list, fleet and misses are answered "
        "by a fleet already open"
    )
    other = daemon_line({"KB_TEST_BUILD": "another"})
    assert other.startswith(f"FIX  daemon: one of another kb build is running (pid {pid})")


def test_daemon_auto_in_fleet_txt_starts_one_in_the_background(
    daemons: Daemons, fleet: Path
) -> None:
    """Off by default: a plain fleet gets no daemon from a call. With `daemon = auto`, the
    first call is answered in-process (the same answer) and leaves a daemon behind, which
    answers the next."""
    daemons.roots.append(fleet)  # stopped at the end, whatever happens
    plain = daemons.kb(["route", "backup restore"], fleet)
    time.sleep(1.0)
    assert daemons.kb(["daemon", "status"], fleet).code == 1 and not daemons.pids()
    with (fleet / "fleet.txt").open("a", encoding="utf-8") as fh:
        fh.write("\ndaemon = auto  # start one on the first call\n")
    first = daemons.kb(["route", "backup restore"], fleet)
    assert (first.code, first.stdout) == (plain.code, plain.stdout)
    deadline = time.monotonic() + 20
    while daemons.kb(["daemon", "status"], fleet).code != 0:
        assert time.monotonic() < deadline, "no daemon started"
        time.sleep(0.2)
    before = _requests(daemons, fleet)
    again = daemons.kb(["route", "backup restore"], fleet)
    assert again.stdout == plain.stdout and _requests(daemons, fleet) == before + 1
    assert len(daemons.pids()) == 1
