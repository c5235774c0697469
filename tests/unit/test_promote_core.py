"""The pure core of promote, ingest and consolidate on the cases the spec names one by one:
proposal blocks, verdict decoration, the hard rules, the lock's words, the staging names,
the removal rule, the HTML reader, and consolidation reading the deposit `kb capture`
actually writes."""

from __future__ import annotations

import pytest

from kb.pure.promotion import promotelock
from kb.pure.promotion.promote import (
    Proposal,
    clean_reason,
    hard_rule,
    is_deposit_name,
    parse_proposals,
    read_verdict,
    repeated,
    repetition,
    unanimous,
    undecorate,
)
from kb.pure.promotion.promote import Review as R
from kb.pure.promotion.rejections import Row
from kb.pure.roles import consolidate, extract, ingest
from kb.pure.sessions.capture import Deposit as CaptureDeposit
from kb.pure.sessions.capture import render_deposit
from kb.pure.sessions.handoff import Record
from kb.pure.sessions.session import Concluded, Refused


def test_a_block_needs_its_fields_and_its_end() -> None:
    reply = (
        "PROPOSAL\nslug: a\nsummary: A...\nkeys: `x`, , y\nbody:\n  PROPOSAL inside\n  kept\nEND\n"
        "PROPOSAL\nslug: no-keys\nsummary: s\nbody:\nb\nEND\n"
        "PROPOSAL\nslug: empty-body\nsummary: s\nkeys: k\nbody:\n   \nEND\n"
        "PROPOSAL\nslug: never-closed\nsummary: s\nkeys: k\nbody:\ncut short"
    )
    (p,) = parse_proposals(reply)
    assert (p.slug, p.folder, p.summary, p.keys) == ("a", "knowledge", "A", ("x", "y"))
    assert p.body == "PROPOSAL inside\n  kept"
    assert parse_proposals("NOTHING") == ()


@pytest.mark.parametrize(
    ("line", "text"),
    [
        ("- **VERDICT:** accept", "VERDICT: accept"),
        ("> ## `Verdict: reject`", "Verdict: reject`"),
        ("  __REASON__: x  ", "REASON: x"),
    ],
)
def test_undecorate(line: str, text: str) -> None:
    assert undecorate(line) == text


def test_verdicts() -> None:
    assert read_verdict("scope", "VERDICT: accept\nREASON: fine").accept
    assert read_verdict("scope", "VERDICT: accept").reason == "no reason given"
    assert not read_verdict("scope", "VERDICT: accept\nVERDICT: reject").accept
    assert not read_verdict("scope", "VERDICT: not sure").accept
    assert read_verdict("scope", "Accepted.").accept
    refused = read_verdict("scope", "hmm\n" + "word " * 100)
    assert not refused.accept
    assert refused.reason.startswith("no verdict could be read, which is refused rather than")
    assert len(refused.reason) < 300
    assert read_verdict("scope", "   ").reason == (
        "the reviewer returned nothing, which is refused rather than guessed at"
    )


def test_unanimity_needs_three_lenses_in_order() -> None:
    yes = [R("contradiction", True, ""), R("duplication", True, ""), R("scope", True, "")]
    assert unanimous(yes)
    assert not unanimous(yes[:2])
    assert not unanimous([yes[1], yes[0], yes[2]])
    assert not unanimous([*yes[:2], R("scope", False, "")])
    assert not unanimous([*yes, R("scope", True, "")])


@pytest.mark.parametrize(
    ("folder", "slug", "refused"),
    [
        ("knowledge", "ok", False),
        ("decisions/", "ok", False),
        ("tools", "ok", True),
        ("skills/x", "ok", True),
        ("protocols", "ok", True),
        ("inbox", "ok", True),
        ("knowledge/sub", "ok", True),
        ("../knowledge", "ok", True),
        ("knowledge", "../x", True),
        ("knowledge", "Upper", True),
    ],
)
def test_hard_rules(folder: str, slug: str, refused: bool) -> None:
    review = hard_rule(Proposal(slug, folder, "s", ("k",), "b"))
    assert (review is not None) == refused
    if review is not None:
        assert review.reason.startswith("hard rule, not a judgement: ")


def test_the_repetition_filter_names_its_lens() -> None:
    rows = (
        Row(2, "d1", "d2", "Ada", "x", "scope", "r"),
        Row(3, "d1", "d3", "ADA", "x", "weird", "why"),
    )
    row = repeated(rows, "ada", "x")
    assert row is rows[1]
    review = repetition(row)
    assert (review.lens, review.accept) == ("duplication", False)
    assert review.reason == "deterministic repetition filter: refused 3 times (last d3): why"
    assert repeated(rows, "ada", "y") is None


def test_reasons_are_one_short_line() -> None:
    assert clean_reason("a\nb\tc") == "a b c"
    long = clean_reason("é" * 1000)
    assert len(long.encode("utf-8")) <= 406 and long.endswith(" [...]")


def test_deposit_names() -> None:
    assert is_deposit_name("2026-11-20-session.md") and is_deposit_name("NOTES.TXT")
    for name in ("README.md", "what-goes-here.md", "Moved.md", ".x.md.abc.tmp", "a.pdf", ".h.md"):
        assert not is_deposit_name(name), name


def test_lock_words() -> None:
    assert promotelock.is_stale(3601) and not promotelock.is_stale(3600)
    assert promotelock.took_over(7300, "pid 12\n") == (
        "kb promote: took over a lock last touched 121 minutes ago, left by pid 12. A previous "
        "run died without releasing it."
    )
    assert "left by an unnamed process." in promotelock.took_over(4000, " \n")
    assert promotelock.busy("x.lock", None) == (
        "kb promote: another promotion run holds x.lock. Nothing was read and nothing was written."
    )


def test_staging_names() -> None:
    assert ingest.document_slug("Backup Drill Notes (final)") == "backup-drill-notes-final"
    assert ingest.document_slug("  ...  ") == "document"
    assert ingest.document_slug("a" * 80) == "a" * 60
    assert ingest.split_name("Report.PDF") == ("Report", "pdf")
    assert ingest.split_name("Makefile") == ("Makefile", "bin")
    assert ingest.split_name(".bashrc") == (".bashrc", "bin")
    names = list(ingest.free_names("d", "txt", 77))
    assert names[:3] == ["d.txt", "d-2.txt", "d-3.txt"]
    assert names[-2:] == ["d-999.txt", "d-77.txt"]


def test_removal_needs_a_proven_note() -> None:
    assert isinstance(ingest.removal(False, None, (), 1, True, 1, 0), ingest.Remove)
    keep = ingest.removal(True, None, (), 1, True, 1, 0)
    assert isinstance(keep, ingest.Keep) and keep.by_request
    cases: list[tuple[int | None, tuple[str, ...], int, bool]] = [
        (None, ("x",), 1, True),
        (3, (), 1, True),
        (None, (), 0, True),
        (None, (), 1, False),
    ]
    for stopped, unreachable, written, proven in cases:
        decision = ingest.removal(False, stopped, unreachable, written, proven, 1, 0)
        assert isinstance(decision, ingest.Keep) and not decision.by_request


def test_html_text() -> None:
    html = "<p>a&amp;b</p><!-- hidden --><script>x()</script><table><tr><td>1</td></tr></table>"
    assert extract.html_text(html) == "a&b\n\n1"


def test_extraction_plan() -> None:
    script = extract.script_for("root", "pdf")
    assert script == "root/tools/extract/pdf.cmd"
    assert isinstance(extract.plan("md", script, True, None), extract.UseScript)
    assert isinstance(extract.plan("md", script, False, None), extract.ReadText)
    assert isinstance(extract.plan("htm", script, False, None), extract.ReadHtml)
    assert extract.plan("pdf", script, False, "/usr/bin/pdftotext") == extract.ReadPdf(
        "/usr/bin/pdftotext"
    )
    refused = extract.plan("pdf", script, False, None)
    assert isinstance(refused, extract.CannotRead) and "poppler-utils" in refused.message


def test_consolidate_reads_what_capture_writes() -> None:
    deposit = CaptureDeposit(
        "ada",
        (Refused("why does the token rotate", ("token",)),),
        (Concluded("pin the token"),),
        ("ada",),
    )
    text = render_deposit(deposit, "s3", "2026-11-21")
    assert consolidate.deposit_items(text) == (("why does the token rotate",), ("pin the token",))
    old = "# x\n\n## Refusals\n\n- an old one\n\n## Other\n\n- not this\n"
    assert consolidate.deposit_items(old) == (("an old one",), ())
    records = [Record("s1", "Ada", "task one"), Record("s9", "bruno", "bread")]
    gathered = consolidate.gather(
        records,
        "ada",
        [("2026-11-21-session-s3.md", text), ("2026-11-20-session-s1.md", old), ("x.md", "")],
        5,
    )
    assert [(e.id, e.refusals) for e in gathered] == [
        ("s1", ("an old one",)),
        ("s3", ("why does the token rotate",)),
    ]
    assert len(consolidate.gather(records, "ada", [("2026-11-21-session-s3.md", text)], 1)) == 1
