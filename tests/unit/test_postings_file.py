"""A held base's postings in a mapped file (kb.io.store.postingsfile, decision 0053): made
whole or not at all, used only beside the very index state it was made from, checked before
use, never the judge of what is private, and answering exactly as postings on the heap."""

from __future__ import annotations

import mmap
import os
import stat
from array import array
from pathlib import Path

import pytest

from kb.io.answering.memory import Memory
from kb.io.files.atomic import is_temp_name
from kb.io.notes import indexowner
from kb.io.notes.indexer import index_bases
from kb.io.store import Store, postingsfile
from kb.io.store.postingsfile import postings_path
from kb.io.store.warm import NO_NUMPY_ENV
from kb.pure.answering.held import warmtext
from kb.pure.answering.held.postingslayout import HEADER, Layout, binding, header_of, read_header
from tests.unit.test_warm_text import _indexed_base

np = pytest.importorskip("numpy")

NOTES = {
    "knowledge/backups.md": "# Backups\n\nRestore a backup weekly; a backup untested is a hope.\n"
    "\n## Restore drill\n\nThe restore drill runs on staging with the backup of Monday.\n",
    "knowledge/tls.md": "# TLS\n\nThe staging certificate expired; renew the certificate early.\n",
    "knowledge/kernel.md": "# Kernel\n\nkernel upgrades need a reboot window and a backup.\n",
    "records/secret.md": "# Vault\n\nThe vault backup password rotates; backup backup backup.\n",
}
QUESTIONS = ("restore the backup", "certificate staging", "kernel reboot", "vault password")


@pytest.fixture(autouse=True)
def mapped_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every base is mapped however small (the real bound is a million postings)."""
    monkeypatch.setattr(postingsfile, "MAPPED_MIN_POSTINGS", 0)
    monkeypatch.delenv(NO_NUMPY_ENV, raising=False)


def _fleet(root: Path, notes: dict[str, str] = NOTES) -> Path:
    return _indexed_base(root, notes)  # the base `alpha`, indexed with its private chunks


def _file(base: Path) -> Path:
    return postings_path(base / ".kb" / "index.db")


def _answers(
    fleet: Path, all_layers: bool = False
) -> list[list[tuple[str, float, tuple[str, ...]]]]:
    with Memory.open([str(fleet)], all=all_layers) as memory:
        assert memory.warm(wait=True) == 1
        return [[(f.path, f.score, f.why) for f in memory.ask(q).found] for q in QUESTIONS]


def _held(base: Path) -> warmtext.WarmText:
    store = Store.open(base)
    try:
        warm = store.warm_copy.read()
        assert warm is not None
        return warm
    finally:
        store.close()


def _mapped(warm: warmtext.WarmText) -> bool:
    return all(
        isinstance(c, memoryview)
        for c in (warm.at, warm.lengths, warm.post_chunk, warm.post_counts, warm.post_weight)
    )


def test_a_large_base_is_held_from_its_postings_file_and_answers_as_on_the_heap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _fleet(tmp_path)
    mapped = _answers(tmp_path / "fleet"), _answers(tmp_path / "fleet", all_layers=True)
    info = os.stat(_file(base))
    assert stat.S_IMODE(info.st_mode) == 0o600 and info.st_size > HEADER.size
    assert _mapped(_held(base))
    monkeypatch.setattr(postingsfile, "MAPPED_MIN_POSTINGS", 1 << 40)
    assert not _mapped(_held(base))
    assert not _file(base).exists()  # too small to map now: the file goes
    heap = _answers(tmp_path / "fleet"), _answers(tmp_path / "fleet", all_layers=True)
    monkeypatch.setenv(NO_NUMPY_ENV, "1")
    python = _answers(tmp_path / "fleet"), _answers(tmp_path / "fleet", all_layers=True)
    assert mapped == heap == python
    assert any(found for found in mapped[0]) and mapped[0] != mapped[1]


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="Linux's /proc")
def test_a_mapped_postings_file_asks_for_no_read_ahead(tmp_path: Path) -> None:
    # a question's reads are scattered: read-ahead on a dropped page cost 69 against 3.8 ms
    # an answer at 100,000 notes (the comment in kb.io.store.postingsfile.mapped)
    base = _fleet(tmp_path)
    _answers(tmp_path / "fleet")  # writes the file
    held = _held(base)
    assert _mapped(held)
    name = str(_file(base))
    flags: list[str] = []
    with open("/proc/self/smaps", encoding="utf-8") as fh:
        inside = False
        for line in fh:
            if line[:1].isalnum() and "-" in line.split(" ", 1)[0]:
                inside = line.rstrip("\n").endswith(name)
            elif inside and line.startswith("VmFlags:"):
                flags += line.split()[1:]
    assert flags and "rr" in flags  # the kernel's mark of MADV_RANDOM


def test_a_second_open_maps_the_file_without_reading_the_postings_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _fleet(tmp_path)
    first = _answers(tmp_path / "fleet")
    made = _file(base).stat().st_mtime_ns

    def refused(*args: object, **kwargs: object) -> warmtext.WarmText:
        raise AssertionError("the postings were read from the index again")

    monkeypatch.setattr(warmtext, "warm_text", refused)
    assert _answers(tmp_path / "fleet") == first
    assert _file(base).stat().st_mtime_ns == made


def test_a_changed_index_is_read_again_and_its_file_made_again(tmp_path: Path) -> None:
    base = _fleet(tmp_path)
    _held(base)  # a resident kb's first read makes the file (`kb index` does not)
    before = _file(base).read_bytes()
    (base / "knowledge" / "restore.md").write_text("# Restore\n\nrestore restore the backup\n")
    index_bases([str(tmp_path / "fleet")], True)
    held = _held(base)
    assert _mapped(held) and _file(base).read_bytes() != before
    with Memory.open([str(tmp_path / "fleet")]) as memory:
        memory.warm(wait=True)
        assert memory.ask("restore restore").found[0].path == "knowledge/restore.md"


def test_a_file_beside_another_index_of_the_same_notes_is_not_used(tmp_path: Path) -> None:
    """Two fleets indexed from the same notes hold the same index state; one's postings
    file put beside the other's index (a copy, a pull) is bound to the index file it was
    made beside, and is made again."""
    one = _fleet(tmp_path / "one")
    two = _fleet(tmp_path / "two")
    _held(one)
    _held(two)
    planted = _file(one).read_bytes()
    _file(two).write_bytes(planted)
    held = _held(two)
    assert _mapped(held) and _file(two).read_bytes() != planted


def _tampered(base: Path, change: str) -> None:
    path = _file(base)
    data = bytearray(path.read_bytes())
    found = read_header(bytes(data))
    assert found is not None
    sections = {s.name: s for s in found[1].sections}

    def ints(name: str) -> array[int]:
        s = sections[name]
        return array("q" if name == "at" else "i", bytes(data[s.offset : s.end]))

    def put(name: str, values: array[int] | array[float]) -> None:
        s = sections[name]
        data[s.offset : s.end] = values.tobytes()

    at = ints("at")
    chunk = ints("chunk")
    lengths = ints("lengths")
    s = sections["weight"]
    weight = array("d", bytes(data[s.offset : s.end]))
    # a word holding two chunks or more, and the place of its first posting
    first = next(int(at[i]) for i in range(len(at) - 1) if at[i + 1] - at[i] >= 2)
    if change == "magic":
        data[0] ^= 0xFF
    elif change == "truncated":
        del data[-8:]
    elif change == "longer":
        data += b"\0" * 8
    elif change == "chunk past the base":
        chunk[first] = 10**6
        put("chunk", chunk)
    elif change == "chunk below zero":
        chunk[first] = -1
        put("chunk", chunk)
    elif change == "chunks out of order":  # within one word, the same chunks swapped
        chunk[first], chunk[first + 1] = chunk[first + 1], chunk[first]
        put("chunk", chunk)
    elif change == "weight zero":
        weight[first] = 0.0
        put("weight", weight)
    elif change == "weight NaN":
        weight[first] = float("nan")
        put("weight", weight)
    elif change == "word starts falling":
        at[1], at[2] = at[2], at[1]
        put("at", at)
    elif change == "length below zero":
        lengths[0] = -5
        put("lengths", lengths)
    else:
        raise AssertionError(change)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "change",
    [
        "magic",
        "truncated",
        "longer",
        "chunk past the base",
        "chunk below zero",
        "chunks out of order",
        "weight zero",
        "weight NaN",
        "word starts falling",
        "length below zero",
    ],
)
def test_a_damaged_file_is_never_used_and_is_made_again(tmp_path: Path, change: str) -> None:
    base = _fleet(tmp_path, {**NOTES, "knowledge/two.md": "# Two\n\nbackup backup restore\n"})
    assert not _file(base).exists()
    wanted = _answers(tmp_path / "fleet")
    _tampered(base, change)
    damaged = _file(base).read_bytes()
    assert _answers(tmp_path / "fleet") == wanted
    assert _file(base).read_bytes() != damaged  # made again from the index


def test_a_file_pointing_every_word_at_a_private_chunk_never_shows_it(tmp_path: Path) -> None:
    """What is private is read from the index's files, never from the postings: a file that
    passes every check yet sends each word to the private note's chunk (as a planted file
    with the right binding would) ranks it for no public question."""
    base = _fleet(tmp_path)
    held = _held(base)
    secret = next(j for j in range(len(held.rowids)) if j in held.private)
    path = _file(base)
    data = bytearray(path.read_bytes())
    found = read_header(bytes(data))
    assert found is not None
    digest, layout = found
    words = layout.words
    # one posting a word, each the private chunk, with a real weight
    forged = Layout(words, words, layout.chunks)
    columns: dict[str, array[int] | array[float]] = {
        "at": array("q", range(words + 1)),
        "lengths": array("i", held.lengths),
        "chunk": array("i", [secret] * words),
        "counts": array("I", [1] * words),
        "weight": array("d", [1.0] * words),
    }
    out = bytearray(header_of(digest, forged))
    for s in forged.sections:
        out += b"\0" * (s.offset - len(out))
        out += columns[s.name].tobytes()
    path.write_bytes(bytes(out))
    with Memory.open([str(tmp_path / "fleet")]) as memory:
        memory.warm(wait=True)
        assert _mapped(memory._stores[0].warm)  # type: ignore[arg-type]
        for q in (*QUESTIONS, "vault backup password rotates"):
            assert all(f.path != "records/secret.md" for f in memory.ask(q).found)


def test_a_write_the_disk_refuses_leaves_nothing_and_holds_the_base_on_the_heap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _fleet(tmp_path)
    wanted = _answers(tmp_path / "fleet")
    os.unlink(_file(base))

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    held = _held(base)
    assert not _mapped(held) and held.dense is not None
    assert sorted(p.name for p in (base / ".kb").iterdir()) == ["index.db"]
    assert _answers(tmp_path / "fleet") == wanted


def test_an_index_this_machine_did_not_write_goes_with_its_postings_file(tmp_path: Path) -> None:
    base = _fleet(tmp_path)
    _held(base)
    db = base / ".kb" / "index.db"
    indexowner.discard(db)
    assert not _file(base).exists() and not db.exists()


def test_the_layout_round_trips_and_refuses_other_headers() -> None:
    layout = Layout(words=3, postings=5, chunks=2)
    digest = bytes(range(32))
    head = header_of(digest, layout)
    assert read_header(head) == (digest, layout)
    assert read_header(head[:-1]) is None
    assert read_header(b"X" + head[1:]) is None
    other_order = head[:8] + (0x04030201).to_bytes(4, "little" if head[8] == 4 else "big")
    assert read_header(other_order + head[12:]) is None


def test_the_binding_changes_with_every_part_of_the_state() -> None:
    words = ("backup", "restore")
    doc = array("i", [2, 1])
    rowids = array("q", [1, 2, 5])
    one = binding(b"stamp", words, doc, rowids)
    assert binding(b"stamp", words, array("i", doc), array("q", rowids)) == one
    others = [
        binding(b"stamp2", words, doc, rowids),
        binding(b"stamp", ("backup", "restored"), doc, rowids),
        binding(b"stamp", ("backup\0restore",), array("i", [2]), rowids),
        binding(b"stamp", words, array("i", [2, 2]), rowids),
        binding(b"stamp", words, doc, array("q", [1, 2, 6])),
    ]
    assert len({one, *others}) == 6
    # any SQLite rowid, a negative one too, and a word with any code point
    assert binding(b"stamp", ("caf\u00e9", "\U0001f600"), doc, array("q", [-(2**63), -1, 7]))


def test_a_killed_writers_temp_file_is_swept_by_the_next_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer killed mid-write leaves its temp file in `.kb/` (tens of MB at 100,000
    notes): it is named as kb's writers name theirs, and the next write sweeps it once it is
    stale."""
    base = _fleet(tmp_path)
    kb_dir = base / ".kb"
    names: list[str] = []
    real_replace = os.replace

    def killed(src: str, dst: object) -> None:
        names.append(os.path.basename(src))
        raise OSError(5, "killed here")

    monkeypatch.setattr(os, "replace", killed)
    assert not _mapped(_held(base))  # held on the heap (and not kept: the next read reads)
    assert len(names) == 1 and is_temp_name(names[0])
    monkeypatch.setattr(os, "replace", real_replace)
    left = kb_dir / names[0]
    left.write_bytes(b"\0" * 64)  # as a SIGKILL would have left it
    os.utime(left, (0, 0))
    assert _mapped(_held(base))
    assert sorted(p.name for p in kb_dir.iterdir()) == ["index.db", "index.postings"]


def _resident_kib(path: Path) -> int:
    """The resident KiB of this process's mappings of `path` (/proc/self/smaps)."""
    total, inside = 0, False
    target = str(path)
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5:  # a mapping's first line
            inside = len(head) >= 6 and head[5] == target
        elif inside and line.startswith("Rss:"):
            total += int(head[1])
    return total


def test_pages_given_back_leave_the_process_and_the_answers_unchanged(tmp_path: Path) -> None:
    """A resident kb gives its mapped postings pages back to the page cache past a budget
    (kb.shell.daemon.FILE_PAGES_KEPT): its resident set drops by them, and a question reads
    them again as before."""
    base = _fleet(tmp_path)
    first = _answers(tmp_path / "fleet")
    with Memory.open([str(tmp_path / "fleet")]) as memory:
        assert memory.warm(wait=True) == 1
        assert _held_file(memory)[:]  # every page read
        path = _file(base).resolve()
        assert _resident_kib(path) > 0
        assert postingsfile.give_back_pages() >= 1
        assert _resident_kib(path) == 0
        assert [[(f.path, f.score, f.why) for f in memory.ask(q).found] for q in QUESTIONS] == (
            first
        )
        assert _resident_kib(path) > 0  # read again
    assert (postingsfile.resident_file_bytes() or 0) > 0


def _held_file(memory: Memory) -> mmap.mmap:
    """The held base's mapped postings file (what its word starts are a view of)."""
    warm = memory._stores[0].warm
    assert warm is not None and _mapped(warm)
    view = warm.at
    assert isinstance(view, memoryview) and isinstance(view.obj, mmap.mmap)
    return view.obj


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="Linux's /proc")
@pytest.mark.parametrize("checked", [False, True])
def test_a_scattered_read_maps_only_pages_near_it(tmp_path: Path, checked: bool) -> None:
    """The page cache may hold a postings file in large blocks (the file just written, or
    read straight through by the checks or a backup), and a fault maps the whole block it
    falls in: at 100,000 notes a question mapped 55-115 MB where it read 2-3 MB. Once
    mapped, the file is cached page by page, and reads a megabyte apart map no more than
    the kernel's 64 KB around each."""
    digest = b"d" * 32
    # one word in every chunk, weight 1.0: what `_sound` accepts, 64 MB of postings
    layout = Layout(words=1, postings=1 << 22, chunks=1 << 22)
    path = tmp_path / "index.postings"
    with open(path, "wb") as out:
        out.write(header_of(digest, layout))
        for section in layout.sections:
            out.write(b"\0" * (section.offset - out.tell()))
            if section.name == "at":
                out.write(array("q", [0, layout.postings]).tobytes())
            elif section.name == "chunk":
                out.write(array("i", range(layout.chunks)).tobytes())
            elif section.name == "weight":
                out.write(array("d", [1.0]).tobytes() * layout.postings)
            else:
                out.write(b"\0" * (section.end - section.offset))
        out.flush()
        os.fsync(out.fileno())
    with open(path, "rb") as fh:
        while fh.read(1 << 20):  # read straight through, as a backup would
            pass
    columns = postingsfile.mapped(path, digest, 1, layout.chunks, checked)
    assert columns is not None
    step = (1 << 20) // 8
    touched = [columns.post_weight[i] for i in range(0, layout.postings, step)]
    assert touched == [1.0] * len(touched)
    assert 0 < _resident_kib(path) <= len(touched) * 64
