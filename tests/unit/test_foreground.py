"""A request's re-open goes before a background read (kb.io.answering.foreground): at 100,000
notes a walk racing a warming thread for the interpreter took 7-17 s instead of 0.7 s."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from kb.io.answering import foreground, live
from kb.io.answering.memory import Memory


def test_a_checkpoint_waits_while_a_request_runs_and_not_longer() -> None:
    waited: list[float] = []

    def background() -> None:
        started = time.monotonic()
        foreground.wait_idle()
        waited.append(time.monotonic() - started)

    with foreground.serving():
        reader = threading.Thread(target=background)
        reader.start()
        time.sleep(0.3)
        assert reader.is_alive()  # held at its checkpoint
    reader.join(5)
    assert not reader.is_alive() and 0.25 <= waited[0] < 2.0
    started = time.monotonic()
    foreground.wait_idle()  # nothing running: straight through
    assert time.monotonic() - started < 0.1
    with foreground.serving():
        started = time.monotonic()
        foreground.wait_idle(limit_s=0.2)  # bounded: requests slow a read, never stop it
        assert 0.2 <= time.monotonic() - started < 1.0


def test_a_reopen_walks_and_opens_as_a_request(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[int] = []
    real = live.walk_again

    def walking(memory: Memory, changed: object) -> object:
        seen.append(foreground._running["request"])
        return real(memory, changed)  # type: ignore[arg-type]

    monkeypatch.setattr(live, "walk_again", walking)
    lm = live.LiveMemory(Memory.open([str(example_fleet / "fleet")]))
    try:
        lm.refresh()
        assert seen == [1] and foreground._running["request"] == 0
    finally:
        lm.close()


def test_a_request_beside_a_background_read_runs_at_a_short_switch_interval() -> None:
    import sys

    before = sys.getswitchinterval()
    with foreground.serving():
        assert sys.getswitchinterval() == before  # a lone request: nothing to switch to
        with foreground.background():
            assert sys.getswitchinterval() == pytest.approx(foreground.SERVING_SWITCH_S)
            with foreground.serving():  # nested (a re-open inside a daemon's request)
                assert sys.getswitchinterval() == pytest.approx(foreground.SERVING_SWITCH_S)
            assert sys.getswitchinterval() == pytest.approx(foreground.SERVING_SWITCH_S)
        assert sys.getswitchinterval() == before
    with foreground.background():
        assert sys.getswitchinterval() == before  # a lone read: as the host set it
        with foreground.serving():
            assert sys.getswitchinterval() == pytest.approx(foreground.SERVING_SWITCH_S)
    assert sys.getswitchinterval() == before


def test_a_text_read_pauses_between_slices_of_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kb.io.notes.indexer import index_bases
    from kb.io.store import warm
    from kb.io.store.database import Store

    base = tmp_path / "fleet" / "ada"
    (base / "knowledge").mkdir(parents=True)
    for n in range(7):
        (base / "knowledge" / f"n{n}.md").write_text(f"# Note {n}\n\nvaults and arches {n}\n")
    index_bases([str(tmp_path / "fleet")], True)
    monkeypatch.setattr(warm, "PAUSE_EVERY", 3)
    paused: list[int] = []
    store = Store.open(base)
    try:
        held = warm.WarmCopy(store).read(lambda: paused.append(1))
        unpaused = warm.WarmCopy(store).read()
    finally:
        store.close()
    assert held is not None and unpaused is not None
    chunks = held.chunks
    assert chunks >= 7 and len(paused) == (chunks + 2) // 3  # before chunks 0, 3, 6, ...
