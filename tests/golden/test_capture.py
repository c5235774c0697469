"""`kb capture` on a copy of the example fleet (workflow-verbs.md §8).

Every events file here is written by hand in the §8.1 format, so these tests do not depend
on `kb boot`. The deposits and stdout are pinned (the date masked as <DATE>).

Regenerate only on purpose: KB_UPDATE_GOLDEN=1 python -m pytest tests/golden/test_capture.py,
then review the diff.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from kb.io.sessions import records as sessions
from kb.pure.sessions.session import (
    Concluded,
    Refused,
    Routed,
    parse_events,
    read_envelope,
    render_events,
)
from tests.conftest import RunKb, check_golden

NO_SESSION = "kb capture: no session named. Pass --session, or the hook payload on stdin.\n"

OPENAI = "sk-proj-Q9x7LmT2vR4kP8sN1bW6yZ3cJ5hD0fGa"
GITHUB = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
PASSWORD = "Tr0ub4dor&3x"


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def write_events(fleet: Path, session: str, *lines: str) -> Path:
    folder = fleet / ".kb" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.events"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def inbox_deposits(fleet: Path, agent: str) -> list[Path]:
    inbox = fleet / "fleet" / agent / "inbox"
    return sorted(inbox.glob("*-session-*.md")) if inbox.is_dir() else []


SESSION_PATH = (
    "routed\tada",
    f"refused\thow do I rotate the restic key {OPENAI}\trestic, backup, rotation",
    "refused\tis there a runbook for the staging gateway\t",
    "routed\tbruno",
    "routed\tbruno",
    "refused\twhat wine goes with grilled sardines\tfish, sardinha",
    "unknown\tline\tignored",
    "refused\t\tan empty question is ignored",
    "routed\tada",
    f"conclusion\tkeep 30 daily snapshots; the repo password={PASSWORD}",
)


def test_capture_writes_one_deposit_per_owner(example_fleet: Path, kb: RunKb) -> None:
    events = write_events(example_fleet, "s-golden", *SESSION_PATH)
    out = kb(
        [
            "capture",
            "--session",
            "s-golden",
            "--conclusion",
            f"decided: rotate with `restic key add`, token {GITHUB}",
        ],
        cwd=example_fleet,
    )
    assert out.code == 0, out.stderr
    assert out.stderr == ""
    check_golden("capture/two-owners.stdout", out.stdout)
    [ada] = inbox_deposits(example_fleet, "ada")
    [bruno] = inbox_deposits(example_fleet, "bruno")
    assert ada.name == f"{today()}-session-s-golden.md"
    check_golden("capture/ada-deposit.md", ada.read_text(encoding="utf-8"))
    check_golden("capture/bruno-deposit.md", bruno.read_text(encoding="utf-8"))
    for deposit in (ada, bruno):
        text = deposit.read_text(encoding="utf-8")
        assert text.startswith("---\nprovenance: agent\nstage: raw\n---\n")
        assert "Search for" not in text
        for secret in (OPENAI, GITHUB, PASSWORD):
            assert secret not in text
    assert not events.exists(), "the record is deleted once every deposit is on disk"

    again = kb(["capture", "--session", "s-golden"], cwd=example_fleet)
    assert again.code == 0
    assert again.stdout == (
        "nothing captured for session s-golden: the session produced nothing to capture\n"
    )
    assert len(inbox_deposits(example_fleet, "ada")) == 1


def test_the_session_comes_from_the_hook_payload(example_fleet: Path, kb: RunKb) -> None:
    write_events(example_fleet, "abc_1", "routed\tclara", "refused\tflights to Lisbon\t")
    payload = json.dumps(
        {"session_id": "abc/1", "hook_event_name": "SessionEnd", "cwd": str(example_fleet)}
    )
    # run from elsewhere: the payload's cwd is the root, as it is for `kb boot`
    out = kb(["capture"], cwd=example_fleet.parent, stdin=payload)
    assert out.code == 0, out.stderr
    shown = f"{example_fleet}/fleet/clara/inbox/{today()}-session-abc_1.md"
    assert out.stdout == f"captured session abc/1 into {shown}\n"
    assert "# Session abc_1, " in Path(shown).read_text(encoding="utf-8")


def test_no_session_is_a_usage_error(example_fleet: Path, kb: RunKb) -> None:
    for stdin in ("", "just a message", '{"prompt": "hi"}', '{"session_id": "  "}'):
        out = kb(["capture"], cwd=example_fleet, stdin=stdin)
        assert (out.code, out.stdout, out.stderr) == (2, "", NO_SESSION)
    assert not (example_fleet / ".kb").exists()


def test_nothing_recorded_is_said_and_harmless(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["capture", "--session", "quiet"], cwd=example_fleet)
    assert (out.code, out.stderr) == (0, "")
    assert (
        out.stdout
        == "nothing captured for session quiet: the session produced nothing to capture\n"
    )
    write_events(example_fleet, "blank", "", "garbage", "routed\t")
    out = kb(["capture", "--session", "blank"], cwd=example_fleet)
    assert "the session produced nothing to capture" in out.stdout
    assert inbox_deposits(example_fleet, "ada") == []


def test_no_owner_keeps_the_record(example_fleet: Path, kb: RunKb) -> None:
    events = write_events(example_fleet, "orphan", "refused\twhere is the boiler manual\t")
    out = kb(
        ["capture", "--session", "orphan", "--conclusion", f"api_key={OPENAI} works"],
        cwd=example_fleet,
    )
    assert out.code == 0
    assert out.stdout == (
        "nothing captured for session orphan: no agent was routed in this session, "
        "so the deposit has no owner\n"
    )
    kept = events.read_text(encoding="utf-8")
    assert kept == (
        "refused\twhere is the boiler manual\t\nconclusion\tapi_key=[REDACTED_SECRET] works\n"
    ), "the conclusion is scrubbed before it reaches the events file"


def test_the_boot_file_owns_a_session_with_no_routed_line(example_fleet: Path, kb: RunKb) -> None:
    write_events(example_fleet, "booted", "refused\twhat is a stock\t")
    (example_fleet / ".kb" / "sessions" / "booted").write_text("bruno\n", encoding="utf-8")
    out = kb(["capture", "--session", "booted"], cwd=example_fleet)
    assert out.code == 0
    [deposit] = inbox_deposits(example_fleet, "bruno")
    text = deposit.read_text(encoding="utf-8")
    assert "- what is a stock\n" in text
    assert "## Where the conversation went" not in text
    assert text.endswith("- what is a stock\n")


def test_an_owner_that_fails_keeps_its_events(example_fleet: Path, kb: RunKb) -> None:
    events = write_events(
        example_fleet,
        "partial",
        "routed\tghost",
        "refused\twho haunts the attic\t",
        "routed\t../../escape",
        "conclusion\tclimb out",
        "routed\tada",
        "refused\thow often to test restores\tbackup",
    )
    out = kb(["capture", "--session", "partial"], cwd=example_fleet)
    assert out.code == 0, out.stderr
    check_golden("capture/partial.stdout", out.stdout)
    assert len(inbox_deposits(example_fleet, "ada")) == 1
    assert not (example_fleet / "escape").exists()
    assert events.read_text(encoding="utf-8") == (
        "routed\tghost\n"
        "refused\twho haunts the attic\t\n"
        "routed\t../../escape\n"
        "conclusion\tclimb out\n"
        "routed\tada\n"
    )


def test_a_repeated_capture_never_overwrites(example_fleet: Path, kb: RunKb) -> None:
    lines = ("routed\tada", "refused\thow to prune old snapshots\tprune")
    write_events(example_fleet, "again", *lines)
    assert kb(["capture", "--session", "again"], cwd=example_fleet).code == 0
    [first] = inbox_deposits(example_fleet, "ada")
    before = first.read_bytes()

    # a crash after the deposit and before the delete: the same events come back
    write_events(example_fleet, "again", *lines)
    out = kb(["capture", "--session", "again"], cwd=example_fleet)
    assert out.stdout == f"captured session again into ./fleet/ada/inbox/{first.name}\n"
    assert inbox_deposits(example_fleet, "ada") == [first]

    # the session resumed the same day: the new deposit takes the next name
    write_events(example_fleet, "again", "routed\tada", "refused\tis restic faster than borg\t")
    out = kb(["capture", "--session", "again"], cwd=example_fleet)
    second = first.with_name(f"{today()}-session-again-2.md")
    assert out.stdout == f"captured session again into ./fleet/ada/inbox/{second.name}\n"
    assert first.read_bytes() == before
    assert "is restic faster than borg" in second.read_text(encoding="utf-8")


def test_events_appended_during_a_capture_survive(tmp_path: Path) -> None:
    path = tmp_path / "s.events"
    read = render_events([Routed("ada"), Refused("q", ("a",))]).encode()
    path.write_bytes(read + b"routed\tbruno\n")  # boot wrote one more line meanwhile
    sessions.finish_events(path, read, "")
    assert path.read_text(encoding="utf-8") == "routed\tbruno\n"
    sessions.finish_events(path, path.read_bytes(), "")
    assert not path.exists()
    # a record rewritten by someone else in the meantime is left alone
    path.write_text("routed\tclara\n", encoding="utf-8")
    sessions.finish_events(path, read, "")
    assert path.exists()


def test_a_torn_last_line_does_not_swallow_the_conclusion(tmp_path: Path) -> None:
    folder = tmp_path / ".kb" / "sessions"
    folder.mkdir(parents=True)
    (folder / "t.events").write_bytes(b"routed\tada")  # a writer killed mid-line
    sessions.append_event(str(tmp_path), "t", Concluded("done\tand\ndusted"))
    text = (folder / "t.events").read_text(encoding="utf-8")
    assert text == "routed\tada\nconclusion\tdone and dusted\n"
    assert parse_events(text) == (Routed("ada"), Concluded("done and dusted"))


def test_a_missing_root_is_an_error(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["capture", "nowhere", "--session", "x"], cwd=example_fleet)
    assert out.code == 1
    assert out.stderr == (
        "kb capture: no directory at nowhere, so there is no session record there\n"
    )


PAYLOADS = [
    '{"session_id": "abc", "cwd": "/w"}',
    '  {"session_id": "  padded  ", "prompt": "hi"}',
    '{"session_id": "", "hook_event_name": "Stop"}',
    '{"session_id": 7, "cwd": 3}',
    '{"other": "x", "session_id": "no envelope key"}',
    '{"hook_event_name": "SessionEnd"}',
    "[1, 2]",
    '{"session_id": "unterminated"',
    "plain text",
    "",
]


def test_capture_reads_the_payload_as_boot_does() -> None:
    """`kb capture` takes its session from the same payload `kb boot` reads (§8.2 step 1);
    boot parses it with its own module, so the two are held together here."""
    from kb.pure.sessions import bootinput

    for payload in PAYLOADS:
        ours = read_envelope(payload)
        theirs = bootinput.read_request(payload, False)
        assert ours.session == (theirs.session if theirs is not None else None), payload
        ours_cwd = ours.cwd.strip() or None if ours.cwd is not None else None
        assert ours_cwd == (theirs.cwd if theirs is not None else None), payload
