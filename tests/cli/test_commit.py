"""`kb commit` against a real temporary git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import RunKb


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "kb@example.invalid")
    git(root, "config", "user.name", "kb tests")
    (root / "a.md").write_text("a\n")
    (root / "b.md").write_text("b\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


def test_only_named_paths_land_and_staged_work_stays_staged(repo: Path, kb: RunKb) -> None:
    (repo / "a.md").write_text("a changed\n")
    (repo / "b.md").write_text("b changed by another session\n")
    git(repo, "add", "b.md")  # someone else's staged work
    (repo / "notes").mkdir()
    (repo / "notes" / "new.md").write_text("new\n")
    out = kb(["commit", "a.md", "notes", "-m", "update a and add a note"], cwd=repo)
    assert out.code == 0, out.stderr
    landed = git(repo, "show", "--pretty=", "--name-only", "HEAD").split()
    assert sorted(landed) == ["a.md", "notes/new.md"]
    assert git(repo, "log", "-1", "--pretty=%s").strip() == "update a and add a note"
    sha = git(repo, "rev-parse", "--short", "HEAD").strip()
    assert out.stdout == (
        f"committed {sha}\n  a.md\n  notes/new.md\n\nleft untouched, still dirty (1):\n  b.md\n"
    )
    assert git(repo, "diff", "--cached", "--name-only").split() == ["b.md"]


def test_clean_report_when_nothing_else_is_dirty(repo: Path, kb: RunKb) -> None:
    (repo / "a.md").write_text("a2\n")
    out = kb(["commit", str(repo / "a.md"), "-m", "a2"], cwd=repo.parent)
    assert out.code == 0, out.stderr
    assert out.stdout.endswith("\n\nnothing else was dirty in this repository.\n")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["commit", "-m", "msg"], "commit needs the paths it should commit"),
        (["commit", "a.md"], "commit needs a message, with -m"),
        (["commit", "a.md", "-m", "   "], "commit needs a message, with -m"),
        (["commit", "a.md", "-m", "nothing changed"], "none of those paths has changes"),
    ],
)
def test_refusals(repo: Path, kb: RunKb, args: list[str], fragment: str) -> None:
    head = git(repo, "rev-parse", "HEAD")
    out = kb(args, cwd=repo)
    assert out.code == 1
    assert fragment in out.stderr
    assert out.stderr.count("\n") == 1
    assert git(repo, "rev-parse", "HEAD") == head


def test_two_repositories_are_refused(repo: Path, tmp_path: Path, kb: RunKb) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    (other / "c.md").write_text("c\n")
    (repo / "a.md").write_text("changed\n")
    out = kb(["commit", str(repo / "a.md"), str(other / "c.md"), "-m", "both"], cwd=tmp_path)
    assert out.code == 1
    assert "two different repositories" in out.stderr


def test_outside_a_repository(tmp_path: Path, kb: RunKb) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "x.md").write_text("x\n")
    out = kb(["commit", str(loose / "x.md"), "-m", "x"], cwd=tmp_path)
    assert out.code == 1
    assert "is not inside a git repository" in out.stderr
