"""`kb doctor` end to end on a copy of the example fleet, with a settings file and an
`.mcp.json` written here: a setup where everything works (exit 0) and one where every kind of
check fails (exit 1), pinned as golden files; the usage error; a path that is no fleet is
refused without being walked; the hooks a doctor run executes write nothing.

Each run gets a PATH of its own (and, for the broken setup, a stand-in virtual environment
that holds a `kb`), so the output does not depend on what this machine has installed."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kb.io.fleet.doctor import running_kb
from kb.shell.cli.table import usage_of
from tests.conftest import EXAMPLE_FLEET, REPO, check_golden

PY = shlex.quote(sys.executable)
KB = f"{PY} -m kb.shell.cli.main"
SYSTEM_PATH = os.pathsep.join(p for p in ("/usr/local/bin", "/usr/bin", "/bin") if Path(p).is_dir())


def _doctor(
    args: list[str], cwd: Path, venv: Path | None = None, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_") and k != "VIRTUAL_ENV"}
    env["PATH"] = SYSTEM_PATH
    if home is not None:
        env["HOME"] = str(home)
    if venv is not None:
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{SYSTEM_PATH}"
    # the worktree's kb, whatever this interpreter has installed
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "doctor", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _normal(text: str, tmp: Path) -> str:
    text = text.replace(running_kb(argv0=""), "<KB>").replace(sys.executable, "<PYTHON>")
    return text.replace(str(tmp.resolve()), "<TMP>").replace(str(tmp), "<TMP>")


def _index(project: Path, fleet: str = "fleet") -> None:
    subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "index", fleet, "--all"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
        capture_output=True,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder: the example fleet as `fleet/`, its model inside it (fleet.txt names
    `models/echo_model.py`, under the fleet root), no settings and no .mcp.json yet."""
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE_FLEET, root / "fleet", ignore=shutil.ignore_patterns(".kb"))
    return root


def _hooks(**events: Sequence[str | tuple[str, int]]) -> dict[str, object]:
    out: dict[str, list[dict[str, object]]] = {}
    for event, commands in events.items():
        hooks: list[dict[str, object]] = []
        for c in commands:
            command, timeout = c if isinstance(c, tuple) else (c, 30)
            hooks.append({"type": "command", "command": command, "timeout": timeout})
        out[event] = [{"hooks": hooks}]
    return {"hooks": out}


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def test_a_working_setup_is_all_ok(project: Path, tmp_path: Path) -> None:
    _index(project)
    _write_json(
        project / "hooks.json",
        _hooks(
            UserPromptSubmit=[f'KB_MODEL_TIMEOUT=20 {KB} boot "$CLAUDE_PROJECT_DIR/fleet" --all'],
            SessionEnd=[f'{KB} capture "$CLAUDE_PROJECT_DIR/fleet"'],
        ),
    )
    _write_json(
        project / ".mcp.json",
        {
            "mcpServers": {
                "kb": {
                    "command": sys.executable,
                    "args": ["-m", "kb.shell.cli.main", "serve", "fleet"],
                }
            }
        },
    )
    before = sorted(p for p in project.rglob("*") if ".kb" not in p.parts)
    done = _doctor(["fleet", "--settings", "hooks.json", "--all"], cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    check_golden("doctor/ok.txt", _normal(done.stdout, tmp_path))
    # The hooks ran (boot printed the roster, capture found nothing), and wrote nothing.
    assert sorted(p for p in project.rglob("*") if ".kb" not in p.parts) == before
    assert not list(project.rglob("sessions/*"))


def test_the_readmes_copy_of_the_example_fleet_passes(tmp_path: Path) -> None:
    """The README's quick start copies examples/fleet alone (`cp -r examples/fleet
    ../harbor`): the copy must keep the model its fleet.txt names, so doctor exits 0."""
    harbor = tmp_path / "harbor"
    shutil.copytree(EXAMPLE_FLEET, harbor, ignore=shutil.ignore_patterns(".kb", "kb-*"))
    (tmp_path / "work").mkdir()
    _index(harbor.parent / "work", "../harbor")
    done = _doctor(["../harbor"], cwd=tmp_path / "work", home=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok   model answerer: models/echo_model.py is found under the fleet root" in (
        done.stdout.splitlines()
    ), done.stdout
    assert done.stdout.splitlines()[-1].startswith("nothing to fix: ")


def test_a_broken_setup_names_each_fix(project: Path, tmp_path: Path) -> None:
    # A stand-in virtual environment, active for the doctor, with a `kb` of its own.
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "kb").write_text("#!/bin/sh\necho stand-in\n")
    (venv / "bin" / "kb").chmod(0o755)
    manifest = project / "fleet" / "fleet.txt"
    manifest.write_text(
        manifest.read_text(encoding="utf-8")
        + 'classifier = no-such-classifier --fast\npromoter = "models/unclosed\n'
        + "reviewer = models/reviewer.sh\n",
        encoding="utf-8",
    )
    (project / "fleet" / "models" / "reviewer.sh").write_text("#!/bin/sh\n")  # not executable
    _write_json(
        project / ".claude" / "settings.json",
        _hooks(
            UserPromptSubmit=[
                'kb boot "$CLAUDE_PROJECT_DIR/fleet" --all',  # only the venv has kb
                f'{KB} boot "$CLAUDE_PROJECT_DIR/no-such-fleet"',  # exits 0, prints nothing
                (f'{KB} boot "$CLAUDE_PROJECT_DIR/fleet"; sleep 30', 1),  # past its timeout
            ],
            SessionEnd=[f'{KB} capture "$CLAUDE_PROJECT_DIR/nowhere"'],  # exits 1
            Stop=["echo done"],  # not kb's: never run
        ),
    )
    _write_json(
        project / ".mcp.json",
        {
            "mcpServers": {
                "kb": {"command": "kb", "args": ["serve", "fleet"]},
                "notes": {"command": "some-other-server", "args": []},
                "remote": {"type": "http", "url": "http://127.0.0.1:4115/mcp"},
            }
        },
    )
    done = _doctor(["fleet"], cwd=project, venv=venv)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == ""
    check_golden("doctor/broken.txt", _normal(done.stdout, tmp_path))


def test_settings_and_mcp_config_are_found_from_a_subfolder(project: Path) -> None:
    _write_json(project / ".claude" / "settings.json", _hooks(Stop=["echo done"]))
    _write_json(project / ".mcp.json", {"mcpServers": {}})
    done = _doctor(["."], cwd=project / "fleet")
    lines = done.stdout.splitlines()
    assert (
        f"skip hook Stop ({project / '.claude' / 'settings.json'}): `echo` is not kb; not run"
        in (lines)
    ), done.stdout
    assert f"skip mcp ({project / '.mcp.json'}): no server in mcpServers" in lines, done.stdout


def test_a_folder_that_is_no_fleet_is_refused_unwalked(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / "notes").mkdir(parents=True)
    (plain / "notes" / "a.md").write_text("# A\n")
    _write_json(tmp_path / "empty.json", {})
    done = _doctor([str(plain), "--settings", str(tmp_path / "empty.json")], cwd=tmp_path)
    assert done.returncode == 1
    assert (
        f"FIX  fleet {plain}: holds no agent (no fleet/ folder of bases, no agent.txt or map "
        "file); name the fleet root, the folder with fleet.txt" in done.stdout.splitlines()
    ), done.stdout
    assert "skip index: the fleet did not open" in done.stdout
    assert not list(plain.rglob(".kb")), "a folder that is no fleet got an index"


def test_a_settings_file_that_is_not_there_is_a_usage_error(project: Path) -> None:
    done = _doctor(["fleet", "--settings", "nope.json"], cwd=project)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "kb doctor: --settings names no file at nope.json; give the path of a Claude Code "
        "settings file (.claude/settings.json)\n"
    )


@pytest.mark.parametrize("args", [["fleet", "hooks.json"], ["--settings"], ["--bogus"]])
def test_a_wrong_command_line_is_a_usage_error(project: Path, args: list[str]) -> None:
    (project / "hooks.json").write_text("{}")
    done = _doctor(args, cwd=project)
    assert (done.returncode, done.stdout) == (2, usage_of("doctor"))  # its own usage (issue 26)
    assert done.stderr.startswith("kb doctor: ") and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "is not JSON: Expecting property name enclosed in double quotes"),
        ("[]", "is not a JSON object"),
        ('{"hooks": []}', "`hooks` is not an object of events"),
    ],
)
def test_a_settings_file_a_runtime_cannot_read_is_a_fix(
    project: Path, text: str, problem: str
) -> None:
    (project / "bad.json").write_text(text)
    done = _doctor(["fleet", "--settings", "bad.json"], cwd=project)
    assert done.returncode == 1
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("FIX  hooks (bad.json)"))
    assert line.startswith(f"FIX  hooks (bad.json): {problem}"), line


# The docs write the absolute path of kb as this placeholder, for the reader to replace.
PLACEHOLDER = "/home/you/kb/.venv/bin/kb"


def _first_json_block(doc: str) -> dict[str, Any]:
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    block = text.split("```json\n", 1)[1].split("```", 1)[0]
    value: dict[str, Any] = json.loads(block)
    return value


def test_the_hooks_page_snippet_works_once_its_path_is_filled_in(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(EXAMPLE_FLEET, home / "fleet", ignore=shutil.ignore_patterns(".kb"))
    settings = _first_json_block("hooks.md")
    events = settings["hooks"]
    assert set(events) == {"SessionStart", "UserPromptSubmit", "SessionEnd"}
    for groups in events.values():
        for hook in groups[0]["hooks"]:
            assert PLACEHOLDER in hook["command"], hook
            hook["command"] = hook["command"].replace(PLACEHOLDER, KB)
    _write_json(tmp_path / "settings.json", settings)
    done = _doctor(["fleet", "--settings", str(tmp_path / "settings.json")], cwd=home, home=home)
    lines = done.stdout.splitlines()
    shown = tmp_path / "settings.json"
    assert f"ok   hook UserPromptSubmit ({shown}): kb boot ran and answered" in lines, done.stdout
    assert f"ok   hook SessionEnd ({shown}): kb capture ran and answered" in lines, done.stdout
    # resolved, never run: a doctor must not leave a daemon behind
    assert (
        f"ok   hook SessionStart ({shown}): kb daemon resolves; not run (only boot and capture are)"
        in lines
    ), done.stdout


def test_the_mcp_page_snippet_resolves_once_its_path_is_filled_in(
    example_fleet: Path, tmp_path: Path
) -> None:
    stand_in = tmp_path / "bin" / "kb"  # an executable at the filled-in path: only resolved
    stand_in.parent.mkdir()
    stand_in.write_text("#!/bin/sh\n")
    stand_in.chmod(0o755)
    config = _first_json_block("mcp.md")
    assert config["mcpServers"]["kb"]["command"] == PLACEHOLDER
    config["mcpServers"]["kb"]["command"] = str(stand_in)
    _write_json(tmp_path / ".mcp.json", config)
    _write_json(tmp_path / "empty.json", {})
    done = _doctor([str(example_fleet), "--settings", "empty.json"], cwd=tmp_path)
    assert f"ok   mcp server kb (.mcp.json): {stand_in} is found at its path" in (
        done.stdout.splitlines()
    ), done.stdout


def test_stale_names_what_kb_index_would_reread(example_fleet: Path) -> None:
    from kb.io.answering.memory import Memory
    from kb.io.notes.indexer import index_bases

    with Memory.open([str(example_fleet)]) as memory:
        before = memory.stale()
    assert "ada/knowledge/backups.md" in before  # never indexed
    assert not any(p.endswith(("/MAP.md", "/index.md")) for p in before), before  # map files
    index_bases([str(example_fleet)], include_private=False)
    note = example_fleet / "fleet" / "ada" / "knowledge" / "backups.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    with Memory.open([str(example_fleet)]) as memory:
        assert memory.stale() == ["ada/knowledge/backups.md"]
