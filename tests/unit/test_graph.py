"""kb.pure.writing.graph, kb.pure.render.graphrender and kb.pure.fleet.httpguard on hand-made
values: the corners the fixture fleet does not reach."""

from __future__ import annotations

import pytest
from returns.result import Failure, Success

from kb.pure.fleet.httpguard import origin_allowed, refusal, token_matches
from kb.pure.render.graphrender import dot, mermaid
from kb.pure.writing.graph import (
    BaseNames,
    Edge,
    Graph,
    GraphBuilder,
    Note,
    View,
    Written,
    around_key,
    around_note,
    build,
    find_note,
    fold_keys,
    overview,
    path_links,
    resolve_path,
)


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ("[a](b.md)", ["b.md"]),
        ("[a](<with space.md>)", ["with space.md"]),
        ("[a](x%20y.md#part)", ["x y.md"]),
        ('[a](b.md "a title")', ["b.md"]),
        ("[a](b.md?x=1)", ["b.md"]),
        ("[a](B.MD)", ["B.MD"]),
        ("[a](https://example.com/b.md)", []),
        ("[a](mailto:x.md)", []),
        ("[a](/etc/b.md)", []),
        ("[a](#anchor)", []),
        ("[a](picture.png)", []),
        ("`[a](b.md)` and [c](d.md)", ["d.md"]),
        ("[a](b.md", []),
        ("[a](%zz.md)", ["%zz.md"]),
        # escapes in either case, and bytes that are no UTF-8 kept as a replacement
        ("[a](caf%C3%A9.md) [b](caf%c3%a9.md)", ["café.md", "café.md"]),
        ("[a](%FF.md)", ["\ufffd.md"]),
        # the first `>` closes, the first `#` or `?` cuts, the first segment holds a scheme
        ("[a](<b.md>c.md>)", ["b.md"]),
        ("[a](<b.mdx)", []),
        ("[a](b.md#x#y) [c](d.md?x?y)", ["b.md", "d.md"]),
        ("[a](x/a:b/c.md)", ["x/a:b/c.md"]),
        # a text with inline code: `](` opens the piece after the code; a `)` in the text
        # is not the end of the destination; an empty destination ends at once
        ("[a`b`](c.md)", ["c.md"]),
        ("[a)](b.md)", ["b.md"]),
        ("[a]()b.md)", []),
        ("[a](%XX.md)", ["%XX.md"]),
        ("[a](b.md)](c.md)", ["b.md", "c.md"]),
    ],
)
def test_path_links(text: str, targets: list[str]) -> None:
    assert [t for _, t in path_links(text)] == targets


def test_path_links_skip_fences() -> None:
    assert path_links("```\n[a](b.md)\n```\n[c](d.md)\n") == [(4, "d.md")]


@pytest.mark.parametrize(
    ("linking", "target", "rel"),
    [
        ("knowledge/a.md", "b.md", "knowledge/b.md"),
        ("knowledge/a.md", "./b.md", "knowledge/b.md"),
        ("knowledge/a.md", "../MAP.md", "MAP.md"),
        ("knowledge/deep/a.md", "../../tools/t.md", "tools/t.md"),
        ("a.md", "../other/b.md", None),
        ("knowledge/a.md", "../../other/b.md", None),
    ],
)
def test_resolve_path(linking: str, target: str, rel: str | None) -> None:
    assert resolve_path(linking, target) == rel


def test_links_never_leave_their_group() -> None:
    a = [(Note("one", "x.md"), "[[y]] [t](../two/y.md)")]
    b = [(Note("two", "y.md"), "[[x]]")]
    graph = build([a, b])
    assert graph.edges == ()
    assert graph.unresolved == 3


def test_several_links_are_one_edge_with_every_kind() -> None:
    graph = build([[(Note("b", "x.md"), "[[y]] [y](y.md) [[y]]"), (Note("b", "y.md"), "")]])
    assert graph.edges == (Edge("b/x.md", "b/y.md", ("path", "wiki")),)


def test_find_note_readings() -> None:
    notes = [Note("a", "k/x.md"), Note("b", "k/x.md"), Note("a", "y.md"), Note("b", "t/y.md")]
    assert find_note(notes, "a/k/x.md") == Success(notes[0])
    assert find_note(notes, "a/k/x") == Success(notes[0])
    assert find_note(notes, "k/x.md") == Failure(("a/k/x.md", "b/k/x.md"))
    assert find_note(notes, "y") == Failure(("a/y.md", "b/t/y.md"))
    assert find_note(notes, "y.md") == Failure(("a/y.md", "b/t/y.md"))  # a name, in any folder
    assert find_note(notes, "a/y") == Success(notes[2])
    assert find_note(notes, "nothing") == Failure(())
    assert find_note(notes, "  ") == Failure(())


def test_keys_fold() -> None:
    assert fold_keys(["Backup", " backup ", "Point  in Time", ""]) == ("backup", "point in time")
    graph = Graph((Note("b", "x.md", keys=("backup",)),), (), 0)
    assert isinstance(around_key(graph, "BACKUP", 5), Success)
    assert around_key(graph, "tape", 5) == Failure("tape")


def test_an_id_reading_comes_before_a_path_reading() -> None:
    """`a/y` is the note `y.md` of base `a` before it is the path `a/y.md` of another base."""
    notes = [Note("b", "a/y.md"), Note("a", "y.md")]
    assert find_note(notes, "a/y") == Success(notes[1])


def test_a_path_written_with_an_empty_segment_names_the_same_note() -> None:
    assert resolve_path("knowledge/a.md", "x//b.md") == "knowledge/x/b.md"


def test_links_to_no_note_are_counted_unresolved_in_every_base() -> None:
    one = [(Note("a", "x.md"), "[gone](missing.md) and [[nowhere]]")]
    two = [(Note("b", "y.md"), "[gone](missing.md)")]
    graph = build([one, two])
    assert graph.edges == ()
    assert graph.unresolved == 3


def test_two_bases_of_one_name_join_the_kinds_of_a_link_both_write() -> None:
    first = [(Note("a", "x.md"), "[[y]]"), (Note("a", "y.md"), "")]
    second = [(Note("a", "x.md"), "[y](y.md)"), (Note("a", "y.md"), "")]
    assert build([first, second]).edges == (Edge("a/x.md", "a/y.md", ("path", "wiki")),)


def test_around_a_note_a_linked_note_sharing_a_key_comes_before_one_sharing_none() -> None:
    graph = build(
        [
            [
                (Note("b", "focus.md", keys=("harbor",)), "[[a]] [[z]]"),
                (Note("b", "a.md"), ""),
                (Note("b", "z.md", keys=("harbor",)), ""),
            ]
        ]
    )
    focus = graph.notes[1]
    assert focus.rel == "focus.md"
    view = around_note(graph, focus, 1)
    assert [n.rel for n in view.notes] == ["focus.md", "z.md"]


def test_around_a_note_its_link_neighbours_come_before_notes_sharing_a_key() -> None:
    graph = build(
        [
            [
                (Note("b", "focus.md", keys=("harbor",)), "[[z]]"),
                (Note("b", "a.md", keys=("harbor",)), ""),
                (Note("b", "z.md"), ""),
            ]
        ]
    )
    focus = next(n for n in graph.notes if n.rel == "focus.md")
    assert [n.rel for n in around_note(graph, focus, 1).notes] == ["focus.md", "z.md"]


def test_builders_merged_keep_both_kinds_and_both_counts_of_unresolved_links() -> None:
    names = BaseNames({"x.md": "a/x.md", "y.md": "a/y.md"})
    first, second = GraphBuilder(), GraphBuilder()
    first.add(names, Note("a", "x.md"), Written(wiki=("y", "gone")))
    second.add(names, Note("a", "x.md"), Written(paths=("y.md", "gone.md")))
    first.merge(second)
    graph = first.graph()
    assert graph.edges == (Edge("a/x.md", "a/y.md", ("path", "wiki")),)
    assert graph.unresolved == 2


def test_the_keys_shown_are_the_most_declared_among_the_kept_notes() -> None:
    """Three kept notes, four keys each two or three of them declare, and room for three:
    the key all three declare is shown, and of the rest the first two by name."""
    graph = Graph(
        (
            Note("b", "a.md", keys=("all", "ab", "ac")),
            Note("b", "b.md", keys=("all", "ab", "bc")),
            Note("b", "c.md", keys=("ac", "all", "bc")),
        ),
        (),
        0,
    )
    view = overview(graph, 3)
    assert [(k.key, len(k.notes)) for k in view.keys] == [("ab", 2), ("ac", 2), ("all", 3)]
    assert view.omitted_keys == 1


HOSTILE = 'a "quoted" #1 <b> & `tick`\nnext \\ end'


def test_labels_cannot_break_out() -> None:
    view = View((Note("b", HOSTILE + ".md"),), (), (), 0, 0)
    m = mermaid(view)
    assert m.splitlines()[1] == (
        '  n0["b/a #34;quoted#34; #35;1 #60;b#62; #38; #96;tick#96; next \\ end.md"]'
    )
    d = dot(view)
    assert '  n0 [label="b/a \\"quoted\\" #1 <b> & `tick` next \\\\ end.md"];' in d.splitlines()


@pytest.mark.parametrize(
    ("origin", "ok"),
    [
        (None, True),
        ("http://localhost", True),
        ("http://localhost:3000", True),
        ("https://127.0.0.1:8443", True),
        ("HTTP://LOCALHOST:1", True),
        ("http://localhost.evil.com", False),
        ("http://evil.com", False),
        ("http://127.0.0.1.nip.io", False),
        ("http://localhost:3000/path", False),
        ("http://localhost:", False),
        ("null", False),
        ("file://", False),
        ("ws://localhost", False),
        ("", False),
    ],
)
def test_origin(origin: str | None, ok: bool) -> None:
    assert origin_allowed(origin) is ok


def test_token_and_order() -> None:
    assert token_matches("Bearer s3cret", "s3cret")
    assert token_matches("bearer s3cret", "s3cret")
    assert not token_matches("Bearer s3cret ", "s3cret")
    assert not token_matches("Basic s3cret", "s3cret")
    assert not token_matches(None, "s3cret")
    assert not token_matches("Bearer ", "")
    assert refusal(None, "Bearer t", "t") is None
    wrong_origin = refusal("http://evil.com", "Bearer t", "t")
    assert wrong_origin is not None and wrong_origin.status == 403
    no_token = refusal("http://localhost:1", None, "t")
    assert no_token is not None and no_token.status == 401
    both = refusal("http://evil.com", None, "t")  # the origin is refused before the token
    assert both is not None and both.status == 403
