"""Where a held base's postings lie in its postings file (`.kb/index.postings`), and what binds
a file to the index it was made from (decision 0053).

A resident kb holds each large base's posting arrays (`WarmText.at`, `lengths`, `post_chunk`,
`post_counts`, `post_weight`) in a file it maps into memory instead of on its heap: the pages
a question reads come from the page cache, which the system may drop and read again, and a
restarted kb maps the file instead of reading the index again. This module is the format:
a fixed header, then the five arrays as they lie in memory, each from an offset that is a
multiple of 8.

A file is used only beside the index file and the index state it was made from: its
header carries `binding` of both (the index file's device and inode, the FTS5 structure
record and private files, the vocabulary with each word's chunk frequency, every chunk's
rowid), recomputed from the index at each load. The file holds numbers only, no word of any
note, and what is private is never read from it: that comes from the index's own files
table, so a wrong file can misrank a public chunk but never show a private one.
"""

from __future__ import annotations

import hashlib
import struct
from array import array
from collections.abc import Sequence

from attrs import frozen

MAGIC = b"KBPOSTS\x01"
# Written as a native 32-bit value and read back: a file made where the byte order differs
# (it never moves between machines on purpose, but a folder can be copied) is not used.
ORDER_MARK = 0x01020304
DIGEST_BYTES = 32
# magic, order mark, 4 bytes of padding, the binding digest, then the word, posting and
# chunk counts the arrays' lengths follow from
HEADER = struct.Struct("=8sI4x32sQQQ")
ALIGN = 8
# (array typecode, bytes an item) of each array in the file, in file order: `at` by word
# (one more: the end), `lengths` by chunk, then the three by posting
ITEM = {
    "at": ("q", 8),
    "lengths": ("i", 4),
    "chunk": ("i", 4),
    "counts": ("I", 4),
    "weight": ("d", 8),
}


@frozen
class Section:
    """One array in the file: its name in `ITEM`, where it starts, how many items it holds."""

    name: str
    offset: int
    items: int

    @property
    def end(self) -> int:
        return self.offset + self.items * ITEM[self.name][1]


@frozen
class Layout:
    """Where each array lies in a file of `words` words, `postings` postings, `chunks` chunks."""

    words: int
    postings: int
    chunks: int

    @property
    def sections(self) -> tuple[Section, ...]:
        lengths = {
            "at": self.words + 1,
            "lengths": self.chunks,
            "chunk": self.postings,
            "counts": self.postings,
            "weight": self.postings,
        }
        out: list[Section] = []
        offset = HEADER.size
        for name, items in lengths.items():
            offset = _aligned(offset)
            out.append(Section(name, offset, items))
            offset = out[-1].end
        return tuple(out)

    @property
    def size(self) -> int:
        """The file's length in bytes."""
        return self.sections[-1].end


def _aligned(offset: int) -> int:
    return -(-offset // ALIGN) * ALIGN


def header_of(digest: bytes, layout: Layout) -> bytes:
    """The file's first `HEADER.size` bytes."""
    return HEADER.pack(MAGIC, ORDER_MARK, digest, layout.words, layout.postings, layout.chunks)


def read_header(data: bytes) -> tuple[bytes, Layout] | None:
    """(binding digest, layout) from a file's first bytes, or None when they are not a
    postings file's header written on a machine of this byte order."""
    if len(data) < HEADER.size:
        return None
    magic, mark, digest, words, postings, chunks = HEADER.unpack_from(data)
    if magic != MAGIC or mark != ORDER_MARK:
        return None
    return bytes(digest), Layout(int(words), int(postings), int(chunks))


def binding(stamp: bytes, vocabulary: Sequence[str], doc: array[int], rowids: array[int]) -> bytes:
    """What ties a postings file to one state of one index file: a digest of `stamp` (the
    file's identity and the state's stamp, `kb.io.store.warm._warm_stamp`), the vocabulary
    in order with each word's chunk frequency, and the chunks' rowids. Each part is
    length-prefixed, so no two states encode alike."""
    digest = hashlib.blake2b(digest_size=DIGEST_BYTES, person=b"kb-postings")
    words = "\0".join(vocabulary).encode("utf-8", "surrogatepass")
    for part in (stamp, words, array("q", doc).tobytes(), array("q", rowids).tobytes()):
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.digest()
