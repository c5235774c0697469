"""What Python's cyclic collector costs a warm read, and the questions waiting on it.

Reads the largest base of a fleet into memory, then the keyword index, as a resident kb
does, once with the collector running and once paused as `kb serve` now reads
(kb.io.answering.collector). Each way runs in a fresh process. Meanwhile a thread asks for
the interpreter every millisecond, standing in for a question asked during the read. Prints
the seconds of each part, the collector's own time and how long that thread was held up.

    python benchmarks/warmgc.py FLEET_ROOT      # an indexed fleet (generate.py, kb index)
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
import time

HELD_UP_S = 0.03  # a wait for the interpreter longer than this counts as a hold-up


def measure(root: str, paused: bool) -> dict[str, float]:
    from kb.io.answering.memory import Memory

    spent = {"collector": 0.0, "full": 0.0, "started": 0.0}

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            spent["started"] = time.perf_counter()
        else:
            spent["collector"] += time.perf_counter() - spent["started"]
            spent["full"] += info["generation"] == 2

    gc.callbacks.append(timed)
    memory = Memory.open([root])
    store = max(memory._stores, key=lambda s: s.text.page_total())
    held: list[float] = []
    done = threading.Event()

    def asker() -> None:
        while not done.is_set():
            t = time.perf_counter()
            time.sleep(0.001)
            late = time.perf_counter() - t - 0.001
            if late > HELD_UP_S:
                held.append(late)

    thread = threading.Thread(target=asker, daemon=True)
    thread.start()
    if paused:
        gc.disable()
    spent.update(collector=0.0, full=0.0)  # the open before is not the read's
    t0 = time.perf_counter()
    read = store.warm_copy.read()
    t1 = time.perf_counter()
    memory.keywords.prepare_all()
    t2 = time.perf_counter()
    done.set()
    thread.join()
    assert read is not None
    return {
        "base_s": t1 - t0,
        "keywords_s": t2 - t1,
        "collector_s": spent["collector"],
        "full_collections": spent["full"],
        "held_up": len(held),
        "held_up_s": sum(held),
    }


def main() -> None:
    if len(sys.argv) == 3:  # one way, in a process of its own
        print(json.dumps(measure(sys.argv[1], sys.argv[2] == "paused")))
        return
    root = sys.argv[1]
    print(
        "| collector | largest base | keyword index | collector's time | full collections "
        f"| hold-ups over {HELD_UP_S * 1000:.0f} ms |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for way in ("running", "paused"):
        out = subprocess.run(
            [sys.executable, __file__, root, way], capture_output=True, text=True, check=True
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"| {way} | {r['base_s']:.2f} s | {r['keywords_s']:.2f} s | "
            f"{r['collector_s']:.2f} s | {r['full_collections']:.0f} | "
            f"{r['held_up']} ({r['held_up_s']:.2f} s) |",
            flush=True,
        )


if __name__ == "__main__":
    main()
