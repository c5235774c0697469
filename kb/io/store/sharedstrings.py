"""Equal strings decoded from a fleet's indexes held once, by a pool a resident kb lets go
of once its fleet is held in memory.

A fleet's notes share most of their key, title and purpose words, and its bases most of
their vocabularies, but every decoded occurrence is a string of its own. They were shared
through the interpreter's intern table, which never shrinks: at 100,000 notes it held about
1.3 million strings, a table of 40-80 MB (61 MB measured for 1.5 million) kept for the
process's life. This pool shares them the same way while a fleet is read, and is dropped
after (`let_go`): the strings already shared stay shared, and the table goes.
"""

from __future__ import annotations

from collections.abc import Iterable

# A pool never grows past this many strings between two `let_go`s (a process that decodes
# headers question after question without ever holding its fleet): it starts again empty,
# which only stops sharing what came before.
POOL_MAX = 1 << 22

_pool: dict[str, str] = {}


def shared(text: str) -> str:
    """`text`, or the equal string the pool holds already."""
    pool = _pool
    if len(pool) >= POOL_MAX:
        let_go()
        pool = _pool
    return pool.setdefault(text, text)


def shared_all(texts: Iterable[str]) -> tuple[str, ...]:
    """Each of `texts` by `shared`, as a tuple."""
    return tuple([shared(t) for t in texts])


def let_go() -> None:
    """Forget the pool (its strings stay where they are used)."""
    global _pool
    _pool = {}


def size() -> int:
    """How many strings the pool holds (tests)."""
    return len(_pool)
