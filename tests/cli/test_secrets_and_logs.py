"""Issue 24, parts 5 and 6, as the outside pass reproduced them: real `kb` processes (the CLI,
`kb serve` over stdio, `kb sync` over real git), each test named after what it proves.

- F14: `kb capture --conclusion` scrubs an SSH2 key, an AWS secret set by `aws configure`, a
  `senha` and a `.netrc` password before the deposit reaches the inbox.
- F15: a secret typed into a refused question reaches neither the miss log nor the remote
  `kb sync` pushes it to.
- F16: huge questions over MCP leave a small miss log, and a later refusal stays cheap.
- F13: NUL, an OSC-52 clipboard write and bidi overrides in a question never reach the
  terminal raw through `kb misses`; a model's ANSI escapes never do through `kb answer`.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kb.io.logs import misslog as io_misslog
from kb.pure.logs.logbounds import MAX_TEXT_CHARS
from kb.pure.notes.names import BIDI_CONTROLS
from tests.conftest import RunKb
from tests.properties.test_secrets_corpus import TEMPLATES, Filled, fill_seeded
from tests.sync.gitfleet import clone, git, git_env, seeded_remote
from tests.sync.gitfleet import kb as kb_in


def _form(shape: str, seed: int = 24) -> Filled:
    (template,) = (t for t in TEMPLATES if t.shape == shape)
    return fill_seeded(template, random.Random(seed))


# The four forms F14 found in clear in a deposit, drawn from the corpus (random bodies).
F14_FORMS = ("ssh2-encrypted-private-key", "aws-configure-set", "senha-colon", "netrc-one-line")


def _acts_on_a_terminal(text: str) -> list[str]:
    """The characters of `text` that a terminal would act on or that reorder a line."""
    return [
        c
        for c in text.replace("\r\n", "\n")
        if (ord(c) < 0x20 and c not in "\t\n") or 0x7F <= ord(c) < 0xA0 or c in BIDI_CONTROLS
    ]


def test_f14_capture_conclusion_leaves_no_ssh2_key_aws_secret_senha_or_netrc_password(
    example_fleet: Path, kb: RunKb
) -> None:
    secrets = [_form(shape) for shape in F14_FORMS]
    events = example_fleet / ".kb" / "sessions"
    events.mkdir(parents=True)
    (events / "f14.events").write_text("routed\tada\n", encoding="utf-8")
    conclusion = "rotated the deploy credentials:\n" + "\n".join(s.text for s in secrets)
    out = kb(["capture", "--session", "f14", "--conclusion", conclusion], cwd=example_fleet)
    assert out.code == 0, out.stderr
    (deposit,) = (example_fleet / "fleet" / "ada" / "inbox").glob("*-session-f14.md")
    text = deposit.read_text(encoding="utf-8")
    assert "[REDACTED_PRIVATE_KEY]" in text and "[REDACTED_SECRET]" in text
    for s in secrets:
        assert not s.leaked(text, conclusion), (s.shape, text)
        assert not s.leaked(out.stdout + out.stderr, conclusion), s.shape
    # the words around them are kept: the conclusion is still worth reading
    assert "rotated the deploy credentials" in text and "aws configure set" in text


def test_f15_a_secret_in_a_refused_question_reaches_neither_the_miss_log_nor_the_remote(
    tmp_path: Path,
) -> None:
    env = git_env(tmp_path / "home")
    remote = seeded_remote(tmp_path, env)
    one = clone(remote, tmp_path / "one", env)
    secrets = [_form("github-classic-pat"), _form("password-assignment"), _form("senha-colon")]
    question = "zorblax quintessence " + " ".join(s.text for s in secrets)
    asked = kb_in(["route", question, str(one), "--json"], one, env)
    assert json.loads(asked.stdout)["verdict"] == "nothing", asked.stdout
    miss = json.loads(asked.stdout)["miss"]
    assert miss["recorded"] and "zorblax quintessence" in miss["question"]
    synced = kb_in(["sync", str(one)], one, env)
    assert synced.code == 0, synced.stdout + synced.stderr
    log = (one / "kb-misses.txt").read_text(encoding="utf-8")
    pushed = git(["--git-dir", str(remote), "show", "HEAD:kb-misses.txt"], tmp_path, env)
    history = git(["--git-dir", str(remote), "log", "-p", "--all"], tmp_path, env)
    assert "zorblax quintessence" in pushed, "the refusal was pushed, its vocabulary kept"
    for s in secrets:
        for where, text in (("log", log), ("pushed", pushed), ("history", history)):
            assert not s.leaked(text, question), (s.shape, where)
        assert not s.leaked(miss["question"], question), s.shape


class Served:
    """`kb serve` over stdio, one JSON-RPC line per request."""

    def __init__(self, fleet: Path, misses: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kb.shell.cli.main", "serve", str(fleet)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={"KB_MISSES_PATH": str(misses), "PATH": "/usr/bin:/bin"},
        )
        self.ids = 0

    def route(self, question: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.ids += 1
        call = {
            "jsonrpc": "2.0",
            "id": self.ids,
            "method": "tools/call",
            "params": {"name": "kb_route", "arguments": {"question": question}},
        }
        self.proc.stdin.write(json.dumps(call) + "\n")
        self.proc.stdin.flush()
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return reply

    def close(self) -> None:
        self.proc.communicate(timeout=60)


def test_f16_huge_mcp_questions_leave_a_small_miss_log_and_a_refusal_stays_cheap(
    example_fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    misses = tmp_path / "misses.txt"
    server = Served(example_fleet, misses)
    try:
        for i in range(15):
            words = [f"zorblax{i}", *(f"w{i}x{j % 997}" for j in range(500_000))]
            reply = server.route(" ".join(words))  # 500,000 words, ~4 MB of JSON
            assert "result" in reply, str(reply)[:300]
    finally:
        server.close()
    rows = io_misslog.load(misses)
    assert len(rows) == 15
    assert all(len(m.question) <= MAX_TEXT_CHARS for m in rows)
    # 15 questions cut to 2,000 characters: tens of kilobytes, where it was 83 MB
    assert misses.stat().st_size < 15 * (MAX_TEXT_CHARS + 100) + 2_000
    # and a later refusal costs what it costs on an empty log (measured in this process, so
    # the load of the machine running the suite does not decide it; was ~1 s at 83 MB)
    started = time.perf_counter()
    assert io_misslog.record(misses, "quantas luas tem jupiter", (), "2026-12-31") is None
    assert time.perf_counter() - started < 0.5
    got = kb(["route", "quantas luas tem jupiter", str(example_fleet)], cwd=tmp_path,
             env={"KB_MISSES_PATH": str(misses)})  # fmt: skip
    assert got.code == 0 and got.stdout.startswith("verdict:  nothing"), got.stderr


HOSTILE = "rotas do porto \x00 \x1b]52;c;ZWNobyBwd25lZA==\x07 \u202egnp.exe \u2066x\u2069 \x1b[2J"


def test_f13_kb_misses_shows_a_questions_nul_osc52_and_bidi_overrides_escaped(
    example_fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    misses = tmp_path / "misses.txt"
    server = Served(example_fleet, misses)
    try:
        assert "result" in server.route(HOSTILE)  # JSON carries the NUL a command line cannot
    finally:
        server.close()
    # the log itself holds nothing a `cat` of it would act on
    assert not _acts_on_a_terminal(misses.read_text(encoding="utf-8"))
    env = {"KB_MISSES_PATH": str(misses)}
    out = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "misses", str(example_fleet)],
        capture_output=True,
        env={**env, "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    shown = out.stdout.decode("utf-8")
    assert not _acts_on_a_terminal(shown), [hex(ord(c)) for c in _acts_on_a_terminal(shown)]
    assert "rotas do porto \\x00 \\x1b]52;c;ZWNobyBwd25lZA==\\x07 \\u202egnp.exe" in shown
    as_json = kb(["misses", str(example_fleet), "--json"], cwd=tmp_path, env=env)
    assert as_json.code == 0, as_json.stderr
    assert not _acts_on_a_terminal(as_json.stdout)
    (logged,) = json.loads(as_json.stdout)["misses"]
    assert logged["question"].startswith("rotas do porto \\x00 \\x1b]52")


def test_f13_kb_answer_prints_a_models_ansi_escapes_escaped(
    example_fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    model = tmp_path / "answerer.py"
    model.write_text(
        "import sys\nsys.stdin.read()\n"
        "sys.stdout.write('\\x1b[31mRestore monthly\\x1b[0m (ada/knowledge/backups.md)\\n'"
        " '\\x1b]52;c;cm0gLXJmIH4=\\x07\\u202eevil\\n\\x1b[2J\\tdone\\n')\n",
        encoding="utf-8",
    )
    (example_fleet / "fleet.txt").write_text(
        f"name = Harbor\nanswerer = {sys.executable} {model}\n", encoding="utf-8"
    )
    assert kb(["index"], cwd=example_fleet).code == 0
    asked = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "answer",
         "how often should I run a backup restore test", str(example_fleet)],
        capture_output=True, env={"PATH": "/usr/bin:/bin"}, timeout=120,
    )  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    shown = asked.stdout.decode("utf-8") + asked.stderr.decode("utf-8")
    assert not _acts_on_a_terminal(shown), [hex(ord(c)) for c in _acts_on_a_terminal(shown)]
    assert "\\x1b[31mRestore monthly\\x1b[0m" in shown
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07\\u202eevil\n" in shown
    assert "\tdone\n" in shown, "lines and tabs are the reply's own and are kept"
    as_json = kb(["answer", "how often should I run a backup restore test", "--json"],
                 cwd=example_fleet)  # fmt: skip
    reply = json.loads(as_json.stdout)["answer"]
    assert reply.startswith("\x1b[31mRestore"), "JSON keeps the reply exactly, escaped by JSON"
    assert not _acts_on_a_terminal(as_json.stdout)
