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


def printable(value: str) -> str:
    """`value` as one line of a message: control characters (a newline above all, which
    would split a one-line error in two) shown as escapes, a lone surrogate (a byte of a
    file name that is not UTF-8, as the OS hands it over) as U+FFFD, which any stream can
    write, everything else as typed."""
    if value.isprintable():  # no control character at all: the common case, at C speed
        return value  # (the walk calls this for every name: 0.24 s per 10,000 files without)
    out: list[str] = []
    for c in value:
        code = ord(c)
        if 0xD800 <= code <= 0xDFFF:
            out.append("\ufffd")
        elif c in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[c])
        elif code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0 or c in "\u2028\u2029":
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(c)
    return "".join(out)
