"""The library's writing calls: index a fleet and write a note, by the same rules as
`kb index` and `kb write`, with plain exceptions for callers who do not use `returns`.

Both run the code the CLI verbs run (kb.io.notes.indexer, kb.shell.writing.initwrite); nothing here
decides anything of its own.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

PathArg = str | os.PathLike[str]


class IndexFailed(Exception):
    """`index` could not walk or write a base (the message names which, and why)."""


class WriteRefused(Exception):
    """`write_note` refused the note; `message` says why (as `kb write` prints it) and
    `code` is the exit status `kb write` would give (2 for a bad request, 1 otherwise)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@frozen
class IndexedBase:
    name: str
    reindexed: int
    unchanged: int
    removed: int
    chunks: int
    unreachable: int


@frozen
class Indexed:
    """What `index` did: per base, and over the fleet."""

    bases: tuple[IndexedBase, ...]
    files: int
    exempt: int
    unreachable: tuple[str, ...]  # base/path of notes no question can reach (E02)
    unreadable: tuple[tuple[str, str], ...]  # (base/path, why) of files not read
    warnings: tuple[str, ...]  # what `kb index` prints on stderr


def paths_of(paths: PathArg | Sequence[PathArg]) -> list[str]:
    """A path or a sequence of paths as the strings kb opens (a `str` is one path)."""
    if isinstance(paths, str | os.PathLike):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths] or ["."]


def index(paths: PathArg | Sequence[PathArg] = ".", all: bool = False) -> Indexed:
    """Bring each base's index in line with its files, as `kb index` does."""
    from kb.io.notes.indexer import IndexFailure, index_report

    warnings: list[str] = []
    try:
        lines, files, exempt, unreachable, unreadable = index_report(paths_of(paths), all, warnings)
    except IndexFailure as e:
        raise IndexFailed(str(e)) from e
    return Indexed(
        tuple(
            IndexedBase(b.name, b.reindexed, b.unchanged, b.removed, b.chunks, b.unreachable)
            for b in lines
        ),
        files,
        exempt,
        tuple(unreachable),
        tuple(unreadable),
        tuple(warnings),
    )


def write_note(
    fleet: PathArg,
    agent: str,
    slug: str,
    body: str,
    *,
    keys: Sequence[str] = (),
    summary: str | None = None,
    folder: str = "knowledge",
    provenance: str = "agent",
    stage: str = "derived",
    captured_from: str | None = None,
    title: str | None = None,
) -> Path:
    """Write `body` as the note `<agent>/<folder>/<slug>.md` of the fleet at `fleet` and
    list it in the agent's map, as `kb write` does (`title` is `--title`: without it the
    body's own `# ` heading, or a title derived from its first line); the new note's path.
    Raises `WriteRefused` with `kb write`'s message when it would refuse."""
    from kb.pure.writing import notewrite as nw
    from kb.shell.cli.inputs import WriteInput
    from kb.shell.writing.initwrite import write_note as run

    done = run(
        WriteInput(
            agent=agent,
            slug=slug,
            paths=(os.fspath(fleet),),
            keys=", ".join(keys) if keys else None,
            summary=summary,
            title=title,
            folder=folder,
            captured_from=captured_from,
            provenance=provenance,
            stage=stage,
        ),
        body,
    )
    if done.code != 0:
        message = done.stderr.strip().removeprefix("kb: ")
        raise WriteRefused(message, done.code)
    root = nw.choose_root(
        os.fspath(fleet),
        agent,
        agent_dir_exists=os.path.isdir(nw.join(os.fspath(fleet), "fleet", agent)),
        fleet_has_map=os.path.isfile(nw.join(os.fspath(fleet), "MAP.md")),
    )
    return Path(nw.join(root, folder, f"{slug}.md"))
