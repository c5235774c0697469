"""The daemon's write guard in process (kb.shell.daemon.Warm.before_write): a request that
answered before its cookie came back is stopped at its first write when the fleet changed,
and only the request's own thread is ever stopped. The subprocess tests in tests/daemon
hold the same guard end to end."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from kb.io.answering.watcher import Watcher
from kb.shell.daemon import Stale, Warm


def _warm_with_a_stale_answer(tmp_path: Path) -> Warm:
    watcher = Watcher([str(tmp_path)], tmp_path / "cookie")
    watcher.mode = "watcher"  # trusted, but never started: no cookie will come back
    (tmp_path / "cookie").mkdir()
    warm = Warm(str(tmp_path), watcher)
    warm.begin(speculate=True)
    warm._pending.append(watcher.generation)  # answered from the fleet as last checked
    watcher.generation += 1  # and a change was reported since
    return warm


def test_a_stale_answer_is_stopped_at_its_first_write(tmp_path: Path) -> None:
    warm = _warm_with_a_stale_answer(tmp_path)
    with pytest.raises(Stale):
        warm.before_write()


def test_another_thread_of_the_daemon_is_never_stopped(tmp_path: Path) -> None:
    warm = _warm_with_a_stale_answer(tmp_path)
    raised: list[BaseException] = []

    def write() -> None:
        try:
            warm.before_write()
        except BaseException as e:  # what is caught is the finding
            raised.append(e)

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()
    assert raised == []


def test_a_request_that_did_not_answer_first_writes_freely(tmp_path: Path) -> None:
    warm = _warm_with_a_stale_answer(tmp_path)
    warm.begin(speculate=False)
    warm.before_write()  # nothing pending: no cookie is waited for, nothing raised


def test_a_fleet_opened_knows_what_its_stat_pass_costs(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch, walks: list[str]
) -> None:
    """The open's own walk is timed, so the fleet's first reuse chooses between the cookie
    and a stat pass without walking every base first (2 s at 100,000 notes); the fleet is
    walked once for it, not twice."""
    root = example_fleet.resolve()
    warm = Warm(str(root), Watcher([str(root)], root / ".kb" / "daemon"))
    walked = walks
    monkeypatch.chdir(root)
    try:
        memory = warm.provide((str(root),), False)
        assert memory is not None and memory.resident
        ((_live, _generation, cost),) = warm._open.values()
        assert cost > 0 and len(walked) == len(memory.bases)
        assert memory.is_warming()  # held in memory in the background
    finally:
        warm.close()
