"""Where `kb check`'s time goes on a fleet: the walk, reading the files, judging them.

    python benchmarks/check.py FLEET_DIR [--runs 3]

In this process, one base after another (no worker processes), best of `--runs`:

- the walk of every base (`discover_fleet`, stat only), which the cross-base hint needs
  before any base is judged, so it runs alone in `kb check`'s parent;
- reading each file as `kb check` reads it (`kb.io.writing.checker.file_text`) and judging
  it (`kb.pure.writing.checks.file_findings`), timed apart, with the cost per file.

The page cache is whatever it is: run it twice and read the second run for a warm disk.
Whole processes, workers included, are timed with `/usr/bin/time kb check FLEET_DIR`.
"""

from __future__ import annotations

import argparse
import time

from kb.io.notes.walk import BaseSnapshot
from kb.io.writing.checker import base_facts, discover_fleet, file_text
from kb.pure.writing.checks import file_findings, file_rules


def main() -> None:
    parser = argparse.ArgumentParser(description="Where kb check's time goes on a fleet.")
    parser.add_argument("fleet")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    walk = read = judge = float("inf")
    files = 0
    for _ in range(args.runs):
        start = time.perf_counter()
        found = discover_fleet([args.fleet], False)
        snaps = [s for s in found if isinstance(s, BaseSnapshot)]
        walked = time.perf_counter()
        reading = judging = 0.0
        files = 0
        for snap in snaps:
            rules = file_rules(base_facts(snap, False))
            for f in snap.files:
                t0 = time.perf_counter()
                text = file_text(snap, f.rel)
                t1 = time.perf_counter()
                if isinstance(text, str):
                    file_findings(rules, f.rel, text)
                reading += t1 - t0
                judging += time.perf_counter() - t1
                files += 1
        walk = min(walk, walked - start)
        read, judge = min(read, reading), min(judge, judging)
    per = 1e6 / max(files, 1)
    print(
        f"| {files:,} files | walk {walk:.2f} s | read {read:.2f} s ({read * per:.0f} us a file)"
        f" | judge {judge:.2f} s ({judge * per:.0f} us a file) |"
    )


if __name__ == "__main__":
    main()
