"""Reading an agent's `blocks.txt` and the files it lists; every decision is kb.pure.blocks'.

A listed file that is absent, unreadable or not UTF-8 comes back with no text, and the
report names it as missing: a constitution is never silently shorter than its declaration.
A caller serving the public scope passes the base's private layer: a listed file inside it,
or outside the base altogether (`../person/core.md`, a base private as a whole), is then
withheld: left out of the blocks, never read and never named.
"""

from __future__ import annotations

from pathlib import Path

from kb.pure.blocks import Block, BlockFile, measure, parse_blocks
from kb.pure.manifest import PrivateLayer

BLOCKS_NAME = "blocks.txt"


class BlocksUnreadable(Exception):
    """blocks.txt exists but cannot be read as UTF-8 text."""


def _text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def withheld(base: Path, listed: str, private: PrivateLayer) -> bool:
    """Whether a listed file is out of the public scope: private, or not in the base."""
    try:
        root = base.resolve()
        real = (base / listed).resolve()
    except (OSError, RuntimeError, ValueError):
        return True
    if not real.is_relative_to(root):
        return True
    return private.covers(real.relative_to(root).as_posix())


def load_blocks(base: Path, private: PrivateLayer | None = None) -> tuple[Block, ...] | None:
    """The measured blocks of `base`, or None when it has no blocks.txt. With `private`,
    files out of the public scope are withheld."""
    path = base / BLOCKS_NAME
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError as e:
        raise BlocksUnreadable("it is a directory") from e
    except OSError as e:
        raise BlocksUnreadable(e.strerror or str(e)) from e
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BlocksUnreadable(f"it is not UTF-8 text (byte {e.start})") from e
    return tuple(
        measure(
            spec,
            [
                BlockFile(p, _text(base / p))
                for p in spec.paths
                if private is None or not withheld(base, p, private)
            ],
        )
        for spec in parse_blocks(text)
    )


def quiet_blocks(base: Path) -> tuple[Block, ...]:
    """The blocks of `base` for a surface that must not fail (boot, panel pricing): none
    when blocks.txt is absent or unreadable."""
    try:
        return load_blocks(base) or ()
    except BlocksUnreadable:
        return ()
