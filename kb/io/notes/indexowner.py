"""An index is trusted only by the machine that wrote it (issue 24, F3).

A base's index (`.kb/index.db`) is derived and rebuilt per machine, and `kb sync` refuses a
pull that brings one. But git can still check one out (a clone of a repository that
tracks it, a plain `git pull`), and an index that arrives that way can hold any chunk text
under the right file and the right content hash: the hash only proves the file is the one
the index says it read, not that the chunks came from it. So an index made for a base in a
git work tree carries a stamp, and an index without this machine's stamp is not read:

- The key is 32 random bytes in the repository's common git directory
  (`.git/kb-index-key`, mode 0600), made on first need. A push or a pull never carries
  anything in `.git/`, so no remote can know it.
- The stamp is the first 4 bytes of BLAKE2b of a fixed text under that key, kept in the
  database header's `application_id` (read with the header, costing no query of its own).
- An index whose stamp differs (one git checked out, one copied from another clone, one
  written before stamps existed) is deleted with its -wal and -shm files before any of it
  is read, and a new one is made: a hostile database is not queried, not even to empty it.
  The open says so once (`Store.notice`), and `kb index` fills the new one.
- A base in no git work tree gets no stamp and no check: nothing can be pulled into it.
"""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path

from kb.io.fleet.gitdir import repository_of

KEY_NAME = "kb-index-key"
KEY_BYTES = 32


def _key(common_dir: Path) -> bytes | None:
    path = common_dir / KEY_NAME
    try:
        return bytes.fromhex(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        pass
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made by another process a moment ago
        try:
            return bytes.fromhex(path.read_text(encoding="ascii").strip())
        except (OSError, ValueError):
            return None
    except OSError:
        return None  # a git directory kb may not write in: no stamps (see stamp_for)
    value = os.urandom(KEY_BYTES)
    try:
        os.write(fd, value.hex().encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    return value


@functools.lru_cache(maxsize=64)
def _stamp_of(common_dir: str) -> int | None:
    key = _key(Path(common_dir))
    if key is None:
        return None
    # `_blake2` is what `hashlib.blake2b` is; hashlib itself loads OpenSSL (kb.io.store)
    from _blake2 import blake2b

    digest = blake2b(b"kb index, written on this machine", digest_size=4, key=key).digest()
    value = int.from_bytes(digest, "big", signed=True)
    return value or 1  # 0 is what every unstamped database holds


def stamp_for(root: Path) -> int | None:
    """The stamp this machine puts on the index of the base at `root`; None when the base
    is in no git work tree, or its git directory cannot hold a key (then nothing is
    stamped or checked, as before stamps existed)."""
    repo = repository_of(str(root))
    if repo is None:
        return None
    return _stamp_of(str(repo.common_dir))


SQLITE_MAGIC = b"SQLite format 3\x00"
APPLICATION_ID_AT = 68  # the header field `PRAGMA application_id` reads and writes


def owned_by(path: Path, stamp: int) -> bool:
    """Whether the database at `path` carries `stamp`, read from its header's bytes (SQLite
    never opens it to say). A file too short to have a header is one SQLite has just made
    and not yet written: nobody's yet, and not deleted."""
    try:
        with open(path, "rb") as fh:
            header = fh.read(100)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if len(header) < 100:
        return not header.strip(b"\0")
    if not header.startswith(SQLITE_MAGIC):
        return False
    at = APPLICATION_ID_AT
    return int.from_bytes(header[at : at + 4], "big", signed=True) == stamp


def discard(path: Path) -> None:
    """Delete a database not stamped by this machine, with its journal files and the
    postings file made beside it (kb.io.store.postingsfile: bound to the index it came
    with, so of no use to the new one, and not this machine's)."""
    for name in (*(str(path) + s for s in ("", "-wal", "-shm", "-journal")), _postings(path)):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)


def _postings(index: Path) -> str:
    # kb.io.store.postingsfile.postings_path, spelled out: this module sits below the store
    return str(index.with_suffix(".postings"))
