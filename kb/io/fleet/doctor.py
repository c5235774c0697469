"""`kb doctor`'s facts: the fleet opened, fleet.txt's model commands looked up, the extras
probed, the settings and `.mcp.json` read, and each kb hook run once with a harmless payload.
kb.pure.fleet.doctor judges them; nothing here decides what is wrong.

Running a hook is the one act with effects, and it is made harmless: only commands that run
kb are run, with an empty prompt (`kb boot` then prints the roster and records nothing) and a
session id no session has (`kb capture` then has nothing to capture and writes nothing),
under a timeout that kills the command's whole process group.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kb.io.answering.memory import Memory, OpenError
from kb.io.fleet.extras import missing, needs_line
from kb.io.notes.walk import expand_roots, fleet_manifest, looks_like_a_base
from kb.pure.fleet.doctor import (
    MODEL_ROLES,
    DoctorFacts,
    ExtraFacts,
    FleetFacts,
    HookFacts,
    McpFacts,
    McpServerFacts,
    ModelFacts,
    ProbeRun,
    Resolved,
    SettingsFacts,
    kb_command,
    probed,
    runs_kb,
)

SETTINGS_NAMES = ("settings.json", "settings.local.json")
MCP_CONFIG = ".mcp.json"
PROBE_SESSION = "kb-doctor-probe"  # a session id no runtime mints (theirs are UUIDs)
# A runtime's own default hook timeout (Claude Code: 60 s) is used when the hook names none;
# the probe waits at most this long, since an empty prompt needs no model: `kb boot` on the
# example fleet answers it in about 0.2 s, and a cold 10,000-note fleet in a few seconds.
DEFAULT_HOOK_TIMEOUT_S = 60.0
MAX_PROBE_S = 30.0
EXTRA_VERBS = (("mcp", "serve"), ("ui", "ui"))

_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def running_kb(argv0: str | None = None) -> str:
    """The running kb as a command to paste: its script when it runs as `kb`, else the
    `kb` script beside this interpreter, else `<python> -m kb.shell.cli.main`."""
    first = sys.argv[0] if argv0 is None else argv0
    if Path(first).name == "kb" and Path(first).is_file():
        return shlex.quote(os.path.abspath(first))
    script = Path(sysconfig.get_path("scripts")) / "kb"
    if script.is_file():
        return shlex.quote(str(script))
    return f"{shlex.quote(sys.executable)} -m kb.shell.cli.main"


def _shown(path: Path, cwd: Path) -> str:
    """A path as printed: relative when it lies under the working directory."""
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


# -- looking programs up --------------------------------------------------------------------


def _venv_bin(env: Mapping[str, str]) -> str | None:
    venv = env.get("VIRTUAL_ENV", "").strip()
    return os.path.join(venv, "Scripts" if os.name == "nt" else "bin") if venv else None


def hook_path(env: Mapping[str, str]) -> str:
    """PATH as a runtime started from another shell has it: without the active venv."""
    venv = _venv_bin(env)
    parts = env.get("PATH", os.defpath).split(os.pathsep)
    if venv is None:
        return os.pathsep.join(parts)
    drop = os.path.normpath(venv)
    return os.pathsep.join(p for p in parts if os.path.normpath(p) != drop)


def _expand(word: str, env: Mapping[str, str]) -> str:
    expanded = _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), ""), word)
    if expanded.startswith("~"):
        home = env.get("HOME")
        if home and (expanded == "~" or expanded.startswith("~/")):
            expanded = home + expanded[1:]
    return expanded


def _file(path: Path, written: str, how: str) -> Resolved:
    if path.is_dir():
        return Resolved(written, str(path), how, problem="is a folder, not a program")
    if not os.access(path, os.X_OK):
        return Resolved(written, str(path), how, problem="is not executable")
    return Resolved(written, str(path), how)


def resolve_started(written: str, cwd: Path, env: Mapping[str, str]) -> Resolved:
    """A program word as a hook's shell, or an MCP client, finds it: variables expanded, a
    path taken from `cwd`, a bare name looked up on PATH without the active venv."""
    word = _expand(written, env)
    if "/" in word:
        path = Path(word) if os.path.isabs(word) else cwd / word
        if not path.exists():
            return Resolved(written, None)
        return _file(path.absolute(), written, "at its path")
    found = shutil.which(word, path=hook_path(env))
    if found is not None:
        return _file(Path(found).absolute(), written, "on PATH")
    venv = _venv_bin(env)
    if venv is not None and shutil.which(word, path=venv) is not None:
        return Resolved(written, None, venv_bin=venv)
    return Resolved(written, None)


def resolve_model(command: str, root: Path, env: Mapping[str, str]) -> Resolved | None:
    """A model command as kb.io.roles.model runs it: the fleet root first, else as given."""
    try:
        words = shlex.split(command, posix=True)
    except ValueError:
        return None
    if not words:
        return None
    program = words[0]
    under_root = root / program
    if under_root.is_file():
        return _file(under_root.absolute(), program, "under the fleet root")
    if "/" in program:  # a path, and not one under the fleet root: run as written
        path = Path(program)
        exists = path.is_absolute() and path.exists()  # a relative one starts from a scratch dir
        return _file(path, program, "at its path") if exists else Resolved(program, None)
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    return _file(Path(found), program, "on PATH") if found else Resolved(program, None)


# -- running a hook -------------------------------------------------------------------------


def probe(
    command: str, payload: str, cwd: Path, env: Mapping[str, str], timeout: float
) -> ProbeRun:
    """Run a hook command through the shell, as a runtime does, and report how it went."""
    shell = shutil.which("sh", path=env.get("PATH", os.defpath)) or "/bin/sh"
    try:
        proc = subprocess.Popen(
            [shell, "-c", command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,  # so a timeout kills everything the hook started
        )
    except OSError as e:
        return ProbeRun(127, 0, f"cannot start {shell}: {e.strerror or e}", timeout)
    try:
        out, err = proc.communicate(payload.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return ProbeRun(None, 0, "", timeout)
    first = next(
        (ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()), ""
    )
    lines = len(out.decode("utf-8", "replace").splitlines())
    return ProbeRun(proc.returncode, lines, first[:200], timeout)


# -- reading the settings and .mcp.json -----------------------------------------------------


def _upward(cwd: Path, names: Sequence[str]) -> list[Path]:
    """The named files in the first folder from `cwd` upward that holds any of them."""
    for folder in (cwd, *cwd.parents):
        found = [folder / n for n in names if (folder / n).is_file()]
        if found:
            return found
    return []


def find_settings(cwd: Path) -> list[Path]:
    return _upward(cwd, [f".claude/{n}" for n in SETTINGS_NAMES])


def find_mcp_config(cwd: Path) -> Path | None:
    found = _upward(cwd, [MCP_CONFIG])
    return found[0] if found else None


def _json_object(path: Path) -> tuple[dict[str, Any] | None, str]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        return None, f"cannot be read: {e.strerror or e}"
    except ValueError as e:  # a JSONDecodeError, or bytes that are not UTF-8
        return None, f"is not JSON: {' '.join(str(e).split())}"
    if not isinstance(value, dict):
        return None, "is not a JSON object"
    return value, ""


def _hook_entries(settings: dict[str, Any]) -> tuple[list[tuple[str, str, float]], str]:
    """(event, command, timeout) of every command hook, and the first shape problem."""
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        return [], "`hooks` is not an object of events"
    out: list[tuple[str, str, float]] = []
    problem = ""
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else [None]:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                problem = problem or f'`hooks.{event}` is not a list of {{"hooks": [...]}} groups'
                continue
            for hook in inner:
                if not isinstance(hook, dict) or hook.get("type") != "command":
                    continue
                command = hook.get("command")
                if not isinstance(command, str) or not command.strip():
                    problem = problem or f"a `{event}` hook has no command"
                    continue
                limit = hook.get("timeout")
                seconds = (
                    float(limit)
                    if isinstance(limit, int | float) and not isinstance(limit, bool) and limit > 0
                    else DEFAULT_HOOK_TIMEOUT_S
                )
                out.append((str(event), command, seconds))
    return out, problem


def _project_dir(settings_file: Path, cwd: Path) -> Path:
    """`$CLAUDE_PROJECT_DIR` for a settings file: the folder holding its `.claude/`."""
    parent = settings_file.absolute().parent
    return parent.parent if parent.name == ".claude" else cwd


def read_settings(path: Path, cwd: Path, env: Mapping[str, str]) -> SettingsFacts:
    shown = _shown(path, cwd)
    settings, problem = _json_object(path)
    if settings is None:
        return SettingsFacts(shown, problem)
    entries, problem = _hook_entries(settings)
    project = _project_dir(path, cwd)
    # The hook runs as a runtime started from another shell runs it: no venv on PATH.
    hook_env = {k: v for k, v in env.items() if k != "VIRTUAL_ENV"}
    hook_env.update(PATH=hook_path(env), CLAUDE_PROJECT_DIR=str(project))
    hooks: list[HookFacts] = []
    for event, command, seconds in entries:
        words = kb_command(command)
        if words is None:
            hooks.append(HookFacts(event, command, False, None, None))
            continue
        resolved = resolve_started(words[0], project, {**env, "CLAUDE_PROJECT_DIR": str(project)})
        run = None
        if resolved.path is not None and not resolved.problem and probed(words):
            payload = json.dumps(
                {
                    "session_id": PROBE_SESSION,
                    "prompt": "",
                    "cwd": str(project),
                    "hook_event_name": event,
                }
            )
            run = probe(command, payload, project, hook_env, min(seconds, MAX_PROBE_S))
        hooks.append(HookFacts(event, command, True, resolved, run))
    return SettingsFacts(shown, problem, tuple(hooks))


def read_mcp_config(path: Path, cwd: Path, env: Mapping[str, str]) -> McpFacts:
    shown = _shown(path, cwd)
    config, problem = _json_object(path)
    if config is None:
        return McpFacts(shown, problem)
    servers = config.get("mcpServers", {})
    if not isinstance(servers, dict):
        return McpFacts(shown, "`mcpServers` is not an object of servers")
    project = path.absolute().parent
    out: list[McpServerFacts] = []
    for name, server in servers.items():
        if not isinstance(server, dict):
            return McpFacts(shown, f"server `{name}` is not an object")
        url = server.get("url")
        if isinstance(url, str) and "command" not in server:
            out.append(McpServerFacts(str(name), False, url, None))
            continue
        command = server.get("command")
        args = server.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            return McpFacts(shown, f"server `{name}`: `args` is not a list of strings")
        if not isinstance(command, str) or not command.strip():
            return McpFacts(shown, f"server `{name}` has neither a command nor a url")
        is_kb = runs_kb([command, *args])
        resolved = resolve_started(command, project, env) if is_kb else None
        out.append(McpServerFacts(str(name), is_kb, None, resolved))
    return McpFacts(shown, "", tuple(out))


# -- the fleet ------------------------------------------------------------------------------


def fleet_facts(given: str, include_private: bool) -> FleetFacts:
    if not Path(given).is_dir():
        return FleetFacts(given, include_private, f"no folder at {given}")
    # Decided from names alone, so a wrong path (a home folder) is never walked or indexed.
    if not any(looks_like_a_base(Path(r)) for r in expand_roots([given])):
        return FleetFacts(
            given,
            include_private,
            "holds no agent (no fleet/ folder of bases, no agent.txt or map file); "
            "name the fleet root, the folder with fleet.txt",
        )
    try:
        memory = Memory.open([given], all=include_private)
    except OpenError as e:
        return FleetFacts(given, include_private, str(e))
    from kb.io.logs import misslog

    log = misslog.log_path(given)
    with memory:
        return FleetFacts(
            given,
            include_private,
            bases=len(memory.bases),
            entries=memory.entry_count(),
            stale=len(memory.stale()),
            rebuilt=memory.index_was_rebuilt,
            warnings=tuple(memory.warnings()),
            miss_log=str(log),
            miss_log_problem=misslog.unwritable(log) or "",
            miss_waiting=misslog.waiting(log),
            tracked_index=tracked_index(Path(given)),
            files=sum(len(b.snapshot.files) for b in memory.bases),
        )


def tracked_index(folder: Path) -> tuple[str, ...]:
    """Paths under a `.kb/` folder that the git repository holding `folder` tracks; () in no
    repository (found without git: kb.io.fleet.gitdir), or when git cannot say."""
    from kb.io.fleet.gitdir import repository_of

    repo = repository_of(str(folder))
    if repo is None:
        return ()
    try:
        proc = subprocess.run(
            ["git", "-C", str(repo.top), "ls-files", "-z", "--", ":(glob)**/.kb/**"],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return tuple(p for p in proc.stdout.split("\0") if p) if proc.returncode == 0 else ()


def model_facts(given: str, env: Mapping[str, str]) -> tuple[ModelFacts, ...]:
    from kb.io.fleet.trust import examine  # looks only: doctor records no approval

    manifest = fleet_manifest(given)
    judged = {j.command.role: j.verdict for j in examine(Path(given), record=False).judged}
    out: list[ModelFacts] = []
    for role in MODEL_ROLES:
        command = (manifest.first(role) or "").strip()
        if command:
            verdict = judged.get(role)
            awaits = verdict.why if verdict is not None and not verdict.runs else ""
            resolved = resolve_model(command, Path(given), env)
            out.append(ModelFacts(role, command, resolved, awaits))
    return tuple(out)


def gather(
    given: str,
    settings: str | None,
    include_private: bool,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> DoctorFacts:
    here = (cwd or Path.cwd()).absolute()
    environ = dict(os.environ if env is None else env)
    files = [Path(settings)] if settings is not None else find_settings(here)
    mcp_file = find_mcp_config(here)
    return DoctorFacts(
        kb_path=running_kb(),
        fleet=fleet_facts(given, include_private),
        models=model_facts(given, environ),
        extras=tuple(
            ExtraFacts(name, verb, not missing(name), needs_line(verb, name))
            for name, verb in EXTRA_VERBS
        ),
        settings=tuple(read_settings(f, here, environ) for f in files),
        mcp=read_mcp_config(mcp_file, here, environ) if mcp_file is not None else None,
    )
