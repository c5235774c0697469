"""A model command's reply is bounded (issue 14, item 7): cut at MAX_REPLY_BYTES, never
buffered past it, and the child is stopped."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
import time
from pathlib import Path

import pytest

from kb.io.roles.model import MAX_REPLY_BYTES, SCRATCH_NAME, run_model, scratch_dir

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


# -- the model's working folder (issue 14, item 11) -------------------------------------------


def _scratch_under(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    return tmp_path / f"{SCRATCH_NAME}-{os.getuid()}"


def test_the_scratch_folder_is_this_users_own_and_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _scratch_under(tmp_path, monkeypatch)
    got = scratch_dir(tmp_path / "fleet")
    assert got == expected
    assert stat.S_IMODE(os.lstat(got).st_mode) & 0o077 == 0


def test_a_planted_link_at_the_scratch_name_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = _scratch_under(tmp_path, monkeypatch)
    elsewhere = tmp_path / "attacker"
    elsewhere.mkdir()
    planted.symlink_to(elsewhere)
    got = scratch_dir(tmp_path / "fleet")
    assert got != planted and got.resolve() != elsewhere
    assert stat.S_ISDIR(os.lstat(got).st_mode) and os.lstat(got).st_uid == os.getuid()


def test_a_world_writable_folder_at_the_scratch_name_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = _scratch_under(tmp_path, monkeypatch)
    planted.mkdir()
    planted.chmod(0o777)
    got = scratch_dir(tmp_path / "fleet")
    assert got != planted
    assert stat.S_IMODE(os.lstat(got).st_mode) & 0o077 == 0
