"""Issue 14, items 1-3: privacy is judged on what a path really is, links never leave a
base, and a `private =` line that names nothing keeps the defaults and is reported."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.shell.cli.main import run

REPO = Path(__file__).resolve().parents[2]
# Words only the private contract holds (the question asks for it by name, and names are
# echoed back: the asker's own words are not a leak).
MARKERS = ("Logistics", "retainer", "99.5%", "records/", "sixty days")


@pytest.fixture
def fleet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KB_MISSES_PATH", str(tmp_path / "misses.txt"))
    root = tmp_path / "root"
    shutil.copytree(REPO / "examples" / "fleet", root, ignore=shutil.ignore_patterns(".kb"))
    return root


def _served(root: Path, question: str = "quillfeather contract penalty") -> str:
    """What every read surface shows without --all, joined."""
    assert run(["index", str(root)]).code == 0
    parts = [
        run(["route", question, str(root), "--json"]).stdout,
        run(["route", question, str(root), "--hybrid", "--context"]).stdout,
        run(["list", str(root), "--json"]).stdout,
        run(["remember", question, str(root), "--json"]).stdout,
    ]
    # The question is echoed back by design: the asker's own words are not a leak.
    return "\n".join(parts).replace(question, "<question>")


def _assert_hidden(text: str) -> None:
    for marker in MARKERS:
        assert marker not in text, f"{marker!r} leaked:\n{text[:2000]}"


def test_a_folder_link_to_records_is_private_by_what_it_is(fleet: Path) -> None:
    ada = fleet / "fleet" / "ada"
    os.symlink("records", ada / "zzz")  # walked before records/ by name
    _assert_hidden(_served(fleet))
    shown = run(["list", str(fleet), "--all", "--json"]).stdout
    rows = [r for r in json.loads(shown) if "quillfeather" in r["path"]]
    assert rows and all(r["private"] for r in rows)  # with --all: there, and private


def test_a_file_link_into_records_is_private(fleet: Path) -> None:
    knowledge = fleet / "fleet" / "ada" / "knowledge"
    os.symlink("../records/quillfeather-contract.md", knowledge / "contract-link.md")
    _assert_hidden(_served(fleet))


def test_a_hard_link_to_a_private_file_is_private(fleet: Path) -> None:
    ada = fleet / "fleet" / "ada"
    os.link(ada / "records" / "quillfeather-contract.md", ada / "knowledge" / "hard.md")
    _assert_hidden(_served(fleet))


def test_the_person_base_is_private_under_any_name(fleet: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.move(str(fleet / "fleet" / "person"), elsewhere / "person")
    os.symlink(elsewhere / "person", fleet / "fleet" / "me")
    person_words = (elsewhere / "person" / "work.md").read_text(encoding="utf-8")
    served = _served(fleet, "work")
    assert "work.md" not in served, served[:2000]
    assert person_words.splitlines()[0] not in served


def test_a_link_out_of_the_base_is_never_read(fleet: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Secret\n\n**Search for:** zanzibar\n\nzanzibar launch codes\n")
    knowledge = fleet / "fleet" / "clara" / "knowledge"
    os.symlink(outside, knowledge / "env.md")
    os.symlink(tmp_path, knowledge / "up")  # a folder link out of the base, too
    index = run(["index", str(fleet)])
    assert index.code == 0
    assert "clara/knowledge/env.md" in index.stdout and "outside this base" in index.stdout
    assert "clara/knowledge/up" in index.stdout
    out = run(["route", "zanzibar", str(fleet), "--hybrid", "--all"]).stdout
    assert "launch codes" not in out and "env.md" not in out
    check = run(["check", str(fleet)]).stdout
    assert "env.md" in check and "outside this base" in check


@pytest.mark.parametrize("line", ["./records", "/records", "records/*", "records/", "records"])
def test_every_spelling_of_a_folder_names_it(fleet: Path, line: str) -> None:
    (fleet / "fleet" / "ada" / "agent.txt").write_text(f"name = Ada\nprivate = {line}\n")
    _assert_hidden(_served(fleet))
    assert "E10" not in run(["check", str(fleet)]).stdout


@pytest.mark.parametrize("line", ["recrods", "./secret"])
def test_a_private_line_naming_nothing_keeps_the_defaults_and_says_so(
    fleet: Path, line: str
) -> None:
    (fleet / "fleet" / "ada" / "agent.txt").write_text(f"name = Ada\nprivate = {line}\n")
    _assert_hidden(_served(fleet))
    route = run(["route", "quillfeather", str(fleet)])
    assert "names no folder in this base" in route.stderr
    assert route.stderr.count("\n") == 1
    check = run(["check", str(fleet)])
    assert check.code == 1 and "E10" in check.stdout
    assert "names no folder in this base" in run(["index", str(fleet)]).stderr


@pytest.mark.parametrize("line", ["Records", "RECORDS", "rеcords"])  # the last: a Cyrillic е
def test_a_private_line_spelled_otherwise_names_the_folder_people_see_and_says_so(
    fleet: Path, line: str
) -> None:
    # Issue 24, part 3: names are compared as people see them. `Records` names `records/`
    # (it is no longer E10, which kept the defaults and hid what the line meant), and every
    # verb that opens the base says the two are spelled apart (W10 in `kb check`).
    (fleet / "fleet" / "ada" / "agent.txt").write_text(f"name = Ada\nprivate = {line}\n")
    _assert_hidden(_served(fleet))
    route = run(["route", "quillfeather", str(fleet)])
    assert "kept private as" in route.stderr and "records/" in route.stderr
    assert route.stderr.count("\n") == 1
    check = run(["check", str(fleet)])
    assert "W10" in check.stdout and "E10" not in check.stdout
    assert "kept private as" in run(["index", str(fleet)]).stderr


# -- the same rule as a property: any mix of links to the private layer, under any names ------

LINK_KINDS = ("folder-symlink", "file-symlink", "hard-link", "renamed-person")
link_names = st.from_regex(r"[a-z]{1,8}", fullmatch=True).filter(
    lambda n: n not in {"records", "knowledge", "inbox", "skills", "tools", "person"}
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(LINK_KINDS), link_names), min_size=1, max_size=4))
def test_no_link_layout_serves_the_private_layer(links: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(REPO / "examples" / "fleet", root, ignore=shutil.ignore_patterns(".kb"))
        ada = root / "fleet" / "ada"
        contract = ada / "records" / "quillfeather-contract.md"
        for kind, name in links:
            target = ada / "knowledge" / f"{name}.md"
            if kind == "folder-symlink" and not (ada / name).exists():
                os.symlink("records", ada / name)
            elif kind == "file-symlink" and not target.exists():
                os.symlink(contract, target)
            elif kind == "hard-link" and not target.exists():
                os.link(contract, target)
            elif kind == "renamed-person" and (root / "fleet" / "person").is_dir():
                away = Path(tmp) / "away"
                away.mkdir(exist_ok=True)
                shutil.move(str(root / "fleet" / "person"), away / "person")
                os.symlink(away / "person", root / "fleet" / name)
        old = os.environ.get("KB_MISSES_PATH")
        os.environ["KB_MISSES_PATH"] = str(Path(tmp) / "misses.txt")
        try:
            served = _served(root)
            served += _served(root, "freelance working hours")
        finally:
            if old is None:
                os.environ.pop("KB_MISSES_PATH", None)
            else:
                os.environ["KB_MISSES_PATH"] = old
        _assert_hidden(served)
        assert "freelance platform consultant" not in served  # the person base's own words
