"""Privacy regressions found by the property suite, pinned as plain examples."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kb.shell.cli.main import run


def _base(tmp_path: Path) -> Path:
    base = tmp_path / "base"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = B\n")
    (base / "knowledge" / "x.md").write_text(
        "# Secret\n\n**Search for:** zebra, other\n\nthe zebrafish secret text zebra\n"
    )
    (base / "knowledge" / "y.md").write_text("# Y\n\n**Search for:** yak, other\n\nyak text\n")
    return base


def test_folder_declared_private_after_indexing_is_never_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KB_MISSES_PATH", str(tmp_path / "misses.txt"))
    base = _base(tmp_path)
    assert run(["index", str(base)]).code == 0
    with (base / "agent.txt").open("a") as fh:
        fh.write("private = knowledge\n")
    for args in (["--hybrid"], ["--json"], []):
        out = run(["route", "zebra", str(base), *args])
        assert "zebrafish" not in out.stdout and "knowledge/x.md" not in out.stdout
    # an --all re-index of unchanged files still records their new privacy
    assert run(["index", str(base), "--all"]).code == 0
    flags = (
        sqlite3.connect(base / ".kb" / "index.db")
        .execute("SELECT path, private FROM files ORDER BY path")
        .fetchall()
    )
    assert flags == [("knowledge/x.md", 1), ("knowledge/y.md", 1)]
    assert "knowledge/x.md" in run(["route", "zebra", str(base), "--all", "--hybrid"]).stdout


def test_adding_a_map_demotes_index_md_without_touching_it(tmp_path: Path) -> None:
    base = tmp_path / "alpha"
    base.mkdir()
    (base / "agent.txt").write_text("name = Alpha\n")
    (base / "MAP.md").write_text("# Map\n")
    (base / "INDEX.md").write_text("# Index\n\n**Search for:** floor, router\n")
    (base / "other.md").write_text("# Other\n\n**Search for:** other\n")
    assert "2 entries" in run(["route", "router", str(base)]).stdout
    (base / "MAP.md").unlink()  # INDEX.md becomes the map: no longer an entry
    out = run(["route", "router", str(base)]).stdout
    assert "1 entry" in out


def test_a_note_with_no_chunk_is_never_served_the_next_files_text(tmp_path: Path) -> None:
    """A note indexed with no chunk (a title and keys only) has the span (n, n - 1), whose
    first rowid is the next file's chunk: found by its keys alone, it was handed a private
    record's text as its opening passage (a Hypothesis draw found it)."""
    import json

    base = tmp_path / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "records").mkdir()
    (base / "agent.txt").write_text("name = Ada\n", encoding="utf-8")
    (base / "MAP.md").write_text("# Ada\n", encoding="utf-8")
    (base / "knowledge" / "zzz-lantern.md").write_text(
        "# Lantern\n\n**Search for:** `lantern`\n", encoding="utf-8"
    )
    (base / "records" / "vault.md").write_text(
        "# Vault\n\nthe vault code is quillfeather 4242\n", encoding="utf-8"
    )
    assert run(["index", str(base), "--all"]).code == 0
    out = run(["route", "lantern", str(base), "--json"])
    payload = json.loads(out.stdout)
    assert [r["path"] for r in payload["results"]] == ["knowledge/zzz-lantern.md"]
    assert "quillfeather" not in out.stdout and "4242" not in out.stdout
