"""Fuzz: the reading room's HTTP surface, in process through Starlette's TestClient, and the
HTTP guard's pure rules (kb.pure.fleet.httpguard).

Query strings are built by hand so they can carry what a browser or a script might send:
percent escapes of bytes that are not UTF-8 (`%FF`, `%C3`), `%00`, repeated keys, `+`, `;`,
path-like values (`../`, `%2e%2e`), very long values. The fleet under the room holds hostile
files too (a note that is not UTF-8, a note with NUL bytes, names with a newline or bytes
that are not UTF-8). TestClient re-raises any exception the app raises, so "no 500 and no
exception" is checked on every request.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from kb.io.notes.walk import MAX_NOTE_BYTES
from kb.pure.fleet import httpguard
from kb.shell.ui.room import Reader
from kb.shell.ui.server import build_app
from tests.conftest import EXAMPLE_FLEET
from tests.fuzz.hostile import no_hang, raw_text

TOKEN = "0123456789abcdef0123456789abcdef"
VERDICTS = {"hit", "guess", "nothing", "empty"}


def hostile_fleet(root: Path) -> Path:
    shutil.copytree(EXAMPLE_FLEET, root, ignore=shutil.ignore_patterns(".kb", "kb-misses.txt*"))
    notes = root / "fleet" / "ada" / "knowledge"
    (notes / "latin1.md").write_bytes("# Caf\xe9\n\n**Search for:** caf\xe9\n".encode("latin-1"))
    (notes / "nul.md").write_bytes(b"# Nul\x00 note\n\n**Search for:** nul\x00, zero\n\x00\n")
    (notes / "new\nline.md").write_text("# Newline\n\n**Search for:** newline, okapi\n")
    os.makedirs(os.fsencode(notes) + b"/bad\xffdir", exist_ok=True)
    with open(os.fsencode(notes) + b"/bad\xffdir/n\xfe.md", "wb") as fh:
        fh.write(b"# Bad name\n\n**Search for:** okapi\n")
    with open(notes / "sparse.md", "wb") as fh:  # past the note size cap: never served
        fh.truncate(MAX_NOTE_BYTES + 1)
    (notes / "loop").symlink_to("..")
    (notes / "self").symlink_to("self")
    return root


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    root = hostile_fleet(tmp_path_factory.mktemp("ui") / "fleet")
    saved = os.environ.get("KB_MISSES_PATH")
    os.environ["KB_MISSES_PATH"] = str(root.parent / "misses.txt")
    reader = Reader([str(root)], False)
    reader.open_now()
    try:
        with TestClient(build_app(reader, TOKEN), base_url="http://127.0.0.1:4114") as c:
            yield c
    finally:
        reader.close()
        if saved is None:
            os.environ.pop("KB_MISSES_PATH", None)
        else:
            os.environ["KB_MISSES_PATH"] = saved


# Percent-escaped pieces that decode to what no form would send.
ESCAPES = ("%FF", "%C3", "%C3%A9", "%00", "%0A", "%0D", "%2e%2e%2f", "%25", "%2F", "%E2%80%AE",
           "%ED%A0%80", "%F0%9F%99%82", "+", "%20", "&", "=", ";", "#", "?")  # fmt: skip
values = st.one_of(
    raw_text(max_size=60).map(lambda s: quote(s.encode("utf-8", "replace"), safe="")),
    st.lists(
        st.sampled_from(ESCAPES) | st.sampled_from(("a", "backup", "..", "/")), max_size=20
    ).map("".join),
    st.sampled_from(
        (
            "knowledge%2Fbackups.md",
            "knowledge/new%0Aline.md",
            "knowledge/new%5Cnline.md",
            "knowledge/bad%EF%BF%BDdir/n%EF%BF%BD.md",
            "knowledge/latin1.md",
            "knowledge/nul.md",
            "knowledge/sparse.md",
            "knowledge/loop/MAP.md",
            "../../etc/passwd",
            "MAP.md",
            "a" * 5000,
        )
    ),
)
keys = st.sampled_from(("q", "base", "rel", "m", "chat", "token", "x", "", "q[]", "Q"))
queries = st.lists(st.tuples(keys, values), max_size=5).map(
    lambda pairs: "&".join(f"{k}={v}" for k, v in pairs)
)
paths = st.sampled_from(
    (
        "/api/route",
        "/api/file",
        "/api/chat",
        "/api/fleet",
        "/api/stacks",
        "/api/blocks",
        "/api/check",
        "/",
        "/api/nope",
        "/static/app.js",
        "/static/%2e%2e%2fserver.py",
    )
)


@given(path=paths, query=queries, with_token=st.booleans())
def test_every_request_gets_an_answer(
    client: TestClient, path: str, query: str, with_token: bool
) -> None:
    if with_token and path == "/api/chat":
        query += f"&token={TOKEN}"
    with no_hang():
        r = client.get(f"{path}?{query}" if query else path)
    assert r.status_code in (200, 403, 404), (r.status_code, r.text)
    if path.startswith("/api/") and path != "/api/chat" and r.status_code == 200:
        payload = json.loads(r.content)
        assert isinstance(payload, dict)
        if path == "/api/route":
            assert payload["verdict"] in VERDICTS
        if path == "/api/file":
            assert payload["rel"] and "\n" not in payload["rel"]
    if path == "/api/chat" and r.status_code == 200:
        assert r.headers["content-type"].startswith("text/event-stream")
        assert "event: done" in r.text or '"done"' in r.text


def test_hostile_files_are_shown_or_refused(client: TestClient) -> None:
    with no_hang():
        assert client.get("/api/file?base=ada&rel=knowledge/sparse.md").status_code == 404
        assert client.get("/api/file?base=ada&rel=knowledge/latin1.md").status_code == 200
        nul = client.get("/api/file?base=ada&rel=knowledge/nul.md")
        assert nul.status_code == 200 and "\x00" not in nul.json()["html"]
        stacks = json.dumps(client.get("/api/stacks").json())
        check = client.get("/api/check").json()
    assert "new\\\\nline.md" in stacks  # the name, escaped, inside JSON
    assert any("sparse.md" in json.dumps(f) for f in check["findings"] + check.get("skipped", []))


@given(q=raw_text(max_size=120))
def test_route_is_deterministic(client: TestClient, q: str) -> None:
    url = "/api/route?q=" + quote(q.encode("utf-8", "replace"), safe="")
    with no_hang():
        first = client.get(url)
        second = client.get(url)
    assert first.status_code == second.status_code == 200
    assert json.loads(first.content) == json.loads(second.content)


latin1 = st.text(st.characters(max_codepoint=0xFF), max_size=40)  # how HTTP headers decode
origins = st.one_of(
    st.none(),
    latin1,
    st.tuples(
        st.sampled_from(("http://", "HTTPS://", "ftp://", "", "http:/")),
        st.sampled_from(("localhost", "127.0.0.1", "LOCALHOST", "127.0.0.1.evil", "evil", "")),
        st.sampled_from(("", ":4114", ":", ":abc", ":4114/x", "/", ":٤١", "@evil")),
    ).map("".join),
)
authorizations = st.one_of(
    st.none(),
    latin1,
    st.tuples(st.sampled_from(("Bearer ", "bearer ", "Bearer", "Basic ", "Bearer  ")), latin1).map(
        "".join
    ),
)


@given(origin=origins, authorization=authorizations, token=st.sampled_from(("", "tok", TOKEN)))
def test_http_guard(origin: str | None, authorization: str | None, token: str) -> None:
    with no_hang():
        refusal = httpguard.refusal(origin, authorization, token)
        again = httpguard.refusal(origin, authorization, token)
    assert refusal == again
    if refusal is None:
        scheme, _, given = (authorization or "").partition(" ")
        assert token and scheme.lower() == "bearer" and given == token
        assert httpguard.origin_allowed(origin)
    else:
        assert refusal.status in (401, 403) and "\n" not in refusal.message
    if origin is not None and httpguard.origin_allowed(origin):
        rest = origin.lower().split("//", 1)[1]
        assert rest.split(":", 1)[0] in httpguard.LOCAL_HOSTS
