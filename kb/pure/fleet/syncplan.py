"""`kb sync`: which files are kb's own, how git is told to merge them, and what is reported.

The git plumbing is kb.io.fleet.sync; every decision it needs is here.

Rules of this module:
- kb's own files are the miss log and the four counted logs (by file name, anywhere in the
  fleet), and each base's `MAP.md` when its only changes are what kb's writers make. They
  are the only files `kb sync` commits; a note, a source record or any other file is the
  person's, committed with `kb commit`.
- A change to `MAP.md` is kb's when the committed map, read line by line, is still there in
  order and every other line is an entry (`- `, `* ` or `+ `), a `### ` section heading or
  blank: what `kb write` and `kb promote` add. Trailing whitespace at the end of the file is
  ignored, because opening a new section trims it. Anything else is a person's edit, and the
  map is left for them.
- `.gitattributes` gets one line per file name, `<name> merge=<driver>`, under one comment;
  lines already there are not written twice, and nothing else in the file is touched. The
  same lines go to `.git/info/attributes`, which git reads before the tracked file, so the
  drivers also work during the rebase that first brings the tracked file in.
- The drivers are set in the repository's own git config (never `--global`): a name and a
  command `<python> -I -m kb.shell.cli.main merge-driver <kind> %O %A %B %P`, the interpreter kb
  runs in, quoted for the shell git runs it with. `-I` is Python's isolated mode: git runs a
  driver from the top of the work tree, and `python -m` would otherwise put that folder
  first on the import path, so a pushed `kb/` package there would run as kb.
- Derived and transient files (`.kb/`, lock files, deferred records, kb's temp files) are
  listed in `.git/info/exclude`, so a `git add -A` by hand cannot commit them.

Own places (what `kb sync` may commit):
- A log is kb's own only where kb writes it: directly in the fleet root or directly in a
  base's root. A map is kb's own only as `MAP.md` directly in a base's root. Anything with
  one of those names elsewhere (`fleet/ada/records/kb-misses.txt`) is a person's file.
- Nothing the base's private layer covers is ever kb's own: not a file in a private
  folder, and nothing at all in a base that is private whole (the person base).

What a pull may bring (checked before anything is committed or rebased; a refused pull
changes nothing):
- No path under a `.kb/` folder, added or changed: an index is derived per machine and
  never travels. Deleting one is welcome.
- No `.gitattributes` line, new to this side, that routes a path through `merge=union`
  (which keeps both sides of a conflict without a word), or through one of kb's drivers
  unless its pattern names exactly one of that driver's own files (`MAP.md`,
  `fleet/ada/kb-misses.txt`, `**/kb-misroutes.txt`: no wildcard in the last part). A line
  this side already has is left alone: it is in effect already, and it is this side's.
  kb's own lines are also pinned in `.git/info/attributes`, which git reads before any
  tracked file, so no pushed line can take kb's files away from kb's drivers.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Iterable, Sequence

from attrs import frozen

from kb.pure.fleet.merge import LOG_NAMES
from kb.pure.logs import misslog
from kb.pure.notes.manifest import PrivateLayer
from kb.pure.notes.names import printable

MAP_NAME = "MAP.md"
OWN_LOGS = (misslog.LOG_NAME, *LOG_NAMES)
ATTRIBUTES_NAME = ".gitattributes"
ATTRIBUTES_COMMENT = "# kb sync: kb's own files merge through `kb merge-driver` (docs/deploy.md)"


@frozen
class Driver:
    kind: str  # the `kb merge-driver` kind
    name: str  # the git merge driver's name, `merge=<name>` in .gitattributes
    title: str
    files: tuple[str, ...]


DRIVERS = (
    Driver("map", "kb-map", "kb: MAP.md entries, the union per section", (MAP_NAME,)),
    Driver("misses", "kb-misses", "kb: kb-misses.txt, counts added", (misslog.LOG_NAME,)),
    Driver("log", "kb-log", "kb: kb's counted logs, counts added", LOG_NAMES),
)
EXCLUDES = (
    ".kb/",
    "MAP.md.lock",
    "kb-*.txt.lock",
    ".kb-*.txt.pending/",
    ".MAP.md.*.tmp",
    ".kb-*.txt.*.tmp",
)
EXCLUDE_COMMENT = "# kb sync: derived and transient files kb writes (never committed)"


def attribute_lines() -> tuple[str, ...]:
    return tuple(f"{name} merge={d.name}" for d in DRIVERS for name in d.files)


def _extended(text: str, comment: str, lines: Sequence[str]) -> str:
    have = {line.strip() for line in text.split("\n")}
    missing = [line for line in lines if line not in have]
    if not missing:
        return text
    head = text if not text or text.endswith("\n") else text + "\n"
    gap = "\n" if head.strip() else ""
    block = ([comment] if comment not in have else []) + missing
    return head + gap + "".join(line + "\n" for line in block)


def with_attributes(text: str) -> str:
    """`.gitattributes` (or `.git/info/attributes`) with every kb line present."""
    return _extended(text, ATTRIBUTES_COMMENT, attribute_lines())


def with_excludes(text: str) -> str:
    """`.git/info/exclude` with kb's derived and transient files listed."""
    return _extended(text, EXCLUDE_COMMENT, EXCLUDES)


# Python's isolated mode: no current folder, script folder, PYTHON* variable or user site on
# the import path. git starts a merge driver in the top of the work tree, where a pushed
# `kb/` package would otherwise be imported first (issue 24, F1).
ISOLATED = "-I"


def driver_prefix(python: str) -> str:
    """How git starts kb for a merge: `<python> -I -m kb.shell.cli.main`, quoted for a shell."""
    return f"{shlex.quote(python)} {ISOLATED} -m kb.shell.cli.main"


def driver_settings(python: str) -> tuple[tuple[str, str], ...]:
    """The `git config` keys and values for every driver, run by interpreter `python`."""
    command = f"{driver_prefix(python)} merge-driver"
    out: list[tuple[str, str]] = []
    for d in DRIVERS:
        out.append((f"merge.{d.name}.name", d.title))
        out.append((f"merge.{d.name}.driver", f"{command} {d.kind} %O %A %B %P"))
    return tuple(out)


# -- what is kb's own ------------------------------------------------------------------------


def is_own_log(path: str) -> bool:
    return posixpath.basename(path) in OWN_LOGS


def is_map(path: str) -> bool:
    return posixpath.basename(path) == MAP_NAME


def _kb_line(line: str) -> bool:
    bare = line.strip()
    return not bare or bare.startswith(("- ", "* ", "+ ")) or line.startswith("### ")


def is_kb_map_change(committed: str, now: str) -> bool:
    """True when `now` is `committed` with only entries, `### ` headings and blank lines
    added (what kb's writers do to a map)."""
    old = committed.rstrip().split("\n") if committed.strip() else []
    i = 0
    for line in now.rstrip().split("\n") if now.strip() else []:
        if i < len(old) and line == old[i]:
            i += 1
        elif not _kb_line(line):
            return False
    return i == len(old)


def is_kb_attributes_change(committed: str, now: str) -> bool:
    return now != committed and now == with_attributes(committed)


# -- own places -----------------------------------------------------------------------------


@frozen
class Place:
    """A base of the fleet as `kb sync` sees it: its root relative to the repository top
    (`.` for the top itself) and its private layer."""

    rel: str
    private: PrivateLayer


def _folder(rel: str) -> str:
    return posixpath.dirname(rel) or "."


def _inside(rel: str, folder: str) -> str | None:
    """`rel` relative to `folder` (both relative to the repository top), or None."""
    if folder in ("", "."):
        return rel
    return rel[len(folder) + 1 :] if rel.startswith(folder + "/") else None


def is_private(rel: str, bases: Sequence[Place]) -> bool:
    """Whether any base's private layer covers the path `rel`."""
    for b in bases:
        inner = _inside(rel, b.rel)
        if inner is not None and b.private.covers(inner):
            return True
    return False


def own_kind(rel: str, fleet_rel: str, bases: Sequence[Place]) -> str | None:
    """`log` or `map` when `rel` (relative to the repository top) is one of kb's own files
    at its own place and in no private layer, else None (module rules)."""
    name = posixpath.basename(rel)
    if name in OWN_LOGS:
        kind = "log"
    elif name == MAP_NAME:
        kind = "map"
    else:
        return None
    if is_private(rel, bases):
        return None
    folder = _folder(rel)
    if any(b.rel == folder for b in bases):
        return kind
    fleet = fleet_rel.rstrip("/") or "."
    return kind if kind == "log" and folder == fleet else None


# -- what a pull may bring ------------------------------------------------------------------

KB_FOLDER = ".kb"
_GLOB = frozenset("*?[\\")


def in_kb_folder(path: str) -> bool:
    """Whether `path` is or lies under a `.kb` folder (an index), at any depth."""
    return KB_FOLDER in path.split("/")


def _attribute_words(line: str) -> tuple[str, list[str]] | None:
    """A `.gitattributes` line as (pattern, attributes); None for a blank or comment line.
    A pattern may be quoted, as git quotes it (`"a b" merge=union`)."""
    body = line.strip()
    if not body or body.startswith("#"):
        return None
    if body.startswith('"'):
        i = 1
        while i < len(body) and body[i] != '"':
            i += 2 if body[i] == "\\" else 1
        return body[1:i], body[i + 1 :].split()
    words = body.split()
    return words[0], words[1:]


def _names_own_file(pattern: str, files: Sequence[str]) -> bool:
    leaf = pattern.rsplit("/", 1)[-1]
    return leaf in files and not any(c in _GLOB for c in leaf)


def routed_lines(old: str, new: str) -> list[str]:
    """The lines of a `.gitattributes` (`new`) that `old` (this side's version) lacks and
    that route paths through `merge=union`, or through a kb driver without naming exactly
    one of its own files (module rules)."""
    have = {line.strip() for line in old.split("\n")}
    by_name = {d.name: d.files for d in DRIVERS}
    out: list[str] = []
    for line in new.split("\n"):
        if line.strip() in have:
            continue
        words = _attribute_words(line)
        if words is None:
            continue
        pattern, attributes = words
        for attribute in attributes:
            key, eq, driver = attribute.partition("=")
            if key != "merge" or not eq:
                continue
            if driver == "union" or (
                driver in by_name and not _names_own_file(pattern, by_name[driver])
            ):
                out.append(line.strip())
                break
    return out


@frozen
class Refused:
    """What a pull would bring that kb refuses: each a path or a `path: line` to name."""

    kb_folders: tuple[str, ...] = ()
    attributes: tuple[tuple[str, str], ...] = ()  # (the .gitattributes path, its line)
    counts: tuple[str, ...] = ()  # kb.pure.fleet.merge.count_problem lines

    def __bool__(self) -> bool:
        return bool(self.kb_folders or self.attributes or self.counts)


def refused_line(r: Refused, upstream: str) -> str:
    """The one line when a pull is refused: what, why, and what to do; nothing changed."""
    up = printable(upstream)
    parts: list[str] = []
    if r.kb_folders:
        parts.append(
            f"{up} adds {_names(r.kb_folders, 3)} under .kb/, which holds each machine's own "
            "index and is never tracked (untrack it where it was committed: "
            "git rm -r --cached <base>/.kb)"
        )
    if r.attributes:
        shown = ", ".join(f"{printable(p)}: `{printable(x)}`" for p, x in r.attributes[:3])
        more = f" and {len(r.attributes) - 3} more" if len(r.attributes) > 3 else ""
        parts.append(
            f"{up} adds {shown}{more}, which routes files through merge=union (both sides of a "
            "conflict kept without a word) or through a kb merge driver meant only for kb's own "
            "files (remove the line there, or commit it here first if it is yours)"
        )
    if r.counts:
        parts.append(f"{_names(r.counts, 3)} (fix the line, or delete it)")
    return (
        f"sync refused what {up} brings: "
        + "; ".join(parts)
        + (". Nothing was changed here; run kb sync again once it is fixed")
    )


@frozen
class Status:
    """One entry of `git status --porcelain=v1 -z`."""

    code: str  # the two status letters, `??` for untracked
    path: str

    @property
    def tracked(self) -> bool:
        return self.code != "??"


def parse_status(porcelain_z: str) -> list[Status]:
    """`git status --porcelain=v1 -z`: `XY path`, and after a rename or copy its old path as
    a field of its own (skipped)."""
    out: list[Status] = []
    fields = porcelain_z.split("\0")
    i = 0
    while i < len(fields):
        field = fields[i]
        i += 1
        if len(field) <= 3:
            continue
        code = field[:2]
        out.append(Status(code, field[3:]))
        if "R" in code or "C" in code:
            i += 1
    return out


def touched_bases(bases: Sequence[tuple[str, str]], changed: Iterable[str]) -> list[str]:
    """The names of the bases (name, path relative to the repository, `.` for its top)
    holding any of the `changed` paths (relative to the repository), in the given order."""
    paths = list(changed)
    out: list[str] = []
    for name, rel in bases:
        if rel in ("", ".") or any(p == rel or p.startswith(rel.rstrip("/") + "/") for p in paths):
            out.append(name)
    return out


# -- what is reported ------------------------------------------------------------------------


@frozen
class Report:
    where: str  # the repository's top
    upstream: str  # `origin/main`
    set_up: bool  # drivers, attributes or excludes were written this run
    committed: tuple[str, ...]  # paths kb committed, relative to the repository
    left: tuple[str, ...]  # maps with changes kb did not make
    pulled: int  # commits brought in
    changed: int  # files those commits changed
    reindexed: tuple[str, ...]
    pushed: int
    stash_kept: bool = False  # the autostash did not apply cleanly and is kept in git stash
    # What this run undid of a sync that was killed (kb.io.fleet.syncrecover), first line first.
    recovered: tuple[str, ...] = ()
    # The model commands fleet.txt names that await approval (kb.pure.fleet.trust), as roles,
    # and the fleet root `kb trust` is to be run on.
    awaiting: tuple[str, ...] = ()
    fleet: str = ""


def _names(paths: Sequence[str], shown: int = 6) -> str:
    head = ", ".join(printable(p) for p in paths[:shown])
    return head + (f" and {len(paths) - shown} more" if len(paths) > shown else "")


def report_text(r: Report) -> str:
    lines = [f"synced {printable(r.where)} with {printable(r.upstream)}"]
    lines += [f"  {printable(x)}" for x in r.recovered]
    if r.set_up:
        lines.append(
            "  set up the merge drivers: .gitattributes, .git/info/attributes and this "
            "repository's git config"
        )
    if r.committed:
        lines.append(f"  committed {len(r.committed)} file(s) kb wrote: {_names(r.committed)}")
    else:
        lines.append("  nothing of kb's to commit")
    for path in r.left:
        lines.append(
            f"  left for you: {printable(path)} has changes kb did not make; "
            "commit it with `kb commit`"
        )
    if r.pulled:
        lines.append(f"  pulled {r.pulled} commit(s) changing {r.changed} file(s)")
    else:
        lines.append(f"  nothing new on {printable(r.upstream)}")
    if r.reindexed:
        lines.append(f"  re-indexed {', '.join(printable(n) for n in r.reindexed)}")
    lines.append(f"  pushed {r.pushed} commit(s)" if r.pushed else "  nothing to push")
    if r.stash_kept:
        lines.append(STASH_KEPT)
    if r.awaiting:
        roles = " and ".join(printable(x) for x in r.awaiting)
        one = len(r.awaiting) == 1
        lines.append(
            f"  fleet.txt's {roles} {'command' if one else 'commands'} came with a pull and "
            f"{'awaits' if one else 'await'} approval: nothing runs "
            f"{'it' if one else 'them'} until you read {'it' if one else 'them'} and run "
            f"kb trust {printable(r.fleet or r.where)}"
        )
    return "\n".join(lines) + "\n"


STASH_KEPT = (
    "  your uncommitted changes did not apply cleanly over what was pulled; they are kept in "
    "`git stash` (git stash pop to merge them)"
)


def conflict_line(files: Sequence[str], upstream: str) -> str:
    """The one line for a conflict kb does not merge (a note, or a map a person edited)."""
    it = "it" if len(files) == 1 else "them"
    return (
        f"sync stopped: {_names(files)} changed both here and on {printable(upstream)}, and kb "
        "does not merge what a person wrote. The rebase was undone, so your commits and files "
        f"are as they were. Merge by hand: git pull --rebase, fix {it}, git add, "
        "git rebase --continue"
    )


def commit_message(paths: Sequence[str], machine: str, nonce: str) -> str:
    """The message of kb's own commit. `nonce` makes it unique: two clones that record the
    same refusals on one machine in one second would otherwise make the very same commit,
    and git would see one record where there were two."""
    body = "".join(f"{p}\n" for p in paths)
    return f"kb sync: {len(paths)} file(s) kb wrote on {machine}\n\n{body}\nkb-sync-id: {nonce}\n"
