"""Handing the heap a large build freed back to the system.

glibc's allocator keeps what Python frees in its arenas for later use, and gives back only
what sits at the top of the heap. Building a fleet's in-memory indexes frees hundreds of
megabytes of intermediate objects scattered between the ones kept, so a resident kb stayed
that much larger than what it held (125 MB of 882 MB after reading the text of 100,000
notes). `malloc_trim(0)` returns every free page of every arena.
"""

from __future__ import annotations


def give_back() -> None:
    """Let go of the strings pool the build shared its words through (kb.io.store.
    sharedstrings), then return the heap's free pages to the system: glibc's
    `malloc_trim(0)`, released from the interpreter's lock while it runs. Where the C
    library has no such call (musl, macOS) the pages are reused by later builds."""
    import ctypes  # only a resident kb's warming thread pays for the import

    from kb.io.store import sharedstrings

    sharedstrings.let_go()

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


# glibc's `mallopt` parameter for the most arenas its allocator makes (malloc.h's
# M_ARENA_MAX).
M_ARENA_MAX = -8


def one_arena() -> None:
    """Have every thread of this process allocate from one glibc arena, in a process kb owns
    (the resident kb, `kb serve`), before its threads start. With an arena each, the warming
    thread's build and the requests served meanwhile freed into separate heaps, neither
    reusing the other's holes: at 100,000 notes the resident kb's highest point while it
    built was 403-418 MB with them and 382-392 MB with one; its size once built is the same.
    Never called in a host's process (a library's warm Memory): the allocator is the host's.
    Where the C library has no `mallopt` (musl, macOS), nothing changes."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_ARENA_MAX, 1)
