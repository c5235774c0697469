"""A model command's reply is bounded (issue 14, item 7): cut at MAX_REPLY_BYTES, never
buffered past it, and the child is stopped."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from kb.io.model import MAX_REPLY_BYTES, run_model

FLOOD = """
import sys
sys.stdin.read()
chunk = b"x" * (1 << 20)
try:
    for _ in range(1024):  # 1 GiB, far past the bound
        sys.stdout.buffer.write(chunk)
except BrokenPipeError:
    pass
"""


def test_a_flooding_model_is_cut_at_the_bound(tmp_path: Path) -> None:
    script = tmp_path / "flood.py"
    script.write_text(FLOOD, encoding="utf-8")
    start = time.monotonic()
    reply = run_model(f"{sys.executable} {script}", "question", tmp_path, 60)
    assert reply.answered and reply.cut
    assert reply.text is not None and len(reply.text.encode()) == MAX_REPLY_BYTES
    assert time.monotonic() - start < 30  # stopped at the bound, not read to the end


def test_an_ordinary_reply_is_whole_and_not_cut(tmp_path: Path) -> None:
    script = tmp_path / "echo.py"
    script.write_text("import sys\nprint('answer: ' + sys.stdin.read())\n", encoding="utf-8")
    reply = run_model(f"{sys.executable} {script}", "hello", tmp_path, 60)
    assert reply.text == "answer: hello\n" and not reply.cut
