"""The rules of kb.pure.writing.checks, one test per rule (workflow-verbs.md §2, decisions 0022,
0023).

Each test builds the pure inputs (frozen attrs values, texts) directly and asserts the exact
findings: code, level, file, line, message and order. They are in-process, so the mutation
runner (tests/mutation/mutate.py, module `checks`) can use them to kill mutants. The
messages are a contract (every message in §2.3 is exact; the wording has since moved on in
the code, and these tests hold the wording the code now promises).
"""

from __future__ import annotations

from kb.pure.notes.links import stems_of
from kb.pure.notes.manifest import PrivateLayer
from kb.pure.writing.checks import (
    LINES_SHOWN,
    PLACE_WIDTH,
    BaseCheck,
    Finding,
    FleetCheck,
    Group,
    Unreadable,
    ascii_fold,
    base_data,
    base_report,
    bibliography_of,
    check_base,
    check_fleet,
    citation_findings,
    conflict_findings,
    counts,
    dash_checks,
    fleet_check,
    fleet_stems,
    folded_stems,
    group_findings,
    group_line,
    ignore_findings,
    ignored_entries,
    is_note,
    judge_base,
    knowledge_folder,
    link_findings,
    link_target,
    lookalike_findings,
    note_findings,
    private_findings,
    private_scan_folders,
    reach_findings,
    record_findings,
    records_hidden,
    sort_key,
    successors_of,
    uncited_findings,
    with_cross_base_hint,
)
from kb.pure.writing.sources import Record, bibliography_line
from tests.unit.test_checks import FOLDERS, facts

KEY = "AAAAAAAAAA"
NEW = "BBBBBBBBBB"
OTHER = "CCCCCCCCCC"
WHOLE = PrivateLayer(whole=True, folders=())
KEYS = "**Search for:** alpha, beta, gamma, delta\n"


def record(key: str, title: str = "T", replaces: str | None = None) -> Record:
    return Record(
        key=key,
        type="book",
        title=title,
        retrieved_on="2019-05-01",
        retrieval_status="full",
        replaces=replaces,
    )


def bib(r: Record) -> str:
    return f"- [src:{r.key}] {bibliography_line(r)}"


# -- the exact messages (workflow-verbs.md §2.3, §2.5, as the code now words them) ------------

E02 = (
    "not indexed: this file is empty, or has no `Search for:` line and neither its title, its "
    "file name, its headings nor its front matter hold a word to find it by, so it scores "
    "zero on every question. Give it a `# Title` and some text, or a `Search for:` line above "
    "the first `##` heading"
)


def e01(target: str) -> str:
    return f"broken link [[{target}]]: this base has no {target}.md"


def w01(target: str, rels: str) -> str:
    return f"ambiguous link [[{target}]] matches {rels}: rename one of them, or link by path"


def w03(dash: str) -> str:
    return (
        f"{dash} dash: use a comma, a colon or parentheses (a fleet whose fleet.txt says "
        "`style = no-dashes` has kb write refuse it)"
    )


def w06(terms: str) -> str:
    return (
        f"thin keyword line: {terms}. The text index still finds this file by its own words, "
        "but its keys are how a question in other words reaches it (a synonym, another "
        "language, the symptom rather than the fix), and each one a question matches makes a "
        "`hit` likelier. Add the words somebody would type from inside the problem"
    )


def w07(head: str) -> str:
    return (
        f"{head}. Each is several written words that shrink to one word or none once stopwords "
        "go, so it reaches neither the keyword index nor the phrase index and no question can "
        "find it. Rewrite it so the word that carries the meaning is the one that survives: "
        "`nao contestar` was indexed as `contestar`, its own opposite, until it became "
        "`proibido contestar`"
    )


def w04(field: str) -> str:
    return (
        f"this note cites a source and has no {field}. Add it to the front matter: a sourced "
        "claim that grades itself nowhere is a claim nobody can weigh"
    )


def w05(field: str, legal: str) -> str:
    return (
        f"front matter has no {field}, so nobody can tell who wrote this or how settled it "
        f"is. Add `{field}:` with one of {legal}"
    )


PROVENANCES = "human, agent, external"
STAGES = "raw, captured, distilled, derived"


def e05(token: str, why: str) -> str:
    return (
        f"citation [src:{token}] does not resolve: {why}. A citation is a pointer, so a key "
        "with no record behind it is a claim with no source"
    )


def w09(old: str, new: str, title: str) -> str:
    return (
        f'[src:{old}] is superseded by [src:{new}], "{title}". The old key still resolves, so '
        "this is a correction to consider and not a broken link"
    )


def e08_missing(r: Record) -> str:
    return (
        f"cited [src:{r.key}] with no bibliography line for it. Add:\n"
        f"    - [src:{r.key}] {bibliography_line(r)}"
    )


def e08_drifted(r: Record) -> str:
    return (
        f"the bibliography line for [src:{r.key}] has drifted from the record. The record "
        f"says:\n    - [src:{r.key}] {bibliography_line(r)}"
    )


def e06(key: str, title: str) -> str:
    return (
        f'no note cites [src:{key}], "{title}". The bibliography is a projection of the '
        "pointers, so a record nothing points at is in no bibliography and answers no "
        "question. Cite it or delete it"
    )


def e09(problem: str) -> str:
    return (
        f"not a source record: {problem}. Records are written by `kb source add`, so a broken "
        "one was edited by hand: fix the line named, or write the record again"
    )


def w08(folder: str) -> str:
    return (
        f"`{folder}/` is declared private and this .gitignore does not cover it. kb serves "
        "nothing from it without --all and publishes nothing ever, so this is a warning; a "
        f"repository pushed from here would publish it. Add `{folder}/` to .gitignore"
    )


def e10(entry: str) -> str:
    return (
        f"private entry `{entry}` names no folder in this base, so it hides nothing; the "
        "default private folders (profile, projects, records) stay private until it does. "
        "Write the folder as the base spells it, relative to the base (`records`, "
        "`notes/secret`), or `.` for the whole base"
    )


def hint(target: str, base: str) -> str:
    return (
        f"broken link [[{target}]]: that note is in {base}, not here. A wikilink stops at the "
        "base edge, so write the path instead"
    )


# -- what to read -----------------------------------------------------------------------------


def test_the_knowledge_folder_is_the_first_of_its_names_that_exists() -> None:
    assert knowledge_folder({"conhecimento", "knowledge", "tools"}) == "knowledge"
    assert knowledge_folder(("conhecimento",)) == "conhecimento"
    assert knowledge_folder(("Knowledge", "notes")) is None


def test_private_sources_hide_the_records_unless_the_private_layer_is_included() -> None:
    sources = PrivateLayer(whole=False, folders=("sources",))
    assert records_hidden(sources, include_private=False) is True
    assert records_hidden(sources, include_private=True) is False
    assert records_hidden(FOLDERS, include_private=False) is False
    assert records_hidden(WHOLE, include_private=False) is True


def test_private_folders_are_scanned_for_keys_only_with_records_and_without_all() -> None:
    kept = PrivateLayer(whole=False, folders=("secret",), declared=True, kept=("profile",))
    assert private_scan_folders(kept, False, 1) == ("secret", "profile")
    assert private_scan_folders(kept, True, 1) == ()
    assert private_scan_folders(kept, False, 0) == ()
    assert private_scan_folders(WHOLE, False, 2) == ("",)
    assert private_scan_folders(WHOLE, True, 2) == ()


# -- links ------------------------------------------------------------------------------------


def test_stems_list_every_file_answering_to_them_in_discovery_order() -> None:
    assert stems_of(["b/x.md", "a.md", "a/x.md", "c/x.txt.md"]) == {
        "x": ["b/x.md", "a/x.md"],
        "a": ["a.md"],
        "x.txt": ["c/x.txt.md"],
    }


def test_a_link_to_no_file_of_the_base_is_an_error_at_its_line() -> None:
    by_stem = {"here": ["here.md"]}
    text = "# T\nsee [[gone]] and [[here]]\n\n[[Here]]\n"
    assert link_findings("a.md", text, by_stem) == [
        Finding("a.md", 2, "E01", "error", e01("gone")),
        Finding("a.md", 4, "E01", "error", e01("Here")),  # stems are case-sensitive
    ]


def test_a_link_to_one_file_is_clean() -> None:
    assert (
        link_findings("a.md", "[[here]] [[here|it]] [[here#part]]", {"here": ["n/here.md"]}) == []
    )


def test_a_link_two_files_answer_to_is_a_warning_naming_both_in_order() -> None:
    by_stem = {"x": ["b/x.md", "a/x.md"], "y": ["y.md"]}
    assert link_findings("n.md", "[[y]]\n[[x]]\n", by_stem) == [
        Finding("n.md", 2, "W01", "warning", w01("x", "b/x.md, a/x.md"))
    ]
    three = {"x": ["a/x.md", "b/x.md", "c/x.md"]}
    assert link_findings("n.md", "[[x]]", three) == [
        Finding("n.md", 1, "W01", "warning", w01("x", "a/x.md, b/x.md, c/x.md"))
    ]


def test_links_in_templates_are_not_checked_but_a_templates_folder_deeper_is() -> None:
    assert link_findings("templates/t.md", "[[gone]]\n", {}) == []
    assert link_findings("notes/templates/t.md", "[[gone]]\n", {}) == [
        Finding("notes/templates/t.md", 1, "E01", "error", e01("gone"))
    ]


def test_a_file_without_a_link_marker_has_no_link_findings() -> None:
    assert link_findings("a.md", "no links ]] here [", {}) == []
    assert link_findings("a.md", "`[[in code]]`", {}) == []


# -- dashes -----------------------------------------------------------------------------------


def test_the_first_dash_of_each_line_is_a_warning_naming_it() -> None:
    text = "a \u2014 b \u2013 c\nplain\nx \u2013 y \u2014 z\nonly \u2013\n"
    assert dash_checks("a.md", text) == [
        Finding("a.md", 1, "W03", "warning", w03("em")),
        Finding("a.md", 3, "W03", "warning", w03("en")),
        Finding("a.md", 4, "W03", "warning", w03("en")),
    ]
    assert dash_checks("a.md", "em only \u2014\n") == [
        Finding("a.md", 1, "W03", "warning", w03("em"))
    ]


def test_dashes_on_bibliography_lines_are_allowed_and_no_dash_is_clean() -> None:
    assert dash_checks("a.md", "- [src:AAAAAAAAAA] A \u2014 B\n") == []
    assert dash_checks("a.md", "a - b, c: d\n") == []


# -- reach: E02, W06, W07 ---------------------------------------------------------------------


def test_an_empty_file_is_not_indexed() -> None:
    assert reach_findings(None, "notes/a.md", "") == [Finding("notes/a.md", 0, "E02", "error", E02)]
    assert reach_findings(None, "notes/a.md", "   \n\n") == [
        Finding("notes/a.md", 0, "E02", "error", E02)
    ]


def test_a_file_without_keys_is_found_by_its_own_words() -> None:
    assert reach_findings(None, "notes/backups.md", "# Backups\nrestore from the tape\n") == []


def test_exempt_files_are_never_asked_whether_they_are_reached() -> None:
    for rel in ("README.md", "MAP.md", "inbox/x.md", "records/y.md", "index.md"):
        assert reach_findings("index.md", rel, "") == []
    assert reach_findings("index.md", "other.md", "") == [
        Finding("other.md", 0, "E02", "error", E02)
    ]


def test_one_or_two_keys_are_a_thin_keyword_line_three_are_not() -> None:
    one = reach_findings(None, "a.md", "**Search for:** alpha\n")
    assert one == [Finding("a.md", 0, "W06", "warning", w06("1 term"))]
    two = reach_findings(None, "a.md", "Search for: alpha, beta\n")
    assert two == [Finding("a.md", 0, "W06", "warning", w06("2 terms"))]
    assert reach_findings(None, "a.md", "Search for: alpha, beta, gamma\n") == []


def test_a_key_stopwords_shrink_to_one_word_is_unsearchable() -> None:
    text = "Search for: alpha, nao contestar, beta, gamma\n"
    assert reach_findings(None, "a.md", text) == [
        Finding("a.md", 0, "W07", "warning", w07("unsearchable key: nao contestar"))
    ]
    text = "Search for: nao contestar, of the, alpha beta, delta\n"
    assert reach_findings(None, "a.md", text) == [
        Finding("a.md", 0, "W07", "warning", w07("unsearchable keys: nao contestar, of the"))
    ]


def test_a_thin_line_of_dead_keys_is_warned_both_ways_thin_first() -> None:
    assert reach_findings(None, "a.md", "Search for: of the\n") == [
        Finding("a.md", 0, "W06", "warning", w06("1 term")),
        Finding("a.md", 0, "W07", "warning", w07("unsearchable key: of the")),
    ]


# -- conflict markers -------------------------------------------------------------------------


def test_each_conflict_marker_line_is_an_error() -> None:
    text = "<<<<<<<\tHEAD\nours\n|||||||\n=======\n>>>>>>> b\r\nx\n"
    msg = (
        "merge conflict marker: git left two versions of a passage here, between `<<<<<<<` and "
        "`>>>>>>>`, and a question can be answered from either. Keep the right text, delete the "
        "marker lines and the `=======` between them, then commit"
    )
    assert conflict_findings("a.md", text) == [
        Finding("a.md", 1, "E11", "error", msg),
        Finding("a.md", 3, "E11", "error", msg),
        Finding("a.md", 5, "E11", "error", msg),
    ]


def test_a_marker_run_on_into_a_word_is_not_a_conflict_marker() -> None:
    assert conflict_findings("a.md", ">>>>>>>X\n<<<<<<<X\n|||||||X\n=======\n") == []
    assert conflict_findings("a.md", "plain text\n") == []


# -- note checks ------------------------------------------------------------------------------


def test_notes_are_the_files_under_the_knowledge_folder() -> None:
    assert is_note("knowledge", "knowledge/a.md")
    assert is_note("knowledge", "knowledge/deep/a.md")
    assert not is_note("knowledge", "knowledgebase/a.md")
    assert not is_note("knowledge", "tools/knowledge/a.md")
    assert not is_note(None, "knowledge/a.md")


def test_a_note_without_front_matter_is_not_checked() -> None:
    assert note_findings("k/n.md", "") == []
    assert note_findings("k/n.md", "# N\nSources: a book\n") == []
    assert note_findings("k/n.md", "---\nsource: x\n") == []  # never closed
    assert note_findings("k/n.md", "x\n---\n---\n") == []


def test_empty_front_matter_lacks_provenance_and_stage() -> None:
    assert note_findings("k/n.md", "---\n---\n") == [
        Finding("k/n.md", 1, "W05", "warning", w05("provenance", PROVENANCES)),
        Finding("k/n.md", 1, "W05", "warning", w05("stage", STAGES)),
    ]
    assert note_findings("k/n.md", "  ---  \n---\n")[0].code == "W05"


def test_a_legal_provenance_and_stage_are_clean() -> None:
    for prov in ("human", "agent", "external"):
        for stage in ("raw", "captured", "distilled", "derived"):
            text = f"---\nprovenance: {prov}\nstage: {stage}\n---\n"
            assert note_findings("k/n.md", text) == []


def test_an_illegal_value_is_an_error_naming_the_legal_ones() -> None:
    text = "---\nprovenance: robot\nstage: Raw\n---\n"
    assert note_findings("k/n.md", text) == [
        Finding(
            "k/n.md", 1, "E04", "error", f"provenance is 'robot', which is not one of {PROVENANCES}"
        ),
        Finding("k/n.md", 1, "E04", "error", f"stage is 'Raw', which is not one of {STAGES}"),
    ]


def test_the_first_value_of_a_repeated_field_is_the_one_judged() -> None:
    text = "---\nstage: raw\nprovenance: human\nprovenance: nobody\n---\n"
    assert note_findings("k/n.md", text) == []
    text = "---\nstage: raw\nprovenance: nobody\nprovenance: human\n---\n"
    assert [f.code for f in note_findings("k/n.md", text)] == ["E04"]


def test_a_sourced_note_lacks_each_evidence_field_it_does_not_declare() -> None:
    clean = "provenance: human\nstage: raw\n"
    assert note_findings("k/n.md", f"---\nsource: a book\n{clean}---\n") == [
        Finding("k/n.md", 1, "W04", "warning", w04("evidence_tier")),
        Finding("k/n.md", 1, "W04", "warning", w04("valid_for")),
    ]
    graded = f"---\ntype: article\nvalid_for: 2026\n{clean}---\n"
    assert note_findings("k/n.md", graded) == [
        Finding("k/n.md", 1, "W04", "warning", w04("evidence_tier"))
    ]
    both = f"---\nsource: x\nevidence_tier: A\nvalid_for: 2026\n{clean}---\n"
    assert note_findings("k/n.md", both) == []


def test_evidence_warnings_come_before_provenance_and_stage() -> None:
    assert [f.code for f in note_findings("k/n.md", "---\nsource: x\nstage: bad\n---\n")] == [
        "W04",
        "W04",
        "W05",
        "E04",
    ]


def test_a_citation_or_a_sources_line_makes_a_note_sourced() -> None:
    head = "---\nprovenance: human\nstage: raw\nevidence_tier: A\n---\n"
    for body in (
        "as [src:AAAAAAAAAA] says\n",
        "Sources: a book\n",
        "  sources, two books\n",
        "fontes: um livro\n",
        "FONTES, dois livros\n",
    ):
        assert note_findings("k/n.md", head + body) == [
            Finding("k/n.md", 1, "W04", "warning", w04("valid_for"))
        ], body


def test_what_only_looks_like_a_source_does_not_make_a_note_sourced() -> None:
    head = "---\nprovenance: human\nstage: raw\n---\n"
    for body in (
        "the `[src:AAAAAAAAAA]` syntax\n",  # inside inline code
        "a [src: never closed\n",
        "resources: none\n",
        "sourcesx: none\n",
        "fontesx: nada\n",
        "the sources: none\n",
    ):
        assert note_findings("k/n.md", head + body) == [], body


# -- sources and citations --------------------------------------------------------------------


def test_a_record_succeeds_the_key_it_replaces_the_first_one_winning() -> None:
    a = record(NEW, replaces=KEY)
    b = record(OTHER, replaces=KEY)
    own = record("DDDDDDDDDD", replaces="DDDDDDDDDD")
    plain = record("EEEEEEEEEE")
    assert successors_of([plain, a, own, b]) == {KEY: a}


def test_a_files_bibliography_is_its_lines_of_cited_keys_the_last_one_winning() -> None:
    text = (
        f"# T\n- [src:{KEY}] old\n* [src:{NEW}]  new one \nplain [src:{KEY}]\n"
        f"  - [src:{KEY}] last\n"
    )
    assert bibliography_of(text) == {KEY: (5, "last"), NEW: (3, "new one")}
    assert bibliography_of("no list\n") == {}


def test_a_file_citing_nothing_has_no_citation_findings() -> None:
    assert citation_findings("a.md", "plain\n", {}, {}) == ([], set())
    assert citation_findings("a.md", "`[src:AAAAAAAAAA]`\n", {}, {}) == ([], set())


def test_a_citation_to_an_unknown_key_is_an_error() -> None:
    found, cited = citation_findings("a.md", f"x\nsee [src:{KEY}]\n", {}, {})
    why = f"no sources/{KEY}.txt in this base"
    assert found == [Finding("a.md", 2, "E05", "error", e05(KEY, why))]
    assert cited == set()


def test_a_citation_of_what_is_not_a_key_says_what_a_key_is() -> None:
    found, cited = citation_findings("a.md", "[src:abc]\n", {}, {})
    why = "`abc` is not a key: 10 characters from 23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"
    assert found == [Finding("a.md", 1, "E05", "error", e05("abc", why))]
    assert cited == set()


def test_a_known_key_with_its_bibliography_line_is_clean_and_cited() -> None:
    r = record(KEY)
    text = f"as [src:{KEY}] says\n\n{bib(r)}\n"
    assert citation_findings("a.md", text, {KEY: r}, {}) == ([], {KEY})


def test_a_known_key_without_a_bibliography_line_is_an_error_at_the_citation() -> None:
    r = record(KEY)
    found, cited = citation_findings("a.md", f"x\n\nas [src:{KEY}] says\n", {KEY: r}, {})
    assert found == [Finding("a.md", 3, "E08", "error", e08_missing(r))]
    assert cited == {KEY}


def test_a_drifted_bibliography_line_is_an_error_at_that_line() -> None:
    r = record(KEY)
    text = f"as [src:{KEY}] says\n\n- [src:{KEY}] something else\n"
    found, cited = citation_findings("a.md", text, {KEY: r}, {})
    assert found == [Finding("a.md", 3, "E08", "error", e08_drifted(r))]
    assert cited == {KEY}


def test_a_superseded_key_is_a_warning_at_its_first_citation() -> None:
    old, new = record(KEY, "Old"), record(NEW, "New title", replaces=KEY)
    text = f"x\n[src:{KEY}] once\n[src:{KEY}] twice\n{bib(old)}\n"
    found, cited = citation_findings("a.md", text, {KEY: old, NEW: new}, {KEY: new})
    assert found == [Finding("a.md", 2, "W09", "warning", w09(KEY, NEW, "New title"))]
    assert cited == {KEY}


def test_each_distinct_token_is_judged_once_in_reading_order() -> None:
    old, new = record(KEY, "Old"), record(NEW, "New", replaces=KEY)
    text = f"[src:{OTHER}] [src:{KEY}]\n[src:{OTHER}]\n[src:{KEY}] [src:{NEW}]\n{bib(new)}\n"
    found, cited = citation_findings("a.md", text, {KEY: old, NEW: new}, {KEY: new})
    assert found == [
        Finding("a.md", 1, "E05", "error", e05(OTHER, f"no sources/{OTHER}.txt in this base")),
        Finding("a.md", 1, "W09", "warning", w09(KEY, NEW, "New")),
        Finding("a.md", 1, "E08", "error", e08_missing(old)),
    ]
    assert cited == {KEY, NEW}


def test_a_broken_record_is_an_error_on_its_file() -> None:
    assert record_findings([("sources/x.txt", "line 3: no `=`"), ("sources/y.txt", "empty")]) == [
        Finding("sources/x.txt", 0, "E09", "error", e09("line 3: no `=`")),
        Finding("sources/y.txt", 0, "E09", "error", e09("empty")),
    ]


def test_a_record_no_note_cites_is_an_error_unless_it_was_superseded() -> None:
    old, new, lone = record(KEY), record(NEW, "New", replaces=KEY), record(OTHER, "Lone")
    assert uncited_findings([old, new, lone], {NEW}, {KEY: new}) == [
        Finding(f"sources/{OTHER}.txt", 0, "E06", "error", e06(OTHER, "Lone"))
    ]
    assert uncited_findings([old, new], set(), {KEY: new}) == [
        Finding(f"sources/{NEW}.txt", 0, "E06", "error", e06(NEW, "New"))
    ]
    assert uncited_findings([lone], {OTHER}, {}) == []


# -- the private layer ------------------------------------------------------------------------


def test_the_ignore_file_is_read_literally() -> None:
    text = "# a comment\n/profile/\n//drafts//  # mine\n  \nsub/dir/\n*.log\n!keep\n"
    assert ignored_entries(text) == {"profile", "drafts", "sub/dir", "*.log", "!keep"}
    assert ignored_entries("") == set()


def test_only_slashes_are_stripped_from_an_ignore_entry_and_the_first_hash_cuts() -> None:
    assert ignored_entries("/XboX/\nXray # one # two\n") == {"XboX", "Xray"}


def test_a_private_folder_the_ignore_file_misses_is_a_warning() -> None:
    assert ignore_findings(FOLDERS, "profile\n") == [
        Finding(".gitignore", 0, "W08", "warning", w08("drafts"))
    ]
    assert ignore_findings(FOLDERS, "") == [
        Finding(".gitignore", 0, "W08", "warning", w08("profile")),
        Finding(".gitignore", 0, "W08", "warning", w08("drafts")),
    ]
    assert ignore_findings(FOLDERS, None) == []
    assert ignore_findings(WHOLE, "") == []


def test_a_private_entry_naming_no_folder_is_an_error_per_entry() -> None:
    assert private_findings(("secrets", "notes/x")) == [
        Finding("agent.txt", 0, "E10", "error", e10("secrets")),
        Finding("agent.txt", 0, "E10", "error", e10("notes/x")),
    ]
    assert private_findings(()) == []


def test_a_folder_kept_private_as_a_lookalike_is_a_warning_saying_how() -> None:
    found = lookalike_findings((("records", "Records"), ("records", "r\u0435cords")))
    tail = "; rename the folder, or write in agent.txt what is private as the disk spells it"
    assert found == [
        Finding(
            "agent.txt",
            0,
            "W10",
            "warning",
            "the folder `Records/` is kept private as `records` (the same name in other letter "
            "case)" + tail,
        ),
        Finding(
            "agent.txt",
            0,
            "W10",
            "warning",
            "the folder `r\u0435cords/` is kept private as `records` (drawn like it, in letters "
            "of another script or digits)" + tail,
        ),
    ]


# -- one base ---------------------------------------------------------------------------------


def test_findings_sort_by_file_then_line_then_code() -> None:
    f = Finding("a.md", 2, "W03", "warning", "m")
    assert sort_key(f) == ("a.md", 2, "W03")


def test_a_base_gathers_every_check_sorted() -> None:
    r = record(KEY, "Rec")
    text = f"# N\n{KEYS}[[gone]] \u2014 [src:{KEY}]\n<<<<<<< HEAD\n"
    base = facts(
        ("knowledge/n.md", "---\n---\n" + text),
        ("b.md", "Search for: one\n"),
        records=(r, record(NEW, "Uncited")),
        broken_records=(("sources/bad.txt", "empty"),),
        gitignore="",
        private_unmatched=("nothing",),
        private_lookalikes=(("profile", "Profile"),),
    )
    found = check_base(base)
    assert [(f.file, f.line, f.code) for f in found] == [
        (".gitignore", 0, "W08"),
        (".gitignore", 0, "W08"),
        ("agent.txt", 0, "E10"),
        ("agent.txt", 0, "W10"),
        ("b.md", 0, "W06"),
        ("knowledge/n.md", 1, "W04"),
        ("knowledge/n.md", 1, "W04"),
        ("knowledge/n.md", 1, "W05"),
        ("knowledge/n.md", 1, "W05"),
        ("knowledge/n.md", 5, "E01"),
        ("knowledge/n.md", 5, "E08"),
        ("knowledge/n.md", 5, "W03"),
        ("knowledge/n.md", 6, "E11"),
        ("sources/BBBBBBBBBB.txt", 0, "E06"),
        ("sources/bad.txt", 0, "E09"),
    ]


def test_the_base_map_is_exempt_from_reach_and_notes_only_under_the_knowledge_folder() -> None:
    base = facts(("index.md", ""), ("notes/n.md", "---\n---\n" + KEYS), map_rel="index.md")
    assert check_base(base) == []
    other = facts(("n/n.md", "---\n---\n" + KEYS), knowledge="n")
    assert [f.code for f in check_base(other)] == ["W05", "W05"]


def test_links_resolve_against_every_discovered_file_even_unread_ones() -> None:
    base = facts(("a.md", KEYS + "[[b]] [[c]]\n"), rels=("a.md", "b.md", "x/b.md"))
    assert [(f.code, f.message) for f in check_base(base)] == [
        ("E01", e01("c")),
        ("W01", w01("b", "b.md, x/b.md")),
    ]


def test_a_private_citation_keeps_a_record_from_being_uncited_and_cites_across_files() -> None:
    a, b = record(KEY), record(NEW)
    base = facts(
        ("one.md", KEYS + f"[src:{KEY}]\n{bib(a)}\n"),
        records=(a, b),
        private_citations=frozenset({NEW}),
    )
    assert check_base(base) == []
    public = facts(("one.md", KEYS), ("two.md", KEYS + f"[src:{KEY}]\n{bib(a)}\n"), records=(a,))
    assert check_base(public) == []


def test_hidden_records_make_every_citation_unresolved_and_none_uncited() -> None:
    r = record(KEY)
    layer = PrivateLayer(whole=False, folders=("sources",))
    base = facts(("a.md", KEYS + f"[src:{KEY}]\n{bib(r)}\n"), records=(r,), private=layer)
    assert [(f.code, f.line) for f in check_base(base)] == [("E05", 2)]
    shown = facts(
        ("a.md", KEYS + f"[src:{KEY}]\n{bib(r)}\n"),
        records=(r,),
        private=layer,
        include_private=True,
    )
    assert check_base(shown) == []


def test_a_superseded_record_cited_through_check_base_is_w09_and_never_e06() -> None:
    old, new = record(KEY, "Old"), record(NEW, "New", replaces=KEY)
    base = facts(("a.md", KEYS + f"[src:{KEY}]\n{bib(old)}\n"), records=(old, new))
    assert [(f.file, f.code) for f in check_base(base)] == [
        ("a.md", "W09"),
        (f"sources/{NEW}.txt", "E06"),
    ]


# -- the cross-base hint ----------------------------------------------------------------------


def test_ascii_fold_lowers_only_ascii_letters() -> None:
    assert ascii_fold("AbC-\u00c9\u00e9Z9") == "abc-\u00c9\u00e9z9"


def test_the_link_target_is_between_the_first_brackets() -> None:
    assert link_target("[[a]] then [[b]]") == "a"
    assert link_target("broken link [[My Note]]: this base has no My Note.md") == "My Note"
    assert link_target("[[]]") == ""
    assert link_target("[[a]") is None
    assert link_target("no link") is None
    assert link_target("x [[a") is None
    assert link_target("]] before [[a]]") == "a"  # the `]]` after the `[[`, not the first one


def test_folded_stems_are_the_lowered_file_names() -> None:
    assert folded_stems(["A/Note.md", "b.MD", "c/D.txt.md"]) == frozenset({"note", "b", "d.txt"})
    assert fleet_stems([("one", ["X.md"]), ("two", [])]) == [
        ("one", frozenset({"x"})),
        ("two", frozenset()),
    ]


def test_a_broken_link_to_a_note_of_another_base_names_the_first_such_base() -> None:
    e = Finding("a.md", 4, "E01", "error", e01("Notes"))
    stems = [
        ("home", frozenset({"notes"})),
        ("one", frozenset({"x"})),
        ("two", frozenset({"notes"})),
    ]
    stems.append(("three", frozenset({"notes"})))
    assert with_cross_base_hint([e], "home", stems) == [
        Finding("a.md", 4, "E01", "error", hint("Notes", "two"))
    ]
    assert with_cross_base_hint([e], "home", stems[:2]) == [e]


def test_only_e01_gets_the_hint_and_everything_else_passes_in_order() -> None:
    w = Finding("a.md", 1, "W01", "warning", "ambiguous link [[notes]] matches a, b")
    e = Finding("b.md", 2, "E01", "error", e01("notes"))
    d = Finding("c.md", 3, "W03", "warning", w03("em"))
    stems = [("two", frozenset({"notes"}))]
    assert with_cross_base_hint([w, e, d], "home", stems) == [
        w,
        Finding("b.md", 2, "E01", "error", hint("notes", "two")),
        d,
    ]


# -- the report -------------------------------------------------------------------------------


def test_findings_group_by_file_code_and_message_ordered_by_first_line() -> None:
    found = [
        Finding("b.md", 9, "W03", "warning", "m"),
        Finding("a.md", 7, "W03", "warning", "m"),
        Finding("a.md", 2, "W03", "warning", "m"),
        Finding("a.md", 5, "E01", "error", "x"),
        Finding("a.md", 5, "E01", "error", "y"),
        Finding("a.md", 0, "W06", "warning", "m"),
        Finding("a.md", 2, "E01", "error", "m"),
    ]
    assert group_findings(found) == [
        Group("a.md", "W06", "warning", "m", (0,)),
        Group("a.md", "E01", "error", "m", (2,)),
        Group("a.md", "W03", "warning", "m", (2, 7)),
        Group("a.md", "E01", "error", "x", (5,)),
        Group("a.md", "E01", "error", "y", (5,)),
        Group("b.md", "W03", "warning", "m", (9,)),
    ]
    assert group_findings([]) == []


def test_a_group_line_pads_its_place_and_names_its_level() -> None:
    assert PLACE_WIDTH == 46 and LINES_SHOWN == 3
    err = group_line(Group("a.md", "E02", "error", "msg", (0,)))
    assert err == "error E02  " + "a.md".ljust(46) + " msg"
    warn = group_line(Group("a.md", "W03", "warning", "msg", (12,)))
    assert warn == "warn  W03  " + "a.md:12".ljust(46) + " msg"
    long = "d/" * 30 + "x.md"
    assert group_line(Group(long, "E01", "error", "m", (3,))) == f"error E01  {long}:3 m"


def test_a_repeated_finding_lists_three_more_lines_and_counts_the_rest() -> None:
    place = "a.md:1".ljust(46)
    assert group_line(Group("a.md", "W03", "warning", "m", (1, 4))) == (
        f"warn  W03  {place} m  (2 times, also on 4)"
    )
    assert group_line(Group("a.md", "W03", "warning", "m", (1, 4, 5, 6))) == (
        f"warn  W03  {place} m  (4 times, also on 4, 5, 6)"
    )
    assert group_line(Group("a.md", "W03", "warning", "m", (1, 4, 5, 6, 8))) == (
        f"warn  W03  {place} m  (5 times, also on 4, 5, 6, and 1 more)"
    )
    assert group_line(Group("a.md", "W03", "warning", "m", (1, 2, 3, 4, 5, 6, 7))) == (
        f"warn  W03  {place} m  (7 times, also on 2, 3, 4, and 3 more)"
    )
    zero = "a.md".ljust(46)
    assert group_line(Group("a.md", "E06", "error", "m", (0, 0))) == (
        f"error E06  {zero} m  (2 times, also on 0)"
    )


def test_counts_are_errors_then_warnings() -> None:
    found = [
        Finding("a", 1, "E01", "error", "m"),
        Finding("a", 1, "W01", "warning", "m"),
        Finding("a", 2, "W01", "warning", "m"),
    ]
    assert counts(found) == (1, 2)
    assert counts([]) == (0, 0)


def test_a_clean_base_reports_its_public_files_and_no_map() -> None:
    base = facts(("a.md", KEYS), ("b.md", KEYS))
    assert base_report(base, []) == "home  (2 public files, map: none)\n  clean\n"
    one = facts(("a.md", KEYS), map_rel="MAP.md", label="x")
    assert base_report(one, []) == "x  (1 public file, map: MAP.md)\n  clean\n"


def test_a_report_with_the_private_layer_says_so() -> None:
    base = facts(("a.md", KEYS), include_private=True)
    assert base_report(base, []) == ("home  (1 file, private layer included, map: none)\n  clean\n")
    two = facts(("a.md", KEYS), ("b.md", KEYS), include_private=True)
    assert (
        base_report(two, []).splitlines()[0] == "home  (2 files, private layer included, map: none)"
    )


def test_a_report_lists_skipped_files_then_groups_then_counts_agreeing_with_their_nouns() -> None:
    base = facts(("a.md", KEYS), skipped=(("bad.md", "not UTF-8"), ("big.md", "too large")))
    found = [
        Finding("a.md", 3, "W03", "warning", "m"),
        Finding("a.md", 1, "E01", "error", "x"),
    ]
    assert base_report(base, found) == (
        "home  (1 public file, map: none)\n"
        "  skipped  bad.md: not UTF-8\n"
        "  skipped  big.md: too large\n"
        f"  error E01  {'a.md:1'.ljust(46)} x\n"
        f"  warn  W03  {'a.md:3'.ljust(46)} m\n"
        "  1 error, 1 warning\n"
    )
    more = [*found, Finding("a.md", 4, "W03", "warning", "m"), Finding("b", 0, "E", "error", "y")]
    assert base_report(base, more).endswith("  2 errors, 2 warnings\n")
    skipped_only = base_report(base, [])
    assert skipped_only.endswith("  skipped  big.md: too large\n  clean\n")


def test_the_json_report_holds_every_finding_sorted_and_the_counts() -> None:
    base = facts(
        ("a.md", KEYS),
        ("b.md", KEYS),
        map_rel="MAP.md",
        skipped=(("bad.md", "not UTF-8"),),
    )
    found = [
        Finding("b.md", 1, "W03", "warning", "m"),
        Finding("a.md", 2, "E01", "error", "x"),
        Finding("a.md", 2, "E01", "error", "x"),
    ]
    assert base_data(base, found) == {
        "base": "home",
        "errors": 2,
        "files": 2,
        "findings": [
            {"code": "E01", "file": "a.md", "level": "error", "line": 2, "message": "x"},
            {"code": "E01", "file": "a.md", "level": "error", "line": 2, "message": "x"},
            {"code": "W03", "file": "b.md", "level": "warning", "line": 1, "message": "m"},
        ],
        "map": "MAP.md",
        "private_included": False,
        "skipped": [{"path": "bad.md", "reason": "not UTF-8"}],
        "warnings": 1,
    }
    shown = base_data(facts(include_private=True), [])
    assert shown["private_included"] is True and shown["map"] is None
    assert shown["findings"] == [] and shown["files"] == 0


# -- the fleet --------------------------------------------------------------------------------


def test_an_unreadable_base_is_one_error_on_stderr() -> None:
    judged = judge_base(Unreadable("/x/base", "cannot read /x/base: gone"), [])
    assert judged == BaseCheck(
        "",
        "kb: cannot read /x/base: gone\n",
        1,
        0,
        {"base": "/x/base", "error": "cannot read /x/base: gone", "errors": 1, "warnings": 0},
    )


def test_a_judged_base_is_its_report_counts_and_data_with_the_hint_applied() -> None:
    base = facts(("a.md", KEYS + "[[elsewhere]] \u2013\n"))
    stems = [("home", frozenset({"elsewhere"})), ("far", frozenset({"elsewhere"}))]
    judged = judge_base(base, stems)
    msg = hint("elsewhere", "far")
    assert judged.stdout == (
        "home  (1 public file, map: none)\n"
        f"  error E01  {'a.md:2'.ljust(46)} {msg}\n"
        f"  warn  W03  {'a.md:2'.ljust(46)} {w03('en')}\n"
        "  1 error, 1 warning\n"
    )
    assert (judged.stderr, judged.errors, judged.warnings) == ("", 1, 1)
    assert judged.data is not None
    assert judged.data["findings"] == [
        {"code": "E01", "file": "a.md", "level": "error", "line": 2, "message": msg},
        {"code": "W03", "file": "a.md", "level": "warning", "line": 2, "message": w03("en")},
    ]
    assert (judged.data["errors"], judged.data["warnings"]) == (1, 1)


def test_a_fleet_is_its_reports_in_order_a_blank_line_between_and_the_sums() -> None:
    one = BaseCheck("one\n", "", 1, 2, {"base": "one"})
    bad = BaseCheck("", "kb: cannot read b\n", 1, 0, None)
    two = BaseCheck("two\n", "kb: x\n", 0, 3, {"base": "two"})
    fleet = fleet_check(iter([one, bad, two]))
    assert fleet == FleetCheck(
        "one\n\n\ntwo\n", "kb: cannot read b\nkb: x\n", 2, 5, ({"base": "one"}, {"base": "two"})
    )
    assert fleet_check([]) == FleetCheck("", "", 0, 0, ())
    assert fleet_check([two]).stdout == "two\n"


def test_the_exit_code_is_one_for_errors_or_for_warnings_when_strict() -> None:
    assert FleetCheck("", "", 1, 0).exit_code(strict=False) == 1
    assert FleetCheck("", "", 0, 1).exit_code(strict=False) == 0
    assert FleetCheck("", "", 0, 1).exit_code(strict=True) == 1
    assert FleetCheck("", "", 0, 0).exit_code(strict=True) == 0
    assert FleetCheck("", "", 2, 3).exit_code(strict=True) == 1


def test_a_fleet_check_hints_across_readable_bases_and_counts_the_unreadable() -> None:
    home = facts(("a.md", KEYS + "[[Other]]\n"))
    far = facts(("other.md", KEYS), label="far")
    gone = Unreadable("/gone", "cannot read /gone: no such folder")
    fleet = check_fleet([home, gone, far])
    assert fleet.stdout == (
        "home  (1 public file, map: none)\n"
        f"  error E01  {'a.md:2'.ljust(46)} {hint('Other', 'far')}\n"
        "  1 error, 0 warnings\n"
        "\n"  # before the unreadable base too (docs/verbs/check.md, as the original did)
        "\n"
        "far  (1 public file, map: none)\n"
        "  clean\n"
    )
    assert fleet.stderr == "kb: cannot read /gone: no such folder\n"
    assert (fleet.errors, fleet.warnings, fleet.exit_code(strict=False)) == (2, 0, 1)
    assert [b["base"] for b in fleet.bases] == ["home", "/gone", "far"]
