"""Fail when a test skipped for a reason tests/allowed-skips.txt does not name.

    python tests/check_skips.py SKIP_REPORT

SKIP_REPORT is what the test run wrote with KB_SKIP_REPORT set (tests/conftest.py).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ALLOWED = Path(__file__).with_name("allowed-skips.txt")


def main(argv: list[str]) -> int:
    patterns = [
        re.compile(line)
        for line in ALLOWED.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    report = Path(argv[1]).read_text(encoding="utf-8").splitlines() if len(argv) > 1 else []
    unexpected = [
        row for row in report if not any(p.search(row.partition("\t")[2]) for p in patterns)
    ]
    for row in unexpected:
        print(f"unexpected skip: {row}", file=sys.stderr)
    print(f"{len(report)} skipped, {len(unexpected)} not in tests/allowed-skips.txt")
    return 1 if unexpected else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
