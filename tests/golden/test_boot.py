"""`kb boot` on the example fleet, end to end through the real process: the briefing for a
hit, a guess, a refusal, an empty prompt, a repeated message, a compound question, machine
envelopes, the librarian, a handoff, and the classifier (answering, abstaining, inventing a
name, hanging). Regenerate the golden files with KB_UPDATE_GOLDEN=1 and review the diff."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import RunKb, check_golden

MODELS = Path(__file__).resolve().parent.parent / "models"

AGENTS_MD = """\
# Ada

**Search for:** `ada`, `infrastructure`,
  `on-call`, `pager`

You are Ada, the infrastructure engineer of this household fleet. You keep services alive
and you say when a question is not yours.

```yaml
pager: ada
escalate: owner
```
"""

ADA_BLOCKS = """\
# Ada's constitution, most stable first.
[identity]
AGENTS.md
agent.txt
[user]
../person/core.md   # the owner, shared by the whole fleet
[map]
MAP.md
notes/not-written-yet.md
[session] on-demand
inbox/2026-11-20-session.md
"""

BRUNO_BLOCKS = """\
[identity]
agent.txt
[map]
MAP.md
"""

HIT = "how often should I run a backup restore test"
COMPOUND = f"{HIT} and how long can leftovers stay outside the fridge"


@pytest.fixture
def fleet(example_fleet: Path, kb: RunKb) -> Path:
    ada = example_fleet / "fleet" / "ada"
    (ada / "AGENTS.md").write_text(AGENTS_MD, encoding="utf-8")
    (ada / "blocks.txt").write_text(ADA_BLOCKS, encoding="utf-8")
    (example_fleet / "fleet" / "bruno" / "blocks.txt").write_text(BRUNO_BLOCKS, encoding="utf-8")
    assert kb(["index"], cwd=example_fleet).code == 0
    return example_fleet


def with_classifier(fleet: Path, script: str) -> None:
    (fleet / "models").mkdir(exist_ok=True)
    shutil.copy(MODELS / script, fleet / "models" / script)
    with (fleet / "fleet.txt").open("a", encoding="utf-8") as fh:
        fh.write(f"classifier = models/{script}\n")


def payload(prompt: str, session: str | None = None, cwd: Path | None = None) -> str:
    body: dict[str, object] = {"hook_event_name": "UserPromptSubmit", "prompt": prompt}
    if session is not None:
        body["session_id"] = session
    if cwd is not None:
        body["cwd"] = str(cwd)
    return json.dumps(body)


def boot(
    kb: RunKb,
    fleet: Path,
    stdin: str,
    *args: str,
    env: dict[str, str] | None = None,
) -> str:
    out = kb(["boot", *args], cwd=fleet, stdin=stdin, env=env)
    assert out.code == 0
    assert out.stderr == ""
    return out.stdout


def sessions(fleet: Path) -> Path:
    return fleet / ".kb" / "sessions"


# -- without a classifier -------------------------------------------------------------------


def test_hit_switches_to_the_owner_with_its_constitution_and_the_passages(
    fleet: Path, kb: RunKb
) -> None:
    text = boot(kb, fleet, payload(HIT, session="s-hit", cwd=fleet), "--all")
    assert text.startswith("VESTA: this message routes to ada. ")
    assert "<!-- block: identity (`Search for:` lines removed: the router matches those" in text
    assert "<!-- block: user (`Search for:` lines removed" in text
    assert "`on-call`" not in text and "**Search for:**" not in text
    assert "Birthday in March." in text  # the person's core.md, read with --all
    assert "<!-- block: session" not in text  # on-demand blocks are not resident
    assert "--- ada/knowledge/backups.md (Backups that actually restore > Restore drills)" in text
    assert sessions(fleet).joinpath("s-hit").read_text() == "ada"
    assert sessions(fleet).joinpath("s-hit.events").read_text() == "routed\tada\n"
    check_golden("boot/hit.txt", text)


def test_the_public_scope_withholds_private_and_outside_files_from_the_constitution(
    fleet: Path, kb: RunKb
) -> None:
    text = boot(kb, fleet, HIT, str(fleet))
    assert "<!-- block: user -->" in text  # the block stays; the person's file does not
    assert "Birthday in March." not in text
    assert "<!-- block: identity (`Search for:`" in text


def test_a_repeated_message_stays_without_a_second_constitution(fleet: Path, kb: RunKb) -> None:
    first = boot(kb, fleet, payload(HIT, session="s-rep"), str(fleet), "--all")
    second = boot(kb, fleet, payload(HIT, session="s-rep"), str(fleet), "--all")
    assert first.startswith("VESTA: this message routes to ada.")
    assert second.startswith("VESTA: still ada.\n\n")
    assert "<!-- block:" not in second
    assert sessions(fleet).joinpath("s-rep.events").read_text() == "routed\tada\nrouted\tada\n"
    check_golden("boot/still.txt", second)


def test_a_switch_names_the_previous_agent(fleet: Path, kb: RunKb) -> None:
    boot(kb, fleet, payload(HIT, session="s-sw"), str(fleet), "--all")
    text = boot(
        kb,
        fleet,
        payload("how long can leftovers stay outside the fridge", session="s-sw"),
        str(fleet),
        "--all",
    )
    assert text.startswith("VESTA: this message routes to bruno. ")
    assert "(the conversation was with ada until this message)\n\n" in text
    assert sessions(fleet).joinpath("s-sw").read_text() == "bruno"
    assert sessions(fleet).joinpath("s-sw.events").read_text() == "routed\tada\nrouted\tbruno\n"


def test_a_guess_names_nobody_and_says_why(fleet: Path, kb: RunKb) -> None:
    # Two topics, one word each: neither note covers enough of the question to be a hit.
    text = boot(kb, fleet, payload("backup for the galaxy", session="s-guess"), str(fleet), "--all")
    assert text.startswith("VESTA: routed this message and found no owner.\n\n")
    assert "The best file covers 37% of the question" in text
    assert "\n\nThe fleet:\n  ada: " in text
    assert not sessions(fleet).joinpath("s-guess").exists()
    check_golden("boot/guess.txt", text)


def test_a_refusal_prints_the_roster_and_records_the_loss(fleet: Path, kb: RunKb) -> None:
    text = boot(kb, fleet, payload("quantas luas tem jupiter", session="s-no"), str(fleet))
    assert text.startswith("VESTA: routed this message and found no owner.")
    assert "  ada: Infrastructure engineer" in text
    events = sessions(fleet).joinpath("s-no.events").read_text()
    assert events.startswith("refused\tquantas luas tem jupiter\t")
    assert "quantas luas tem jupiter" in (fleet / "kb-misses.txt").read_text()
    check_golden("boot/refusal.txt", text)


def test_an_empty_prompt_is_answered_with_the_roster(fleet: Path, kb: RunKb) -> None:
    text = boot(kb, fleet, payload("   ", session="s-empty", cwd=fleet))
    assert text.startswith("The fleet:\n  ada: ")
    assert not sessions(fleet).exists()
    check_golden("boot/roster.txt", text)


def test_machine_envelopes_alone_print_nothing_and_leave_the_session_alone(
    fleet: Path, kb: RunKb
) -> None:
    boot(kb, fleet, payload(HIT, session="s-env"), str(fleet))
    only_envelopes = (
        "<system-reminder>backup restore test</system-reminder>\n"
        "<task-notification>job 7 finished</task-notification>\n"
        "<system-reminder>never closed, backup restore"
    )
    assert boot(kb, fleet, payload(only_envelopes, session="s-env"), str(fleet)) == ""
    assert sessions(fleet).joinpath("s-env.events").read_text() == "routed\tada\n"


def test_envelopes_are_stripped_before_scoring(fleet: Path, kb: RunKb) -> None:
    wrapped = f"<system-reminder>leftovers fridge</system-reminder>{HIT}"
    text = boot(kb, fleet, wrapped, str(fleet))
    assert text.startswith("VESTA: this message routes to ada.")
    assert "VESTA: decomposed" not in text


def test_a_compound_question_convenes_a_panel(fleet: Path, kb: RunKb) -> None:
    text = boot(kb, fleet, payload(COMPOUND, session="s-panel"), str(fleet), "--all")
    assert text.startswith("VESTA: this message routes to ada. ")
    assert "VESTA: decomposed compound inquiry across 2 domains:\n" in text
    assert f'  - [ada]: "{HIT}"\n' in text
    assert '  - [bruno]: "how long can leftovers stay outside the fridge"\n' in text
    assert "VESTA: this one is not yours alone." in text
    assert (
        "  bruno: cross-domain sub-question: how long can leftovers stay outside the fridge\n"
        in (text)
    )
    assert "  kb panel <the file you wrote> --owner ada --reviewer bruno\n" in text
    check_golden("boot/panel.txt", text)


def test_the_librarian_answers_from_a_base_no_agent_owns(fleet: Path, kb: RunKb) -> None:
    text = boot(kb, fleet, "peanut allergy", str(fleet), "--all")
    assert text.startswith("VESTA: no agent owns this, and none is needed")
    assert text.endswith("  person/core.md\n")


def test_a_handoff_record_is_carried_into_the_session(fleet: Path, kb: RunKb) -> None:
    folder = sessions(fleet)
    folder.mkdir(parents=True)
    (folder / "s-ho.handoff.md").write_text(
        "---\nsession: s-ho\nagent: ada\nstatus: claimed\nclaimed_by: bruno\n"
        "updated_at: 2026-11-28\n---\n\n# Task\nMove the backups offsite\n\n"
        "## Decisions\n- keep pg_dump\n\n## Next Steps\n- test a restore\n\n",
        encoding="utf-8",
    )
    text = boot(kb, fleet, payload(HIT, session="s-ho"), str(fleet))
    assert (
        "VESTA: CONTINUITY (session s-ho, status: claimed):\n  Agent: ada\n  Claimed by: bruno\n"
        "  Active task: Move the backups offsite\n  Decisions:\n    - keep pg_dump\n"
        "  Next steps:\n    - test a restore\n\n"
    ) in text


# -- with a classifier ----------------------------------------------------------------------


def test_the_classifier_reads_a_dossier_and_its_reviewers_are_seated(
    fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    with_classifier(fleet, "classifier.py")
    log = tmp_path / "dossier.txt"
    message = "how often should I run a backup restore test, and is feijao ok"
    text = boot(kb, fleet, message, str(fleet), env={"KB_FAKE_LOG": str(log)})
    assert text.startswith("VESTA: this message routes to ada. ")
    assert "VESTA: the configured classifier did not answer" not in text
    # reviewers: roster names only, never the owner, at most three
    assert "  bruno: the claim about beans\n  clara: the trip\n" in text
    assert "--owner ada --reviewer bruno --reviewer clara\n" in text
    dossier = log.read_text(encoding="utf-8")
    assert "THE FLEET, and these names are the only ones you may choose:\n  ada\n" in dossier
    assert f"THE MESSAGE:\n  {message}\n" in dossier
    assert "CWD: " in dossier and str(fleet) not in dossier.split("CWD: ")[1]


def test_adjacent_abstains_names_the_nearest_and_logs_the_gap(fleet: Path, kb: RunKb) -> None:
    with_classifier(fleet, "classifier.py")
    text = boot(
        kb, fleet, payload("how much tax on a flight to Japan", session="s-adj"), str(fleet)
    )
    assert text.startswith("VESTA: no agent owns travel taxes. clara is the nearest, because ")
    assert "If you answer anyway, answer as clara and say plainly" in text
    assert not sessions(fleet).joinpath("s-adj").exists()
    log = (fleet / "kb-abstentions.txt").read_text(encoding="utf-8")
    rows = [r for r in log.splitlines() if r and not r.startswith("#")]
    assert len(rows) == 1
    fields = rows[0].split("\t")
    assert fields[0] == "1" and fields[3:6] == ["adjacent", "clara", "travel taxes"]
    assert fields[6] == "how much tax on a flight to Japan"
    check_golden("boot/adjacent.txt", text)


def test_uncovered_names_nobody_and_folds_repeats_by_subject(fleet: Path, kb: RunKb) -> None:
    with_classifier(fleet, "classifier.py")
    text = boot(kb, fleet, "quantas luas tem jupiter", str(fleet))
    assert text.startswith("VESTA: nothing in this fleet covers astronomy, and no agent is near")
    assert "If you answer anyway" not in text
    boot(kb, fleet, "how many moons does jupiter have", str(fleet))
    rows = [
        r
        for r in (fleet / "kb-abstentions.txt").read_text().splitlines()
        if r and not r.startswith("#")
    ]
    assert len(rows) == 1 and rows[0].startswith("2\t")
    check_golden("boot/uncovered.txt", text)


def test_an_invented_owner_is_never_an_owner(fleet: Path, kb: RunKb) -> None:
    with_classifier(fleet, "classifier.py")
    text = boot(kb, fleet, "zeus and the grafana dashboard", str(fleet))
    assert "zeus" not in text.split("\n", 1)[0]
    assert text.startswith("VESTA: routed this message and found no owner.")


@pytest.mark.parametrize("script", ["crash.py", "silent.py"])
def test_a_classifier_that_does_not_answer_degrades_to_the_keyword_choice(
    fleet: Path, kb: RunKb, script: str
) -> None:
    with_classifier(fleet, script)
    text = boot(kb, fleet, HIT, str(fleet))
    assert text.startswith("VESTA: this message routes to ada.")
    assert "VESTA: the configured classifier did not answer, so this was routed by keyword" in (
        text
    )


def test_a_hanging_classifier_is_killed_at_its_timeout_and_boot_still_answers(
    fleet: Path, kb: RunKb
) -> None:
    with_classifier(fleet, "hang.py")
    start = time.monotonic()
    text = boot(kb, fleet, HIT, str(fleet), env={"KB_MODEL_TIMEOUT": "2"})
    took = time.monotonic() - start
    assert 2 <= took < 20, took
    assert text.startswith("VESTA: this message routes to ada.")
    assert "VESTA: the configured classifier did not answer" in text
    check_golden("boot/degraded.txt", text)
