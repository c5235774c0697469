"""`kb write`: golden output and files for the successful writes, and every refusal with its
one line, its exit code and a tree left byte for byte as it was.

Regenerate the golden files only on purpose: KB_UPDATE_GOLDEN=1 python -m pytest
tests/golden/test_write.py, then review the diff.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from kb.shell.cli.main import run
from kb.shell.cli.outcome import Outcome
from tests.conftest import RunKb, check_golden
from tests.golden.test_skeletons import fingerprint

BODY = (
    "Things fall because mass pulls on mass.\n\n## The inverse square\n\nTwice as far, a quarter.\n"
)


@pytest.fixture
def fleet(tmp_path: Path, kb: RunKb) -> Path:
    root = tmp_path / "fleet-root"
    root.mkdir()
    assert kb(["init", "newton"], cwd=root).code == 0
    return root


def run_with_stdin(argv: list[str], stdin: bytes, cwd: Path) -> Outcome:
    """The CLI in this process, with `stdin` piped in (as bytes, so bad UTF-8 can be sent)."""
    old_stdin, old_cwd = sys.stdin, os.getcwd()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    os.chdir(cwd)
    try:
        return run(argv)
    finally:
        sys.stdin = old_stdin
        os.chdir(old_cwd)


# -- successful writes, pinned ------------------------------------------------------------------


def test_writes_golden(fleet: Path, kb: RunKb) -> None:
    agent = fleet / "fleet" / "newton"
    first = kb(
        [
            "write",
            "newton",
            "gravity",
            "--keys",
            "gravity, gravidade, `inverse square`, lei do inverso do quadrado",
            "--summary",
            "Why things fall, and how fast the pull weakens with distance.",
        ],
        cwd=fleet,
        stdin=BODY,
    )
    assert first.code == 0, first.stderr
    assert first.stderr == ""
    check_golden("write/section-created.txt", first.stdout)
    check_golden("write/gravity.md", (agent / "knowledge" / "gravity.md").read_text())

    second = kb(
        [
            "write",
            "newton",
            "orbits",
            "--keys",
            "orbit, orbita, ellipse, elipse",
            "--summary",
            "Orbits are ellipses with the sun at one focus",
            "--provenance",
            "human",
            "--stage",
            "distilled",
            "--captured-from",
            "inbox/2026-01-02-session.md",
        ],
        cwd=fleet,
        stdin="An orbit is an ellipse.\n",
    )
    assert second.code == 0, second.stderr
    check_golden("write/listed.txt", second.stdout)
    check_golden("write/orbits.md", (agent / "knowledge" / "orbits.md").read_text())

    third = kb(
        [
            "write",
            "newton",
            "tides",
            str(fleet),
            "--keys",
            "tides, mares, the moon, of the, lunar pull",
            "--summary",
            "The moon raises two bulges of water",
        ],
        cwd=fleet,
        stdin="\n\n  The moon pulls the near side harder than the far side.  \n\n",
    )
    assert third.code == 0, third.stderr
    check_golden("write/dead-key.txt", third.stdout.replace(str(fleet), "<FLEET>"))
    check_golden("write/tides.md", (agent / "knowledge" / "tides.md").read_text())

    fourth = kb(
        [
            "write",
            "newton",
            "use-si-units",
            "--keys",
            "units, unidades, si",
            "--summary",
            "Every figure in SI",
            "--folder",
            "decisions/",
        ],
        cwd=fleet,
        stdin="Metres, kilograms, seconds.",
    )
    assert fourth.code == 0, fourth.stderr
    check_golden("write/decision.txt", fourth.stdout)
    check_golden("write/MAP.md", (agent / "MAP.md").read_text())


def test_written_note_is_clean_and_routes(fleet: Path, kb: RunKb) -> None:
    english = ["gravity", "inverse square", "mass", "weight", "falling", "apple", "newton law"]
    portuguese = ["gravidade", "massa", "peso", "queda", "maca", "lei de newton", "atracao"]
    keys = ", ".join([*english, *portuguese])
    out = kb(
        ["write", "newton", "gravity", "--keys", keys, "--summary", "Why things fall"],
        cwd=fleet,
        stdin=BODY,
    )
    assert out.code == 0, out.stderr
    check = kb(["check", "fleet/newton"], cwd=fleet)
    assert check.stdout.splitlines()[1:] == ["  clean"], check.stdout
    routed = kb(["route", "why do things fall, gravity", "--json"], cwd=fleet)
    assert '"keyword_top":"newton/knowledge/gravity.md"' in routed.stdout


def test_fleet_root_may_be_the_base_itself(fleet: Path) -> None:
    out = run_with_stdin(
        ["write", "anything", "note", "fleet/newton", "--keys", "key", "--summary", "s"],
        b"body",
        fleet,
    )
    assert out.code == 0, out.stderr
    assert out.stdout.startswith("wrote fleet/newton/knowledge/note.md\n")


def test_map_keeps_its_line_endings_and_permissions(fleet: Path) -> None:
    map_path = fleet / "fleet" / "newton" / "MAP.md"
    map_path.write_bytes(b"# Map\r\n\r\n### knowledge/\r\n\r\n- **[[a]]** A\r\n")
    map_path.chmod(0o640)
    out = run_with_stdin(["write", "newton", "b", "--keys", "key", "--summary", "B"], b"x", fleet)
    assert out.code == 0, out.stderr
    assert map_path.read_bytes() == (
        b"# Map\r\n\r\n### knowledge/\r\n\r\n- **[[a]]** A\r\n- **[[b]]** B\r\n"
    )
    assert map_path.stat().st_mode & 0o777 == 0o640


# -- refusals ---------------------------------------------------------------------------------

OK = ["--keys", "gravity, gravidade", "--summary", "Why things fall"]


def _refusal_cases() -> list[tuple[str, list[str], bytes, str]]:
    """(id, argv after `write`, stdin, the start of the one stderr line)."""
    return [
        ("slug-upper", ["newton", "Gravity", *OK], b"x", "kb: 'Gravity' is not a usable name."),
        ("slug-dots", ["newton", "..", *OK], b"x", "kb: '..' is not a usable name."),
        ("slug-slash", ["newton", "a/b", *OK], b"x", "kb: 'a/b' is not a usable name."),
        ("slug-41", ["newton", "a" * 41, *OK], b"x", f"kb: '{'a' * 41}' is not a usable name."),
        ("slug-hyphen", ["newton", "a-", *OK], b"x", "kb: 'a-' is not a usable name."),
        ("no-keys", ["newton", "g", "--summary", "s"], b"x", "kb: a note needs keys"),
        ("blank-keys", ["newton", "g", "--keys", " , ``,"], b"x", "kb: a note needs keys"),
        ("empty-body", ["newton", "g", *OK], b" \n\t\n", "kb: the note body was empty."),
        (
            "provenance",
            ["newton", "g", *OK, "--provenance", "Human"],
            b"x",
            "kb: provenance was 'Human', which is not one of: human, agent, external\n",
        ),
        (
            "stage",
            ["newton", "g", *OK, "--stage", "final"],
            b"x",
            "kb: stage was 'final', which is not one of: raw, captured, distilled, derived\n",
        ),
        ("folder-up", ["newton", "g", *OK, "--folder", "../x"], b"x", "kb: folder was '../x'"),
        ("folder-abs", ["newton", "g", *OK, "--folder", "/tmp"], b"x", "kb: folder was '/tmp'"),
        ("folder-climbs", ["newton", "g", *OK, "--folder", "knowledge/../x"], b"x", "kb: folder"),
        ("folder-hidden", ["newton", "g", *OK, "--folder", "knowledge/.a"], b"x", "kb: folder"),
        ("folder-empty-part", ["newton", "g", *OK, "--folder", "knowledge//a"], b"x", "kb: folder"),
        ("folder-top-unknown", ["newton", "g", *OK, "--folder", "notes/a"], b"x", "kb: folder"),
        ("folder-bslash", ["newton", "g", *OK, "--folder", "a\\b"], b"x", "kb: folder was"),
        ("folder-case", ["newton", "g", *OK, "--folder", "Knowledge"], b"x", "kb: folder was"),
        (
            "all-dead",
            ["newton", "g", "--keys", "the law, of it"],
            b"x",
            "kb: every key given is unsearchable: `the law`, `of it`.",
        ),
        (
            "em-dash-body",
            ["newton", "g", *OK],
            "a \u2014 b\n\nc \u2013 d".encode(),
            "kb: an em or en dash on lines 10, 12 of the note this would have written, and "
            "this fleet's fleet.txt sets `style = no-dashes`.",
        ),
        (
            "en-dash-summary",
            ["newton", "g", "--keys", "gravity", "--summary", "1\u20132"],
            b"x",
            "kb: an em or en dash on line 8 of the note",
        ),
        ("no-agent", ["galileo", "g", *OK], b"x", "kb: no agent at ./fleet/galileo."),
        ("agent-dots", ["..", "g", *OK], b"x", "kb: '..' is not an agent name"),
        ("agent-slash", ["a/b", "g", *OK], b"x", "kb: 'a/b' is not an agent name"),
        ("exists", ["newton", "taken", *OK], b"x", "kb: ./fleet/newton/knowledge/taken.md already"),
        ("no-map", ["mapless", "g", *OK], b"x", "kb: ./fleet/mapless has no MAP.md,"),
        ("stdin-latin1", ["newton", "g", *OK], b"caf\xe9", "kb: cannot read the note from stdin"),
    ]


CASES = _refusal_cases()


@pytest.mark.parametrize(
    ("argv", "stdin", "start"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_refusal_leaves_tree_untouched(
    fleet: Path, argv: list[str], stdin: bytes, start: str
) -> None:
    (fleet / "fleet" / "newton" / "knowledge" / "taken.md").write_text("# Taken\n")
    (fleet / "fleet" / "mapless").mkdir()
    # The house style is the fleet's opt-in: without it a dash is a warning (tested below).
    (fleet / "fleet.txt").write_text("style = no-dashes\n")
    before = fingerprint(fleet)
    out = run_with_stdin(["write", *argv], stdin, fleet)
    assert out.code == 1
    assert out.stdout == ""
    assert out.stderr.startswith(start)
    assert out.stderr.endswith("\n") and out.stderr.count("\n") == 1
    assert fingerprint(fleet) == before


def test_refusal_messages_in_full(fleet: Path) -> None:
    out = run_with_stdin(["write", "newton", "G", *OK], b"x", fleet)
    assert out.stderr == (
        "kb: 'G' is not a usable name. Lower case letters, digits and hyphens, no leading or "
        "trailing hyphen, 40 characters at most. It becomes both the filename and the [[link]] "
        "every other note uses to point here.\n"
    )
    out = run_with_stdin(["write", "newton", "g", *OK, "--folder", "../x"], b"x", fleet)
    assert out.stderr == (
        "kb: folder was '../x', which is not one of: knowledge, inbox, decisions, protocols, "
        "templates, or a folder below one (knowledge/systems). A note lives in a memory folder "
        "of its base, and a folder outside that set, hidden, or climbing with `..` could put it "
        "outside the base or out of every search.\n"
    )


@pytest.mark.parametrize("argv", [["write"], ["write", "newton"], ["write", "--keys", "a", "x"]])
def test_missing_agent_or_slug_is_a_usage_error(fleet: Path, argv: list[str]) -> None:
    before = fingerprint(fleet)
    out = run_with_stdin(argv, b"body", fleet)
    assert out.code == 2
    assert out.stderr == "kb: write needs an agent and a name for the note\n\n"
    assert "kb write <agent> <slug> [fleet-root]" in out.stdout
    assert "written once" in out.stdout  # the usage says what the code does (quirk 1, fixed)
    assert fingerprint(fleet) == before


@pytest.mark.parametrize(
    "argv",
    [
        ["write", "newton", "g", ".", "extra", *OK],
        ["write", "newton", "g", "--keys"],
        ["write", "newton", "g", "--summary", "--keys", "a"],
    ],
)
def test_malformed_command_lines_are_usage_errors(fleet: Path, argv: list[str]) -> None:
    before = fingerprint(fleet)
    out = run_with_stdin(argv, b"body", fleet)
    assert out.code == 2
    assert out.stderr.startswith("kb write: ") and out.stderr.count("\n") == 1
    assert fingerprint(fleet) == before


def test_real_process_refusal_and_tty_free_stdin(fleet: Path, kb: RunKb) -> None:
    before = fingerprint(fleet)
    out = kb(["write", "newton", "g", *OK], cwd=fleet, stdin="")
    assert out.code == 1
    assert out.stderr.startswith("kb: the note body was empty.")
    assert fingerprint(fleet) == before


# -- issue 16: house style is the fleet's, keys must be searchable, nested folders --------------


def test_a_dash_is_a_warning_unless_the_fleet_opts_in(fleet: Path) -> None:
    out = run_with_stdin(["write", "newton", "g", *OK], "a \u2014 b\n".encode(), fleet)
    assert out.code == 0
    assert out.stdout.startswith("wrote ./fleet/newton/knowledge/g.md\n")
    assert out.stderr == (
        "kb write: an em or en dash on line 10 of the note (written anyway; `kb check` reports "
        "it as W03). A fleet that refuses them sets `style = no-dashes` in fleet.txt.\n"
    )
    assert (fleet / "fleet" / "newton" / "knowledge" / "g.md").is_file()


@pytest.mark.parametrize("line", ["style = no-dashes", "style = No-Dashes, tidy"])
def test_the_fleet_opt_in_refuses_a_dash(fleet: Path, line: str) -> None:
    (fleet / "fleet.txt").write_text(f"name = Test\n{line}\n", encoding="utf-8")
    before = fingerprint(fleet)
    out = run_with_stdin(["write", "newton", "g", *OK], "a \u2013 b\n".encode(), fleet)
    assert (out.code, out.stdout) == (1, "")
    assert out.stderr == (
        "kb: an em or en dash on line 10 of the note this would have written, and this fleet's "
        "fleet.txt sets `style = no-dashes`. Write a comma, a colon or parentheses instead.\n"
    )
    assert fingerprint(fleet) == before


def test_the_opt_in_is_found_from_the_base_itself(fleet: Path) -> None:
    (fleet / "fleet.txt").write_text("style = no-dashes\n", encoding="utf-8")
    base = fleet / "fleet" / "newton"
    out = run_with_stdin(["write", "newton", "g", str(base), *OK], "a \u2014\n".encode(), fleet)
    assert out.code == 1 and "style = no-dashes" in out.stderr


def test_an_unknown_style_is_named_and_ignored(fleet: Path) -> None:
    (fleet / "fleet.txt").write_text("style = nodashes\n", encoding="utf-8")
    out = run_with_stdin(["write", "newton", "g", *OK], b"plain\n", fleet)
    assert out.code == 0
    assert out.stderr == (
        "kb write: fleet.txt names the style `nodashes`, which kb does not know (it knows: "
        "no-dashes); it was ignored\n"
    )


@pytest.mark.parametrize("keys", ["the, how", "the", " how , ?, a", "o que, de"])
def test_keys_of_stopwords_only_are_a_usage_error(fleet: Path, keys: str) -> None:
    before = fingerprint(fleet)
    out = run_with_stdin(["write", "newton", "g", "--keys", keys], b"x", fleet)
    assert (out.code, out.stdout) == (2, "")
    assert out.stderr.startswith("kb: every key is made only of stopwords, single letters or ")
    assert out.stderr.count("\n") == 1
    assert fingerprint(fleet) == before


def test_a_stopword_key_among_live_ones_is_dropped(fleet: Path) -> None:
    out = run_with_stdin(["write", "newton", "g", "--keys", "gravity, the"], b"x", fleet)
    assert out.code == 0
    assert "  dropped 1 key the index cannot reach: the\n" in out.stdout
    text = (fleet / "fleet" / "newton" / "knowledge" / "g.md").read_text(encoding="utf-8")
    assert "**Search for:** `gravity`\n" in text


def test_a_nested_folder_gets_its_own_map_section(fleet: Path) -> None:
    base = fleet / "fleet" / "newton"
    keys = ["--keys", "orbit, orbita"]
    argv = ["write", "newton", "orbits", *keys, "--folder", "knowledge/systems/", "--summary", "S"]
    out = run_with_stdin(argv, b"Bodies in orbit.\n", fleet)
    assert (out.code, out.stderr) == (0, "")
    check_golden("write/nested-folder.txt", out.stdout)
    assert (base / "knowledge" / "systems" / "orbits.md").is_file()
    map_text = (base / "MAP.md").read_text(encoding="utf-8")
    assert map_text.endswith("\n### knowledge/systems/\n\n- **[[orbits]]** S\n")
    argv = ["write", "newton", "moons", *keys, "--folder", "knowledge/systems"]
    again = run_with_stdin(argv, b"Moons.\n", fleet)
    assert again.code == 0 and "that section did not exist" not in again.stdout
    assert (
        (base / "MAP.md")
        .read_text(encoding="utf-8")
        .endswith("- **[[orbits]]** S\n- **[[moons]]**\n")
    )


# -- the note's title (issue 26) ----------------------------------------------------------------

GRAVITY = ["write", "newton", "gravity", "--keys", "gravity, gravidade", "--summary", "Why"]


def _titles(kb: RunKb, fleet: Path) -> dict[str, str]:
    import json

    listed = json.loads(kb(["list", "--json"], cwd=fleet).stdout)
    return {row["path"]: row["title"] for row in listed if row["base"] == "newton"}


def test_title_flag_writes_the_notes_title_above_its_header(fleet: Path, kb: RunKb) -> None:
    out = kb([*GRAVITY, "--title", "Gravity, and why things fall"], cwd=fleet, stdin=BODY)
    assert out.code == 0, out.stderr
    assert "titled" not in out.stdout  # given, not derived: nothing to say
    text = (fleet / "fleet" / "newton" / "knowledge" / "gravity.md").read_text()
    assert text.split("---\n", 2)[2].startswith(
        "\n# Gravity, and why things fall\n\n**Search for:** `gravity`, `gravidade`\n"
    )
    assert _titles(kb, fleet)["knowledge/gravity.md"] == "Gravity, and why things fall"


def test_without_a_title_the_body_first_line_titles_the_note(fleet: Path, kb: RunKb) -> None:
    out = kb(GRAVITY, cwd=fleet, stdin=BODY)
    assert out.code == 0, out.stderr
    assert (
        "  titled from the body's first line: Things fall because mass pulls on mass "
        "(--title sets it)\n" in out.stdout
    )
    text = (fleet / "fleet" / "newton" / "knowledge" / "gravity.md").read_text()
    assert "\n# Things fall because mass pulls on mass\n\n**Search for:**" in text
    assert text.endswith("\n\n" + BODY)  # the body itself is written as given
    assert _titles(kb, fleet)["knowledge/gravity.md"] == "Things fall because mass pulls on mass"


def test_a_body_that_opens_with_its_heading_is_written_as_given(fleet: Path, kb: RunKb) -> None:
    body = "# Gravity\n\n" + BODY
    out = kb(GRAVITY, cwd=fleet, stdin=body)
    assert out.code == 0 and "titled" not in out.stdout
    text = (fleet / "fleet" / "newton" / "knowledge" / "gravity.md").read_text()
    assert text.endswith("**Exists to:** Why\n\n" + body)  # the layout the docs describe
    assert text.count("# Gravity\n") == 1
    # the same title given again is written once, above the header
    again = kb(
        [*GRAVITY[:2], "gravity-2", *GRAVITY[3:], "--title", "Gravity"], cwd=fleet, stdin=body
    )
    assert again.code == 0, again.stderr
    text = (fleet / "fleet" / "newton" / "knowledge" / "gravity-2.md").read_text()
    assert text.count("# Gravity\n") == 1 and text.index("# Gravity") < text.index("Search for")
    assert _titles(kb, fleet)["knowledge/gravity-2.md"] == "Gravity"


@pytest.mark.parametrize(
    ("body", "title"),
    [
        (
            "Things fall because mass pulls on mass.\nMore.\n",
            "Things fall because mass pulls on mass",
        ),
        ("## The inverse square\n\ntext\n", "The inverse square"),
        ("- **Backups** are tested: monthly\n", "Backups are tested: monthly"),
        ("```sh\npg_dump db\n```\nRun it nightly.\n", "Run it nightly"),
        ("> Why does it fail? Nobody knows.\n", "Why does it fail?"),
        (
            "See [[backups|the backups note]] and [the docs](http://x).\n",
            "See the backups note and the docs",
        ),
        ("e.g. the backup is tested. Then more.\n", "e.g. the backup is tested"),
        (
            "A first line that goes on and on without any end of sentence until it is far too long",
            "A first line that goes on and on without any end of sentence...",
        ),
        ("| a | b |\n|---|---|\n", ""),
    ],
)
def test_a_derived_title_is_the_first_line_cut_sensibly(body: str, title: str) -> None:
    from kb.pure.writing.notewrite import TITLE_MAX, derived_title

    assert derived_title(body) == title
    assert len(derived_title(body)) <= TITLE_MAX + 3
