#!/usr/bin/env python3
"""A deterministic reviewer for `kb promote`, `kb ingest` and `kb consolidate`.

Usage (as the `reviewer =` command line): reviewer.py MODE [--log FILE] [--pid FILE]

The lens is read from the prompt's `YOUR ONE QUESTION:` line. MODE:
  accept        every lens accepts
  refuse:LENS   that lens rejects (naming itself), the others accept
  noverdict     a reason but no verdict line
  crash         a well-formed accept, then exit 3 (did not answer)
  garbage       bytes that are not UTF-8 around a verdict the decoder cannot keep whole
  hang          never answers: starts a sleeping child and sleeps (the timeout's test)
  sleep:S       sleeps S seconds, then accepts (time to kill the run mid-review)
With --log FILE every prompt is appended to FILE followed by `=== END PROMPT ===`; with
--pid FILE the reviewer's pid (and a hanging reviewer's child's pid) are appended to FILE.
"""

import os
import subprocess
import sys
import time

END = "=== END PROMPT ==="


def arg(name: str) -> str | None:
    if name in sys.argv:
        i = sys.argv.index(name)
        return sys.argv[i + 1] if i + 1 < len(sys.argv) else None
    return None


def lens_of(prompt: str) -> str:
    question = next(
        (ln for ln in prompt.split("\n") if ln.startswith("YOUR ONE QUESTION:")), ""
    ).lower()
    if "belong to this agent" in question:
        return "scope"
    if "already held" in question:
        return "duplication"
    return "contradiction"


def note_pid(pid: int) -> None:
    path = arg("--pid")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{pid}\n")


def main() -> int:
    mode = sys.argv[1]
    note_pid(os.getpid())
    prompt = sys.stdin.buffer.read().decode("utf-8", "replace")
    log = arg("--log")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(prompt + END + "\n")
    lens = lens_of(prompt)
    accept = f"VERDICT: accept\nREASON: the {lens} reader found nothing against it.\n"
    if mode == "accept":
        sys.stdout.write(accept)
    elif mode.startswith("refuse:"):
        if lens == mode[7:]:
            sys.stdout.write(f"**VERDICT:** Reject\nREASON: the {lens} reader refuses it.\n")
        else:
            sys.stdout.write(accept)
    elif mode == "noverdict":
        sys.stdout.write("I have looked at it carefully.\nREASON: it seems fine to me.\n")
    elif mode == "crash":
        sys.stdout.write(accept)
        return 3
    elif mode == "garbage":
        sys.stdout.buffer.write(b"\xff\xfe VERDICT: accept\nREASON: caf\xe9 is fine\n")
    elif mode == "hang":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        note_pid(child.pid)
        time.sleep(600)
    elif mode.startswith("sleep:"):
        time.sleep(float(mode[6:]))
        sys.stdout.write(accept)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
