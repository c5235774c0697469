"""Running a model command named in fleet.txt: one process contract for every role.

The classifier, answerer, promoter and reviewer are all run the same way:
- A command fleet.txt names that came with a pull and was not approved on this machine
  (`kb trust`, kb.io.fleet.trust) is not run at all: it "did not answer", and the reason says
  it awaits approval.
- The command line is split into shell words (POSIX rules, `shlex.split`); no shell ever
  runs it, so a `;` or a `$()` in fleet.txt is an argument, not a second command.
- The program is looked up under the fleet root first (`<root>/<program>` when that is a
  file), else run as given (an absolute path, or a name found on PATH).
- The working directory is an empty scratch folder outside the fleet, this user's own
  (`<tempdir>/kb-model-cwd-<uid>`, 0700, owner checked; the fleet root if none can be
  made). Measured upstream, a model CLI started inside a fleet of 11,510 files took 47.4 s
  against 11.5 s in an empty folder: it indexes whatever directory it starts in.
- The prompt goes to stdin, never into an argument; stderr is discarded; stdout is decoded
  as UTF-8 with replacement characters.
- A non-zero exit, a timeout, an empty reply or a failure to start all mean "did not
  answer". On timeout the child's whole process group is killed, so a wrapper script does
  not leave its model running.
- The reply is read up to `MAX_REPLY_BYTES`; past that the child's group is killed and the
  reply kept so far is the answer, marked `cut` (measured before: an answerer printing 1 GB
  drove `kb answer` to 2.96 GB of memory). Nothing is buffered beyond the bound.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import signal
import stat
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

from attrs import frozen

DEFAULT_TIMEOUT_S = 300.0
TIMEOUT_ENV = "KB_MODEL_TIMEOUT"
SCRATCH_NAME = "kb-model-cwd"
REAP_S = 5.0  # after the kill, how long to wait for the process to be reaped
# A model reply past this is cut: the longest real answer, classification or review is a few
# KB, and a whole-book promotion proposal is well under 1 MiB.
MAX_REPLY_BYTES = 1024 * 1024
READ_CHUNK = 64 * 1024


@frozen
class ModelReply:
    """What one model call produced: its reply, or None and why it did not answer."""

    text: str | None
    reason: str  # "" when it answered
    elapsed_s: float
    cut: bool = False  # the reply passed MAX_REPLY_BYTES and was cut there

    @property
    def answered(self) -> bool:
        return self.text is not None


def model_timeout(default: float = DEFAULT_TIMEOUT_S) -> float:
    """Seconds a model call may take: `KB_MODEL_TIMEOUT` when it is a positive number."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value > 0 and value == value and value != float("inf") else default


def split_command(command_line: str) -> list[str]:
    """The command as argv; ValueError for an unbalanced quote."""
    return shlex.split(command_line, comments=False, posix=True)


def resolve_program(program: str, fleet_root: Path) -> str:
    candidate = fleet_root / program
    if candidate.is_file():
        return str(candidate.absolute())
    return program


def scratch_dir(fleet_root: Path) -> Path:
    """An empty folder of this user's own to run models in: `<tempdir>/kb-model-cwd-<uid>`,
    mode 0700, used only when it is a real folder (not a link) owned by this user; anyone
    else's folder at that name (planted in a shared /tmp) is refused for a fresh one."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    path = Path(tempfile.gettempdir()) / f"{SCRATCH_NAME}-{uid}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(path)
        if stat.S_ISDIR(st.st_mode) and st.st_uid == uid and not st.st_mode & 0o022:
            return path
        return Path(tempfile.mkdtemp(prefix=f"{SCRATCH_NAME}-"))
    except OSError:
        return fleet_root


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()


def run_model(command_line: str, prompt: str, fleet_root: Path, timeout: float) -> ModelReply:
    start = time.monotonic()

    def failed(reason: str) -> ModelReply:
        return ModelReply(None, reason, time.monotonic() - start)

    # A command that came with a pull is not run until this machine's user approves it.
    from kb.io.fleet.trust import refusal

    unapproved = refusal(command_line, fleet_root)
    if unapproved is not None:
        return failed(unapproved)

    try:
        argv = split_command(command_line)
    except ValueError as e:
        return failed(f"spawn failed: the command line cannot be split ({e})")
    if not argv:
        return failed("spawn failed: the command line is empty")
    argv[0] = resolve_program(argv[0], fleet_root)
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=scratch_dir(fleet_root),
            start_new_session=True,
        )
    except (OSError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        return failed(f"spawn failed: {argv[0]}: {reason}")
    try:
        out, cut = _exchange(proc, prompt.encode("utf-8", "replace"), timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        # Never read again after the kill: a grandchild that left the group could hold the
        # pipe open forever. Close it and reap the child.
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=REAP_S)
        return failed(f"timed out after {timeout:g}s")
    except OSError as e:
        _kill_group(proc)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=REAP_S)
        return failed(f"could not talk to it: {e.strerror or e}")
    if cut:
        _kill_group(proc)
        with contextlib.suppress(OSError):
            if proc.stdout is not None:
                proc.stdout.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=REAP_S)
        text = out.decode("utf-8", errors="replace")
        return ModelReply(text, "", time.monotonic() - start, cut=True)
    if proc.returncode < 0:
        return failed(f"killed by signal {-proc.returncode}")
    if proc.returncode != 0:
        return failed(f"exit status {proc.returncode}")
    text = out.decode("utf-8", errors="replace")
    if not text.strip():
        return failed("empty reply")
    return ModelReply(text, "", time.monotonic() - start)


def _feed(pipe: IO[bytes] | None, data: bytes) -> None:
    """Write the prompt and close stdin; a child that stops reading is not an error."""
    if pipe is None:
        return
    with contextlib.suppress(OSError):
        pipe.write(data)
    with contextlib.suppress(OSError):
        pipe.close()


def _exchange(proc: subprocess.Popen[bytes], data: bytes, timeout: float) -> tuple[bytes, bool]:
    """Send `data`, read the reply until EOF and the child's exit, at most `MAX_REPLY_BYTES`
    of it. Returns (reply, cut); raises TimeoutExpired past `timeout` seconds."""
    deadline = time.monotonic() + timeout
    writer = threading.Thread(target=_feed, args=(proc.stdin, data), daemon=True)
    writer.start()
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    chunks: list[bytes] = []
    size = 0
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise subprocess.TimeoutExpired(proc.args, timeout)
            if not sel.select(remaining):
                continue
            chunk = os.read(fd, READ_CHUNK)
            if not chunk:
                break
            keep = chunk[: MAX_REPLY_BYTES - size]
            chunks.append(keep)
            size += len(keep)
            if size >= MAX_REPLY_BYTES:
                return b"".join(chunks), True
    proc.wait(timeout=max(deadline - time.monotonic(), 0.001))
    writer.join(timeout=REAP_S)
    return b"".join(chunks), False
