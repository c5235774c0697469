"""Regenerate the published skeletons from `kb init` itself.

    python skeletons/regenerate.py

Runs `kb init skeleton` and `kb init --person` into a scratch fleet and replaces
skeletons/agent-skeleton/ and skeletons/person-skeleton/ with what they wrote. The drift
test (tests/golden/test_skeletons.py) fails whenever these folders and `kb init` disagree;
run this after changing kb/pure/writing/skeleton.py, and review the diff before committing it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = {"skeleton": "agent-skeleton", "person": "person-skeleton"}


def generate(fleet: Path) -> None:
    """Write both skeletons into `fleet/fleet/` with the real CLI."""
    for args in (["init", "skeleton", str(fleet)], ["init", "--person", str(fleet)]):
        done = subprocess.run(
            [sys.executable, "-m", "kb.shell.cli.main", *args], capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(f"kb {' '.join(args)} failed: {done.stderr.strip()}")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="kb-skeletons-") as scratch:
        fleet = Path(scratch)
        generate(fleet)
        for made, published in TARGETS.items():
            dest = HERE / published
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(fleet / "fleet" / made, dest)
            print(f"regenerated {dest.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
