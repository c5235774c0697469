"""benchmarks/generate.py: the synthetic fleet the scale benchmarks and stress tests stand on.

What is pinned here: the same arguments write the same bytes; every source record is one kb
itself would write and read back; `kb check` finds in a generated fleet only what the
generator means to put there (keyless notes, one dangling citation, superseded sources still
cited, thin or dead keys, stems shared across folders), never a broken bibliography, an
uncited record or a front-matter gap; and the private layers are the ones declared.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from kb.io.writing.checker import read_fleet
from kb.pure.writing.checks import BaseFacts, Finding, check_base
from kb.pure.writing.sources import parse_record, render_record

# Appended, not inserted: benchmarks/mcp.py must not shadow the installed `mcp` package.
sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))
from generate import FleetSummary, generate  # type: ignore[import-not-found, unused-ignore]

NOTES = 400
INTENDED = {"E02", "E05", "W01", "W06", "W07", "W09"}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> FleetSummary:
    return generate(tmp_path_factory.mktemp("gen") / "a", NOTES, agents=3, seed=2)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _findings(root: Path, include_private: bool) -> list[Finding]:
    facts = [b for b in read_fleet([str(root)], include_private) if isinstance(b, BaseFacts)]
    return [f for b in facts for f in check_base(b)]


def test_same_arguments_same_bytes(fleet: FleetSummary, tmp_path: Path) -> None:
    again = generate(tmp_path / "b", NOTES, agents=3, seed=2)
    assert again.sources == fleet.sources > 0
    assert _files(tmp_path / "b") == _files(fleet.root)


@pytest.mark.parametrize("include_private", [False, True])
def test_check_finds_only_what_the_generator_intends(
    fleet: FleetSummary, include_private: bool
) -> None:
    findings = _findings(fleet.root, include_private)
    codes = Counter(f.code for f in findings)
    assert set(codes) <= INTENDED, codes
    e05 = [f for f in findings if f.code == "E05"]
    assert len(e05) == 1 and len(fleet.dangling) == 1
    assert fleet.dangling[0].endswith("/" + e05[0].file)


def test_records_are_what_kb_writes_and_reads(fleet: FleetSummary) -> None:
    records = sorted((fleet.root / "fleet").glob("*/sources/*.txt"))
    assert len(records) == fleet.sources
    for path in records:
        text = path.read_text(encoding="utf-8")
        parsed = parse_record(path.stem, text).unwrap()
        assert render_record(parsed) == text


def test_private_layers(fleet: FleetSummary) -> None:
    bases = fleet.root / "fleet"
    declared = {
        p.parent.name: line
        for p in bases.glob("*/agent.txt")
        for line in p.read_text(encoding="utf-8").splitlines()
        if line.startswith("private =")
    }
    assert sorted(declared.values()) == ["private = records", "private = records/, drafts/"]
    drafted = next(name for name, line in declared.items() if "drafts" in line)
    assert any((bases / drafted / "drafts").glob("*.md"))
    assert (bases / "person" / "core.md").is_file()
    public = {b.label: b for b in read_fleet([str(fleet.root)], False) if isinstance(b, BaseFacts)}
    assert public["person"].rels == ()
    assert not any(r.startswith(("records/", "drafts/")) for b in public.values() for r in b.rels)
