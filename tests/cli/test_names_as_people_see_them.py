"""Issue 24, part 3: private folder names are compared as people see them (Unicode form, letter
case, Cyrillic and Greek look-alikes), and every verb that opens the base says so, `kb serve`
and `kb ui` included. Regression tests for F17 and F18, over real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import unicodedata
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLE_FLEET, _copy
from tests.ui.server import kb_ui

NFC = unicodedata.normalize("NFC", "résumé")
NFD = unicodedata.normalize("NFD", "résumé")
MARKER = "zqcvmarker"
CV = (
    f"# Curriculum {MARKER}\n\n**Search for:** curriculum, {MARKER}\n\nthe {MARKER} career so far\n"
)
CONTRACT_WORDS = ("Logistics", "retainer", "99.5%", "sixty days")
CYRILLIC_RECORDS = "r\u0435cords"  # a Cyrillic е


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["KB_MISSES_PATH"] = str(tmp / "misses.txt")
    return env


def _kb(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", *args],
        env=_env(tmp),
        capture_output=True,
        text=True,
        timeout=120,
    )


class Served:
    """`kb serve` over stdio, its stderr drained as it comes."""

    def __init__(self, fleet: Path, tmp: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kb.shell.cli.main", "serve", str(fleet)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(tmp),
        )
        self.said: list[str] = []
        self._drain = threading.Thread(
            target=lambda: self.said.extend(self.proc.stderr or ()), daemon=True
        )
        self._drain.start()
        self._id = 0

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._id += 1
        message = {
            "jsonrpc": "2.0",
            "id": self._id,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline()

    def stderr(self) -> str:
        return "".join(self.said)

    def close(self) -> None:
        self.proc.communicate(timeout=60)
        self._drain.join(timeout=10)


@contextmanager
def served(fleet: Path, tmp: Path) -> Iterator[Served]:
    s = Served(fleet, tmp)
    try:
        yield s
    finally:
        s.close()


def _every_surface(fleet: Path, tmp: Path, question: str) -> tuple[str, str, str]:
    """(what every surface answers, what the CLI verbs said on stderr, what kb serve and
    kb ui said on stderr) without --all."""
    out, cli_err = [], []
    for args in (
        ["route", question, str(fleet), "--json"],
        ["route", question, str(fleet), "--context"],
        ["list", str(fleet), "--json"],
        ["fleet", str(fleet)],
    ):
        done = _kb(tmp, *args)
        out.append(done.stdout)
        cli_err.append(done.stderr)
    with served(fleet, tmp) as s:
        out.append(s.call("kb_route", {"question": question}))
        out.append(s.call("kb_list", {}))
        out.append(s.call("kb_retrieve", {"question": question}))
    room_err = s.stderr()
    with kb_ui([str(fleet)], {"KB_MISSES_PATH": str(tmp / "misses.txt")}) as ui:
        for path in ("/api/stacks", "/api/route?q=" + urllib.parse.quote(question)):
            out.append(ui.get(path)[2].decode("utf-8", "replace"))
        ui.proc.terminate()
        ui.proc.wait(timeout=30)
        # read through the same buffered stream that read the first line (communicate would
        # read the pipe beneath it and miss what that stream already holds)
        assert ui.proc.stderr is not None
        room_err += ui.first_line + ui.proc.stderr.read()
    return "\n".join(out).replace(question, "<q>"), "".join(cli_err), room_err


def _agent(fleet: Path, line: str | None) -> Path:
    ada = fleet / "fleet" / "ada"
    text = "name = Ada\n" + (f"{line}\n" if line is not None else "")
    (ada / "agent.txt").write_text(text, encoding="utf-8")
    return ada


@pytest.mark.parametrize(("declared", "on_disk"), [(NFD, NFC), (NFC, NFD)])
def test_a_private_folder_declared_in_another_unicode_form_is_private(
    tmp_path: Path, declared: str, on_disk: str
) -> None:
    # F17: `private = résumé` written in NFD with the folder in NFC (or the reverse) served
    # the folder, and kb check called it E10.
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    ada = _agent(fleet, f"private = {declared}")
    (ada / on_disk).mkdir()
    (ada / on_disk / "cv.md").write_text(CV, encoding="utf-8")
    answers, _, _ = _every_surface(fleet, tmp_path, "curriculum career")
    assert MARKER not in answers, answers[:2000]
    check = _kb(tmp_path, "check", str(fleet))
    assert "E10" not in check.stdout and "W10" not in check.stdout  # one spelling, no warning


def test_a_private_line_naming_nothing_is_warned_about_by_serve_and_ui(tmp_path: Path) -> None:
    # F17: kb check said E10, but kb serve and kb ui printed no warning.
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    _agent(fleet, "private = recrods")
    answers, cli_err, room_err = _every_surface(fleet, tmp_path, "quillfeather contract")
    for word in CONTRACT_WORDS:
        assert word not in answers
    assert cli_err.count("names no folder in this base") == 4  # route twice, list, fleet
    assert "kb serve: ada/agent.txt: private `recrods` names no folder" in room_err
    assert "kb ui: ada/agent.txt: private `recrods` names no folder" in room_err


@pytest.mark.parametrize("look_alike", ["Records", "RECORDS", CYRILLIC_RECORDS, "rec0rds"])
def test_a_look_alike_of_records_is_private_and_warned_about_everywhere(
    tmp_path: Path, look_alike: str
) -> None:
    # F18: `Records/` and a Cyrillic `rеcords/` were served, with no warning.
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    ada = fleet / "fleet" / "ada"
    os.rename(ada / "records", ada / look_alike)
    answers, cli_err, room_err = _every_surface(fleet, tmp_path, "quillfeather contract penalty")
    for word in CONTRACT_WORDS:
        assert word not in answers, (word, answers[:2000])
    assert "quillfeather-contract.md" not in answers
    said = f"the folder `{look_alike}/` is kept private as `records`"
    assert cli_err.count(said) == 4
    assert f"kb serve: ada: {said}" in room_err and f"kb ui: ada: {said}" in room_err
    assert "W10" in _kb(tmp_path, "check", str(fleet)).stdout


@pytest.mark.parametrize("look_alike", ["Records", CYRILLIC_RECORDS])
def test_renaming_records_while_serve_runs_never_serves_the_contract(
    tmp_path: Path, look_alike: str
) -> None:
    # F18: renaming records/ while kb serve ran made the contract a `hit` at once.
    fleet = _copy(EXAMPLE_FLEET, tmp_path / "fleet")
    assert _kb(tmp_path, "index", str(fleet), "--all").returncode == 0  # its chunks are there
    ada = fleet / "fleet" / "ada"
    question = {"question": "quillfeather contract penalty"}
    with served(fleet, tmp_path) as s:
        before = s.call("kb_route", question)
        os.rename(ada / "records", ada / look_alike)
        answers = [before]
        deadline = time.monotonic() + 5
        said = f"the folder `{look_alike}/` is kept private as `records`"
        while time.monotonic() < deadline:
            answers.append(s.call("kb_route", question))
            answers.append(s.call("kb_retrieve", question))
            if said in s.stderr() and len(answers) > 20:
                break
            time.sleep(0.05)
        answers.append(s.call("kb_list", {}))
    joined = "\n".join(answers)
    for word in CONTRACT_WORDS:
        assert word not in joined, (word, joined[:2000])
    assert "verdict:  hit" not in joined
    assert said in s.stderr()  # the re-open said what it found
