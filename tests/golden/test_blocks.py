"""`kb blocks`: the report and the `--emit` assembly of an agent's constitution, on a copy of
the example fleet given a blocks.txt (the example agents ship without one)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import RunKb, check_golden
from tests.golden.test_boot import ADA_BLOCKS, AGENTS_MD


def _ada(example_fleet: Path) -> Path:
    ada = example_fleet / "fleet" / "ada"
    (ada / "AGENTS.md").write_text(AGENTS_MD, encoding="utf-8")
    (ada / "blocks.txt").write_text(ADA_BLOCKS, encoding="utf-8")
    return ada


def test_report(example_fleet: Path, kb: RunKb) -> None:
    ada = _ada(example_fleet)
    out = kb(["blocks"], cwd=ada)
    assert out.code == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines[0] == "./blocks.txt"
    assert lines[2] == (
        "  #   block      mode       files   on disk      sent   ~tokens  cumulative"
    )
    assert lines[3].startswith("  1   identity   resident       2 ")
    assert "      missing file: notes/not-written-yet.md" in lines
    assert any(line.startswith("  4   session    on-demand      1 ") for line in lines)
    assert any(line.rstrip().endswith("-") and "on-demand" in line for line in lines)
    assert "`Search for:`" in out.stdout  # the stripped keyword lines are priced
    check_golden("blocks/report.txt", out.stdout)


def test_report_names_the_path_as_given(example_fleet: Path, kb: RunKb) -> None:
    _ada(example_fleet)
    out = kb(["blocks", "fleet/ada"], cwd=example_fleet)
    assert out.code == 0
    assert out.stdout.startswith("fleet/ada/blocks.txt\n")


def test_emit_prints_only_the_resident_assembly(example_fleet: Path, kb: RunKb) -> None:
    ada = _ada(example_fleet)
    out = kb(["blocks", str(ada), "--emit"])
    assert out.code == 0
    assert out.stdout.startswith(
        "\n<!-- block: identity (`Search for:` lines removed: the router matches those, "
        "not you) -->\n\n# Ada\n"
    )
    assert "<!-- block: session" not in out.stdout
    assert "Search for:" not in out.stdout.replace("(`Search for:` lines removed", "")
    assert out.stderr == (
        f"kb: {ada}/blocks.txt lists notes/not-written-yet.md in [map], which cannot be read; "
        "it was left out\n"
    )
    check_golden("blocks/emit.txt", out.stdout)


def test_no_blocks_txt_is_an_error(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["blocks", "fleet/bruno"], cwd=example_fleet)
    assert out.code == 1
    assert out.stdout == ""
    assert out.stderr == "kb: no blocks.txt at fleet/bruno\n"


def test_a_blocks_txt_that_is_not_text_is_an_error(example_fleet: Path, kb: RunKb) -> None:
    (example_fleet / "fleet" / "bruno" / "blocks.txt").write_bytes(b"[identity]\n\xff\xfe\n")
    out = kb(["blocks", "fleet/bruno"], cwd=example_fleet)
    assert out.code == 1
    assert out.stderr == "kb: cannot read fleet/bruno/blocks.txt: it is not UTF-8 text (byte 11)\n"
