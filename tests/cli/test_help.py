"""Help per verb (issue 16): every verb of the command table has one help entry, every field
of its input class is explained exactly once, and the CLI prints it for `kb help <verb>`,
`kb <verb> --help`, `kb <verb> -h` and `kb --help <verb>` alike. Also `python -m kb`, shell
completion, the wording of an unknown flag, and `--exit-code`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from kb.shell.cli.table import BY_NAME, COMMANDS
from kb.shell.cli.verbhelp import HELP, flag_line, flag_names
from tests.conftest import RunKb, check_golden

VERBS = [c.name for c in COMMANDS]


def test_every_verb_has_help_and_every_help_a_verb() -> None:
    assert set(HELP) == set(BY_NAME)


@pytest.mark.parametrize("verb", VERBS)
def test_every_field_is_explained_exactly_once(verb: str) -> None:
    entry = HELP[verb]
    named = [f for item in (*entry.args, *entry.flags) for f in item.fields]
    fields = [a.name for a in attrs.fields(BY_NAME[verb].input_type)]
    assert sorted(named) == sorted(fields)
    assert all(item.line and "\n" not in item.line for item in (*entry.args, *entry.flags))
    assert entry.examples and all(e.startswith(("kb ", "echo ")) for e in entry.examples)
    assert entry.exits and all(0 <= code <= 3 for code, _ in entry.exits)


@pytest.mark.parametrize("verb", VERBS)
def test_examples_are_command_lines_the_parser_accepts(verb: str) -> None:
    """Each example parses (it is a well-formed command line of that verb)."""
    import shlex

    from kb.shell.cli.main import _parse
    from kb.shell.cli.outcome import Outcome

    for example in HELP[verb].examples:
        argv = shlex.split(example.split("| ", 1)[-1])
        assert argv[:2] == ["kb", verb], example
        rest = [dict(BY_NAME[verb].aliases).get(a, a) for a in argv[2:]]
        parsed = _parse(BY_NAME[verb], rest)
        assert not isinstance(parsed, Outcome), (example, parsed)


def test_flag_line_and_names_read_the_same_entry() -> None:
    assert flag_line("route", "exit_code") == "exit 3 instead of 0 when the verdict is nothing"
    assert flag_line("route", "question") == "the question, as one argument: quote it"
    assert flag_line("nope", "x") is None
    assert "--question" not in flag_names("answer")
    assert flag_names("commit") == ["-m", "--message"]


@pytest.mark.parametrize("verb", VERBS)
def test_help_per_verb_is_golden_and_the_same_every_way(kb: RunKb, verb: str) -> None:
    out = kb(["help", verb])
    assert (out.code, out.stderr) == (0, "")
    check_golden(f"help/{verb}.txt", out.stdout)
    assert kb([verb, "--help"]).stdout == out.stdout
    assert kb(["--help", verb]).stdout == out.stdout


def test_dash_h_after_arguments_is_the_verbs_help(kb: RunKb) -> None:
    route = kb(["help", "route"]).stdout
    assert kb(["route", "some question", "-h"]).stdout == route
    boot = kb(["boot", "--help"])  # a hook verb too: help, exit 0
    assert boot.code == 0 and boot.stdout.startswith("kb boot: ")


def test_help_without_a_verb_is_the_usage(kb: RunKb) -> None:
    usage = kb([])
    for args in (["help"], ["--help"], ["-h"], ["help", "help"], ["frobnicate", "--help"]):
        out = kb(args)
        assert (out.code, out.stdout) == (0, usage.stdout), args
    assert "  kb help <verb>  " in usage.stdout


def test_help_for_an_unknown_verb_is_one_line_and_exit_2(kb: RunKb) -> None:
    out = kb(["help", "frobnicate"])
    assert (out.code, out.stdout) == (2, "")
    assert out.stderr.startswith(
        "kb help: no verb 'frobnicate'. The verbs are abstentions, answer,"
    )
    assert out.stderr.count("\n") == 1
    near = kb(["help", "rout"])
    assert (near.code, near.stdout) == (2, "")
    assert near.stderr.startswith(
        "kb help: no verb 'rout'; did you mean `kb help route`? The verbs are abstentions,"
    )
    assert near.stderr.count("\n") == 1


# -- issue 26: did you mean, each verb's own usage, a summary per verb ------------------------


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("rout", "route"),
        ("indx", "index"),
        ("chek", "check"),
        ("doctr", "doctor"),
        ("hlep", "help"),
        ("serv", "serve"),
        ("remeber", "remember"),
    ],
)
def test_a_verb_close_to_a_known_one_says_which_was_meant(
    kb: RunKb, typed: str, meant: str
) -> None:
    out = kb([typed, "how often should I run a backup restore test"])
    assert (out.code, out.stdout) == (2, "")  # an unknown verb's status (decision 0021)
    assert out.stderr == (
        f"kb: unknown command '{typed}'; did you mean `kb {meant}`? (`kb help` lists the verbs)\n"
    )


def test_a_verb_close_to_none_gets_the_verb_list(kb: RunKb) -> None:
    for word in ("frobnicate", "find", "x"):
        out = kb([word, "q"])
        assert out.code == 2
        assert out.stderr == f"kb: unknown command '{word}'\n\n"
        assert out.stdout == kb(["help"]).stdout


USAGE_ERRORS = [
    (["route"], "kb: route needs a question\n\n"),
    (["route", "q", "--jsn"], None),
    (["route", "q", "--top", "many"], None),
    (["answer"], "kb: answer needs a question\n\n"),
    (["write"], "kb: write needs an agent and a name for the note\n\n"),
    (["init"], "kb: init needs a name for the agent\n\n"),
    (["eval"], "kb: eval needs a gold file\n\n"),
    (["links"], None),
    (["list", "--frob"], None),
    (["source"], None),
    (["handoff", "save"], None),
]


@pytest.mark.parametrize(
    ("args", "stderr"), USAGE_ERRORS, ids=[" ".join(a) for a, _ in USAGE_ERRORS]
)
def test_a_usage_error_prints_that_verbs_usage_not_the_verb_list(
    kb: RunKb, tmp_path: Path, args: list[str], stderr: str | None
) -> None:
    from kb.shell.cli.table import verb_usage

    out = kb(args, cwd=tmp_path)
    assert out.code == 2, out.stderr
    assert out.stdout == verb_usage(BY_NAME[args[0]])
    assert out.stdout.startswith("usage:\n  kb " + args[0] + " ")
    assert f"`kb help {args[0]}`" in out.stdout
    assert "verbs:" not in out.stdout
    assert not [c.name for c in COMMANDS if c.name != args[0] and f"kb {c.name} " in out.stdout]
    if stderr is not None:
        assert out.stderr == stderr
    else:
        assert out.stderr.startswith(f"kb {args[0]}") or out.stderr.startswith("kb: ")


def test_a_hook_verbs_usage_error_prints_nothing_on_stdout(kb: RunKb) -> None:
    out = kb(["boot", "--jsn"])
    assert (out.code, out.stdout) == (0, "")  # a hook exits 0; its stdout reaches the model
    assert out.stderr.startswith("kb boot: Unknown option: --jsn.")


def test_kb_help_lists_every_verb_with_its_summary(kb: RunKb) -> None:
    out = kb(["help"])
    assert out.code == 0
    lines = out.stdout.splitlines()
    for c in COMMANDS:
        assert c.summary, c.name
        row = [line for line in lines if line.split()[:1] == [c.name]]
        assert len(row) == 1, c.name
        assert row[0].startswith(f"  {c.name} ") and row[0].endswith(c.summary), row
    assert all(len(line) <= 100 for line in lines)


def test_an_unknown_flag_names_the_verbs_flags_not_its_positionals(kb: RunKb) -> None:
    out = kb(["answer", "a question", "--jsn"])
    assert out.code == 2
    check_golden("help/unknown-flag-answer.txt", out.stderr)
    assert "--question" not in out.stderr and out.stderr.count("\n") == 1


def test_python_dash_m_kb(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-m", "kb", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert out.returncode == 0 and out.stdout.startswith("kb 0.1.0 (")
    help_out = subprocess.run(
        [sys.executable, "-m", "kb", "help", "route"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert help_out.stdout.startswith("kb route: ")


# -- shell completion --------------------------------------------------------------------------


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_name_every_verb(kb: RunKb, shell: str) -> None:
    out = kb(["--completion", shell])
    assert (out.code, out.stderr) == (0, "")
    assert all(verb in out.stdout for verb in VERBS)
    assert "exit-code" in out.stdout  # fish spells it `-l exit-code`


def test_completion_needs_a_known_shell(kb: RunKb) -> None:
    for args in (["--completion"], ["--completion", "tcsh"], ["--completion", "bash", "x"]):
        out = kb(args)
        assert out.code == 2 and out.stderr.startswith("kb --completion takes one of bash,")


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here")
def test_bash_completes_verbs_and_flags(kb: RunKb, tmp_path: Path) -> None:
    script = tmp_path / "kb.bash"
    script.write_text(kb(["--completion", "bash"]).stdout, encoding="utf-8")

    def complete(*words: str) -> list[str]:
        line = " ".join(["kb", *words])
        probe = (
            f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words)}; "
            'COMP_LINE="' + line + '"; _kb; printf "%s\\n" "${COMPREPLY[@]}"'
        )
        done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert complete("rou") == ["route"]
    assert "--exit-code" in complete("route", "q", "--ex")


# -- --exit-code ---------------------------------------------------------------------------------


def test_exit_code_on_route_and_answer(example_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=example_fleet).code == 0
    nothing, hit = (
        "how far away is the andromeda galaxy",
        "how often should I run a backup restore test",
    )
    for verb in ("route", "answer"):
        assert kb([verb, nothing], cwd=example_fleet).code == 0  # the default stays 0
        assert kb([verb, nothing, "--exit-code"], cwd=example_fleet).code == 3
        assert kb([verb, nothing, "--exit-code", "--json"], cwd=example_fleet).code == 3
        # (the copied fleet answers with its own echo model: a hit is 0, not 3)
        assert kb([verb, hit, "--exit-code"], cwd=example_fleet).code == 0
    assert kb(["route", nothing, "--exit-code", "--context"], cwd=example_fleet).code == 3
    # a usage error is still 2, whatever the flag
    assert kb(["route", "--exit-code"], cwd=example_fleet).code == 2
