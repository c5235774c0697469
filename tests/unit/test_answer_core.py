"""kb.pure.roles.answer: modes, small-to-big assembly, prompts, citations, map/reduce helpers."""

from __future__ import annotations

from kb.pure.answering.fusion import Found, Passage
from kb.pure.answering.verdict import Confidence
from kb.pure.notes.paths import Layer
from kb.pure.roles import answer as core


def passage(heading: str, text: str) -> Passage:
    return Passage(heading, text, text[:40], None, None)


def found(base: str, path: str, *passages: Passage, purpose: str = "") -> Found:
    layer: Layer = "short" if path.startswith("inbox/") else "long"
    return Found(base, path, layer, "", purpose, 0.03, 20.0, ("keywords #1",), (), passages)


HIT = Confidence("hit", 2, 31.25, 2.0, 12.04)
GUESS = Confidence("guess", 1, 5.0, 1.0, 12.04, 0.3)


def test_modes() -> None:
    assert core.mode_of(False, False) is core.FAST
    assert core.mode_of(True, False) is core.EXPANDED
    assert core.mode_of(True, True) is core.COMPLETE  # --complete wins
    assert (core.FAST.files, core.FAST.passages) == (5, 8)
    assert (core.EXPANDED.files, core.EXPANDED.passages) == (12, 16)
    assert core.COMPLETE.passages == 32


def test_verdict_phrases() -> None:
    assert core.verdict_phrase("hit") == "hit"
    assert core.verdict_phrase("guess") == "guess, read the sources yourself"
    assert core.verdict_phrase("nothing") == "nothing"


def test_nothing_is_never_worth_asking() -> None:
    f = found("a", "knowledge/x.md", passage("X", "text"))
    assert core.worth_asking(HIT, [f])
    assert not core.worth_asking(HIT, [])
    assert not core.worth_asking(Confidence("nothing", 0, 0.0, 0.0, 12.0), [f])


def test_merge_containment_overlap_and_gap() -> None:
    assert core.merge("  abc def ghi  ", "def") == "abc def ghi"
    assert core.merge("def", "abc def ghi") == "abc def ghi"
    a = "The drill is timed and the measured time is the real RTO"
    b = "the measured time is the real RTO, whatever the runbook claims."
    assert core.merge(a, b) == a + "\n" + ", whatever the runbook claims."
    # an overlap shorter than ten characters is a coincidence, not a join
    assert core.merge("ends with abc", "abc starts") == "ends with abc\n\nabc starts"


def test_cap_prefers_a_paragraph_then_a_sentence() -> None:
    para = "a" * 1000 + "\n\n" + "b" * 1000
    assert core.cap(para) == "a" * 1000
    sentence = "x" * 950 + ". " + "y" * 1000
    assert core.cap(sentence) == "x" * 950 + "."
    early = "x" * 100 + ". " + "y" * 2000
    assert core.cap(early) == early[:1800]
    assert core.cap("short") == "short"


def test_cap_cuts_on_a_character_boundary() -> None:
    text = "é" * 1500  # 3000 bytes, two per character
    out = core.cap(text)
    assert out == "é" * 900
    assert len(out.encode("utf-8")) <= core.WINDOW_CAP
    assert core.cap("€" * 700).encode("utf-8") == ("€" * 600).encode("utf-8")


def test_windows_merge_one_section_and_keep_first_position() -> None:
    ps = [
        passage("T > A", "first part of A, long enough to overlap"),
        passage("T > B", "all of B"),
        passage("T > A", "long enough to overlap, and the rest of A"),
    ]
    ws = core.windows(ps, "inbox/x.md", 8)
    assert [w.heading_path for w in ws] == ["T > A", "T > B"]
    assert ws[0].text == "first part of A, long enough to overlap\n, and the rest of A"
    assert all(w.origin == "inbox/x.md" for w in ws)
    assert len(core.windows(ps, None, 1)) == 1  # only the first (mode passages) are read


def test_prompt_markers() -> None:
    served = core.served_files(
        [
            found("ada", "inbox/s.md", passage("", "recent note")),
            found("ada", "knowledge/k.md", passage("K > L", "  body  ")),
            found("ada", "tools/t.md", purpose="Say what the tool is\nfor"),
            found("ada", "tools/nothing.md"),
        ],
        {("ada", "knowledge/k.md"): "ada/inbox/s.md"},
        core.FAST,
    )
    p = core.answer_prompt("how\nmany?", GUESS, served)
    assert (
        "WHAT RETRIEVAL THINKS. The top file covers 30% of the question; verdict: a "
        "guess; the match may be a coincidence of vocabulary. Short of a hit, treat every "
        "passage as a lead, not an answer.\n\nTHE PASSAGES:\n" in p
    )
    assert "\n--- ada/inbox/s.md (top) [SHORT MEMORY: recent, not distilled]\nrecent note\n" in p
    assert "\n--- ada/knowledge/k.md (K > L) [captured from ada/inbox/s.md]\nbody\n" in p
    assert (
        "\n--- ada/tools/t.md (no passage retrieved; the file exists to: Say what the tool is "
        "for)\n" in p
    )
    assert "tools/nothing.md" not in p
    assert p.endswith("\nTHE QUESTION:\nhow many?\n")
    assert "The library does not hold this" in p


def test_served_files_take_the_mode_files() -> None:
    many = [found("b", f"knowledge/{i}.md", passage("H", "t")) for i in range(20)]
    assert len(core.served_files(many, {}, core.FAST)) == 5
    assert len(core.served_files(many, {}, core.EXPANDED)) == 12


def test_answered_text() -> None:
    fs = [found("ada", f"knowledge/{i}.md") for i in range(7)]
    text = core.answered_text("  the answer (ada/knowledge/0.md)\n\n", fs, core.FAST, GUESS)
    assert text == (
        "the answer (ada/knowledge/0.md)\n\n"
        "sources served: ada/knowledge/0.md ada/knowledge/1.md ada/knowledge/2.md "
        "ada/knowledge/3.md ada/knowledge/4.md\n"
        "mode: fast | confidence: covers 30% of the question; guess, read the sources yourself\n"
    )


def test_reading_list_is_five_and_labels_short_memory() -> None:
    fs = [found("ada", "inbox/s.md")] + [found("ada", f"knowledge/{i}.md") for i in range(9)]
    lines = core.reading_list(fs)
    assert lines[0] == "  1. ada/inbox/s.md  [short memory]"
    assert len(lines) == 5


def test_citations() -> None:
    reply = (
        "Nightly (ada/knowledge/backups.md), weekly (knowledge/backups.md, 2026-01-02) and "
        "(see ada/knowledge/ghost.md; ada/tools/x.py) but not (a plain remark) nor a/b.md"
    )
    assert core.cited_paths(reply) == [
        "ada/knowledge/backups.md",
        "knowledge/backups.md",
        "ada/knowledge/ghost.md",
        "ada/tools/x.py",
    ]
    served = ["ada/knowledge/backups.md", "ada/tools/x.py"]
    assert core.unserved_citations(reply, served) == ["ada/knowledge/ghost.md"]


def test_refusal_text() -> None:
    text = core.refusal_text(False, 0, ["A sentence."], ["kubernetes", "deploy"])
    assert text == (
        "nothing in the library matched. Either it does not cover this, or the\n"
        "Search for lines do not carry the words the question used.\n"
        "\n  A sentence.\n\n  it does know: kubernetes, deploy\n"
    )
    assert core.refusal_text(False, 0, [], ["k"]).endswith("used.\n  it does know: k\n")
    assert core.refusal_text(True, 0, [], []).startswith("  this base has no knowledge files")


def test_map_and_reduce() -> None:
    files = [core.PlanFile(f"ada/knowledge/{i}.md", f"text {i}", i == 0) for i in range(23)]
    groups = core.batches(files)
    assert [len(g) for g in groups] == [10, 10, 3]
    assert core.batch_count(23) == 3 and core.batch_count(20) == 2 and core.batch_count(0) == 0
    p = core.map_prompt("q\nq", groups[0])
    assert "FILE <path>: facts below\nFILE <path>: no relevant mention\n" in p
    assert "\n--- ada/knowledge/0.md [SHORT MEMORY: recent, not distilled]\ntext 0\n\n" in p
    assert "\n--- ada/knowledge/1.md\ntext 1\n\n" in p
    assert p.endswith("THE QUESTION:\nq q\n")
    reply = "FILE a: facts below\n  - one (a, undated)  \n-no\n* star\n- two (b, 2020-01-01)\n"
    facts = core.fact_lines(reply)
    assert facts == ["- one (a, undated)", "- two (b, 2020-01-01)"]
    r = core.reduce_prompt("how many", facts)
    assert "CANDIDATES:" in r and "ANSWER:" in r
    assert r.endswith(
        "THE FACTS:\n- one (a, undated)\n- two (b, 2020-01-01)\n\nTHE QUESTION:\nhow many\n"
    )
    assert core.estimate_text(23).startswith(
        "complete search: reading all 23 files in 3 batches, 4 model calls total.\n"
    )
    assert core.first_batch_line(3, 6.0) == (
        "  batch 1/3 took 6.0s; at that pace the whole read is ~0.4 min\n"
    )
    assert core.complete_text(" A \n", 23, 4, 1.25) == (
        "A\n\nmode: complete | read 23 files in 4 model calls | 1.2s total\n"
    )
