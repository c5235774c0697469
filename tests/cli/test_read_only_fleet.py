"""A read-only fleet is served from a fall-back with one line saying so, and a reading verb
never writes an index into a folder that is not a base (issue 14, items 5 and 11)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.shell.cli.main import run

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def read_only_fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The example fleet, indexed, then bind-mounted read-only (skips where mounting is not
    allowed: this needs root, as CI has)."""
    monkeypatch.setenv("KB_MISSES_PATH", str(tmp_path / "misses.txt"))
    source = tmp_path / "source"
    shutil.copytree(REPO / "examples" / "fleet", source, ignore=shutil.ignore_patterns(".kb"))
    assert run(["index", str(source)]).code == 0
    mount = tmp_path / "ro"
    mount.mkdir()
    done = subprocess.run(["mount", "--bind", str(source), str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {done.stderr.decode(errors='replace').strip()}")
    try:
        ro = subprocess.run(["mount", "-o", "remount,bind,ro", str(mount)], capture_output=True)
        if ro.returncode != 0:
            pytest.skip("cannot remount read-only here")
        yield mount
    finally:
        # Lazy: an index connection still open in this process must not keep it mounted.
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_read_only_fleet_is_served_and_says_so_once(read_only_fleet: Path) -> None:
    out = run(["route", "how often should I run a backup restore test", str(read_only_fleet)])
    assert out.code == 0
    assert "  ada      knowledge/backups.md" in out.stdout
    assert out.stderr.count("\n") == 1 and "read-only" in out.stderr
    payload = json.loads(run(["route", "restore", str(read_only_fleet), "--json"]).stdout)
    assert payload["verdict"] == "hit" and payload["results"][0]["passages"]  # text index too
    assert run(["list", str(read_only_fleet)]).code == 0
    assert run(["fleet", str(read_only_fleet)]).code == 0


def test_a_folder_that_is_not_a_base_gets_no_index(tmp_path: Path) -> None:
    folder = tmp_path / "etc"
    folder.mkdir()
    (folder / "notes.md").write_text("# Some notes\n\nabout printers\n", encoding="utf-8")
    out = run(["route", "printers", str(folder)])
    assert out.code == 0
    assert not (folder / ".kb").exists()
    assert "is not a base" in out.stderr
