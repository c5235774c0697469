"""Shared generators and guards for the fuzz suite.

Every parser is fed two kinds of input, mixed in one strategy:
- near-valid text built from the parser's own grammar (the lines it is meant to read), then
  damaged the way real files are: CRLF or bare CR endings, a BOM, tabs, NUL bytes, right-to-
  left marks, confusable letters (a Cyrillic `Ѕ` in `Search for:`), very long lines, invalid
  UTF-8 bytes decoded the way kb's readers decode them;
- raw text and raw bytes, for what no grammar foresees.

Sizes stay small (a few KB, one long line at most ~20 KB) so the `ci` profile's 100 examples
per test stay fast; `no_hang` bounds each example by wall clock so a parser that loops
forever fails the test instead of stalling the run.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

# Generous: the slowest parser here takes milliseconds per example on a loaded machine; only
# a loop that never ends (or a quadratic blow-up on a 20 KB line) comes near this.
EXAMPLE_SECONDS = 10.0

# Pieces that break naive parsers: line-ending variants, byte-order marks, control and
# format characters, confusables, case-changing letters (`İ`.lower() grows), combining marks,
# astral characters, and lone surrogates as `surrogateescape` makes them from bad bytes.
HOSTILE_PIECES = (
    "\r\n",
    "\r",
    "\n",
    "\t",
    "\x00",
    "\ufeff",
    "\u200f",  # right-to-left mark
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u200b",  # zero-width space
    "\u2028",
    "\u2029",
    "\x85",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x7f",
    "\x9b",
    "\ufffd",
    "Ѕearch for:",  # Cyrillic capital DZE
    "Ｓｅａｒｃｈ ｆｏｒ:",  # fullwidth
    "İ",
    "ß",
    "ﬁ",
    "e\u0301",
    "🙂",
    "\U0010ffff",
    "#",
    "=",
    ":",
    ",",
    ";",
    "|",
    "[",
    "]",
    "{",
    "}",
    '"',
    "'",
    "`",
    "```",
    "---",
    "\\",
    "/",
    "..",
    " ",
    "   ",
)
SURROGATES = ("\udc80", "\udcff", "\udcfe", "\ud800", "\udfff")

pieces = st.sampled_from(HOSTILE_PIECES)
surrogates = st.sampled_from(SURROGATES)


def decoded(data: bytes, how: str) -> str:
    """Bytes as one of kb's readers would hand them over."""
    return data.decode("utf-8", how)


@st.composite
def damaged(draw: st.DrawFn, lines: st.SearchStrategy[str], surrogate: bool = False) -> str:
    """A document of grammar lines, then damaged: pieces spliced in, a line made long,
    mixed line endings, an optional BOM."""
    body = draw(st.lists(lines, max_size=12))
    out: list[str] = []
    for line in body:
        if draw(st.integers(0, 5)) == 0:  # splice a hostile piece into the line
            at = draw(st.integers(0, len(line)))
            piece = draw(surrogates if surrogate and draw(st.booleans()) else pieces)
            line = line[:at] + piece + line[at:]
        if draw(st.integers(0, 30)) == 0:  # a very long line
            line = line * draw(st.integers(50, 400)) if line else "x" * 20_000
        out.append(line)
        out.append(draw(st.sampled_from(("\n", "\n", "\n", "\r\n", "\r", ""))))
    text = "".join(out)
    if draw(st.integers(0, 10)) == 0:
        text = "\ufeff" + text
    return text


def raw_text(surrogate: bool = False, max_size: int = 400) -> st.SearchStrategy[str]:
    """Arbitrary text: any code point, or bytes decoded as a reader would."""
    how = st.sampled_from(("replace", "surrogateescape") if surrogate else ("replace",))
    options: list[st.SearchStrategy[str]] = [
        st.text(max_size=max_size),
        st.lists(pieces, max_size=40).map("".join),
        st.builds(decoded, st.binary(max_size=max_size), how),
    ]
    if surrogate:
        options.append(
            st.text(st.characters(exclude_categories=()), max_size=max_size)
            | st.lists(st.one_of(pieces, surrogates, st.text(max_size=3)), max_size=40).map("".join)
        )
    return st.one_of(options)


def hostile(lines: st.SearchStrategy[str], surrogate: bool = False) -> st.SearchStrategy[str]:
    """Near-valid documents and raw text, mixed."""
    return st.one_of(damaged(lines, surrogate), raw_text(surrogate))


def line_of(*parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A line built by concatenating one draw of each part."""
    return st.tuples(*parts).map("".join)


words = st.sampled_from(
    ("backup", "restore", "Ada", "floor", "café", "ação", "x", "", " ", "kb", "a-b", "q4_K_M")
)
word_lists = st.lists(words, max_size=5).map(", ".join)


def twice(f: Callable[[], T]) -> T:
    """Call `f` twice under the wall-clock guard and require the same answer (determinism)."""
    with no_hang():
        first = f()
        second = f()
    assert first == second, (first, second)
    return first


class Hang(Exception):
    """An example ran past EXAMPLE_SECONDS."""


@contextmanager
def no_hang(seconds: float = EXAMPLE_SECONDS) -> Iterator[None]:
    """Fail the example, rather than the whole run, when it takes longer than `seconds`."""

    def expire(_signum: int, _frame: object) -> None:
        raise Hang(f"one example took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def one_line(text: str) -> bool:
    """No character that any reader of a line-oriented output would take as a line break."""
    return len(text.splitlines()) <= 1 and not text.endswith(("\n", "\r"))


def all_of(items: Sequence[T], check: Callable[[T], bool]) -> bool:
    return all(check(i) for i in items)
