"""Running a document extractor for `kb ingest` (`tools/extract/{ext}.cmd`, or `pdftotext`):
argv only, never a shell; stdout is the text, stderr is kept for the error line; a timeout
kills the extractor's whole process group, as a model command's would be."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess

from attrs import frozen

REAP_S = 5.0


@frozen
class Ran:
    stdout: bytes
    stderr: str
    status: int


@frozen
class SpawnFailed:
    reason: str


@frozen
class TimedOut:
    seconds: float


def which(program: str) -> str | None:
    return shutil.which(program)


def run(argv: list[str], timeout: float) -> Ran | SpawnFailed | TimedOut:
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except (OSError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        return SpawnFailed(reason)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            proc.kill()
        for pipe in (proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=REAP_S)
        return TimedOut(timeout)
    return Ran(out, err.decode("utf-8", "replace"), proc.returncode)
