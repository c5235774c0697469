"""The reading room's HTTP API: every route's JSON pinned by golden files, in-process through
Starlette's TestClient and over real HTTP against a `kb ui` process; the file route refusing
hundreds of escape attempts; the bind refusing any host but 127.0.0.1; a busy port."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from kb.pure.render.uiapi import EMPTY_MESSAGE, NOT_SERVED
from kb.pure.roles.chat import BAD_SESSION, NOT_CONFIGURED
from kb.shell.ui.room import Reader
from kb.shell.ui.server import LOOPBACK, bind_loopback, build_app, loopback_only, start_line
from tests.conftest import check_golden
from tests.ui.server import free_port, kb_env, kb_ui, reading_room_fleet

TOKEN = "0123456789abcdef0123456789abcdef"
HOST = "http://127.0.0.1:4114"

# route name -> the request; the golden file is tests/golden/files/ui/<name>.json
ROUTES: list[tuple[str, str]] = [
    ("fleet", "/api/fleet"),
    ("stacks", "/api/stacks"),
    ("blocks", "/api/blocks"),
    ("check", "/api/check"),
    ("route-hit", "/api/route?q=how+often+should+I+run+a+backup+restore+test"),
    ("route-guess", "/api/route?q=flights%20to%20restore"),
    ("route-nothing", "/api/route?q=how+far+away+is+the+andromeda+galaxy"),
    ("route-suggestions", "/api/route?q=kubernets+crashloop"),
    ("route-short-memory", "/api/route?q=o+certificado+tls+do+staging+expirou"),
    ("route-private-hidden", "/api/route?q=quillfeather+contract"),
    ("route-empty", "/api/route?q=+++"),
    ("route-no-question", "/api/route"),
    ("file-backups", "/api/file?base=ada&rel=knowledge/backups.md"),
    ("file-map", "/api/file?base=ADA&rel=MAP.md"),
    ("file-short-memory", "/api/file?base=ada&rel=inbox/2026-11-20-session.md"),
]
ROUTES_ALL: list[tuple[str, str]] = [
    ("fleet-all", "/api/fleet"),
    ("stacks-all", "/api/stacks"),
    ("blocks-all", "/api/blocks"),
    ("check-all", "/api/check"),
    ("route-private-all", "/api/route?q=quillfeather+contract"),
    ("file-private-all", "/api/file?base=ada&rel=records/quillfeather-contract.md"),
]


def pretty(body: bytes) -> str:
    """The body re-indented for a reviewable golden file; key order and types are kept."""
    return json.dumps(json.loads(body), indent=1, ensure_ascii=False) + "\n"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return reading_room_fleet(tmp_path_factory.mktemp("ui"))


@contextmanager
def _client(paths: list[str], include_private: bool) -> Iterator[TestClient]:
    reader = Reader(paths, include_private)
    reader.open_now()
    try:
        with TestClient(build_app(reader, TOKEN), base_url=HOST) as client:
            yield client
    finally:
        reader.close()


@pytest.fixture(scope="module")
def client(fleet: Path) -> Iterator[TestClient]:
    with _client([str(fleet)], False) as c:
        yield c


@pytest.fixture(scope="module")
def client_all(fleet: Path) -> Iterator[TestClient]:
    with _client([str(fleet)], True) as c:
        yield c


# -- every route, pinned ------------------------------------------------------------------


@pytest.mark.parametrize(("name", "path"), ROUTES, ids=[r[0] for r in ROUTES])
def test_route_golden(client: TestClient, name: str, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/json"
    check_golden(f"ui/{name}.json", pretty(r.content))


@pytest.mark.parametrize(("name", "path"), ROUTES_ALL, ids=[r[0] for r in ROUTES_ALL])
def test_route_golden_with_all(client_all: TestClient, name: str, path: str) -> None:
    r = client_all.get(path)
    assert r.status_code == 200, r.text
    check_golden(f"ui/{name}.json", pretty(r.content))


def test_json_is_compact_and_ordered(client: TestClient) -> None:
    # two topics, one word each: a guess (decision 0016)
    body = client.get("/api/route?q=flights%20to%20restore").text
    assert body.startswith('{"question":"flights to restore","verdict":"guess","score":')
    assert ", " not in body.replace('"matched":"', "").split('"shortfall"')[0].split('"why"')[0]
    keys = list(json.loads(body))
    assert keys[:6] == ["question", "verdict", "score", "floor", "coverage", "margin"]


def test_the_page_and_its_assets(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert f'content="{TOKEN}"' in page.text
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    for name, kind in (("app.js", "text/javascript"), ("app.css", "text/css")):
        asset = client.get(f"/static/{name}")
        assert asset.status_code == 200 and asset.headers["content-type"].startswith(kind)
    # No request leaves the machine: nothing in the page names another origin.
    for text in (page.text, client.get("/static/app.js").text, client.get("/static/app.css").text):
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
        assert "@import" not in text and "url(http" not in text


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/nope"),
        ("GET", "/api"),
        ("GET", "/api/fleet/"),
        ("GET", "/api/reload"),
        ("POST", "/api/fleet"),
        ("DELETE", "/api/file"),
        ("GET", "/static/../server.py"),
        ("GET", "/static/index.html.bak"),
        ("GET", "/font/400"),
        ("PUT", "/"),
    ],
)
def test_everything_else_is_404(client: TestClient, method: str, path: str) -> None:
    r = client.request(method, path)
    assert r.status_code == 404
    assert r.text == "no such page"


def test_host_header_must_name_this_machine(client: TestClient) -> None:
    assert client.get("/api/fleet", headers={"host": "localhost:4114"}).status_code == 200
    for host in ("evil.example", "127.0.0.1.evil.example:4114", "0.0.0.0:4114", "[::1]:4114"):
        assert client.get("/api/fleet", headers={"host": host}).status_code == 403


def test_reload_needs_the_token_and_rereads_the_disk(fleet: Path) -> None:
    note = fleet / "fleet" / "clara" / "knowledge" / "trem.md"
    with _client([str(fleet)], False) as c:
        assert c.post("/api/reload").status_code == 404
        assert c.post("/api/reload", headers={"x-kb-token": "nope"}).status_code == 404
        note.write_text("# Trains in Europe\n\nSearch for: trem, train, interrail\n", "utf-8")
        try:
            before = c.get("/api/stacks").json()
            assert "knowledge/trem.md" not in json.dumps(before)  # held until reload
            r = c.post("/api/reload", headers={"x-kb-token": TOKEN})
            assert r.status_code == 200 and r.json() == {"ok": True}
            assert "knowledge/trem.md" in json.dumps(c.get("/api/stacks").json())
            assert c.get("/api/route?q=interrail+train").json()["found"][0]["rel"] == (
                "knowledge/trem.md"
            )
        finally:
            note.unlink()


def test_stacks_broken_links_are_exactly_check_e01(client: TestClient, tmp_path: Path) -> None:
    # One rule for the page and the linter: the same links are broken in both.
    stacks = client.get("/api/stacks").json()
    check = client.get("/api/check").json()
    broken = {
        (s["base"], b["rel"], t) for s in stacks["shelves"] for b in s["books"] for t in b["broken"]
    }
    e01 = {
        (f["base"], f["file"], re.search(r"\[\[(.*?)\]\]", f["message"]).group(1))  # type: ignore[union-attr]
        for f in check["findings"]
        if f["code"] == "E01"
    }
    assert broken == e01


def test_broken_and_cross_base_links(tmp_path: Path) -> None:
    root = reading_room_fleet(tmp_path)
    note = root / "fleet" / "bruno" / "knowledge" / "links.md"
    note.write_text(
        "# Links\n\nSearch for: links\n\nSee [[arroz-e-feijao]], [[Arroz-e-feijao]], "
        "[[backups]] and `[[in-code]]`.\n",
        "utf-8",
    )
    with _client([str(root)], False) as c:
        shelves = {s["base"]: s for s in c.get("/api/stacks").json()["shelves"]}
        book = next(b for b in shelves["bruno"]["books"] if b["rel"] == "knowledge/links.md")
        # Exact stems, inside the base: a case change and another base's note are broken.
        assert book["broken"] == ["Arroz-e-feijao", "backups"]
        target = next(
            b for b in shelves["bruno"]["books"] if b["rel"] == "knowledge/arroz-e-feijao.md"
        )
        assert target["cited_by"] == ["knowledge/links.md"]
        findings = c.get("/api/check").json()["findings"]
        e01 = [f for f in findings if f["code"] == "E01" and f["file"] == "knowledge/links.md"]
        assert len(e01) == 2 and "that note is in ada" in e01[1]["message"]
        html = c.get("/api/file?base=bruno&rel=knowledge/links.md").json()["html"]
        assert 'data-rel="knowledge/arroz-e-feijao.md"' in html
        assert html.count('class="wikilink broken"') == 2
        assert "<code>[[in-code]]</code>" in html


# -- the private layer ----------------------------------------------------------------------

PRIVATE_MARKS = (
    "quillfeather",
    "records/quillfeather-contract.md",
    "core.md",
    "work.md",
    "marina",
    "okafor",
    "freelance platform consultant",
    "person, map of the base",
)


def test_without_all_the_private_layer_is_absent_from_every_route(client: TestClient) -> None:
    for name, path in ROUTES:
        payload = client.get(path).json()
        if name.startswith("route"):  # the question and its terms are the caller's own words
            payload.pop("question")
            payload.pop("terms", None)
        body = json.dumps(payload, ensure_ascii=False).lower()
        for mark in PRIVATE_MARKS:
            assert mark not in body, f"{path} shows {mark}"
    for base, rel in (
        ("ada", "records/quillfeather-contract.md"),
        ("person", "core.md"),
        ("person", "work.md"),
        ("PERSON", "MAP.md"),
    ):
        r = client.get("/api/file", params={"base": base, "rel": rel})
        assert r.status_code == 404 and r.json() == {"error": NOT_SERVED}


def test_with_all_the_private_layer_is_served(client_all: TestClient) -> None:
    fleet = client_all.get("/api/fleet").json()
    assert fleet["private"] is True
    assert client_all.get("/api/file?base=person&rel=core.md").status_code == 200
    blocks = client_all.get("/api/blocks").json()["agents"][0]
    assert blocks["withheld"] == 0
    assert blocks["blocks"][2]["files"] == ["records/quillfeather-contract.md"]


# -- escape attempts on /api/file -----------------------------------------------------------


@pytest.fixture(scope="module")
def escape_fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example fleet with two ways out of a base planted in it: a note that is a
    symlink to a file outside the fleet, and a folder that is a symlink to a folder outside
    it. Discovery follows both, so only the served table's real-path rule keeps them in."""
    tmp = tmp_path_factory.mktemp("escape")
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Outside\n\nSearch for: outside secret\n", "utf-8")
    root = reading_room_fleet(tmp)
    ada = root / "fleet" / "ada"
    (ada / "knowledge" / "leak.md").symlink_to(outside / "secret.md")
    (ada / "linked").symlink_to(outside, target_is_directory=True)
    return root


def _escape_attempts(root: Path) -> list[tuple[str, str]]:
    ada = root / "fleet" / "ada"
    targets = [
        "etc/passwd",
        "records/quillfeather-contract.md",
        "knowledge/backups.md",
        "MAP.md",
        "agent.txt",
        "blocks.txt",
        "kb-aliases.txt",
        ".kb/index.db",
        "fleet.txt",
        "person/core.md",
        "knowledge/leak.md",
        "linked/secret.md",
    ]
    forms = [
        "../{t}",
        "../../{t}",
        "../../../../../../../../{t}",
        "/{t}",
        "//{t}",
        "./{t}",
        "knowledge/../{t}",
        "{bs}",
        "..\\{bs}",
        "%2e%2e/{t}",
        "..%2f{t}",
        "%2e%2e%2f{t}",
        "..%252f{t}",
        "{t}\x00",
        "{t}%00",
        "{t}\x00.md",
        " {t}",
        "{t} ",
        "{up}",
        "file:///{t}",
        "~/{t}",
        "{t}/",
        "{t}/.",
        "....//{t}",
        "..;/{t}",
    ]
    served_ok = {"knowledge/backups.md", "MAP.md"}
    out: list[tuple[str, str]] = []
    for t in targets:
        for form in forms:
            rel = form.format(t=t, bs=t.replace("/", "\\"), up=t.upper())
            if t in ("knowledge/leak.md", "linked/secret.md") or rel not in served_ok:
                out.append(("ada", rel))
    for absolute in (
        ada / "knowledge" / "backups.md",
        ada / "records" / "quillfeather-contract.md",
        ada / "knowledge" / "leak.md",
        ada.parent.parent.parent / "outside" / "secret.md",
        Path("/etc/passwd"),
    ):
        out.append(("ada", str(absolute)))
    out += [
        ("ada", "a" * 5000 + ".md"),
        ("ada", "../" * 2000 + "etc/passwd"),
        ("ada", "x/" * 3000 + "MAP.md"),
        ("ada", "knowledge/" + "é" * 4000 + ".md"),
        ("ada", ""),
        ("ada", "."),
        ("ada", ".."),
        ("ada", "knowledge"),
        ("ada", "records"),
    ]
    for base in ("person", "nope", "", "../ada", "ada/..", "ada\x00", ".", "..", "fleet/ada"):
        out.append((base, "knowledge/backups.md"))
    for rel in ("core.md", "work.md", "MAP.md", "../ada/MAP.md"):
        out.append(("person", rel))
    return out


def test_escape_attempts_are_all_refused(escape_fleet: Path) -> None:
    attempts = _escape_attempts(escape_fleet)
    assert len(attempts) >= 200
    with _client([str(escape_fleet)], False) as c:
        # The planted links are refused by the walk itself: a link out of the base is never
        # read (decision 0017), so it shows as an unreadable name with nothing of its text,
        # and a folder link out of the base is not entered at all...
        shelves = c.get("/api/stacks").json()["shelves"]
        books = {b["rel"]: b for s in shelves if s["base"] == "ada" for b in s["books"]}
        assert "unreadable" in books["knowledge/leak.md"]["ribbons"]
        assert books["knowledge/leak.md"]["title"] == "leak"  # not the outside file's
        assert not any(rel.startswith("linked/") and rel != "linked" for rel in books)
        # ...and the legitimate files are served, so a 404 below is a refusal, not an outage.
        assert c.get("/api/file?base=ada&rel=knowledge/backups.md").status_code == 200
        for base, rel in attempts:
            r = c.get("/api/file", params={"base": base, "rel": rel})
            assert r.status_code == 404, (base, rel)
            assert r.json() == {"error": NOT_SERVED}
            # The same text spelled raw into the query string, so %XX is decoded server-side.
            raw = f"/api/file?base={quote(base, safe='')}&rel={quote(rel, safe='%/.~')}"
            r = c.get(raw)
            assert r.status_code == 404, (base, rel, raw)
            assert "Outside" not in r.text


def test_escape_attempts_over_real_http(escape_fleet: Path) -> None:
    attempts = _escape_attempts(escape_fleet)
    with kb_ui([str(escape_fleet)]) as ui:
        status, _, body = ui.get("/api/file?base=ada&rel=knowledge%2Fbackups.md")
        assert status == 200 and b"Backups that actually restore" in body
        for base, rel in attempts:
            path = f"/api/file?base={quote(base, safe='')}&rel={quote(rel, safe='')}"
            status, kind, body = ui.get(path)
            assert status == 404, (base, rel)
            assert json.loads(body) == {"error": NOT_SERVED}
            assert kind == "application/json"


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(base=st.sampled_from(["ada", "bruno", "person", "x"]), rel=st.text(max_size=60))
def test_any_text_is_served_only_when_discovery_produced_it(
    client: TestClient, base: str, rel: str
) -> None:
    served = {
        "ada": {
            "MAP.md",
            "inbox/2026-11-20-session.md",
            "knowledge/backups.md",
            "knowledge/database-migrations.md",
            "knowledge/draft-notes.md",
            "knowledge/kubernetes-deploys.md",
            "skills/incident-postmortem.md",
            "tools/grafana.md",
        },
        "bruno": {
            "MAP.md",
            "knowledge/arroz-e-feijao.md",
            "knowledge/pao-fermentacao-natural.md",
            "knowledge/temperos-e-ervas.md",
            "protocols/seguranca-alimentar.md",
        },
    }
    r = client.get("/api/file", params={"base": base, "rel": rel})
    expected = 200 if rel in served.get(base, set()) else 404
    assert r.status_code == expected, (base, rel)


# -- the bind ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["0.0.0.0", "", "localhost", "::", "::1", "127.0.0.2", "127.1", "0", " 127.0.0.1",
     "127.0.0.1 ", "192.168.0.1", "2130706433", "127.0.0.1\x00"],
)  # fmt: skip
def test_bind_refuses_every_host_but_loopback(host: str) -> None:
    with pytest.raises(ValueError, match=r"binds 127\.0\.0\.1 only"):
        loopback_only(host)
    with pytest.raises(ValueError, match=r"binds 127\.0\.0\.1 only"):
        bind_loopback(host, free_port())
    assert loopback_only("127.0.0.1") == LOOPBACK


@given(host=st.text(max_size=20))
def test_bind_refuses_any_generated_host(host: str) -> None:
    if host == LOOPBACK:
        assert loopback_only(host) == host
    else:
        with pytest.raises(ValueError):
            loopback_only(host)


def test_bind_listens_on_loopback_only() -> None:
    sock = bind_loopback(LOOPBACK, free_port())
    try:
        assert sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()


def test_no_flag_names_another_address(fleet: Path) -> None:
    for flag in ("--host", "--bind", "--address", "--listen"):
        done = subprocess.run(
            [sys.executable, "-m", "kb.shell.cli.main", "ui", str(fleet), flag, "0.0.0.0"],
            env=kb_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, (flag, done.stderr)
        assert done.stderr.startswith("kb ui:")


def _listening_addresses(port: int) -> list[str]:
    """Local addresses of listening TCP sockets on `port`, from /proc/net/tcp{,6}."""
    found: list[str] = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, hexport = fields[1].split(":")
            if int(hexport, 16) == port and fields[3] == "0A":
                found.append(address)
    return found


def test_real_server_every_route_matches_golden(fleet: Path) -> None:
    with kb_ui([str(fleet)]) as ui:
        assert ui.first_line == start_line(ui.port, 4, 14, False)
        if Path("/proc/net/tcp").exists():
            assert _listening_addresses(ui.port) == ["0100007F"]  # 127.0.0.1, nothing else
        for name, path in ROUTES:
            status, kind, body = ui.get(path)
            assert status == 200 and kind == "application/json", (path, status)
            check_golden(f"ui/{name}.json", pretty(body))
        status, kind, body = ui.get("/")
        assert status == 200 and kind == "text/html; charset=utf-8"
        assert ui.get("/nope")[0] == 404


def test_real_server_with_all_says_so(fleet: Path) -> None:
    with kb_ui([str(fleet), "--all"]) as ui:
        assert ui.first_line.endswith("entries, private layer INCLUDED)\n")
        for name, path in ROUTES_ALL:
            status, _, body = ui.get(path)
            assert status == 200
            check_golden(f"ui/{name}.json", pretty(body))


def test_sigterm_stops_the_server_cleanly(fleet: Path) -> None:
    with kb_ui([str(fleet)]) as ui:
        ui.proc.terminate()
        assert ui.proc.wait(60) == 0  # generous: a loaded CI machine was seen past 15 s


def test_busy_port_exits_1_with_one_line(fleet: Path) -> None:
    with kb_ui([str(fleet)]) as ui:
        done = subprocess.run(
            [sys.executable, "-m", "kb.shell.cli.main", "ui", str(fleet), "--port", str(ui.port)],
            env=kb_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 1
        assert done.stdout == ""
        assert done.stderr == f"kb ui: cannot bind 127.0.0.1:{ui.port}: Address already in use\n"


def test_open_failure_exits_1(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "ui", str(tmp_path / "absent"), "--port",
         str(free_port())],
        env=kb_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.startswith("kb ui: cannot read ") and done.stderr.count("\n") == 1


@pytest.mark.parametrize("port", ["0", "65536", "-1", "http", ""])
def test_bad_port_is_a_usage_error(fleet: Path, port: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "ui", str(fleet), "--port", port],
        env=kb_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.startswith("kb ui:"), done.stderr


def test_ui_does_not_load_the_web_stack_on_the_route_path() -> None:
    code = (
        "import sys, kb.shell.cli.main as m; m.run(['route', 'x', '/nonexistent']); "
        "print(any(k.split('.')[0] in ('starlette', 'uvicorn') for k in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=kb_env(), capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "False", done.stderr


# -- the conversation panel -----------------------------------------------------------------

RUNTIME = r"""
import json, os, sys, time
message = sys.stdin.read()
argv = sys.argv[1:]
sid = argv[argv.index("--resume") + 1] if "--resume" in argv else "abc-123"
mode = os.environ.get("FAKE_RUNTIME", "ok")
if mode == "sleep":
    with open(os.environ["FAKE_PID"], "w") as f:
        f.write(str(os.getpid()))
    time.sleep(60)
print(json.dumps({"type": "system", "subtype": "init", "session_id": sid}), flush=True)
os.makedirs(".kb/sessions", exist_ok=True)
with open(os.path.join(".kb/sessions", sid), "w") as f:
    f.write("ada\n")
print(json.dumps({"type": "assistant", "message": {"content": [
    {"type": "text", "text": "you said: " + message + " / args: " + " ".join(argv)},
    {"type": "tool_use", "name": "Bash", "input": {"command": "kb route backups"}}]}}))
print("VESTA: still ada.")
print("plain text line")
print(json.dumps({"type": "result", "subtype": "success", "result": "done"}))
"""


def _events(body: str) -> list[dict[str, Any]]:
    out = []
    for block in body.split("\n\n"):
        if block.startswith("data: "):
            out.append(json.loads(block[len("data: ") :]))
    return out


@pytest.fixture
def runtime(tmp_path: Path) -> str:
    script = tmp_path / "runtime.py"
    script.write_text(RUNTIME, "utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_chat_refusals(fleet: Path, monkeypatch: pytest.MonkeyPatch, runtime: str) -> None:
    monkeypatch.delenv("KB_UI_CHAT", raising=False)
    with _client([str(fleet)], False) as c:
        assert c.get("/api/chat?m=hello").status_code == 404  # no token
        r = c.get(f"/api/chat?m=hello&token={TOKEN}")
        assert r.headers["content-type"].startswith("text/event-stream")
        assert _events(r.text) == [
            {"seq": 1, "kind": "error", "text": NOT_CONFIGURED},
            {"seq": 2, "kind": "done", "text": ""},
        ]
    monkeypatch.setenv("KB_UI_CHAT", runtime)
    with _client([str(fleet)], False) as c:
        assert c.get("/api/fleet").json()["chat"] is True
        for message in ("", "   ", "\n"):
            r = c.get("/api/chat", params={"m": message, "token": TOKEN})
            assert _events(r.text)[0] == {"seq": 1, "kind": "error", "text": EMPTY_MESSAGE}
        for session in ("../../etc", "abc_def", "ABCG", "a" * 200, "x;rm", "--help"):
            r = c.get("/api/chat", params={"m": "hi", "chat": session, "token": TOKEN})
            assert _events(r.text)[0] == {"seq": 1, "kind": "error", "text": BAD_SESSION}


def test_chat_streams_the_runtime(
    fleet: Path, monkeypatch: pytest.MonkeyPatch, runtime: str
) -> None:
    monkeypatch.setenv("KB_UI_CHAT", runtime)
    with _client([str(fleet)], False) as c:
        r = c.get("/api/chat", params={"m": "how do I restore?", "token": TOKEN})
        events = _events(r.text)
        assert [e["kind"] for e in events] == [
            "session", "assistant", "tool", "routed", "assistant", "routed", "done",
        ]  # fmt: skip
        assert [e["seq"] for e in events] == list(range(1, 8))
        assert events[0]["text"] == "abc-123"
        assert events[1]["text"] == "you said: how do I restore? / args: "
        assert events[2]["text"] == 'Bash {"command":"kb route backups"}'
        assert events[3]["text"] == "VESTA: still ada."
        assert events[5]["text"] == "VESTA: answering as ada"
        assert events[6] == {"seq": 7, "kind": "done", "text": "abc-123"}
        # A known session is resumed.
        r = c.get("/api/chat", params={"m": "again", "chat": "d00d-42", "token": TOKEN})
        events = _events(r.text)
        assert events[1]["text"] == "you said: again / args: --resume d00d-42"
        assert events[-1]["text"] == "d00d-42"


def test_chat_timeout_kills_the_runtime(
    fleet: Path, monkeypatch: pytest.MonkeyPatch, runtime: str, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("KB_UI_CHAT", runtime)
    monkeypatch.setenv("FAKE_RUNTIME", "sleep")
    monkeypatch.setenv("FAKE_PID", str(pid_file))
    monkeypatch.setenv("KB_MODEL_TIMEOUT", "1.5")
    with _client([str(fleet)], False) as c:
        started = time.monotonic()
        r = c.get("/api/chat", params={"m": "wait", "token": TOKEN})
        assert time.monotonic() - started < 20
        events = _events(r.text)
        assert events[0]["kind"] == "error" and "did not finish within 1.5s" in events[0]["text"]
        assert events[-1]["kind"] == "done"
    pid = int(pid_file.read_text())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        # A killed child is a zombie until reaped; /proc tells the two apart.
        try:
            state = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            break  # reaped between the two looks: gone
        if "State:\tZ" in state:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"runtime {pid} outlived its deadline")


def test_chat_command_from_fleet_txt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime: str
) -> None:
    monkeypatch.delenv("KB_UI_CHAT", raising=False)
    root = reading_room_fleet(tmp_path)
    with (root / "fleet.txt").open("a", encoding="utf-8") as f:
        f.write(f"chat = {runtime}\n")
    with _client([str(root)], False) as c:
        assert c.get("/api/fleet").json()["chat"] is True
        r = c.get("/api/chat", params={"m": "hi", "token": TOKEN})
        assert _events(r.text)[-1] == {"seq": 7, "kind": "done", "text": "abc-123"}


def test_port_is_free_after_the_server_stops(fleet: Path) -> None:
    with kb_ui([str(fleet)]) as ui:
        port = ui.port
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))


def test_blocks_with_all_are_kb_blocks_numbers(fleet: Path, client_all: TestClient) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "blocks", str(fleet / "fleet" / "ada")],
        env=kb_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    rows = [
        line.split()
        for line in done.stdout.splitlines()
        if re.match(r"^  \d+\s", line)  # `  #   block  mode  files  on disk  sent  ~tokens  cum`
    ]
    blocks = client_all.get("/api/blocks").json()["agents"][0]["blocks"]
    assert [(r[1], r[2], int(r[3]), int(r[4]), int(r[5]), int(r[6])) for r in rows] == [
        (b["name"], b["mode"], len(b["files"]), b["file_bytes"], b["bytes"], b["tokens"])
        for b in blocks
    ]
