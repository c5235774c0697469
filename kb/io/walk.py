"""Walking a fleet into an immutable snapshot: which bases, which files, which are private.

One `scandir` pass per base, stat only (size, mtime_ns): file contents are read later and
only for files the header cache has not seen in this exact state.
"""

from __future__ import annotations

import operator
import os
from pathlib import Path

from attrs import frozen

from kb.pure.manifest import (
    Manifest,
    PrivateLayer,
    fail_closed,
    parse_aliases,
    parse_manifest,
    private_layer,
    unmatched_private_message,
)
from kb.pure.names import printable
from kb.pure.paths import MAP_NAMES

SKIPPED_DIRS = frozenset({"target", "node_modules", "dist", "build"})


class WalkError(Exception):
    """A directory of a base could not be listed."""


@frozen
class FileStat:
    rel: str
    size: int
    mtime_ns: int
    private: bool
    # Why the file is not read (a refused name, BAD_NAME, or past MAX_NOTE_BYTES); None for
    # every ordinary file. Readers report it instead of opening the file.
    problem: str | None = None


@frozen
class BaseSnapshot:
    """One base as found on disk, before any file is read."""

    given: str  # the root as given or expanded (what `kb fleet` prints)
    root: Path
    name: str  # last component of the canonical root: stamped on entries and index rows
    agent_name: str  # last component of the root as given
    routable: bool  # has agent.txt
    agent_manifest: Manifest
    private: PrivateLayer
    files: tuple[FileStat, ...]  # in scope, sorted by rel
    private_skipped: int  # files left out because they are private and --all was not given
    map_rel: str | None
    aliases: tuple[tuple[str, str], ...]
    alias_problem: str | None
    # `private =` entries in agent.txt that name nothing in the base (the default private
    # folders were kept beside them: `manifest.fail_closed`).
    private_unmatched: tuple[str, ...] = ()

    @property
    def private_problem(self) -> str | None:
        return unmatched_private_message(self.name, self.private_unmatched)


def read_text(path: Path) -> str | None:
    """The file as UTF-8 text, or None when it is absent or cannot be read as such."""
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def looks_like_a_base(path: Path) -> bool:
    try:
        names = set(os.listdir(path))
    except OSError:
        return False
    return any(n in names for n in MAP_NAMES) or (path / "agent.txt").is_file()


def _subdirs(path: Path) -> list[Path]:
    try:
        with os.scandir(path) as it:
            return sorted(Path(e.path) for e in it if e.is_dir() and not e.name.startswith("."))
    except OSError:
        return []


def fleet_manifest(root: str) -> Manifest:
    text = read_text(Path(root) / "fleet.txt")
    return parse_manifest(text) if text is not None else Manifest()


def expand_roots(paths: list[str]) -> list[str]:
    """Each path given: a base as is, or a fleet root expanded into its bases."""
    out: list[str] = []
    for given in paths:
        path = Path(given)
        if looks_like_a_base(path):
            out.append(given)
            continue
        if (path / "fleet").is_dir():
            candidates = _subdirs(path / "fleet")
        else:
            candidates = [d for d in _subdirs(path) if looks_like_a_base(d)]
        if not candidates:
            out.append(given)
            continue
        manifest = fleet_manifest(given)
        disabled = set(manifest.every("disable"))
        out.extend(str(c) for c in candidates if c.name not in disabled)
        for attach in manifest.every("attach"):
            joined = path / attach
            out.append(str(joined) if joined.exists() else attach)
    return out


# Why a file cannot be read under the name it has: a `rel` travels on one line everywhere
# (terminal rows, the boot briefing, TAB-separated logs), so a name that would split or
# garble that line, or that no UTF-8 text can hold, is shown escaped and refused.
BAD_NAME = (
    "its name holds a line break, a tab, another control character or bytes that are not "
    "UTF-8, which no one-line listing can show; rename the file"
)


# A note is read whole (its header, its chunks, its hash), so a file past this size is not
# read at all and reported instead: a 100 MB markdown file is a dump, not a note, and read
# whole it costs several times its size in memory (measured: 470 MB peak RSS for `kb index`
# over one 100 MB note). 16 MiB is about four million tokens, far past any real note.
MAX_NOTE_BYTES = 16 * 1024 * 1024


def too_large(size: int) -> str:
    return (
        f"{size} bytes, past the {MAX_NOTE_BYTES // (1024 * 1024)} MiB kb reads as one note, "
        "so it was not read; split it into notes"
    )


def _named(name: str) -> tuple[str, bool]:
    """A file or folder name as a `rel` component, and whether it had to be escaped.

    Bytes that are not UTF-8 (handed back by the OS as lone surrogates) become U+FFFD and
    control characters become escapes (kb.pure.names.printable), so no later write, print,
    JSON line or SQLite row can fail on, or be split by, the name.
    """
    if name.isprintable():  # the common case, at C speed (a lone surrogate is not printable)
        return name, False
    label = printable(name)  # escapes control characters, turns each surrogate into U+FFFD
    return label, label != name


def shown(name: str) -> str:
    """A name or path as one printable line (see `_named`)."""
    return _named(name)[0]


# A link is followed only while it stays inside the base: what it points at is what would be
# served, so a link out of the base (to another base's private layer, to /proc/self/environ,
# to a home folder) is reported and never read.
OUTSIDE = (
    "it is a link to {what} outside this base, which kb does not read (privacy is judged on "
    "what a path really is, and a link out of the base could serve anything); copy the "
    "file in, or remove the link"
)


def _inside(real: str, real_root: str) -> str | None:
    """`real` relative to `real_root` (POSIX separators), or None when it is outside."""
    if real == real_root:
        return ""
    prefix = real_root.rstrip(os.sep) + os.sep
    if not real.startswith(prefix):
        return None
    return real[len(prefix) :].replace(os.sep, "/")


# (rel, size, mtime_ns, problem, the real path relative to the base root, (dev, ino) when
# the file has other hard links)
Raw = tuple[str, int, int, str | None, str, tuple[int, int] | None]


def _walk(
    root: Path,
    rel_prefix: str,
    out: list[Raw],
    seen: set[tuple[int, int]],
) -> None:
    real_root = os.path.realpath(root)
    # An explicit stack, not recursion: a tree nested deeper than Python's recursion limit
    # (about 1,000 levels) is still a tree to walk, not a crash. Each folder carries its real
    # path relative to the base, so a file reached through a linked folder is judged by it.
    pending = [(root, rel_prefix, False, "")]
    while pending:
        folder, prefix, bad, real_prefix = pending.pop()
        with os.scandir(folder) as it:
            entries = list(it)
        # Name order, so which of two links to one folder is walked (the other is skipped as
        # seen) is decided by the names, not by the order the disk lists them in; reversed,
        # because the stack pops the last folder pushed first.
        entries.sort(key=_name_of, reverse=True)
        for e in entries:
            name = e.name
            try:
                linked = e.is_symlink()
                is_dir = e.is_dir()  # follows a link
            except OSError:  # a link to itself (ELOOP): neither a folder nor a file
                continue
            if not is_dir and not name.lower().endswith(".md"):
                continue  # most of a folder that is not notes: nothing more to ask of it
            real_rel: str | None = real_prefix + name
            if linked:
                real_rel = _inside(os.path.realpath(e.path), real_root)
            # `_named` inlined for the common printable name: this loop runs once per file
            # of every open (a function call per file was 8% of a 10,000-note walk)
            label, escaped = (name, False) if name.isprintable() else _named(name)
            if is_dir:
                if name.startswith(".") or name in SKIPPED_DIRS:
                    continue
                if real_rel is None:
                    out.append((prefix + label, 0, 0, OUTSIDE.format(what="a folder"), "", None))
                    continue
                if linked:
                    # A link to a folder of this same base adds no file the walk does not
                    # reach by the real path, and walking it first would file the notes
                    # under the link's name (found by the privacy property: a link named
                    # after `profile/` hid the real folder as "already seen").
                    continue
                st = e.stat()
                ident = (st.st_dev, st.st_ino)
                if ident in seen:  # a symlink loop, or a second link to a folder already walked
                    continue
                seen.add(ident)
                pending.append((Path(e.path), prefix + label + "/", bad or escaped, real_rel + "/"))
                continue
            try:
                st = e.stat()
                if not e.is_file():
                    continue
            except OSError:
                continue  # a dangling link is not a file
            if real_rel is None:
                problem: str | None = OUTSIDE.format(what="a file")
                out.append((prefix + label, st.st_size, st.st_mtime_ns, problem, "", None))
                continue
            size = st.st_size
            problem = (
                BAD_NAME if bad or escaped else too_large(size) if size > MAX_NOTE_BYTES else None
            )
            twin = (st.st_dev, st.st_ino) if st.st_nlink > 1 else None
            out.append((prefix + label, size, st.st_mtime_ns, problem, real_rel, twin))


_name_of = operator.attrgetter("name")


def _walk_order(r: Raw) -> tuple[str, bool]:
    return (r[0], r[3] is not None)  # a readable file before a look-alike


def _spelled_on_disk(root: Path, rel: str) -> bool:
    """Whether `rel` exists under `root` spelled exactly so, segment by segment (a
    case-insensitive disk says `Records` exists when `records` does, but privacy compares
    paths exactly, so `Records` would cover nothing)."""
    folder = root
    for part in rel.split("/"):
        try:
            if part not in os.listdir(folder):
                return False
        except OSError:
            return False
        folder = folder / part
    return True


def discover(given: str, include_private: bool) -> BaseSnapshot:
    root = Path(given)
    if not root.is_dir():
        reason = "no such directory" if not root.exists() else "not a directory"
        raise WalkError(f"cannot read {shown(given)}: {reason}")
    # A base's names are printed on every surface and stamped on index rows: a folder name
    # that is not UTF-8 or holds a line break is shown escaped (the real path is `root`).
    try:
        canonical = root.resolve(strict=True)
        name = shown(canonical.name or str(root))
    except OSError:
        name = shown(root.name or str(root))
    agent_name = shown(root.name or given)
    agent_txt = read_text(root / "agent.txt")
    typed = root.resolve().name if root.name in ("", ".", "..") else root.name
    # The person base is private under any name it is reached by: the folder typed, or the
    # folder a link to it really is (`ln -s ~/person fleet/me`).
    real_name = root.resolve().name
    layer = private_layer(
        agent_txt, "person" if "person" in (typed.lower(), real_name.lower()) else typed
    )
    unmatched = (
        tuple(f for f in layer.folders if not _spelled_on_disk(root, f)) if layer.declared else ()
    )
    layer = fail_closed(layer, unmatched)
    raw: list[Raw] = []
    try:
        st = root.stat()
        _walk(root, "", raw, {(st.st_dev, st.st_ino)})
    except OSError as e:
        raise WalkError(f"cannot read {shown(given)}: {e.strerror or e}") from e
    raw.sort(key=_walk_order)
    # A file is private when any path it is really reached by is: the path walked, its real
    # path behind links, and every other hard link to the same file inside the base.
    covers = layer.cover_test()
    private_twins = {
        r[5] for r in raw if r[5] is not None and (covers(r[0]) or (r[4] != r[0] and covers(r[4])))
    }
    files: list[FileStat] = []
    skipped = 0
    for i, (rel, size, mtime, problem, real_rel, twin) in enumerate(raw):
        if i and raw[i - 1][0] == rel:  # two refused names that render alike: one row
            continue
        private = (
            covers(rel)
            or (bool(real_rel) and real_rel != rel and covers(real_rel))
            or (twin is not None and twin in private_twins)
        )
        if private and not include_private:
            skipped += 1
            continue
        files.append(FileStat(rel, size, mtime, private, problem))
    rels = {f.rel for f in files}
    map_rel = next((m for m in MAP_NAMES if m in rels), None)
    alias_text = read_text(root / "kb-aliases.txt")
    alias_problem = None
    if alias_text is None and (root / "kb-aliases.txt").exists():
        alias_problem = (
            f"{shown(given)}/kb-aliases.txt is not readable UTF-8 text; its aliases were ignored"
        )
    return BaseSnapshot(
        given=given,
        root=root,
        name=name,
        agent_name=agent_name,
        routable=(root / "agent.txt").is_file(),
        agent_manifest=parse_manifest(agent_txt) if agent_txt is not None else Manifest(),
        private=layer,
        files=tuple(files),
        private_skipped=skipped,
        map_rel=map_rel,
        aliases=parse_aliases(alias_text) if alias_text is not None else (),
        alias_problem=alias_problem,
        private_unmatched=unmatched,
    )
