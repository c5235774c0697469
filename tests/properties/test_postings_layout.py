"""The postings file's layout (kb.pure.answering.held.postingslayout) for any counts: every
array starts on a multiple of 8 past the header, in file order, never overlapping the one
before, holding exactly its items, and the file ends where the last one does; a header
reads back as written and a header of other counts never reads as this one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kb.pure.answering.held.postingslayout import (
    ALIGN,
    HEADER,
    ITEM,
    Layout,
    header_of,
    read_header,
)

counts = st.integers(min_value=0, max_value=10**12)
layouts = st.builds(Layout, words=counts, postings=counts, chunks=counts)
digests = st.binary(min_size=32, max_size=32)


@given(layouts)
def test_every_array_lies_aligned_in_order_after_the_header_with_its_own_items(
    layout: Layout,
) -> None:
    sections = layout.sections
    assert [s.name for s in sections] == list(ITEM)
    items = {
        "at": layout.words + 1,
        "lengths": layout.chunks,
        "chunk": layout.postings,
        "counts": layout.postings,
        "weight": layout.postings,
    }
    end = HEADER.size
    for s in sections:
        assert s.offset % ALIGN == 0
        assert end <= s.offset < end + ALIGN
        assert s.items == items[s.name]
        assert s.end - s.offset == s.items * ITEM[s.name][1]
        end = s.end
    assert layout.size == end


@given(digests, layouts, layouts)
def test_a_header_reads_back_as_written_and_only_as_that(
    digest: bytes, layout: Layout, other: Layout
) -> None:
    head = header_of(digest, layout)
    assert len(head) == HEADER.size
    assert read_header(head) == (digest, layout)
    assert (read_header(header_of(digest, other)) == (digest, layout)) == (other == layout)
