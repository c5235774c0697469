"""`kb`'s entry point: hand a hot verb to the fleet's resident kb, else run it in-process.

A hook runs `kb route` or `kb boot` on every prompt. With a daemon (`kb daemon start`,
kb.shell.daemon) holding the fleet open, this process only has to find the socket, send
the request and print the reply: the standard library alone, no cyclopts, attrs or sqlite3
(a test holds that, by `sys.modules`). With no daemon, a stale one, one of another build,
any socket error or any argument this module does not read plainly, it runs the ordinary
CLI, kb.shell.cli.main, exactly as before: the answer is the same either way (decision
0036).

The names and the checks of the per-user socket directory live here too, because the
client must compute them before anything heavy is imported.

It sits at the package's top, not in kb.shell.cli, and has no `from __future__` import:
each package on the way and `__future__` itself is a module every hook process loads
(decision 0058).
"""

import _socket  # `socket` itself adds selectors and array: 2.5 ms of this budget
import os
import stat
import sys

# No `typing`, `collections.abc` or `pathlib` at run time: 3 ms of this process's budget
# (mypy reads any name TYPE_CHECKING as true). Annotations naming them are quoted.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn

# The verbs a daemon answers: each opens the fleet read-only and returns text.
DAEMON_VERBS = ("route", "boot", "list", "fleet", "misses")
# Flags each verb takes, those followed by a value apart; anything else falls back.
_VALUE_FLAGS = {
    "route": ("--top", "--context-chars", "--context-total"),
    "boot": ("--top", "--session", "--cwd"),
    "list": ("--base", "--folder", "--kind", "--stage", "--provenance", "--where", "--sort"),
    "fleet": (),
    "misses": ("--top",),
}
_BOOL_FLAGS = {
    "route": ("--hybrid", "--json", "--all", "--exit-code", "--context"),
    "boot": ("--all", "--text"),
    "list": ("--json", "--all"),
    "fleet": ("--all", "--json"),
    "misses": ("--all", "--json"),
}
# The environment a verb's output depends on (the miss log's place, test switches); the rest
# of the caller's environment never reaches the daemon.
_ENV_PREFIX = "KB_"
_ENV_NAMES = ("NO_COLOR", "TERM")
# Variables that change how kb behaves at import time or what a daemon may do: a request
# carrying one is answered in-process.
_ENV_IN_PROCESS = ("KB_CRASH_AT", "KB_TEST_ENTROPY_SEED")
NO_DAEMON_ENV = "KB_NO_DAEMON"  # `KB_NO_DAEMON=1 kb route ...`: never ask a daemon
# Set on a request sent to the daemon of a folder above the caller's (`socket_above`): one
# that does not hold the fleet the verb opens sends it back to be answered in-process.
ABOVE_ENV = "KB_DAEMON_ASKED_ABOVE"
DIR_ENV = "KB_DAEMON_DIR"  # where the sockets are, instead of the per-user runtime dir
# Connecting to a live socket takes well under a millisecond; a daemon that does not accept
# in this long is wedged, and the question is answered in-process instead.
CONNECT_TIMEOUT_S = 0.5
# A reply slower than this (a cold open of 100,000 notes took 2.5 s) means a wedged daemon.
REPLY_TIMEOUT_S = 60.0


# `daemon = auto` in fleet.txt: a call that finds no daemon starts one in the background
# (and is answered in-process meanwhile). Off by default: a resident process is the user's
# choice, not kb's.
AUTO_KEY, AUTO_VALUE = "daemon", "auto"
# One background start per fleet in this long: the hooks of one burst of prompts start one
# daemon, not one each (a start takes under a second; a second start while the first daemon
# is still coming up would take it for a wedged one and replace it).
AUTO_START_GAP_S = 10.0


# JSON through the C codec the json package itself calls, without importing the package:
# json costs this process 2.6 ms (and json.decoder imports re, 6 ms more where nothing else
# has). Only `kb boot` (its hook payload) and `kb daemon status` read or write JSON here:
# `_json` is loaded on their first use, and a question travels as a frame (`run_frame`).


class _Strict:
    """What the C scanner reads its rules from: json.loads's defaults, NaN refused."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> "Any":
        raise ValueError(f"{name} is not JSON")


def _refuse(value: object) -> "Any":
    raise TypeError(f"{type(value).__name__} is not JSON")


_codec: "list[Any]" = []  # the scanner and the encoder, made on first use
_BLANK = " \t\n\r"


def _json_codec() -> "list[Any]":
    if not _codec:
        import _json

        # typeshed names the scanner class as its own argument; any object with these rules
        # serves
        _codec.append(_json.make_scanner(_Strict()))  # type: ignore[arg-type]
        _codec.append(
            _json.make_encoder(
                None, _refuse, _json.encode_basestring_ascii, None, ":", ",", False, False, False
            )
        )
    return _codec


def dumps(value: "Any") -> str:
    """`json.dumps(value, separators=(",", ":"), allow_nan=False)`."""
    return "".join(_json_codec()[1](value, 0))


def loads(text: str) -> "Any":
    """`json.loads(text)`: one JSON value, else ValueError."""
    start = len(text) - len(text.lstrip(_BLANK))
    try:
        value, end = _json_codec()[0](text, start)
    except StopIteration:
        raise ValueError("not a JSON value") from None
    if text[end:].strip(_BLANK):
        raise ValueError("more after the JSON value")
    return value


# -- the frames a question and its answer travel in (decision 0058) -----------------------
#
# A request: RUN_MAGIC, then NUL-ended fields (the build, the cwd, how many arguments and
# each one, how many variables and each name and value, `+` or `-` for stdin given or not),
# then stdin's bytes to the end. Nothing the system passes a process can hold a NUL, so no
# field needs escaping, and the bytes are the process's own (`os.fsencode`: what it was
# given, undecodable bytes included). A reply: REPLY_MAGIC, the code and stdout's length in
# bytes on its first line, then stdout and stderr; FALLBACK_MAGIC and a reason instead means
# "answer this in-process". Text is UTF-8 with lone surrogates passed through, so any str a
# verb printed arrives as it was.
RUN_MAGIC = b"kb-run/1\0"
REPLY_MAGIC = b"kb-reply/1 "
FALLBACK_MAGIC = b"kb-fallback/1 "
TEXT_ERRORS = "surrogatepass"


def run_frame(
    build: str, cwd: str, argv: "Sequence[str]", env: "dict[str, str]", stdin: bytes | None
) -> bytes:
    """A request to run `argv` as this caller would."""
    fields = [os.fsencode(build), os.fsencode(cwd), b"%d" % len(argv)]
    fields += [os.fsencode(a) for a in argv]
    fields.append(b"%d" % len(env))
    for name, value in env.items():
        fields += (os.fsencode(name), os.fsencode(value))
    fields.append(b"-" if stdin is None else b"+")
    return RUN_MAGIC + b"\0".join(fields) + b"\0" + (stdin or b"")


def read_run_frame(data: bytes) -> "dict[str, Any]":
    """`run_frame`'s request as the daemon's JSON request would hold it: op, build, argv,
    cwd, env, and stdin as latin-1 text (one code point a byte) or None. ValueError for
    anything else."""
    if not data.startswith(RUN_MAGIC):
        raise ValueError("not a run frame")
    at = len(RUN_MAGIC)

    def field() -> bytes:
        nonlocal at
        end = data.index(b"\0", at)
        value, at = data[at:end], end + 1
        return value

    build, cwd = os.fsdecode(field()), os.fsdecode(field())
    argv = [os.fsdecode(field()) for _ in range(int(field()))]
    env = {}
    for _ in range(int(field())):
        name = os.fsdecode(field())
        env[name] = os.fsdecode(field())
    given = field()
    if given not in (b"+", b"-"):
        raise ValueError("no stdin mark")
    stdin = data[at:].decode("latin-1") if given == b"+" else None
    if given == b"-" and at != len(data):
        raise ValueError("more after the frame")
    return {"op": "run", "build": build, "argv": argv, "cwd": cwd, "env": env, "stdin": stdin}


def reply_frame(reply: "dict[str, Any]") -> bytes:
    """The daemon's reply to a run frame: the answer, or where it has none (`fallback`), the
    reason to answer in-process."""
    if "fallback" in reply:
        return FALLBACK_MAGIC + str(reply["fallback"]).encode("utf-8", TEXT_ERRORS)
    out = str(reply["stdout"]).encode("utf-8", TEXT_ERRORS)
    err = str(reply["stderr"]).encode("utf-8", TEXT_ERRORS)
    return REPLY_MAGIC + b"%d %d\n" % (int(reply["code"]), len(out)) + out + err


def read_reply_frame(data: bytes) -> "dict[str, Any] | None":
    """`reply_frame`'s answer (stdout, stderr, code), or None: a fallback, or anything else."""
    if not data.startswith(REPLY_MAGIC):
        return None
    line, nl, rest = data[len(REPLY_MAGIC) :].partition(b"\n")
    parts = line.split(b" ")
    if not nl or len(parts) != 2 or not all(p.lstrip(b"-").isdigit() for p in parts):
        return None
    code, size = int(parts[0]), int(parts[1])
    if not 0 <= size <= len(rest):
        return None
    try:
        out = rest[:size].decode("utf-8", TEXT_ERRORS)
        err = rest[size:].decode("utf-8", TEXT_ERRORS)
    except UnicodeDecodeError:
        return None
    return {"stdout": out, "stderr": err, "code": code}


class DirRefused(Exception):
    """The socket directory is not this user's alone."""


def runtime_dir() -> str:
    """The directory of this user's daemon sockets: $KB_DAEMON_DIR, else $XDG_RUNTIME_DIR/kb
    (a per-user tmpfs on systemd machines), else /tmp/kb-<uid>."""
    given = os.environ.get(DIR_ENV, "").strip()
    if given:
        return given
    xdg = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if xdg and os.path.isdir(xdg):
        return os.path.join(xdg, "kb")
    return f"/tmp/kb-{os.geteuid()}"


def checked_dir(path: str, create: bool) -> str:
    """`path` when it is a real directory of this user that no one else may write in;
    created 0700 when missing and `create`. Raises DirRefused or OSError otherwise."""
    if create:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), 0o700, exist_ok=True)
            os.makedirs(path, 0o700, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise DirRefused(f"{path} is not a directory")
    if st.st_uid != os.geteuid():
        raise DirRefused(f"{path} belongs to uid {st.st_uid}, not to this user")
    if st.st_mode & 0o022:
        raise DirRefused(f"{path} is writable by others (mode {stat.S_IMODE(st.st_mode):o})")
    return path


def _fnv(data: bytes) -> str:
    """64-bit FNV-1a, twice (two offsets): a stable name with no import. hashlib alone cost
    this process 3.4 ms, a tenth of its budget. A collision would only make two fleets share
    a daemon's socket name, and a daemon answers a fleet it does not hold as a one-shot kb
    would (kb.shell.daemon.Warm), so it costs speed, never an answer."""
    out = []
    for h in (0xCBF29CE484222325, 0x84222325CBF29CE4):
        for byte in data:
            h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        out.append(f"{h:016x}")
    return "".join(out)


def fleet_id(root: str) -> str:
    """The name of a fleet's daemon files: a hash of the fleet root's real path."""
    return _fnv(os.fsencode(os.path.realpath(root)))[:20]


def socket_path(root: str, directory: str | None = None) -> str:
    return os.path.join(directory or runtime_dir(), f"{fleet_id(root)}.sock")


def build_facts() -> str:
    """What makes this kb this kb, as a daemon compares it with its own: the stat of the
    package's folders and of the files holding its version and its release's build sha (a
    reinstall, an upgrade or an edit that saves by rename changes one), and KB_TEST_BUILD, a
    test's stand-in for another release (tests/daemon). Six stats, no import and no file
    read: the client computes it on every call."""
    package = os.path.dirname(__file__)
    parts = [os.environ.get("KB_TEST_BUILD", "")]
    for sub in ("", "io", "pure", "shell", "version.py", "_build.py"):
        try:
            st = os.stat(os.path.join(package, sub))
        except OSError:
            parts.append("-")
            continue
        parts.append(f"{st.st_mtime_ns}:{st.st_ino}:{st.st_size}")
    return "|".join(parts)


def build_id() -> str:
    """`build_facts` as a short name: what `kb daemon status` and `kb doctor` compare."""
    return _fnv(build_facts().encode())[:16]


class NotOurs(OSError):
    """The process behind a socket is not this user's."""


def _server_uid(s: _socket.socket) -> int | None:
    """The uid of the process that listens on `s` (Linux's SO_PEERCRED: pid, uid, gid as
    native ints), or None where the system has no such option."""
    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return None
    cred = s.getsockopt(_socket.SOL_SOCKET, option, 12)
    return int.from_bytes(cred[4:8], sys.byteorder)


def send(path: str, data: bytes, timeout: float = REPLY_TIMEOUT_S) -> bytes:
    """Send `data`, read everything the other end writes back. Raises OSError, and NotOurs
    before anything is sent when the listening process is another user's: what a daemon
    prints reaches a hook, and from there a model, so only this user's kb may speak for kb
    (the daemon checks its callers the same way)."""
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        s.settimeout(CONNECT_TIMEOUT_S)
        s.connect(path)
        uid = _server_uid(s)
        if uid is not None and uid != os.geteuid():
            raise NotOurs(f"the process behind {path} runs as uid {uid}")
        s.settimeout(timeout)
        s.sendall(data)
        s.shutdown(_socket.SHUT_WR)
        return receive(s)
    finally:
        s.close()


def receive(s: _socket.socket, json_line: bool = False) -> bytes:
    """What the other end sends until it shuts its side; with `json_line`, a request that
    starts as JSON ends at its newline (the daemon's reading of a `status` or `stop`)."""
    chunks: list[bytes] = []
    while True:
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        if json_line and chunk.endswith(b"\n") and chunks[0][:1] == b"{":
            break
    return b"".join(chunks)


def exchange(path: str, request: "dict[str, Any]", timeout: float = REPLY_TIMEOUT_S) -> "Any":
    """Send one JSON line, read one JSON line back (`kb daemon status` and `stop`). Raises
    OSError (NotOurs among them) or ValueError."""
    return loads(send(path, dumps(request).encode() + b"\n", timeout).decode("utf-8"))


def _root(verb: str, args: "Sequence[str]", stdin: bytes | None) -> str | None:
    """The fleet root the verb would open, read as the verb reads it; None for anything
    unusual (that call runs in-process, which words every error)."""
    values, bools = _VALUE_FLAGS[verb], _BOOL_FLAGS[verb]
    positionals: list[str] = []
    flags: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in values:
            if i + 1 >= len(args) or args[i + 1].startswith("-"):
                return None
            flags[arg] = args[i + 1]
            i += 2
            continue
        if arg.startswith("-"):
            if arg not in bools:
                return None
        else:
            positionals.append(arg)
        i += 1
    if verb == "route":
        if not positionals:
            return None
        positionals = positionals[1:]
    if len(positionals) > 1:
        return None
    if positionals:
        return positionals[0]
    if verb != "boot":
        return "."
    if flags.get("--cwd", "").strip():
        return flags["--cwd"].strip()
    if "--text" in args or stdin is None:
        return "."
    try:
        payload = loads(stdin.decode("utf-8"))
    except ValueError:
        return "."
    given = payload.get("cwd") if isinstance(payload, dict) else None
    return given if isinstance(given, str) and given.strip() else "."


def wants_daemon(root: str) -> bool:
    """Whether the fleet at `root` asks for a daemon (`daemon = auto` in its fleet.txt, read
    by the manifest's rules: `#` starts a comment, the first `=` splits key from value)."""
    try:
        with open(os.path.join(root, "fleet.txt"), encoding="utf-8", errors="replace") as fh:
            text = fh.read(1 << 16)
    except OSError:
        return False
    for raw in text.split("\n"):
        key, eq, value = raw.split("#", 1)[0].partition("=")
        if eq and key.strip() == AUTO_KEY and value.strip().lower() == AUTO_VALUE:
            return True
    return False


def _start_in_background(root: str, directory: str) -> None:
    """`kb daemon start root` as a process of its own, not waited for; at most one per
    fleet per AUTO_START_GAP_S (a marker file beside the socket, created exclusively)."""
    import time

    try:
        checked_dir(directory, create=True)
        marker = os.path.join(directory, f"{fleet_id(root)}.starting")
        try:
            if time.time() - os.stat(marker).st_mtime < AUTO_START_GAP_S:
                return
            os.unlink(marker)
        except FileNotFoundError:
            pass
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except (DirRefused, OSError):
        return
    import subprocess

    subprocess.Popen(
        [sys.executable, "-m", "kb.client", "daemon", "start", root],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def socket_above(root: str, directory: str) -> str | None:
    """The socket of a daemon started for a folder above `root`, the nearest first, or
    None. Run from `fleet/ada/knowledge`, kb opens the fleet around it
    (kb.io.notes.walk.enclosing_root), which the daemon started at the fleet's root holds:
    without this, every call from an agent's own folder was answered in-process. The call
    is marked (ABOVE_ENV): a daemon that does not hold the fleet the verb opens sends it
    back (kb.shell.daemon.Outside), so a wrong guess costs a round trip, never an answer."""
    try:
        present = set(os.listdir(directory))
    except OSError:
        return None
    here = os.path.realpath(root)
    while True:
        up = os.path.dirname(here)
        if up == here:
            return None
        here = up
        name = f"{_fnv(os.fsencode(here))[:20]}.sock"  # fleet_id of a path already real
        if name in present:
            return os.path.join(directory, name)


def _env() -> "dict[str, str]":
    """The variables a request carries, as this process has them. By name first:
    `os.environ` decodes each value it hands out, and most are not wanted."""
    environ = os.environ
    return {k: environ[k] for k in environ if k.startswith(_ENV_PREFIX) or k in _ENV_NAMES}


def ask_daemon(argv: "Sequence[str]") -> "dict[str, Any] | None":
    """The daemon's reply to `kb argv...` (stdout, stderr, code), or None to run in-process."""
    if not argv or argv[0] not in DAEMON_VERBS or os.environ.get(NO_DAEMON_ENV) == "1":
        return None
    env = _env()
    if any(name in env for name in _ENV_IN_PROCESS):
        return None
    stdin: bytes | None = None
    if argv[0] == "boot":
        if sys.stdin is None or sys.stdin.isatty():
            return None
        try:
            stdin = sys.stdin.buffer.read()
        except (OSError, ValueError, AttributeError):
            return None
    root = _root(argv[0], argv[1:], stdin)
    if root is None:
        _restore(stdin)
        return None
    try:
        # A socket folder another user could write in may hold anyone's socket: never ask
        # through it (kb daemon start refuses to make one there, with the reason).
        directory = checked_dir(runtime_dir(), create=False)
    except FileNotFoundError:  # no daemon has run yet for this user
        if wants_daemon(root):
            _start_in_background(root, runtime_dir())
        _restore(stdin)
        return None
    except (DirRefused, OSError):
        _restore(stdin)
        return None
    frame = run_frame(build_facts(), os.getcwd(), argv, env, stdin)
    try:
        try:
            data = send(socket_path(root, directory), frame)
        except (FileNotFoundError, ConnectionRefusedError):  # none running for this folder
            above = socket_above(root, directory)
            if above is None:
                raise
            # one started for the fleet around it, told so
            env[ABOVE_ENV] = "1"
            data = send(above, run_frame(build_facts(), os.getcwd(), argv, env, stdin))
    except (FileNotFoundError, ConnectionRefusedError):  # none running for it either
        if wants_daemon(root):
            _start_in_background(root, directory)
        _restore(stdin)
        return None
    except OSError:
        _restore(stdin)
        return None
    reply = read_reply_frame(data)
    if reply is None:  # a fallback, another build's daemon, a wedged or dying one
        _restore(stdin)
    return reply


def _restore(stdin: bytes | None) -> None:
    """Falling back after stdin was read: the verb reads it again from memory."""
    if stdin is not None:
        import io

        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    return None


def _print(reply: "dict[str, Any]") -> int:
    """Print the daemon's answer as the verb would have; its exit code."""
    try:
        if reply["stdout"]:
            sys.stdout.write(reply["stdout"])
            sys.stdout.flush()
    except BrokenPipeError:
        pass  # as kb.shell.cli.main: a reader that stopped early is not an error of ours
    if reply["stderr"]:
        sys.stderr.write(reply["stderr"])
    return int(reply["code"])


def main() -> int:
    """`kb argv...`: the daemon's answer printed, else the verb run in-process; the code."""
    reply = ask_daemon(sys.argv[1:])
    if reply is None:
        from kb.shell.cli.main import main as in_process

        return in_process()
    return _print(reply)


def run() -> "NoReturn":
    """The `kb` command as a process: `main`, ending the process with its code.

    A process the daemon answered ends as soon as its answer is out (`os._exit`): it holds
    no file, lock or handler that needs the interpreter's finalization, which cost 1.2 ms a
    process here, a seventh of `python -c pass` and most of what an answered hook had left
    over its budget (decision 0060). An in-process answer ends the ordinary way: the CLI's
    databases and handlers close as they always have."""
    reply = ask_daemon(sys.argv[1:])
    if reply is None:
        from kb.shell.cli.main import main as in_process

        raise SystemExit(in_process())
    code = _print(reply)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass  # a closed, broken or absent stream: the interpreter's own flush skips it too
    os._exit(code & 0xFF)


if __name__ == "__main__":
    run()
