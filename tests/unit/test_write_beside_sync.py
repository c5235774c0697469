"""`kb write` beside a `kb sync` in the same clone: the sync holds each base's map lock while
git rewrites the working tree, and git removes a file before it writes its new version. A
write that looked for the map before taking the lock refused with "has no MAP.md" in that
moment (tests/sync/test_three_clones.py met it in a clean-clone CI run)."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

import kb
from kb.io.files.lockfile import lock_path, release_lock, take_lock

REPO = Path(__file__).resolve().parents[2]


def test_a_write_waits_for_the_map_a_sync_has_away(tmp_path: Path) -> None:
    fleet = tmp_path / "harbor"
    shutil.copytree(REPO / "examples" / "fleet", fleet)
    map_path = fleet / "fleet" / "ada" / "MAP.md"
    before = map_path.read_bytes()
    held = take_lock(lock_path(map_path), 1.0)  # the sync's hold on the map
    map_path.unlink()  # git, between removing the map and writing its new version
    written: list[Path] = []
    refused: list[BaseException] = []

    def write() -> None:
        try:
            written.append(kb.write_note(fleet, "ada", "neap", "Small ones.\n", keys=["neap"]))
        except kb.WriteRefused as e:
            refused.append(e)

    writer = threading.Thread(target=write)
    writer.start()
    time.sleep(0.3)
    map_path.write_bytes(before)
    release_lock(lock_path(map_path), held)
    writer.join(timeout=30)
    assert refused == [] and len(written) == 1
    assert "[[neap]]" in map_path.read_text(encoding="utf-8")


def test_a_base_with_no_map_is_still_refused_and_keeps_no_lock(tmp_path: Path) -> None:
    fleet = tmp_path / "harbor"
    shutil.copytree(REPO / "examples" / "fleet", fleet)
    map_path = fleet / "fleet" / "ada" / "MAP.md"
    map_path.unlink()
    with pytest.raises(kb.WriteRefused) as refused:
        kb.write_note(fleet, "ada", "neap", "Small ones.\n", keys=["neap"])
    assert "has no MAP.md" in refused.value.message
    assert not lock_path(map_path).exists()
    assert not (fleet / "fleet" / "ada" / "knowledge" / "neap.md").exists()
