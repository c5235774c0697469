"""A request runs with its caller's cwd, variables and stdin, and leaves the daemon's own
behind it (kb.shell.daemon._as_caller): a variable one caller set never reaches the next
request, and one the daemon has is hidden from a caller who has it not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kb.shell.daemon import _as_caller


def _request_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("KB_") or k in ("TERM", "NO_COLOR")}


def test_a_request_sees_its_callers_variables_and_no_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [k for k in os.environ if k.startswith("KB_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("KB_DAEMONS_OWN", "daemon")
    monkeypatch.setenv("KB_SHARED", "same")
    monkeypatch.setenv("KB_CHANGED", "daemon's")
    monkeypatch.setenv("TERM", "daemon-term")
    monkeypatch.delenv("NO_COLOR", raising=False)
    before = _request_env()
    here = os.getcwd()
    caller = {"KB_SHARED": "same", "KB_CHANGED": "caller's", "KB_NEW": "1", "NO_COLOR": "1"}

    with _as_caller(str(tmp_path), caller, b"piped") as (out, _err):
        assert _request_env() == caller  # TERM too: the caller had none
        assert os.getcwd() == str(tmp_path)
        import sys

        assert sys.stdin.read() == "piped"
        print("said", end="")
        os.environ["KB_SET_BY_THE_VERB"] = "x"  # a verb's own change is undone too

    assert out.getvalue() == "said"
    assert _request_env() == before
    assert os.getcwd() == here

    with _as_caller(str(tmp_path), {}, b""):
        assert _request_env() == {}
    assert _request_env() == before


def test_the_daemons_variables_come_back_after_a_failing_verb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KB_DAEMONS_OWN", "daemon")
    before = _request_env()
    with pytest.raises(RuntimeError), _as_caller(str(tmp_path), {"KB_X": "1"}, b""):
        raise RuntimeError("the verb failed")
    assert _request_env() == before
