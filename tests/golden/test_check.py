"""Golden files for `kb check` on its two fixture fleets and on the example fleet.

tests/fixtures/check-fleet trips every check code at least once (see the docstring of
kb.pure.writing.checks for the table); tests/fixtures/check-clean is a fleet `kb check` calls clean.
Both are copied to a scratch directory first, so a run that wrote anything would be caught
by `test_check_writes_nothing` and could never dirty the source tree.

Regenerate only on purpose: KB_UPDATE_GOLDEN=1 python -m pytest tests/golden/test_check.py,
then review the diff.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, RunKb, check_golden

FIXTURES = REPO / "tests" / "fixtures"
# Every live code; E03, E07 and W02 are retired.
ERRORS = ("E01", "E02", "E04", "E05", "E06", "E08", "E09", "E10")
WARNINGS = ("W01", "W03", "W04", "W05", "W06", "W07", "W08", "W09")


def _copy(name: str, tmp_path: Path) -> Path:
    dst = tmp_path / name
    shutil.copytree(FIXTURES / name, dst)
    return dst


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


CASES: list[tuple[str, str, list[str], int]] = [
    ("check-fleet", "check/fleet.txt", [], 1),
    ("check-fleet", "check/fleet-all.txt", ["--all"], 1),
    ("check-fleet", "check/fleet-strict.txt", ["--strict"], 1),
    ("check-clean", "check/clean.txt", [], 0),
    ("check-clean", "check/clean-all.txt", ["--all"], 0),
    ("check-clean", "check/clean-strict.txt", ["--strict"], 0),
    ("check-fleet", "check/fleet.json", ["--json"], 1),
    ("check-fleet", "check/fleet-all-strict.json", ["--all", "--strict", "--json"], 1),
    ("check-clean", "check/clean-strict.json", ["--strict", "--json"], 0),
]


@pytest.mark.parametrize(("fixture", "golden", "flags", "code"), CASES, ids=[c[1] for c in CASES])
def test_check_output(
    tmp_path: Path, kb: RunKb, fixture: str, golden: str, flags: list[str], code: int
) -> None:
    root = _copy(fixture, tmp_path)
    out = kb(["check", *flags], cwd=root)
    assert out.stderr == ""
    assert out.code == code
    check_golden(golden, out.stdout)


def test_the_trip_fleet_trips_every_code(tmp_path: Path, kb: RunKb) -> None:
    root = _copy("check-fleet", tmp_path)
    text = kb(["check"], cwd=root).stdout + kb(["check", "--all"], cwd=root).stdout
    for code in ERRORS + WARNINGS:
        assert f" {code}  " in text, code
    for retired in ("E03", "E07", "W02"):
        assert f" {retired}  " not in text
    # Both whys of E05, both forms of E08, both dashes, the cross-base hint, a long group.
    assert "no sources/ZZZZZZZZZZ.txt in this base" in text
    assert "`maslow1943` is not a key: 10 characters from" in text
    assert "with no bibliography line for it. Add:\n    - [src:CCCCCCCCCC] " in text
    assert "has drifted from the record. The record says:\n    - [src:DDDDDDDDDD] " in text
    assert "em dash" in text and "en dash" in text
    assert "that note is in beta, not here" in text
    assert "(6 times, also on 6, 7, 8, and 2 more)" in text
    # Nothing from code, fences or templates/ is read as a link or a citation.
    for ghost in ("inline-ghost", "fenced-ghost", "tilde-ghost", "related-note", "QQQQQQQQQQ"):
        assert ghost not in text
    # A private path is never named without --all, though its citation still counts.
    public = kb(["check"], cwd=root).stdout
    assert "private-draft" not in public and "secret-plan" not in public
    assert "HHHHHHHHHH" not in public


def test_check_writes_nothing(tmp_path: Path, kb: RunKb) -> None:
    for fixture in ("check-fleet", "check-clean"):
        root = _copy(fixture, tmp_path)
        before = _snapshot(root)
        for flags in ([], ["--all"], ["--strict"], ["--all", "--strict"]):
            kb(["check", *flags], cwd=root)
        assert _snapshot(root) == before
        assert not [p for p in root.rglob(".kb")], "kb check must not create an index folder"


def test_warnings_fail_only_with_strict(tmp_path: Path, kb: RunKb) -> None:
    base = tmp_path / "lone"
    (base / "knowledge").mkdir(parents=True)
    (base / "MAP.md").write_text("# Lone\n\n- [[thin]]\n", encoding="utf-8")
    (base / "knowledge" / "thin.md").write_text(
        "# Thin\n\n**Search for:** alpha, beta\n", encoding="utf-8"
    )
    plain = kb(["check"], cwd=base)
    assert plain.code == 0
    assert "W06" in plain.stdout and "0 errors, 1 warning\n" in plain.stdout
    assert kb(["check", "--strict"], cwd=base).code == 1


def test_an_unreadable_base_is_one_error_and_the_rest_still_reports(
    tmp_path: Path, kb: RunKb
) -> None:
    root = _copy("check-clean", tmp_path)
    out = kb(["check", "fleet/solo", "no-such-base"], cwd=root)
    assert out.code == 1
    assert out.stderr == "kb: cannot read no-such-base: no such directory\n"
    assert out.stdout.startswith("solo  (3 public files, map: MAP.md)\n  clean\n")
    alone = kb(["check", "no-such-base"], cwd=root)
    assert (alone.code, alone.stdout) == (1, "")


def test_example_fleet(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["check"], cwd=example_fleet)
    # ada/knowledge/draft-notes.md has no `Search for:` line, and is an entry by its title
    # and headings (derived keys): nothing in the example fleet is an error any more.
    assert out.code == 0
    check_golden("example/check.txt", out.stdout)
    every = kb(["check", "--all"], cwd=example_fleet)
    assert every.code == 0
    check_golden("example/check-all.txt", every.stdout)


def test_check_json_counts_what_the_text_counts(tmp_path: Path, kb: RunKb) -> None:
    import json

    root = _copy("check-fleet", tmp_path)
    text = kb(["check"], cwd=root).stdout
    data = json.loads(kb(["check", "--json"], cwd=root).stdout)
    for base in data["bases"]:
        errors, warnings = base["errors"], base["warnings"]
        assert len(base["findings"]) == errors + warnings
        one = ("error" if errors == 1 else "errors", "warning" if warnings == 1 else "warnings")
        assert (f"  {errors} {one[0]}, {warnings} {one[1]}" in text) or not base["findings"]
    assert data["errors"] == sum(b["errors"] for b in data["bases"])
