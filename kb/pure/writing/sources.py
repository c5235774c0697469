"""Source records: keys, the record file, the bibliography line and the CSL projection.

Rules of this module (workflow-verbs.md §5):
- A key is exactly 10 symbols from ALPHABET (33 symbols: no `0`, `1` or `O`; `I` and `L`
  kept), case sensitive. It is minted from random bytes handed in, never derived from a
  title, an author or a path, and never regenerated.
- Minting rejects modulo bias: a byte is used only when it is below 231 (7 * 33), and then
  maps to `byte % 33`; every symbol is equally likely. About 1 byte in 10 is thrown away.
- A record file is `key = value` lines in a fixed writing order, a field written only when
  it has a value, `author` once per author. Reading trims lines, skips blank lines and
  lines starting with `#`, splits at the first `=`, lower-cases the key, drops pairs with
  an empty side, keeps the first value of every field except `author`. The record's key is
  its file name stem, never a line of the body.
- A record is refused for the first of: a stem that is not a key; a missing or unknown
  type; a missing or unknown retrieval status; a `replaces` that is not a key or is the
  record's own key; a missing title; a missing retrieved_on. Dates and years read from a
  record are free text (records written by hand or by the original stay readable); a new
  record's `--retrieved-on` must be a calendar date, `YYYY-MM-DD`.
- A refusal is one line: a stem or value quoted in it goes through `printable`, so a CR in
  a record or a newline in a file name cannot split the message.
- The bibliography line is a byte-exact contract (`kb check` compares it byte for byte),
  so it is built by one function here and nowhere else.
- The CSL projection is export only; nothing reads CSL back.

`Record` carries no validators on purpose: `parse_record` is the gate for files, the shell
is the gate for `kb source add`, and the renderers keep the spec's fallbacks (an unknown
status reads "could not be reached", an unknown type exports as `webpage`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attrs import fields, frozen

if TYPE_CHECKING:  # returns costs ~16 ms to import; only parsing a record needs it at run time
    from returns.result import Result

from kb.pure.notes.header import lines_of
from kb.pure.notes.names import printable

ALPHABET = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"
KEY_LENGTH = 10
TYPES = ("book", "chapter", "article", "report", "webpage", "recording")
STATUSES = ("full", "partial", "metadata", "unreachable")
NOT_A_KEY = "10 characters from 23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"

# The largest multiple of 33 that fits in a byte is 231 = 7 * 33: bytes 231..255 would make
# the first 25 symbols likelier than the rest, so they are thrown away.
_ACCEPT_BELOW = (256 // len(ALPHABET)) * len(ALPHABET)
_SYMBOLS = frozenset(ALPHABET)

_STATUS_PHRASES = {
    "full": "read in full",
    "partial": "read in part",
    "metadata": "catalogue record only, not read",
}
_CSL_TYPES = {
    "book": "book",
    "chapter": "chapter",
    "article": "article-journal",
    "report": "report",
    "recording": "motion_picture",
}


@frozen
class Record:
    key: str
    type: str
    title: str
    authors: tuple[str, ...] = ()
    year: str | None = None
    container: str | None = None
    volume: str | None = None
    pages: str | None = None
    publisher: str | None = None
    url: str | None = None
    doi: str | None = None
    isbn: str | None = None
    lang: str | None = None
    retrieved_on: str = ""
    retrieval_status: str = ""
    replaces: str | None = None
    note: str | None = None


def is_key(text: str) -> bool:
    return len(text) == KEY_LENGTH and all(c in _SYMBOLS for c in text)


def mint_key(entropy: bytes) -> str | None:
    """A key drawn from `entropy` by rejection sampling, or None if the bytes run out first."""
    out: list[str] = []
    for b in entropy:
        if b < _ACCEPT_BELOW:
            out.append(ALPHABET[b % len(ALPHABET)])
            if len(out) == KEY_LENGTH:
                return "".join(out)
    return None


# -- the record file ----------------------------------------------------------------------


def _pairs(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for raw in lines_of(text):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.partition("=")
        if not eq:
            continue
        key, value = key.strip().lower(), value.strip()
        if key and value:
            out.append((key, value))
    return out


def _one_of(field: str, value: str, legal: tuple[str, ...]) -> str:
    return f"{field} is `{printable(value)}`, which is not one of {', '.join(legal)}"


def record_problem(stem: str, fields: dict[str, str]) -> str | None:
    """The first reason (§5.2 order) a record with this stem and these fields is refused."""
    if not is_key(stem):
        return f"`{printable(stem)}` is not a key: {NOT_A_KEY}"
    kind = fields.get("type")
    if kind is None:
        return "no `type =` line"
    if kind not in TYPES:
        return _one_of("type", kind, TYPES)
    status = fields.get("retrieval_status")
    if status is None:
        return "no `retrieval_status =` line"
    if status not in STATUSES:
        return _one_of("retrieval_status", status, STATUSES)
    replaces = fields.get("replaces")
    if replaces is not None:
        if not is_key(replaces):
            return f"replaces is `{printable(replaces)}`, which is not a key"
        if replaces == stem:
            return "replaces names this record, so it supersedes itself"
    if "title" not in fields:
        return "no `title =` line"
    if "retrieved_on" not in fields:
        return "no `retrieved_on =` line"
    return None


def parse_record(stem: str, text: str) -> Result[Record, str]:
    from returns.result import Failure, Success

    pairs = _pairs(text)
    first: dict[str, str] = {}
    for k, v in pairs:
        first.setdefault(k, v)
    problem = record_problem(stem, first)
    if problem is not None:
        return Failure(problem)
    return Success(
        Record(
            key=stem,
            type=first["type"],
            title=first["title"],
            authors=tuple(v for k, v in pairs if k == "author"),
            year=first.get("year"),
            container=first.get("container"),
            volume=first.get("volume"),
            pages=first.get("pages"),
            publisher=first.get("publisher"),
            url=first.get("url"),
            doi=first.get("doi"),
            isbn=first.get("isbn"),
            lang=first.get("lang"),
            retrieved_on=first["retrieved_on"],
            retrieval_status=first["retrieval_status"],
            replaces=first.get("replaces"),
            note=first.get("note"),
        )
    )


def _lines(record: Record) -> list[tuple[str, str | None]]:
    """Every field in writing order; `author` once per author."""
    return [
        ("type", record.type),
        ("title", record.title),
        *(("author", a) for a in record.authors),
        ("year", record.year),
        ("container", record.container),
        ("volume", record.volume),
        ("pages", record.pages),
        ("publisher", record.publisher),
        ("url", record.url),
        ("doi", record.doi),
        ("isbn", record.isbn),
        ("lang", record.lang),
        ("retrieved_on", record.retrieved_on),
        ("retrieval_status", record.retrieval_status),
        ("replaces", record.replaces),
        ("note", record.note),
    ]


def render_record(record: Record) -> str:
    return "".join(f"{k} = {v}\n" for k, v in _lines(record) if v)


# -- what `kb source add` was given -------------------------------------------------------


@frozen
class Draft:
    """The flags of `kb source add`, each already passed through `clean_value`."""

    type: str | None = None
    title: str | None = None
    retrieved_on: str | None = None
    retrieval_status: str | None = None
    authors: tuple[str, ...] = ()
    year: str | None = None
    container: str | None = None
    volume: str | None = None
    pages: str | None = None
    publisher: str | None = None
    url: str | None = None
    doi: str | None = None
    isbn: str | None = None
    lang: str | None = None
    replaces: str | None = None
    note: str | None = None


def clean_value(value: str | None) -> str | None:
    """The value trimmed, or None when nothing is left: an empty flag counts as absent."""
    if value is None:
        return None
    value = value.strip()
    return value or None


def _flag(name: str) -> str:
    return "--author" if name == "authors" else "--" + name.replace("_", "-")


def draft_problem(draft: Draft, existing: frozenset[str], base: str) -> str | None:
    """The first reason `kb source add` refuses `draft`, checked before anything is created.

    `existing` is the set of keys that already have a record file in the base (`base` is
    the path as given, for the message). The original checked the title and the date only
    after creating `sources/` and never checked that a replaced key exists; here every
    check comes first (quirk 6 fixed), and `--replaces` must name a record this base holds,
    because a supersession pointing at nothing would hide the correction it records.
    """
    if draft.type is None:
        return "--type is required"
    if draft.type not in TYPES:
        return _one_of("type", draft.type, TYPES)
    if draft.retrieval_status is None:
        return "--retrieval-status is required"
    if draft.retrieval_status not in STATUSES:
        return _one_of("retrieval-status", draft.retrieval_status, STATUSES)
    if draft.replaces is not None:
        if not is_key(draft.replaces):
            return f"replaces is `{printable(draft.replaces)}`, which is not a key: {NOT_A_KEY}"
        if draft.replaces not in existing:
            return (
                f"replaces names `{draft.replaces}`, but {base} has no "
                f"sources/{draft.replaces}.txt: a record can only supersede one that exists"
            )
    if draft.title is None:
        return "--title is required"
    if draft.retrieved_on is None:
        return "--retrieved-on is required"
    if not is_iso_date(draft.retrieved_on):
        return (
            f"--retrieved-on takes the day you read it as YYYY-MM-DD (2026-09-06), not "
            f"`{printable(draft.retrieved_on)}`"
        )
    for attribute in fields(Draft):
        value = getattr(draft, attribute.name)
        for v in value if isinstance(value, tuple) else (value,):
            if v is not None and ("\n" in v or "\r" in v):
                return (
                    f"{_flag(attribute.name)} holds a line break, and a record keeps each value "
                    "on one line: give it as one line"
                )
    return None


_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_iso_date(text: str) -> bool:
    """`YYYY-MM-DD`, a day that exists: the one spelling every reader and CSL agree on.
    (By hand: kb.pure imports no clock module, datetime included.)"""
    y, m, d = text[:4], text[5:7], text[8:]
    if len(text) != 10 or text[4] != "-" or text[7] != "-":
        return False
    if not all(p.isascii() and p.isdigit() for p in (y, m, d)):
        return False
    year, month, day = int(y), int(m), int(d)
    if not 1 <= month <= 12 or year == 0:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    last = 28 if month == 2 and not leap else _MONTH_DAYS[month - 1]
    return 1 <= day <= last


def record_of(draft: Draft, key: str) -> Record:
    """The record a checked draft becomes under `key` (call `draft_problem` first)."""
    return Record(
        key=key,
        type=draft.type or "",
        title=draft.title or "",
        authors=draft.authors,
        year=draft.year,
        container=draft.container,
        volume=draft.volume,
        pages=draft.pages,
        publisher=draft.publisher,
        url=draft.url,
        doi=draft.doi,
        isbn=draft.isbn,
        lang=draft.lang,
        retrieved_on=draft.retrieved_on or "",
        retrieval_status=draft.retrieval_status or "",
        replaces=draft.replaces,
        note=draft.note,
    )


# -- the bibliography line ----------------------------------------------------------------


def _where(record: Record) -> str:
    where = record.container or ""
    if where and record.volume:  # a volume with no container is not shown (quirk 7, kept)
        where += f" {record.volume}"
    if record.pages:
        where = f"{where}, {record.pages}" if where else record.pages
    return where


def bibliography_line(record: Record) -> str:
    status = _STATUS_PHRASES.get(record.retrieval_status, "could not be reached")
    parts = [
        "; ".join(record.authors),
        f'"{record.title}"',
        _where(record),
        record.publisher or "",
        record.year or "",
        f"DOI {record.doi}" if record.doi else "",
        f"ISBN {record.isbn}" if record.isbn else "",
        record.url or "",
        f"{status}, {record.retrieved_on}",
    ]
    text = ""
    for i, part in enumerate(p for p in parts if p):
        if i:
            text += " " if text.endswith(".") else ". "
        text += part
    return text if text.endswith(".") else text + "."


# -- CSL JSON -----------------------------------------------------------------------------


def csl_name(author: str) -> dict[str, str]:
    family, comma, given = author.partition(",")
    if comma and given.strip():
        return {"family": family.strip(), "given": given.strip()}
    return {"literal": author}


def _date_number(part: str) -> int | None:
    # Rust parses each part as an i32: ASCII digits only, and nothing that overflows.
    if not part or not part.isascii() or not part.isdigit():
        return None
    n = int(part)
    return n if n <= 2**31 - 1 else None


def csl_date(text: str) -> dict[str, object]:
    """`{"date-parts": [[y, m, d]]}` from the numeric parts of `text`.

    A date with no numeric part at all (`n.d.`, `c. 1900`) becomes `{"literal": text}`:
    an empty date-parts array is not valid CSL, and a reference processor then prints the
    text as written instead of failing.
    """
    numbers = [n for n in (_date_number(p) for p in text.split("-")[:3]) if n is not None]
    if not numbers:
        return {"literal": text}
    return {"date-parts": [numbers]}


def csl_item(record: Record) -> dict[str, object]:
    item: dict[str, object] = {
        "id": record.key,
        "type": _CSL_TYPES.get(record.type, "webpage"),
        "title": record.title,
    }
    if record.authors:
        item["author"] = [csl_name(a) for a in record.authors]
    optional = (
        ("container-title", record.container),
        ("volume", record.volume),
        ("page", record.pages),
        ("publisher", record.publisher),
        ("URL", record.url),
        ("DOI", record.doi),
        ("ISBN", record.isbn),
        ("language", record.lang),
        ("note", record.note),
    )
    for name, value in optional:
        if value:
            item[name] = value
    if record.year:
        item["issued"] = csl_date(record.year)
    item["accessed"] = csl_date(record.retrieved_on)
    custom: dict[str, object] = {"retrieval_status": record.retrieval_status}
    if record.replaces:
        custom["replaces"] = record.replaces
    item["custom"] = custom
    return item
