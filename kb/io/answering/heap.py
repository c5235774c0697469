"""Handing the heap a large build freed back to the system.

glibc's allocator keeps what Python frees in its arenas for later use, and gives back only
what sits at the top of the heap. Building a fleet's in-memory indexes frees hundreds of
megabytes of intermediate objects scattered between the ones kept, so a resident kb stayed
that much larger than what it held (125 MB of 882 MB after reading the text of 100,000
notes). `malloc_trim(0)` returns every free page of every arena.
"""

from __future__ import annotations


def give_back() -> None:
    """Return the heap's free pages to the system: glibc's `malloc_trim(0)`, released from
    the interpreter's lock while it runs. Where the C library has no such call (musl,
    macOS) nothing is done; the memory is then reused by later builds, as before."""
    import ctypes  # only a resident kb's warming thread pays for the import

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)
