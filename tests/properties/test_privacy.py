"""The private layer (ADR-0034, §2.2): without --all, nothing private reaches any output."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kb.shell.main import run
from tests.properties.strategies import (
    NOTE_STEMS,
    FileFact,
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


def strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)


def rows_in(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if "base" in value and "path" in value:
            yield value
        for v in value.values():
            yield from rows_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from rows_in(v)


def without_question(payload: Any, question: str) -> Any:
    """A route payload minus the places that echo the question as typed."""
    assert payload["question"] == question
    del payload["question"]
    miss = payload.get("miss")
    if miss:
        assert miss["question"] == question
        del miss["question"]
    return payload


def assert_no_leak(text: str, marker: str, private: list[FileFact], what: str) -> None:
    assert marker not in text, f"{what} leaks the private marker:\n{text}"
    for f in private:
        assert f"{f.base}/{f.rel}" not in text, f"{what} leaks {f.base}/{f.rel}:\n{text}"


def assert_no_leak_json(value: Any, marker: str, private: list[FileFact], what: str) -> None:
    for s in strings_in(value):
        assert_no_leak(s, marker, private, what)
    hidden = {(f.base, f.rel) for f in private}
    for row in rows_in(value):
        assert (row["base"], row["path"]) not in hidden, f"{what} lists {row}"


def forced(note: NoteSpec, stem: str) -> NoteSpec:
    return replace(note, stem=stem, ext=".md", key_line="valid", invalid_utf8=False)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    fleet=fleets(),
    marker=markers,
    extra=notes(),
    stem=st.sampled_from(NOTE_STEMS),
)
def test_private_content_never_reaches_public_output(
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
        facts = expected_files(root, fleet, include_private=True)
        private = [f for f in facts if f.private]
        assert private, "the generator placed a private note"

        # An earlier --all run put private chunks in the text index: they must stay hidden.
        assert run(["index", where, "--all"]).code == 0

        for question in (marker, f"{marker} floor", f"router {marker}"):
            out = run(["route", question, where, "--json"])
            assert out.code == 0, out.stderr
            assert_no_leak(out.stderr, marker, private, "route --json stderr")
            payload = without_question(json.loads(out.stdout), question)
            assert_no_leak_json(payload, marker, private, f"route {question!r} --json")
            for flags in ([], ["--hybrid"], ["--top", "50"]):
                out = run(["route", question, where, *flags])
                assert out.code == 0, out.stderr
                lines = out.stdout.splitlines()
                assert lines[0] == f"question: {question}"
                body = "\n".join(lines[1:]) + out.stderr
                assert_no_leak(body, marker, private, f"route {question!r} {flags}")

        out = run(["list", where])
        assert out.code == 0, out.stderr
        assert_no_leak(out.stdout + out.stderr, marker, private, "list")
        out = run(["list", where, "--json"])
        assert out.code == 0, out.stderr
        assert_no_leak_json(json.loads(out.stdout), marker, private, "list --json")
        out = run(["index", where, "--json"])
        assert out.code == 0, out.stderr
        assert_no_leak_json(json.loads(out.stdout), marker, private, "index --json")
        out = run(["index", where])
        assert out.code == 0, out.stderr
        assert_no_leak(out.stdout + out.stderr, marker, private, "index")

        # With --all the private layer is served: the marker is found.
        out = run(["route", marker, where, "--json", "--all"])
        assert out.code == 0, out.stderr
        payload = without_question(json.loads(out.stdout), marker)
        assert payload["verdict"] != "nothing"
        assert payload["results"], payload
        top = payload["results"][0]
        assert (top["base"], top["path"]) in {(f.base, f.rel) for f in private}
        assert marker in top["path"]
        assert marker in top["matched"]
