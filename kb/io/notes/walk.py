"""Walking a fleet into an immutable snapshot: which bases, which files, which are private.

One `scandir` pass per base, stat only (size, mtime_ns): file contents are read later and
only for files the header cache has not seen in this exact state.
"""

from __future__ import annotations

import operator
import os
from array import array
from bisect import bisect_left
from collections.abc import Mapping
from itertools import compress
from pathlib import Path

from attrs import field, frozen

from kb.io.notes.filetable import FileStat as FileStat
from kb.io.notes.filetable import FileTable, table_of
from kb.pure.notes.lookalike import lookalike_message, looks_like, skeleton
from kb.pure.notes.manifest import (
    Manifest,
    PrivateLayer,
    fail_closed,
    parse_aliases,
    parse_manifest,
    private_layer,
    unmatched_private_message,
)
from kb.pure.notes.names import printable
from kb.pure.notes.paths import MAP_NAMES

SKIPPED_DIRS = frozenset({"target", "node_modules", "dist", "build"})


class WalkError(Exception):
    """A directory of a base could not be listed."""


# (rel, size, mtime_ns, problem, the real path relative to the base root, dev, ino, nlink,
# whether the name is a link)
Raw = tuple[str, int, int, str | None, str, int, int, int, bool]


@frozen(eq=False)
class WalkIndex:
    """Every name one walk found, kept as columns rather than a tuple per name: an open
    fleet holds one for each base until it closes, and at 100,000 notes the tuples and the
    inode integers were 15 of the 70 MB a one-shot `kb route` traced."""

    rels: tuple[str, ...]  # in walk order (`_walk_order`: by name), the FileStat's strings
    devices: array[int]  # by place, unsigned 64-bit
    inodes: array[int]  # by place, unsigned 64-bit
    links: frozenset[int]  # the places of names that are links
    problems: Mapping[int, str]  # place -> why the file is not read (most have none)
    alone: bool  # no name is a link, and no file found has another name

    @classmethod
    def of(cls, raw: list[Raw]) -> WalkIndex:
        """The index of `_walk`'s records, sorted by `_walk_order`. Each column is taken in
        C (`map`, `compress`): a Python loop over the records cost an open of 100,000 notes
        about 0.1 s."""
        places = range(len(raw))
        problems = list(map(_problem_of, raw))
        links = frozenset(compress(places, map(_link_of, raw)))
        return cls(
            rels=tuple(map(_rel_of, raw)),
            devices=array("Q", map(_device_of, raw)),
            inodes=array("Q", map(_inode_of, raw)),
            links=links,
            problems={i: problems[i] for i in compress(places, problems)},
            alone=not links and max(map(_nlink_of, raw), default=1) <= 1,
        )

    def found(self, rel: str) -> tuple[int, int, bool, str | None] | None:
        """(device, inode, link or not, why not read) of the first name `rel` in walk order
        (a readable file before a look-alike refused under the same shown name)."""
        i = bisect_left(self.rels, rel)
        if i == len(self.rels) or self.rels[i] != rel:
            return None
        return self.devices[i], self.inodes[i], i in self.links, self.problems.get(i)


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
    files: FileTable  # in scope, sorted by rel
    private_skipped: int  # files left out because they are private and --all was not given
    map_rel: str | None
    aliases: tuple[tuple[str, str], ...]
    alias_problem: str | None
    # `private =` entries in agent.txt that name nothing in the base (the default private
    # folders were kept beside them: `manifest.fail_closed`).
    private_unmatched: tuple[str, ...] = ()
    # (private folder, folder on disk): folders kept private because they look like a
    # private folder they are not spelled as (kb.pure.notes.lookalike), warned about.
    private_lookalikes: tuple[tuple[str, str], ...] = ()
    # Folders of the base that could not be listed (rel, reason): skipped, warned about.
    unread_folders: tuple[tuple[str, str], ...] = ()
    # The base's real root (links resolved) and the (device, inode) of every file the walk
    # judged private, walked or not: what kb.io.notes.safe_read judges an opened file against.
    real_root: str = ""
    private_ids: frozenset[tuple[int, int]] = frozenset()
    include_private: bool = False  # walked with --all
    # Everything the walk found, by name (`WalkIndex`): what kb.io.notes.safe_read holds a
    # file it opens to (`found`). Kept apart from each FileStat: three more FileStat fields
    # cost a 10,000-note walk 17 ms in attrs' __init__, and a question over an unchanged
    # fleet reads no file. None for a snapshot not made by `discover`.
    walked: WalkIndex | None = field(default=None, eq=False, hash=False, repr=False)

    def found(self, rel: str) -> tuple[int, int, bool, str | None] | None:
        """What the walk found under `rel`: (device, inode, whether the name is a link to a
        file inside the base, why it is not read or None); None when it found nothing."""
        return self.walked.found(rel) if self.walked is not None else None

    @property
    def private_problem(self) -> str | None:
        return unmatched_private_message(self.name, self.private_unmatched)

    @property
    def problems(self) -> list[str]:
        """One line per problem a person should see on every verb that opens the base: an
        unreadable alias file, a `private =` entry that names nothing, a folder kept
        private as a look-alike, a folder that could not be read."""
        out = [
            p
            for p in (
                self.alias_problem,
                self.private_problem,
                lookalike_message(self.name, self.private_lookalikes),
            )
            if p
        ]
        out += [
            f"{self.name}/{rel}: {UNREAD_FOLDER.format(reason=reason)}"
            for rel, reason in self.unread_folders
        ]
        return out


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


def _is_root(path: Path) -> bool:
    """Whether `path` opens as itself: a base, a fleet root, or a folder holding bases.
    `looks_like_a_base(path)`, a `fleet/` folder, then `_subdirs`' folders in order, all read
    from one listing: every question the resident kb answers asks this of its cwd, and at
    10,000 notes in folders of bases reading the listing three times took 60 us, one 25."""
    try:
        with os.scandir(path) as it:
            entries = list(it)
    except OSError:  # a folder kb may enter but not list can still hold `fleet/`
        return (path / "fleet").is_dir()
    if any(e.name in MAP_NAMES for e in entries):
        return True
    # is_file and is_dir follow links, as Path's do
    if any(e.name == "agent.txt" and e.is_file() for e in entries):
        return True
    if any(e.name == "fleet" and e.is_dir() for e in entries):
        return True
    folders = sorted(e.name for e in entries if e.is_dir() and not e.name.startswith("."))
    return any(looks_like_a_base(path / name) for name in folders)


def enclosing_root(given: str) -> str | None:
    """The fleet root (else the base) a folder lies inside, when the folder itself is none
    of a base, a fleet root or a folder of bases; None otherwise. Run from
    `fleet/ada/knowledge/`, kb opens the fleet, as git opens the repository from a
    subfolder, instead of taking the subfolder for a base and writing its miss log and
    index among the notes (issue 26). The answer keeps `given`'s form: relative when it
    was relative."""
    path = Path(given)
    if not path.is_dir() or _is_root(path):
        return None
    real = path.resolve()
    base: Path | None = None
    for up in real.parents:
        if (up / "fleet").is_dir() and real.is_relative_to(up / "fleet"):
            base = up  # a fleet root: the widest answer, keep looking no further
            break
        if base is None and looks_like_a_base(up):
            base = up
    if base is None:
        return None
    return str(base) if path.is_absolute() else os.path.relpath(base)


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
            enclosing = enclosing_root(given)
            if enclosing is not None:
                out.extend(expand_roots([enclosing]))
            else:
                out.append(given)
            continue
        manifest = fleet_manifest(given)
        disabled = set(manifest.every("disable"))
        out.extend(str(c) for c in candidates if c.name not in disabled)
        for attach in manifest.every("attach"):
            joined = path / attach
            out.append(str(joined) if joined.exists() else attach)
    return out


def walk_roots(
    paths: list[str], include_private: bool, kept: Mapping[str, BaseSnapshot] | None = None
) -> list[BaseSnapshot | WalkError]:
    """Each base the paths hold (`expand_roots`), walked, or the error that kept it from
    being walked; raises that WalkError when the paths hold one base only. `kept`: bases
    (by the root `expand_roots` gives) taken as they are instead of walked again."""
    roots = expand_roots(paths)
    out: list[BaseSnapshot | WalkError] = []
    for given in roots:
        if kept and given in kept:
            out.append(kept[given])
            continue
        try:
            out.append(discover(given, include_private))
        except WalkError as e:
            if len(roots) == 1:
                raise
            out.append(e)
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
    control characters become escapes (kb.pure.notes.names.printable), so no later write, print,
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


# A folder the walk cannot list (no permission, an I/O error) is passed over with its
# notes, and the rest of the base is read: one unreadable folder never hides a base.
UNREAD_FOLDER = "{reason}; this folder was skipped and the rest of the base was read"


def _walk(
    root: Path,
    rel_prefix: str,
    out: list[Raw],
    seen: set[tuple[int, int]],
    unread: list[tuple[str, str]],
    real_root: str,
) -> None:
    # An explicit stack, not recursion: a tree nested deeper than Python's recursion limit
    # (about 1,000 levels) is still a tree to walk, not a crash. Each folder carries its real
    # path relative to the base, so a file reached through a linked folder is judged by it.
    pending = [(root, rel_prefix, False, "")]
    devices: dict[int, int] = {}  # one int object per device, not one per file (28 bytes)
    while pending:
        folder, prefix, bad, real_prefix = pending.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as err:
            if folder is root:
                raise  # the base itself: the caller names it
            unread.append((prefix.rstrip("/"), err.strerror or str(err)))
            continue
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
                problem: str | None
                if real_rel is None:
                    problem = OUTSIDE.format(what="a folder")
                    out.append((prefix + label, 0, 0, problem, "", 0, 0, 1, True))
                    continue
                if linked:
                    # A link to a folder of this same base adds no file the walk does not
                    # reach by the real path, and walking it first would file the notes
                    # under the link's name (found by the privacy property: a link named
                    # after `profile/` hid the real folder as "already seen").
                    continue
                try:
                    st = e.stat()
                except OSError:
                    continue  # gone since it was listed
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
                problem = OUTSIDE.format(what="a file")
                out.append((prefix + label, st.st_size, st.st_mtime_ns, problem, "", 0, 0, 1, True))
                continue
            size = st.st_size
            problem = (
                BAD_NAME if bad or escaped else too_large(size) if size > MAX_NOTE_BYTES else None
            )
            rel = prefix + label
            out.append(
                (
                    rel,
                    size,
                    st.st_mtime_ns,
                    problem,
                    # one string where both paths are one (no link on the way): a snapshot
                    # holds every file's, 70 bytes each
                    rel if real_rel == rel else real_rel,
                    devices.setdefault(st.st_dev, st.st_dev),
                    st.st_ino,
                    st.st_nlink,
                    linked,
                )
            )


_name_of = operator.attrgetter("name")
_rel_of = operator.itemgetter(0)
_problem_of = operator.itemgetter(3)
_device_of = operator.itemgetter(5)
_inode_of = operator.itemgetter(6)
_nlink_of = operator.itemgetter(7)
_link_of = operator.itemgetter(8)


def _walk_order(r: Raw) -> tuple[str, bool]:
    return (r[0], r[3] is not None)  # a readable file before a look-alike


def _named_on_disk(root: Path, rel: str) -> bool:
    """Whether `rel` names a folder or file under `root`, segment by segment, compared as
    people see names (kb.pure.notes.lookalike: `Records` names `records`, an NFD `résumé` names
    an NFC one). A name that looks like nothing on disk names nothing, however the disk
    compares names itself."""
    folder = root
    for part in rel.split("/"):
        try:
            names = os.listdir(folder)
        except OSError:
            return False
        found = part if part in names else next((n for n in names if looks_like(n, part)), None)
        if found is None:
            return False
        folder = folder / found
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
    layer = private_layer(agent_txt, "person" if skeleton(real_name) == "person" else typed)
    unmatched = (
        tuple(f for f in layer.folders if not _named_on_disk(root, f)) if layer.declared else ()
    )
    layer = fail_closed(layer, unmatched)
    raw: list[Raw] = []
    unread: list[tuple[str, str]] = []
    try:
        st = root.stat()
        real_root = os.path.realpath(root)
        _walk(root, "", raw, {(st.st_dev, st.st_ino)}, unread, real_root)
    except OSError as e:
        raise WalkError(f"cannot read {shown(given)}: {e.strerror or e}") from e
    raw.sort(key=_walk_order)
    # A file is private when any path it is really reached by is: the path walked, its real
    # path behind links, and every other hard link to the same file inside the base.
    covers, memo = layer.cover_memo()
    private_twins = {
        (r[5], r[6]) for r in raw if r[7] > 1 and (covers(r[0]) or (r[4] != r[0] and covers(r[4])))
    }
    if unread:
        # A folder the walk could not list may hold another name of a multiply-linked file,
        # a private one: such a file is private unless every one of its names was found.
        names: dict[tuple[int, int], int] = {}
        for r in raw:
            if r[7] > 1:
                names[(r[5], r[6])] = names.get((r[5], r[6]), 0) + 1
        private_twins |= {(r[5], r[6]) for r in raw if r[7] > 1 and r[7] > names[(r[5], r[6])]}
        if not include_private:
            # a private folder's own names are not shown without --all: only its top
            unread = [
                (f"{rel.partition('/')[0]}/…" if "/" in rel else rel, why)
                if covers(rel + "/")
                else (rel, why)
                for rel, why in unread
            ]
    # the files in scope as columns (kb.io.notes.filetable): an open fleet holds them all
    rels: list[str] = []
    sizes: list[int] = []
    mtimes: list[int] = []
    privacy: list[bool] = []
    problems: list[str | None] = []
    private_ids: set[tuple[int, int]] = set()
    skipped = 0
    for i, (rel, size, mtime, problem, real_rel, dev, ino, nlink, _) in enumerate(raw):
        if i and raw[i - 1][0] == rel:  # two refused names that render alike: one row
            continue
        private = (
            covers(rel)
            or (bool(real_rel) and real_rel != rel and covers(real_rel))
            or (nlink > 1 and (dev, ino) in private_twins)
        )
        if private:
            if dev or ino:
                private_ids.add((dev, ino))
            if not include_private:
                skipped += 1
                continue
        rels.append(rel)
        sizes.append(size)
        mtimes.append(mtime)
        privacy.append(private)
        problems.append(problem)
    files = table_of(rels, sizes, mtimes, privacy, problems)
    seen_tops = [top for top, hit in memo.items() if hit] if memo is not None else None
    lookalikes = layer.lookalikes(
        seen_tops if seen_tops is not None else [r[0] for r in raw] + [r[4] for r in raw if r[4]]
    )
    in_scope = {rel for rel in files.rels if "/" not in rel}  # a map is at the top
    map_rel = next((m for m in MAP_NAMES if m in in_scope), None)
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
        files=files,
        private_skipped=skipped,
        map_rel=map_rel,
        aliases=parse_aliases(alias_text) if alias_text is not None else (),
        alias_problem=alias_problem,
        private_unmatched=unmatched,
        private_lookalikes=lookalikes,
        unread_folders=tuple(unread),
        real_root=real_root,
        private_ids=frozenset(private_ids),
        include_private=include_private,
        walked=WalkIndex.of(raw),
    )
