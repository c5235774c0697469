"""The one naming rule for things that become a path component: an agent made by `kb init`
and a note made by `kb write`.

Rules of this module:
- A usable name is 1 to 40 characters, each one of ASCII `a-z`, `0-9` or `-`, and it
  neither starts nor ends with `-`.
- That language has no `/`, `\\`, `.`, space or upper case, so a usable name can never
  climb out of its folder, never needs quoting in a shell, and names the same file on a
  case-insensitive disk as on a case-sensitive one.
- The check is on characters of exactly that ASCII set: `str.isalnum` would let through
  digits and letters of other scripts, which is the opposite of the point.
"""

from __future__ import annotations

import re

MAX_NAME = 40
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def is_usable_name(name: str) -> bool:
    return (
        0 < len(name) <= MAX_NAME
        and all(c in NAME_CHARS for c in name)
        and not name.startswith("-")
        and not name.endswith("-")
    )


def is_plain_component(name: str) -> bool:
    """A single directory name that stays where it is joined: not empty, not `.` or `..`,
    no separator of either system, no NUL. Looser than `is_usable_name`, because `kb write`
    must still reach agents made by hand before the rule existed (`Ada`, `team_notes`)."""
    return (
        bool(name)
        and name not in (".", "..")
        and "/" not in name
        and "\\" not in name
        and "\0" not in name
    )


# The invisible characters that reorder what a terminal shows (a Trojan Source attack):
# the Arabic letter mark, left-to-right and right-to-left marks, embeddings, overrides and
# isolates, and their pop. Escaped like control characters: none of them is ever needed to
# read a note, a question or a model's reply, and any of them can make a line say what it
# does not.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# What `printable(..., lines=True)` escapes: C0 controls but TAB and LF, DEL, C1 controls,
# the line and paragraph separators, the bidi controls, lone surrogates, and a CR that does
# not end a line (one that does is the file's line ending, and harmless).
_UNSAFE_IN_LINES = (
    "[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
    "\ud800-\udfff]|\r(?!\n)"
)


def printable(value: str, lines: bool = False) -> str:
    """`value` as a terminal may show it: control characters (a newline above all, which
    would split a one-line error in two; ESC, which starts every terminal command, OSC-52
    clipboard writes included) shown as escapes, the bidi controls too, a lone surrogate (a
    byte of a file name that is not UTF-8, as the OS hands it over) as U+FFFD, which any
    stream can write, everything else as typed.

    With `lines`, the text keeps its lines and tabs (a note, a model's reply, a whole
    report): LF, TAB and a CR before an LF stay, the rest is escaped as above.

    An escape is `\\n`, `\\r` or `\\t`, else `\\xNN` below U+0020 and `\\uNNNN` from DEL on,
    which is how JSON writes them too: a JSON text run through this stays the same JSON
    (its encoder already escaped every C0 control)."""
    if lines:
        # the pattern is compiled once and cached by re; the common text holds nothing
        if re.search(_UNSAFE_IN_LINES, value) is None:
            return value
        return re.sub(_UNSAFE_IN_LINES, lambda m: _escape(m.group(0)[0]), value)
    if value.isprintable():  # no control character at all: the common case, at C speed
        return value  # (the walk calls this for every name: 0.24 s per 10,000 files without)
    return "".join(_escape(c) if _unsafe(c) else c for c in value)


def _unsafe(c: str) -> bool:
    code = ord(c)
    return (
        code < 0x20
        or 0x7F <= code < 0xA0
        or 0xD800 <= code <= 0xDFFF
        or c in "\u2028\u2029"
        or c in BIDI_CONTROLS
    )


def _escape(c: str) -> str:
    code = ord(c)
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    if c in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[c]
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"
