"""Walking a fleet into an immutable snapshot: which bases, which files, which are private.

One `scandir` pass per base, stat only (size, mtime_ns): file contents are read later and
only for files the header cache has not seen in this exact state.
"""

from __future__ import annotations

import os
from pathlib import Path

from attrs import frozen

from kb.pure.manifest import Manifest, PrivateLayer, parse_aliases, parse_manifest, private_layer
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


def _walk(
    root: Path, rel_prefix: str, out: list[tuple[str, int, int]], seen: set[tuple[int, int]]
) -> None:
    with os.scandir(root) as it:
        entries = list(it)
    for e in entries:
        if e.is_dir():  # follows symlinks, like the original
            if e.name.startswith(".") or e.name in SKIPPED_DIRS:
                continue
            st = e.stat()
            ident = (st.st_dev, st.st_ino)
            if ident in seen:  # a symlink loop, or a second link to a folder already walked
                continue
            seen.add(ident)
            _walk(Path(e.path), rel_prefix + e.name + "/", out, seen)
        elif e.name.lower().endswith(".md"):
            try:
                st = e.stat()
            except OSError:
                continue  # a dangling link is not a file
            if not e.is_file():
                continue
            out.append((rel_prefix + e.name, st.st_size, st.st_mtime_ns))


def discover(given: str, include_private: bool) -> BaseSnapshot:
    root = Path(given)
    if not root.is_dir():
        reason = "no such directory" if not root.exists() else "not a directory"
        raise WalkError(f"cannot read {given}: {reason}")
    try:
        canonical = root.resolve(strict=True)
        name = canonical.name or str(root)
    except OSError:
        name = root.name or str(root)
    agent_name = root.name or given
    agent_txt = read_text(root / "agent.txt")
    layer = private_layer(
        agent_txt, root.resolve().name if root.name in ("", ".", "..") else root.name
    )
    raw: list[tuple[str, int, int]] = []
    try:
        st = root.stat()
        _walk(root, "", raw, {(st.st_dev, st.st_ino)})
    except OSError as e:
        raise WalkError(f"cannot read {given}: {e.strerror or e}") from e
    raw.sort(key=lambda r: r[0])
    files: list[FileStat] = []
    skipped = 0
    for rel, size, mtime in raw:
        private = layer.covers(rel)
        if private and not include_private:
            skipped += 1
            continue
        files.append(FileStat(rel, size, mtime, private))
    rels = {f.rel for f in files}
    map_rel = next((m for m in MAP_NAMES if m in rels), None)
    alias_text = read_text(root / "kb-aliases.txt")
    alias_problem = None
    if alias_text is None and (root / "kb-aliases.txt").exists():
        alias_problem = (
            f"{given}/kb-aliases.txt is not readable UTF-8 text; its aliases were ignored"
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
    )
