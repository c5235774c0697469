"""The JSON writer every `--json` output and MCP reply uses.

Rules of this module:
- One line, no whitespace, UTF-8 literal (no \\u escapes for non-ASCII).
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


def escape(text: str) -> str:
    out: list[str] = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
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
