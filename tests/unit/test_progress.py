"""The progress line's drawing rules, on a fake clock."""

from __future__ import annotations

import io

from kb.io.notes.progress import ERASE, MIN_TOTAL, REDRAW_S, Progress


def test_redraws_at_most_every_interval_but_always_for_a_new_stage_and_the_end() -> None:
    now = [0.0]
    out = io.StringIO()
    progress = Progress(out, clock=lambda: now[0])
    total = MIN_TOTAL
    progress.step("ada: reading headers", 0, total)
    now[0] += REDRAW_S / 2
    progress.step("ada: reading headers", 1, total)  # too soon: not drawn
    progress.step("ada: indexing", 0, total)  # a new stage: drawn at once
    progress.step("ada: indexing", total, total)  # the end: drawn at once
    now[0] += REDRAW_S
    progress.step("ada: indexing", 5, total)
    drawn = out.getvalue().split(ERASE)[1:]
    assert drawn == [
        f"  ada: reading headers  0 / {total}",
        f"  ada: indexing  0 / {total}",
        f"  ada: indexing  {total} / {total}",
        f"  ada: indexing  5 / {total}",
    ]
    progress.clear()
    assert out.getvalue().endswith(ERASE)


def test_small_work_and_labels_with_control_characters() -> None:
    out = io.StringIO()
    progress = Progress(out, clock=lambda: 0.0)
    progress.step("ada", 1, MIN_TOTAL - 1)
    progress.clear()
    assert out.getvalue() == ""  # nothing drawn, nothing erased
    progress.step("a\x1b]52;c;x\x07b", 0, MIN_TOTAL)
    assert "\x1b]" not in out.getvalue() and "\x07" not in out.getvalue()
