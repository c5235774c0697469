"""`kb sync`: which files are kb's own, how git is told to merge them, and what is reported.

The git plumbing is kb.io.sync; every decision it needs is here.

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
  command `<python> -m kb.shell.main merge-driver <kind> %O %A %B %P`, the interpreter kb
  runs in, quoted for the shell git runs it with.
- Derived and transient files (`.kb/`, lock files, deferred records) are listed in
  `.git/info/exclude`, so a `git add -A` by hand cannot commit them.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Iterable, Sequence

from attrs import frozen

from kb.pure import misslog
from kb.pure.merge import LOG_NAMES
from kb.pure.names import printable

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
EXCLUDES = (".kb/", "MAP.md.lock", "kb-*.txt.lock", ".kb-*.txt.pending/")
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


def driver_settings(python: str) -> tuple[tuple[str, str], ...]:
    """The `git config` keys and values for every driver, run by interpreter `python`."""
    command = f"{shlex.quote(python)} -m kb.shell.main merge-driver"
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


def _names(paths: Sequence[str], shown: int = 6) -> str:
    head = ", ".join(printable(p) for p in paths[:shown])
    return head + (f" and {len(paths) - shown} more" if len(paths) > shown else "")


def report_text(r: Report) -> str:
    lines = [f"synced {printable(r.where)} with {printable(r.upstream)}"]
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
