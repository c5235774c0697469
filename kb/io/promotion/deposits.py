"""The deposit on disk: walking an agent's `inbox/` for what `kb promote` offers, reading a
deposit file, and `kb ingest`'s staging and removal. Every rule (which names are deposits,
what the staged files are called and say, whether anything may be removed) is in kb.pure.

Staging never overwrites and never copies-and-forgets: the original is hard-linked to its
new name (which fails if the name is taken) and then unlinked, or, across file systems,
copied exclusively, its size checked, and only then unlinked; a short copy is removed and
the original left where it was. If the deposit cannot be written afterwards, the original is
moved back, so a failed staging leaves the disk as it found it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

from attrs import frozen

from kb.io.notes.safe_read import OUT_OF_SCOPE, Read, Refused, read_note
from kb.io.notes.walk import BaseSnapshot
from kb.io.writing.notewrite import create_new
from kb.pure.promotion.promote import is_deposit_name, is_walked_dir
from kb.pure.roles import ingest as rules


def deposit_files(snap: BaseSnapshot) -> list[str]:
    """Paths relative to the base (`inbox/...`, `/`-separated) of every deposit, sorted.
    Each is judged as kb.io.notes.safe_read judges a note it opens, against the base's walk: a
    deposit in the private layer (unless the walk was made with --all), a link, a hard link
    to a private note, a link to a private folder or out of the base is not a deposit, as
    `kb list` does not show it (issue 24, F4)."""
    out: list[str] = []
    base = snap.root
    inbox = base / rules.INBOX
    seen: set[tuple[int, int]] = set()
    # An explicit stack, not recursion: an inbox nested past Python's recursion limit is
    # still walked, not a RecursionError.
    pending = [(inbox, rules.INBOX)]
    while pending:
        folder, rel = pending.pop()
        try:
            st = folder.lstat()
            if not stat.S_ISDIR(st.st_mode):  # a link to a folder is not walked
                continue
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            child = f"{rel}/{e.name}"
            try:
                if e.is_dir(follow_symlinks=False):
                    if is_walked_dir(e.name):
                        pending.append((Path(e.path), child))
                elif is_deposit_name(e.name) and _offered(snap, child):
                    out.append(child)
            except OSError:
                continue
    return sorted(out)


def _offered(snap: BaseSnapshot, rel: str) -> bool:
    """Whether a deposit is in the public scope (or the walk's --all scope). One refused for
    another reason (no permission, gone since) is still offered, so the run names it as a
    file it could not read rather than passing over it in silence."""
    got = read_note(snap, rel, content=False)
    return isinstance(got, Read) or got.reason not in OUT_OF_SCOPE


@frozen
class Unread:
    reason: str


def read_deposit(snap: BaseSnapshot, rel: str) -> str | Unread:
    """A deposit's text, read through kb.io.notes.safe_read (judged again as it is read)."""
    got = read_note(snap, rel)
    if isinstance(got, Refused):
        return Unread(got.reason)
    text = got.text()
    return text if text is not None else Unread("not UTF-8 text")


# -- kb ingest: staging -----------------------------------------------------------------------


class StageError(Exception):
    """Staging failed; the disk is as it was (the message says where the document is)."""


@frozen
class Staged:
    deposit: Path
    raw: Path


def _move(original: Path, folder: Path, names: Iterator[str]) -> Path:
    """Move `original` into `folder` under the first free name; never overwrite."""
    for name in names:
        dest = folder / name
        if os.path.lexists(dest):
            continue
        try:
            os.link(original, dest)
        except FileExistsError:
            continue
        except OSError as e:
            if e.errno in (errno.EXDEV, errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                return _copy_move(original, dest)
            raise StageError(f"cannot read or write {dest}: {e.strerror or e}") from e
        try:
            original.unlink()
        except OSError as e:
            with contextlib.suppress(OSError):
                dest.unlink()
            raise StageError(f"cannot read or write {original}: {e.strerror or e}") from e
        return dest
    raise StageError(f"cannot read or write {folder}: no free name left for the original")


def _copy_move(original: Path, dest: Path) -> Path:
    size = original.stat().st_size
    copied = 0
    try:
        with open(original, "rb") as src, open(dest, "xb") as out:
            shutil.copyfileobj(src, out)
            out.flush()
            os.fsync(out.fileno())
            copied = out.tell()
    except OSError as e:
        with contextlib.suppress(OSError):
            dest.unlink()
        raise StageError(f"cannot read or write {dest}: {e.strerror or e}") from e
    if copied != size:
        with contextlib.suppress(OSError):
            dest.unlink()
        raise StageError(rules.short_copy(str(original), copied, size))
    try:
        original.unlink()
    except OSError as e:
        with contextlib.suppress(OSError):
            dest.unlink()
        raise StageError(f"cannot read or write {original}: {e.strerror or e}") from e
    return dest


def _move_back(raw: Path, original: Path) -> None:
    with contextlib.suppress(OSError):
        if not os.path.lexists(original):
            os.link(raw, original)
            raw.unlink()
            return
    with contextlib.suppress(OSError):
        if not os.path.lexists(original):
            shutil.move(str(raw), str(original))


def stage(
    original: Path,
    given: str,
    base: Path,
    text: str,
    today: str,
    pid: int,
    keep_original: bool = False,
) -> Staged:
    """Move the original under `inbox/raw/` and write its text as the deposit. With
    `keep_original` (a private original, ingested with --all) nothing is moved or copied:
    the original stays where it is, and the deposit names it as its raw document."""
    stem, ext = rules.split_name(original.name)
    slug = rules.document_slug(stem)
    inbox = base / rules.INBOX
    raw_dir = inbox / rules.RAW_DIR
    if keep_original:
        raw = original
        try:
            inbox.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StageError(f"cannot read or write {inbox}: {e.strerror or e}") from e
    else:
        try:
            raw_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StageError(f"cannot read or write {raw_dir}: {e.strerror or e}") from e
        raw = _move(original, raw_dir, rules.free_names(f"{today}-{slug}", ext, pid))
    body = rules.deposit_text(given, str(raw), text)
    for name in rules.free_names(f"{today}-{slug}", "txt", pid):
        deposit = inbox / name
        try:
            create_new(deposit, body)
            return Staged(deposit, raw)
        except FileExistsError:
            continue
        except OSError as e:
            if not keep_original:
                _move_back(raw, original)
            raise StageError(f"cannot read or write {deposit}: {e.strerror or e}") from e
    if not keep_original:
        _move_back(raw, original)
    raise StageError(f"cannot read or write {inbox}: no free name left for the deposit")


def remove(paths: list[Path]) -> list[Path]:
    """Delete each path; the ones actually removed, in order."""
    removed: list[Path] = []
    for p in paths:
        try:
            p.unlink()
        except OSError:
            continue
        removed.append(p)
    return removed
