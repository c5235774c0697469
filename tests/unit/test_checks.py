"""Unit tests of kb.pure.writing.checks and kb.pure.notes.links: the corners the fixture fleet does
not reach."""

from __future__ import annotations

from kb.pure.notes.links import citations, wikilinks
from kb.pure.notes.manifest import PrivateLayer
from kb.pure.writing.checks import (
    BaseFacts,
    Finding,
    check_base,
    ignore_findings,
    knowledge_folder,
    note_findings,
    private_scan_folders,
    records_hidden,
    with_cross_base_hint,
)
from kb.pure.writing.sources import Record, bibliography_line

FOLDERS = PrivateLayer(whole=False, folders=("profile", "drafts"))
KEYS = "**Search for:** " + ", ".join(f"word{i}" for i in range(12)) + "\n"


def facts(*texts: tuple[str, str], **kw: object) -> BaseFacts:
    values: dict[str, object] = {
        "label": "home",
        "map_rel": None,
        "knowledge": "knowledge",
        "rels": tuple(r for r, _ in texts),
        "texts": texts,
        "skipped": (),
        "private": FOLDERS,
        "include_private": False,
        "gitignore": None,
    }
    values.update(kw)
    return BaseFacts(**values)  # type: ignore[arg-type]


def codes(found: list[Finding]) -> list[str]:
    return [f.code for f in found]


def record(key: str, title: str = "T", replaces: str | None = None) -> Record:
    return Record(
        key=key,
        type="book",
        title=title,
        retrieved_on="2019-05-01",
        retrieval_status="full",
        replaces=replaces,
    )


def test_links_follow_the_original_rules() -> None:
    assert wikilinks("see [[the-note]] for more") == [(1, "the-note")]
    assert wikilinks("[[note|call it this]] [[note#section]]") == [(1, "note"), (1, "note")]
    assert wikilinks("Link convention: `[[file-name]]`, Obsidian style.") == []
    assert wikilinks("before\n```\n[[not-a-link]]\n```\nafter [[real]]") == [(5, "real")]
    assert wikilinks("```\n[[a]]\n~~~\n[[b]]") == [(4, "b")]  # any marker closes
    assert wikilinks("[[open forever") == []
    assert wikilinks("[[a]] and [[b]]") == [(1, "a"), (1, "b")]
    assert citations("x [src: K ] y [src:open") == [(1, " K ")]


def test_front_matter_rules() -> None:
    assert codes(note_findings("k/n.md", "---\n---\n# N\n")) == ["W05", "W05"]
    assert note_findings("k/n.md", "---\nprovenance: x\n# never closed\n") == []
    empty = note_findings("k/n.md", "---\nprovenance:\nstage: raw\n---\n")
    assert [(f.code, f.message) for f in empty] == [
        ("E04", "provenance is '', which is not one of human, agent, external")
    ]
    indented = note_findings("k/n.md", "---\nprovenance: human\n  stage: raw\nstage: raw\n---\n")
    assert indented == []
    typed = note_findings("k/n.md", "---\ntype: article\nprovenance: human\nstage: raw\n---\n")
    assert codes(typed) == ["W04", "W04"]
    graded = "---\nprovenance: human\nstage: raw\nevidence_tier: A\n---\nFontes: a book\n"
    assert [f.message.split(".")[0] for f in note_findings("k/n.md", graded)] == [
        "this note cites a source and has no valid_for"
    ]


def test_note_checks_only_under_the_knowledge_folder() -> None:
    text = "---\n---\n" + KEYS
    assert codes(check_base(facts(("knowledge/a.md", text), ("tools/b.md", text)))) == [
        "W05",
        "W05",
    ]
    assert knowledge_folder(["conhecimento", "knowledge"]) == "knowledge"
    assert knowledge_folder(["conhecimento"]) == "conhecimento"
    assert knowledge_folder([]) is None


def test_templates_are_exempt_from_links_only() -> None:
    found = check_base(facts(("templates/t.md", KEYS + "[[nothing]] and \u2014 a dash\n")))
    assert codes(found) == ["W03"]


def test_w08_reads_the_ignore_file_literally() -> None:
    assert ignore_findings(FOLDERS, None) == []
    assert ignore_findings(PrivateLayer(whole=True, folders=()), "") == []
    covered = "# mine\n.kb/\n/profile/\ndrafts  # trailing comment\n"
    assert ignore_findings(FOLDERS, covered) == []
    wild = ignore_findings(FOLDERS, "profile/**\n!drafts\n")
    assert [f.message[:12] for f in wild] == ["`profile/` i", "`drafts/` is"]
    assert {(f.file, f.line, f.level) for f in wild} == {(".gitignore", 0, "warning")}


def test_citations_per_distinct_token_and_the_last_bibliography_line() -> None:
    old, new = record("AAAAAAAAAA", "Old"), record("BBBBBBBBBB", "New", replaces="AAAAAAAAAA")
    line = f"- [src:AAAAAAAAAA] {bibliography_line(old)}"
    text = (
        f"[src:AAAAAAAAAA] once\n[src:AAAAAAAAAA] twice\n- [src:AAAAAAAAAA] stale\n{line}\n"
        "[src:BBBBBBBBBB]\n" + f"- [src:BBBBBBBBBB] {bibliography_line(new)}\n"
    )
    found = check_base(facts(("notes/a.md", KEYS + text), records=(old, new)))
    # W09 once, at the first citation; the later, matching bibliography line wins over the
    # stale one; the superseded record is never reported uncited.
    assert [(f.code, f.line) for f in found] == [("W09", 2)]


def test_uncited_and_superseded_records() -> None:
    old, new = record("AAAAAAAAAA"), record("BBBBBBBBBB", replaces="AAAAAAAAAA")
    found = check_base(facts(("a.md", KEYS), records=(old, new)))
    assert [(f.file, f.code) for f in found] == [("sources/BBBBBBBBBB.txt", "E06")]
    private = check_base(
        facts(("a.md", KEYS), records=(new,), private_citations=frozenset({"BBBBBBBBBB"}))
    )
    assert private == []


def test_records_in_a_private_sources_folder_count_only_with_all() -> None:
    # the reader loads no record there without --all; given records anyway, the check
    # holds them as absent then, and as present (uncited: E06) with --all
    lone = record("AAAAAAAAAA")
    layer = PrivateLayer(whole=False, folders=("sources",))
    hidden = facts(("a.md", KEYS), records=(lone,), private=layer)
    assert codes(check_base(hidden)) == []
    shown = facts(("a.md", KEYS), records=(lone,), private=layer, include_private=True)
    assert [(f.file, f.code) for f in check_base(shown)] == [("sources/AAAAAAAAAA.txt", "E06")]


def test_private_sources_load_no_records() -> None:
    layer = PrivateLayer(whole=False, folders=("sources",))
    assert records_hidden(layer, include_private=False)
    assert not records_hidden(layer, include_private=True)
    assert records_hidden(PrivateLayer(whole=True, folders=()), include_private=False)
    assert private_scan_folders(FOLDERS, False, 0) == ()
    assert private_scan_folders(FOLDERS, True, 3) == ()
    assert private_scan_folders(FOLDERS, False, 3) == ("profile", "drafts")
    assert private_scan_folders(PrivateLayer(whole=True, folders=()), False, 1) == ("",)
    found = check_base(
        facts(("a.md", KEYS + "[src:AAAAAAAAAA]\n"), private=layer, records=(record("A" * 10),))
    )
    assert codes(found) == ["E05"]  # the records were never in scope (the kept quirk)


def test_cross_base_hint_ignores_ascii_case_and_the_home_base() -> None:
    e01 = Finding("MAP.md", 3, "E01", "error", "broken link [[Notes]]: this base has no Notes.md")
    stems = [("home", frozenset({"notes"})), ("one", frozenset()), ("two", frozenset({"notes"}))]
    (hinted,) = with_cross_base_hint([e01], "home", stems)
    assert hinted.message.startswith("broken link [[Notes]]: that note is in two, not here")
    assert (hinted.code, hinted.level, hinted.line) == ("E01", "error", 3)
    assert with_cross_base_hint([e01], "home", stems[:2]) == [e01]
    # Only ASCII letters fold: a different non-ASCII letter is a different stem.
    accented = Finding("a.md", 1, "E01", "error", "broken link [[\u00c9t\u00e9]]: x")
    assert with_cross_base_hint([accented], "home", [("x", frozenset({"\u00e9t\u00e9"}))]) == [
        accented
    ]


def test_conflict_markers_are_e11_on_each_marker_line() -> None:
    text = (
        "# Backups\n\n" + KEYS + "\n<<<<<<< HEAD\nours\n||||||| base\nold\n=======\ntheirs\n"
        ">>>>>>> 1a2b3c4 (note b)\n>>>>>>>\n"
    )
    found = check_base(facts(("MAP.md", text)))
    assert [(f.code, f.line, f.level) for f in found if f.code == "E11"] == [
        ("E11", 5, "error"),
        ("E11", 7, "error"),
        ("E11", 11, "error"),
        ("E11", 12, "error"),
    ]


def test_lookalikes_of_conflict_markers_are_not_e11() -> None:
    text = (
        "# Title\n" + KEYS + "Heading\n=======\n<<<<<<<< eight\n>>>>>>>x\n  <<<<<<< indented\n"
        "a <<<<<<< in a line\n"
    )
    assert "E11" not in codes(check_base(facts(("knowledge/a.md", text))))
