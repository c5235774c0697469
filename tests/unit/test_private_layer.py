"""The private layer's rules, each stated as the rule it protects (issue 25): what a
`private =` line covers, what the default covers, and that the fast per-walk test agrees
with the rule everywhere."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.notes.manifest import (
    DEFAULT_PRIVATE_FOLDERS,
    Manifest,
    PrivateLayer,
    fail_closed,
    parse_aliases,
    parse_manifest,
    private_entry,
    private_layer,
    unmatched_private_message,
)

# names with a space among them: a path is split at `/` only
folder = st.sampled_from(
    ["records", "notes", "notes/diary", "a/b/c", "projects", "x", "my notes", "my notes/x y"]
)
path_part = st.sampled_from(
    ["records", "notes", "diary", "a", "b", "c", "x", "note.md", "z.md", "my notes", "x y", "my"]
)
paths = st.lists(path_part, min_size=1, max_size=5).map("/".join)


def test_a_nested_private_folder_covers_every_file_under_it() -> None:
    layer = private_layer("private = notes/diary\n", "ada")
    for rel in ("notes/diary/a.md", "notes/diary/deep/er/b.md", "notes/diary"):
        assert layer.covers(rel), rel
        assert layer.cover_test()(rel), rel
    for rel in ("notes/a.md", "notes/diaryx/a.md", "notes/dia/a.md", "diary/a.md"):
        assert not layer.covers(rel), rel
        assert not layer.cover_test()(rel), rel


def test_a_top_folder_covers_its_files_and_nothing_beside_it() -> None:
    layer = private_layer("private = records\n", "ada")
    assert layer.covers("records/a.md") and layer.covers("records/x/y.md")
    assert not layer.covers("recordsx/a.md") and not layer.covers("knowledge/records.md")
    assert not layer.covers("knowledge/records/a.md")


def test_a_folder_whose_name_has_a_space_covers_its_files() -> None:
    layer = private_layer("private = my notes\n", "ada")
    assert layer.covers("my notes/a.md") and layer.covers("My Notes/deep/b c.md")
    assert not layer.covers("my/notes.md") and not layer.covers("my notes.md")


def test_the_default_layer_is_records_profile_projects_and_person_is_whole() -> None:
    assert set(DEFAULT_PRIVATE_FOLDERS) == {"records", "profile", "projects"}
    default = private_layer(None, "ada")
    assert not default.whole and not default.declared
    assert all(default.covers(f"{f}/a.md") for f in DEFAULT_PRIVATE_FOLDERS)
    assert not default.covers("knowledge/a.md")
    for name in ("person", "Person", "PERSON"):
        whole = private_layer(None, name)
        assert whole.whole and whole.covers("knowledge/a.md") and whole.cover_test()("x.md")
    # a declaration beats the default, even an empty one
    assert not private_layer("private =\n", "person").whole
    assert not private_layer("private =\n", "ada").covers("records/a.md")
    assert private_layer("private = .\n", "ada").whole
    assert private_layer("name = x\nprivate = drafts\nprivate = records\n", "ada").folders == (
        "drafts",
    )


def test_every_spelling_of_an_entry_names_the_same_folder() -> None:
    for raw in ("records", "records/", "./records", "/records", "records/*", "records/**"):
        assert private_entry(raw) == "records", raw
    for raw in (".", "./", "/", "*", "**"):
        assert private_entry(raw) == ".", raw
    assert private_entry("") == "" and private_entry("   ") == ""
    assert private_entry("notes/diary/") == "notes/diary"
    layer = private_layer("private = records/, ./drafts, records\n", "ada")
    assert layer.folders == ("records", "drafts") and layer.declared


def test_a_mistyped_declaration_keeps_the_default_folders_private() -> None:
    layer = private_layer("private = Recrods\n", "ada")
    closed = fail_closed(layer, ("Recrods",))
    assert all(closed.covers(f"{f}/a.md") for f in DEFAULT_PRIVATE_FOLDERS)
    assert closed.covers("Recrods/a.md")
    assert fail_closed(layer, ()) == layer
    whole = PrivateLayer(whole=True, folders=())
    assert fail_closed(whole, ("x",)) == whole


@settings(max_examples=300, deadline=None)
@given(st.lists(folder, max_size=4), st.booleans(), paths)
def test_the_per_walk_test_agrees_with_the_rule(folders: list[str], whole: bool, rel: str) -> None:
    layer = PrivateLayer(whole=whole, folders=tuple(folders))
    assert layer.cover_test()(rel) == layer.covers(rel)
    kept = PrivateLayer(whole=False, folders=tuple(folders[:1]), kept=tuple(folders[1:]))
    assert kept.cover_test()(rel) == kept.covers(rel)


@settings(max_examples=300, deadline=None)
@given(folder, paths)
def test_a_declared_folder_covers_exactly_the_paths_inside_it(declared: str, rel: str) -> None:
    layer = PrivateLayer(whole=False, folders=(declared,))
    inside = rel == declared or rel.startswith(declared + "/")
    assert layer.covers(rel) == inside


# -- the line syntax the layer is declared in -----------------------------------------------


def test_a_manifest_line_is_key_equals_value_with_comments_anywhere() -> None:
    text = (
        "# a comment\n"
        "name = Ada  # trailing comment\n"
        "role = builds # the rest # is comment\n"
        "url = a=b=c\n"
        "empty =\n"
        "not a declaration\n"
        "  attach = ../one  \n"
        "attach=../two\n"
    )
    m = parse_manifest(text)
    assert m.pairs == (
        ("name", "Ada"),
        ("role", "builds"),
        ("url", "a=b=c"),
        ("attach", "../one"),
        ("attach", "../two"),
    )
    assert m.first("name") == "Ada" and m.first("attach") == "../one"
    assert m.first("missing") is None
    assert m.every("attach") == ("../one", "../two") and m.every("missing") == ()
    assert Manifest().first("name") is None


def test_alias_lines_need_both_sides() -> None:
    text = "k8s = kubernetes\n= orphan\nlonely =\n db = database # note\n"
    assert parse_aliases(text) == (("k8s", "kubernetes"), ("db", "database"))


def test_the_whole_base_and_folder_declarations_say_what_they_are() -> None:
    whole = private_layer("private = .\n", "ada")
    assert (whole.whole, whole.folders, whole.declared) == (True, (), True)
    folders = private_layer("private = records\n", "ada")
    assert (folders.whole, folders.declared) == (False, True)
    person = private_layer(None, "person")
    assert (person.whole, person.folders, person.declared) == (True, (), False)
    default = private_layer(None, "ada")
    assert (default.whole, default.folders) == (False, DEFAULT_PRIVATE_FOLDERS)


def test_a_failed_closed_layer_is_still_the_declared_folders_plus_the_defaults() -> None:
    layer = private_layer("private = Recrods, notes\n", "ada")
    closed = fail_closed(layer, ("Recrods",))
    assert (closed.whole, closed.folders, closed.declared) == (False, ("Recrods", "notes"), True)
    assert set(closed.kept) == set(DEFAULT_PRIVATE_FOLDERS)


def test_slashes_and_globs_around_an_entry_all_go() -> None:
    assert private_entry("records/**/") == "records"
    assert private_entry("records//**") == "records"
    assert private_entry("  ./records/*  ") == "records"
    assert private_entry("./") == "."


def test_an_unmatched_declaration_is_named_with_what_stays_private() -> None:
    assert unmatched_private_message("ada", ()) is None
    message = unmatched_private_message("ada", ("Recrods", "secret"))
    assert message == (
        "ada/agent.txt: private `Recrods`, `secret` names no folder in this base, so "
        "profile, projects, records stay private as well; write each private folder as the "
        "base spells it, relative to the base (`records`, `notes/secret`), or `.` for the "
        "whole base"
    )


def test_only_slashes_are_stripped_from_the_ends_of_an_entry() -> None:
    # A folder whose name starts or ends in letters a careless strip might eat.
    assert private_entry("/XXfiles/") == "XXfiles"
    assert private_entry("XX/") == "XX"
    assert private_entry("./XX/**") == "XX"


def test_look_alikes_are_found_at_the_declared_depth_and_named_once_in_order() -> None:
    layer = PrivateLayer(whole=False, folders=("notes/diary",), declared=True)
    rels = ["notes/Diary/a.md", "notes/Diary/b.md", "notes/diary/c.md", "notes", "Notes/DIARY/x.md"]
    assert layer.lookalikes(rels) == (
        ("notes/diary", "Notes/DIARY"),
        ("notes/diary", "notes/Diary"),
    )
    # A path shorter than the declared folder cannot be inside it.
    assert layer.lookalikes(["notes"]) == ()


def test_look_alikes_of_kept_default_folders_are_named_and_a_whole_base_has_none() -> None:
    mistyped = PrivateLayer(whole=False, folders=("Recrods",), declared=True)
    closed = fail_closed(mistyped, ("Recrods",))
    assert ("records", "RECORDS") in closed.lookalikes(["RECORDS/x.md"])
    assert PrivateLayer(whole=True, folders=()).lookalikes(["RECORDS/x.md"]) == ()
