"""The reading room's disk half: what the page shows, read from the fleet the Memory opened.

No decisions here (kb.pure.render.uiapi shapes everything); only reading:
- per base, every discovered file's text through kb.io.writing.checker.read_base, the same reading
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

from kb.io.answering.memory import OpenBase
from kb.io.notes.safe_read import Read, read_note
from kb.io.notes.walk import BaseSnapshot, fleet_manifest, read_text
from kb.io.sessions.blockfiles import BLOCKS_NAME, BlocksUnreadable, load_counted
from kb.io.writing.checker import read_base
from kb.pure.render.uiapi import BlocksFacts
from kb.pure.sessions.session import SESSIONS_DIR, safe_session
from kb.pure.writing.checks import BaseFacts

CHAT_ENV = "KB_UI_CHAT"
CHAT_KEY = "chat"


@frozen
class ServedFile:
    path: Path
    private: bool
    rel: str = ""


@frozen
class ServedBase:
    name: str
    root: Path
    files: dict[str, ServedFile]
    snapshot: BaseSnapshot | None = None


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
            f.rel: ServedFile(snap.root / f.rel, f.private, f.rel)
            for f in snap.files
            if f.problem is None and _inside(snap.root / f.rel, root_real)
        }
        table[key] = ServedBase(snap.name, root_real, files, snap)
    return table


def read_served(served: ServedBase, file: ServedFile) -> str | None:
    """The file's text now (an edit shows without a reload), read through kb.io.notes.safe_read
    and judged against the walk the table was made from: None when it is gone, or has been
    replaced since by a link, a hard link to a private note, a file in a renamed private
    folder, or anything else that is not the public note the walk found (issue 24, F5)."""
    if served.snapshot is None:
        return None
    got = read_note(served.snapshot, file.rel)
    return got.data.decode("utf-8", "replace") if isinstance(got, Read) else None


def read_facts(bases: Sequence[OpenBase], include_private: bool) -> list[BaseFacts]:
    return [read_base(b.snapshot, include_private) for b in bases]


def read_blocks(snap: BaseSnapshot, include_private: bool) -> BlocksFacts | None:
    """The base's measured blocks, or None when it has no blocks.txt."""
    try:
        counted = load_counted(snap.root, None if include_private else snap)
    except BlocksUnreadable as e:
        return BlocksFacts(snap.name, (), 0, f"cannot read {BLOCKS_NAME}: {e}")
    if counted is None:
        return None
    return BlocksFacts(snap.name, *counted)


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
