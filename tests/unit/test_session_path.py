"""The pure parts of the session path, by example: the classifier's dossier (pinned by a
golden file) and reply, decomposition, envelopes, the roster, blocks pricing, handoffs."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.io.answering.memory import Memory
from kb.pure.answering.decompose import decompose_query
from kb.pure.roles.classify import Judgement, Reviewer, RosterAgent, about, dossier, parse_reply
from kb.pure.sessions import blocks, briefing
from kb.pure.sessions.bootinput import read_request, routed_text, strip_envelopes
from kb.pure.sessions.continuity import briefing as continuity
from kb.pure.sessions.continuity import parse_handoff
from kb.shell.sessions.bootverbs import roster_agents
from tests.conftest import RunKb, check_golden

ROSTER = ["ada", "bruno", "clara"]


# -- the classifier -------------------------------------------------------------------------


def test_the_dossier_is_pinned(example_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=example_fleet).code == 0
    question = "how often should I run a backup restore test\nand is feijão ok"
    with Memory.open([str(example_fleet)]) as memory:
        answer = memory.ask(question)
        agents = roster_agents(memory)
        text = dossier(agents, question, answer.found, answer.keyword_hits, answer.confidence)
        again = dossier(agents, "other", (), (), memory.ask("zzz").confidence)
    prefix, _, _ = text.partition("WHAT THE LIBRARY FOUND")
    assert again.startswith(prefix)  # the prefix is the same for every message
    assert "\n  how often should I run a backup restore test and is feijão ok\n" in text
    assert text.endswith(
        "REVIEWERS: <none, or up to three as `name: what they must check`, separated by ;>\n"
    )
    check_golden("boot/classifier-dossier.txt", text)


def test_a_reply_in_markdown_dress_is_read() -> None:
    reply = (
        "Sure! Here is my answer.\n"
        "**SUBJECT:** backups and restores\n"
        "- REASON: Ada owns restores.\n"
        "### COVERAGE : Covered\n"
        "* OWNER: **ADA**\n"
        "REVIEWERS: - `bruno`: food claim; zeus: nothing; ada: herself; Bruno: twice;"
        " clara: trips; dora: x\n"
    )
    assert parse_reply(reply, [*ROSTER, "dora"]) == Judgement(
        subject="backups and restores",
        reason="Ada owns restores.",
        coverage="covered",
        owner="ada",
        reviewers=(
            Reviewer("bruno", "food claim"),
            Reviewer("clara", "trips"),
            Reviewer("dora", "x"),
        ),
    )


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("nothing useful here", None),
        ("SUBJECT: x\nREASON: y", None),
        ("OWNER: zeus", Judgement("", "", "uncovered", None)),
        ("COVERAGE: adjacent\nOWNER: none", Judgement("", "", "adjacent", None)),
        ("COVERAGE: covered-ish\nOWNER: clara", Judgement("", "", "uncovered", "clara")),
        ("COVERAGE: covered\nOWNER: bruno\nREVIEWERS: none", Judgement("", "", "covered", "bruno")),
        ("COVERAGE: covered\nOWNER: bruno\nREVIEWERS: -", Judgement("", "", "covered", "bruno")),
    ],
)
def test_reply_rules(reply: str, expected: Judgement | None) -> None:
    assert parse_reply(reply, ROSTER) == expected


def test_about_cleans_a_purpose_line() -> None:
    assert about("- [[backups]] **Say** how `Ada` — takes backups ✓") == "Say how Ada takes backups"
    first = "This first sentence runs well past a third of the cap, so it is kept whole."
    assert about(f"{first} " + "word " * 60) == first
    early = "Too short to count. " + "word " * 60  # a stop before a third of the cap is not used
    assert about(early).startswith("Too short to count. word") and about(early).endswith("...")
    cut = about("word " * 60)
    assert cut.endswith("...") and len(cut.encode()) <= 163


# -- the message ----------------------------------------------------------------------------


def test_decomposition_follows_the_spec() -> None:
    assert decompose_query("") == []
    assert decompose_query("backups?") == ["backups?"]
    assert decompose_query(
        "How do I restore a backup and how long can leftovers stay out? Also: visas; ok!"
    ) == ["How do I restore a backup", "how long can leftovers stay out", "Also: visas"]
    assert decompose_query("como fazer pão e como guardar o feijão") == [
        "como fazer pão",
        "como guardar o feijão",
    ]
    # `rice` alone is one word and is dropped; the leading `and ` is removed only in lower case
    assert decompose_query("rice, AND WHY is it sticky") == ["AND WHY is it sticky"]


def test_envelopes_are_removed_in_order() -> None:
    text = "a<system-reminder>x</system-reminder>b<task-notification>y</task-notification>c"
    assert strip_envelopes(text) == "abc"
    assert strip_envelopes("keep<system-reminder>never closed") == "keep"
    assert strip_envelopes("</system-reminder>only a closer") == "</system-reminder>only a closer"


def test_requests() -> None:
    assert read_request("", False) is None
    assert read_request(" \n", True) is None
    r = read_request('{"prompt": "hi", "session_id": "  s1 ", "cwd": "/x"}', False)
    assert r is not None and (r.prompt, r.session, r.cwd) == ("hi", "s1", "/x")
    r = read_request('{"prompt": "hi", "session_id": "s1"}', True)
    assert r is not None and r.session is None and r.prompt.startswith("{")
    r = read_request('{"hook_event_name": "UserPromptSubmit"}', False, session=" s2 ")
    assert r is not None and (r.prompt, r.session) == ("", "s2")
    r = read_request('{"prompt": "\\ud800"}', False)
    assert r is not None and r.prompt == "?"


def test_a_long_message_keeps_its_head_and_tail() -> None:
    text = "é" * 3000 + "tail"
    routed = routed_text(text)
    assert routed.endswith("tail") and routed.startswith("é" * 1536)


# -- the briefing ---------------------------------------------------------------------------


def test_first_clause() -> None:
    assert briefing.first_clause("  Does one thing. Then more.  ", 96) == "Does one thing"
    assert briefing.first_clause("short", 96) == "short"
    assert briefing.first_clause("a b c d e f", 5) == "a b c..."
    assert briefing.first_clause("x" * 20, 5) == "x" * 20
    assert briefing.first_clause("pão pão pão", 6) == "pão..."


def test_the_roster() -> None:
    agents = [RosterAgent("ada", "Infra. Long tail.", "Stops at food."), RosterAgent("eve")]
    assert briefing.roster(agents) == (
        "The fleet:\n  ada: Infra\n      stops at: Stops at food.\n  eve\n"
    )


def test_the_fallback_verdict() -> None:
    assert briefing.fallback("guess", "ada", False) is None
    assert briefing.fallback("hit", None, True) is None
    j = briefing.fallback("hit", "ada", True)
    assert j is not None and briefing.is_degraded(j) and j.coverage == "covered"
    j = briefing.fallback("hit", "ada", False)
    assert j is not None and not briefing.is_degraded(j)


def test_compound_seating_is_capped_at_three_reviewers() -> None:
    hits = [
        ("ada", "q1"),
        ("bruno", "q2"),
        ("ADA", "q3"),
        ("clara", "q4"),
        ("dora", "q5"),
        ("eve", "q6"),
    ]
    seated = briefing.seat_compound(None, (Reviewer("clara", "already"),), hits)
    assert seated.chosen == "ada"
    # README quirk 5: every reviewer list is capped at three, so boot's printed
    # `kb panel` command is one the panel verb accepts.
    assert [r.name for r in seated.panel] == ["clara", "bruno", "dora"]
    assert seated.note is not None and "across 5 domains" in seated.note
    assert briefing.seat_compound("ada", (), [("ada", "q1"), ("ada", "q2")]).note is None


def test_the_hit_briefing_budget_stops_at_the_first_passage_that_does_not_fit() -> None:
    shown = [
        briefing.Shown("A", "a" * 4000),
        briefing.Shown("", "b" * 2500),
        briefing.Shown("C", "c" * 10),
    ]
    text = briefing.hit_briefing("ada/x.md", shown, False, True, "inbox/s.md", ["bruno/y.md"])
    assert text is not None
    assert (
        "\n--- ada/x.md (A) [SHORT MEMORY: recent, not distilled] [captured from inbox/s.md]\n"
        in (text)
    )
    assert "c" * 10 not in text
    assert "(2 more passages in that file did not fit the boot budget." in text
    assert text.endswith("\nRanked leads, unvouched:\n  bruno/y.md\n")
    assert (
        briefing.hit_briefing("ada/x.md", [briefing.Shown("", "z" * 7000)], False, False, None, [])
        is None
    )


# -- blocks ---------------------------------------------------------------------------------


def test_blocks_grammar() -> None:
    parsed = blocks.parse_blocks(
        "orphan.md\n[identity] # comment\nA.md\n[map\n[session]  ON-DEMAND\nS.md # note\n"
    )
    assert parsed == (
        blocks.BlockSpec("identity", "resident", ("A.md",)),  # `[map` has no `]`: nothing
        blocks.BlockSpec("session", "on-demand", ("S.md",)),
    )


def test_keyword_lines_and_their_continuations_are_stripped() -> None:
    text = (
        "# T\n**Search for:** `a`, `b`,\n  `c`, `d`,\n`e`\nbody mentions `Search for:` here\n"
        "Buscar por: x,\nnot a continuation\n"
    )
    assert blocks.strip_keyword_lines(text) == (
        "# T\nbody mentions `Search for:` here\nnot a continuation\n"
    )


def test_code_bytes_and_tokens() -> None:
    text = "prose\n```py\nx = '`'\n```\n   ~~~~\ninside ``` not a close\n~~~~~\nafter\n"
    fenced = "```py\nx = '`'\n```\n   ~~~~\ninside ``` not a close\n~~~~~\n"
    assert blocks.code_bytes(text) == len(fenced.encode())
    assert blocks.code_bytes("```\nunclosed\n") == len("```\nunclosed\n")
    assert blocks.code_bytes("``` has ` tick\nno\n") == 0
    assert blocks.code_bytes("    ```\nindented four\n") == 0
    assert blocks.tokens(399) == 100 and blocks.tokens(2) == 1 and blocks.tokens(1) == 0
    assert blocks.tokens_of_artifact("ui.HTML", "x" * 296) == 100
    assert blocks.tokens_of_artifact("a.md", "x" * 399) == 100


# -- handoffs -------------------------------------------------------------------------------


def test_handoff_parsing_and_its_briefing_budget() -> None:
    record = parse_handoff(
        "\n---\nsession: s\nagent: ada\nstatus: COMPLETED\n---\n# Task\nline one\n  line two\n"
        "## Blockers\n- one\nnot an item\n## Other\n- ignored\n"
    )
    assert record is not None
    assert (record.status, record.task, record.blockers) == (
        "completed",
        "line one line two",
        ("one",),
    )
    assert parse_handoff("---\nagent: ada\n---\n") is None
    assert parse_handoff("no front matter") is None
    big = parse_handoff("---\nsession: s\n---\n# Task\n" + "é" * 3000 + "\n")
    assert big is not None
    text = continuity(big)
    assert text.endswith("\n  [...continuity truncated to budget]\n")
    assert len(text.encode()) <= 2000 + len("\n  [...continuity truncated to budget]\n")
