"""Running the conversation runtime for the reading room: a headless CLI, streamed.

The model-command contract (kb.io.roles.model) with the differences a conversation needs:
- the program is resolved against the fleet root the same way, and no shell ever runs;
- the working directory is the first root, not a scratch folder: the runtime is meant to
  work inside the fleet, with its hooks (`kb boot`) routing each message;
- the message goes to stdin and stdin is closed; stdout is read a line at a time as it
  arrives (decoded as UTF-8 with replacement characters); stderr is discarded;
- one deadline covers the whole run (KB_MODEL_TIMEOUT, 300 s by default). On the deadline,
  on a closed connection, or on any way out of the reader, the child's whole process group
  is killed, so nothing it started outlives the conversation.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from attrs import frozen

from kb.io.roles.model import resolve_program

LINE_LIMIT = 16 * 1024 * 1024  # a stream-json line carries whole tool results


@frozen
class Ended:
    """The run is over: None when it exited 0, else why it did not finish well."""

    reason: str | None


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError, ProcessLookupError):
        proc.kill()


async def stream(
    argv: Sequence[str], message: str, cwd: Path, timeout: float
) -> AsyncIterator[str | Ended]:
    """Each line of the runtime's stdout, then exactly one `Ended`."""
    if not argv:
        yield Ended("the chat command line is empty")
        return
    program = resolve_program(argv[0], cwd)
    try:
        proc = await asyncio.create_subprocess_exec(
            program,
            *argv[1:],
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=cwd,
            start_new_session=True,
            limit=LINE_LIMIT,
        )
    except (OSError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        yield Ended(f"could not start {program}: {reason}")
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        assert proc.stdin is not None and proc.stdout is not None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.write(message.encode("utf-8", "replace"))
            await proc.stdin.drain()
            proc.stdin.close()
            await proc.stdin.wait_closed()
        while True:
            remaining = deadline - loop.time()
            if remaining <= 0:
                yield Ended(f"the runtime did not finish within {timeout:g}s and was stopped")
                return
            try:
                line = await asyncio.wait_for(proc.stdout.readline(), remaining)
            except TimeoutError:
                yield Ended(f"the runtime did not finish within {timeout:g}s and was stopped")
                return
            except ValueError:
                yield Ended(f"the runtime wrote a line longer than {LINE_LIMIT} bytes")
                return
            if not line:
                break
            yield line.decode("utf-8", "replace")
        try:
            code = await asyncio.wait_for(proc.wait(), max(deadline - loop.time(), 0.1))
        except TimeoutError:
            yield Ended(f"the runtime did not finish within {timeout:g}s and was stopped")
            return
        if code < 0:
            yield Ended(f"the runtime was killed by signal {-code}")
        elif code:
            yield Ended(f"the runtime exited with status {code}")
        else:
            yield Ended(None)
    finally:
        # Whatever ended the reading (the deadline, the browser closing the stream, an
        # error), the runtime and everything it started go with it. No await here: this
        # may run inside a cancelled task.
        if proc.returncode is None:
            _kill_group(proc)
        # Close the pipes now, while the loop that owns them runs; left to the garbage
        # collector they would be closed on a loop that may be gone. asyncio's Process has
        # no public close, hence the private transport.
        transport = getattr(proc, "_transport", None)
        if transport is not None:
            transport.close()
