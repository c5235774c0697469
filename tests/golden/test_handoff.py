"""`kb handoff` on a copy of the example fleet (workflow-verbs.md §14): the record through the
whole baton machine, every refusal with its line and exit code, and claims racing each other.

Regenerate only on purpose: KB_UPDATE_GOLDEN=1 python -m pytest tests/golden/test_handoff.py,
then review the diff.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kb.io.sessions import records as sessions
from kb.pure.sessions import handoff as ho
from tests.conftest import RunKb, check_golden

SAVE = [
    "handoff",
    "save",
    "ada",
    "--task",
    "Move the nightly backup\nto restic",
    "--decision",
    "restic over borg: one static binary",
    "--decision",
    "keep 30 daily snapshots",
    "--blocker",
    "the NAS password=hunter22 expires Friday",
    "--next",
    "run a restore test",
    "--ref",
    "fleet/ada/knowledge/backups.md",
    "--reference",
    "https://backup:s3cr3t@nas.local/restic",
    "--session",
    "s-golden",
]


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def record_file(fleet: Path, session: str) -> Path:
    return fleet / ".kb" / "sessions" / f"{session}.handoff.md"


def test_the_baton_through_the_whole_machine(example_fleet: Path, kb: RunKb) -> None:
    saved = kb(SAVE, cwd=example_fleet)
    assert (saved.code, saved.stderr) == (0, "")
    assert saved.stdout == (
        "saved handoff for session s-golden (ada) into ./.kb/sessions/s-golden.handoff.md\n"
    )
    text = record_file(example_fleet, "s-golden").read_text(encoding="utf-8")
    check_golden("handoff/pending.md", text)
    assert "hunter22" not in text and "s3cr3t" not in text
    assert (example_fleet / ".kb" / "sessions" / "latest-handoff.txt").read_text() == "s-golden"

    shown = kb(["handoff"], cwd=example_fleet)
    assert (shown.code, shown.stdout) == (0, text)
    as_json = kb(["handoff", "--json"], cwd=example_fleet)
    check_golden("handoff/pending.json", as_json.stdout)
    assert list(json.loads(as_json.stdout)) == [
        "session",
        "agent",
        "task",
        "status",
        "decisions",
        "blockers",
        "next_steps",
        "references",
        "updated_at",
    ]

    claimed = kb(["handoff", "claim", "bruno"], cwd=example_fleet)
    assert (claimed.code, claimed.stdout) == (0, "claimed handoff for session s-golden by bruno\n")
    check_golden("handoff/claimed.md", kb(["handoff", "--show"], cwd=example_fleet).stdout)
    claimed_json = json.loads(kb(["handoff", "--json"], cwd=example_fleet).stdout)
    assert (claimed_json["status"], claimed_json["claimed_by"]) == ("claimed", "bruno")
    assert list(claimed_json)[4] == "claimed_by"

    again = kb(["handoff", "claim", "clara"], cwd=example_fleet)
    assert (again.code, again.stdout) == (1, "")
    assert again.stderr == "kb handoff claim: handoff already claimed by bruno\n"
    mine = kb(["handoff", "claim", "bruno"], cwd=example_fleet)
    assert mine.stderr == "kb handoff claim: handoff already claimed by bruno\n"

    done = kb(["handoff", "complete", "--json"], cwd=example_fleet)
    assert done.code == 0
    check_golden("handoff/completed.json", done.stdout)
    for argv, line in (
        (["handoff", "complete"], "kb handoff complete: handoff is already completed\n"),
        (["handoff", "claim", "clara"], "kb handoff claim: handoff is already completed\n"),
    ):
        out = kb(argv, cwd=example_fleet)
        assert (out.code, out.stdout, out.stderr) == (1, "", line)
    before = record_file(example_fleet, "s-golden").read_bytes()
    assert kb(["handoff", "claim", "clara"], cwd=example_fleet).code == 1
    assert record_file(example_fleet, "s-golden").read_bytes() == before, "a refusal writes nothing"

    # a new save starts a new baton in the same session
    resaved = kb(
        ["handoff", "save", "clara", "--task", "book the train", "--session", "s-golden"],
        cwd=example_fleet,
    )
    assert resaved.code == 0
    check_golden("handoff/resaved.md", kb(["handoff"], cwd=example_fleet).stdout)
    assert kb(["handoff", "complete"], cwd=example_fleet).stdout == (
        "completed handoff for session s-golden\n"
    )


def test_complete_straight_from_pending(example_fleet: Path, kb: RunKb) -> None:
    assert kb(SAVE, cwd=example_fleet).code == 0
    out = kb(["handoff", "complete", "--session", "s-golden"], cwd=example_fleet)
    assert (out.code, out.stdout) == (0, "completed handoff for session s-golden\n")
    parsed = ho.parse(record_file(example_fleet, "s-golden").read_text(encoding="utf-8"))
    assert parsed is not None
    assert (parsed.status, parsed.claimed_by) == (ho.Status.COMPLETED, None)


def test_nothing_to_show(example_fleet: Path, kb: RunKb) -> None:
    for argv, stdout in (
        (["handoff"], "no handoff records found\n"),
        (["handoff", "--show"], "no handoff records found\n"),
        (["handoff", "show"], "no handoff records found\n"),
        (["handoff", "--json"], "null\n"),
        (["handoff", "--session", "x/y"], "no handoff record for session 'x/y'\n"),
        (["handoff", "--session", "x", "--json"], "null\n"),
    ):
        out = kb(argv, cwd=example_fleet)
        assert (out.code, out.stdout, out.stderr) == (0, stdout, ""), argv
    for verb in ("claim", "complete"):
        argv = ["handoff", verb, "ada"] if verb == "claim" else ["handoff", verb]
        out = kb(argv, cwd=example_fleet)
        assert (out.code, out.stderr) == (1, f"kb handoff {verb}: no handoff record found\n")
        out = kb([*argv, "--session", "gone"], cwd=example_fleet)
        assert out.stderr == f"kb handoff {verb}: no handoff record found for session 'gone'\n"
    assert not (example_fleet / ".kb" / "sessions" / "gone.handoff.md").exists()


def test_usage_errors(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["handoff", "save"], cwd=example_fleet)
    assert out.code == 2
    assert out.stderr == "kb handoff save: name the agent and provide --task <text>\n\n"
    assert out.stdout.startswith("usage:")
    for argv in (["handoff", "save", "ada"], ["handoff", "save", "ada", "--task", "  "]):
        out = kb(argv, cwd=example_fleet)
        assert (out.code, out.stdout) == (2, "")
        assert out.stderr == "kb handoff save: missing required --task <text>\n\n"
    out = kb(["handoff", "claim"], cwd=example_fleet)
    assert (out.code, out.stderr) == (2, "kb handoff claim: specify the agent name\n\n")
    out = kb(["handoff", "claim", " "], cwd=example_fleet)
    assert (out.code, out.stderr) == (2, "kb handoff claim: agent name cannot be empty\n\n")
    out = kb(["handoff", "claim", "ada", "--complete"], cwd=example_fleet)
    assert out.code == 2
    assert out.stderr == "kb handoff: one action at a time, and this names claim, complete\n"
    out = kb(["handoff", "complete", "--decision", "x"], cwd=example_fleet)
    assert out.code == 2
    assert out.stderr == (
        "kb handoff complete: --decision belongs to `kb handoff save` only; nothing was recorded\n"
    )
    out = kb(["handoff", "claim", "ada", ".", "extra"], cwd=example_fleet)
    assert out.code == 2
    assert "unexpected argument(s) 'extra'" in out.stderr
    out = kb(["handoff", "save", "ada", "--task"], cwd=example_fleet)
    assert out.code == 2 and "--task" in out.stderr
    out = kb(["handoff", "nowhere"], cwd=example_fleet)
    assert (out.code, out.stderr) == (1, "kb handoff: no directory at nowhere\n")
    assert not (example_fleet / ".kb").exists()


def test_the_root_is_what_is_left_after_the_action_and_agent(
    example_fleet: Path, kb: RunKb
) -> None:
    """Quirk 9, decided: both spellings take the root from the one positional left over."""
    cwd = example_fleet.parent
    assert kb([*SAVE[:2], "ada", "fleet", *SAVE[3:]], cwd=cwd).code == 0
    out = kb(["handoff", "--claim", "bruno", "fleet"], cwd=cwd)
    assert out.stdout == "claimed handoff for session s-golden by bruno\n"
    out = kb(["handoff", "fleet", "--complete"], cwd=cwd)
    assert out.stdout == "completed handoff for session s-golden\n"
    assert (
        kb(["handoff", "save", "ada", "fleet", "--task", "t", "--session", "n"], cwd=cwd).code == 0
    )
    out = kb(["handoff", "claim", "clara", "fleet"], cwd=cwd)
    assert out.stdout == "claimed handoff for session n by clara\n"
    out = kb(["handoff", "complete", "fleet", "--session", "n"], cwd=cwd)
    assert out.stdout == "completed handoff for session n\n"
    assert kb(["handoff", "fleet", "--json"], cwd=cwd).stdout.startswith('{"session":"n",')
    assert not (cwd / ".kb").exists()


def test_latest_and_default_session(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["handoff", "save", "ada", "--task", "first"], cwd=example_fleet)
    session = "s-" + today().replace("-", "")
    assert out.stdout == (
        f"saved handoff for session {session} (ada) into ./.kb/sessions/{session}.handoff.md\n"
    )
    assert kb(["handoff", "save", "bruno", "--task", "second", "--session", "b"], cwd=example_fleet)
    assert json.loads(kb(["handoff", "--json"], cwd=example_fleet).stdout)["task"] == "second"
    # without the pointer, the newest record file is the latest
    (example_fleet / ".kb" / "sessions" / "latest-handoff.txt").unlink()
    older = record_file(example_fleet, "b")
    os.utime(older, (1, 1))
    assert json.loads(kb(["handoff", "--json"], cwd=example_fleet).stdout)["task"] == "first"
    out = kb(["handoff", "claim", "clara"], cwd=example_fleet)
    assert out.stdout == f"claimed handoff for session {session} by clara\n"
    pending = json.loads(kb(["handoff", "--session", "b", "--json"], cwd=example_fleet).stdout)
    assert pending["status"] == "pending"


def test_session_ids_stay_inside_the_sessions_folder(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["handoff", "save", "ada", "--task", "t", "--session", "../../x"], cwd=example_fleet)
    assert out.stdout.endswith("into ./.kb/sessions/______x.handoff.md\n")
    record = ho.parse(record_file(example_fleet, "______x").read_text(encoding="utf-8"))
    assert record is not None and record.session == "../../x"
    assert kb(["handoff", "claim", "bruno", "--session", "../../x"], cwd=example_fleet).code == 0


# -- claims racing each other ----------------------------------------------------------------


def _race(root: str, agent: str, barrier: Any, queue: Any) -> None:
    from returns.result import Success

    barrier.wait()
    moved = sessions.change(root, None, lambda _r: ho.Claim(agent, "2026-01-01"))
    queue.put((agent, isinstance(moved, Success)))


def _saving(record: ho.Record) -> Callable[[ho.Record | None], ho.Move]:
    """The move that saves `record`, whatever the lock finds."""
    return lambda _found: ho.Save(record)


def test_two_claim_processes_exactly_one_wins(example_fleet: Path, tmp_path: Path) -> None:
    """The spec's race: two `kb handoff claim` processes at once, twenty times over. The
    twenty pairs run side by side (each on its own root) so the test takes seconds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    roots = [example_fleet, *(tmp_path / f"trial{n}" for n in range(1, 20))]
    pairs = []
    for n, root in enumerate(roots):
        root.mkdir(exist_ok=True)
        record = ho.Record(session="r", agent="ada", task=f"trial {n}", updated_at=today())
        assert sessions.change(str(root), "r", _saving(record))
        pairs.append(
            [
                subprocess.Popen(
                    [sys.executable, "-m", "kb.shell.cli.main", "handoff", "claim", agent],
                    cwd=root,
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for agent in ("bruno", "clara")
            ]
        )
    for root, procs in zip(roots, pairs, strict=True):
        results = [(p.wait(timeout=120), *p.communicate()) for p in procs]
        winners = [r for r in results if r[0] == 0]
        losers = [r for r in results if r[0] != 0]
        assert len(winners) == 1, results
        winner = "bruno" if winners[0][1].endswith("by bruno\n") else "clara"
        assert winners[0][1] == f"claimed handoff for session r by {winner}\n"
        assert losers[0][0] == 1
        assert losers[0][2] == f"kb handoff claim: handoff already claimed by {winner}\n"
        loaded = sessions.load(str(root), "r")
        assert loaded is not None and loaded.claimed_by == winner


@pytest.mark.skipif(sys.platform == "win32", reason="fork start method")
def test_many_claimers_released_at_once_exactly_one_wins(tmp_path: Path) -> None:
    """Eight processes held at a barrier and released together, ten times over: the lock,
    not the process start-up jitter, is what keeps the winner unique."""
    ctx = multiprocessing.get_context("fork")
    for trial in range(10):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        record = ho.Record(session="race", agent="ada", task="t", updated_at="2026-01-01")
        assert sessions.change(str(root), "race", _saving(record))
        barrier = ctx.Barrier(8)
        queue = ctx.Queue()
        workers = [
            ctx.Process(target=_race, args=(str(root), f"agent{i}", barrier, queue))
            for i in range(8)
        ]
        for w in workers:
            w.start()
        outcomes = [queue.get(timeout=60) for _ in workers]
        for w in workers:
            w.join(timeout=60)
        winners = [agent for agent, won in outcomes if won]
        assert len(winners) == 1, outcomes
        final = sessions.load(str(root), "race")
        assert final is not None and final.claimed_by == winners[0]
