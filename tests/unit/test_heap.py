"""The resident kb hands the heap its warm build freed back to the system where the C
library can (glibc's `malloc_trim`), and does nothing where it cannot."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from kb.io.answering import heap
from kb.io.answering.memory import Memory


class _Library:
    def __init__(self, has_trim: bool) -> None:
        self.calls: list[int] = []
        if has_trim:
            self.malloc_trim = self.calls.append


def test_the_free_heap_is_trimmed_whole_where_the_c_library_can(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    library = _Library(has_trim=True)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: library)
    heap.give_back()
    assert library.calls == [0]  # 0: keep no padding at the top of the heap


def test_a_c_library_without_the_call_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctypes, "CDLL", lambda name: _Library(has_trim=False))
    heap.give_back()  # musl, macOS: no malloc_trim, and no error


def test_a_process_whose_own_symbols_cannot_be_loaded_is_left_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(name: object) -> object:
        raise OSError("no such library")

    monkeypatch.setattr(ctypes, "CDLL", refused)
    heap.give_back()


def test_a_warming_thread_hands_the_heap_back_once_the_fleet_is_held(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory.open([str(example_fleet / "fleet")]) as cold:
        entries = cold.entries
    given: list[bool] = []
    with Memory.open([str(example_fleet / "fleet")]) as memory:
        monkeypatch.setattr(heap, "give_back", lambda: given.append(memory.is_warm))
        memory.warm(wait=False)
        worker = memory._warm_worker
        assert worker is not None
        worker.join(30)
        assert given == [True]  # after the build, once everything is installed
        # the entries held without their decoded headers are the ones a cold open lists
        assert memory.entries == entries


_THREADS_ALLOCATE = """
import sys, threading
from kb.io.answering import heap
if sys.argv[1] == "one":
    heap.one_arena()
def allocate():
    kept = [bytearray(4096) for _ in range(64)]  # from glibc's malloc, in this thread
    done.wait()
done = threading.Event()
threads = [threading.Thread(target=allocate) for _ in range(4)]
for t in threads:
    t.start()
import time; time.sleep(0.2)
reserved = 0
for line in open("/proc/self/maps"):
    span, perms, *rest = line.split()
    lo, hi = (int(x, 16) for x in span.split("-"))
    # an arena of a thread's own reserves 64 MB, unused pages mapped without access
    if perms == "---p" and len(rest) == 3 and hi - lo >= 1 << 20:
        reserved += 1
done.set()
print(reserved)
"""


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="Linux's /proc")
def test_one_arena_keeps_every_thread_on_the_main_heap() -> None:
    import subprocess
    import sys

    def arenas(mode: str) -> int:
        out = subprocess.run(
            [sys.executable, "-c", _THREADS_ALLOCATE, mode],
            capture_output=True,
            text=True,
            check=True,
        )
        return int(out.stdout)

    if not hasattr(ctypes.CDLL(None), "mallopt"):
        pytest.skip("no glibc mallopt")
    assert arenas("each") >= 2  # threads allocating at once get arenas of their own
    assert arenas("one") == 0


def test_a_c_library_without_mallopt_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctypes, "CDLL", lambda name: _Library(has_trim=False))
    heap.one_arena()


def test_the_resident_kb_and_kb_serve_keep_one_arena(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Only processes kb owns: the daemon's entry and the `kb serve` verb, before their
    threads start; a library's Memory leaves its host's allocator alone."""
    from kb.shell import daemon
    from kb.shell.cli.inputs import ServeInput
    from kb.shell.mcp import mcp_server, serveverb

    calls: list[str] = []
    monkeypatch.setattr(heap, "one_arena", lambda: calls.append("arena"))

    class _Daemon:
        def __init__(self, root: str, where: Path) -> None:
            calls.append("daemon")

        def serve(self) -> int:
            return 0

    monkeypatch.setattr(daemon, "Daemon", _Daemon)
    monkeypatch.setenv("KB_DAEMON_DIR", str(tmp_path / "rt"))
    assert daemon.main([str(tmp_path)]) == 0
    assert calls == ["arena", "daemon"]
    calls.clear()

    def server(*args: object, **kwargs: object) -> int:
        calls.append("server")
        return 0

    monkeypatch.setattr(mcp_server, "serve", server)
    serveverb.serve(ServeInput(paths=(str(tmp_path),)))
    assert calls == ["arena", "server"]
    calls.clear()
    with Memory.open([str(tmp_path)]) as memory:
        memory.warm(wait=True)
    assert calls == []
