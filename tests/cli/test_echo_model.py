"""examples/fleet/models/echo_model.py, the offline demo model: it answers each role's
protocol in the format that role's parser reads (kb answer's is covered end to end in
tests/golden/test_answer.py), deterministically, and refuses a prompt it does not know."""

from __future__ import annotations

import subprocess
import sys

from kb.pure.answering.fusion import Found
from kb.pure.answering.verdict import Confidence
from kb.pure.roles.classify import RosterAgent, dossier, parse_reply
from tests.conftest import REPO

ECHO = REPO / "examples" / "fleet" / "models" / "echo_model.py"

DEPOSIT = """\
---
provenance: agent
stage: raw
---
# Session 2026-11-20: expired TLS certificate on staging

**Search for:** `tls`, `certificate`, `cert-manager`

- Staging gateway started failing HTTPS around 09:40.
- cert-manager had stopped renewing — its DNS token was rotated.
"""


def echo(prompt: str) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(
        [sys.executable, str(ECHO)], input=prompt.encode(), capture_output=True, timeout=30
    )
    return subprocess.CompletedProcess(
        p.args, p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")
    )


def promoter_prompt(deposit: str) -> str:
    return (
        "This is unreviewed deposit material. Propose notes, if any.\n"
        "THE AGENT: ada\nWHERE IT STOPS: food belongs to Bruno\n"
        f"THE DEPOSIT FILE: ada/inbox/2026-11-20-session.md\n---\n{deposit}---\n"
        "Rules:\n- propose nothing rather than something\n- one note answers one question\n"
        "PROPOSAL\nslug: short-kebab-case-name\nfolder: knowledge/<subfolder>\n"
        "summary: one line\nkeys: term, term\nbody:\nthe body\nEND\n"
        "or output the single word NOTHING.\n"
    )


def test_the_classifier_reply_parses_and_names_the_owner() -> None:
    roster = [RosterAgent("Ada", "Infrastructure"), RosterAgent("Bruno", "Cooking")]
    f = Found(
        "ada",
        "knowledge/backups.md",
        "long",
        "Backups",
        "Say how",
        0.03,
        31.0,
        ("keywords #1",),
        ("backup",),
        (),
    )
    for verdict, coverage in (("hit", "covered"), ("guess", "adjacent")):
        c = Confidence(verdict, 2, 31.0, 2.0, 7.4)  # type: ignore[arg-type]
        p = echo(dossier(roster, "how do I restore a backup", [f], [], c))
        assert p.returncode == 0, p.stderr
        judged = parse_reply(p.stdout, ["Ada", "Bruno"])
        assert judged is not None
        assert (judged.owner, judged.coverage, judged.reviewers) == ("Ada", coverage, ())
    c = Confidence("nothing", 0, 0.0, 0.0, 7.4)
    p = echo(dossier(roster, "quantas luas tem jupiter", [], [], c))
    judged = parse_reply(p.stdout, ["Ada", "Bruno"])
    assert judged is not None and (judged.owner, judged.coverage) == (None, "uncovered")


def test_the_promoter_proposes_one_note_from_a_deposit() -> None:
    p = echo(promoter_prompt(DEPOSIT))
    assert p.returncode == 0, p.stderr
    assert p.stdout == (
        "PROPOSAL\n"
        "slug: session-2026-11-20-expired-tls-certificate-on-staging\n"
        "folder: knowledge\n"
        "summary: Session 2026-11-20: expired TLS certificate on staging\n"
        "keys: tls, certificate, cert-manager\n"
        "body:\n"
        "# Session 2026-11-20: expired TLS certificate on staging\n\n"
        "- Staging gateway started failing HTTPS around 09:40.\n"
        "- cert-manager had stopped renewing , its DNS token was rotated.\n"
        "END\n"
    )
    assert "\u2014" not in p.stdout and "\u2013" not in p.stdout
    assert echo(promoter_prompt("# Just a title\n")).stdout == "NOTHING\n"
    assert echo(promoter_prompt(DEPOSIT)).stdout == p.stdout  # deterministic


def review_prompt(lens: str, holds: str) -> str:
    return (
        "You judge ONE proposed note against an existing base.\n"
        f"YOUR ONE QUESTION: {lens}\n\n"
        "THE PROPOSED NOTE\nagent: ada\nfile: knowledge/tls.md\nabout: TLS renewals\n"
        "keys: tls\n---\n# TLS\n\n- Staging gateway started failing HTTPS around 09:40.\n---\n"
        "EVIDENCE from the deterministic router, not a model:\n"
        "1. ada/inbox/2026-11-20-session.md  (Session)\n   about: Raw deposit\n"
        f"   holds: {holds}\n"
        "Answer in exactly two lines:\nVERDICT: accept\nREASON: one sentence\n"
    )


def test_the_reviewer_accepts_unless_the_base_already_holds_it() -> None:
    fresh = echo(review_prompt("Is this already held by a listed file?", "something else"))
    assert fresh.stdout.startswith("VERDICT: accept\nREASON: ")
    held = echo(
        review_prompt(
            "Is this already held by a listed file?",
            "- Staging gateway started failing HTTPS around 09:40; browser said so.",
        )
    )
    assert held.stdout == (
        "VERDICT: reject\nREASON: ada/inbox/2026-11-20-session.md already holds this line.\n"
    )
    other_lens = echo(review_prompt("Does this contradict the base?", "- Staging gateway"))
    assert other_lens.stdout.startswith("VERDICT: accept\n")


def test_the_consolidator_abstains() -> None:
    prompt = "SESSION: s1\n  Task: x\nSESSION: s2\n  Task: y\nPROPOSAL\nsources: a, b\nEND\n"
    assert echo(prompt).stdout == "NOTHING\n"


def test_an_unknown_prompt_is_not_answered() -> None:
    p = echo("What is the capital of France?")
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("echo_model: ")


def test_the_answerer_says_when_nothing_overlaps() -> None:
    prompt = (
        "rules\n\nWHAT RETRIEVAL THINKS. verdict: a guess; ...\n\nTHE PASSAGES:\n\n"
        "--- ada/knowledge/a.md (A)\nnothing related here\n\nTHE QUESTION:\nzebra migration\n"
    )
    assert echo(prompt).stdout == (
        "The library does not hold this: no passage shares a word with the question.\n"
    )
