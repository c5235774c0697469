"""Reading an agent's `blocks.txt` and the files it lists; every decision is
kb.pure.sessions.blocks'.

A listed file that is absent, unreadable or not UTF-8 comes back with no text, and the
report names it as missing: a constitution is never silently shorter than its declaration.
A caller serving the public scope passes the base's walk: each listed file is then read
through kb.io.notes.safe_read, and one inside the private layer where it really is, a link the
walk never judged, or a file outside the base altogether (`../person/core.md`, a base
private as a whole) is withheld: left out of the blocks and never named.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from kb.io.notes.safe_read import (
    GONE,
    OUT_OF_SCOPE,
    Read,
    Refused,
    listed_rel,
    read_named,
    read_note,
)
from kb.io.notes.walk import BaseSnapshot
from kb.pure.notes.reading import NOT_A_FILE
from kb.pure.sessions.blocks import Block, BlockFile, measure, parse_blocks

BLOCKS_NAME = "blocks.txt"


class BlocksUnreadable(Exception):
    """blocks.txt exists but cannot be read as UTF-8 text."""


def _text(path: Path) -> str | None:
    got = read_named(path)
    return got.text() if isinstance(got, Read) else None


def listed_file(snap: BaseSnapshot, listed: str) -> BlockFile | None:
    """A listed file read in the public scope of `snap` (kb.io.notes.safe_read): None when it is
    withheld (private where it really is, a link, outside the base), a file with no text
    when it is missing or not UTF-8."""
    got = read_note(snap, listed_rel(listed))
    if isinstance(got, Refused):
        return None if got.reason in OUT_OF_SCOPE else BlockFile(listed, None)
    return BlockFile(listed, got.text())


def load_blocks(base: Path, public: BaseSnapshot | None = None) -> tuple[Block, ...] | None:
    """The measured blocks of `base`, or None when it has no blocks.txt. With `public` (the
    base's walk without --all), files out of the public scope are withheld."""
    counted = load_counted(base, public)
    return counted[0] if counted is not None else None


def load_counted(
    base: Path, public: BaseSnapshot | None = None
) -> tuple[tuple[Block, ...], int] | None:
    """`load_blocks`, and how many listed files were withheld."""
    path = base / BLOCKS_NAME
    got = read_named(path)
    if isinstance(got, Refused):
        if got.reason == GONE or got.reason == os.strerror(errno.ENOENT):
            return None
        if got.reason == NOT_A_FILE:
            raise BlocksUnreadable("it is a directory" if path.is_dir() else got.reason)
        raise BlocksUnreadable(got.reason)
    try:
        text = got.data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BlocksUnreadable(f"it is not UTF-8 text (byte {e.start})") from e
    out: list[Block] = []
    withheld = 0
    for spec in parse_blocks(text):
        files: list[BlockFile] = []
        for p in spec.paths:
            if public is None:
                files.append(BlockFile(p, _text(base / p)))
            elif (found := listed_file(public, p)) is not None:
                files.append(found)
            else:
                withheld += 1
        out.append(measure(spec, files))
    return tuple(out), withheld


def quiet_blocks(base: Path) -> tuple[Block, ...]:
    """The blocks of `base` for a surface that must not fail (boot, panel pricing): none
    when blocks.txt is absent or unreadable."""
    try:
        return load_blocks(base) or ()
    except BlocksUnreadable:
        return ()
