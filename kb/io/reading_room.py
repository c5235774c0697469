"""The reading room's disk half: what the page shows, read from the fleet the Memory opened.

No decisions here (kb.pure.uiapi shapes everything); only reading:
- per base, every discovered file's text through kb.io.checker.read_base, the same reading
  `kb check` does, so the page's findings are the verb's findings;
- the served table: for each base, a dict from each relative path discovery produced to
  its path on disk, leaving out any file whose real path is outside the base's real root
  (a symlink pointing out of the base). `/api/file` is one lookup in it: no path is ever
  built from a request, so traversal cannot even be expressed;
- each base's blocks.txt and the files it lists. Without --all a listed file in the base's
  private layer, or outside the base altogether, is withheld: counted, never read;
- the conversation runtime's command line (`KB_UI_CHAT`, else `chat =` in fleet.txt) and
  the agent a session was last routed to (`.kb/sessions/{safe id}` under the first root).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

from kb.io.checker import read_base
from kb.io.memory import OpenBase
from kb.io.walk import BaseSnapshot, fleet_manifest, read_text
from kb.pure.blocks import BlockFile, measure, parse_blocks
from kb.pure.checks import BaseFacts
from kb.pure.session import SESSIONS_DIR, safe_session
from kb.pure.uiapi import BlocksFacts

BLOCKS_NAME = "blocks.txt"
CHAT_ENV = "KB_UI_CHAT"
CHAT_KEY = "chat"


@frozen
class ServedFile:
    path: Path
    private: bool


@frozen
class ServedBase:
    name: str
    root: Path
    files: dict[str, ServedFile]


def _inside(path: Path, root_real: Path) -> bool:
    try:
        return path.resolve(strict=True).is_relative_to(root_real)
    except (OSError, RuntimeError):  # gone, unreadable, or a symlink loop
        return False


def served_table(bases: Sequence[OpenBase]) -> dict[str, ServedBase]:
    """Base name -> the files it serves. The first base of a name wins."""
    table: dict[str, ServedBase] = {}
    for b in bases:
        snap = b.snapshot
        key = snap.name
        if key in table:
            continue
        try:
            root_real = snap.root.resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        files = {
            f.rel: ServedFile(snap.root / f.rel, f.private)
            for f in snap.files
            if f.problem is None and _inside(snap.root / f.rel, root_real)
        }
        table[key] = ServedBase(snap.name, root_real, files)
    return table


def read_served(served: ServedBase, file: ServedFile) -> str | None:
    """The file's text now (an edit shows without a reload), or None when it is gone or has
    been replaced by a link that leads out of the base since the table was made."""
    if not _inside(file.path, served.root):
        return None
    try:
        return file.path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None


def read_facts(bases: Sequence[OpenBase], include_private: bool) -> list[BaseFacts]:
    return [read_base(b.snapshot, include_private) for b in bases]


def _withheld(snap: BaseSnapshot, listed: str, root_real: Path) -> bool:
    """Without --all: a listed file in the private layer or outside the base is not read."""
    try:
        real = (snap.root / listed).resolve()
    except (OSError, RuntimeError):
        return True
    if not real.is_relative_to(root_real):
        return True
    rel = real.relative_to(root_real).as_posix()
    return snap.private.covers(rel)


def read_blocks(snap: BaseSnapshot, include_private: bool) -> BlocksFacts | None:
    """The base's measured blocks, or None when it has no blocks.txt."""
    path = snap.root / BLOCKS_NAME
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        return BlocksFacts(snap.name, (), 0, f"cannot read {BLOCKS_NAME}: {e.strerror or e}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return BlocksFacts(snap.name, (), 0, f"{BLOCKS_NAME} is not UTF-8 text (byte {e.start})")
    root_real = snap.root.resolve()
    withheld = 0
    blocks = []
    for spec in parse_blocks(text):
        files: list[BlockFile] = []
        for listed in spec.paths:
            if not include_private and _withheld(snap, listed, root_real):
                withheld += 1
                continue
            files.append(BlockFile(listed, read_text(snap.root / listed)))
        blocks.append(measure(spec, files))
    return BlocksFacts(snap.name, tuple(blocks), withheld)


def chat_command(first_root: str) -> str | None:
    """The conversation runtime's command line, or None when none is configured."""
    from_env = os.environ.get(CHAT_ENV, "").strip()
    if from_env:
        return from_env
    configured = fleet_manifest(first_root).first(CHAT_KEY)
    return configured.strip() if configured and configured.strip() else None


def session_agent(first_root: str, session: str) -> str | None:
    """The agent `kb boot` last routed this session to, or None."""
    text = read_text(Path(first_root).joinpath(*SESSIONS_DIR, safe_session(session)))
    agent = text.strip() if text else ""
    return agent or None
