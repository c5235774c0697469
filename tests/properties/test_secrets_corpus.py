"""Secrets (issue 8, item 7): a written corpus of credentials in every common shape never
leaves kb unscrubbed through the doors the scrubber guards, and what kb serves afterwards
never carries one.

The rule under test (docs/secrets.md, "Where it applies"): the scrubber guards the doors
through which kb writes what a *session* said (`kb capture`'s deposit, `kb handoff`'s
record); notes are served verbatim. So:

- every corpus template, with bodies drawn at random, alone or embedded anywhere in
  generated prose, comes out of `kb.pure.sessions.scrub.scrub` with none of its secret parts;
- through `kb capture` (a `--conclusion`, and questions `kb boot` recorded as refused) and
  `kb handoff save`, the files on disk hold none of them;
- every surface that serves passages (route text, JSON, hybrid and --context, answer and
  the prompt its model was sent, boot, the MCP tools, the reading room's API, the library)
  asked about such a deposit serves its passages, markers and all, and none of the secrets;
- a note a person wrote is served byte for byte, scrubber-bait included (the verbatim rule);
- the clean corpus (prose, git hashes, UUIDs, note and source keys) comes back unchanged.

What counts as a leak (`surviving`, the reusable check): any run of WINDOW (six) consecutive
characters of a secret's secret part found in the output, so half a key left behind is a
leak as much as the whole key. A run that the text around the secrets holds as well (the
template's fixed text, the prose it sits in, the markers) is not counted, since it may have
come from there. Every drawn body is random over its alphabet and holds a digit, so a run of
six turns up elsewhere only by a coincidence of about one in 16**6 for hex and far less for
the others.

The corpus has forms the scrubber is known to miss (`## known-miss: ...`, the limits
docs/secrets.md states); `test_the_scrubber_catches_at_least_97_percent_of_the_corpus`
measures the share caught and holds the misses to exactly that list.
"""

from __future__ import annotations

import io
import json
import random
import re
import string
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from kb.io.answering.memory import Memory
from kb.io.sessions import records as sessions
from kb.pure.sessions.scrub import scrub
from kb.pure.sessions.session import Concluded, Refused, Routed, events_name
from kb.pure.writing.sources import mint_key
from kb.shell.cli.main import run
from kb.shell.mcp.mcp_server import Server
from kb.shell.ui.room import Reader
from kb.shell.ui.server import build_app
from tests.conftest import REPO

CORPUS = REPO / "tests" / "fixtures" / "secrets" / "corpus.txt"
CLEAN = REPO / "tests" / "fixtures" / "secrets" / "clean.txt"

# -- the corpus ------------------------------------------------------------------------------

ALPHABETS = {
    "alnum": string.ascii_letters + string.digits,
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "b64": string.ascii_letters + string.digits + "+/",
    "b64url": string.ascii_letters + string.digits + "-_",
    "upper": string.ascii_uppercase + string.digits,
    "password": string.ascii_letters + string.digits + "!#$%^&*+-_~.",
}
ALPHABETS["base58"] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
ALPHABETS["lower"] = string.ascii_lowercase
PLACEHOLDER = re.compile(r"\{\{(\w+):(\d+)(?:-(\d+))?\}\}")
# How many consecutive characters of a secret part make a leak.
WINDOW = 6
MARKERS = ("[REDACTED_KEY]", "[REDACTED_TOKEN]", "[REDACTED_SECRET]", "[REDACTED_PRIVATE_KEY]")
KNOWN_MISS = "known-miss: "
# The share of the corpus the scrubber must catch (issue 24).
REQUIRED_SHARE = 0.97


def surviving(out: str, parts: Iterable[str], context: str = "") -> list[str]:
    """The runs of WINDOW consecutive characters of any of `parts` (the secret parts of a
    text) that `out` still holds; a part shorter than WINDOW is looked for whole. A run that
    `context` (the text around the secrets, with the secrets taken out) or a marker holds as
    well is not counted: it may have come from there. Empty means nothing leaked."""
    allowed = "\0".join((context, *MARKERS))
    found: list[str] = []
    for part in parts:
        runs = (
            [part]
            if len(part) < WINDOW
            else [part[i : i + WINDOW] for i in range(len(part) - WINDOW + 1)]
        )
        found += [r for r in dict.fromkeys(runs) if r and r in out and r not in allowed]
    return found


# The shapes the issue names; the corpus must keep a record of each (by name prefix).
REQUIRED: tuple[str, ...] = (
    "aws-access-key-id", "aws-secret-access-key", "github-classic-pat", "github-oauth",
    "github-fine-grained-pat", "gitlab-pat", "slack-bot", "slack-user", "stripe-live-secret",
    "stripe-restricted", "openai-legacy", "openai-project", "anthropic", "google-api-key",
    "jwt", "pem-rsa", "pem-ec", "pem-openssh", "url-password", "password-assignment",
    "api-key-colon", "token-assignment", "authorization-bearer", "authorization-basic",
    "env-file", "azure-storage-connection-string", "npm-token", "twilio", "sendgrid",
    "heroku", "docker", "secret-key-base", "encryption-key-env",
)  # fmt: skip
# The forms issue 24 (F14) found missed, and the password labels it asks for: each must be
# in the corpus (by name prefix) and caught.
REQUIRED_ISSUE_24 = (
    "aws-configure-set", "ssh2-", "putty-", "openvpn-static-key", "pem-lower-case-armour",
    "netrc-", "senha-", "passwort-", "kennwort-", "contrasena-", "clave-", "pw-assignment",
    "databricks", "linear", "notion", "atlassian-api-token", "groq", "replicate",
    "hashicorp-vault", "tailscale", "new-relic", "grafana-service-account", "1password",
    "square-access-token", "telegram-bot",
)  # fmt: skip
REQUIRED = REQUIRED + REQUIRED_ISSUE_24


@dataclass(frozen=True)
class Template:
    shape: str
    text: str


def load_corpus() -> list[Template]:
    """`## shape` opens a record, which runs to the next one; lines above the first are
    comments. A record's text keeps its newlines, without leading and trailing blank lines."""
    records: list[tuple[str, list[str]]] = []
    for line in CORPUS.read_text(encoding="utf-8").split("\n"):
        if line.startswith("## "):
            records.append((line[3:].strip(), []))
        elif records:
            records[-1][1].append(line)
    return [Template(shape, "\n".join(lines).strip("\n")) for shape, lines in records]


def load_clean() -> list[str]:
    lines = CLEAN.read_text(encoding="utf-8").split("\n")
    return [line for line in lines if line and not line.startswith("#")]


TEMPLATES = load_corpus()

# (alphabet, length) -> a body of that alphabet and length holding at least one digit
BodyMaker = Callable[[str, int], str]


@dataclass(frozen=True)
class Filled:
    shape: str
    text: str
    parts: tuple[str, ...]
    context: str  # the text with every secret part taken out (a NUL in its place)

    def leaked(self, out: str, around: str = "") -> list[str]:
        """What of this secret `out` still holds (`surviving`); `around` is more text that
        stood beside it in the input."""
        return surviving(out, self.parts, self.context + "\0" + around)


def fill(template: Template, body: BodyMaker, length: Callable[[int, int], int]) -> Filled:
    parts: list[str] = []

    def one(m: re.Match[str]) -> str:
        lo = int(m.group(2))
        hi = int(m.group(3) or lo)
        drawn = body(m.group(1), length(lo, hi))
        parts.append(drawn)
        return drawn

    text = PLACEHOLDER.sub(one, template.text)
    context = PLACEHOLDER.sub("\0", template.text)
    return Filled(template.shape, text, tuple(parts), context)


def fill_seeded(template: Template, rnd: random.Random) -> Filled:
    """The template with bodies from a seeded generator (for the example tests)."""

    def body(name: str, n: int) -> str:
        chars = [rnd.choice(ALPHABETS[name]) for _ in range(n)]
        chars[rnd.randrange(n)] = rnd.choice(string.digits)
        return "".join(chars)

    return fill(template, body, rnd.randint)


def is_known_miss(template: Template) -> bool:
    return template.shape.startswith(KNOWN_MISS)


# The forms the scrubber must catch: every one but the known misses.
CAUGHT = [t for t in TEMPLATES if not is_known_miss(t)]


def seeded(seed: int) -> list[Filled]:
    """Every form the scrubber must catch once, seeded."""
    rnd = random.Random(seed)
    return [fill_seeded(t, rnd) for t in CAUGHT]


@st.composite
def filled(draw: st.DrawFn) -> Filled:
    """A form the scrubber must catch, its bodies drawn by a generator Hypothesis seeds: the
    bodies are random over their alphabets, as real keys are, which `surviving` relies on
    (a body of one repeated character would match runs of the text around it)."""
    template = draw(st.sampled_from(CAUGHT))
    return fill_seeded(template, draw(st.randoms(use_true_random=False)))


# Prose around a secret: no digit (see the module docstring), any other character a session
# might hold, the rules' own words included.
PROSE = st.lists(
    st.one_of(
        st.text(alphabet=string.ascii_letters + " \n.,;!?'()é中—", max_size=12),
        st.sampled_from(["token", "password", "key", "secret", "bearer", "the", "api"]),
    ),
    max_size=6,
).map(" ".join)
# A separator keeps a secret from fusing with the word before it (`xAKIA...` is no key id).
LEFT = st.sampled_from([" ", "\n", "\t", "(", '"', "'", "`", "<", "[", "{", ": ", "= ", " - "])
RIGHT = st.sampled_from([" ", "\n", ".", ",", ";", ":", "!", "?", ")", '"', "'", "`", ">", ""])


@st.composite
def embedded(draw: st.DrawFn) -> tuple[str, list[Filled]]:
    """One to three corpus secrets anywhere in generated prose."""
    pieces = [draw(PROSE)]
    secrets: list[Filled] = []
    for _ in range(draw(st.integers(1, 3))):
        secret = draw(filled())
        secrets.append(secret)
        pieces += [draw(LEFT), secret.text, draw(RIGHT), " ", draw(PROSE)]
    return "".join(pieces), secrets


def leaks(out: str, secrets: list[Filled], text: str = "") -> list[tuple[str, str]]:
    """Every (shape, run) of `secrets` that `out` still holds; `text` is the input they were
    embedded in (its prose counts as context)."""
    around = text
    for s in secrets:
        for part in s.parts:
            around = around.replace(part, "\0")
    return [(s.shape, r) for s in secrets for r in s.leaked(out, around)]


# -- the scrubber -----------------------------------------------------------------------------


def test_the_corpus_covers_every_shape_the_issue_names() -> None:
    shapes = [t.shape for t in TEMPLATES]
    assert len(shapes) == len(set(shapes)), "a shape is named twice"
    assert len(shapes) >= 150, len(shapes)
    for wanted in REQUIRED:
        assert any(s.startswith(wanted) for s in shapes), wanted
    for wanted in REQUIRED_ISSUE_24:
        assert all(caught(t) for t in TEMPLATES if t.shape.startswith(wanted)), wanted
    for t in TEMPLATES:
        assert PLACEHOLDER.search(t.text), f"{t.shape} has no secret part"
        for m in PLACEHOLDER.finditer(t.text):
            assert m.group(1) in ALPHABETS, (t.shape, m.group(0))


def _sentences(secret: Filled) -> tuple[str, ...]:
    return (
        secret.text,
        f"we decided to keep {secret.text} in the vault",
        f"see ({secret.text}).",
    )


def caught(template: Template, tries: int = 10) -> bool:
    """Whether the scrubber catches this form: every one of `tries` fillings, alone and in
    two sentences, comes out with a marker and with no run of WINDOW of its secret parts."""
    rnd = random.Random(template.shape)
    for _ in range(tries):
        secret = fill_seeded(template, rnd)
        for text in _sentences(secret):
            out = scrub(text)
            if secret.leaked(out, text.replace(secret.text, "\0")) or "[REDACTED_" not in out:
                return False
    return True


def test_the_scrubber_catches_at_least_97_percent_of_the_corpus() -> None:
    missed = [t.shape for t in TEMPLATES if not caught(t)]
    share = 1 - len(missed) / len(TEMPLATES)
    total = len(TEMPLATES)
    print(f"caught {total - len(missed)} of {total} ({share:.1%}); missed {missed}")
    assert share >= REQUIRED_SHARE, (share, missed)
    # the misses are exactly the ones the corpus and docs/secrets.md name: a new miss is a
    # regression, and a known miss caught at last should lose its label
    assert missed == [t.shape for t in TEMPLATES if is_known_miss(t)], missed


@pytest.mark.parametrize("template", CAUGHT, ids=[t.shape for t in CAUGHT])
def test_each_shape_is_scrubbed_alone_and_in_a_sentence(template: Template) -> None:
    rnd = random.Random(template.shape)
    for _ in range(10):
        secret = fill_seeded(template, rnd)
        for text in _sentences(secret):
            out = scrub(text)
            assert not secret.leaked(out), (template.shape, out)
            assert "[REDACTED_" in out


def test_the_leak_check_catches_a_partial_leak() -> None:
    """Half a key left behind is a leak: a scrubber that kept six characters of a secret
    part, at its start, its end or inside, is caught; one that kept five is not (five may
    be a coincidence), nor is what the text around the secret holds."""
    (template,) = (t for t in TEMPLATES if t.shape == "github-classic-pat")
    secret = fill_seeded(template, random.Random(1))
    body = secret.parts[0]
    assert secret.leaked(f"[REDACTED_KEY] and then {body[:6]}")
    assert secret.leaked(f"{body[-6:]} [REDACTED_KEY]")
    assert secret.leaked(f"ghp_{body[10:16]}")
    assert not secret.leaked(f"{body[:5]} [REDACTED_KEY] {body[-5:]}")
    assert not secret.leaked("ghp_[REDACTED_KEY]")
    assert surviving("keep the words here", ["the words here"], "keep the words here") == []


@settings(max_examples=300, deadline=None)
@given(embedded())
def test_no_corpus_secret_survives_anywhere_in_prose(case: tuple[str, list[Filled]]) -> None:
    text, secrets = case
    out = scrub(text)
    assert not leaks(out, secrets, text), (leaks(out, secrets, text), out)
    assert scrub(out) == out  # and scrubbing what was scrubbed changes nothing


@pytest.mark.parametrize("line", load_clean())
def test_clean_text_survives_unchanged(line: str) -> None:
    assert scrub(line) == line


def test_the_clean_corpus_as_one_text_survives_unchanged() -> None:
    text = CLEAN.read_text(encoding="utf-8")
    assert scrub(text) == text


HEX = "0123456789abcdef"
CLEAN_PROSE = st.text(alphabet=string.ascii_lowercase + " .,", max_size=30)


@settings(max_examples=200, deadline=None)
@given(
    st.binary(min_size=16, max_size=16),
    st.uuids(),
    st.text(alphabet=HEX, min_size=40, max_size=40),
    st.integers(7, 12),
    CLEAN_PROSE,
)
def test_note_keys_hashes_and_uuids_survive(
    entropy: bytes, an_id: uuid.UUID, sha: str, short: int, prose: str
) -> None:
    key = mint_key(entropy) or "MASLW2HT43"
    lines = [
        f"{prose} [src:{key}] {prose}",
        f"- [src:{key}] Smith, Ann (2024). A title. Acme Press.",
        f"key = {key}",
        f"fixed in {sha[:short]} (commit {sha}) {prose}",
        f"git show {sha}",
        f"the request {an_id} failed; request_id={an_id}; trace id: {an_id}",
        f'"id": "{an_id}"',
        f"**Search for:** {prose}, token rotation, api key, bearer token, {key}",
    ]
    for line in lines:
        assert scrub(line) == line


# -- the doors: kb capture and kb handoff ------------------------------------------------------


def _fleet(root: Path) -> Path:
    """A fleet with one agent, `ada`, whose base the deposits land in."""
    base = root / "fleet" / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = ada\nrole = backups and restic\n", encoding="utf-8")
    (base / "MAP.md").write_text(
        "# Ada\n\n- [Backups](knowledge/backups.md): how the backups run\n", encoding="utf-8"
    )
    (base / "knowledge" / "backups.md").write_text(
        "# Backups\n\n**Search for:** backup, restic, snapshot, restore\n\n"
        "Restic takes a snapshot every night; a restore drill runs monthly.\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture(scope="module")
def capture_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _fleet(tmp_path_factory.mktemp("secrets-capture"))


def _disk_text(root: Path) -> str:
    """Every file kb may have written under the fleet, as one text (lossy for binaries)."""
    out = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix != ".db" and ".db-" not in p.name:
            out.append(p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


_session_ids = iter(range(1 << 30))


@settings(max_examples=60, deadline=None)
@given(embedded(), embedded())
def test_capture_writes_no_secret_to_disk(
    capture_root: Path, conclusion: tuple[str, list[Filled]], question: tuple[str, list[Filled]]
) -> None:
    session = f"s-{next(_session_ids)}"
    root = str(capture_root)
    # what `kb boot` records for this session: the routed agent and a refused question
    # (raw, as boot writes it; the deposit scrubs it as it renders)
    sessions.append_event(root, session, Routed("ada"))
    sessions.append_event(root, session, Refused(f"why {question[0]}", ()))
    out = run(["capture", root, "--session", session, "--conclusion", f"so {conclusion[0]}"])
    assert out.code == 0, out.stderr
    assert "captured session" in out.stdout, out.stdout
    deposits = list((capture_root / "fleet" / "ada" / "inbox").glob(f"*-session-{session}.md"))
    assert len(deposits) == 1
    text = deposits[0].read_text(encoding="utf-8")
    events = capture_root / ".kb" / "sessions" / events_name(session)
    on_disk = text + (events.read_text(encoding="utf-8") if events.exists() else "")
    around = conclusion[0] + "\0" + question[0]
    assert not leaks(on_disk, conclusion[1] + question[1], around), (text, conclusion, question)
    assert "[REDACTED_" in text
    assert not leaks(out.stdout + out.stderr, conclusion[1], conclusion[0])


def test_handoff_writes_and_shows_no_secret(tmp_path: Path) -> None:
    root = _fleet(tmp_path)
    secrets = list(seeded(7))
    args = ["handoff", "save", "ada", str(root), "--session", "h1", "--task", "rotate keys"]
    for s in secrets:
        args += ["--decision", f"keep {s.text}", "--ref", f"see {s.text}"]
    out = run(args)
    assert out.code == 0, out.stderr
    shown = [out.stdout + out.stderr]
    for extra in (["--show"], ["--json"]):
        got = run(["handoff", str(root), "--session", "h1", *extra])
        assert got.code == 0, got.stderr
        shown.append(got.stdout + got.stderr)
    for s in secrets:
        assert not s.leaked(_disk_text(root)), s.shape
        for text in shown:
            assert not s.leaked(text), (s.shape, text)
    assert "[REDACTED_" in shown[1]


# -- what is served afterwards -------------------------------------------------------------------


@contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin = saved


def _mcp(server: Server, tool: str, arguments: Mapping[str, object]) -> str:
    reply = server.handle(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
    )
    assert reply is not None and "result" in reply, reply
    return json.dumps(reply, ensure_ascii=False)


QUESTION = "restic vault rotation decided"


def _served_everywhere(root: Path, deposit_rel: str) -> dict[str, str]:
    """What every passage-serving surface gives for a question the deposit answers."""
    where = str(root)
    got: dict[str, str] = {}
    for flags in ([], ["--json"], ["--hybrid"], ["--context", "--context-total", "200000"]):
        out = run(["route", QUESTION, where, "--top", "20", *flags])
        got[f"route {flags}"] = out.stdout + out.stderr
    out = run(["answer", QUESTION, where, "--top", "20"])
    got["answer"] = out.stdout + out.stderr
    got["answer prompts"] = (root / "prompts.txt").read_text(encoding="utf-8")
    payload = json.dumps({"prompt": QUESTION, "session_id": "serve-1", "cwd": where})
    for flags in ([], ["--all"]):
        with _stdin(payload):
            got[f"boot {flags}"] = run(["boot", where, *flags]).stdout
    out = run(["remember", QUESTION, where, "--json"])
    got["remember"] = out.stdout + out.stderr
    with Memory.open([where]) as memory:
        server = Server(memory, 20)
        for tool, arguments in (
            ("kb_route", {"question": QUESTION}),
            ("kb_retrieve", {"question": QUESTION}),
            ("kb_remember", {"claim": QUESTION}),
            ("kb_list", {"limit": 500}),
        ):
            got[f"mcp {tool}"] = _mcp(server, tool, arguments)
        answer = memory.ask(QUESTION, 20)
        got["library ask"] = repr(answer.found)
        got["library remember"] = repr(memory.remember(QUESTION))
    reader = Reader([where], False)
    reader.open_now()
    try:
        with TestClient(build_app(reader, "t" * 32), base_url="http://127.0.0.1:4114") as ui:
            for path in (
                f"/api/route?q={QUESTION.replace(' ', '+')}",
                f"/api/file?base=ada&rel={deposit_rel}",
                "/api/stacks",
                "/api/check",
            ):
                response = ui.get(path)
                assert response.status_code == 200, (path, response.text)
                got[f"ui {path}"] = response.text
    finally:
        reader.close()
    return got


@pytest.mark.parametrize("seed", [1, 2])
def test_no_surface_serves_a_secret_from_a_captured_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    monkeypatch.setenv("KB_MISSES_PATH", str(tmp_path / "misses.txt"))
    root = _fleet(tmp_path / "fleet-root")
    # the answerer echoes its prompt (so the answer shows what the model was sent) and keeps
    # a copy of every prompt
    (root / "fleet.txt").write_text(f"answerer = tee -a {root / 'prompts.txt'}\n")
    (root / "prompts.txt").write_text("")
    secrets = list(seeded(seed))
    session = f"leak-{seed}"
    sessions.append_event(str(root), session, Routed("ada"))
    for s in secrets:
        # raw, as any writer of the record might leave them; the deposit scrubs as it renders
        sessions.append_event(str(root), session, Concluded(f"restic vault rotation: {s.text}"))
        sessions.append_event(str(root), session, Refused(f"restic vault {s.text}", ()))
    out = run(["capture", str(root), "--session", session])
    assert "captured session" in out.stdout, (out.stdout, out.stderr)
    (deposit,) = (root / "fleet" / "ada" / "inbox").glob("*.md")
    assert run(["index", str(root)]).code == 0

    got = _served_everywhere(root, f"inbox/{deposit.name}")
    for surface, text in got.items():
        for s in secrets:
            assert not s.leaked(text), f"{surface} serves a secret of {s.shape}:\n{text[:3000]}"
    # the surfaces did serve the deposit's passages: its markers are in what they gave
    for surface in (
        "route ['--context', '--context-total', '200000']",
        "answer",
        "answer prompts",
        "mcp kb_retrieve",
        "library ask",
        f"ui /api/file?base=ada&rel=inbox/{deposit.name}",
    ):
        assert "REDACTED_" in got[surface], f"{surface} did not serve the deposit:\n{got[surface]}"
    assert not any(s.leaked(_disk_text(root / "fleet")) for s in secrets)


def test_a_note_a_person_wrote_is_served_verbatim(tmp_path: Path) -> None:
    """The other half of the rule: the library is not filtered. A note's text, lines the
    scrubber would rewrite included, reaches the reader exactly as it stands on disk."""
    root = _fleet(tmp_path / "fleet-root")
    bait = "Rotate the token: tomorrow, and the password=ask-bruno one with it."
    assert scrub(bait) != bait  # the scrubber would have rewritten this line
    note = root / "fleet" / "ada" / "knowledge" / "rotation.md"
    text = f"# Rotation\n\n**Search for:** rotation, vault\n\n{bait}\n"
    note.write_text(text, encoding="utf-8")
    assert run(["index", str(root)]).code == 0
    out = run(["route", "rotation vault", str(root), "--context"])
    assert bait in out.stdout, out.stdout
    reader = Reader([str(root)], False)
    reader.open_now()
    try:
        with TestClient(build_app(reader, "t" * 32), base_url="http://127.0.0.1:4114") as ui:
            body = ui.get("/api/file?base=ada&rel=knowledge/rotation.md").json()
    finally:
        reader.close()
    assert body["text"] == text
