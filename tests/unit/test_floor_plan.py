"""The package's floor plan (issue 28, docs/architecture.md): each layer cut into capability
folders a newcomer can read at a glance. These hold the plan's limits, so a folder that grows
past them, or a package that stops saying what it owns, fails here rather than in a review."""

from __future__ import annotations

import ast
from pathlib import Path

KB = Path(__file__).resolve().parents[2] / "kb"
LAYERS = ("pure", "io", "shell")
# A folder a reader scans in one look; past this, it wants a capability folder of its own.
MAX_MODULES_PER_FOLDER = 15
# A module one job can fill; past this, it holds more than one.
MAX_MODULE_LINES = 800


def _packages() -> list[Path]:
    return sorted(p.parent for p in KB.rglob("__init__.py") if "__pycache__" not in p.parts)


def test_no_folder_holds_more_than_fifteen_modules() -> None:
    crowded = {
        str(p.relative_to(KB.parent)): n
        for p in _packages()
        if (n := len([m for m in p.glob("*.py") if m.name != "__init__.py"]))
        > MAX_MODULES_PER_FOLDER
    }
    assert not crowded, crowded


def test_no_module_is_longer_than_eight_hundred_lines() -> None:
    long = {
        str(p.relative_to(KB.parent)): n
        for p in KB.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, long


def test_each_layer_is_cut_into_capability_folders() -> None:
    for layer in LAYERS:
        loose = [p.name for p in (KB / layer).glob("*.py") if p.name != "__init__.py"]
        # one module a layer may stand outside the grid (the clock, the daemon): anything
        # more belongs in a capability
        assert len(loose) <= 1, (layer, loose)


def test_every_capability_package_says_what_it_owns_and_what_it_keeps_out() -> None:
    silent = []
    for p in _packages():
        if p.parent.name not in LAYERS:
            continue
        doc = ast.get_docstring(ast.parse((p / "__init__.py").read_text(encoding="utf-8")))
        if not doc or "import" not in doc:
            silent.append(str(p.relative_to(KB.parent)))
    assert not silent, silent
