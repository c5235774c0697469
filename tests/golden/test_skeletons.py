"""`kb init`: the published skeletons cannot drift from what it writes, a fresh agent is
clean and served at once, and every refusal leaves the disk as it was.

When a drift test fails after a deliberate change to kb/pure/writing/skeleton.py, regenerate:

    python skeletons/regenerate.py

and review the diff like any other change.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from kb import Memory
from kb.pure.answering.entries import dead_keys
from kb.pure.notes.header import header_of
from kb.pure.notes.links import wikilinks
from kb.pure.writing.style import dash_findings
from kb.shell.cli.main import run
from tests.conftest import REPO, RunKb

SKELETONS = REPO / "skeletons"
REGENERATE = "python skeletons/regenerate.py"


def tree(root: Path) -> dict[str, str]:
    """Every file under `root` (skipping .git) by relative path, text with CRLF folded."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if ".git" in rel.parts or not p.is_file():
            continue
        out[rel.as_posix()] = p.read_bytes().decode("utf-8").replace("\r\n", "\n")
    return out


def fingerprint(root: Path) -> dict[str, str]:
    """Every path under `root` (folders too) with the hash of its bytes."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
    return out


def assert_same_tree(generated: Path, published: Path) -> int:
    made, kept = tree(generated), tree(published)
    assert sorted(made) == sorted(kept), (
        f"{published.name} lists other files than `kb init` writes; run `{REGENERATE}`"
    )
    for rel, text in made.items():
        assert text == kept[rel], f"{published.name}/{rel} drifted from `kb init`: `{REGENERATE}`"
    return len(made)


@pytest.fixture
def fresh(tmp_path: Path, kb: RunKb) -> Path:
    fleet = tmp_path / "fresh"
    assert kb(["init", "newton", str(fleet)]).code == 0
    assert kb(["init", "--person", str(fleet)]).code == 0
    return fleet


# -- drift -----------------------------------------------------------------------------------


def test_agent_skeleton_matches_init(tmp_path: Path, kb: RunKb) -> None:
    out = kb(["init", "skeleton", str(tmp_path)])
    assert out.code == 0, out.stderr
    count = assert_same_tree(tmp_path / "fleet" / "skeleton", SKELETONS / "agent-skeleton")
    assert count == 12  # seven files and the five .gitkeep files


def test_person_skeleton_matches_init(tmp_path: Path, kb: RunKb) -> None:
    out = kb(["init", "--person", str(tmp_path)])
    assert out.code == 0, out.stderr
    assert assert_same_tree(tmp_path / "fleet" / "person", SKELETONS / "person-skeleton") == 5


# -- what init prints and writes -------------------------------------------------------------


def test_init_agent_output(tmp_path: Path, kb: RunKb) -> None:
    out = kb(["init", "newton"], cwd=tmp_path)
    assert out.code == 0
    assert out.stderr == ""
    assert out.stdout == (
        "created ./fleet/newton\n"
        "  12 files and directories\n"
        "  served as it stands: no repository is needed, and none was created\n"
        "\n"
        "Next: fill in agent.txt's role, then index.md. Both are placeholders,\n"
        "and a generated file left unedited is a file nobody owns.\n"
    )
    agent = tmp_path / "fleet" / "newton"
    files = [".gitignore", "AGENTS.md", "MAP.md", "agent.txt", "blocks.txt", "index.md"]
    folders = ["kb-aliases.txt", "decisions", "inbox", "knowledge", "protocols", "templates"]
    assert sorted(p.name for p in agent.iterdir()) == sorted([*files, *folders])
    assert not (agent / ".git").exists()
    assert [p.name for p in (tmp_path / "fleet").iterdir()] == ["newton"]  # no scratch left


def test_init_person_output(tmp_path: Path, kb: RunKb) -> None:
    out = kb(["init", "--person", "."], cwd=tmp_path)
    assert out.code == 0
    assert out.stdout == (
        "wrote ./fleet/person\n"
        "  5 files, no agent.txt: the router reads it and can never\n"
        "  choose it as the one who answers, because a person is not an agent.\n"
        "\n"
        "Next: fill core.md. Every agent carries it resident, so a fleet\n"
        "whose person is blank gives generic answers confidently.\n"
    )
    assert not (tmp_path / "fleet" / "person" / "agent.txt").exists()


def test_functional_lines(fresh: Path) -> None:
    agent = fresh / "fleet" / "newton"
    index = (agent / "index.md").read_text()
    assert "**Exists to:** Say what Newton is for, what it is asked, and where it stops\n" in index
    assert index.startswith("# Newton, operating instructions\n")
    blocks = (agent / "blocks.txt").read_text()
    assert blocks.endswith(
        "[identity]\nAGENTS.md\nindex.md\n\n[user]\n../person/core.md\n\n[map]\nMAP.md\n\n"
        "[session] on-demand\n"
    )
    rules = [line for line in (agent / ".gitignore").read_text().splitlines() if line[:1] != "#"]
    assert rules == [
        ".kb/",
        "profile/",
        "records/",
        "projects/",
        "inbox/**",
        "!inbox/*.md",
        "!inbox/**/",
        "!inbox/**/.gitkeep",
        "!inbox/**/SOURCES.md",
    ]
    manifest = (agent / "agent.txt").read_text().splitlines()
    assert "name = Newton" in manifest
    assert "# private = profile/, projects/, records/" in manifest
    person = fresh / "fleet" / "person"
    assert (person / ".gitignore").read_text().splitlines()[-1] == ".kb/"
    assert [len(header_of((person / f).read_text()).keys) for f in SKELETON_PERSON_NOTES] == [
        34,
        32,
        30,
    ]


SKELETON_PERSON_NOTES = ("core.md", "work.md", "presence.md")


# -- a fresh agent is clean and served at once ------------------------------------------------


def test_fresh_agent_keys_dashes_and_links(fresh: Path) -> None:
    agent = fresh / "fleet" / "newton"
    keys = header_of((agent / "index.md").read_text()).keys
    assert len(keys) >= 12
    assert dead_keys(keys) == []
    for p in [*agent.rglob("*"), *(fresh / "fleet" / "person").rglob("*")]:
        if p.is_file():
            assert dash_findings(p.read_text()) == [], p
    map_text = (agent / "MAP.md").read_text()
    assert "[[" in map_text  # the convention is documented...
    assert wikilinks(map_text) == []  # ...and only inside backticks
    for line in map_text.splitlines():
        outside = line.split("`")[0::2]
        assert not any("[[" in piece for piece in outside), line


def test_fresh_fleet_is_served_without_all(fresh: Path, kb: RunKb) -> None:
    with Memory.open([str(fresh)]) as memory:
        names = {b.snapshot.name for b in memory.bases}
        assert names == {"newton", "person"}
        assert [f"{e.base}/{e.rel}" for e in memory.entries] == ["newton/index.md"]
    out = kb(["route", "operating instructions", str(fresh), "--json"])
    assert out.code == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["keyword_top"] == "newton/index.md"
    assert payload["results"][0]["path"] == "index.md"


def test_fresh_agent_checks_clean(fresh: Path, kb: RunKb) -> None:
    out = kb(["check", str(fresh / "fleet" / "newton")])
    assert out.code == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[1:] == ["  clean"]
    whole = kb(["check", str(fresh)])
    assert whole.code == 0
    assert "warn" not in whole.stdout and "error" not in whole.stdout


# -- refusals: one line, the right code, nothing written ---------------------------------------


def test_existing_target_is_refused(fresh: Path, kb: RunKb) -> None:
    before = fingerprint(fresh)
    for args in (["init", "newton", str(fresh)], ["init", "--person", str(fresh)]):
        out = kb(args)
        assert out.code == 1
        target = fresh / "fleet" / args[1].lstrip("-")
        assert out.stderr == (
            f"kb: {target} already exists. Refusing to write into it: an agent half "
            "overwritten is worse than one not created.\n"
        )
        assert out.stdout == ""
    assert fingerprint(fresh) == before


@pytest.mark.parametrize(
    "name", ["Newton", "-x", "x-", "a" * 41, "a_b", "..", "a/b", "caf\u00e9", "a b", ""]
)
def test_bad_name_is_refused(tmp_path: Path, name: str) -> None:
    out = run(["init", "--", name, str(tmp_path)])  # `--`: `-x` alone is an unknown flag
    assert out.code == 1
    assert out.stderr.startswith(f"kb: '{name}' is not a usable agent name.")
    assert out.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_forty_characters_is_a_name(tmp_path: Path, kb: RunKb) -> None:
    assert kb(["init", "a" * 40, str(tmp_path)]).code == 0


def test_no_name_is_a_usage_error(tmp_path: Path, kb: RunKb) -> None:
    out = kb(["init"], cwd=tmp_path)
    assert out.code == 2
    assert out.stderr == "kb: init needs a name for the agent\n\n"
    assert "kb init <name> [fleet-root]" in out.stdout
    assert list(tmp_path.iterdir()) == []


def test_extra_arguments_are_a_usage_error(tmp_path: Path, kb: RunKb) -> None:
    for args in (["init", "a", "b", "c"], ["init", "--person", "b", "c"]):
        out = kb(args, cwd=tmp_path)
        assert out.code == 2
        assert out.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_io_failure_leaves_nothing(tmp_path: Path, kb: RunKb) -> None:
    (tmp_path / "fleet").write_text("a file where the fleet folder should be")
    before = fingerprint(tmp_path)
    out = kb(["init", "newton", str(tmp_path)])
    assert out.code == 1
    assert out.stderr.startswith(f"kb: cannot write {tmp_path}/fleet/newton: ")
    assert out.stderr.count("\n") == 1
    assert fingerprint(tmp_path) == before


def test_failure_midway_removes_the_scratch_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from kb.io.files import newtree
    from kb.shell.cli.inputs import InitInput
    from kb.shell.writing.initwrite import init

    written: list[Path] = []
    real = newtree._write_new

    def flaky(path: Path, text: str) -> None:
        if len(written) == 7:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, text)
        written.append(path)

    monkeypatch.setattr(newtree, "_write_new", flaky)
    out = init(InitInput(name="newton", paths=(str(tmp_path / "new-root"),)))
    assert out.code == 1
    assert out.stderr == (
        f"kb: cannot write {tmp_path}/new-root/fleet/newton: No space left on device\n"
    )
    assert len(written) == 7
    assert list(tmp_path.iterdir()) == []  # even the fleet root this call made is gone
