"""Shared fixtures: copies of the fleets (tests never write into the source tree or into
../shared, which CI mounts read-only) and a runner for the real `kb` process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent
SHARED_DEMO = REPO.parent / "shared" / "fixtures" / "ulpia-demo"
EXAMPLE_FLEET = REPO / "examples" / "fleet"
GOLDEN = REPO / "tests" / "golden" / "files"
UPDATE_GOLDEN = os.environ.get("KB_UPDATE_GOLDEN") == "1"

# Hypothesis profiles. `ci` is loaded here, before the Hypothesis plugin reads
# `--hypothesis-profile`, so `make fuzz` (`--hypothesis-profile=nightly`) can still replace it.
# Tests that pin `max_examples` keep their own figure; the fuzz suite (tests/fuzz) never
# pins it, so the nightly profile takes it past 100,000 generated inputs in all.
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=_QUIET)
settings.register_profile(
    "nightly", max_examples=10_000, deadline=None, suppress_health_check=_QUIET
)
settings.load_profile("ci")


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".kb", "kb-misses.txt*"))
    for p in dst.rglob("*"):  # a read-only source stays writable in the copy, and a program
        p.chmod(0o755 if p.is_dir() or p.stat().st_mode & 0o111 else 0o644)  # (a model) runs
    return dst


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The base roots walked (kb.io.notes.walk.discover) from here on, in order."""
    from kb.io.notes import walk

    walked: list[str] = []
    real = walk.discover

    def counted(given: str, include_private: bool) -> walk.BaseSnapshot:
        walked.append(given)
        return real(given, include_private)

    monkeypatch.setattr(walk, "discover", counted)
    return walked


@pytest.fixture
def demo_fleet(tmp_path: Path) -> Path:
    if not SHARED_DEMO.is_dir():
        pytest.skip("../shared/fixtures/ulpia-demo is not present in this checkout")
    return _copy(SHARED_DEMO, tmp_path / "ulpia-demo")


@pytest.fixture
def example_fleet(tmp_path: Path) -> Path:
    return _copy(EXAMPLE_FLEET, tmp_path / "fleet")


class Result:
    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.code = proc.returncode


RunKb = Callable[..., Result]


@pytest.fixture
def kb(tmp_path: Path) -> RunKb:
    """Run the real `kb` as a subprocess; the miss log goes to a scratch file by default."""

    def run(
        args: Sequence[str],
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
    ) -> Result:
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
        full_env.update(env or {})
        proc = subprocess.run(
            [sys.executable, "-m", "kb.shell.cli.main", *args],
            cwd=cwd or tmp_path,
            env=full_env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return Result(proc)

    return run


def _today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def check_golden(name: str, text: str) -> None:
    """Compare `text` with tests/golden/files/<name>; KB_UPDATE_GOLDEN=1 rewrites it."""
    path = GOLDEN / name
    text = text.replace(_today(), "<DATE>")  # the miss log's date is the only clock output
    if UPDATE_GOLDEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path}; run with KB_UPDATE_GOLDEN=1 and review the diff"
    assert text == path.read_text(encoding="utf-8"), f"output differs from golden {name}"


# -- skips are reported, and CI fails on one it does not expect (issue 25) ------------------
# With KB_SKIP_REPORT=<file>, every skipped test is written there as `nodeid<TAB>reason`;
# .ci/run then fails when a reason is not one tests/allowed-skips.txt names.
_SKIPPED: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _SKIPPED.append(f"{report.nodeid}\t{reason.removeprefix('Skipped: ')}")


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get("KB_SKIP_REPORT")
    if target and not hasattr(session.config, "workerinput"):  # the controller, under xdist
        Path(target).write_text("".join(f"{line}\n" for line in _SKIPPED), encoding="utf-8")
