"""The reading room never serves the private layer without --all: over generated fleets,
every payload of every route (fleet, stacks, check, blocks, route, file) is free of the
private notes' marker and paths, and every private path asked of /api/file is refused. With
--all the same files are served."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kb.shell.main import run
from kb.shell.ui.room import Room
from tests.properties.strategies import (
    NOTE_STEMS,
    FleetSpec,
    NoteSpec,
    add_private_note,
    expected_files,
    fleets,
    markers,
    notes,
    with_marker,
    write_fleet,
)
from tests.properties.test_privacy import assert_no_leak, forced


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(fleet=fleets(), marker=markers, extra=notes(), stem=st.sampled_from(NOTE_STEMS))
def test_the_reading_room_keeps_the_private_layer_out(
    fleet: FleetSpec, marker: str, extra: NoteSpec, stem: str
) -> None:
    placed = add_private_note(fleet, forced(extra, stem))
    assume(placed is not None)
    assert placed is not None
    fleet = with_marker(placed, marker)
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        root = Path(tmp) / "fleet-root"
        write_fleet(root, fleet)
        mp.setenv("KB_MISSES_PATH", str(Path(tmp) / "misses.txt"))
        where = str(root)
        every = expected_files(root, fleet, include_private=True)
        private = [f for f in every if f.private]
        assert run(["index", where, "--all"]).code == 0

        room = Room.open([where], include_private=False)
        try:
            for payload in (room.fleet, room.stacks, room.check, room.blocks):
                assert_no_leak(json.dumps(payload, ensure_ascii=False), marker, private, "ui")
            for question in (marker, f"{marker} floor"):
                answer = room.route(question)
                answer.pop("question")
                answer.pop("terms")
                assert_no_leak(json.dumps(answer, ensure_ascii=False), marker, private, "route")
            for f in private:
                assert room.file(f.base, f.rel) is None, f
            for f in every:
                if not f.private:
                    got = room.file(f.base, f.rel)
                    assert got is not None, f
                    assert_no_leak(json.dumps(got, ensure_ascii=False), marker, private, "file")
        finally:
            room.close()

        room = Room.open([where], include_private=True)
        try:
            for f in private:
                got = room.file(f.base, f.rel)
                assert got is not None and marker in got["text"], f
        finally:
            room.close()
