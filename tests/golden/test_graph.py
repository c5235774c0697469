"""Golden files for `kb links` and `kb graph` on tests/fixtures/graph-fleet.

The fixture has a three-note cycle (backups -> restore -> drill -> backups by wikilink and
path link), a two-note cycle through a percent-encoded path (tls <-> `runbook v2`), a
wikilink and a climbing path link towards another base (neither may cross), an ambiguous
stem (`notes`), placeholder links in `templates/`, a private note in `projects/` and a
private base (`person`). Regenerate only on purpose:
KB_UPDATE_GOLDEN=1 python -m pytest tests/golden/test_graph.py, then review the diff.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, RunKb, check_golden

FIXTURE = REPO / "tests" / "fixtures" / "graph-fleet"
# What every verb that opens this fixture warns about (issue 24: graph and links warn as
# route does): `person/` holds no map, so no index is made in it.
FALLBACK = (
    "kb: person: this folder is not a base (it has no agent.txt and no MAP.md), so a reading "
    "verb makes no index in it (kb init makes a base, kb index indexes this folder anyway); "
    "answering from the notes' headers alone, with no text index\n"
)


def _own(stderr: str) -> str:
    """The verb's own stderr, after the open's warning."""
    assert stderr.startswith(FALLBACK), stderr
    return stderr.removeprefix(FALLBACK)


@pytest.fixture
def fleet(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path / "graph-fleet"))


LINKS: list[tuple[str, list[str]]] = [
    ("links-out.txt", ["backups"]),
    ("links-in.txt", ["alpha/knowledge/backups.md", "--direction", "in"]),
    ("links-both.txt", ["knowledge/backups.md", "--direction", "both"]),
    ("links-cycle-depth2.txt", ["drill", "--depth", "2"]),
    ("links-cycle-depth3.json", ["restore", "--depth", "3", "--json"]),
    ("links-limit.txt", ["backups", "--direction", "both", "--depth", "3", "--limit", "3"]),
    ("links-in-all.txt", ["backups", "--direction", "in", "--all"]),
]

GRAPHS: list[tuple[str, list[str]]] = [
    ("graph.mmd", []),
    ("graph.dot", ["--format", "dot"]),
    ("graph.json", ["--format", "json"]),
    ("graph-all.json", ["--format", "json", "--all"]),
    ("graph-note-tls.mmd", ["--note", "tls"]),
    ("graph-note-backups.dot", ["--note", "backups", "--format", "dot"]),
    ("graph-key-backup.json", ["--key", "Backup", "--format", "json"]),
    ("graph-limit.mmd", ["--limit", "3"]),
]


@pytest.mark.parametrize(("golden", "args"), LINKS, ids=[c[0] for c in LINKS])
def test_links(fleet: Path, kb: RunKb, golden: str, args: list[str]) -> None:
    out = kb(["links", *args], cwd=fleet)
    assert (out.code, out.stderr) == (0, FALLBACK)
    check_golden(f"graph/{golden}", out.stdout)


@pytest.mark.parametrize(("golden", "args"), GRAPHS, ids=[c[0] for c in GRAPHS])
def test_graph(fleet: Path, kb: RunKb, golden: str, args: list[str]) -> None:
    out = kb(["graph", *args], cwd=fleet)
    assert (out.code, out.stderr) == (0, FALLBACK)
    check_golden(f"graph/{golden}", out.stdout)


def test_output_is_deterministic(fleet: Path, kb: RunKb) -> None:
    first = kb(["graph", "--format", "dot", "--all"], cwd=fleet).stdout
    # The second run reads through the header cache the first one left behind.
    assert kb(["graph", "--format", "dot", "--all"], cwd=fleet).stdout == first


def test_a_wikilink_never_crosses_a_base_edge(fleet: Path, kb: RunKb) -> None:
    graph = json.loads(kb(["graph", "--format", "json", "--all"], cwd=fleet).stdout)
    base = {n["id"]: n.get("base") for n in graph["nodes"]}
    links = [e for e in graph["edges"] if e["kind"] == "link"]
    assert links
    assert all(base[e["source"]] == base[e["target"]] for e in links)
    # ...while a shared key does join notes of different bases.
    keyed = {e["source"] for e in graph["edges"] if e["target"] == "key:backup"}
    assert {base[n] for n in keyed} == {"alpha", "beta", "person"}


def test_placeholders_ambiguity_and_fences_are_not_followed(fleet: Path, kb: RunKb) -> None:
    graph = json.loads(kb(["graph", "--format", "json"], cwd=fleet).stdout)
    sources = {e["source"] for e in graph["edges"] if e["kind"] == "link"}
    assert "note:alpha/templates/note.md" not in sources
    targets = {e["target"] for e in graph["edges"] if e["kind"] == "link"}
    assert "note:alpha/knowledge/notes.md" not in targets  # [[notes]] is ambiguous
    assert "note:alpha/tools/runbook v2.md" in targets  # %20 decoded, #anchor and title cut
    drill = [
        e["target"]
        for e in graph["edges"]
        if e["source"] == "note:alpha/knowledge/drill.md" and e["kind"] == "link"
    ]
    assert drill == ["note:alpha/knowledge/backups.md"]  # not itself, not code, not a fence


@pytest.mark.parametrize(
    "args",
    [
        ["links", "backups", "--direction", "both", "--depth", "9"],
        ["links", "backups", "--direction", "in", "--json"],
        ["graph"],
        ["graph", "--format", "dot"],
        ["graph", "--format", "json"],
        ["graph", "--format", "json", "--key", "backup"],
        ["graph", "--format", "json", "--note", "backups"],
    ],
)
def test_private_notes_only_with_all(fleet: Path, kb: RunKb, args: list[str]) -> None:
    hidden = kb(args, cwd=fleet)
    assert hidden.code == 0
    for secret in ("secret", "person", "Core"):
        assert secret not in hidden.stdout
    shown = kb([*args, "--all"], cwd=fleet)
    assert "secret-plan" in shown.stdout


def test_errors(fleet: Path, kb: RunKb) -> None:
    ambiguous = kb(["links", "notes"], cwd=fleet)
    assert ambiguous.code == 2 and ambiguous.stdout == ""
    assert _own(ambiguous.stderr) == (
        "kb: 'notes' names 2 notes: alpha/knowledge/notes.md, alpha/tools/notes.md. "
        "Name one as base/path\n"
    )
    assert kb(["links", "alpha/tools/notes"], cwd=fleet).code == 0
    unknown = kb(["links", "secret-plan"], cwd=fleet)
    assert unknown.code == 1
    said = _own(unknown.stderr)
    assert said.startswith("kb: no note in scope is called 'secret-plan' (the private")
    assert kb(["links", "secret-plan", "--all"], cwd=fleet).code == 0
    missing = kb(["links"], cwd=fleet)
    assert missing.code == 2
    assert missing.stderr.startswith("kb: links needs a note")
    bad = kb(["links", "backups", "--direction", "sideways"], cwd=fleet)
    assert bad.code == 2
    assert bad.stderr == "kb links: --direction takes one of out, in, both, not 'sideways'\n"
    assert kb(["links", "backups", "--depth", "-1"], cwd=fleet).code == 2
    fmt = kb(["graph", "--format", "svg"], cwd=fleet)
    assert fmt.code == 2
    assert fmt.stderr == "kb graph: --format takes one of mermaid, dot, json, not 'svg'\n"
    both = kb(["graph", "--note", "tls", "--key", "tls"], cwd=fleet)
    assert both.code == 2 and "not both" in both.stderr
    nokey = kb(["graph", "--key", "offsite"], cwd=fleet)  # declared only by a private note
    assert nokey.code == 1
    assert _own(nokey.stderr).startswith("kb: no note in scope declares the key 'offsite'")
    assert kb(["graph", "--key", "offsite", "--all"], cwd=fleet).code == 0
    assert kb(["graph", "--note", "nowhere"], cwd=fleet).code == 1
    gone = kb(["links", "backups", str(fleet / "no-such-base")], cwd=fleet)
    assert gone.code == 1 and gone.stderr.startswith("kb: ")
