"""The model adapters in examples/models/, run as real processes against a tiny HTTP server
on 127.0.0.1 that mimics each API's JSON shape: the request they send, the reply they print,
the usage line on stderr, and a non-zero exit with one line of reason on every failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, RunKb

MODELS = REPO / "examples" / "models"
PROMPT = "You answer ONE question.\n\nTHE QUESTION:\nquanto é 2 + 2? — ünïcode\n"

Reply = tuple[int, bytes]  # status, body


class Server:
    """Records each request and answers with whatever `respond` returns."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.respond: Callable[[dict[str, Any]], Reply] = lambda _req: (500, b"{}")
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # the http.server hook's name
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                req = {
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": json.loads(raw.decode("utf-8")),
                }
                outer.requests.append(req)
                status, body = outer.respond(req)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def run(script: str, env: dict[str, str], stdin: str = PROMPT) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "ANTHROPIC_"))
        and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
    }
    clean.update(env)
    p = subprocess.run(
        [sys.executable, str(MODELS / script)],
        input=stdin.encode("utf-8"),
        env=clean,
        capture_output=True,
        timeout=60,
    )
    # decoded strictly: a reply or a reason that is not UTF-8 fails the test loudly
    return subprocess.CompletedProcess(
        p.args, p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")
    )


def one_line_failure(p: subprocess.CompletedProcess[str], prefix: str) -> str:
    assert p.returncode != 0
    assert p.stdout == ""
    assert p.stderr.startswith(prefix), p.stderr
    assert p.stderr.count("\n") == 1, p.stderr
    return p.stderr


# -- OpenAI-compatible ----------------------------------------------------------------------


def openai_ok(req: dict[str, Any]) -> Reply:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": req["body"]["model"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "São 4 (maths/sums.md)."},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 31, "completion_tokens": 7, "total_tokens": 38},
    }
    return 200, json.dumps(body).encode("utf-8")


def test_openai_compatible_answers(server: Server) -> None:
    server.respond = openai_ok
    p = run(
        "openai_compatible.py",
        {
            "OPENAI_BASE_URL": server.url + "/v1/",
            "OPENAI_MODEL": "qwen3-0.6b",
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_TEMPERATURE": "0",
            "OPENAI_MAX_TOKENS": "256",
        },
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout == "São 4 (maths/sums.md).\n"
    assert p.stderr == (
        "openai_compatible: tokens: prompt 31, completion 7, total 38 (qwen3-0.6b)\n"
    )
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["authorization"] == "Bearer sk-test"
    assert req["headers"]["content-type"] == "application/json"
    assert req["body"] == {
        "model": "qwen3-0.6b",
        "messages": [{"role": "user", "content": PROMPT}],
        "max_tokens": 256,
        "temperature": 0.0,
    }


def test_openai_compatible_needs_no_key_for_a_local_server(server: Server) -> None:
    server.respond = openai_ok
    p = run("openai_compatible.py", {"OPENAI_BASE_URL": server.url + "/v1", "OPENAI_MODEL": "m"})
    assert p.returncode == 0, p.stderr
    assert "authorization" not in server.requests[0]["headers"]
    assert set(server.requests[0]["body"]) == {"model", "messages"}


def test_openai_compatible_content_parts(server: Server) -> None:
    def parts(req: dict[str, Any]) -> Reply:
        msg = {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"text": "b"}]}
        return 200, json.dumps({"choices": [{"message": msg}]}).encode()

    server.respond = parts
    p = run("openai_compatible.py", {"OPENAI_BASE_URL": server.url, "OPENAI_MODEL": "m"})
    assert (p.returncode, p.stdout) == (0, "ab\n")
    assert p.stderr == ""  # no usage reported, nothing said


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (
            (401, b'{"error":{"message":"Incorrect API key\\nprovided","type":"auth"}}'),
            "HTTP 401 from {url}/chat/completions: Incorrect API key provided",
        ),
        (
            (500, b"<html>upstream\ncrashed</html>"),
            "HTTP 500 from {url}/chat/completions: <html>upstream crashed</html>",
        ),
        ((200, b"not json at all"), "the reply from {url}/chat/completions is not JSON: "),
        ((200, b'{"choices": []}'), "the reply has no choices[0].message.content"),
        (
            (200, b'{"choices": [{"message": {"content": "  "}, "finish_reason": "length"}]}'),
            "the reply held no text (finish_reason: length)",
        ),
        (
            (200, b'{"choices": [{"message": {"content": null}}]}'),
            "the reply held no text (finish_reason: None)",
        ),
    ],
)
def test_openai_compatible_failures_are_one_line(server: Server, reply: Reply, reason: str) -> None:
    server.respond = lambda _req: reply
    p = run("openai_compatible.py", {"OPENAI_BASE_URL": server.url, "OPENAI_MODEL": "m"})
    err = one_line_failure(p, "openai_compatible: ")
    assert err.startswith("openai_compatible: " + reason.format(url=server.url)), err
    assert p.returncode == 1


def test_openai_compatible_configuration_errors() -> None:
    p = run("openai_compatible.py", {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert "OPENAI_MODEL is not set" in one_line_failure(p, "openai_compatible: ")
    assert p.returncode == 2
    p = run("openai_compatible.py", {"OPENAI_MODEL": "gpt"})
    assert "OPENAI_API_KEY is not set" in one_line_failure(p, "openai_compatible: ")
    p = run(
        "openai_compatible.py",
        {"OPENAI_BASE_URL": "http://x/v1", "OPENAI_MODEL": "m", "OPENAI_MAX_TOKENS": "lots"},
    )
    assert "OPENAI_MAX_TOKENS must be a number" in one_line_failure(p, "openai_compatible: ")


def test_openai_compatible_unreachable() -> None:
    # port 9 (discard) on loopback: nothing listens in a test environment
    p = run(
        "openai_compatible.py", {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_MODEL": "m"}
    )
    err = one_line_failure(
        p, "openai_compatible: cannot reach http://127.0.0.1:9/v1/chat/completions"
    )
    assert p.returncode == 1, err


# -- Anthropic Messages ---------------------------------------------------------------------


def anthropic_ok(req: dict[str, Any]) -> Reply:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": req["body"]["model"],
        "content": [
            {"type": "thinking", "thinking": "not printed"},
            {"type": "text", "text": "São 4 "},
            {"type": "text", "text": "(maths/sums.md)."},
        ],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 40, "output_tokens": 9, "cache_read_input_tokens": 0},
    }
    return 200, json.dumps(body).encode("utf-8")


def test_anthropic_messages_answers(server: Server) -> None:
    server.respond = anthropic_ok
    p = run(
        "anthropic_messages.py",
        {
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "ANTHROPIC_MODEL": "claude-test",
            "ANTHROPIC_MAX_TOKENS": "512",
        },
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout == "São 4 (maths/sums.md).\n"
    assert p.stderr == (
        "anthropic_messages: tokens: input 40, output 9, cache read 0 (claude-test)\n"
    )
    (req,) = server.requests
    assert req["path"] == "/v1/messages"
    assert req["headers"]["x-api-key"] == "sk-ant-test"
    assert req["headers"]["anthropic-version"] == "2023-06-01"
    assert req["body"] == {
        "model": "claude-test",
        "max_tokens": 512,
        "messages": [{"role": "user", "content": PROMPT}],
    }


def test_anthropic_messages_base_url_with_version_and_max_tokens_stop(server: Server) -> None:
    def cut(req: dict[str, Any]) -> Reply:
        body = {
            "content": [{"type": "text", "text": "partial"}],
            "stop_reason": "max_tokens",
            "usage": {"input_tokens": 1, "output_tokens": 4096},
        }
        return 200, json.dumps(body).encode()

    server.respond = cut
    env = {
        "ANTHROPIC_BASE_URL": server.url + "/v1/",
        "ANTHROPIC_API_KEY": "k",
        "ANTHROPIC_MODEL": "m",
    }
    p = run("anthropic_messages.py", env)
    assert (p.returncode, p.stdout) == (0, "partial\n")
    assert server.requests[0]["path"] == "/v1/messages"
    assert server.requests[0]["body"]["max_tokens"] == 4096
    assert p.stderr.endswith("(m); stopped at the max_tokens cap\n")


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (
            (529, b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
            "HTTP 529 from {url}/v1/messages: overloaded_error: Overloaded",
        ),
        ((400, b"bad\nrequest"), "HTTP 400 from {url}/v1/messages: bad request"),
        ((200, b"{"), "the reply from {url}/v1/messages is not JSON: "),
        ((200, b'{"content": "text"}'), "the reply has no content list"),
        (
            (200, b'{"content": [{"type": "tool_use"}], "stop_reason": "tool_use"}'),
            "the reply held no text (stop_reason: tool_use)",
        ),
    ],
)
def test_anthropic_messages_failures_are_one_line(
    server: Server, reply: Reply, reason: str
) -> None:
    server.respond = lambda _req: reply
    env = {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "k", "ANTHROPIC_MODEL": "m"}
    p = run("anthropic_messages.py", env)
    err = one_line_failure(p, "anthropic_messages: ")
    assert err.startswith("anthropic_messages: " + reason.format(url=server.url)), err
    assert p.returncode == 1


def test_anthropic_messages_configuration_errors() -> None:
    p = run("anthropic_messages.py", {"ANTHROPIC_MODEL": "m"})
    assert "ANTHROPIC_API_KEY is not set" in one_line_failure(p, "anthropic_messages: ")
    assert p.returncode == 2
    p = run("anthropic_messages.py", {"ANTHROPIC_API_KEY": "k"})
    assert "ANTHROPIC_MODEL is not set" in one_line_failure(p, "anthropic_messages: ")


# -- as kb runs them ------------------------------------------------------------------------


def test_kb_answer_through_the_openai_adapter(
    server: Server, example_fleet: Path, kb: RunKb
) -> None:
    """The adapter as a fleet's answerer: kb's prompt reaches the server as the user message,
    and the model's text comes back as the answer."""
    server.respond = openai_ok
    assert kb(["index"], cwd=example_fleet).code == 0
    (example_fleet / "fleet.txt").write_text(
        f"answerer = {MODELS / 'openai_compatible.py'}\n", encoding="utf-8"
    )
    env = {"OPENAI_BASE_URL": server.url + "/v1", "OPENAI_MODEL": "local"}
    for key in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[key] = ""
    r = kb(["answer", "what is the liquids limit in hand luggage"], cwd=example_fleet, env=env)
    assert r.code == 0, r.stderr
    assert r.stdout.startswith("São 4 (maths/sums.md).\n\nsources served: clara/knowledge/")
    content = server.requests[0]["body"]["messages"][0]["content"]
    assert "THE PASSAGES:\n" in content and "--- clara/knowledge/bagagem.md (" in content
