"""`kb ingest` end to end through the real process: refusals before anything moves (no file,
no models, an extension nothing reads, text that is blank or not UTF-8, no owner, an unknown
agent), the extractors (a base's own `tools/extract/<ext>.cmd`, the built-in HTML reader,
`pdftotext` found on PATH or named as the thing to install), staging, distillation through
the same promotion run as `kb promote`, and the removal rule: only what it moved, only when
a note on disk names the deposit. Outputs, deposits and notes are golden files."""

from __future__ import annotations

import os
import shlex
import stat
import sys
from pathlib import Path

import pytest

from tests.conftest import RunKb, check_golden

MODELS = Path(__file__).resolve().parent.parent / "models"
DOC = (
    "Restore drills\n\nThe nightly backup restore test takes 40 minutes.\n"
    "Retention of snapshots is two weeks.\n"
)


def script(name: str, *args: str) -> str:
    return " ".join(shlex.quote(a) for a in (str(MODELS / name), *args))


def manifest(fleet: Path, promoter: list[str] | None, reviewer: list[str] | None) -> None:
    lines = ["name = Harbor"]
    if promoter is not None:
        lines.append(f"promoter = {script('promoter.py', *promoter)}")
    if reviewer is not None:
        lines.append(f"reviewer = {script('reviewer.py', *reviewer)}")
    (fleet / "fleet.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def fleet(example_fleet: Path, kb: RunKb) -> Path:
    assert kb(["index"], cwd=example_fleet).code == 0
    manifest(example_fleet, ["good"], ["accept"])
    return example_fleet


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    return folder


def ada_inbox(fleet: Path) -> list[str]:
    inbox = fleet / "fleet/ada/inbox"
    return sorted(p.relative_to(inbox).as_posix() for p in inbox.rglob("*") if p.is_file())


# -- refusals before anything moves -----------------------------------------------------------


def test_no_file_is_one_line_and_exit_2(fleet: Path, kb: RunKb) -> None:
    for args in (["ingest"], ["ingest", "--keep"], ["ingest", ""]):
        r = kb(args, cwd=fleet)
        assert (r.code, r.stdout) == (2, ""), args
        assert r.stderr == (
            "kb ingest: name the document to ingest. "
            "`kb ingest <file> [path] [--agent NAME] [--keep]`\n"
        )


def test_refusals_move_nothing(fleet: Path, docs: Path, kb: RunKb) -> None:
    r = kb(["ingest", "../docs/none.txt"], cwd=fleet)
    assert (r.code, r.stderr) == (1, "kb ingest: there is no file at ../docs/none.txt\n")
    (docs / "blank.txt").write_text("  \n\n", encoding="utf-8")
    r = kb(["ingest", "../docs/blank.txt"], cwd=fleet)
    assert r.code == 1
    assert r.stderr.startswith("kb ingest: ../docs/blank.txt produced no text. It has not been")
    (docs / "latin.txt").write_bytes("café com pão".encode("latin-1"))
    r = kb(["ingest", "../docs/latin.txt"], cwd=fleet)
    assert r.code == 1 and "is not UTF-8 text" in r.stderr
    (docs / "table.xlsx").write_bytes(b"PK\x03\x04")
    r = kb(["ingest", "../docs/table.xlsx"], cwd=fleet)
    assert r.code == 1
    assert r.stderr == (
        "kb ingest: nothing here knows how to read a .xlsx. Write ./tools/extract/xlsx.cmd so "
        "that it prints the document's text on stdout, given the path as its one argument. "
        "`pdftotext -layout -enc UTF-8 %1 -` is the whole of the pdf one.\n"
    )
    (docs / "moons.txt").write_text("quantas luas tem jupiter\n", encoding="utf-8")
    r = kb(["ingest", "../docs/moons.txt"], cwd=fleet)
    assert r.code == 1
    assert r.stderr.startswith("kb ingest: no agent in this fleet owns what ../docs/moons.txt ")
    (docs / "drill.txt").write_text(DOC, encoding="utf-8")
    r = kb(["ingest", "../docs/drill.txt", "--agent", "zoe"], cwd=fleet)
    assert (r.code, r.stderr) == (
        1,
        "kb ingest: no agent called 'zoe'. `kb fleet` lists the ones that exist.\n",
    )
    manifest(fleet, ["good"], None)
    r = kb(["ingest", "../docs/drill.txt"], cwd=fleet)
    assert r.code == 2
    assert r.stderr.startswith(
        "kb ingest: the fleet manifest needs both `promoter = ...` and `reviewer = ...`. "
    )
    assert sorted(p.name for p in docs.iterdir()) == [
        "blank.txt", "drill.txt", "latin.txt", "moons.txt", "table.xlsx",
    ]  # fmt: skip
    assert ada_inbox(fleet) == ["2026-11-20-session.md"]


def test_dry_run_moves_nothing(fleet: Path, docs: Path, kb: RunKb) -> None:
    (docs / "drill.txt").write_text(DOC, encoding="utf-8")
    r = kb(["ingest", "../docs/drill.txt", "--dry-run"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("ingest/dry-run.txt", r.stdout)
    assert (docs / "drill.txt").exists()
    assert ada_inbox(fleet) == ["2026-11-20-session.md"]


# -- the whole path ---------------------------------------------------------------------------


def test_a_document_becomes_a_note_and_then_goes(fleet: Path, docs: Path, kb: RunKb) -> None:
    (docs / "Backup Drill Notes.txt").write_text(DOC, encoding="utf-8")
    r = kb(["ingest", "../docs/Backup Drill Notes.txt"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("ingest/absorbed.txt", r.stdout)
    assert not (docs / "Backup Drill Notes.txt").exists()
    assert ada_inbox(fleet) == ["2026-11-20-session.md"]
    (note,) = (fleet / "fleet/ada/knowledge").glob("note-*backup-drill-notes.md")
    check_golden("ingest/absorbed-note.md", note.read_text(encoding="utf-8"))


def test_keep_leaves_the_document_staged(fleet: Path, docs: Path, kb: RunKb) -> None:
    (docs / "drill.txt").write_text(DOC, encoding="utf-8")
    r = kb(["ingest", "../docs/drill.txt", "--agent", "ADA", "--keep"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    check_golden("ingest/keep.txt", r.stdout)
    inbox = ada_inbox(fleet)
    assert len(inbox) == 3
    deposit = next(p for p in inbox if p.endswith("-drill.txt") and "/" not in p)
    raw = next(p for p in inbox if p.startswith("raw/"))
    check_golden("ingest/keep-deposit.txt", (fleet / "fleet/ada/inbox" / deposit).read_text())
    assert (fleet / "fleet/ada/inbox" / raw).read_text(encoding="utf-8") == DOC
    # a second copy of the same name gets the next free names, never an overwrite
    (docs / "drill.txt").write_text(DOC + "More.\n", encoding="utf-8")
    manifest(fleet, ["nothing"], ["accept"])
    r = kb(["ingest", "../docs/drill.txt", "--agent", "ada"], cwd=fleet)
    assert r.code == 1
    assert "-drill-2.txt" in r.stdout and "raw/" in r.stdout
    assert len(ada_inbox(fleet)) == 5


def test_a_refused_document_is_kept_exit_1(fleet: Path, docs: Path, kb: RunKb) -> None:
    manifest(fleet, ["good,outside"], ["refuse:duplication"])
    (docs / "drill.txt").write_text(DOC, encoding="utf-8")
    r = kb(["ingest", "../docs/drill.txt"], cwd=fleet)
    assert (r.code, r.stderr) == (1, "")
    check_golden("ingest/refused.txt", r.stdout)
    assert len(ada_inbox(fleet)) == 3
    assert (fleet / "kb-rejections.txt").exists()


def test_an_unreachable_reviewer_keeps_the_document(fleet: Path, docs: Path, kb: RunKb) -> None:
    manifest(fleet, ["good"], ["hang"])
    (docs / "drill.txt").write_text(DOC, encoding="utf-8")
    r = kb(["ingest", "../docs/drill.txt"], cwd=fleet, env={"KB_MODEL_TIMEOUT": "1"})
    assert r.code == 1
    check_golden("ingest/unreachable.txt", r.stdout)
    assert len(ada_inbox(fleet)) == 3


def test_dropped_keys_are_printed(fleet: Path, docs: Path, kb: RunKb, tmp_path: Path) -> None:
    promoter = tmp_path / "dead-key-promoter.py"
    promoter.write_text(
        "#!/usr/bin/env python3\nimport sys\nsys.stdin.read()\n"
        "print('PROPOSAL\\nslug: restore-drill-time\\nfolder: knowledge\\n"
        "summary: How long the restore drill takes\\nkeys: restore drill, o que e\\n"
        "body:\\nThe nightly restore test takes 40 minutes.\\nEND')\n",
        encoding="utf-8",
    )
    promoter.chmod(0o755)
    (fleet / "fleet.txt").write_text(
        f"promoter = {promoter}\nreviewer = {script('reviewer.py', 'accept')}\n", "utf-8"
    )
    (docs / "drill.txt").write_text(DOC, encoding="utf-8")
    r = kb(["ingest", "../docs/drill.txt"], cwd=fleet)
    assert r.code == 0, r.stdout
    assert "  restore-drill-time: dropped unreachable key o que e\n" in r.stdout


# -- extractors -------------------------------------------------------------------------------


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def test_a_base_extractor_is_used_and_its_failure_moves_nothing(
    fleet: Path, docs: Path, kb: RunKb
) -> None:
    _executable(
        fleet / "tools/extract/log.cmd",
        "#!/bin/sh\nprintf 'Restore drill log\\n\\n- backup restore test took 40 minutes\\n'\n",
    )
    (docs / "run.log").write_bytes(b"\x00\x01binary")
    r = kb(["ingest", "../docs/run.log", "--keep"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    deposit = next(p for p in ada_inbox(fleet) if p.endswith("-run.txt"))
    text = (fleet / "fleet/ada/inbox" / deposit).read_text(encoding="utf-8")
    assert text.endswith("\n\nRestore drill log\n\n- backup restore test took 40 minutes\n")
    _executable(fleet / "tools/extract/dat.cmd", "#!/bin/sh\necho 'cannot parse it' >&2\nexit 4\n")
    (docs / "x.dat").write_bytes(b"data")
    r = kb(["ingest", "../docs/x.dat"], cwd=fleet)
    assert r.code == 1
    assert r.stderr == (
        "kb ingest: ./tools/extract/dat.cmd exited with exit status 4: cannot parse it\n"
    )
    assert (docs / "x.dat").exists()


def test_html_is_read_as_text(fleet: Path, docs: Path, kb: RunKb) -> None:
    (docs / "page.html").write_text(
        "<html><head><title>Restore drills</title><style>p{color:red}</style></head><body>"
        "<h1>Backup restore test</h1><p>The nightly backup restore test takes "
        "<b>40&nbsp;minutes</b>.</p><script>var x = 1;</script><ul><li>retention: two "
        "weeks</li></ul></body></html>",
        encoding="utf-8",
    )
    r = kb(["ingest", "../docs/page.html", "--keep"], cwd=fleet)
    assert (r.code, r.stderr) == (0, "")
    deposit = next(p for p in ada_inbox(fleet) if p.endswith("-page.txt"))
    check_golden("ingest/html-deposit.txt", (fleet / "fleet/ada/inbox" / deposit).read_text())


def test_pdf_needs_pdftotext(fleet: Path, docs: Path, kb: RunKb, tmp_path: Path) -> None:
    (docs / "drill.pdf").write_bytes(b"%PDF-1.4 not really")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    path = f"{empty}{os.pathsep}{Path(sys.executable).parent}"
    r = kb(["ingest", "../docs/drill.pdf"], cwd=fleet, env={"PATH": path})
    assert r.code == 1
    assert r.stderr == (
        "kb ingest: nothing here knows how to read a .pdf. Install pdftotext (Debian and "
        "Ubuntu: `apt-get install poppler-utils`), or write ./tools/extract/pdf.cmd so that "
        "it prints the document's text on stdout, given the path as its one argument.\n"
    )
    fake = tmp_path / "fake-bin"
    _executable(
        fake / "pdftotext",
        '#!/bin/sh\n[ "$1 $2 $3 $5" = "-layout -enc UTF-8 -" ] || exit 9\n'
        "printf 'Restore drills\\n\\nThe nightly backup restore test takes 40 minutes.\\n'\n",
    )
    path = f"{fake}{os.pathsep}{os.environ.get('PATH', '')}"
    r = kb(["ingest", "../docs/drill.pdf", "--keep"], cwd=fleet, env={"PATH": path})
    assert (r.code, r.stderr) == (0, ""), r.stdout
    deposit = next(p for p in ada_inbox(fleet) if p.endswith("-drill.txt"))
    assert (
        (fleet / "fleet/ada/inbox" / deposit)
        .read_text(encoding="utf-8")
        .endswith("\n\nRestore drills\n\nThe nightly backup restore test takes 40 minutes.\n")
    )
