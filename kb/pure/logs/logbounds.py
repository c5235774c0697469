"""What kb's counted logs keep of a question, and how much of them they keep (issue 24).

The counted logs at the fleet root (`kb-misses.txt`, `kb-misroutes.txt`,
`kb-abstentions.txt`, `kb-rejections.txt`, `kb-alias-rejections.txt`) are written without
anyone deciding to, on a refusal or a model's verdict, and `kb sync` pushes them to every
clone. So what lands in them must never be usable against the person who typed it, and
they must never grow without bound.

Rules of this module:
- A free text that lands in a log (a refused question, a misrouted message, a subject, a
  reason) is first scrubbed of secrets (kb.pure.sessions.scrub, the scrubber `kb capture` uses),
  then cut to `MAX_TEXT_CHARS`, the number of characters the router reads of a question
  (`kb.pure.notes.tokens.MAX_QUESTION_CHARS`): what the router never read cannot be the vocabulary
  that needs fixing. `loggable` does both.
- A text that holds none of the strings some rule of the scrubber needs is not scrubbed, and
  the scrubber is not even imported (kb.pure.sessions.scrubgate): `kb route` and `kb boot` refuse
  most questions without paying for it.
- Scrubbed before it is cut: a key cut in half is too short for its shape and would survive.
  Only the first `MAX_TEXT_CHARS + SCRUB_MARGIN` characters are scrubbed (the cut drops the
  rest), so a 3 MB question costs what a 10,000-character one does; the margin is longer
  than any one secret the scrubber knows (a 4,096-bit RSA key block is about 3,300
  characters), and a block cut by the window is redacted to its end, as half a key is.
- Control characters are escaped as a terminal output escapes them (kb.pure.notes.names.printable,
  lines kept for the row's writer to flatten): a log is a text file people `cat`, and a
  question with an OSC-52 clipboard write or a bidi override in it must not act when they do.
- A cut never leaves half a marker: `[REDACTED_SEC` at the end is dropped whole.
- `cut` alone (no scrubbing) is idempotent and cheap; every pure `record` applies it to the
  row it writes, so a row longer than the limit cannot be written even by a caller that
  forgot to scrub.
- A log keeps at most `MAX_ROWS` rows and `MAX_BYTES` bytes (header included, UTF-8). Past
  either, rows are dropped, least counted first and, among equal counts, the one last seen
  longest ago first (then the one first seen longest ago, then the later in the file): the
  oldest questions asked once go before anything asked twice. The row just recorded is never
  dropped. `bounded` applies this; the rows it keeps stay in their order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from kb.pure.notes.names import printable
from kb.pure.notes.tokens import MAX_QUESTION_CHARS
from kb.pure.sessions.scrubgate import could_hold_secret

MAX_TEXT_CHARS = MAX_QUESTION_CHARS
SCRUB_MARGIN = 8_000
# 2,000 distinct rows is more than anyone triages (a person fixes the top of the list), and
# 1 MiB keeps a refusal's rewrite of the whole log (read, parse, render, fsync, rename, under
# its lock) in the low milliseconds; at 2,000 characters a row, the bytes bind first.
MAX_ROWS = 2_000
MAX_BYTES = 1 << 20

_MARKERS = ("[REDACTED_KEY]", "[REDACTED_TOKEN]", "[REDACTED_SECRET]", "[REDACTED_PRIVATE_KEY]")

R = TypeVar("R")


def cut(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """`text` cut to `limit` characters, never leaving half a marker at the end."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    opening = head.rfind("[", max(0, limit - len(max(_MARKERS, key=len))))
    if opening >= 0 and "]" not in head[opening:]:
        tail = head[opening:]
        if any(m.startswith(tail) and m != tail for m in _MARKERS):
            head = head[:opening]
    return head


def loggable(text: str) -> str:
    """`text` as a log keeps it: scrubbed of secrets, control characters escaped, cut to
    MAX_TEXT_CHARS."""
    window = text[: MAX_TEXT_CHARS + SCRUB_MARGIN]
    if could_hold_secret(window):  # most refused questions do not: not even its import
        # Imported here: the scrubber is not free to import (its rules and shapes, ~10 ms),
        # and most callers of the log modules (reading a log back, a merge) record nothing.
        from kb.pure.sessions.scrub import scrub

        window = scrub(window)
    return cut(printable(window, lines=True))


def bounded(
    rows: Sequence[R],
    size: Callable[[R], int],
    count: Callable[[R], int],
    seen: Callable[[R], tuple[str, str]],
    header_bytes: int,
    keep: int | None = None,
    max_rows: int = MAX_ROWS,
    max_bytes: int = MAX_BYTES,
) -> list[R]:
    """`rows` without the ones dropped to fit the bounds. `size` is a row's bytes on disk,
    `count` how often it was recorded, `seen` its (last, first) dates; `keep` is the index
    of the row just recorded."""
    sizes = [size(r) for r in rows]
    total = header_bytes + sum(sizes)
    if len(rows) <= max_rows and total <= max_bytes:
        return list(rows)
    # least counted, then last seen longest ago, then first seen longest ago, then the later
    # in the file
    order = sorted(
        (i for i in range(len(rows)) if i != keep),
        key=lambda i: (count(rows[i]), seen(rows[i]), -i),
    )
    dropped: set[int] = set()
    left = len(rows)
    for i in order:
        if left <= max_rows and total <= max_bytes:
            break
        dropped.add(i)
        left -= 1
        total -= sizes[i]
    return [r for i, r in enumerate(rows) if i not in dropped]


def keep_recorded(
    rows: Sequence[R],
    is_recorded: Callable[[R], bool],
    line: Callable[[R], str],
    count: Callable[[R], int],
    seen: Callable[[R], tuple[str, str]],
    header: str,
) -> list[R]:
    """`bounded` for a counted log just written to: each row's bytes are its `line`, the
    file starts with `header`, and the first row `is_recorded` (the one just recorded) is
    never dropped. Every counted log records this way (misses, misroutes, abstentions,
    rejections)."""
    recorded = next(i for i, r in enumerate(rows) if is_recorded(r))
    return bounded(rows, lambda r: utf8_len(line(r)), count, seen, utf8_len(header), keep=recorded)


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
