"""`kb panel` on a copy of the example fleet (workflow-verbs.md §16): a round opened with its
price, objections recorded (a blocking one with a mechanism, a blocking one without, which is
demoted to advisory), each accounted for, the ledger read back open and closed, as text and
JSON; and every refusal as one line, exit 2, and a ledger left byte for byte as it was.

The example agents ship without blocks.txt, so the copy gets one per agent, and two more
agents (dora, eli) so that a round can be filled past its cap of three reviewers.

Regenerate only on purpose: KB_UPDATE_GOLDEN=1 python -m pytest tests/golden/test_panel.py,
then review the diff.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kb.shell.cli.table import usage_of
from tests.conftest import EXAMPLE_FLEET, RunKb, check_golden
from tests.golden.test_boot import ADA_BLOCKS, AGENTS_MD, BRUNO_BLOCKS

DRAFT = """\
# Leftovers and backups

Cooked rice keeps two hours on the counter before it goes in the fridge, and the nightly
backup restore test runs once a month.

```sh
restic restore latest --target /tmp/restore-test
```
"""

CLARA_BLOCKS = """\
[identity]
agent.txt
[map]
MAP.md
"""

AGENT_TXT = """\
name = {name}
role = {role}
ends = {name} stops where its own subject stops.
"""


def _agent(fleet: Path, name: str, role: str) -> None:
    base = fleet / "fleet" / name
    base.mkdir()
    (base / "agent.txt").write_text(AGENT_TXT.format(name=name.title(), role=role))
    (base / "MAP.md").write_text(f"# {name.title()}\n\nNothing filed yet.\n")
    (base / "blocks.txt").write_text("[identity]\nagent.txt\n")


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    return subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example fleet with a blocks.txt per agent, two more agents and a draft, indexed
    once for the module; each test gets its own copy."""
    fleet = tmp_path_factory.mktemp("panel") / "fleet"
    shutil.copytree(EXAMPLE_FLEET, fleet, ignore=shutil.ignore_patterns(".kb", "kb-*.txt*"))
    for p in fleet.rglob("*"):  # a read-only checkout stays writable in the copy
        p.chmod(0o755 if p.is_dir() else 0o644)
    ada = fleet / "fleet" / "ada"
    (ada / "AGENTS.md").write_text(AGENTS_MD, encoding="utf-8")
    (ada / "blocks.txt").write_text(ADA_BLOCKS, encoding="utf-8")
    (fleet / "fleet" / "bruno" / "blocks.txt").write_text(BRUNO_BLOCKS)
    (fleet / "fleet" / "clara" / "blocks.txt").write_text(CLARA_BLOCKS)
    _agent(fleet, "dora", "Gardener: the vegetable patch and the compost")
    _agent(fleet, "eli", "Bookkeeper: bills, receipts and the household budget")
    (fleet / "draft.md").write_text(DRAFT, encoding="utf-8")
    assert _run(["index"], fleet).returncode == 0
    return fleet


@pytest.fixture(scope="module")
def prepared_round(prepared: Path) -> Path:
    """`prepared` with a round on draft.md: three reviewers, a blocking objection (1) and an
    advisory one (2) already taken."""
    fleet = prepared.parent / "opened"
    shutil.copytree(prepared, fleet)
    for args in (
        [
            "draft.md",
            "--owner",
            "ada",
            "--reviewer",
            "bruno",
            "--reviewer",
            "clara",
            "--reviewer",
            "dora",
        ],
        ["draft.md", "--from", "bruno", "--objection", MECHANISM, "--blocking"],
        ["draft.md", "--from", "clara", "--objection", NO_MECHANISM],
        ["draft.md", "--resolve", "2", "--taken"],
    ):
        done = _run(["panel", *args], fleet)
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return fleet


@pytest.fixture
def fleet(prepared: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(prepared, tmp_path / "fleet"))


@pytest.fixture
def opened(prepared_round: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(prepared_round, tmp_path / "fleet"))


def ledger(fleet: Path) -> str:
    return (fleet / "kb-rounds.txt").read_text(encoding="utf-8")


def ok(kb: RunKb, fleet: Path, *args: str) -> str:
    out = kb(["panel", *args], cwd=fleet)
    assert (out.code, out.stderr) == (0, ""), out.stderr
    return out.stdout


# -- proposing and opening ---------------------------------------------------------------------


def test_without_reviewers_it_proposes_and_opens_nothing(fleet: Path, kb: RunKb) -> None:
    text = ok(kb, fleet, "draft.md", "--owner", "ada")
    assert text.startswith("nothing was opened. This proposes a panel; --reviewer seats one.\n")
    assert "  Ranked by what this artifact's own words reach:" in text
    assert "    bruno " in text and "    ada " not in text  # the owner is never proposed
    assert not (fleet / "kb-rounds.txt").exists()
    check_golden("panel/propose.txt", text)


def test_opening_a_round_prices_it_before_it_is_spent(fleet: Path, kb: RunKb) -> None:
    text = ok(kb, fleet, "draft.md", "--owner", "ada", "--reviewer", "bruno", "--reviewer", "Clara")
    check_golden("panel/open.txt", text)
    check_golden("panel/open-ledger.txt", ledger(fleet))
    assert "  reviewer       ~boot   constitution\n" in text
    # The price is the figure `kb blocks` prints for each reviewer, plus the draft per reader.
    bruno = kb(["blocks", "fleet/bruno"], cwd=fleet).stdout
    clara = kb(["blocks", "fleet/clara"], cwd=fleet).stdout
    tokens = [_resident(bruno), _resident(clara)]
    assert f"  {'bruno':<12} {tokens[0]:>7}   ./.kb/panel/bruno-constitution.txt" in text
    assert f"  boot            {sum(tokens):>7}" in text
    # Each reviewer is handed exactly what `kb blocks --emit` assembles for it.
    emitted = kb(["blocks", "fleet/bruno", "--emit"], cwd=fleet).stdout
    constitution = fleet / ".kb" / "panel" / "bruno-constitution.txt"
    assert constitution.read_text(encoding="utf-8") == emitted
    assert (fleet / ".kb" / "panel" / "clara-constitution.txt").is_file()


def _resident(report: str) -> int:
    line = next(x for x in report.splitlines() if x.startswith("  resident total: about "))
    return int(line.split()[3])


def test_reopening_seats_only_the_newcomers(fleet: Path, kb: RunKb) -> None:
    ok(kb, fleet, "draft.md", "--owner", "ada", "--reviewer", "bruno")
    again = json.loads(
        ok(
            kb,
            fleet,
            "./draft.md",
            "--owner",
            "Ada",
            "--reviewer",
            "bruno",
            "--reviewer",
            "clara",
            "--json",
        )
    )
    assert list(again) == ["artifact", "owner", "seated", "panel", "cost", "ask", "log"]
    assert again["artifact"] == "draft.md" and again["owner"] == "ada"
    assert again["seated"] == ["clara"]
    assert [p["agent"] for p in again["panel"]] == ["bruno", "clara"]
    assert list(again["cost"]) == ["boot", "reading", "total", "reviewers", "artifact_tokens"]
    assert again["cost"]["total"] == again["cost"]["boot"] + again["cost"]["reading"]
    assert again["cost"]["reading"] == 2 * again["cost"]["artifact_tokens"]
    assert again["log"] == "./kb-rounds.txt"
    assert ledger(fleet).count("\tasked\t") == 2


def test_the_command_boot_prints_opens_a_round(fleet: Path, kb: RunKb) -> None:
    # kb boot's panel instruction spells agents as the roster does; kb panel takes it as is.
    out = kb(["panel", "draft.md", "--owner", "ada", "--reviewer", "bruno"], cwd=fleet)
    assert out.code == 0 and out.stdout.startswith("round open on draft.md, owned by ada\n")


def test_an_artifact_that_is_not_a_file_is_priced_at_nothing(fleet: Path, kb: RunKb) -> None:
    text = ok(kb, fleet, "the-spring-menu", "--owner", "bruno", "--reviewer", "clara")
    assert (
        "  reading               0   the-spring-menu is not a readable file, so nothing was "
        "priced for it\n"
    ) in text


# -- the round through its whole life ---------------------------------------------------------

MECHANISM = "two hours on the counter violates the food-safety rule for cooked rice"
NO_MECHANISM = "the second paragraph could be friendlier"


def test_a_round_from_open_to_closed(fleet: Path, kb: RunKb) -> None:
    ok(
        kb,
        fleet,
        "draft.md",
        "--owner",
        "ada",
        "--reviewer",
        "bruno",
        "--reviewer",
        "clara",
        "--reviewer",
        "dora",
    )
    first = ok(kb, fleet, "draft.md", "--from", "bruno", "--objection", MECHANISM, "--blocking")
    assert first == (
        "objection 1 from bruno on draft.md\n"
        "  blocking: the owner may take it or escalate it, never refuse it.\n"
        "  account for it with --resolve 1. The round does not close until you do.\n"
    )
    demoted = ok(
        kb, fleet, "draft.md", "--from", "clara", "--objection", NO_MECHANISM, "--blocking"
    )
    assert demoted.splitlines()[1].startswith(
        "  recorded as advisory, not blocking: a blocking objection must be constitutionally "
        "grounded in a mechanism, invariant, or failure mode. objection 'the second paragraph "
        "could be friendlier' is advisory"
    )
    check_golden("panel/record-demoted.txt", demoted)
    third = ok(kb, fleet, "draft.md", "--from", "bruno", "--objection", "say which fridge shelf")
    assert third.startswith("objection 3 from bruno on draft.md\n")

    still_open = kb(["panel", "draft.md", "--ledger"], cwd=fleet)
    assert still_open.code == 1 and still_open.stderr == ""
    check_golden("panel/ledger-open.txt", still_open.stdout)
    as_json = kb(["panel", "draft.md", "--ledger", "--json"], cwd=fleet)
    assert as_json.code == 1
    value = json.loads(as_json.stdout)
    assert list(value) == ["artifact", "owner", "closed", "objections", "still_out", "markdown"]
    assert value["closed"] is False and value["still_out"] == ["dora"]
    assert [o["blocking"] for o in value["objections"]] == [True, False, False]

    assert ok(
        kb,
        fleet,
        "draft.md",
        "--from",
        "dora",
        "--not-returned",
        "--why",
        "went ahead after two days",
    ) == ("dora did not return on draft.md. Recorded as `not returned`, never as `no objection`.\n")
    assert (
        ok(
            kb,
            fleet,
            "draft.md",
            "--resolve",
            "1",
            "--escalated",
            "--why",
            "the person decides food safety",
        )
        == "objection 1 from bruno: escalated\n"
    )
    assert (
        ok(
            kb,
            fleet,
            "draft.md",
            "--resolve",
            "2",
            "--refused",
            "--why",
            "tone is the owner's call",
        )
        == "objection 2 from clara: refused\n"
    )
    assert ok(kb, fleet, "draft.md", "--resolve", "3", "--taken", "--from", "bruno") == (
        "objection 3 from bruno: taken\n"
    )

    closed = kb(["panel", "draft.md", "--ledger"], cwd=fleet)
    assert closed.code == 0 and closed.stderr == ""
    check_golden("panel/ledger-closed.txt", closed.stdout)
    closed_json = kb(["panel", "draft.md", "--ledger", "--json"], cwd=fleet)
    assert closed_json.code == 0
    check_golden("panel/ledger-closed.json", closed_json.stdout)
    check_golden("panel/closed-ledger-file.txt", ledger(fleet))

    summary = kb(["panel", "--ledger"], cwd=fleet)
    assert summary.code == 0
    assert summary.stdout == (
        f"log: ./kb-rounds.txt\n\n  {'draft.md':<40} closed  (3 objections, 0 still out)\n"
    )


def test_nothing_is_on_the_record_and_closes_a_seat(fleet: Path, kb: RunKb) -> None:
    ok(kb, fleet, "draft.md", "--owner", "ada", "--reviewer", "clara")
    said = ok(kb, fleet, "draft.md", "--from", "Clara", "--nothing")
    assert said.startswith("clara found nothing on draft.md, and that is on the record too")
    closed = kb(["panel", "draft.md", "--ledger"], cwd=fleet)
    assert closed.code == 0
    assert "| - | clara | found nothing from inside its own domain | - | - |\n" in closed.stdout


def test_the_ledger_with_no_rounds(fleet: Path, kb: RunKb) -> None:
    out = kb(["panel", "--ledger"], cwd=fleet)
    assert (out.code, out.stdout) == (
        0,
        "log: ./kb-rounds.txt\n\n  no round has been opened here.\n",
    )
    missing = kb(["panel", "draft.md", "--ledger"], cwd=fleet)
    assert missing.code == 2 and missing.stdout == ""
    assert missing.stderr.startswith("kb: no round is open on 'draft.md'.")


# -- refusals: one line, exit 2, the ledger untouched -----------------------------------------


REFUSALS = [
    pytest.param(
        ["draft.md", "--resolve", "1", "--refused", "--why", "I disagree"],
        "kb: objection 1 was marked blocking, and a blocking objection cannot be refused",
        id="blocking-refused",
    ),
    pytest.param(
        [
            "draft.md",
            "--from",
            "bruno",
            "--objection",
            "the restore test has a race condition",
            "--blocking",
        ],
        "kb: bruno already marked objection 1 blocking, and blocking is bounded to one per "
        "reviewer",
        id="second-blocking",
    ),
    pytest.param(
        ["draft.md", "--resolve", "7", "--taken"],
        "kb: 'draft.md' has no objection 7. `kb panel draft.md --ledger` numbers them.",
        id="unknown-objection",
    ),
    pytest.param(
        ["draft.md", "--resolve", "1", "--taken", "--from", "clara"],
        "kb: 'draft.md' has no objection 1 from clara.",
        id="objection-of-another-reviewer",
    ),
    pytest.param(
        [
            "draft.md",
            "--owner",
            "ada",
            "--reviewer",
            "bruno",
            "--reviewer",
            "clara",
            "--reviewer",
            "dora",
            "--reviewer",
            "eli",
        ],
        "kb panel: --reviewer names at most 3 agents, not 4 (bruno, clara, dora, eli)",
        id="fourth-reviewer-named",
    ),
    pytest.param(
        ["draft.md", "--owner", "ada", "--reviewer", "eli"],
        "kb: 'draft.md' already seats bruno, clara, dora, and a panel seats at most 3 "
        "reviewers, so eli cannot join it.",
        id="fourth-reviewer-seated",
    ),
    pytest.param(
        ["draft.md", "--resolve", "2", "--refused", "--why", "changed my mind"],
        "kb: objection 2 is already taken. The ledger is append-once per objection",
        id="already-accounted",
    ),
    pytest.param(
        ["draft.md", "--resolve", "2", "--escalated"],
        "kb: objection 2 is already taken.",
        id="already-accounted-escalated",
    ),
    pytest.param(
        ["draft.md", "--from", "eli", "--nothing"],
        "kb: eli is not on the panel for 'draft.md'.",
        id="not-on-panel",
    ),
    pytest.param(
        ["draft.md", "--from", "bruno", "--nothing"],
        "kb: bruno has raised objections on 'draft.md', so it cannot also record that it "
        "found nothing.",
        id="nothing-after-objection",
    ),
    pytest.param(
        ["draft.md", "--owner", "bruno", "--reviewer", "clara"],
        "kb: 'draft.md' is already owned by ada, so bruno cannot open a round on it.",
        id="second-owner",
    ),
    pytest.param(
        ["draft.md", "--owner", "ada", "--reviewer", "ada"],
        "kb: ada owns this piece and cannot review it.",
        id="owner-reviews",
    ),
    pytest.param(
        ["draft.md", "--owner", "ada", "--reviewer", "zeno"],
        "kb: no agent named 'zeno' in this fleet.",
        id="unknown-reviewer",
    ),
    pytest.param(
        ["draft.md", "--owner", "zeno", "--reviewer", "bruno"],
        "kb: no routable agent named `zeno`. The fleet: ada, bruno, clara, dora, eli",
        id="unknown-owner",
    ),
    pytest.param(
        ["draft.md", "--resolve", "one", "--taken"],
        "kb: --resolve takes an objection number. `kb panel draft.md --ledger` numbers them.",
        id="resolve-not-a-number",
    ),
    pytest.param(
        ["draft.md", "--resolve", "1", "--taken", "--escalated"],
        "kb: --resolve needs exactly one of --taken, --refused or --escalated.",
        id="two-outcomes",
    ),
    pytest.param(
        ["draft.md", "--resolve", "1", "--taken", "--blocking"],
        "kb: --blocking goes with --from, not with --resolve",
        id="stray-flag",
    ),
    pytest.param(
        ["other.md", "--from", "bruno", "--nothing"],
        "kb: no round is open on 'other.md'.",
        id="no-round",
    ),
    pytest.param(
        ["draft.md", "--from", "clara", "--objection", "  "],
        "kb: an objection needs its text",
        id="empty-objection",
    ),
]


@pytest.mark.parametrize(("args", "line"), REFUSALS)
def test_every_refusal_is_one_line_and_changes_nothing(
    opened: Path, kb: RunKb, args: list[str], line: str
) -> None:
    fleet = opened
    before = ledger(fleet)
    constitutions = sorted(p.name for p in (fleet / ".kb" / "panel").iterdir())
    out = kb(["panel", *args], cwd=fleet)
    assert out.code == 2
    # a value the parser refuses is a usage error: the verb's own usage on stdout (issue 26)
    assert out.stdout == (usage_of("panel") if out.stderr.startswith("kb panel: ") else "")
    assert out.stderr.startswith(line), out.stderr
    assert out.stderr.count("\n") == 1, out.stderr
    assert ledger(fleet) == before
    assert sorted(p.name for p in (fleet / ".kb" / "panel").iterdir()) == constitutions
    assert not (fleet / "kb-rounds.txt.lock").exists()


def test_multi_line_refusals(fleet: Path, kb: RunKb) -> None:
    no_artifact = kb(["panel"], cwd=fleet)
    assert no_artifact.code == 2 and no_artifact.stderr == (
        "kb: panel needs the artifact under review, as a path or a name.\n"
        "    `kb panel --ledger` lists the rounds that are already open.\n"
    )
    no_owner = kb(["panel", "draft.md"], cwd=fleet)
    assert no_owner.code == 2 and no_owner.stderr.startswith(
        "kb: panel needs --owner <agent>: the one agent accountable for this piece.\n"
    )


def test_multi_line_refusals_after_opening(opened: Path, kb: RunKb) -> None:
    fleet = opened
    before = ledger(fleet)
    why = kb(["panel", "draft.md", "--resolve", "1", "--refused"], cwd=fleet)
    assert why.code == 2 and why.stderr.startswith("kb: a refusal needs --why.\n")
    answer = kb(["panel", "draft.md", "--from", "dora"], cwd=fleet)
    assert answer.code == 2 and answer.stderr.startswith(
        "kb: --from needs exactly one of --objection <text>, --nothing or --not-returned.\n"
    )
    assert ledger(fleet) == before


def test_a_reviewer_without_blocks_txt_cannot_sit(fleet: Path, kb: RunKb) -> None:
    (fleet / "fleet" / "dora" / "blocks.txt").unlink()
    out = kb(
        ["panel", "draft.md", "--owner", "ada", "--reviewer", "bruno", "--reviewer", "dora"],
        cwd=fleet,
    )
    assert out.code == 2
    assert out.stderr == (
        "kb: dora has no blocks.txt at fleet/dora, so it cannot be booted as itself. A subagent "
        "handed no constitution answers as the base model wearing a name, which is a reviewer "
        "in costume. Write blocks.txt for dora, or leave it off the panel.\n"
    )
    assert not (fleet / "kb-rounds.txt").exists()
    assert not (fleet / ".kb" / "panel").exists()


def test_a_fleet_that_cannot_be_read_exits_1(tmp_path: Path, kb: RunKb) -> None:
    out = kb(
        ["panel", "draft.md", str(tmp_path / "nowhere"), "--owner", "ada", "--reviewer", "bruno"]
    )
    assert out.code == 1
    assert out.stderr.startswith("kb: cannot read ")


def test_reviewers_recorded_at_once_lose_no_answer(opened: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kb.shell.cli.main",
                "panel",
                "draft.md",
                "--from",
                who,
                "--objection",
                f"point {i} from {who}",
            ],
            cwd=opened,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(3)
        for who in ("bruno", "clara")
    ]
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    text = ledger(opened)
    assert all(f"point {i} from {who}" in text for i in range(3) for who in ("bruno", "clara"))
    numbers = kb_numbers(opened)
    assert numbers == list(range(1, 9))  # two from the fixture, six new, none lost or doubled


def kb_numbers(fleet: Path) -> list[int]:
    out = _run(["panel", "draft.md", "--ledger", "--json"], fleet)
    return [o["n"] for o in json.loads(out.stdout)["objections"]]
