"""An exact, tiny parser for the hot verbs (`kb route`, `kb boot`), read off the same input
classes cyclopts reads.

Why: cyclopts costs about 60 ms per process here (32 ms to import, 29 ms to assemble and
parse), which is the whole latency budget of a verb that runs on every prompt. This parser
handles only well-formed arguments — positionals, `--flag`, `--flag value` — and returns
None for anything else, so cyclopts still parses (and words the error for) every unusual
or wrong command line. A property test holds the two parsers to the same result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

_VALUE_TYPES = {"str": str, "int": int, "str | None": str, "int | None": int}


def fast_parse(input_type: type[Any], args: Sequence[str]) -> Any | None:
    fields = attrs.fields(input_type)
    by_flag = {f"--{f.name.replace('_', '-')}": f for f in fields}  # as cyclopts names them
    required = [f for f in fields if f.default is attrs.NOTHING]
    variadic = next((f for f in fields if f.type == "tuple[str, ...]"), None)
    values: dict[str, Any] = {}
    positionals: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-"):
            f = by_flag.get(arg)
            if f is None or f.name in values or f in required or f is variadic:
                return None
            if f.type == "bool":
                values[f.name] = True
            else:
                kind = _VALUE_TYPES.get(str(f.type))
                if kind is None or i + 1 >= len(args) or args[i + 1].startswith("-"):
                    return None
                i += 1
                if kind is int:
                    if not args[i].isdigit() or not args[i].isascii():
                        return None
                    values[f.name] = int(args[i])
                else:
                    values[f.name] = args[i]
        else:
            positionals.append(arg)
        i += 1
    for f in required:
        if f.type != "str" or not positionals:
            return None
        values[f.name] = positionals.pop(0)
    if positionals:
        if variadic is None:
            return None
        values[variadic.name] = tuple(positionals)
    try:
        return input_type(**values)
    except (TypeError, ValueError):
        return None
