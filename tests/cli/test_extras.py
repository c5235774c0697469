"""The core install runs without the extras: every verb but `serve` and `ui` works in a
process that cannot import the MCP SDK or the web stack, and those two say in one line which
extra to install. The process here refuses the extras' modules with a meta-path finder, the
way an interpreter without them would (tests/newcomer/newcomer.sh does it for real, in a
fresh virtual environment)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

# What the mcp, ui and fast extras bring, and what the MCP SDK brings with it.
BLOCKED = (
    "mcp", "mcp_types", "starlette", "uvicorn", "pydantic", "pydantic_core", "anyio", "httpx",
    "httpx2", "sse_starlette", "jsonschema", "cryptography", "langchain_core", "llama_index",
    "agents", "numpy",
)  # fmt: skip

# Runs `kb` with every BLOCKED module refused, then fails if one was imported all the same.
RUNNER = f"""
import sys

BLOCKED = {BLOCKED!r}


class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (refused)", name=name)
        return None


sys.meta_path.insert(0, Refuse())
from kb.shell.cli.main import main

code = main(sys.argv[1:])
leaked = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
if leaked:
    sys.stderr.write(f"imported {{leaked}}\\n")
    code = 99
raise SystemExit(code)
"""


def _core(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    env["KB_MISSES_PATH"] = str(cwd / "misses.txt")
    return subprocess.run(
        [sys.executable, "-c", RUNNER, *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_runner_really_refuses_the_sdk(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            RUNNER.replace("from kb.shell.cli.main", "import mcp\nfrom kb.shell.cli.main"),
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "No module named 'mcp' (refused)" in done.stderr


def test_the_core_verbs_run_without_the_extras(example_fleet: Path, tmp_path: Path) -> None:
    fleet = str(example_fleet)
    question = "how often should I run a backup restore test"
    settings = tmp_path / "settings.json"
    settings.write_text("{}")
    runs: list[tuple[list[str], str]] = [
        (["index", fleet], ""),
        (["route", question, fleet], ""),
        (["route", question, fleet, "--json"], ""),
        (["list", fleet], ""),
        (["fleet", fleet], ""),
        (["check", fleet], ""),
        (["boot", fleet], json.dumps({"prompt": question})),
        (
            ["write", "ada", "restore-drill", fleet, "--keys", "restore drill, quarterly restore",
             "--summary", "How the quarterly restore drill runs"],
            "# Restore drill\n\nRestore last night's backup into a scratch database.\n",
        ),
        (["doctor", fleet, "--settings", str(settings)], ""),
    ]  # fmt: skip
    for args, stdin in runs:
        done = _core(args, tmp_path, stdin)
        assert done.returncode in (0, 1), (args, done.returncode, done.stderr)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert done.stdout, args
    route = _core(["route", question, fleet], tmp_path)
    assert "  ada      knowledge/backups.md" in route.stdout
    boot = _core(["boot", fleet], tmp_path, json.dumps({"prompt": question}))
    assert "ada" in boot.stdout
    assert (example_fleet / "fleet" / "ada" / "knowledge" / "restore-drill.md").is_file()
    doctor = _core(["doctor", fleet, "--settings", str(settings)], tmp_path)
    assert (
        "skip extra mcp: not installed; kb serve needs the MCP extra: pip install 'kb-fleet[mcp]'"
        in (doctor.stdout.splitlines())
    ), doctor.stdout


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["serve"], "kb serve needs the MCP extra: pip install 'kb-fleet[mcp]'\n"),
        (["serve", "--http"], "kb serve needs the MCP extra: pip install 'kb-fleet[mcp]'\n"),
        (["ui"], "kb ui needs the UI extra: pip install 'kb-fleet[ui]'\n"),
    ],
)
def test_serve_and_ui_name_their_extra_in_one_line(
    example_fleet: Path, tmp_path: Path, args: list[str], line: str
) -> None:
    done = _core([*args, str(example_fleet)], tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line)


# The only modules that may import an extra's packages; everything else is the core.
EXTRA_MODULES = re.compile(
    r"kb/shell/(mcp/[a-z_]+\.py|ui/[a-z_]+\.py)$|kb/adapters/(langchain|llamaindex)\.py$"
    # imported, or calling numpy, only once numpy is known to import
    r"|kb/pure/answering/held/densetext\.py$|kb/io/store/postingsfile\.py$"
)
IMPORT = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


def test_no_core_module_imports_an_extra() -> None:
    offenders = []
    for path in sorted((REPO / "kb").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if EXTRA_MODULES.search(rel):
            continue
        imported = set(IMPORT.findall(path.read_text(encoding="utf-8")))
        offenders += [f"{rel}: {m}" for m in sorted(imported & set(BLOCKED))]
    assert not offenders, offenders


def test_the_distribution_name_and_urls_match_pyproject() -> None:
    import tomllib

    from kb.version import DISTRIBUTION

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == DISTRIBUTION
    assert "urls" not in project, "no web address until the repository is published"
    assert (REPO / project["license-files"][0]).is_file()
    assert "](" not in (REPO / project["readme"]).read_text(encoding="utf-8"), (
        "the package description links nowhere: relative links break on an index page"
    )
    extras = project["optional-dependencies"]
    every = f"{DISTRIBUTION}[mcp,ui,langchain,llamaindex,daemon,fast]"
    assert every in extras["test"], "every extra"
    assert not any(d.startswith(("mcp", "starlette", "uvicorn")) for d in project["dependencies"])
