"""kb.pure.fleet.doctor: reading a hook's shell line for the kb command in it, and judging facts
into lines and an exit status."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from kb.pure.fleet.doctor import (
    FIX,
    OK,
    SKIP,
    Check,
    DoctorFacts,
    ExtraFacts,
    FleetFacts,
    HookFacts,
    McpFacts,
    McpServerFacts,
    ProbeRun,
    Resolved,
    SettingsFacts,
    checks,
    exit_code,
    kb_command,
    kb_verb,
    render,
    runs_kb,
    simple_commands,
)


def test_simple_commands_split_at_operators_and_drop_assignments() -> None:
    assert simple_commands('A=1 B="x y" kb boot "$HOME/f" --all && echo ok; true | cat') == [
        ["kb", "boot", "$HOME/f", "--all"],
        ["echo", "ok"],
        ["true"],
        ["cat"],
    ]
    assert simple_commands("env -i KB_X=1 /opt/kb route q") == [["/opt/kb", "route", "q"]]
    assert simple_commands('kb boot "unclosed') is None
    assert simple_commands("env") == [["env"]]
    assert simple_commands("kb boot '&&' \"|\" x&&y") == [["kb", "boot", "&&", "|", "x"], ["y"]]


def test_runs_kb_knows_the_script_and_the_module() -> None:
    assert runs_kb(["kb", "boot"])
    assert runs_kb(["/home/me/.venv/bin/kb", "boot"])
    assert runs_kb(["python3", "-m", "kb", "boot"])
    assert runs_kb(["/usr/bin/python3.11", "-m", "kb.shell.cli.main", "capture"])
    assert not runs_kb(["kbx", "boot"])
    assert not runs_kb(["echo", "kb"])
    assert not runs_kb(["python3", "-m", "kbx"])
    assert not runs_kb([])


def test_the_verb_follows_the_program_or_the_module() -> None:
    assert kb_verb(["kb", "boot", "fleet"]) == "boot"
    assert kb_verb(["kb", "commit", "a", "-m", "msg"]) == "commit"
    assert kb_verb(["python3", "-m", "kb.shell.cli.main", "capture"]) == "capture"
    assert kb_verb(["kb", "--version"]) == ""


def test_a_kb_hook_behind_a_cd_is_found() -> None:
    assert kb_command('cd "$CLAUDE_PROJECT_DIR" && KB_MODEL_TIMEOUT=20 kb boot . --all') == [
        "kb",
        "boot",
        ".",
        "--all",
    ]
    assert kb_command("echo kb") is None


_WORD = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00")) | (
    st.sampled_from(["&&", "|", ";", "(", "a b", "'", '"', "\\", "$HOME", "x&&y"])
)


@given(
    program=st.sampled_from(["kb", "/opt/my tools/bin/kb", "./.venv/bin/kb"]),
    args=st.lists(_WORD, max_size=5),
    assignments=st.lists(st.tuples(st.from_regex(r"[A-Z_][A-Z0-9_]{0,6}", fullmatch=True), _WORD)),
)
def test_any_quoted_kb_command_is_read_back_word_for_word(
    program: str, args: list[str], assignments: list[tuple[str, str]]
) -> None:
    words = [program, *args]
    line = " ".join(f"{k}={shlex.quote(v)}" for k, v in assignments)
    line = f"cd /somewhere && {line} {shlex.join(words)}"
    assert kb_command(line) == words


def _facts(**changes: object) -> DoctorFacts:
    base = {
        "kb_path": "/v/bin/kb",
        "fleet": FleetFacts("fleet", False, bases=2, entries=5),
        "models": (),
        "extras": (ExtraFacts("mcp", "serve", True, "hint"),),
        "settings": (),
        "mcp": None,
    }
    base.update(changes)
    return DoctorFacts(**base)  # type: ignore[arg-type]


def test_skips_alone_exit_zero_and_any_fix_exits_one() -> None:
    found = checks(_facts())
    assert exit_code(found) == 0
    assert {c.status for c in found} == {OK, SKIP}
    assert render(found).endswith("nothing to fix: 4 ok, 3 skipped\n")
    stale = checks(_facts(fleet=FleetFacts("my fleet", True, bases=1, stale=1)))
    assert exit_code(stale) == 1
    assert (
        Check(
            FIX,
            "index",
            "1 file is new or changed since the last kb index; run: kb index 'my fleet' --all",
        )
        in stale
    )


def test_a_missing_mcp_extra_is_a_fix_only_when_mcp_json_starts_kb() -> None:
    extras = (ExtraFacts("mcp", "serve", False, "kb serve needs the MCP extra: pip ..."),)
    alone = checks(_facts(extras=extras))
    assert Check(SKIP, "extra mcp", "not installed; kb serve needs the MCP extra: pip ...") in alone
    server = McpServerFacts("kb", True, None, Resolved("/v/bin/kb", "/v/bin/kb", "at its path"))
    wanted = checks(_facts(extras=extras, mcp=McpFacts(".mcp.json", "", (server,))))
    assert exit_code(wanted) == 1
    assert (
        Check(FIX, "extra mcp", ".mcp.json starts kb, but kb serve needs the MCP extra: pip ...")
        in wanted
    )


def test_a_hook_that_answers_is_ok_and_one_that_is_not_kb_is_skipped() -> None:
    answered = HookFacts(
        "UserPromptSubmit",
        "/v/bin/kb boot ~/fleet",
        True,
        Resolved("/v/bin/kb", "/v/bin/kb", "at its path"),
        ProbeRun(0, 7, "", 30.0),
    )
    other = HookFacts("Stop", "prettier --write .", False, None, None)
    found = checks(_facts(settings=(SettingsFacts("s.json", "", (answered, other)),)))
    assert Check(OK, "hook UserPromptSubmit (s.json)", "kb boot ran and answered") in found
    assert Check(SKIP, "hook Stop (s.json)", "`prettier` is not kb; not run") in found
    assert exit_code(found) == 0


def test_the_daemon_line_follows_the_fleet_size_and_the_daemons_build() -> None:
    from kb.pure.fleet.doctor import DAEMON_ADVISED_FILES, DaemonFacts

    def line(fleet: FleetFacts, daemon: DaemonFacts | None) -> list[Check]:
        return [c for c in checks(_facts(fleet=fleet, daemon=daemon)) if c.subject == "daemon"]

    small = FleetFacts("f", False, bases=1, files=DAEMON_ADVISED_FILES - 1)
    large = FleetFacts("f", False, bases=1, files=DAEMON_ADVISED_FILES)
    none = DaemonFacts(running=False)
    assert [c.status for c in line(small, none)] == [OK]
    (advice,) = line(large, none)
    assert advice.status == SKIP and "kb daemon start f" in advice.text  # advice, never a FIX
    (warm,) = line(large, DaemonFacts(running=True, pid=42))
    assert warm.status == OK and "pid 42" in warm.text
    (stale,) = line(small, DaemonFacts(running=True, same_build=False, pid=42))
    assert stale.status == FIX and "another kb build" in stale.text
    assert line(large, None) == []  # not asked
    assert line(FleetFacts("f", False, "does not open"), none) == []


def test_only_boot_and_capture_hooks_are_run_by_the_doctor() -> None:
    from kb.pure.fleet.doctor import probed

    assert probed(["kb", "boot", "--all"]) and probed(["/x/kb", "capture"])
    assert not probed(["kb", "daemon", "start", "fleet"]) and not probed(["kb", "index"])
