"""The JSON writer every `--json` output and MCP reply uses.

Rules of this module:
- One line, no whitespace, UTF-8 literal (no \\u escapes for non-ASCII), except what a
  terminal would act on or hide: every C0 control, DEL and the C1 controls, the line and
  paragraph separators, the bidi controls (kb.pure.notes.names.BIDI_CONTROLS) and lone surrogates
  are written as \\u escapes, so a JSON output printed to a terminal is as safe as the text
  one (issue 24), and decodes to the same string.
- Keys are written in the order the value gives them; shapes that the spec sorts build
  their dicts sorted (see `sorted_keys`).
- Non-finite numbers are `null`; integral floats print as integers; other floats print
  as the shortest round-trip decimal, never in exponent notation.
- Scores pass through `round6` (half away from zero) before they reach here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from kb.pure.notes.names import BIDI_CONTROLS

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


def round6(x: float) -> float:
    if not math.isfinite(x):
        return x
    scaled = abs(x) * 1e6
    return math.copysign(math.floor(scaled + 0.5) / 1e6, x)


_U_ESCAPED = BIDI_CONTROLS | frozenset("\u2028\u2029")


def escape(text: str) -> str:
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif (
            code < 0x20
            or 0x7F <= code < 0xA0
            or 0xD800 <= code <= 0xDFFF
            or (code >= 0x2000 and ch in _U_ESCAPED)
            or ch == "\u061c"
        ):
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def number(x: float) -> str:
    if not math.isfinite(x):
        return "null"
    if x == int(x) and abs(x) < 2**53:
        return str(int(x))
    text = repr(x)
    if "e" in text or "E" in text:
        text = format(Decimal(text), "f")
    return text


def dumps(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return number(value)
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{escape(str(k))}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Sequence):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def sorted_keys(value: Any) -> Any:
    """The same value with every object's keys in codepoint order (the spec's sorted shapes)."""
    if isinstance(value, Mapping):
        return {k: sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [sorted_keys(v) for v in value]
    return value
