"""kb.io.store.lights.Lights: a stat pass held as columns answers as the tuple of light
headers it stands for, by place and by path, however its paths, hashes and notes come."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kb.io.store.lights import HASH_WIDTH, LightHeader, Lights
from tests.properties.rows_by_path import check_rows_by_path

_hex = st.text("0123456789abcdef", min_size=HASH_WIDTH, max_size=HASH_WIDTH)
headers = st.builds(
    LightHeader,
    rel=st.text(min_size=1, max_size=6),
    private=st.booleans(),
    bucket=st.sampled_from(["entry", "exempt", "unreachable", "unreadable"]),
    # a pass of 16-character hashes is joined into one string; any other keeps a tuple
    hash=st.one_of(_hex, st.sampled_from(["", "abc"])),
    note=st.sampled_from(["", "not UTF-8 text", "changed while read"]),
)


@given(st.lists(headers, max_size=25), st.booleans(), st.text(max_size=6))
def test_lights_are_the_headers_they_hold(
    listed: list[LightHeader], by_path: bool, other: str
) -> None:
    if by_path:  # as a walk gives them: each path once, ascending
        listed = sorted({h.rel: h for h in listed}.values(), key=lambda h: h.rel)
    lights = Lights.of(listed)
    check_rows_by_path(lights, listed, other)
    assert list(lights.buckets()) == [(h.rel, h.bucket, h.note) for h in listed]
    assert lights == Lights.of(listed)


def test_two_passes_differ_when_one_header_does() -> None:
    one = LightHeader("a.md", False, "entry", "0" * HASH_WIDTH, "")
    assert Lights.of([one]) != Lights.of([LightHeader("a.md", True, "entry", "0" * 16, "")])
    assert Lights.of([one]) != Lights.of([])
    assert Lights.of([one]) != [one]


def test_more_kinds_of_bucket_than_a_byte_holds_are_refused() -> None:
    many = [LightHeader(f"{n:04}", False, f"b{n}", "", "") for n in range(300)]
    with pytest.raises(ValueError, match="range"):
        Lights.of(many)
