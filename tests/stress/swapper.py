"""A swapper racing kb (issue 24, F5-F7): a public note is replaced, again and again, by a way
into the private layer, and put back.

Run as `python -m tests.stress.swapper BASE SECONDS OUT` from the repository root. BASE holds
the public note `notes/swap.md` and the private record `records/swap.md` (see
`make_swap_base`). Each round picks the next of these and holds it for a moment:

- `symlink`: `notes/swap.md` becomes a link to `../records/swap.md`;
- `hardlink`: `notes/swap.md` becomes a second name of `records/swap.md`;
- `folder`: `notes/` becomes a link to `records/`;
- `lookalike`: `records/` is renamed `Records/` (a look-alike kb must still keep private);

then the public note is put back as the same file it was (its inode), with a new mtime, so
every walk finds it changed and reads it again: each read is a chance for a swap to win.
Every change is a rename, so at each moment the name leads either to the public note or to
the private record: the race kb has to win is a read that follows the name the moment it is
swapped. Writes {"rounds": N} to OUT.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

MARKER = "qxprivatemarker"
PUBLIC_NOTE = """\
# Harbourlight public note

**Search for:** harbourlight, harbourlight schedule

**Exists to:** Say when the harbourlight is lit

The harbourlight is lit at dusk and put out at dawn, every day of the year.
"""
# Every line of the record carries the marker, so any private line served shows it.
PRIVATE_RECORD = f"""\
# Harbourlight {MARKER} contract record

**Search for:** harbourlight, harbourlight schedule, {MARKER}

**Exists to:** Keep the {MARKER} terms of the harbourlight contract private

The {MARKER} retainer for the harbourlight is paid in advance every quarter.
The {MARKER} penalty for a dark night is a tenth of the month.
"""
KINDS = ("symlink", "hardlink", "folder", "lookalike")
HOLD_S = 0.003


def make_swap_base(base: Path) -> None:
    """Add the public note and the private record the swapper works on to `base`."""
    (base / "notes").mkdir(exist_ok=True)
    (base / "records").mkdir(exist_ok=True)
    (base / "notes" / "swap.md").write_text(PUBLIC_NOTE, encoding="utf-8")
    (base / "records" / "swap.md").write_text(PRIVATE_RECORD, encoding="utf-8")
    # the public note's own inode, kept under a name no walk reads, to put it back by
    os.link(base / "notes" / "swap.md", base / "notes" / ".swap-orig")


def _restore_note(notes: Path) -> None:
    # A new mtime each time, so every walk finds the note changed and reads it again: the
    # read is where a swap can win.
    now = time.time_ns()
    os.utime(notes / ".swap-orig", ns=(now, now))
    os.link(notes / ".swap-orig", notes / ".swap-back")
    os.replace(notes / ".swap-back", notes / "swap.md")


def swap_once(base: Path, kind: str) -> None:
    notes, records = base / "notes", base / "records"
    if kind == "symlink":
        os.symlink("../records/swap.md", notes / ".swap-link")
        os.replace(notes / ".swap-link", notes / "swap.md")
        time.sleep(HOLD_S)
        _restore_note(notes)
    elif kind == "hardlink":
        os.link(records / "swap.md", notes / ".swap-hard")
        os.replace(notes / ".swap-hard", notes / "swap.md")
        time.sleep(HOLD_S)
        _restore_note(notes)
    elif kind == "folder":
        away = base / ".notes-away"
        os.rename(notes, away)
        os.symlink("records", notes)
        time.sleep(HOLD_S)
        os.unlink(notes)
        os.rename(away, notes)
    elif kind == "lookalike":
        os.rename(records, base / "Records")
        time.sleep(HOLD_S)
        os.rename(base / "Records", records)
    else:
        raise ValueError(kind)


def run(base: Path, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    rounds = 0
    while time.monotonic() < deadline:
        swap_once(base, KINDS[rounds % len(KINDS)])
        rounds += 1
        time.sleep(HOLD_S)
    return rounds


def main(argv: list[str]) -> None:
    base, seconds, out = argv
    rounds = run(Path(base), float(seconds))
    Path(out).write_text(json.dumps({"rounds": rounds}), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
