"""`kb route` and `kb boot` run on every prompt: their imports stay lean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HEAVY = ("mcp", "starlette", "uvicorn", "rich", "anyio", "pydantic")

PROBE = """
import sys
from kb.shell.main import run
out = run(sys.argv[1:])
assert out.code == 0, out.stderr
heavy = sorted({m.split('.')[0] for m in sys.modules} & set(%r))
print(','.join(heavy))
"""


def _heavy_modules(
    args: list[str], cwd: Path, heavy: tuple[str, ...] = HEAVY, stdin: str = ""
) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE % (heavy,), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout.strip()


def test_route_imports_nothing_heavy(example_fleet: Path) -> None:
    assert _heavy_modules(["route", "backup restore"], example_fleet) == ""
    assert _heavy_modules(["route", "backup restore", "--json"], example_fleet) == ""
    assert _heavy_modules(["route", "nothing like this", "--hybrid"], example_fleet) == ""
    # `--exit-code` is read by the hot path's own parser: not even cyclopts for it (issue 16)
    lean = (*HEAVY, "cyclopts")
    assert _heavy_modules(["route", "backup restore", "--exit-code"], example_fleet, lean) == ""


def test_boot_imports_nothing_heavy(example_fleet: Path) -> None:
    # boot runs on every message: besides the server stack, not even the CLI parser, the JSON
    # unstructurer or the Result library (the model runner's subprocess comes only with a
    # classifier, which the example fleet does not configure).
    heavy = (*HEAVY, "cattrs", "cyclopts", "returns")
    payload = '{"prompt": "how often should I run a backup restore test", "session_id": "s"}'
    assert _heavy_modules(["boot", "--all"], example_fleet, heavy, payload) == ""
    assert _heavy_modules(["boot"], example_fleet, heavy, "quantas luas tem jupiter") == ""
    assert _heavy_modules(["boot", "--text"], example_fleet, heavy, "") == ""
