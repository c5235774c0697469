"""kb.io.notes.perbase: when jobs run in worker processes, that they come back in the bases'
order either way, and that `kb index` and `kb check` print the same and write the same
index whether their bases are done here or in workers (real processes: an xdist worker has
threads of its own, so in this process every run is sequential, as the rules say)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from kb.io.notes import perbase
from kb.io.notes.perbase import (
    PARALLEL_MIN_FILES,
    Orphaned,
    orphan_check,
    rough_size,
    worker_count,
)
from tests.conftest import RunKb

LINUX = sys.platform == "linux"


def _quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.delenv("KB_CRASH_AT", raising=False)
    monkeypatch.delenv("KB_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)


@pytest.mark.skipif(not LINUX, reason="workers run on Linux only")
def test_workers_only_for_enough_files_in_several_bases(monkeypatch: pytest.MonkeyPatch) -> None:
    _quiet(monkeypatch)
    half = PARALLEL_MIN_FILES // 2
    assert worker_count([half, half]) == 2
    assert worker_count([half, half - 1]) == 1  # too few files in all
    assert worker_count([PARALLEL_MIN_FILES * 5]) == 1  # one base
    assert worker_count([half] * 9) == 4  # no more than the cores
    monkeypatch.setenv("KB_WORKERS", "3")
    assert worker_count([half] * 9) == 3
    monkeypatch.setenv("KB_WORKERS", "1")
    assert worker_count([half] * 9) == 1


@pytest.mark.skipif(not LINUX, reason="workers run on Linux only")
def test_no_workers_beside_another_thread_or_under_a_crash_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _quiet(monkeypatch)
    sizes = [PARALLEL_MIN_FILES] * 2
    assert worker_count(sizes) == 2
    monkeypatch.setenv("KB_CRASH_AT", "index.base")
    assert worker_count(sizes) == 1
    monkeypatch.delenv("KB_CRASH_AT")
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert worker_count(sizes) == 1


def test_no_workers_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    _quiet(monkeypatch)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert worker_count([PARALLEL_MIN_FILES] * 4) == 1


def test_an_orphaned_worker_stops_at_its_next_step() -> None:
    orphan_check(os.getppid())(1, 10)  # our parent is there: nothing happens
    with pytest.raises(Orphaned):
        orphan_check(os.getppid() + 1_000_000)(1, 10)


def _run(script: str) -> subprocess.CompletedProcess[str]:
    """`script` in a fresh interpreter free to start workers (no KB_WORKERS, no crash test)."""
    env = {k: v for k, v in os.environ.items() if k not in ("KB_WORKERS", "KB_CRASH_AT")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done


def test_results_come_back_in_the_items_order_from_other_processes() -> None:
    script = (
        "import os, time\n"
        "from kb.io.notes.perbase import each_base, worker_count\n"
        "def job(item):\n"
        "    start = time.monotonic()\n"
        "    time.sleep(0.4)  # long enough that both workers get jobs\n"
        "    return os.getpid(), item, start, time.monotonic()\n"
        "seen = []\n"
        "sizes = [10, 5000, 300, 4000]\n"
        "out = each_base(job, [0, 1, 2, 3], sizes, lambda i, r: seen.append(r))\n"
        "pids = {r[0] for r in out}\n"
        "at_once = max(sum(1 for r in out if r[2] <= t < r[3]) for _, _, t, _ in out)\n"
        "print([r[1] for r in out] == [0, 1, 2, 3], os.getpid() in pids, len(pids),\n"
        "      sorted(seen) == sorted(out), at_once <= worker_count(sizes), at_once)\n"
    )
    done = _run(script)
    # in order either way; where there are cores for them, each job in a process of its
    # own (a process kept for a second base kept the first's heap), two at a time
    if LINUX and len(os.sched_getaffinity(0)) > 1:
        assert done.stdout.split() == ["True", "False", "4", "True", "True", "2"]
    else:
        assert done.stdout.split() == ["True", "True", "1", "True", "True", "1"]


@pytest.mark.skipif(
    not LINUX or len(os.sched_getaffinity(0)) < 2, reason="workers run on Linux with 2 cores"
)
@pytest.mark.parametrize(
    ("second_job", "said"),
    [
        ("os._exit(3)", "WorkerDied the process working on item 1 died (3)"),
        ("raise ValueError('no such base')", "ValueError no such base"),
        ("return threading.Lock()", "WorkerDied item 1: TypeError"),
    ],
)
def test_a_job_that_dies_raises_or_fails_in_its_process_fails_here(
    second_job: str, said: str
) -> None:
    """A worker killed, a job that raises and a result that cannot come back each end the
    run with an error here, never a wait for a result that will not come."""
    script = (
        "import os, threading, time\n"
        "from kb.io.notes.perbase import each_base\n"
        "def job(item):\n"
        "    if item == 1:\n"
        f"        {second_job}\n"
        "    return item\n"
        "try:\n"
        "    each_base(job, [0, 1, 2], [3000, 3000, 3000])\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    done = _run(script)
    assert done.stdout.startswith(said), done.stdout + done.stderr


@pytest.mark.skipif(
    not LINUX or len(os.sched_getaffinity(0)) < 2, reason="workers run on Linux with 2 cores"
)
def test_workers_find_the_job_and_items_in_memory_not_in_a_pickle() -> None:
    """Only an item's place travels to a worker: a job that closes over a lock and items
    holding one (neither can be pickled) still run there. Pickling each base's walk and
    the fleet's stems for every job was a tenth of `kb check`'s CPU at 100,000 notes."""
    script = (
        "import os, threading, time\n"
        "from kb.io.notes.perbase import each_base\n"
        "lock = threading.Lock()\n"
        "items = [(i, threading.Lock()) for i in range(4)]\n"
        "def run(item):\n"
        "    time.sleep(0.3)\n"
        "    with lock, item[1]:\n"
        "        return os.getpid(), item[0]\n"
        "out = each_base(lambda item: run(item), items, [3000, 10, 10, 10])\n"
        "print([i for _, i in out], os.getpid() in {pid for pid, _ in out})\n"
    )
    done = _run(script)
    assert done.stdout.split() == ["[0,", "1,", "2,", "3]", "False"]


def test_sequential_runs_call_done_after_each_job(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(perbase, "worker_count", lambda _sizes: 1)

    def job(x: int) -> int:
        calls.append(f"job {x}")
        return x * 2

    out = perbase.each_base(job, [1, 2], [9, 9], lambda _i, r: calls.append(f"done {r}"))
    assert out == [2, 4]
    assert calls == ["job 1", "done 2", "job 2", "done 4"]


def _fleet(root: Path, per_base: int) -> Path:
    """Two bases of small notes, enough in all for workers; a link and a citation each."""
    for base in ("ada", "bruno"):
        knowledge = root / base / "knowledge"
        knowledge.mkdir(parents=True)
        (root / base / "agent.txt").write_text(f"name = {base}\n")
        (root / base / "MAP.md").write_text("# Map\n\n### knowledge/\n- [[knowledge/n0]]\n")
        # a link across the base edge: kb check's hint names the base that has the note
        other = "bruno" if base == "ada" else "ada"
        (knowledge / f"only-in-{base}.md").write_text(
            f"# Only in {base}\n\n**Search for:** {base} only\n\nSee [[only-in-{other}]].\n"
        )
        for i in range(per_base):
            (knowledge / f"n{i}.md").write_text(
                f"# Note {i} of {base}\n\n**Search for:** topic{i}, {base} thing{i % 7}\n\n"
                f"Body about topic{i} and [[n{(i + 1) % per_base}]].\n"
            )
    return root


def _index_rows(root: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every base's index but the stat columns and stamps (two copies of one
    fleet differ in their files' times, never in what was read from them)."""
    out: dict[str, list[tuple[object, ...]]] = {}
    for db in sorted(root.glob("*/.kb/index.db")):
        conn = sqlite3.connect(db)
        tables = [
            t
            for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if t not in ("scan_lights", "source_stamps", "meta") and not t.startswith("sqlite_")
        ]
        for t in tables:
            cols = [c[1] for c in conn.execute(f"PRAGMA table_info({t})")]
            kept = [c for c in cols if c not in ("mtime_ns", "size")] or cols
            rows = conn.execute(f"SELECT {', '.join(kept)} FROM {t}").fetchall()
            out[f"{db.parent.parent.name}/{t}"] = sorted(rows, key=repr)
        conn.close()
    return out


@pytest.mark.skipif(not LINUX, reason="workers run on Linux only")
def test_index_and_check_are_the_same_with_workers(tmp_path: Path, kb: RunKb) -> None:
    per_base = PARALLEL_MIN_FILES // 2 + 1
    one = _fleet(tmp_path / "one", per_base)
    two = _fleet(tmp_path / "two", per_base)
    indexed = [kb(["index", str(f)], env={"KB_WORKERS": w}) for f, w in ((one, "1"), (two, "2"))]
    assert indexed[0].code == indexed[1].code == 0, indexed[1].stderr
    assert indexed[0].stdout.replace(str(one), "F") == indexed[1].stdout.replace(str(two), "F")
    assert "ada" in indexed[0].stdout and _index_rows(one) == _index_rows(two)
    checked = [kb(["check", str(f)], env={"KB_WORKERS": w}) for f, w in ((one, "1"), (two, "2"))]
    assert checked[0].code == checked[1].code
    assert checked[0].stdout.replace(str(one), "F") == checked[1].stdout.replace(str(two), "F")
    assert "[[only-in-bruno]]: that note is in bruno" in checked[1].stdout


def test_with_workers_the_progress_line_counts_the_bases_done_in_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent draws one line for the bases done so far (a worker's own steps only check
    on the parent), and erases it at the end. Workers are stood in for here: this process
    has threads (xdist), so it never forks."""
    import io

    from kb.io.notes import indexer
    from kb.io.notes.progress import ERASE, Progress

    # 2 bases of 153 files each as listed: 150 notes, one linking across, the map, agent.txt
    root = _fleet(tmp_path / "fleet", 150)
    monkeypatch.setattr(indexer, "worker_count", lambda _sizes: 2)
    monkeypatch.setattr(indexer, "orphan_check", lambda _parent: lambda _d, _t: None)
    # the jobs one after another, each result handed on as it comes, as workers hand them
    monkeypatch.setattr(
        indexer,
        "each_base",
        lambda job, items, _s, done: [done(i, r) or r for i in items for r in [job(i)]],
    )
    out = io.StringIO()
    report = indexer.index_bases([str(root)], False, progress=Progress(out, clock=lambda: 0.0))
    assert "ada" in report and "bruno" in report
    drawn = out.getvalue().split(ERASE)[1:]
    assert drawn[:2] == [
        "  indexing in 2 processes  153 / 306",
        "  indexing in 2 processes  306 / 306",
    ]
    assert drawn[-1] == ""  # erased


def test_a_rough_size_counts_the_files_a_walk_could_find(tmp_path: Path) -> None:
    """Listing only: every name that is not a folder, in every folder but a dot folder, and
    a linked folder counted as one name, never entered."""
    (tmp_path / "knowledge" / "deep").mkdir(parents=True)
    for rel in ("a.md", "knowledge/b.md", "knowledge/deep/c.md", "knowledge/deep/d.txt"):
        (tmp_path / rel).write_text("x")
    (tmp_path / ".kb").mkdir()
    (tmp_path / ".kb" / "index.db").write_text("x")
    (tmp_path / "elsewhere").symlink_to(tmp_path / "knowledge", target_is_directory=True)
    assert rough_size(str(tmp_path)) == 5
    assert rough_size(str(tmp_path / "missing")) == 0
