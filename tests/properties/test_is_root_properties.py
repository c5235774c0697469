"""Whether a folder opens as itself (kb.io.notes.walk._is_root), read from one listing, is
what the three reads it replaced said: the folder looks like a base, it holds `fleet/`, or a
folder in it (not hidden) looks like a base."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.io.notes.walk import _is_root, _subdirs, looks_like_a_base

NAMES = ("MAP.md", "INDEX.md", "agent.txt", "fleet", "ada", ".hidden", "notes.md")
# a name inside the folder: a file or a folder, and for a folder what it holds
ENTRY = st.tuples(
    st.sampled_from(NAMES), st.booleans(), st.lists(st.sampled_from(NAMES), max_size=3)
)


def _reference(path: Path) -> bool:
    return (
        looks_like_a_base(path)
        or (path / "fleet").is_dir()
        or any(looks_like_a_base(d) for d in _subdirs(path))
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(ENTRY, max_size=6))
def test_one_listing_answers_as_the_three_reads_did(
    entries: list[tuple[str, bool, list[str]]],
) -> None:
    root = Path(tempfile.mkdtemp())
    try:
        for name, is_folder, inside in entries:
            at = root / name
            if at.exists():
                continue
            if is_folder:
                at.mkdir()
                for child in inside:
                    (at / child).touch()
            else:
                at.touch()
        assert _is_root(root) == _reference(root)
    finally:
        shutil.rmtree(root)
