"""`kb route` and `kb boot` run on every prompt, `kb list` and `kb fleet` are quick looks:
their imports stay lean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# markdown_it: only the reading room renders markdown (decision 0039).
HEAVY = ("mcp", "starlette", "uvicorn", "rich", "anyio", "pydantic", "markdown_it")

PROBE = """
import sys
from kb.shell.cli.main import run
out = run(sys.argv[1:])
assert out.code == 0, out.stderr
heavy = sorted(m for m in sys.modules if m in %r or m.split('.')[0] in %r)
print(','.join(heavy))
"""


def _heavy_modules(
    args: list[str], cwd: Path, heavy: tuple[str, ...] = HEAVY, stdin: str = ""
) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE % (heavy, heavy), *args],
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
    # Issue 15: not the other verbs' inputs, nor the modules only listing, describing, JSON
    # or indexing use; each of them costs a process its attrs classes or its imports.
    assert _heavy_modules(["route", "backup restore"], example_fleet, ROUTE_UNUSED) == ""
    # A refusal is logged, and scrubbed first (issue 24); one that holds nothing any rule of
    # the scrubber needs does not import it (kb.pure.sessions.scrubgate).
    assert _heavy_modules(["route", "nothing like this at all"], example_fleet, ROUTE_UNUSED) == ""


# What a terminal `kb route` never uses: every verb's inputs (~35 ms to build), the JSON
# writer (with decimal), the listing and the fleet card, the scrubber (~35 ms of regexes),
# the blocks modules, and OpenSSL's hashlib (5 ms; an unchanged fleet hashes no file).
ROUTE_UNUSED = (
    *HEAVY,
    "cyclopts",
    "cattrs",
    "returns",
    "kb.shell.cli.inputs",
    "kb.shell.cli.bootinputs",
    "kb.shell.cli.listinputs",
    "kb.pure.render.jsonout",
    "kb.pure.fleet.listing",
    "kb.pure.fleet.fleetcard",
    "kb.pure.sessions.scrub",
    "kb.pure.sessions.blocks",
    "hashlib",
)


def test_boot_imports_nothing_heavy(example_fleet: Path) -> None:
    # boot runs on every message: besides the server stack, not even the CLI parser, the JSON
    # unstructurer or the Result library (the model runner's subprocess comes only with a
    # classifier, which the example fleet does not configure).
    heavy = (*HEAVY, "cattrs", "cyclopts", "returns")
    payload = '{"prompt": "how often should I run a backup restore test", "session_id": "s"}'
    assert _heavy_modules(["boot", "--all"], example_fleet, heavy, payload) == ""
    assert _heavy_modules(["boot"], example_fleet, heavy, "quantas luas tem jupiter") == ""
    assert _heavy_modules(["boot", "--text"], example_fleet, heavy, "") == ""


def test_boot_builds_only_what_a_routed_message_needs(example_fleet: Path) -> None:
    # Issue 15: a routed message scrubs nothing (only a refusal is written scrubbed), one
    # that stays with its agent sends no constitution, and a session without a handoff parses
    # none, so neither the scrubber (~35 ms of regexes), the blocks modules nor the handoff
    # record's are imported; nor are the other verbs' inputs.
    unused = (
        *HEAVY,
        "cattrs",
        "cyclopts",
        "returns",
        "kb.shell.cli.inputs",
        "kb.shell.cli.hotinputs",
        "kb.pure.sessions.scrub",
        # its classes; the session's file name is kb.pure.sessions.sessionname
        "kb.pure.sessions.session",
        "kb.pure.sessions.continuity",  # no handoff was saved, so none is parsed
        "kb.pure.render.jsonout",
        "kb.pure.fleet.listing",
        "kb.pure.fleet.fleetcard",
    )
    payload = '{"prompt": "how often should I run a backup restore test", "session_id": "s"}'
    assert _heavy_modules(["boot", "--all"], example_fleet, unused, payload) == ""
    staying = (
        *unused,
        "kb.pure.sessions.blocks",
        "kb.io.sessions.blockfiles",
    )  # the second message, same agent
    assert _heavy_modules(["boot", "--all"], example_fleet, staying, payload) == ""


def test_list_and_fleet_skip_the_cli_parser(example_fleet: Path) -> None:
    # Issue 15: a well-formed `kb list` or `kb fleet` is read by the small parser, so neither
    # cyclopts nor every verb's inputs are imported.
    unused = (*HEAVY, "cyclopts", "kb.shell.cli.inputs", "kb.pure.sessions.scrub")
    assert _heavy_modules(["list", "--kind", "memory"], example_fleet, unused) == ""
    assert _heavy_modules(["list", "--json"], example_fleet, unused) == ""
    assert _heavy_modules(["fleet"], example_fleet, (*unused, "kb.pure.fleet.listing")) == ""
    assert _heavy_modules(["fleet", "--json"], example_fleet, unused) == ""


# What the daemon's thin client would pay for and never needs, each measured on this path:
# typing 2.3 ms, importlib (with warnings) 0.4 ms, json 2.6 ms, re 6 ms, hashlib 3.4 ms,
# socket 2.5 ms, pathlib 3 ms (kb.client's comments); and on a question's path, the JSON
# codec, `__future__`, kb.version and the packages kb.client once sat in (decision 0058).
CLIENT_NEVER = ("typing", "importlib", "warnings", "json", "re", "hashlib", "socket", "pathlib")
QUESTION_NEVER = (*CLIENT_NEVER, "_json", "__future__", "kb.version", "kb.shell", "kb.shell.cli")


REPO = Path(__file__).resolve().parents[2]


def _modules_added(code: str) -> set[str]:
    """The modules `code` imports, run from the checkout without `site` (whose
    editable-install finder imports importlib and warnings itself), so what it adds is its
    own."""
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"
        f"{code}\n"
        "print(','.join(sorted(set(sys.modules) - before)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return set(proc.stdout.strip().split(","))


def test_the_thin_client_imports_only_what_it_needs() -> None:
    added = _modules_added(
        "from kb import client\n"
        "client.build_facts(), client.build_id(), client.socket_path('.')\n"
        "frame = client.run_frame(client.build_facts(), '/', ['route', 'q'], {'KB_X': '1'}, None)\n"
        "client.read_reply_frame(client.reply_frame({'stdout': 'a', 'stderr': '', 'code': 0}))"
    )
    assert "kb.client" in added  # the probe ran the client from the checkout
    assert sorted(added & set(QUESTION_NEVER)) == []
    # the JSON codec only for a hook's payload and `kb daemon status`
    assert "_json" in _modules_added("from kb import client\nclient.loads(client.dumps([1]))")


def test_the_installed_kb_command_is_our_script_and_imports_no_more() -> None:
    """The entry-point script pip generates imports `re` (6-7 ms of a 16 ms hook process
    answered by a daemon) before kb's client runs: kb installs scripts/kb instead (decision
    0044). The `kb` beside this interpreter is that script, and running it adds only the
    client's own modules."""
    script = REPO / "scripts" / "kb"
    installed = Path(sys.executable).with_name("kb")
    body = script.read_text(encoding="utf-8").split("\n", 1)
    assert body[0] == "#!python"  # the installer writes this environment's interpreter there
    assert installed.read_text(encoding="utf-8").split("\n", 1)[1] == body[1]
    added = _modules_added(
        f"source = open({str(script)!r}, encoding='utf-8').read()\n"
        "exec(compile(source, 'kb', 'exec'), {'__name__': 'kb_probe'})"
    )
    assert "kb.client" in added
    assert sorted(added & set(QUESTION_NEVER)) == []
