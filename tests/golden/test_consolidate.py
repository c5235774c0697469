"""`kb consolidate` end to end through the real process: sessions gathered from handoff records
(written by `kb handoff save`) and capture deposits (in the shape `kb capture` writes, whose
`## Questions the base could not answer` section is now read), the evidence rule applied in
code (two distinct gathered sessions, memory folders only), then the same three lenses as
`kb promote`. Outputs, the JSON, the note and the prompt are golden files."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.conftest import RunKb, check_golden

MODELS = Path(__file__).resolve().parent.parent / "models"
END = "=== END PROMPT ==="

CAPTURED = """\
---
provenance: agent
stage: raw
---

# Session s3, 2026-11-21

Written by `kb capture` at the end of the session.

## Questions the base could not answer

Each question below reached nothing in this base: a recall loss.

- why does the staging token keep rotating
  looked like: token, staging

## Decisions and conclusions

Recorded during the session with `kb capture --conclusion`, secrets scrubbed:

- pin the staging token in the vault

## Where the conversation went

ada
"""


def script(name: str, *args: str) -> str:
    return " ".join(shlex.quote(a) for a in (str(MODELS / name), *args))


def manifest(fleet: Path, promoter: list[str] | None, reviewer: list[str] | None) -> None:
    lines = ["name = Harbor"]
    if promoter is not None:
        lines.append(f"promoter = {script('promoter.py', *promoter)}")
    if reviewer is not None:
        lines.append(f"reviewer = {script('reviewer.py', *reviewer)}")
    (fleet / "fleet.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def fleet(example_fleet: Path, kb: RunKb) -> Path:
    assert kb(["index"], cwd=example_fleet).code == 0
    for session, task, blocker in (
        ("s1", "rotate the staging token", "the token rotated silently"),
        ("s2", "renew the staging certificate", "the staging token again"),
    ):
        saved = kb(
            ["handoff", "save", "ada", "--task", task, "--blocker", blocker, "--session", session],
            cwd=example_fleet,
        )
        assert saved.code == 0, saved.stderr
    other = ["handoff", "save", "bruno", "--task", "bake bread", "--session", "s9"]
    assert kb(other, cwd=example_fleet).code == 0
    (example_fleet / "fleet/ada/inbox/2026-11-21-session-s3.md").write_text(CAPTURED, "utf-8")
    return example_fleet


def test_no_agent_and_no_models(fleet: Path, kb: RunKb) -> None:
    r = kb(["consolidate"], cwd=fleet)
    assert r.code == 2
    assert r.stderr == "kb: consolidate needs an agent name\n\n"
    assert r.stdout.startswith("usage:\n")
    manifest(fleet, None, ["accept"])
    r = kb(["consolidate", "ada"], cwd=fleet)
    assert (r.code, r.stdout) == (2, "")
    assert r.stderr.startswith("kb consolidate: no `promoter = ...` in the fleet manifest")
    manifest(fleet, ["consolidate"], None)
    r = kb(["consolidate", "ada"], cwd=fleet)
    assert r.code == 2
    assert r.stderr.startswith("kb consolidate: no `reviewer = ...` in the fleet manifest. ")
    manifest(fleet, ["consolidate"], ["accept"])
    r = kb(["consolidate", "zoe"], cwd=fleet)
    assert r.code == 1
    assert r.stderr.startswith("kb consolidate: no agent at ./fleet/zoe. ")


def test_patterns_across_sessions(fleet: Path, kb: RunKb, tmp_path: Path) -> None:
    log = tmp_path / "promoter.log"
    manifest(fleet, ["consolidate", "--log", str(log)], ["accept"])
    dry = kb(["consolidate", "ada", "--dry-run"], cwd=fleet)
    assert (dry.code, dry.stderr) == (0, "")
    check_golden("consolidate/dry-run.txt", dry.stdout)
    assert not (fleet / "fleet/ada/knowledge/recurring-staging-token.md").exists()
    prompt = log.read_text(encoding="utf-8").split(END)[0]
    check_golden("consolidate/prompt.txt", prompt)
    # capture's own heading is read: the refused question reaches the promoter
    assert "  Refused questions:\n    - why does the staging token keep rotating\n" in prompt
    assert "bake bread" not in prompt  # another agent's session
    r = kb(["consolidate", "ada", "--json"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("consolidate/run.json", r.stdout)
    note = fleet / "fleet/ada/knowledge/recurring-staging-token.md"
    check_golden("consolidate/note.md", note.read_text(encoding="utf-8"))
    assert not (fleet / "kb-rejections.txt").exists()  # rejected evidence is never counted


def test_a_refusing_lens_is_recorded(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["consolidate"], ["refuse:scope"])
    r = kb(["consolidate", "ada"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("consolidate/refused.txt", r.stdout)
    rows = [
        line
        for line in (fleet / "kb-rejections.txt").read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    ]
    assert [r.split("\t")[3:6] for r in rows] == [["ada", "recurring-staging-token", "scope"]]


def test_too_few_sessions_proposes_nothing(fleet: Path, kb: RunKb, tmp_path: Path) -> None:
    log = tmp_path / "promoter.log"
    manifest(fleet, ["consolidate", "--log", str(log)], ["accept"])
    r = kb(["consolidate", "ada", "--sessions", "1"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    assert r.stdout == (
        "consolidate ada: consulted 1 session, generated 0 candidates.\n\n"
        "0 proposals evaluated: 0 written, 0 refused.\n"
    )
    assert not log.exists()
    r = kb(["consolidate", "clara", "--json"], cwd=fleet)
    assert r.stdout == (
        '{"agent":"clara","sessions_consulted":0,"proposals_generated":0,"written":0,'
        '"admitted":0,"refused":0,"rejected_evidence":[],"decided":[]}\n'
    )


def test_an_unreachable_reviewer_drops_the_candidate(fleet: Path, kb: RunKb) -> None:
    manifest(fleet, ["consolidate"], ["crash"])
    r = kb(["consolidate", "ada"], cwd=fleet)
    assert r.code == 0
    assert r.stderr == (
        "kb consolidate: could not reach reviewer contradiction, on recurring-staging-token "
        "(exit status 3), so nothing was written for it.\n"
    )
    assert "0 proposals evaluated: 0 written, 0 refused." in r.stdout
