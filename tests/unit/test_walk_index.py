"""kb.io.notes.walk.WalkIndex: what the walk found by name, as kb.io.notes.safe_read asks it."""

from __future__ import annotations

from kb.io.notes.walk import Raw, WalkIndex, discover


def _raw(
    rel: str,
    problem: str | None = None,
    dev: int = 7,
    ino: int = 1,
    nlink: int = 1,
    link: bool = False,
) -> Raw:
    return (rel, 10, 20, problem, rel, dev, ino, nlink, link)


def test_found_gives_device_inode_link_and_problem_by_name() -> None:
    big = 2**64 - 1  # st_dev and st_ino are unsigned 64-bit values
    index = WalkIndex.of(
        [
            _raw("a.md", ino=big, dev=big),
            _raw("b.md", problem="too large", ino=2),
            _raw("c.md", ino=3, link=True),
        ]
    )
    assert index.found("a.md") == (big, big, False, None)
    assert index.found("b.md") == (7, 2, False, "too large")
    assert index.found("c.md") == (7, 3, True, None)
    assert index.found("d.md") is None
    assert index.found("") is None
    assert not index.alone  # a link


def test_a_name_found_twice_answers_as_its_first_record() -> None:
    # two refused names that render alike sort after the readable one of the same name
    index = WalkIndex.of([_raw("x.md", ino=1), _raw("x.md", problem="bad name", ino=2)])
    assert index.found("x.md") == (7, 1, False, None)


def test_alone_only_without_links_and_other_names() -> None:
    assert WalkIndex.of([_raw("a.md"), _raw("b.md", ino=2)]).alone
    assert not WalkIndex.of([_raw("a.md", nlink=2)]).alone
    assert WalkIndex.of([]).alone


def test_a_walk_keeps_every_name_it_found_private_ones_too(tmp_path: object) -> None:
    from pathlib import Path

    root = Path(str(tmp_path))
    (root / "agent.txt").write_text("name = a\n")
    (root / "knowledge").mkdir()
    (root / "knowledge" / "n.md").write_text("# n\n")
    (root / "profile").mkdir()
    (root / "profile" / "me.md").write_text("# me\n")
    snap = discover(str(root), include_private=False)
    assert [f.rel for f in snap.files] == ["knowledge/n.md"]
    stat = (root / "profile" / "me.md").stat()
    assert snap.found("profile/me.md") == (stat.st_dev, stat.st_ino, False, None)
    assert snap.found("knowledge/n.md") is not None
    assert snap.found("knowledge/none.md") is None
