"""The resident kb's watcher when the kernel drops events (issue 27: "where the watcher
cannot be trusted (... overflow event) the daemon falls back to the stat pass and says so").

inotify queues at most `max_queued_events` events; past that it drops them and queues one
overflow record. watchdog (7.1.1 and later) watches every folder again and hands each watch
an EventsLostEvent, in order with the events around it; the watcher bumps its change count,
so every fleet the daemon holds is checked by a stat pass before its next answer. Here the
queue overflows for real: the test holds the lock watchdog's reading thread takes around
each read of the inotify descriptor, so the kernel's queue fills while the test creates
files. (7.1 took a per-watch lock for each event on that same thread; 7.1.1 reads on one
thread into a queue and dispatches on another, so only the descriptor's lock stops it.)"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

import pytest

from kb.io.answering.watcher import WATCHDOG_REPORTS_LOSS, Watcher

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="inotify's queue is Linux's"
)


def test_a_real_queue_overflow_is_heard_and_counted(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("watchdog")
    # as in the daemon, no handler on the root logger (pytest adds its own), so a warning
    # nobody handles would go to stderr
    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text(encoding="ascii"))
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    watcher = Watcher([str(fleet)], fleet / ".kb" / "cookie")
    watcher.start()
    try:
        assert watcher.mode == "watcher", watcher.why
        before = watcher.generation
        # watchdog's internals, named here on purpose: the reading thread takes the inotify
        # descriptor's lock before and after each read of it.
        with watcher._observer._inotify_fd._lock:
            for i in range(limit):  # two events each (created, closed after writing)
                (fleet / f"n{i}.md").touch()
        # watchdog works through the events it read before the loss, then the record
        deadline = time.monotonic() + 30
        while watcher.overflows == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert watcher.overflows >= 1
        settled = -1
        while settled != watcher.generation and time.monotonic() < deadline:
            settled = watcher.generation
            time.sleep(0.3)
        assert watcher.send() and watcher.wait(), watcher.why
        assert watcher.generation > before
        assert watcher.mode == "watcher"  # watchdog watches again; the stat pass covers the loss
        # and watchdog's warning went no further (a request holds the daemon's stderr)
        assert "overflow" not in capfd.readouterr().err.lower()
        after = watcher.generation
        (fleet / "later.md").write_text("a change after the loss\n", encoding="utf-8")
        assert watcher.send() and watcher.wait()
        assert watcher.generation > after  # still watching
    finally:
        watcher.stop()


def test_a_watchdog_that_cannot_report_a_loss_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    version = pytest.importorskip("watchdog.version")
    monkeypatch.setattr(version, "VERSION_INFO", (7, 1, 0))
    watcher = Watcher([str(tmp_path)], tmp_path / "cookie")
    watcher.start()
    assert watcher.mode == "stat"
    least = ".".join(map(str, WATCHDOG_REPORTS_LOSS))
    assert watcher.why == (
        "watchdog 7.1.0 does not report events the kernel dropped "
        f"(kb trusts {least} or later: pip install 'watchdog>={least}')"
    )
