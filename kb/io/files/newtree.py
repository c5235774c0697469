"""Creating a new base on disk all at once (`kb init`): a reader sees no folder, or the
whole one, never a half-written base.

The tree is built in a hidden scratch folder beside the target (same parent, so the final
rename cannot cross a file system), then renamed into place. Any failure removes the scratch
folder and every parent folder this call created, so the disk is as it was.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Sequence
from pathlib import Path

from kb.io.files.atomic import make_dirs


def create_tree(parent: Path, name: str, files: Sequence[tuple[str, str]]) -> None:
    """Create `parent/name` holding `files` (relative path, text).

    Raises FileExistsError when the target already exists (nothing is touched), and
    OSError for any other failure (after undoing everything this call made)."""
    target = parent / name
    if os.path.lexists(target):
        raise FileExistsError(target)
    made = make_dirs(parent)
    scratch: Path | None = None
    try:
        scratch = _scratch_dir(parent, name)
        for rel, text in files:
            _write_new(scratch / rel, text)
        if os.path.lexists(target):  # somebody made it while we were building
            raise FileExistsError(target)
        os.rename(scratch, target)
    except BaseException:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def _scratch_dir(parent: Path, name: str) -> Path:
    # os.mkdir (not tempfile.mkdtemp, which makes 0700) so the final folder gets the same
    # permissions as any folder the user makes: the umask decides.
    for _ in range(16):
        path = parent / f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise FileExistsError(parent / f".{name}.*.tmp")


def _write_new(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8", newline="") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
