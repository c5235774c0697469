"""kb.pure.fleet.trust: which model commands run, what is recorded, and the approvals file."""

from __future__ import annotations

import pytest

from kb.pure.fleet import trust
from kb.pure.fleet.trust import AWAITS, Command, Facts, Named, judge
from kb.pure.notes.manifest import parse_manifest


@pytest.mark.parametrize(
    ("facts", "runs", "record", "why"),
    [
        (Facts(False, False, False, False, False), True, False, "no pull"),
        (Facts(True, False, False, False, False), True, True, "no pull"),
        (Facts(True, True, False, True, False), True, False, "approved"),
        (Facts(True, True, True, True, False), True, False, "approved"),
        (Facts(True, True, False, False, True), True, True, "yours"),
        (Facts(True, True, True, False, True), False, False, f"{AWAITS}: a merge or rebase"),
        (Facts(True, True, False, False, False), False, False, f"{AWAITS}: it came with a pull"),
    ],
)
def test_judge(facts: Facts, runs: bool, record: bool, why: str) -> None:
    v = judge(facts)
    assert (v.runs, v.record) == (runs, record) and v.why.startswith(why)


def test_the_digest_covers_the_line_and_every_named_file() -> None:
    line = "models/classify.sh --fast"
    one = trust.digest(line, [Named("models/classify.sh", "a" * 64)])
    assert one == trust.digest(line, [Named("models/classify.sh", "a" * 64)])
    assert one != trust.digest(line, [Named("models/classify.sh", "b" * 64)])
    assert one != trust.digest(line + " ", [Named("models/classify.sh", "a" * 64)])
    assert one != trust.digest(line, [])
    two = [Named("a.py", "1" * 64), Named("b.py", "2" * 64)]
    assert trust.digest(line, two) == trust.digest(line, list(reversed(two)))


def test_commands_are_the_first_line_of_each_role() -> None:
    manifest = parse_manifest(
        "name = x\nclassifier = a.sh\nclassifier = b.sh\nanswerer = claude -p\nrole = no\n"
    )
    assert trust.commands(manifest) == [("classifier", "a.sh"), ("answerer", "claude -p")]


def test_the_approvals_file_adds_each_digest_once() -> None:
    d = "c" * 64
    text = trust.with_approvals("", [(d, "2026-01-01", "fleet", "a.sh\tx")])
    assert text.startswith("# kb trust:")
    assert text.endswith(f"{d} 2026-01-01 fleet a.sh\\tx\n")  # one line, whatever it holds
    assert trust.with_approvals(text, [(d, "2026-02-02", ".", "other")]) == text
    assert trust.approved_digests(text) == {d}
    assert trust.approved_digests("# comment\nnot a digest\n" + "z" * 64 + " x\n") == set()


def test_what_kb_trust_shows() -> None:
    c = Command("classifier", "models/c.sh", (Named("models/c.sh", "f" * 64),))
    text = trust.trust_text("/f", "/f/.git/kb-trust", [(trust.AWAITING, c)], dry_run=True)
    assert "awaits approval  classifier = models/c.sh; runs models/c.sh (sha256 ffff" in text
    assert text.endswith("then: kb trust /f\n")
    assert "no git repository" in trust.trust_text("/f", None, [], dry_run=False)
