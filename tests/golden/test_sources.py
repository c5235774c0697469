"""`kb source add` and `kb sources` on tests/fixtures/sources-fleet (workflow-verbs.md §5).

The fleet: `alpha` holds seven records (one superseded by another through `replaces`, one
hand-edited with comments, CRLF and an upper-case key) and two broken files; `beta`
declares `private = sources`; `gamma` has no `sources/` at all.

Regenerate only on purpose: KB_UPDATE_GOLDEN=1 python -m pytest tests/golden/test_sources.py,
then review the diff.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from kb.io.writing.sources import MINT_FAILED, Refused, add_source, next_key
from kb.pure.writing.sources import Draft, is_key, parse_record
from kb.shell.cli.table import usage_of
from tests import unprivileged
from tests.conftest import REPO, RunKb, check_golden

FIXTURE = REPO / "tests" / "fixtures" / "sources-fleet"
SEED = {"KB_TEST_ENTROPY_SEED": "1943"}
BROKEN = (
    "kb: alpha/sources/HYGNE7TEST.txt: no `retrieval_status =` line\n"
    "kb: alpha/sources/notakey.txt: `notakey` is not a key: "
    "10 characters from 23456789ABCDEFGHIJKLMNPQRSTUVWXYZ\n"
)
MASLOW = [
    "--type",
    "article",
    "--title",
    "A Theory of Human Motivation",
    "--author",
    "Maslow, A. H.",
    "--container",
    "Psychological Review",
    "--volume",
    "50",
    "--pages",
    "370-396",
    "--year",
    "1943",
    "--url",
    "https://psychclassics.yorku.ca/Maslow/motivation.htm",
    "--retrieval-status",
    "full",
    "--retrieved-on",
    "2026-09-06",
]


@pytest.fixture
def fleet(tmp_path: Path) -> Path:
    dst = tmp_path / "sources-fleet"
    shutil.copytree(FIXTURE, dst)
    return dst


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (with its bytes) and folder (None) under root: a refusal must keep it."""
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root) + "/"] = None
        for f in filenames:
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, root)] = Path(p).read_bytes()
    return out


# -- kb sources -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("sources.txt", ["sources"]),
        ("sources-all.txt", ["sources", "--all"]),
        ("sources.json", ["sources", "--json"]),
        ("sources-all.json", ["sources", "--json", "--all"]),
        ("sources-beta-all.txt", ["sources", "beta", "--all"]),
    ],
)
def test_sources_output(fleet: Path, kb: RunKb, name: str, args: list[str]) -> None:
    out = kb(args, cwd=fleet)
    check_golden(f"sources/{name}", out.stdout)
    if "beta" in args:
        assert (out.code, out.stderr) == (0, "")
    else:
        assert out.code == 1  # alpha carries two broken records
        assert out.stderr == BROKEN


def test_sources_json_is_one_line_in_base_then_path_order(fleet: Path, kb: RunKb) -> None:
    out = kb(["sources", "--json", "--all"], cwd=fleet)
    assert out.stdout.count("\n") == 1
    items = json.loads(out.stdout)
    ids = [i["id"] for i in items]
    assert ids[:-1] == sorted(ids[:-1]) and ids[-1] == "BETAPR2V8T"
    superseding = next(i for i in items if i["id"] == "WEBNEW7ST8")
    assert superseding["custom"] == {"retrieval_status": "unreachable", "replaces": "WEB9LD2ST6"}


def test_private_sources_are_skipped_without_all(fleet: Path, kb: RunKb) -> None:
    hidden = kb(["sources", "beta"], cwd=fleet)
    assert (hidden.stdout, hidden.code) == ("no source records\n", 0)
    shown = kb(["sources", "beta", "--all"], cwd=fleet)
    assert "A private reading list" in shown.stdout
    assert "1 source in 1 base" in shown.stdout


def test_sources_counts_skipped_bases(fleet: Path, kb: RunKb) -> None:
    out = kb(["sources"], cwd=fleet)
    assert out.stdout.endswith("\n7 sources in 3 bases\n")


def test_sources_reads_disk_not_the_index(fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=fleet).code == 0
    (fleet / "alpha" / "sources" / "RPTV6NCN2K.txt").unlink()
    out = kb(["sources", "alpha"], cwd=fleet)
    assert "RPTV6NCN2K" not in out.stdout
    assert "6 sources in 1 base" in out.stdout


def test_sources_on_a_missing_path(fleet: Path, kb: RunKb) -> None:
    out = kb(["sources", "gamma", "nowhere"], cwd=fleet)
    assert out.code == 1
    assert out.stderr == "kb: cannot read nowhere: no such directory\n"
    assert out.stdout == "no source records\n"


# -- kb index fills the sources table -----------------------------------------------------


def _rows(base: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(base / ".kb" / "index.db") as conn:
        return conn.execute("SELECT * FROM sources ORDER BY key").fetchall()


def test_index_writes_public_source_rows(fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=fleet).code == 0
    rows = _rows(fleet / "alpha")
    assert [r[1] for r in rows] == [
        "BKPR4CT2CE",
        "CHAP3TRK7Q",
        "MASLW2HT43",
        "RECD5NGS9X",
        "RPTV6NCN2K",
        "WEB9LD2ST6",
        "WEBNEW7ST8",
    ]
    assert rows[0] == (
        "alpha",
        "BKPR4CT2CE",
        "book",
        "The Design of Everyday Things",
        "Norman, Don; Draper, Stephen W.",
        "2013",
        None,
        None,
        None,
        "978-0-465-05065-9",
        "2024-10-01",
        "partial",
        None,
    )
    assert rows[-1][-1] == "WEB9LD2ST6"  # WEBNEW7ST8 replaces it
    assert _rows(fleet / "beta") == []
    assert kb(["index", "--all"], cwd=fleet).code == 0
    assert [r[1] for r in _rows(fleet / "beta")] == ["BETAPR2V8T"]


def test_index_rereads_source_records_only_when_their_folder_changed(
    fleet: Path, kb: RunKb
) -> None:
    """A re-index keeps the rows while `sources/` is as it was (the records are not read
    again), and follows every edit, addition and deletion of a record."""
    assert kb(["index"], cwd=fleet).code == 0
    before = _rows(fleet / "alpha")
    assert kb(["index"], cwd=fleet).code == 0
    assert _rows(fleet / "alpha") == before
    folder = fleet / "alpha" / "sources"
    record = folder / "BKPR4CT2CE.txt"
    text = record.read_text(encoding="utf-8")
    edited = text.replace("The Design of Everyday Things", "The Design of Everyday Things, 2e")
    assert edited != text
    record.write_text(edited, encoding="utf-8")
    (folder / "MASLW2HT43.txt").unlink()
    assert kb(["index"], cwd=fleet).code == 0
    rows = _rows(fleet / "alpha")
    assert [r[1] for r in rows] == [r[1] for r in before if r[1] != "MASLW2HT43"]
    assert rows[0][3] == "The Design of Everyday Things, 2e"


# -- kb source add ------------------------------------------------------------------------


def test_source_add_golden(fleet: Path, kb: RunKb) -> None:
    out = kb(["source", "add", "gamma", *MASLOW], cwd=fleet, env=SEED)
    assert (out.code, out.stderr) == (0, "")
    check_golden("sources/source-add.txt", out.stdout)
    key = out.stdout.split("[src:", 1)[1][:10]
    assert is_key(key)
    record = fleet / "gamma" / "sources" / f"{key}.txt"
    check_golden("sources/source-add-record.txt", record.read_text(encoding="utf-8"))
    assert [p.name for p in record.parent.iterdir()] == [record.name]  # no temp file left
    # The spec's own example line, through the whole CLI.
    assert out.stdout.endswith(
        f'- [src:{key}] Maslow, A. H. "A Theory of Human Motivation". Psychological Review 50,'
        " 370-396. 1943. https://psychclassics.yorku.ca/Maslow/motivation.htm."
        " read in full, 2026-09-06.\n"
    )


def test_source_add_default_path_is_the_current_base(fleet: Path, kb: RunKb) -> None:
    out = kb(["source", "add", *MASLOW], cwd=fleet / "gamma", env=SEED)
    assert out.code == 0
    assert out.stdout.startswith("wrote ./sources/")


def test_repeated_author_flags_keep_their_order(fleet: Path, kb: RunKb) -> None:
    args = ["source", "add", "gamma", "--type", "book", "--title", "T", "--retrieved-on"]
    args += ["2024-01-01", "--retrieval-status", "metadata"]
    args += ["--author", "Zed, A.", "--author", "  ", "--author", "Abel, B."]
    out = kb(args, cwd=fleet)
    assert out.code == 0, out.stderr
    assert "- [src:" in out.stdout and '] Zed, A.; Abel, B. "T". catalogue record' in out.stdout
    (record,) = (fleet / "gamma" / "sources").iterdir()
    text = record.read_text(encoding="utf-8")
    assert "author = Zed, A.\nauthor = Abel, B.\n" in text
    assert parse_record(record.stem, text).unwrap().authors == ("Zed, A.", "Abel, B.")


def test_source_add_replaces_an_existing_record(fleet: Path, kb: RunKb) -> None:
    args = ["source", "add", "alpha", "--type", "webpage", "--title", "Hydration, third take"]
    args += ["--retrieved-on", "2024-06-01", "--retrieval-status", "full"]
    args += ["--replaces", "WEBNEW7ST8", "--url", "https://example.org/v3"]
    out = kb(args, cwd=fleet, env=SEED)
    assert out.code == 0, out.stderr
    key = out.stdout.split("[src:", 1)[1][:10]
    text = (fleet / "alpha" / "sources" / f"{key}.txt").read_text(encoding="utf-8")
    assert text.endswith("retrieval_status = full\nreplaces = WEBNEW7ST8\n")


def test_successive_adds_mint_different_keys(fleet: Path, kb: RunKb) -> None:
    keys = set()
    for _ in range(3):
        out = kb(["source", "add", "gamma", *MASLOW], cwd=fleet)  # os.urandom
        assert out.code == 0
        keys.add(out.stdout.split("[src:", 1)[1][:10])
    assert len(keys) == 3
    assert sorted(p.stem for p in (fleet / "gamma" / "sources").iterdir()) == sorted(keys)


COMPLETE = ["--type", "book", "--retrieval-status", "full", "--title", "T"]
COMPLETE += ["--retrieved-on", "2024-01-01"]
REFUSALS: list[tuple[str, list[str], int, str]] = [
    ("no type", ["--title", "T"], 2, "kb: --type is required"),
    ("blank type", ["--type", "  "], 2, "kb: --type is required"),
    (
        "bad type",
        ["--type", "Book"],
        2,
        "kb: type is `Book`, which is not one of book, chapter, article, report, webpage,"
        " recording",
    ),
    ("no status", ["--type", "book"], 2, "kb: --retrieval-status is required"),
    (
        "bad status",
        ["--type", "book", "--retrieval-status", "skimmed"],
        2,
        "kb: retrieval-status is `skimmed`, which is not one of full, partial, metadata,"
        " unreachable",
    ),
    (
        "malformed replaces",
        ["--type", "book", "--retrieval-status", "full", "--replaces", "web9ld2st6"],
        2,
        "kb: replaces is `web9ld2st6`, which is not a key:"
        " 10 characters from 23456789ABCDEFGHIJKLMNPQRSTUVWXYZ",
    ),
    (
        "replaces nothing",
        ["--type", "book", "--retrieval-status", "full", "--replaces", "WEB9LD2ST6"],
        2,
        "kb: replaces names `WEB9LD2ST6`, but gamma has no sources/WEB9LD2ST6.txt:"
        " a record can only supersede one that exists",
    ),
    (
        "no title",
        ["--type", "book", "--retrieval-status", "full", "--retrieved-on", "2024-01-01"],
        2,
        "kb: --title is required",
    ),
    (
        "no date",
        ["--type", "book", "--retrieval-status", "full", "--title", "T"],
        2,
        "kb: --retrieved-on is required",
    ),
    (
        "line break",
        [*COMPLETE, "--note", "one\ntype = report"],
        2,
        "kb: --note holds a line break, and a record keeps each value on one line:"
        " give it as one line",
    ),
    (
        "flag without value",
        ["--type", "book", "--title", "--year", "1999"],
        2,
        "kb source: Parameter --title requires an argument.",
    ),
    (
        "unknown flag",
        ["--type", "book", "--edition", "2"],
        2,
        "kb source: Unknown option: --edition.",
    ),
]


@pytest.mark.parametrize(("why", "flags", "code", "line"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusals_leave_the_tree_alone(
    fleet: Path, kb: RunKb, why: str, flags: list[str], code: int, line: str
) -> None:
    before = tree(fleet)
    out = kb(["source", "add", "gamma", *flags], cwd=fleet, env=SEED)
    # a command line the parser refuses gets the verb's own usage on stdout (issue 26)
    usage = usage_of("source") if line.startswith("kb source: ") else ""
    assert (out.code, out.stdout) == (code, usage), out.stderr
    assert out.stderr.count("\n") == 1
    # cyclopts may add a suggestion after its sentence; our own refusals are matched whole.
    assert out.stderr == line + "\n" if line.startswith("kb: ") else out.stderr.startswith(line)
    assert tree(fleet) == before
    assert not (fleet / "gamma" / "sources").exists()


def test_extra_positional_is_refused(fleet: Path, kb: RunKb) -> None:
    before = tree(fleet)
    out = kb(["source", "add", "gamma", "extra", *COMPLETE], cwd=fleet)
    assert out.code == 2 and out.stderr.count("\n") == 1 and "extra" in out.stderr
    assert tree(fleet) == before


def test_missing_base_is_an_io_refusal(fleet: Path, kb: RunKb) -> None:
    before = tree(fleet)
    out = kb(["source", "add", "delta", *COMPLETE], cwd=fleet)
    assert (out.code, out.stderr) == (1, "kb: delta: no such directory\n")
    assert tree(fleet) == before


def test_sources_that_is_a_file_is_an_io_refusal(fleet: Path, kb: RunKb) -> None:
    (fleet / "gamma" / "sources").write_text("not a folder\n", encoding="utf-8")
    before = tree(fleet)
    out = kb(["source", "add", "gamma", *COMPLETE], cwd=fleet)
    assert (out.code, out.stderr) == (1, "kb: gamma/sources: exists and is not a directory\n")
    assert tree(fleet) == before


def test_read_only_base_is_an_io_refusal(tmp_path: Path, kb: RunKb) -> None:
    """Root writes through a read-only folder: as root, the command runs as the unprivileged
    user CI creates (KB_TEST_USER, tests/unprivileged.py), so the test runs everywhere CI
    does; a root run without one skips, with that reason."""
    fleet = unprivileged.shared_copy(FIXTURE, tmp_path)
    base = fleet / "gamma"
    base.chmod(0o555)
    try:
        before = tree(fleet)
        out = unprivileged.kb(["source", "add", "gamma", *COMPLETE], cwd=fleet)
        assert out.code == 1
        assert out.stderr.startswith("kb: gamma/sources: ") and out.stderr.count("\n") == 1
        assert tree(fleet) == before
    finally:
        base.chmod(0o755)


def test_eight_taken_keys_is_a_mint_failure(fleet: Path, kb: RunKb) -> None:
    # The seeded source mints the same eight keys the CLI will try; occupy all of them.
    draw = random.Random(SEED["KB_TEST_ENTROPY_SEED"]).randbytes
    keys = [next_key(draw) for _ in range(8)]
    folder = fleet / "gamma" / "sources"
    folder.mkdir()
    for k in keys:
        (folder / f"{k}.txt").write_text("taken\n", encoding="utf-8")
    before = tree(fleet)
    out = kb(["source", "add", "gamma", *COMPLETE], cwd=fleet, env=SEED)
    assert (out.code, out.stderr) == (2, f"kb: {MINT_FAILED}\n")
    assert tree(fleet) == before


def test_a_taken_key_is_skipped_not_overwritten(fleet: Path, kb: RunKb) -> None:
    draw = random.Random(SEED["KB_TEST_ENTROPY_SEED"]).randbytes
    first, second = next_key(draw), next_key(draw)
    folder = fleet / "gamma" / "sources"
    folder.mkdir()
    (folder / f"{first}.txt").write_text("taken\n", encoding="utf-8")
    out = kb(["source", "add", "gamma", *COMPLETE], cwd=fleet, env=SEED)
    assert out.code == 0
    assert f"[src:{second}]" in out.stdout
    assert (folder / f"{first}.txt").read_text(encoding="utf-8") == "taken\n"


@pytest.mark.parametrize("argv", [["source"], ["source", "list"], ["source", "ad", "."]])
def test_source_needs_the_word_add(fleet: Path, kb: RunKb, argv: list[str]) -> None:
    before = tree(fleet)
    out = kb(argv, cwd=fleet)
    assert out.code == 2
    assert out.stderr == "kb: the only source verb is `add`\n\n"
    assert out.stdout.startswith("usage:\n")
    assert tree(fleet) == before


def test_a_disk_failure_after_mkdir_leaves_no_folder(fleet: Path) -> None:
    # In-process: an entropy source that fails like a device, after `sources/` was made.
    def broken(_n: int) -> bytes:
        raise OSError(5, "Input/output error")

    draft = Draft(type="book", title="T", retrieved_on="2024-01-01", retrieval_status="full")
    before = tree(fleet)
    result = add_source(str(fleet / "gamma"), draft, broken)
    assert result == Refused(f"{fleet}/gamma/sources: Input/output error", 1)
    assert tree(fleet) == before


def test_a_source_that_never_yields_a_key_is_a_mint_failure(fleet: Path) -> None:
    draft = Draft(type="book", title="T", retrieved_on="2024-01-01", retrieval_status="full")
    before = tree(fleet)
    result = add_source(str(fleet / "gamma"), draft, lambda n: b"\xff" * n)
    assert result == Refused(MINT_FAILED, 2)
    assert tree(fleet) == before


# -- issue 16: a fleet root is not a base; a retrieval date is a calendar day ------------------


def test_source_add_at_a_fleet_root_is_refused_and_creates_nothing(fleet: Path, kb: RunKb) -> None:
    before = tree(fleet)
    out = kb(["source", "add", *COMPLETE], cwd=fleet)  # `.` here is the fleet root
    assert (out.code, out.stdout) == (2, "")
    assert out.stderr == (
        "kb: . is a fleet root, not a base, and a source record belongs to one base: name it, "
        "as in `kb source add alpha ...` (`kb fleet` lists the bases)\n"
    )
    assert tree(fleet) == before and not (fleet / "sources").exists()


@pytest.mark.parametrize("day", ["yesterday", "2024-02-30", "24-01-01", "2024/01/01", "2024-1-1"])
def test_retrieved_on_must_be_a_calendar_day(fleet: Path, kb: RunKb, day: str) -> None:
    before = tree(fleet)
    args = ["source", "add", "gamma", "--type", "book", "--title", "T", "--retrieved-on", day]
    out = kb([*args, "--retrieval-status", "full"], cwd=fleet)
    assert (out.code, out.stdout) == (2, "")
    assert out.stderr == (
        f"kb: --retrieved-on takes the day you read it as YYYY-MM-DD (2026-09-06), not `{day}`\n"
    )
    assert tree(fleet) == before
