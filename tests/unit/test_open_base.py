"""`OpenBase.each_header`: the full headers a listing reads once, in walk order, decoded a
slice at a time and kept by nobody (issue 27: `kb list` at 100,000 notes held every header
of the fleet at once, 487 MB at its peak; 223 MB now)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.io.answering import opened
from kb.io.answering.memory import Memory


@pytest.mark.parametrize("at_once", [1, 2, 2000])
def test_each_header_gives_the_headers_in_walk_order_and_keeps_none(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch, at_once: int
) -> None:
    monkeypatch.setattr(opened, "HEADERS_AT_ONCE", at_once)
    with Memory.open([str(example_fleet / "fleet")], all=True) as memory:
        for b in memory.bases:
            streamed = list(b.each_header())
            assert "headers" not in b.__dict__  # nothing cached for the base's lifetime
            assert [h.rel for h in streamed] == [h.rel for h in b.scan.lights]
            assert streamed == list(b.headers)  # the same values the cached path decodes
            assert list(b.each_header()) == streamed  # and from the cache, once decoded
