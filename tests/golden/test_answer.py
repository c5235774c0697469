"""`kb answer` end to end through the real process, with small deterministic model scripts
(tests/models/) run through the real model-command path: answering, malformed, silent,
crashing, hanging past the timeout, printing bytes that are not UTF-8; the refusal that
never reaches a model; the reading list; `--complete` map/reduce, its failures, its
progress on a terminal, and its privacy (no private file in any prompt without --all).
Outputs and prompts are golden files; regenerate with KB_UPDATE_GOLDEN=1 and review."""

from __future__ import annotations

import os
import pty
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, RunKb, check_golden

MODELS = Path(__file__).resolve().parent.parent / "models"
END = "=== END PROMPT ==="

HIT = "how often should I run a backup restore test"
SHORT = "o certificado tls do staging expirou de novo"
REFUSED = "quantas luas tem jupiter"
LUGGAGE = "what is the liquids limit in hand luggage"

PRIVATE_MARKERS = ("quillfeather", "Okafor", "Fubá", "records/", "person/")

CAPTURED = """\
---
provenance: agent
stage: captured
captured_from: ada/inbox/2026-11-20-session.md
---
# Certificate renewal on staging

**Search for:** `cert-manager token`, `dns challenge`, `renovacao de certificado`

**Exists to:** Say why staging's certificate stopped renewing and how it was fixed

cert-manager's DNS challenge used a token that had been rotated, so renewals failed
silently until the certificate expired. Updating the secret and forcing a renewal fixed it.
"""


@pytest.fixture
def fleet(example_fleet: Path, kb: RunKb) -> Path:
    assert kb(["index"], cwd=example_fleet).code == 0
    return example_fleet


def manifest(fleet: Path, answerer: str | None) -> None:
    lines = ["name = Harbor", "role = A toy household fleet"]
    if answerer is not None:
        lines.append(f"answerer = {answerer}")
    (fleet / "fleet.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def script(name: str, *args: str) -> str:
    return " ".join(shlex.quote(a) for a in (str(MODELS / name), *args))


def prompts(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [p.lstrip("\n") for p in log.read_text(encoding="utf-8").split(END + "\n") if p]


def masked(text: str) -> str:
    return re.sub(r"\| \d+\.\ds total", "| <S>s total", text)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie still answers signal 0; /proc says it is gone
        return " Z " not in Path(f"/proc/{pid}/stat").read_text().split(")", 1)[1][:4]
    except OSError:
        return False


# -- arguments ------------------------------------------------------------------------------


def test_no_question_is_a_usage_error(fleet: Path, kb: RunKb) -> None:
    for args in (["answer"], ["answer", "   "], ["answer", "--expanded"]):
        r = kb(args, cwd=fleet)
        assert r.code == 2, args
        assert r.stderr == "kb: answer needs a question\n\n"
        assert r.stdout.startswith("usage:\n")


def test_a_bad_timeout_is_a_usage_error(fleet: Path, kb: RunKb) -> None:
    for value in ("0", "-1", "abc"):
        r = kb(["answer", HIT, "--model-timeout", value], cwd=fleet)
        assert r.code == 2, value
        assert r.stderr.startswith("kb answer: ") and "--model-timeout" in r.stderr
        assert r.stderr.count("\n") == 1


def test_a_base_that_cannot_be_opened(tmp_path: Path, kb: RunKb) -> None:
    r = kb(["answer", HIT, str(tmp_path / "nowhere")], cwd=tmp_path)
    assert (r.code, r.stdout) == (1, "")
    assert r.stderr.startswith("kb: cannot read ") and r.stderr.endswith("no such directory\n")


def test_a_blank_answerer_line_is_no_answerer(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, "")
    assert kb(["answer", HIT], cwd=fleet).stdout.startswith("no `answerer = ...`")
    assert kb(["answer", HIT, "--complete"], cwd=fleet).code == 2


# -- the refusal and the reading list -------------------------------------------------------


def test_nothing_never_reaches_the_model_and_is_logged(
    fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log)))
    r = kb(["answer", REFUSED], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("answer/refused.txt", r.stdout)
    assert not log.exists(), "a nothing verdict reached the model"
    assert REFUSED in (fleet / "kb-misses.txt").read_text(encoding="utf-8")


def test_a_refusal_offers_the_vocabulary_it_knows(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, None)
    r = kb(["answer", "kubernets deploi"], cwd=fleet)
    assert r.code == 0
    check_golden("answer/refused-suggestions.txt", r.stdout)


def test_an_empty_base_says_so(tmp_path: Path, kb: RunKb) -> None:
    base = tmp_path / "empty"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = Empty\n", encoding="utf-8")
    r = kb(["answer", HIT, str(base)], cwd=tmp_path)
    assert r.code == 0
    check_golden("answer/empty-base.txt", r.stdout)


def test_without_an_answerer_the_reading_list(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, None)
    r = kb(["answer", HIT], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("answer/reading-list.txt", r.stdout)
    r = kb(["answer", SHORT, "--expanded"], cwd=fleet)
    assert r.code == 0
    check_golden("answer/reading-list-short.txt", r.stdout)


# -- fast and expanded ----------------------------------------------------------------------


def test_fast_answer_and_its_prompt(fleet: Path, kb: RunKb, tmp_path: Path) -> None:
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log)))
    r = kb(["answer", HIT], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("answer/fast.txt", r.stdout)
    sent = prompts(log)
    assert len(sent) == 1
    check_golden("answer/fast-prompt.txt", sent[0])


def test_expanded_reads_more_and_labels_short_memory(
    fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log)))
    r = kb(["answer", SHORT, "--expanded"], cwd=fleet)
    assert r.code == 0
    check_golden("answer/expanded.txt", r.stdout)
    (sent,) = prompts(log)
    check_golden("answer/expanded-prompt.txt", sent)
    headers = [line for line in sent.splitlines() if line.startswith("--- ada/inbox/")]
    assert headers and all(h.endswith("[SHORT MEMORY: recent, not distilled]") for h in headers), (
        headers
    )


def test_a_captured_note_names_its_source(fleet: Path, kb: RunKb, tmp_path: Path) -> None:
    note = fleet / "fleet" / "ada" / "knowledge" / "certificate-renewal.md"
    note.write_text(CAPTURED, encoding="utf-8")
    assert kb(["index"], cwd=fleet).code == 0
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log)))
    r = kb(["answer", "why did the cert-manager dns challenge fail"], cwd=fleet)
    assert r.code == 0, r.stderr
    (sent,) = prompts(log)
    check_golden("answer/captured-prompt.txt", sent)
    assert (
        "--- ada/knowledge/certificate-renewal.md (Certificate renewal on staging) "
        "[captured from ada/inbox/2026-11-20-session.md]"
    ) in sent


def test_a_private_file_is_not_served_without_all(fleet: Path, kb: RunKb, tmp_path: Path) -> None:
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log)))
    question = "quillfeather contract penalty clause"
    r = kb(["answer", question], cwd=fleet)
    assert r.code == 0
    # A public file may be served as a guess, and the prompt then repeats the question: the
    # asker's own words are not a leak, so they are taken out before looking for markers.
    sent = [p.replace(question, "") for p in prompts(log)]
    assert not any(m in p for p in sent for m in PRIVATE_MARKERS)
    r = kb(["answer", question, "--all"], cwd=fleet)
    assert r.code == 0
    assert "ada/records/quillfeather-contract.md" in prompts(log)[-1]


def test_a_malformed_answer_is_printed_and_an_invented_citation_flagged(
    fleet: Path, kb: RunKb
) -> None:
    manifest(fleet, script("malformed.py"))
    r = kb(["answer", HIT], cwd=fleet)
    assert r.code == 0
    check_golden("answer/malformed.txt", r.stdout + "--- stderr\n" + r.stderr)


def test_bytes_that_are_not_utf8_are_replaced(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, script("garbage.py"))
    r = kb(["answer", HIT], cwd=fleet)
    assert r.code == 0
    assert r.stdout.startswith("\ufffd\ufffd\ufffd(SUBJECT: backups \ufffdt\ufffd\n")
    assert "\nsources served: ada/knowledge/backups.md" in r.stdout


@pytest.mark.parametrize(
    ("model", "name"),
    [("silent.py", "silent"), ("crash.py", "crash")],
)
def test_an_answerer_that_does_not_answer_gives_the_reading_list(
    fleet: Path, kb: RunKb, model: str, name: str
) -> None:
    manifest(fleet, script(model))
    r = kb(["answer", HIT], cwd=fleet)
    assert (r.code, r.stdout) == (1, "")
    check_golden(f"answer/{name}.txt", r.stderr)


def test_a_missing_program_does_not_answer(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, "models/no-such-model.py")
    r = kb(["answer", HIT], cwd=fleet)
    assert r.code == 1
    assert r.stderr.startswith(
        "kb answer: the answerer did not reply (spawn failed: models/no-such-model.py: "
    )
    assert "\n  1. ada/knowledge/backups.md\n" in r.stderr


@pytest.mark.parametrize("how", ["flag", "env"])
def test_a_hanging_answerer_is_killed_at_the_timeout(
    fleet: Path, kb: RunKb, tmp_path: Path, how: str
) -> None:
    pidfile = tmp_path / "child.pid"
    manifest(fleet, script("hang.py", str(pidfile)))
    args, env = ["answer", HIT], {}
    if how == "flag":
        args += ["--model-timeout", "2"]
    else:
        env["KB_MODEL_TIMEOUT"] = "2"
    start = time.monotonic()
    r = kb(args, cwd=fleet, env=env)
    took = time.monotonic() - start
    assert r.code == 1
    check_golden("answer/hang.txt", r.stderr)
    assert took < 20, took
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the answerer's own child outlived the timeout"


# -- complete -------------------------------------------------------------------------------


def test_complete_without_an_answerer_stops(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, None)
    r = kb(["answer", HIT, "--complete"], cwd=fleet)
    assert (r.code, r.stdout) == (2, "")
    check_golden("answer/complete-no-answerer.txt", r.stderr)


def test_complete_maps_then_reduces(fleet: Path, kb: RunKb, tmp_path: Path) -> None:
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log)))
    r = kb(["answer", HIT, "--complete", "--expanded"], cwd=fleet)
    assert r.code == 0, r.stderr
    check_golden("answer/complete.txt", masked(r.stdout))
    check_golden("answer/complete-stderr.txt", r.stderr)
    sent = prompts(log)
    assert len(sent) == 3  # two map batches, one reduce
    check_golden("answer/complete-map-1.txt", sent[0])
    check_golden("answer/complete-map-2.txt", sent[1])
    check_golden("answer/complete-reduce.txt", sent[2])


def test_complete_reads_no_private_file_without_all(fleet: Path, kb: RunKb, tmp_path: Path) -> None:
    profile = fleet / "fleet" / "bruno" / "profile"
    profile.mkdir()
    (profile / "diet.md").write_text(
        "# Okafor diet\n\n**Search for:** `dieta`, `diet`\n\nPRIVATE-MARKER-profile\n",
        encoding="utf-8",
    )
    assert kb(["index"], cwd=fleet).code == 0
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log)))
    r = kb(["answer", "what does the owner eat", "--complete"], cwd=fleet)
    assert r.code == 0, r.stderr
    sent = prompts(log)
    assert sent
    markers = (*PRIVATE_MARKERS, "PRIVATE-MARKER", "profile/")
    leaks = [m for p in sent for m in markers if m in p]
    assert not leaks, leaks
    # The same run with --all does read them: the test above is not vacuous.
    log.unlink()
    r = kb(["answer", "what does the owner eat", "--complete", "--all"], cwd=fleet)
    assert r.code == 0, r.stderr
    everything = "".join(prompts(log))
    for m in ("quillfeather", "Okafor", "PRIVATE-MARKER-profile", "--- person/core.md"):
        assert m in everything, m


def test_complete_with_nothing_keyed_in_scope(tmp_path: Path, kb: RunKb) -> None:
    base = tmp_path / "empty"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = Empty\n", encoding="utf-8")
    (base / "fleet.txt").write_text(f"answerer = {script('answerer.py')}\n", "utf-8")
    r = kb(["answer", HIT, str(base), "--complete"], cwd=tmp_path)
    assert (r.code, r.stderr) == (0, "")
    assert r.stdout == "the base serves no keyed files, so there is nothing to read.\n"


def test_complete_a_failed_batch_is_reported_and_skipped(
    fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log), "--fail-map", "1"))
    r = kb(["answer", HIT, "--complete"], cwd=fleet)
    assert r.code == 0, r.stderr
    check_golden("answer/complete-failed-batch.txt", masked(r.stdout) + "--- stderr\n" + r.stderr)
    assert "ada/" not in prompts(log)[-1], "the failed batch's files reached the reduce"


def test_complete_reduce_failure_prints_the_facts(fleet: Path, kb: RunKb, tmp_path: Path) -> None:
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log), "--fail-reduce"))
    r = kb(["answer", HIT, "--complete"], cwd=fleet)
    assert (r.code, r.stdout) == (1, "")
    check_golden("answer/complete-reduce-failed.txt", r.stderr)


def test_complete_with_malformed_map_replies_finds_nothing(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, script("malformed.py"))
    r = kb(["answer", HIT, "--complete"], cwd=fleet)
    assert r.code == 0
    assert r.stdout == (
        "complete search read every file and found nothing bearing on the question.\n"
        "The library does not hold this.\n"
    )


def test_complete_shows_progress_only_on_a_terminal(fleet: Path, tmp_path: Path) -> None:
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log)))
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    proc = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "answer", HIT, "--complete"],
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
    assert re.search(r"\n  batch 1/2 took \d+\.\ds; at that pace the whole read is ~", err), err
    assert "\n  batch 2/2 done\n" in err
    assert b"batch" not in proc.stdout


# -- the example fleet, wired as shipped ----------------------------------------------------


def test_the_example_fleet_answers_with_its_echo_model(tmp_path: Path, kb: RunKb) -> None:
    """examples/fleet/fleet.txt names `models/echo_model.py`, resolved against the fleet
    root: a copy of the fleet folder alone, as the README's quick start makes (`cp -r
    examples/fleet ../harbor`), must answer with it, offline."""
    fleet = tmp_path / "harbor"
    shutil.copytree(
        REPO / "examples" / "fleet", fleet, ignore=shutil.ignore_patterns(".kb", "kb-*")
    )
    for p in fleet.rglob("*"):  # as git checks it out: the model is a program
        p.chmod(0o755 if p.is_dir() or p.suffix == ".py" else 0o644)
    assert "answerer = models/echo_model.py" in (fleet / "fleet.txt").read_text("utf-8")
    assert kb(["index"], cwd=fleet).code == 0
    r = kb(["answer", LUGGAGE], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("answer/example-echo.txt", r.stdout)
    r = kb(["answer", "how many times did the staging gateway fail", "--complete"], cwd=fleet)
    assert r.code == 0, r.stderr
    check_golden("answer/example-echo-complete.txt", masked(r.stdout))


# -- --json and --exit-code (issue 16) -------------------------------------------------------


def _json_golden(name: str, stdout: str) -> dict[str, object]:
    import json

    check_golden(f"answer/{name}.json", masked(stdout))
    payload: dict[str, object] = json.loads(stdout)
    assert stdout.count("\n") == 1
    return payload


def test_json_for_every_outcome(fleet: Path, kb: RunKb, tmp_path: Path) -> None:
    log = tmp_path / "prompts.log"
    manifest(fleet, script("answerer.py", str(log)))
    r = kb(["answer", HIT, "--json", "--exit-code"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    answered = _json_golden("fast", r.stdout)
    assert answered["outcome"] == "answered" and answered["verdict"] == "hit"
    r = kb(["answer", REFUSED, "--json", "--exit-code"], cwd=fleet)
    assert r.code == 3  # a refusal, asked for as its own status
    assert _json_golden("refused", r.stdout)["outcome"] == "refused"
    assert prompts(log) == [prompts(log)[0]]  # the refusal asked no model
    r = kb(["answer", HIT, "--complete", "--json"], cwd=fleet)
    assert r.code == 0, r.stderr
    complete = _json_golden("complete", r.stdout)
    assert (complete["outcome"], complete["calls"], complete["verdict"]) == ("answered", 3, None)

    manifest(fleet, script("silent.py"))
    r = kb(["answer", HIT, "--json", "--exit-code"], cwd=fleet)
    assert r.code == 1 and r.stderr.startswith("kb answer: the answerer did not reply")
    assert _json_golden("silent", r.stdout)["outcome"] == "silent"

    manifest(fleet, script("answerer.py", str(log), "--fail-reduce"))
    r = kb(["answer", HIT, "--complete", "--json"], cwd=fleet)
    assert r.code == 1
    assert _json_golden("complete-reduce-failed", r.stdout)["outcome"] == "reduce_failed"

    manifest(fleet, script("malformed.py"))
    r = kb(["answer", HIT, "--complete", "--json", "--exit-code"], cwd=fleet)
    assert r.code == 3
    assert _json_golden("complete-nothing-found", r.stdout)["outcome"] == "nothing_found"

    manifest(fleet, None)
    r = kb(["answer", HIT, "--json", "--exit-code"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    assert _json_golden("reading-list", r.stdout)["outcome"] == "reading_list"


def test_json_on_a_base_that_cannot_be_opened(tmp_path: Path, kb: RunKb) -> None:
    r = kb(["answer", HIT, "nowhere", "--json"], cwd=tmp_path)
    assert r.code == 1
    assert r.stdout == (
        '{"error":"cannot read nowhere: no such directory","question":"' + HIT + '"}\n'
    )
