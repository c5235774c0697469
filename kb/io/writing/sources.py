"""Source records on disk: loading `sources/*.txt` and creating one record, never overwriting.

Reading: only `*.txt` files directly in `<base>/sources/`, in path order; a file that cannot
be read or parsed is reported with its display path `sources/{name}` and the problem, and
the rest still load.

Creating (`kb source add`): every field is checked before anything touches the disk. Then
`sources/` is created, the record text is written once to a hidden temp file in that
folder, and each candidate key is claimed with `os.link(temp, sources/KEY.txt)`, which
fails if the name exists: a record is never overwritten, and a reader never sees half of
one. Eight tries, as the spec allows. A failure after `sources/` was created by this call
removes the (then empty) folder again, so a refusal leaves the tree as it found it.

Randomness: `os.urandom`. For tests only, the environment variable KB_TEST_ENTROPY_SEED
replaces it with `random.Random(seed).randbytes`, so a golden test can pin a minted key.
It is read nowhere else, and no user should ever set it: keys minted under it are
predictable and will collide across runs that use the same seed.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import cast

from attrs import frozen

from kb.io.files.atomic import crash_point, sweep_temps
from kb.io.notes.walk import shown
from kb.pure.notes.manifest import PrivateLayer, private_layer
from kb.pure.writing.sources import (
    Draft,
    Record,
    draft_problem,
    mint_key,
    parse_record,
    record_of,
    render_record,
)

TEST_SEED_ENV = "KB_TEST_ENTROPY_SEED"
MINT_TRIES = 8
# 16 random bytes hold 10 accepted symbols with probability 0.9996; 64 bytes failing to is a
# 1-in-10^45 event, so a key that needs more than four chunks means a broken source.
_CHUNK = 16
_CHUNKS_PER_KEY = 4
MINT_FAILED = (
    "could not mint a free key in eight tries, which at 33^10 means the entropy source is "
    "broken rather than the space being full"
)

Draw = Callable[[int], bytes]


def entropy_source() -> Draw:
    """os.urandom, or (tests only) a seeded generator when KB_TEST_ENTROPY_SEED is set."""
    seed = os.environ.get(TEST_SEED_ENV)
    if seed is None:
        return os.urandom
    return random.Random(seed).randbytes


def next_key(draw: Draw) -> str | None:
    """One key from `draw`, or None when even 64 bytes did not yield ten symbols."""
    buf = b""
    for _ in range(_CHUNKS_PER_KEY):
        buf += draw(_CHUNK)
        key = mint_key(buf)
        if key is not None:
            return key
    return None


def joined(base: str, rel: str) -> str:
    """`base/rel` as a person typed the base (`.` stays `./`), for messages and output."""
    return (base if base.endswith("/") else base + "/") + rel


# -- reading ------------------------------------------------------------------------------


def _read(path: Path) -> str:
    """The file's text; raises OSError or UnicodeDecodeError."""
    return path.read_bytes().decode("utf-8")


def load_records(root: Path) -> tuple[list[Record], list[tuple[str, str]]]:
    """The valid records in path order, and (display path, problem) for each broken file."""
    from returns.result import Success

    folder = root / "sources"
    try:
        with os.scandir(folder) as it:
            names = sorted(e.name for e in it if e.name.endswith(".txt") and e.name != ".txt")
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    records: list[Record] = []
    broken: list[tuple[str, str]] = []
    for name in names:
        display = f"sources/{shown(name)}"  # a newline or a non-UTF-8 byte, escaped
        try:
            text = _read(folder / name)
        except OSError as e:
            broken.append((display, e.strerror or str(e)))
            continue
        except UnicodeDecodeError:
            broken.append((display, "stream did not contain valid UTF-8"))
            continue
        result = parse_record(name[: -len(".txt")], text)
        if isinstance(result, Success):
            records.append(result.unwrap())
        else:
            broken.append((display, result.failure()))
    return records, broken


def layer_of(root: Path) -> PrivateLayer:
    """The base's private layer, read the way the walk reads it (agent.txt, or the name)."""
    try:
        agent_txt: str | None = _read(root / "agent.txt")
    except (OSError, UnicodeDecodeError):
        agent_txt = None
    name = root.resolve().name if root.name in ("", ".", "..") else root.name
    return private_layer(agent_txt, name)


def sources_in_scope(root: Path, include_private: bool) -> bool:
    """False when the base's private layer covers `sources` and --all was not given."""
    return include_private or not layer_of(root).covers("sources")


@frozen
class BaseRecords:
    given: str  # the base as expanded from the paths given
    records: tuple[Record, ...]
    broken: tuple[tuple[str, str], ...]  # (display path, problem)
    skipped: bool  # its sources are private and --all was not given
    missing: str | None = None  # why the base could not be read at all


def gather(paths: list[str], include_private: bool) -> list[BaseRecords]:
    """Every expanded base's records, read from the files on disk, never from the index."""
    from kb.io.notes.walk import expand_roots

    out: list[BaseRecords] = []
    for given in expand_roots(paths):
        root = Path(given)
        if not root.is_dir():
            reason = "no such directory" if not root.exists() else "not a directory"
            out.append(BaseRecords(given, (), (), False, f"cannot read {given}: {reason}"))
            continue
        if not sources_in_scope(root, include_private):
            out.append(BaseRecords(given, (), (), True))
            continue
        try:
            records, broken = load_records(root)
        except OSError as e:  # sources/ exists but cannot be listed
            out.append(BaseRecords(given, (), (("sources", e.strerror or str(e)),), False))
            continue
        out.append(BaseRecords(given, tuple(records), tuple(broken), False))
    return out


# -- creating -----------------------------------------------------------------------------


@frozen
class Added:
    shown: str  # `{path}/sources/{KEY}.txt` as the person gave the path
    record: Record


@frozen
class Refused:
    message: str
    code: int  # 2: a field or the key; 1: the disk


def _existing_keys(folder: Path) -> frozenset[str]:
    try:
        with os.scandir(folder) as it:
            return frozenset(e.name[: -len(".txt")] for e in it if e.name.endswith(".txt"))
    except OSError:
        return frozenset()


def add_source(base: str, draft: Draft, draw: Draw | None = None) -> Added | Refused:
    """Check `draft`, then create `sources/{KEY}.txt` under `base` with a fresh key."""
    root = Path(base)
    folder = root / "sources"
    problem = draft_problem(draft, _existing_keys(folder), base)
    if problem is not None:
        return Refused(problem, 2)
    if not root.is_dir():
        reason = "no such directory" if not root.exists() else "not a directory"
        return Refused(f"{base}: {reason}", 1)
    text = render_record(record_of(draft, ""))  # the key is the file name, never in the body
    created = False
    try:
        try:
            folder.mkdir()
            created = True
        except FileExistsError:
            if not folder.is_dir():
                return Refused(f"{joined(base, 'sources')}: exists and is not a directory", 1)
        outcome = _claim(folder, text, draw or entropy_source())
    except OSError as e:
        outcome = Refused(f"{joined(base, 'sources')}: {e.strerror or e}", 1)
    if isinstance(outcome, Refused) and created:
        with contextlib.suppress(OSError):
            folder.rmdir()  # only succeeds when empty: nothing of ours is left behind
    if isinstance(outcome, Refused):
        return outcome
    sweep_temps(folder)  # temp files of earlier runs killed mid-claim
    return Added(joined(base, f"sources/{outcome}.txt"), record_of(draft, outcome))


def _claim(folder: Path, text: str, draw: Draw) -> str | Refused:
    """Write `text` once, then link it to the first free key; the key, or why not."""
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        crash_point("source.temp-written")
        for _ in range(MINT_TRIES):
            key = next_key(draw)
            if key is None:
                continue
            target = folder / f"{key}.txt"
            if os.path.lexists(target):
                continue
            try:
                os.link(tmp, target)
            except FileExistsError:
                continue  # taken between the check and the link: another try
            except OSError as e:
                if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                    raise
                if not _create_exclusive(target, text):  # a filesystem without hard links
                    continue
            crash_point("source.linked")
            return key
        return Refused(MINT_FAILED, 2)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _create_exclusive(target: Path, text: str) -> bool:
    """Create `target` with `text`, failing if it exists; False when the name was taken."""
    try:
        fh = open(target, "x", encoding="utf-8", newline="")  # noqa: SIM115
    except FileExistsError:
        return False
    try:
        with fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(target)
        raise
    return True


# -- the index's `sources` table ----------------------------------------------------------


def source_rows(
    base_name: str, root: Path, private: PrivateLayer, include_private: bool
) -> list[tuple[str, ...]]:
    """Rows for `TextWriter.sync(..., sources=...)`, in the `sources` table's column order.

    The same scope as `kb sources`: none when the private layer covers `sources` and --all
    was not given. Broken records and an unreadable folder are left out (`kb check` and
    `kb sources` name them). Absent optional values are NULL.
    """
    if not include_private and private.covers("sources"):
        return []
    try:
        records, _broken = load_records(root)
    except OSError:  # an unlistable sources/ must not stop the notes from being indexed
        return []
    rows = [
        (
            base_name,
            r.key,
            r.type,
            r.title,
            "; ".join(r.authors) or None,
            r.year,
            r.container,
            r.url,
            r.doi,
            r.isbn,
            r.retrieved_on,
            r.retrieval_status,
            r.replaces,
        )
        for r in records
    ]
    # TextWriter.sync annotates its rows as tuple[str, ...]; sqlite3 writes None as NULL.
    return cast("list[tuple[str, ...]]", rows)


def source_stamp(
    base_name: str, root: Path, private: PrivateLayer, include_private: bool
) -> str | None:
    """What `source_rows` depends on, from one listing of `sources/` without reading a
    record: the scope, and each `*.txt` file's name, size and modification time. `kb index`
    re-reads the records only when this changed since the rows were written (reading them
    all was as costly as the walk of a warm re-index: 0.21 s for 1,092 records). None when
    the folder cannot be listed or a record stated: the rows are then read every time."""
    digest = hashlib.blake2b(base_name.encode(errors="surrogateescape"), digest_size=16)
    if not include_private and private.covers("sources"):
        digest.update(b"\0private")
        return digest.hexdigest()
    try:
        with os.scandir(root / "sources") as it:
            entries = sorted(
                (e for e in it if e.name.endswith(".txt") and e.name != ".txt"),
                key=lambda e: e.name,
            )
    except (FileNotFoundError, NotADirectoryError):
        digest.update(b"\0none")
        return digest.hexdigest()
    except OSError:
        return None
    for e in entries:
        try:
            st = e.stat()
        except OSError:
            return None
        digest.update(
            f"\n{e.name}\0{st.st_size}\0{st.st_mtime_ns}".encode(errors="surrogateescape")
        )
    return digest.hexdigest()
