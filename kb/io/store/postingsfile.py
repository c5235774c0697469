"""A large held base's postings in a file mapped into memory (`.kb/index.postings`,
decision 0053; the format is kb.pure.answering.held.postingslayout).

At 100,000 notes the posting arrays of a warm fleet were about 500 MB of a resident kb's
heap (16 bytes a posting, 31 million postings). Mapped from a file, a question reads only
its words' pages, the page cache keeps them as the system can afford, and a resident kb
started again maps the file instead of reading the index again (seconds a base).

Only where numpy ranks the base: the checks a file is given before it is used run in numpy
(every posting, in a few hundred milliseconds at 100,000 notes), and a file failing any is
not used (the base is read from the index as before, and the file made again).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from kb.io.files.atomic import sweep_temps
from kb.pure.answering.held.postingslayout import HEADER, ITEM, Layout, header_of, read_header
from kb.pure.answering.held.warmtext import Columns

if TYPE_CHECKING:
    from kb.pure.answering.held.warmtext import WarmText

# A base is mapped from a file once it holds this many postings (16 MB of arrays): below it
# the arrays cost less than the file's bookkeeping is worth. At 10,000 generated notes the
# largest base holds about 700,000 postings; at 100,000 notes each of the eleven bases holds
# 1.1 to 10 million.
MAPPED_MIN_POSTINGS = 1 << 20
SUFFIX = ".postings"
# Postings checked at a time: bounds the temporary arrays the checks make (tens of MB).
CHECK_BATCH = 1 << 22

# Bytes asked to be read ahead at a time: the kernel reads at most its device's read-ahead
# window a call (about 10 MB of a 72 MB file was read when the whole file was asked for).
READ_AHEAD_STEP = 1 << 21
# Every postings file mapped now, held weakly: a mapping lives as long as its base's views.
_mapped: weakref.WeakSet[mmap.mmap] = weakref.WeakSet()


def postings_path(index: Path) -> Path:
    """The postings file beside an index (`.kb/index.db` -> `.kb/index.postings`)."""
    return index.with_suffix(SUFFIX)


def write(path: Path, digest: bytes, warm: WarmText) -> bool:
    """Write `warm`'s postings to `path` whole or not at all (a temporary file in the same
    folder, flushed to disk, then renamed over it; mode 0600, as the index). False, and
    nothing left behind, when the disk refuses."""
    layout = Layout(len(warm.vocabulary), len(warm.post_chunk), len(warm.rowids))
    arrays = (warm.at, warm.lengths, warm.post_chunk, warm.post_counts, warm.post_weight)
    # a temp file kb's writers name alike (mkstemp: 0600, never an existing name), so one a
    # killed writer left, tens of MB, is swept like theirs, here before the next is made
    sweep_temps(path.parent)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError:
        return False
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(header_of(digest, layout))
            for section, values in zip(layout.sections, arrays, strict=True):
                out.write(b"\0" * (section.offset - out.tell()))
                code, size = ITEM[section.name]
                held = memoryview(values)
                if held.format != code or held.itemsize != size:
                    raise OSError(f"the {section.name} array is not {code}")
                out.write(held)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    return True


def remove(path: Path) -> None:
    """Delete a postings file no longer wanted (a base now too small to map)."""
    with contextlib.suppress(OSError):
        os.unlink(path)


def announces(path: Path, words: int, chunks: int) -> bool:
    """Whether `path` starts with a postings file's header for this many words and chunks,
    of a base large enough to be mapped (read before the index is asked for what the
    file's binding needs)."""
    try:
        with open(path, "rb") as fh:
            read = read_header(fh.read(HEADER.size))
    except OSError:
        return False
    if read is None:
        return False
    layout = read[1]
    return (
        layout.words == words and layout.chunks == chunks and layout.postings >= MAPPED_MIN_POSTINGS
    )


def mapped(path: Path, digest: bytes, words: int, chunks: int, checked: bool) -> Columns | None:
    """The postings in `path` as read-only views of the file mapped into memory, when its
    header carries `digest` and these word and chunk counts and its length is the
    layout's; with `checked`, also when every array holds what a held base needs (`_sound`).
    None otherwise, or when the file cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return _mapped_from(fd, digest, words, chunks, checked)
    finally:
        os.close(fd)


def _mapped_from(fd: int, digest: bytes, words: int, chunks: int, checked: bool) -> Columns | None:
    try:
        read = read_header(os.pread(fd, HEADER.size, 0))
        if read is None:
            return None
        found, layout = read
        if found != digest or layout.words != words or layout.chunks != chunks:
            return None
        if os.fstat(fd).st_size != layout.size or layout.size == 0:
            return None
        # a mapping lives on after its descriptor is closed
        whole = mmap.mmap(fd, layout.size, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    _mapped.add(whole)
    view = memoryview(whole)
    at, lengths, chunk, counts, weight = (view[s.offset : s.end] for s in layout.sections)
    # the typecodes are postingslayout.ITEM's, spelled out for the type checker
    out = Columns(
        at=at.cast("q"),
        lengths=lengths.cast("i"),
        post_chunk=chunk.cast("i"),
        post_counts=counts.cast("I"),
        post_weight=weight.cast("d"),
    )
    if checked:
        if not _sound(out, layout):
            return None
        # the checks read every page: give them back (the page cache keeps them), so the
        # process holds only the pages its questions read
        with contextlib.suppress(AttributeError, OSError):
            whole.madvise(mmap.MADV_DONTNEED)
    _cached_page_by_page(fd, layout.size)
    # A question reads a few words' postings and bisects others: no read-ahead. Without this
    # hint a fault on a page the system had dropped read the device's read-ahead (8 MB on
    # the measuring machine): at 100,000 notes, with the postings dropped from the page
    # cache before each of 200 questions, `Memory.ask` took a median 69 ms against 3.8 ms
    # with it (as fast as with every page cached: 1.3 ms either way).
    with contextlib.suppress(AttributeError, OSError):
        whole.madvise(mmap.MADV_RANDOM)
    return out


def _cached_page_by_page(fd: int, size: int) -> None:
    """Have the file cached in single pages. The cache may hold it in large blocks (the file
    just written, read straight through by the checks, by `cp` or by a backup), and a fault
    on a mapped page maps the whole block around it: at 100,000 notes, after the postings
    files were written, one question mapped 55-115 MB of them where it read 2-3 MB, and a
    resident kb's peak rose from about 400 to 480 MB. Dropped and read ahead again, the
    kernel brings them back page by page, without this call waiting for the disk. `size`:
    the file's, which `_mapped_from` checked against its layout."""
    with contextlib.suppress(AttributeError, OSError):
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        for start in range(0, size, READ_AHEAD_STEP):
            os.posix_fadvise(fd, start, READ_AHEAD_STEP, os.POSIX_FADV_WILLNEED)


def resident_file_bytes() -> int | None:
    """The process's resident pages that are file pages or shared memory (`/proc/self/statm`'s
    third field): the mapped postings a question read, beside the interpreter's own files.
    None where the system has no such file."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[2]) * mmap.PAGESIZE
    except (OSError, ValueError, IndexError):
        return None


def give_back_pages() -> int:
    """Unmap every page of every mapped postings file from this process: the page cache keeps
    them (shared, and the first memory the system takes back), and a question that reads
    one again maps it again (a minor fault, no disk). How many files were given back."""
    given = 0
    for whole in list(_mapped):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            whole.madvise(mmap.MADV_DONTNEED)
            given += 1
    return given


def _sound(columns: Columns, layout: Layout) -> bool:
    """Whether mapped postings can be held: word starts ascending from 0 to the last posting,
    each word's chunks ascending and within the base, every term weight above 0 (as `rank`
    assumes), every length at least 0."""
    import numpy as np

    at = np.asarray(columns.at)
    if at[0] != 0 or at[-1] != layout.postings or (at.size > 1 and np.any(np.diff(at) < 0)):
        return False
    lengths = np.asarray(columns.lengths)
    if lengths.size and lengths.min() < 0:
        return False
    chunk = np.asarray(columns.post_chunk)
    weight = np.asarray(columns.post_weight)
    starts = np.unique(at[1:-1])
    for lo in range(0, layout.postings, CHECK_BATCH):
        hi = min(lo + CHECK_BATCH, layout.postings)
        part = chunk[lo:hi]
        if part.min() < 0 or part.max() >= layout.chunks:
            return False
        if not np.all(weight[lo:hi] > 0.0):  # NaN fails too
            return False
        # a posting not above the one before it must start a word
        falls = np.flatnonzero(np.diff(chunk[max(lo - 1, 0) : hi]) <= 0) + max(lo, 1)
        if falls.size and not np.all(np.isin(falls, starts)):
            return False
    return True
