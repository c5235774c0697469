"""`kb list --where` and `--sort`: exact questions asked of the front matter.

Rules of this module:
- A condition is `key=value`, split at the first `=`, both sides trimmed. The key is a
  front-matter key, or a dotted path into nested front matter (`relations.supports`); keys are
  compared as written (case-sensitive, as in YAML). No `=`, an empty key or an empty step in
  a dotted path is refused with one line naming the expected form.
- A condition holds when the value at its path is a scalar equal to the value exactly
  (case-sensitive), or a list with an item equal to the value ignoring case (tags are
  written `Infra` in one note and `infra` in the next; a status is a word the author chose).
  A missing key, a nested mapping, or a path that runs through a list never holds.
- Several conditions combine with AND.
- `--sort F` sorts by a row field (`base`, `path`, `title`, `folder`, `kind`, `stage`,
  `provenance`) or, for any other name, by that front-matter key (dotted paths allowed). A
  list sorts by its items joined with `, `. Values that read as numbers come first, in
  numeric order, then the rest by text ignoring case; missing or empty values come last.
  The sort is stable: ties keep the listing order (base order, then path).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from attrs import frozen

from kb.pure.fleet.listing import Row
from kb.pure.notes.frontmatter import Fields, Value, lookup

if TYPE_CHECKING:  # returns costs ~16 ms to import; only a refusal needs it at run time
    from returns.result import Result

ROW_FIELDS = ("base", "path", "title", "folder", "kind", "stage", "provenance")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")


@frozen
class Condition:
    path: tuple[str, ...]
    value: str


def _form(flag: str, given: str) -> str:
    return (
        f"{flag} takes key=value, a front-matter key (dotted for nested keys) and the value "
        f"it must have, e.g. {flag} status=done or {flag} relations.supports=notes/a "
        f"(got {given!r})"
    )


def condition(text: str, flag: str = "--where") -> Result[Condition, str]:
    from returns.result import Failure, Success

    key, eq, value = text.partition("=")
    path = tuple(step.strip() for step in key.strip().split("."))
    if not eq or not all(path):
        return Failure(_form(flag, text))
    return Success(Condition(path, value.strip()))


def conditions(texts: Sequence[str], flag: str = "--where") -> Result[tuple[Condition, ...], str]:
    """Every condition parsed, or the refusal for the first malformed one."""
    from returns.result import Failure, Success

    out: list[Condition] = []
    for text in texts:
        parsed = condition(text, flag)
        if isinstance(parsed, Failure):
            return Failure(parsed.failure())
        out.append(parsed.unwrap())
    return Success(tuple(out))


def split_joined(text: str) -> list[str]:
    """The MCP form `key=value; key2=value2` as separate conditions (blank pieces dropped)."""
    return [piece for piece in text.split(";") if piece.strip()]


def holds(fields: Fields, c: Condition) -> bool:
    value = lookup(fields, c.path)
    if isinstance(value, str):
        return value == c.value
    if isinstance(value, tuple):
        wanted = c.value.casefold()
        return any(isinstance(item, str) and item.casefold() == wanted for item in value)
    return False


def holds_all(fields: Fields, cs: Sequence[Condition]) -> bool:
    return all(holds(fields, c) for c in cs)


def sort_field(text: str | None, flag: str = "--sort") -> Result[str | None, str]:
    """The field to sort by, trimmed; a blank name is refused."""
    from returns.result import Failure, Success

    if text is None:
        return Success(None)
    name = text.strip()
    if not name or not all(step.strip() for step in name.split(".")):
        return Failure(
            f"{flag} takes a field name: one of {', '.join(ROW_FIELDS)}, or a front-matter "
            f"key (got {text!r})"
        )
    return Success(name)


def needs_front_matter(cs: Sequence[Condition], sort: str | None) -> bool:
    return bool(cs) or (sort is not None and sort not in ROW_FIELDS)


def _text_of(value: Value | None) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, tuple):
        items = [v for v in value if isinstance(v, str)]
        return ", ".join(items) or None
    return None


def _key(text: str | None) -> tuple[int, float, str]:
    if text is None:
        return (2, 0.0, "")
    if _NUMBER.fullmatch(text.strip()):
        return (0, float(text), "")
    return (1, 0.0, text.casefold())


def sort_rows(rows: Sequence[Row], field: str, fronts: Sequence[Fields] | None) -> list[Row]:
    """`rows` sorted by `field` (stable); `fronts[i]` is row i's front matter when needed."""
    if field in ROW_FIELDS:
        keys = [_key(getattr(r, field) or None) for r in rows]
    else:
        path = tuple(step.strip() for step in field.split("."))
        keys = [_key(_text_of(lookup(f, path))) for f in fronts or [Fields()] * len(rows)]
    order = sorted(range(len(rows)), key=lambda i: keys[i])
    return [rows[i] for i in order]
