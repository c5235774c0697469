"""`kb list` prints its rows a slice at a time (`Outcome.rest`): the process never holds
the whole listing. What it prints is what a caller that needs one string gets
(`kb.shell.cli.main.run`, as the daemon and the in-process tests use it), for every shape
of listing, and a title that would act on a terminal is escaped in a printed slice as in
the whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.shell.answering import readverbs
from kb.shell.cli.main import run
from tests.conftest import RunKb

SHAPES = [
    [],
    ["--json"],
    ["--all"],
    ["--all", "--json"],
    ["--sort", "title"],
    ["--where", "stage=captured", "--json"],
    ["--where", "stage=none-such"],
    ["--where", "stage=none-such", "--json"],
    ["--kind", "skills"],
]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: " ".join(s) or "plain")
def test_a_printed_listing_is_the_whole_one(
    example_fleet: Path, kb: RunKb, shape: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # two rows a slice, so every listing of the example fleet is printed in several
    monkeypatch.setattr(readverbs, "ROWS_AT_ONCE", 2)
    whole = run(["list", str(example_fleet), *shape])
    streamed = run(["list", str(example_fleet), *shape], streamed=True)
    assert whole.rest == ()
    assert streamed.stdout == ""
    pieces = list(streamed.rest)
    assert "".join(pieces) == whole.stdout
    assert (whole.stderr, whole.code) == (streamed.stderr, streamed.code)
    if "--json" in shape:
        json.loads(whole.stdout)
    printed = kb(["list", str(example_fleet), *shape])
    assert (printed.stdout, printed.code) == (whole.stdout, whole.code)


def test_rows_come_in_slices(example_fleet: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readverbs, "ROWS_AT_ONCE", 2)
    pieces = list(run(["list", str(example_fleet)], streamed=True).rest)
    rows = [line for piece in pieces[:-2] for line in piece.splitlines()]
    assert len(pieces[:-2]) == (len(rows) + 1) // 2  # two rows a slice, then the counts
    assert all(piece.endswith("\n") for piece in pieces)


def test_a_title_that_acts_on_a_terminal_is_escaped_in_a_printed_slice(
    example_fleet: Path, kb: RunKb
) -> None:
    note = example_fleet / "fleet" / "ada" / "knowledge" / "escape.md"
    note.write_text("# Copy \x1b]52;c;aGk=\x07 this\n\nA note with a hostile title.\n")
    whole = run(["list", str(example_fleet)])
    printed = kb(["list", str(example_fleet)])
    assert "\x1b" not in printed.stdout
    assert "\\x1b]52" in printed.stdout
    assert printed.stdout == whole.stdout
