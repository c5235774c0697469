"""Properties of `kb write` (and the name rule `kb init` shares with it):

- a write that fails at any point (the map cannot be written, the disk is full, a value is
  illegal) leaves every byte of the tree as it was, whatever the slug, keys and body;
- a write that succeeds adds exactly the note and changes the map only by adding lines;
- the map insertion adds the entry line (and the heading when absent) and never changes,
  moves or sorts an existing line;
- the name rule accepts exactly `[a-z0-9]` runs with inner hyphens, 1 to 40 long;
- a rendered note reads back with the keys it was written with.
"""

from __future__ import annotations

import errno
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.io.files import atomic, newtree
from kb.io.writing import notewrite as io_write
from kb.pure.answering.entries import dead_keys
from kb.pure.fleet.listing import PROVENANCES, STAGES
from kb.pure.notes.header import front_matter, header_of
from kb.pure.notes.names import is_usable_name
from kb.pure.notes.tokens import STOPWORDS
from kb.pure.writing.notewrite import (
    insert_entry,
    legal_folder,
    parse_keys,
    render_note,
    section_heading,
    stopword_keys,
)
from kb.pure.writing.skeleton import MEMORY_FOLDERS, agent_skeleton
from kb.shell.cli.inputs import WriteInput
from kb.shell.writing.initwrite import write_note
from tests.golden.test_skeletons import fingerprint

FS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
PURE = settings(max_examples=200, deadline=None)

NAME_RE = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")

slugs = st.from_regex(NAME_RE, fullmatch=True)
# A live key holds a word some question can use: a stopword alone (`if`) is refused before
# anything is written (exit 2, decision 0023), which is not the failure this test makes.
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9).filter(
    lambda w: w not in STOPWORDS
)
live_keys = st.lists(st.lists(words, min_size=1, max_size=3).map(" ".join), min_size=1, max_size=6)
bodies = st.text(min_size=1, max_size=300).filter(lambda s: bool(s.strip()))
summaries = st.text(max_size=80)


@pytest.fixture(scope="module")
def fleet() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="kb-write-props-"))
    newtree.create_tree(root / "fleet", "newton", agent_skeleton("newton").files)
    base = root / "fleet" / "newton"
    (base / "MAP.md").write_text(
        (base / "MAP.md").read_text() + "\n### knowledge/\n\n- **[[old]]** An old note\n"
    )
    (base / "knowledge" / "old.md").write_text("# Old\n\n**Search for:** `old`\n")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _raise_oserror(*_args: object) -> None:
    raise OSError(errno.EACCES, "Permission denied")


def _raise_enospc(*_args: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


BREAKAGES = {
    "map writer refuses": (io_write, "write_map", _raise_oserror),
    "disk full in the atomic writer": (atomic, "write_atomic", _raise_enospc),
    "disk full writing the note": (io_write, "create_new", _raise_enospc),
}


@FS
@given(
    slug=slugs,
    keys=live_keys,
    body=bodies,
    summary=summaries,
    folder=st.sampled_from(MEMORY_FOLDERS),
    breakage=st.sampled_from(sorted(BREAKAGES)),
)
def test_failed_write_leaves_tree_byte_identical(
    fleet: Path,
    slug: str,
    keys: list[str],
    body: str,
    summary: str,
    folder: str,
    breakage: str,
) -> None:
    before = fingerprint(fleet)
    module, name, broken = BREAKAGES[breakage]
    inp = WriteInput(
        agent="newton",
        slug=slug,
        paths=(str(fleet),),
        keys=", ".join(keys),
        summary=summary,
        folder=folder,
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(module, name, broken)
        out = write_note(inp, body)
    assert out.code == 1
    assert out.stdout == ""
    assert out.stderr.startswith("kb: ") and out.stderr.count("\n") == 1
    assert fingerprint(fleet) == before


@FS
@given(
    slug=slugs,
    keys=st.text(max_size=40),
    body=st.text(max_size=60),
    provenance=st.one_of(st.sampled_from(PROVENANCES), st.text(max_size=10)),
    stage=st.one_of(st.sampled_from(STAGES), st.text(max_size=10)),
    folder=st.one_of(
        st.sampled_from(MEMORY_FOLDERS),
        st.sampled_from(["..", "../knowledge", "/tmp", "knowledge/..", "a\\b", ""]),
        st.text(max_size=12),
    ),
)
def test_illegal_values_write_nothing(
    fleet: Path, slug: str, keys: str, body: str, provenance: str, stage: str, folder: str
) -> None:
    """Whatever the values, a write either succeeds cleanly or leaves the tree untouched;
    here every outcome is undone by the breakage of the map writer, so only refusals and
    IO failures can happen, and none may leave a trace."""
    before = fingerprint(fleet)
    inp = WriteInput(
        agent="newton",
        slug=slug,
        paths=(str(fleet),),
        keys=keys,
        summary="s",
        folder=folder,
        provenance=provenance,
        stage=stage,
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(io_write, "write_map", _raise_oserror)
        out = write_note(inp, body)
    # 2 only for keys of stopwords alone, a usage error like a missing flag
    assert out.code == (2 if out.stderr.startswith("kb: every key is made only of") else 1)
    assert out.stderr.count("\n") == 1
    assert fingerprint(fleet) == before
    legal = provenance in PROVENANCES and stage in STAGES
    if not legal or legal_folder(folder) is None:
        assert "cannot write" not in out.stderr  # refused before the disk was touched


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(slug=slugs, keys=live_keys, body=bodies, summary=summaries)
def test_successful_write_adds_the_note_and_only_adds_to_the_map(
    fleet: Path, slug: str, keys: list[str], body: str, summary: str
) -> None:
    # a dash lands too (with a warning) unless the fleet opts in, which this one does not
    work = Path(tempfile.mkdtemp(prefix="kb-write-ok-"))
    try:
        shutil.copytree(fleet, work, dirs_exist_ok=True)
        base = work / "fleet" / "newton"
        old_map = (base / "MAP.md").read_text()
        before = fingerprint(work)
        inp = WriteInput(
            agent="newton", slug=slug, paths=(str(work),), keys=", ".join(keys), summary=summary
        )
        out = write_note(inp, body)
        parsed = parse_keys(", ".join(keys))
        unread = set(dead_keys(parsed)) | set(stopword_keys(parsed))
        live = tuple(k for k in parsed if k not in unread)
        if len(stopword_keys(parsed)) == len(parsed):  # stopwords alone: a usage error
            assert out.code == 2 and fingerprint(work) == before
            return
        if slug == "old" or not live:  # taken, or every key dead: refused
            assert out.code == 1 and fingerprint(work) == before
            return
        assert out.code == 0, out.stderr
        after = fingerprint(work)
        note = f"fleet/newton/knowledge/{slug}.md"
        assert set(after) == set(before) | {note}
        changed = {k for k in before if before[k] != after[k]}
        assert changed == {"fleet/newton/MAP.md"}
        new_map = (base / "MAP.md").read_text()
        old_lines, new_lines = old_map.split("\n"), new_map.split("\n")
        assert len(new_lines) == len(old_lines) + 1
        i = next(n for n, line in enumerate(new_lines) if line.startswith(f"- **[[{slug}]]**"))
        assert new_lines[:i] + new_lines[i + 1 :] == old_lines
        written = (base / "knowledge" / f"{slug}.md").read_text()
        assert header_of(written).keys == live
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- the map insertion, pure ------------------------------------------------------------------

map_lines = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "# Map",
                "## Current contents",
                "### knowledge/",
                "  ### knowledge/  ",
                "### decisions/",
                "###knowledge/",
                "### knowledge",
                "",
                "   ",
                "- **[[a]]** A note",
                "some prose",
                "---",
            ]
        ),
        st.text(alphabet=st.characters(blacklist_characters="\r\n"), max_size=20),
    ),
    max_size=14,
)
entries = st.builds(lambda s: f"- **[[{s}]]** new", slugs)


def _ends_section(line: str) -> bool:
    return line.startswith(("# ", "## ", "### "))


@PURE
@given(
    lines=map_lines,
    crlf=st.booleans(),
    final_newline=st.booleans(),
    folder=st.sampled_from(MEMORY_FOLDERS),
    entry=entries,
)
def test_insert_entry_only_adds(
    lines: list[str], crlf: bool, final_newline: bool, folder: str, entry: str
) -> None:
    nl = "\r\n" if crlf else "\n"
    old = nl.join(lines) + (nl if final_newline and lines else "")
    heading = section_heading(folder)
    placed = insert_entry(old, folder, entry)
    new = placed.text
    existed = any(line.strip() == heading for line in old.split("\n"))
    assert placed.section_created is not existed
    if not existed:
        first_nl = "\r\n" if old.split("\n", 1)[0].endswith("\r") else "\n"
        assert new == old.rstrip() + first_nl.join(["", "", heading, "", entry, ""])
        assert insert_entry(new, folder, entry).section_created is False
        return
    old_lines = [line.removesuffix("\r") for line in old.split("\n")]
    new_lines = [line.removesuffix("\r") for line in new.split("\n")]
    assert len(new_lines) == len(old_lines) + 1
    at = next(i for i, line in enumerate(new_lines) if line.strip() == heading)
    i = next(
        n
        for n in range(at + 1, len(new_lines))
        if new_lines[n] == entry and new_lines[:n] + new_lines[n + 1 :] == old_lines
    )
    # the entry sits in its own section: nothing but its heading's body above it...
    assert not any(_ends_section(line) for line in new_lines[at + 1 : i])
    # ...and only blank lines between it and the end of that section
    end = next((n for n in range(i + 1, len(new_lines)) if _ends_section(new_lines[n])), None)
    assert all(not line.strip() for line in new_lines[i + 1 : end])
    assert new.endswith("\n") is old.endswith("\n")


@PURE
@given(lines=map_lines, folder=st.sampled_from(MEMORY_FOLDERS), a=entries, b=entries)
def test_insertions_append_in_order(lines: list[str], folder: str, a: str, b: str) -> None:
    once = insert_entry("\n".join(lines) + "\n", folder, a).text
    twice = insert_entry(once, folder, b).text.split("\n")
    assert twice.index(a) < len(twice) - 1 - twice[::-1].index(b)  # b lands after a


# -- the name rule ------------------------------------------------------------------------------

name_like = st.one_of(
    slugs,
    st.text(alphabet="ab09-_A./\\ \u00e9\n\t", max_size=45),
    st.text(max_size=45),
    st.from_regex(r"-?[a-z0-9-]{0,42}-?", fullmatch=True),
)


@PURE
@given(name_like)
def test_name_rule_is_exactly_the_language(name: str) -> None:
    assert is_usable_name(name) is (NAME_RE.fullmatch(name) is not None)


# -- rendering ------------------------------------------------------------------------------------


@PURE
@given(
    keys=live_keys,
    core=st.text(alphabet="abc xyz", max_size=30),
    dots=st.integers(0, 3),
    body=bodies,
    provenance=st.sampled_from(PROVENANCES),
    stage=st.sampled_from(STAGES),
    captured=st.sampled_from(["", "inbox/x.md"]),
)
def test_rendered_note_reads_back(
    keys: list[str],
    core: str,
    dots: int,
    body: str,
    provenance: str,
    stage: str,
    captured: str,
) -> None:
    summary = core + "." * dots
    parsed = parse_keys(", ".join(keys))
    text = render_note(parsed, summary, body, provenance, stage, captured)
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert header_of(text).keys == parsed
    assert header_of(text).purpose == summary.strip().rstrip(".").strip()
    assert body.strip() in text
    fm = dict(front_matter(text))
    assert fm["provenance"] == provenance and fm["stage"] == stage
    assert ("captured_from" in fm) is bool(captured)


@PURE
@given(
    folder=st.one_of(
        st.text(max_size=30),
        st.lists(
            st.sampled_from([*MEMORY_FOLDERS, "..", ".", "", ".git", "a b", "sys", "x\\y", "\n"]),
            min_size=1,
            max_size=4,
        ).map("/".join),
    )
)
def test_a_legal_folder_stays_inside_its_top_folder(folder: str) -> None:
    """Nested folders are accepted (issue 16), and none of them can leave the base, hide
    from the walk, or be named two ways."""
    legal = legal_folder(folder)
    if legal is None:
        return
    parts = legal.split("/")
    assert parts[0] in MEMORY_FOLDERS
    assert all(p and p not in (".", "..") and not p.startswith(".") for p in parts)
    assert "\\" not in legal and legal.isprintable()
    assert legal == folder.rstrip("/")
