"""`kb doctor`: whether a setup works, judged from facts kb.io.fleet.doctor gathered.

The rules, in the order the lines are printed:

- One line per check: `ok`, `FIX` (what is wrong and what to change) or `skip` (nothing of
  that kind is configured, or it is not kb's; never a fault). A closing line counts them.
  The exit status is 0 when no line says FIX, else 1.
- **kb**: the absolute path of the running kb comes first, to paste into hooks and
  `.mcp.json`, because a bare `kb` there only works where a virtual environment is active.
- **fleet**: the path must hold an agent (a `fleet/` folder of bases, or a base itself)
  and open; every warning the open gives (an unreadable alias file, a `private =` entry
  that names nothing) is a FIX.
- **index**: every file in scope must be in the text index as it is on disk now; a file
  new or changed since the last `kb index` is a FIX that names the command. A `.kb/` path
  the fleet's git repository tracks is a FIX of its own: a pull could bring an index.
- **models**: every model command `fleet.txt` names must split into words, and its program
  be a file under the fleet root, an absolute path, or a name on PATH, and be executable.
  Models are never run: a call costs time and money, and doctor runs in seconds. A command
  that came with a pull and awaits approval (kb.pure.fleet.trust) is a FIX naming `kb trust`:
  no verb runs it until then.
- **extras**: `mcp` and `ui` are ok when installed and a skip when not; a missing `mcp` is
  a FIX when `.mcp.json` starts kb.
- **hooks**: each hook command of the settings file(s). A command that is not kb's is
  skipped, never run. A kb command's program must resolve as a hook's shell resolves it:
  variables expanded, on a PATH without the active virtual environment (a runtime started
  from another shell never activated it). It is then run with a harmless payload (an empty
  prompt, a session id no session has) under a timeout, and must exit 0 and print
  something: `kb boot` prints nothing at all for a fleet it cannot open.
- **mcp**: `.mcp.json` must be a JSON object whose `mcpServers` is an object; each server
  that starts kb must resolve as a hook does (the client starts the program directly, with
  no virtual environment either). HTTP servers are named and not probed.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from itertools import pairwise

from attrs import frozen

# The roles fleet.txt may name a model command for (docs/model-commands.md; `chat` is the
# reading room's conversation runtime).
MODEL_ROLES = ("classifier", "answerer", "promoter", "reviewer", "chat")

OK, FIX, SKIP = "ok", "FIX", "skip"
EXIT_OK = 0
EXIT_FIX = 1

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_CONTROL = frozenset({"&&", "||", ";;", "|&", ";", "|", "&", "(", ")"})
_KB_MODULES = frozenset({"kb", "kb.shell.cli.main"})
_PREFIXES = frozenset({"env", "exec", "nohup"})


# -- facts ----------------------------------------------------------------------------------


@frozen
class Resolved:
    """Where a program word leads, as the thing that starts it would look it up."""

    written: str  # the program as the command writes it
    path: str | None  # the absolute path found; None when found nowhere
    how: str = ""  # "under the fleet root", "on PATH", "at its path"
    # The active virtual environment's bin folder, when only it holds the program.
    venv_bin: str | None = None
    problem: str = ""  # found but unusable: "is not executable", "is a folder"


@frozen
class ProbeRun:
    code: int | None  # None: killed at the timeout
    lines: int  # lines on stdout
    stderr: str  # the first non-blank line of stderr
    timeout_s: float


@frozen
class HookFacts:
    event: str
    command: str
    kb: bool  # the command runs kb
    resolved: Resolved | None  # None: not kb's, or the line cannot be split
    run: ProbeRun | None  # None: not run (not kb's, or it did not resolve)


@frozen
class SettingsFacts:
    shown: str  # the file, as printed
    problem: str = ""  # the file is not what a runtime reads: not JSON, `hooks` not an object
    hooks: tuple[HookFacts, ...] = ()


@frozen
class ModelFacts:
    role: str
    command: str
    resolved: Resolved | None  # None: the line is empty or cannot be split
    awaits: str = ""  # why it is not run until approved (kb.pure.fleet.trust); "" when it runs


@frozen
class ExtraFacts:
    name: str  # "mcp"
    verb: str  # "serve"
    installed: bool
    hint: str  # the one line the verb prints when the extra is missing


@frozen
class McpServerFacts:
    name: str
    kb: bool
    url: str | None  # an HTTP server's address
    resolved: Resolved | None


@frozen
class McpFacts:
    shown: str
    problem: str = ""
    servers: tuple[McpServerFacts, ...] = ()


@frozen
class FleetFacts:
    given: str
    all: bool
    problem: str = ""  # why it holds no agent or does not open
    bases: int = 0
    entries: int = 0
    stale: int = 0
    rebuilt: bool = False
    warnings: tuple[str, ...] = ()
    # The miss log every refusal writes, why it can never be written (empty when it can),
    # and how many refused questions wait beside it to be folded in.
    miss_log: str = ""
    miss_log_problem: str = ""
    miss_waiting: int = 0
    # Paths under a `.kb/` folder the fleet's git repository tracks (an index a pull could
    # plant: kb.io.notes.indexowner, docs/security.md)
    tracked_index: tuple[str, ...] = ()
    files: int = 0  # every file the fleet's bases hold, in scope


@frozen
class DaemonFacts:
    """The fleet's resident kb (kb daemon): whether one answers, and whether it is this
    kb's build (one of another build is never asked: its calls run in-process)."""

    running: bool
    same_build: bool = True
    pid: int | None = None


@frozen
class DoctorFacts:
    kb_path: str  # the running kb, as a command to paste
    fleet: FleetFacts
    models: tuple[ModelFacts, ...]
    extras: tuple[ExtraFacts, ...]
    settings: tuple[SettingsFacts, ...]  # empty: none found
    mcp: McpFacts | None  # None: no .mcp.json found
    daemon: DaemonFacts | None = None  # None: not asked (the fleet did not open)


@frozen
class Check:
    status: str  # OK, FIX or SKIP
    subject: str
    text: str


# -- reading commands -----------------------------------------------------------------------


def _shell_tokens(line: str) -> list[tuple[str, bool]] | None:
    """The words and control operators of a POSIX shell line, as (text, is_operator): quotes
    and backslashes are read as sh reads them, so a quoted `'&&'` is a word. None when a
    quote is left open. Expansions (`$HOME`) are left as written."""
    out: list[tuple[str, bool]] = []
    word: list[str] = []
    in_word = False
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                return None
            word.append(line[i + 1 : end])
            in_word, i = True, end + 1
        elif c == '"':
            i += 1
            while i < n and line[i] != '"':
                if line[i : i + 2] == "\\\n":  # a continued line
                    i += 2
                    continue
                if line[i] == "\\" and i + 1 < n and line[i + 1] in '$`"\\':
                    i += 1
                word.append(line[i])
                i += 1
            if i >= n:
                return None
            in_word, i = True, i + 1
        elif c == "\\":
            if i + 1 < n and line[i + 1] != "\n":
                word.append(line[i + 1])
                in_word = True
            i += 2
        elif c.isspace() or c in "&|;()":
            if in_word:
                out.append(("".join(word), False))
                word, in_word = [], False
            if not c.isspace():
                op = line[i : i + 2] if line[i : i + 2] in _CONTROL else c
                out.append((op, True))
                i += len(op) - 1
            i += 1
        elif c == "#" and not in_word:
            break
        else:
            word.append(c)
            in_word, i = True, i + 1
    if in_word:
        out.append(("".join(word), False))
    return out


def simple_commands(line: str) -> list[list[str]] | None:
    """A shell line's simple commands, each as its words with leading `NAME=value`
    assignments dropped; None when the line cannot be split (an unbalanced quote)."""
    tokens = _shell_tokens(line)
    if tokens is None:
        return None
    out: list[list[str]] = [[]]
    for token, operator in tokens:
        if operator:
            out.append([])
        elif out[-1] or not _ASSIGNMENT.match(token):
            out[-1].append(token)
    return [_unwrapped(words) for words in out if words]


def _unwrapped(words: list[str]) -> list[str]:
    """`env A=1 kb ...` and `exec kb ...` run `kb ...`."""
    rest = words
    while rest and _basename(rest[0]) in _PREFIXES:
        rest = rest[1:]
        while rest and (_ASSIGNMENT.match(rest[0]) or rest[0].startswith("-")):
            rest = rest[1:]
    return rest or words


def _basename(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1]


def runs_kb(words: Sequence[str]) -> bool:
    """`kb ...`, `/path/to/kb ...`, or `python -m kb ...` (any python)."""
    if not words:
        return False
    if _basename(words[0]) == "kb":
        return True
    return _basename(words[0]).startswith("python") and any(
        a == "-m" and b in _KB_MODULES for a, b in pairwise(words)
    )


def kb_command(line: str) -> list[str] | None:
    """The words of the first simple command of a shell line that runs kb, else None."""
    for words in simple_commands(line) or []:
        if runs_kb(words):
            return words
    return None


def kb_verb(words: Sequence[str]) -> str:
    """The verb a kb command line runs: the word after `kb`, or after `-m kb`."""
    rest = list(words[1:])
    if words and _basename(words[0]) != "kb" and "-m" in rest:
        rest = rest[rest.index("-m") + 2 :]
    return rest[0] if rest and not rest[0].startswith("-") else ""


# The hook verbs `kb doctor` runs once to see them answer: they read, and a probe session id
# keeps their records apart. Any other (`kb daemon start` at SessionStart) is only resolved:
# running it would start a process or change the fleet.
PROBED_VERBS = ("boot", "capture")


def probed(words: Sequence[str]) -> bool:
    """Whether `kb doctor` runs this kb hook command once (kb.io.fleet.doctor)."""
    return kb_verb(words) in PROBED_VERBS


def first_program(line: str) -> str | None:
    commands = simple_commands(line)
    return commands[0][0] if commands else None


# -- judging --------------------------------------------------------------------------------


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _fleet(facts: DoctorFacts) -> list[Check]:
    fleet = facts.fleet
    subject = f"fleet {fleet.given}"
    if fleet.problem:
        return [
            Check(FIX, subject, fleet.problem),
            Check(SKIP, "index", "the fleet did not open"),
        ]
    out = [
        Check(
            OK,
            subject,
            f"opens: {_plural(fleet.bases, 'base')}, "
            f"{_plural(fleet.entries, 'note')} a question can reach",
        )
    ]
    out += [Check(FIX, subject, w) for w in fleet.warnings]
    out += _miss_log(fleet)
    index_cmd = f"kb index {shlex.quote(fleet.given)}" + (" --all" if fleet.all else "")
    if fleet.rebuilt:
        out.append(
            Check(FIX, "index", f"an index was made by an older kb and emptied; run: {index_cmd}")
        )
    elif fleet.stale:
        files = _plural(fleet.stale, "file is", "files are")
        out.append(
            Check(FIX, "index", f"{files} new or changed since the last kb index; run: {index_cmd}")
        )
    else:
        scope = "with the private layer" if fleet.all else "without the private layer"
        out.append(Check(OK, "index", f"every file ({scope}) is indexed as it is on disk"))
    if fleet.tracked_index:
        shown = ", ".join(fleet.tracked_index[:3])
        more = f" and {len(fleet.tracked_index) - 3} more" if len(fleet.tracked_index) > 3 else ""
        out.append(
            Check(
                FIX,
                "index",
                f"git tracks {shown}{more}: .kb/ is each machine's own index, and a pull could "
                "bring one; untrack it (git rm -r --cached <base>/.kb, then commit)",
            )
        )
    return out


def _miss_log(fleet: FleetFacts) -> list[Check]:
    """Whether every refusal can be recorded: a miss log that can never be written is said
    on every refusal, and here, with what to do (issue 24, part 7)."""
    if not fleet.miss_log:
        return []
    waiting = (
        f"; {_plural(fleet.miss_waiting, 'refused question waits', 'refused questions wait')} "
        "beside it to be folded in"
        if fleet.miss_waiting
        else ""
    )
    if fleet.miss_log_problem:
        return [
            Check(
                FIX,
                "miss log",
                f"{fleet.miss_log} can never be written ({fleet.miss_log_problem}), so no "
                f"refusal is recorded{waiting}; remove what is in its place or make its "
                "folder writable, or point KB_MISSES_PATH at a file kb may write",
            )
        ]
    return [Check(OK, "miss log", f"{fleet.miss_log} can be written{waiting}")]


def _models(facts: DoctorFacts) -> list[Check]:
    if not facts.models:
        roles = ", ".join(MODEL_ROLES)
        return [Check(SKIP, "models", f"fleet.txt names no model command ({roles})")]
    out: list[Check] = []
    for m in facts.models:
        subject = f"model {m.role}"
        r = m.resolved
        if r is None:
            out.append(
                Check(FIX, subject, f"`{m.command}` cannot be split into words (a stray quote?)")
            )
        elif r.path is None:
            out.append(
                Check(
                    FIX,
                    subject,
                    f"{r.written} is neither a file under the fleet root nor a program on PATH",
                )
            )
        elif r.problem:
            fix = "; chmod +x it" if r.problem == "is not executable" else ""
            out.append(Check(FIX, subject, f"{r.written} {r.problem}{fix}"))
        elif m.awaits:
            fleet = facts.fleet.given
            out.append(
                Check(
                    FIX,
                    subject,
                    f"`{m.command}` {m.awaits}; no verb runs it until you read it (and the files "
                    f"it names) and approve it: kb trust {fleet}",
                )
            )
        else:
            out.append(Check(OK, subject, f"{r.written} is found {r.how}"))
    return out


def _mcp_starts_kb(facts: DoctorFacts) -> bool:
    return facts.mcp is not None and any(s.kb and s.url is None for s in facts.mcp.servers)


def _extras(facts: DoctorFacts) -> list[Check]:
    out: list[Check] = []
    for e in facts.extras:
        subject = f"extra {e.name}"
        if e.installed:
            out.append(Check(OK, subject, f"installed (kb {e.verb})"))
        elif e.name == "mcp" and _mcp_starts_kb(facts):
            out.append(Check(FIX, subject, f".mcp.json starts kb, but {e.hint}"))
        else:
            out.append(Check(SKIP, subject, f"not installed; {e.hint}"))
    return out


def _unresolved(r: Resolved, kb_path: str, starter: str) -> str:
    if r.venv_bin is not None:
        return (
            f"{r.written} is found only in the active virtual environment ({r.venv_bin}); "
            f"{starter} started from another shell gets `not found`. "
            f"Write the absolute path: {kb_path}"
        )
    if r.problem:
        return f"{r.written} {r.problem}. Write the absolute path: {kb_path}"
    return f"{r.written} is not found. Write the absolute path: {kb_path}"


def _hook(h: HookFacts, shown: str, kb_path: str) -> Check:
    subject = f"hook {h.event} ({shown})"
    if not h.kb:
        program = first_program(h.command)
        name = f"`{program}`" if program else "the command"
        return Check(SKIP, subject, f"{name} is not kb; not run")
    r = h.resolved
    if r is None:
        return Check(FIX, subject, f"`{h.command}` cannot be split into shell words")
    if r.path is None or r.problem:
        return Check(FIX, subject, _unresolved(r, kb_path, "a hook"))
    run = h.run
    if run is None:
        verb = kb_verb(kb_command(h.command) or [])
        if verb and verb not in PROBED_VERBS:
            return Check(OK, subject, f"kb {verb} resolves; not run (only boot and capture are)")
        return Check(SKIP, subject, "not run")
    if run.code is None:
        return Check(
            FIX,
            subject,
            f"did not finish in {run.timeout_s:g} s; a hook past its timeout adds nothing",
        )
    if run.code != 0:
        said = f": {run.stderr}" if run.stderr else ""
        return Check(FIX, subject, f"exited {run.code}{said}")
    if run.lines == 0:
        return Check(
            FIX,
            subject,
            "ran but printed nothing: kb boot is silent about a fleet it cannot open, "
            "so check the fleet path in the command",
        )
    verb = kb_verb(kb_command(h.command) or [])
    return Check(OK, subject, f"kb {verb} ran and answered" if verb else "ran and answered")


def _hooks(facts: DoctorFacts) -> list[Check]:
    if not facts.settings:
        return [
            Check(
                SKIP,
                "hooks",
                "no .claude/settings.json here or above; --settings FILE names one",
            )
        ]
    out: list[Check] = []
    for s in facts.settings:
        if s.problem:
            out.append(Check(FIX, f"hooks ({s.shown})", s.problem))
        if not s.hooks and not s.problem:
            out.append(Check(SKIP, f"hooks ({s.shown})", "no hook command"))
        out += [_hook(h, s.shown, facts.kb_path) for h in s.hooks]
    return out


def _mcp(facts: DoctorFacts) -> list[Check]:
    mcp = facts.mcp
    if mcp is None:
        return [Check(SKIP, "mcp", "no .mcp.json here or above")]
    if mcp.problem:
        return [Check(FIX, f"mcp ({mcp.shown})", mcp.problem)]
    if not mcp.servers:
        return [Check(SKIP, f"mcp ({mcp.shown})", "no server in mcpServers")]
    out: list[Check] = []
    for s in mcp.servers:
        subject = f"mcp server {s.name} ({mcp.shown})"
        if s.url is not None:
            out.append(Check(SKIP, subject, f"HTTP at {s.url}; not probed"))
        elif not s.kb or s.resolved is None:
            out.append(Check(SKIP, subject, "does not start kb; not checked"))
        elif s.resolved.path is None or s.resolved.problem:
            out.append(Check(FIX, subject, _unresolved(s.resolved, facts.kb_path, "a client")))
        else:
            out.append(Check(OK, subject, f"{s.resolved.written} is found {s.resolved.how}"))
    return out


# Past this many files a one-shot `kb route` pays noticeably for opening the fleet on every
# hook call, and `kb doctor` suggests a daemon. Measured (decision 0036, a loaded 2-core
# machine): one-shot `kb route` is about 4x `python -c pass` on the 14-file example fleet,
# 4.9x (165 ms) on til-dev's 1,871 notes and 8x at 10,000 notes; with a daemon 1.4-1.6x
# and 2.7x. Below this size the saving is tens of milliseconds per call.
DAEMON_ADVISED_FILES = 2_000


def _daemon(facts: DoctorFacts) -> list[Check]:
    d, fleet = facts.daemon, facts.fleet
    if d is None or fleet.problem:
        return []
    if d.running and not d.same_build:
        return [
            Check(
                FIX,
                "daemon",
                f"one of another kb build is running (pid {d.pid}), so every call is answered "
                f"in-process; run: kb daemon start {shlex.quote(fleet.given)}",
            )
        ]
    if d.running:
        return [
            Check(
                OK,
                "daemon",
                f"running (pid {d.pid}): route, boot, list, fleet and misses are answered by a "
                "fleet already open",
            )
        ]
    files = _plural(fleet.files, "file")
    if fleet.files < DAEMON_ADVISED_FILES:
        return [Check(OK, "daemon", f"none running, and none needed at {files}")]
    return [
        Check(
            SKIP,
            "daemon",
            f"none running; at {files} each one-shot kb route or kb boot opens the whole fleet "
            f"again. Start one (kb daemon start {shlex.quote(fleet.given)}, or in the "
            "SessionStart hook: docs/hooks.md) and each call is a socket round trip",
        )
    ]


def checks(facts: DoctorFacts) -> list[Check]:
    kb_line = Check(OK, "kb", f"{facts.kb_path} (paste this path into hooks and .mcp.json)")
    return [
        kb_line,
        *_fleet(facts),
        *_daemon(facts),
        *_models(facts),
        *_extras(facts),
        *_hooks(facts),
        *_mcp(facts),
    ]


def render(found: Sequence[Check]) -> str:
    lines = [f"{c.status:<4} {c.subject}: {c.text}" for c in found]
    fixes = sum(1 for c in found if c.status == FIX)
    oks = sum(1 for c in found if c.status == OK)
    skips = len(found) - fixes - oks
    if fixes:
        lines.append(f"{_plural(fixes, 'thing')} to fix, {oks} ok, {skips} skipped")
    else:
        lines.append(f"nothing to fix: {oks} ok, {skips} skipped")
    return "\n".join(lines) + "\n"


def exit_code(found: Sequence[Check]) -> int:
    return EXIT_FIX if any(c.status == FIX for c in found) else EXIT_OK
