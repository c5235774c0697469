"""A fleet nobody has indexed yet, asked by several processes at once: each of them finds
no stamp and prepares the index. Every one must answer (three routes at once used to crash
about one open in six with "no such table: headers")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLE_FLEET

PROCESSES = 5
ROUNDS = 3


def test_routes_started_together_on_a_fresh_fleet_all_answer(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    question = "how often should I run a backup restore test"
    for round_ in range(ROUNDS):
        fleet = shutil.copytree(EXAMPLE_FLEET, tmp_path / f"fleet{round_}")
        env["KB_MISSES_PATH"] = str(fleet / "misses.txt")
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "kb.shell.cli.main", "route", question, "--json"],
                cwd=fleet,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(PROCESSES)
        ]
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            assert json.loads(out)["keyword_top"] == "ada/knowledge/backups.md"
