"""Three-way merges of kb's own files, for git's merge drivers (`kb merge-driver`).

Each merge takes the common ancestor (`base`), this side (`ours`, git's %A) and the other
side (`theirs`, %B) as text and returns the merged text and whether it conflicted. Notes and
source records are never merged here: a real conflict in what a person wrote is theirs.

Rules shared by every kind:
- Trivial cases first, byte for byte: both sides equal gives ours; one side equal to the
  base gives the other side. So `merge(x, x, x) == x` and `merge(b, a, a) == a` for any text.
- Nothing either side added (relative to the base) is ever dropped: a line or a record a
  side added is in the result, or the result is a conflict that holds both versions.

MAP.md (`merge_map`):
- A map is read as sections: a section starts at an ATX heading (`#` to `######` and a space)
  and runs to the next; the lines before the first heading are a section too. Sections are
  matched by heading text and
  by occurrence (the second `## Notes` matches the second).
- An entry is a list line (`- `, `* ` or `+ ` after optional indentation), compared as the
  whole line. Everything else in a section (heading, prose, tables, blank lines) is its
  prose. A section's prose is compared without its trailing blank lines, because `kb write`
  trims them when it opens a new section below.
- Prose: taken from the side that changed it; when both changed it differently the section
  is a conflict, written as ours and theirs between `<<<<<<< ours`, `=======` and
  `>>>>>>> theirs` lines (both versions kept whole).
- Entries are a set with deletions: an entry of the base that one side removed from a
  section stays removed there; every entry either side added is kept; an entry already in
  the result is never added a second time (anywhere in the map).
- Layout: the side whose prose is kept (ours unless only theirs changed it) keeps its lines
  in place; the other side's new entries follow the last entry of the section (or close its
  prose when it has no entry). A section only one side has is dropped if the other side
  deleted it unchanged; if this side added it, it is kept whole; if this side changed it
  and the other deleted it, it is kept less the entries the base had there (deleted with
  the section). A section kept from theirs goes after the section it follows in theirs.
- What commutes (swapping ours and theirs): the set of entries, the set of headings, the
  prose of every section and whether the merge conflicted. Not the order: ours comes first.
  A map that repeats a heading is matched by occurrence, so an edit that adds or removes one
  of the repeats can pair different sections; the rules above still hold, the layout may not
  be the one a person would choose.

kb-misses.txt (`merge_misses`):
- One record per question (lower-cased, as kb.pure.logs.misslog reads it). Count: ours + theirs
  - base, each absent record counting 0; a record whose merged count is 0 or less is gone
  (deleted on one side and not asked again on the other). First seen: the earliest of the
  two sides; last seen: the latest. The spelling and `looked like:` come from the side whose
  record changed, the later `last` winning (ties broken by the text, so both orders agree).
- Written in kb.pure.logs.misslog's format and order (count descending, then question), under
  ours' comment header (theirs', or the standard one, when ours has none). Apart from that
  header the result does not depend on which side is ours.

Identical sides: two sides that recorded exactly the same rows since the base are two
machines' records, so a counted log adds them up like any others (`merge(b, a, a)` counts
every row of `a` twice less the base's): a counter never loses one side's records, whatever
git does. Git never runs a driver when both sides hold the same text (it takes that text),
so `kb sync` also merges the counted logs itself from the merge base (`merge_counts`) and
commits the difference (kb.io.fleet.sync). Only the wholly unchanged case is taken as it stands
(`merge(a, a, a) == a`, and a side equal to the base yields the other side).

Counts are validated before anything is added: a row a side added or changed whose count
is negative, carries a sign, or passes MAX_COUNT (a billion) is refused, and the merge is
a conflict that names the file, the side and the line, with ours left as it was. The readers
skip such a row (a negative one, or a sum past 18 digits), so adding it would make rows
vanish from `kb misses`; a count that is not a number at all is left to the reader's own
forgiving rules. Text that is not UTF-8 reaches these functions with its bytes kept as lone
surrogates (kb.io.fleet.mergedriver decodes with `surrogateescape`), and comes out the same.

The counted logs (`merge_log`): kb-misroutes.txt, kb-abstentions.txt, kb-rejections.txt,
kb-alias-rejections.txt. Each is one row per distinct record with a count and two dates,
and each is merged exactly like the miss log, over its own row identity (kb.pure.logs.routelogs,
kb.pure.promotion.rejections, kb.pure.promotion.aliasgate): counts ours + theirs - base, widest
dates, the describing fields from the newest changed row. A log is recognised by its file name, else
by the first line of its header. A file that is neither is merged as a set of lines: ours in order
minus the base lines theirs deleted, then theirs' new lines. Rows with equal counts keep ours' order
first.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import attrs
from attrs import evolve, frozen

from kb.pure.logs import misslog

KINDS = ("map", "misses", "log")
MARKER_SIZE = 7  # git's own conflict marker width
OURS_MARK = "<" * MARKER_SIZE + " ours"
SPLIT_MARK = "=" * MARKER_SIZE
THEIRS_MARK = ">" * MARKER_SIZE + " theirs"


@frozen
class Merged:
    text: str
    conflicted: bool = False
    # Why nothing was merged, for a count kb refuses (one line naming file, side and line);
    # `text` is then ours unchanged and `conflicted` is set.
    problem: str = ""


def merge(kind: str, base: str, ours: str, theirs: str, name: str | None = None) -> Merged:
    """Dispatch on `kind` (one of KINDS; anything else is a bug in the caller)."""
    if kind == "map":
        return merge_map(base, ours, theirs)
    if kind == "misses":
        return merge_misses(base, ours, theirs)
    if kind == "log":
        return merge_log(base, ours, theirs, name)
    raise ValueError(f"merge kind is one of {', '.join(KINDS)}, not {kind!r}")


def owns(kind: str, path: str) -> bool:
    """Whether a driver of `kind` merges the file at `path` (git's %P): its last part must be
    one of that kind's own file names, so a `.gitattributes` line sending a note here is
    refused rather than obeyed."""
    leaf = path.replace("\\", "/").rsplit("/", 1)[-1]
    if kind == "map":
        return leaf == "MAP.md"
    if kind == "misses":
        return leaf == misslog.LOG_NAME
    return kind == "log" and leaf in LOG_NAMES


def _trivial(base: str, ours: str, theirs: str) -> Merged | None:
    if ours == theirs or theirs == base:
        return Merged(ours)
    if ours == base:
        return Merged(theirs)
    return None


# -- MAP.md ------------------------------------------------------------------------------

_ENTRY_MARKS = ("- ", "* ", "+ ")


@frozen
class _Line:
    text: str
    entry: bool
    heading: bool


@frozen
class _Section:
    key: tuple[str | None, int]  # (heading text stripped, occurrence); None: before any
    lines: tuple[_Line, ...]

    @property
    def entries(self) -> tuple[str, ...]:
        return tuple(x.text for x in self.lines if x.entry)

    @property
    def prose(self) -> tuple[str, ...]:
        out = [x.text for x in self.lines if not x.entry]
        while out and not out[-1].strip():
            out.pop()
        return tuple(out)

    @property
    def content(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """What a side can change: the prose and the entries (trailing blanks are layout)."""
        return self.prose, self.entries

    @property
    def texts(self) -> list[str]:
        return [x.text for x in self.lines]


def _is_heading(line: str) -> bool:
    hashes = len(line) - len(line.lstrip("#"))
    return 1 <= hashes <= 6 and line[hashes : hashes + 1] == " "


def _classify(lines: Sequence[str]) -> list[_Line]:
    # Each line on its own, so a merged map reads back exactly as its pieces did (a code
    # fence is not special: a map holds no code worth a context-aware reading).
    return [
        _Line(x, entry=x.lstrip().startswith(_ENTRY_MARKS), heading=_is_heading(x)) for x in lines
    ]


def _split_text(text: str) -> tuple[list[str], bool]:
    """The lines of `text` without terminators, and whether it ended with a newline."""
    if not text:
        return [], False
    lines = text.split("\n")
    if lines[-1] == "":
        return lines[:-1], True
    return lines, False


def _sections(text: str) -> tuple[list[_Section], bool]:
    lines, ends = _split_text(text)
    groups: list[list[_Line]] = [[]]
    for line in _classify(lines):
        if line.heading:
            groups.append([])
        groups[-1].append(line)
    seen: dict[str | None, int] = {}
    out: list[_Section] = []
    for i, group in enumerate(groups):
        if i == 0 and not group:
            continue
        head = group[0].text.strip() if group and group[0].heading else None
        n = seen.get(head, 0)
        seen[head] = n + 1
        out.append(_Section((head, n), tuple(group)))
    return out, ends


_PREAMBLE: tuple[str | None, int] = (None, 0)


def _with_preamble(secs: list[_Section]) -> list[_Section]:
    """`secs` opening with the section before the first heading, empty when it had none."""
    if secs and secs[0].key == _PREAMBLE:
        return secs
    return [_Section(_PREAMBLE, ()), *secs]


def _place(lines: list[_Line], new: Sequence[str]) -> list[_Line]:
    """`lines` with the entries `new` after its last entry, or closing its prose."""
    if not new:
        return lines
    added = [_Line(e, entry=True, heading=False) for e in new]
    last = max((i for i, x in enumerate(lines) if x.entry), default=None)
    if last is None:
        floor = 1 if lines and lines[0].heading else 0
        at = len(lines)
        while at > floor and not lines[at - 1].text.strip():
            at -= 1
        return [*lines[:at], *added, *lines[at:]]
    return [*lines[: last + 1], *added, *lines[last + 1 :]]


@frozen
class _Plan:
    """How one section of the result is made, before the other side's entries are added."""

    key: tuple[str | None, int]
    lines: tuple[_Line, ...]  # the kept side's lines, less the entries the other side deleted
    offered: tuple[str, ...]  # the other side's entries that the base did not have there
    conflict: tuple[str, ...] = ()  # when set: the whole conflict block, written as it is
    placed: bool = False  # a section only theirs has, placed among ours
    theirs: bool = False  # `lines` are theirs (placed, or theirs alone changed the prose)
    was: frozenset[str] = frozenset()  # the entries the base had in this section


def _less(lines: tuple[_Line, ...], base: _Section | None) -> tuple[_Line, ...]:
    """A section the other side deleted: its lines without the entries the base had there
    (deleted with it); what this side added stays, under its heading."""
    if base is None:
        return lines
    gone = set(base.entries)
    return tuple(x for x in lines if not (x.entry and x.text in gone))


def _conflict_block(ours: _Section, theirs: _Section) -> tuple[str, ...]:
    return (OURS_MARK, *ours.texts, SPLIT_MARK, *theirs.texts, THEIRS_MARK)


def _plan(base: _Section | None, ours: _Section, theirs: _Section) -> _Plan:
    b_prose = base.prose if base is not None else None
    if ours.prose == theirs.prose or theirs.prose == b_prose:
        kept, other = ours, theirs
    elif ours.prose == b_prose:
        kept, other = theirs, ours
    else:
        return _Plan(ours.key, (), (), _conflict_block(ours, theirs))
    in_base = set(base.entries) if base is not None else set()
    deleted = in_base - set(other.entries)
    lines = tuple(x for x in kept.lines if not (x.entry and x.text in deleted))
    offered = tuple(e for e in other.entries if e not in in_base)
    return _Plan(kept.key, lines, offered, theirs=kept is theirs, was=frozenset(in_base))


def merge_map(base: str, ours: str, theirs: str) -> Merged:
    done = _trivial(base, ours, theirs)
    if done is not None:
        return done
    b_secs, b_ends = _sections(base)
    o_secs, o_ends = _sections(ours)
    t_secs, t_ends = _sections(theirs)
    # Lines the base had before its first heading are never a section a side deleted: a
    # side with none has emptied them, a change of prose like any other (else merging a
    # merge's own result again brought back prose both sides had let go: base "- e / prose",
    # ours "- e", theirs "prose" merge to "", and "" with theirs gave "prose" back).
    if b_secs and b_secs[0].key == _PREAMBLE:
        o_secs, t_secs = _with_preamble(o_secs), _with_preamble(t_secs)
    b_by = {s.key: s for s in b_secs}
    t_by = {s.key: s for s in t_secs}
    o_keys = {s.key for s in o_secs}

    plans: list[_Plan] = []
    for sec in o_secs:
        b, t = b_by.get(sec.key), t_by.get(sec.key)
        if t is not None:
            plans.append(_plan(b, sec, t))
        elif b is None or sec.content != b.content:  # ours added or changed what theirs deleted
            plans.append(_Plan(sec.key, _less(sec.lines, b), ()))
    # Sections only theirs has: kept whole unless ours deleted them unchanged, each placed
    # after the section it follows in theirs.
    previous: tuple[str | None, int] | None = None
    for sec in t_secs:
        if sec.key in o_keys:
            previous = sec.key
            continue
        b = b_by.get(sec.key)
        if b is not None and sec.content == b.content:
            continue
        at = next((i + 1 for i, p in enumerate(plans) if p.key == previous), 0)
        if at == 0 and plans and plans[0].key[0] is None:
            at = 1  # nothing goes above the lines before the first heading
        while at < len(plans) and plans[at].key not in o_keys:
            at += 1  # after the sections of theirs already placed there, in theirs' order
        plans.insert(at, _Plan(sec.key, _less(sec.lines, b), (), placed=True, theirs=True))
        previous = sec.key

    # An entry is listed once: what ours keeps is listed first, wherever it stands, and an
    # entry theirs added is left out where the map already lists it.
    present = {x.text for p in plans if not p.theirs for x in p.lines if x.entry}
    present |= {line for p in plans for line in p.conflict}
    out: list[str] = []
    after_placed = False
    for p in plans:
        if p.conflict:
            out.extend(p.conflict)
            after_placed = False
            continue
        if p.theirs:
            kept: list[_Line] = []
            for x in p.lines:
                if x.entry and x.text in present and (p.placed or x.text not in p.was):
                    continue
                if x.entry:
                    present.add(x.text)
                kept.append(x)
            p = evolve(p, lines=tuple(kept))
        new: list[str] = []
        for e in p.offered:
            if e not in present:
                present.add(e)
                new.append(e)
        lines = _place(list(p.lines), new)
        seam = p.placed or after_placed
        if seam and out and out[-1].strip() and lines and lines[0].heading:
            out.append("")  # a section of theirs placed where no blank line closes the last
        out.extend(x.text for x in lines)
        after_placed = p.placed
    conflicted = any(p.conflict for p in plans)
    return Merged(_joined(out, _ends(b_ends, o_ends, t_ends)), conflicted)


def _ends(base: bool, ours: bool, theirs: bool) -> bool:
    """Whether the merged text ends with a newline: the side that changed that decides."""
    return ours if ours == theirs or theirs == base else theirs


def _joined(lines: list[str], ends: bool) -> str:
    if not ends:
        # A file without a final newline does not end in blank lines either: kept, they
        # would read back as a final newline, and merging the same change again would differ.
        while lines and not lines[-1].strip():
            lines.pop()
    return "\n".join(lines) + ("\n" if ends and lines else "")


# -- counted records: the miss log and the four logs ---------------------------------------


@frozen
class _Rows:
    """How one counted log reads, keys, dates and writes its rows."""

    name: str
    header: str
    parse: Callable[[str], Sequence[Any]]
    key: Callable[[Any], Hashable]
    render: Callable[[Sequence[Any]], str]
    first: str  # the row's field names for the two dates
    last: str


def _by_count(rows: Sequence[Any]) -> list[Any]:
    return sorted(rows, key=lambda r: -int(r.count))  # stable: ties keep their order


MISSES = _Rows(
    misslog.LOG_NAME,
    misslog.HEADER,
    misslog.parse,
    lambda m: m.question.lower(),
    misslog.render,
    "first",
    "last",
)
# The four logs' names, as literals: a merge driver for MAP.md (the common case, run once per
# merged map during a rebase) then never imports the log modules, which took 200 of its 700
# ms. tests/properties/test_merge_drivers.py holds them equal to the modules' own constants.
LOG_NAMES = (
    "kb-misroutes.txt",
    "kb-abstentions.txt",
    "kb-rejections.txt",
    "kb-alias-rejections.txt",
)


@functools.cache
def logs() -> tuple[_Rows, ...]:
    """How each counted log reads and writes, in LOG_NAMES order (imported on first use)."""
    from kb.pure.logs import routelogs
    from kb.pure.promotion import aliasgate, rejections

    return (
        _Rows(
            routelogs.MISROUTES_NAME,
            routelogs.MISROUTES_HEADER,
            routelogs.parse_misroutes,
            lambda m: routelogs.misroute_key(m.message, m.chose, m.owner),
            routelogs.render_misroutes,
            "first",
            "last",
        ),
        _Rows(
            routelogs.ABSTENTIONS_NAME,
            routelogs.ABSTENTIONS_HEADER,
            routelogs.parse_abstentions,
            lambda a: routelogs.abstention_key(a.subject, a.message),
            routelogs.render_abstentions,
            "first",
            "last",
        ),
        _Rows(
            rejections.LOG_NAME,
            rejections.HEADER,
            rejections.parse,
            lambda r: (r.agent, r.slug, r.lens),
            lambda rows: rejections.render(_by_count(rows)),
            "first_seen",
            "last_seen",
        ),
        _Rows(
            aliasgate.REJECTIONS_NAME,
            aliasgate.REJECTIONS_HEADER,
            aliasgate.parse_rejections,
            lambda r: r.line,
            lambda rows: aliasgate.render_rejections(_by_count(rows)),
            "first_seen",
            "last_seen",
        ),
    )


def _folded(spec: _Rows, text: str) -> dict[Hashable, Any]:
    """Rows by identity; two rows of one identity (a log merged by hand) add up."""
    out: dict[Hashable, Any] = {}
    for row in spec.parse(text):
        k = spec.key(row)
        seen = out.get(k)
        out[k] = row if seen is None else _widened(spec, row, seen, row, seen.count + row.count)
    return out


def _widened(spec: _Rows, describe: Any, one: Any, two: Any, count: int) -> Any:
    """`describe` with `count` and the dates widened to span rows `one` and `two`."""
    first = min(getattr(one, spec.first), getattr(two, spec.first))
    last = max(getattr(one, spec.last), getattr(two, spec.last))
    return evolve(describe, count=count, **{spec.first: first, spec.last: last})


def _newest(spec: _Rows, rows: Iterable[Any]) -> Any:
    # Total order, so that swapping the sides picks the same row.
    return max(rows, key=lambda r: (getattr(r, spec.last), repr(attrs.astuple(r))))


def _header(text: str) -> str:
    """The leading comment block of `text` (its `#` lines, through the last one's newline)."""
    lines = text.split("\n")
    n = 0
    while n < len(lines) and lines[n].startswith("#"):
        n += 1
    return "\n".join(lines[:n]) + "\n" if n else ""


# A billion refusals of one question is no log any fleet keeps: a count past it is damage
# or planted, and two of them added must still read back (a reader skips a count longer
# than 18 digits).
MAX_COUNT = 10**9
_COUNT_LIKE = re.compile(r"[+-]?[0-9]+")


def count_problem(name: str, text: str, base: str = "") -> tuple[int, str] | None:
    """The first line of the counted log `text` (named `name`), not also a line of `base`,
    whose count kb refuses: (its number from 1, why). A count field that is not a number
    at all is the reader's business (module docstring)."""
    have = set(base.split("\n")) if base else set()
    tabbed = name.replace("\\", "/").rsplit("/", 1)[-1] != misslog.LOG_NAME
    for n, raw in enumerate(text.split("\n"), 1):
        if raw in have:
            continue
        body = raw.strip()
        if not body or body.startswith(("#", "looked like:")):
            continue
        field = raw.split("\t", 1)[0].strip() if tabbed else body.split(None, 1)[0]
        if not _COUNT_LIKE.fullmatch(field):
            continue
        if field.startswith("-") and field.strip("-0"):
            why = "is negative"
        elif field[0] in "+-":
            why = "carries a sign, which kb never writes"
        elif len(field.lstrip("0")) > len(str(MAX_COUNT)) or int(field) > MAX_COUNT:
            why = f"is past {MAX_COUNT:,}"
        else:
            continue
        return n, f"the count {field[:24]}{'...' if len(field) > 24 else ''} {why}"
    return None


def count_line(name: str, side: str, found: tuple[int, str]) -> str:
    """One line naming a refused count: file, side, line, why, and the legal range."""
    n, why = found
    return f"{name} line {n} ({side}): {why}; a count is a whole number from 0 to {MAX_COUNT:,}"


def _merge_rows(spec: _Rows, base: str, ours: str, theirs: str) -> Merged:
    """Counted rows merged from their common ancestor: counts add (ours + theirs - base),
    identical sides included (module docstring)."""
    for side, text in (("ours", ours), ("theirs", theirs)):
        found = count_problem(spec.name, text, base) if text != base else None
        if found is not None:
            return Merged(ours, conflicted=True, problem=count_line(spec.name, side, found))
    done = _trivial(base, ours, theirs)
    if done is not None and not ours == theirs != base:
        return done
    b, o, t = _folded(spec, base), _folded(spec, ours), _folded(spec, theirs)
    rows: list[Any] = []
    for k in [*o, *(k for k in t if k not in o)]:
        was, mine, other = b.get(k), o.get(k), t.get(k)
        count = sum(r.count for r in (mine, other) if r is not None)
        count -= was.count if was is not None else 0
        if count <= 0:
            continue
        sides = [r for r in (mine, other) if r is not None]
        changed = [r for r in sides if r != was] or sides
        rows.append(_widened(spec, _newest(spec, changed), sides[0], sides[-1], count))
    rendered = spec.render(rows)
    header = _header(ours) or _header(theirs) or spec.header
    return Merged(header + rendered[len(spec.header) :])


def merge_misses(base: str, ours: str, theirs: str) -> Merged:
    return _merge_rows(MISSES, base, ours, theirs)


def log_spec(name: str | None, *texts: str) -> _Rows | None:
    """The counted log named `name` (a path's last part), else the one whose header's first
    line opens one of `texts`; None when neither says."""
    if name is not None:
        leaf = name.replace("\\", "/").rsplit("/", 1)[-1]
        if leaf == MISSES.name:
            return MISSES
        if leaf in LOG_NAMES:
            return logs()[LOG_NAMES.index(leaf)]
    for text in texts:
        for spec in (MISSES, *logs()):
            if text.startswith(spec.header.split("\n", 1)[0] + "\n"):
                return spec
    return None


def merge_counts(base: str, ours: str, theirs: str, name: str) -> Merged | None:
    """The counted log `name` merged as `merge_log` merges it, for `kb sync`'s own merge
    from the merge base (git takes two identical sides as one text without asking a
    driver); None for a file that is not a counted log."""
    spec = log_spec(name)
    return _merge_rows(spec, base, ours, theirs) if spec else None


def merge_log(base: str, ours: str, theirs: str, name: str | None = None) -> Merged:
    spec = log_spec(name, ours, theirs, base)
    if spec is not None:
        return _merge_rows(spec, base, ours, theirs)
    return _merge_lines(base, ours, theirs)


def _merge_lines(base: str, ours: str, theirs: str) -> Merged:
    done = _trivial(base, ours, theirs)
    if done is not None:
        return done
    b_lines, b_ends = _split_text(base)
    o_lines, o_ends = _split_text(ours)
    t_lines, t_ends = _split_text(theirs)
    in_base = set(b_lines)
    deleted = in_base - set(t_lines)
    out = [line for line in o_lines if line not in deleted]
    have = set(out)
    for line in t_lines:
        if line not in in_base and line not in have:
            have.add(line)
            out.append(line)
    return Merged(_joined(out, _ends(b_ends, o_ends, t_ends)))
