"""The safe reader's judgement (kb.pure.notes.reading), rule by rule, on what a descriptor holds
(issue 25: each rule stated by a test that fails when the rule does)."""

from __future__ import annotations

from kb.pure.notes import reading
from kb.pure.notes.manifest import PrivateLayer
from kb.pure.notes.reading import Held, Walked, refusal, relative_inside

LAYER = PrivateLayer(whole=False, folders=("records",))
NONE: frozenset[tuple[int, int]] = frozenset()


def _held(rel: str | None = "knowledge/note.md", nlink: int = 1, regular: bool = True) -> Held:
    return Held(regular=regular, dev=1, ino=10, nlink=nlink, real_rel=rel)


def test_the_rules_refuse_in_order_and_all_reads_only_a_regular_file_inside_the_base() -> None:
    assert refusal(None, _held(regular=False), LAYER, True, NONE) == reading.NOT_A_FILE
    assert refusal(None, _held(None), LAYER, True, NONE) == reading.OUTSIDE
    assert refusal(None, _held("records/x.md"), LAYER, True, frozenset({(1, 10)})) is None
    assert refusal(None, _held("records/x.md"), LAYER, False, NONE) == reading.PRIVATE_NOW
    assert refusal(None, _held(), LAYER, False, frozenset({(1, 10)})) == reading.PRIVATE_TWIN


def test_a_file_with_one_name_is_read_whether_or_not_the_walk_found_it_so() -> None:
    # an editor's save writes a new file and renames it over the old: a new inode, one name
    assert refusal(None, _held(nlink=1), LAYER, False, NONE) is None
    assert refusal(Walked(1, 99, linked=False), _held(nlink=1), LAYER, False, NONE) is None


def test_a_file_with_other_names_is_read_only_as_the_file_the_walk_found_under_this_name() -> None:
    assert refusal(Walked(1, 10, linked=False), _held(nlink=2), LAYER, False, NONE) is None
    assert refusal(Walked(1, 99, linked=False), _held(nlink=2), LAYER, False, NONE) == (
        reading.NEW_LINK
    )
    assert refusal(Walked(2, 10, linked=False), _held(nlink=2), LAYER, False, NONE) == (
        reading.NEW_LINK
    )
    assert refusal(None, _held(nlink=2), LAYER, False, NONE) == reading.NEW_LINK


def test_a_real_path_is_relative_to_the_real_root_with_slashes_between_segments() -> None:
    assert relative_inside("/r/a/b.md", "/r") == "a/b.md"
    assert relative_inside("/r/a/b.md", "/r/") == "a/b.md"  # a root given with its separator
    assert relative_inside("C:\\r\\a\\b.md", "C:\\r", "\\") == "a/b.md"
    assert relative_inside("C:\\r\\a\\b.md", "C:\\r\\", "\\") == "a/b.md"


def test_the_root_itself_and_a_sibling_sharing_its_prefix_are_not_inside() -> None:
    assert relative_inside("/r", "/r") is None
    assert relative_inside("/rx/a.md", "/r") is None
    assert relative_inside("/elsewhere/a.md", "/r") is None
    assert relative_inside("C:\\rx\\a.md", "C:\\r", "\\") is None
