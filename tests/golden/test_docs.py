"""The docs show what kb prints (issue 26): every shell and Python block of docs/quickstart.md
and the README runs against a fresh copy of the example fleet, and the lines the docs show
are the lines kb prints. A change of wording or score fails here until the docs follow.

How a page's blocks are read:
- a ```sh block is commands, run one by one in one shell session (a `cd` carries over); if
  the next block is an untyped one, it is what the commands print;
- an untyped block whose first line starts with `$ ` holds commands (`$ ...`) each followed
  by what it prints;
- a ```python block is run with this interpreter; an untyped block right after it is what
  it prints;
- in shown output, `...` stands for any text (the docs shorten long JSON with it), and
  every date is compared as a date, since the miss log stamps today's.
- The setup lines of a page (making a virtual environment, `pip install`) are not run: the
  test runs in this checkout's environment. The README's install block runs in CI's
  newcomer test (tests/newcomer/newcomer.sh) and its test command in .ci/run: a test below
  holds both to what those scripts run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```(\w*)\s*$")
SETUP = re.compile(r"^(python3? -m venv |\. \.venv/bin/activate|pip install )")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def blocks(page: Path) -> list[tuple[str, list[str]]]:
    """(info string, lines) of every fenced block, in page order."""
    out: list[tuple[str, list[str]]] = []
    inside: list[str] | None = None
    kind = ""
    for line in page.read_text(encoding="utf-8").splitlines():
        fence = FENCE.match(line)
        if fence and inside is None:
            inside, kind = [], fence.group(1)
        elif line.strip() == "```" and inside is not None:
            out.append((kind, inside))
            inside = None
        elif inside is not None:
            inside.append(line)
    return out


def steps(page: Path) -> list[tuple[str, str, list[str] | None]]:
    """(kind, code, the output the page shows or None) for every runnable block."""
    found = blocks(page)
    out: list[tuple[str, str, list[str] | None]] = []
    i = 0
    while i < len(found):
        kind, lines = found[i]
        following = found[i + 1] if i + 1 < len(found) else None
        untyped = following is not None and following[0] == "" and not _dollar(following)
        shown = following[1] if following is not None and untyped else None
        if kind in ("sh", "python"):
            out.append((kind, "\n".join(lines), shown))
            i += 2 if shown is not None else 1
            continue
        if kind == "" and _dollar(found[i]):
            command: str | None = None
            printed: list[str] = []
            for line in lines:
                if line.startswith("$ "):
                    if command is not None:
                        out.append(("sh", command, printed))
                    command, printed = line[2:], []
                else:
                    printed.append(line)
            if command is not None:
                out.append(("sh", command, printed))
        i += 1
    return out


def _dollar(block: tuple[str, list[str]]) -> bool:
    return bool(block[1]) and block[1][0].startswith("$ ")


def _matches(shown: list[str], printed: str) -> bool:
    want = DATE.sub("DATE", "\n".join(shown).rstrip())
    got = DATE.sub("DATE", printed.rstrip())
    pattern = ".*".join(re.escape(part) for part in want.split("..."))
    return re.fullmatch(pattern, got, re.DOTALL) is not None


class Session:
    """One shell session per page: commands run in bash with kb on PATH, the working
    folder carried from one block to the next."""

    def __init__(self, cwd: Path, replace: dict[str, str]) -> None:
        self.cwd = cwd
        self.replace = replace
        bindir = str(Path(sys.executable).parent)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
        self.env["PATH"] = bindir + os.pathsep + self.env.get("PATH", "")
        self.env["COLUMNS"] = "100"

    def _code(self, code: str) -> str:
        for old, new in self.replace.items():
            code = code.replace(old, new)
        return code

    def sh(self, code: str) -> str:
        lines = [ln for ln in self._code(code).splitlines() if ln and not SETUP.match(ln)]
        script = "set -e\n" + "\n".join(lines) + f'\npwd > "{self.cwd}/.docs-cwd"\n'
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{code}\nexit {done.returncode}\n{done.stderr}"
        marker = self.cwd / ".docs-cwd"
        self.cwd = Path(marker.read_text(encoding="utf-8").strip())
        marker.unlink()
        return done.stdout

    def python(self, code: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", self._code(code)],
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{code}\nexit {done.returncode}\n{done.stderr}"
        return done.stdout


def _run_page(page: Path, session: Session) -> list[str]:
    failures: list[str] = []
    for kind, code, shown in steps(page):
        printed = session.python(code) if kind == "python" else session.sh(code)
        if shown is not None and not _matches(shown, printed):
            page_shows = "\n".join(shown)
            failures.append(
                f"--- {code}\n--- the page shows:\n{page_shows}\n--- kb printed:\n{printed}"
            )
    return failures


def test_every_block_of_the_quickstart_prints_what_it_shows(tmp_path: Path) -> None:
    harbor = tmp_path / "harbor"
    # the page copies the example fleet to /tmp/harbor from the checkout's top folder
    session = Session(REPO, {"/tmp/harbor": str(harbor)})
    failures = _run_page(REPO / "docs" / "quickstart.md", session)
    assert not failures, "\n\n".join(failures)
    assert not (REPO / "examples" / "fleet" / "kb-misses.txt").exists()


def test_every_readme_block_runs(tmp_path: Path) -> None:
    """The README's first block is the newcomer test's (it makes ../harbor); here a copy of
    the example fleet stands at ../harbor, and every other block but the test command runs."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(REPO / "examples", work / "examples")
    session = Session(work, {})
    found = steps(REPO / "README.md")
    _install, tests, *rest = found
    session.sh("cp -r examples/fleet ../harbor && kb index ../harbor")
    for kind, code, shown in rest:
        printed = session.python(code) if kind == "python" else session.sh(code)
        assert shown is None or _matches(shown, printed), (code, printed)
    assert "python -m pytest" in tests[1]


def test_ci_runs_the_readme_s_install_and_test_commands() -> None:
    install, tests, *_ = steps(REPO / "README.md")
    newcomer = (REPO / "tests" / "newcomer" / "newcomer.sh").read_text(encoding="utf-8")
    assert "first ```sh block" in newcomer and "pip install ." in install[1]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    command = tests[1].split("&&")[-1].strip()  # `python -m pytest -n auto`
    assert command.split()[:3] == ["python", "-m", "pytest"]
    assert "python -m pytest" in ci and "-n auto" in ci


@pytest.mark.parametrize("page", ["quickstart.md"])
def test_the_reader_finds_the_pages_blocks(page: str) -> None:
    """The test above would pass on a page it cannot read: it must find the blocks."""
    found = steps(REPO / "docs" / page)
    assert sum(1 for kind, _, _ in found if kind == "python") >= 1
    assert sum(1 for _, _, shown in found if shown) >= 6


@pytest.mark.parametrize("page", ["security.md", "testing.md"])
def test_every_test_a_page_names_as_holding_a_promise_exists(page: str) -> None:
    """docs/security.md and docs/testing.md cite tests by name: a renamed or deleted test
    must not leave a promise held by nothing."""
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    named = set(re.findall(r"`(test_[a-z0-9_]+)`", text))
    defined: set[str] = set()
    for path in (REPO / "tests").rglob("test_*.py"):
        defined |= set(
            re.findall(r"^(?:async )?def (test_[a-z0-9_]+)", path.read_text(encoding="utf-8"), re.M)
        )
    assert named, page
    assert sorted(named - defined) == []


def test_every_variable_kb_reads_is_on_the_environment_page() -> None:
    """docs/environment.md says it names every variable kb reads: each `KB_...` name in
    kb/'s source has a row there (a daemon switch and a progress switch had none)."""
    read = {
        name
        for path in (REPO / "kb").rglob("*.py")
        for name in re.findall(r"[\"'](KB_[A-Z_]+)[\"']", path.read_text(encoding="utf-8"))
    }
    page = (REPO / "docs" / "environment.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `(KB_[A-Z_]+)` \|", page, re.M))
    assert read, "no variable found: the pattern no longer matches kb's source"
    assert sorted(read - rows) == []
