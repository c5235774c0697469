"""kb.io.roles.model.run_model through the real subprocess path, with the scripts in
tests/models/."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from kb.io.roles.model import DEFAULT_TIMEOUT_S, model_timeout, run_model, split_command

MODELS = Path(__file__).resolve().parent.parent / "models"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers signal 0; its state in /proc says it is gone
    try:
        return " Z " not in Path(f"/proc/{pid}/stat").read_text().split(")", 1)[1][:4]
    except OSError:
        return False


def test_an_answer_is_the_whole_stdout(tmp_path: Path) -> None:
    reply = run_model(str(MODELS / "classifier.py"), "THE MESSAGE:\n  backup\n", tmp_path, 30)
    assert reply.answered and reply.reason == ""
    assert "OWNER: Ada" in (reply.text or "")
    assert reply.elapsed_s > 0


def test_a_crash_did_not_answer_even_with_output(tmp_path: Path) -> None:
    reply = run_model(str(MODELS / "crash.py"), "hello", tmp_path, 30)
    assert reply.text is None
    assert reply.reason == "exit status 3"


def test_an_empty_reply_did_not_answer(tmp_path: Path) -> None:
    reply = run_model(str(MODELS / "silent.py"), "hello", tmp_path, 30)
    assert reply.text is None
    assert reply.reason == "empty reply"


def test_bytes_that_are_not_utf8_are_replaced(tmp_path: Path) -> None:
    reply = run_model(str(MODELS / "garbage.py"), "hello", tmp_path, 30)
    assert reply.text is not None
    assert reply.text.startswith("\ufffd\ufffd\ufffd(SUBJECT: backups \ufffdt\ufffd\n")
    assert "OWNER: ada" in reply.text


def test_a_model_that_never_reads_its_prompt_still_answers(tmp_path: Path) -> None:
    reply = run_model(str(MODELS / "deaf.py"), "x" * 5_000_000, tmp_path, 30)
    assert reply.answered, reply.reason


def test_a_hang_is_killed_with_its_whole_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    start = time.monotonic()
    reply = run_model(f"{MODELS / 'hang.py'} {pidfile}", "hello", tmp_path, 1.5)
    took = time.monotonic() - start
    assert reply.text is None
    assert reply.reason == "timed out after 1.5s"
    assert took < 8, took
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the model's own child outlived the timeout"


def test_a_program_that_does_not_exist_did_not_answer(tmp_path: Path) -> None:
    reply = run_model("no-such-model-anywhere --flag", "hello", tmp_path, 30)
    assert reply.text is None
    assert reply.reason.startswith("spawn failed: no-such-model-anywhere")


def test_an_unbalanced_quote_did_not_answer(tmp_path: Path) -> None:
    reply = run_model('model "unclosed', "hello", tmp_path, 30)
    assert reply.text is None
    assert reply.reason.startswith("spawn failed: the command line cannot be split")
    assert (
        run_model("   ", "hello", tmp_path, 30).reason == "spawn failed: the command line is empty"
    )


def test_the_program_resolves_against_the_fleet_root_and_runs_in_a_scratch_dir(
    tmp_path: Path,
) -> None:
    root = tmp_path / "my fleet"
    (root / "models").mkdir(parents=True)
    shutil.copy(MODELS / "echo.py", root / "models" / "echo.py")
    reply = run_model('models/echo.py "two words" \'single\' a\\ b ""', "12345", root, 30)
    assert reply.text is not None, reply.reason
    cwd, argv, size = reply.text.splitlines()
    assert Path(cwd) == Path(tempfile.gettempdir()) / f"kb-model-cwd-{os.getuid()}"
    assert not Path(cwd).resolve().is_relative_to(root.resolve())
    assert argv == repr(["two words", "single", "a b", ""])
    assert size == "5"


def test_no_shell_ever_runs_the_command(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    reply = run_model(f"{MODELS / 'echo.py'} ; touch {marker}", "x", tmp_path, 30)
    assert reply.text is not None
    assert "';', 'touch'" in reply.text
    assert not marker.exists()


def test_split_is_posix_shell_words() -> None:
    assert split_command("a \"b c\" d\\ e 'f g'") == ["a", "b c", "d e", "f g"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", DEFAULT_TIMEOUT_S),
        ("2", 2.0),
        (" 0.5 ", 0.5),
        ("0", DEFAULT_TIMEOUT_S),
        ("-3", DEFAULT_TIMEOUT_S),
        ("abc", DEFAULT_TIMEOUT_S),
        ("nan", DEFAULT_TIMEOUT_S),
        ("inf", DEFAULT_TIMEOUT_S),
    ],
)
def test_model_timeout_reads_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: float
) -> None:
    monkeypatch.setenv("KB_MODEL_TIMEOUT", value)
    assert model_timeout() == expected
