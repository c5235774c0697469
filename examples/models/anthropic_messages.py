#!/usr/bin/env python3
"""anthropic_messages: a kb model command for the Anthropic Messages API.

Reads the prompt on stdin, sends it as one user message to `{ANTHROPIC_BASE_URL}/v1/
messages`, and prints the text of the reply on stdout. Standard library only; configured by
environment variables and nothing else:

  ANTHROPIC_API_KEY     required: sent as the `x-api-key` header
  ANTHROPIC_MODEL       required: the model to ask
  ANTHROPIC_BASE_URL    default https://api.anthropic.com (a proxy or gateway in front of it)
  ANTHROPIC_MAX_TOKENS  optional cap on the reply's length (default 4096; the API needs one)
  ANTHROPIC_TIMEOUT     optional seconds to wait for the reply (default 300)

Token usage goes to stderr (kb discards it; run the script by hand to see it). Any HTTP
error, unreadable reply or empty answer exits non-zero with a one-line reason on stderr,
which kb reads as "did not answer". Name it in fleet.txt by its absolute path, or copy it
into the fleet root's models/ and write
`answerer = models/anthropic_messages.py` (a relative path is read from the fleet root).
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any

NAME = "anthropic_messages"
DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
DEFAULT_TIMEOUT = 300.0
DETAIL_CAP = 300  # characters of a server's error message worth repeating


class Failure(Exception):
    def __init__(self, reason: str, code: int = 1) -> None:
        super().__init__(reason)
        self.code = code


def one_line(text: object, cap: int = DETAIL_CAP) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= cap else flat[: cap - 3] + "..."


def setting(name: str) -> str:
    return os.environ.get(name, "").strip()


def number(name: str, kind: type[int] | type[float], default: float) -> float:
    raw = setting(name)
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise Failure(f"{name} must be a number, not {raw!r}", 2) from None
    if value <= 0:
        raise Failure(f"{name} must be greater than 0, not {raw!r}", 2)
    return value


def server_detail(body: bytes) -> str:
    """The message of an API error body (`{"type":"error","error":{...}}`), else the body."""
    text = body.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        return one_line(text) or "no detail in the body"
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict) and err.get("message"):
        kind = f"{err['type']}: " if err.get("type") else ""
        return one_line(f"{kind}{err['message']}")
    return one_line(text)


def endpoint(base: str) -> str:
    base = base.rstrip("/")
    # Accept a base given with or without the version segment.
    return base + ("/messages" if base.endswith("/v1") else "/v1/messages")


def reply_text(data: Any) -> str:
    blocks = data.get("content") if isinstance(data, dict) else None
    if not isinstance(blocks, list):
        raise Failure("the reply has no content list")
    text = "".join(
        b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
    )
    if not text.strip():
        raise Failure(f"the reply held no text (stop_reason: {data.get('stop_reason')})")
    return text


def usage_line(data: Any, model: str) -> str | None:
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return None
    parts = [
        f"{label} {usage[key]}"
        for key, label in (
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_input_tokens", "cache read"),
            ("cache_creation_input_tokens", "cache write"),
        )
        if isinstance(usage.get(key), int)
    ]
    served = data.get("model") or model
    stop = data.get("stop_reason")
    cut = "; stopped at the max_tokens cap" if stop == "max_tokens" else ""
    return f"{NAME}: tokens: {', '.join(parts) or 'not reported'} ({served}){cut}"


def ask(prompt: str) -> tuple[str, str | None]:
    key = setting("ANTHROPIC_API_KEY")
    model = setting("ANTHROPIC_MODEL")
    if not key:
        raise Failure("ANTHROPIC_API_KEY is not set", 2)
    if not model:
        raise Failure("ANTHROPIC_MODEL is not set; name the model to ask", 2)
    max_tokens = int(number("ANTHROPIC_MAX_TOKENS", int, DEFAULT_MAX_TOKENS))
    timeout = number("ANTHROPIC_TIMEOUT", float, DEFAULT_TIMEOUT)
    url = endpoint(setting("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL)
    body = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": prompt}],
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "x-api-key": key,
        "anthropic-version": API_VERSION,
    }
    request = urllib.request.Request(
        url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as e:
        raise Failure(f"HTTP {e.code} from {url}: {server_detail(e.read())}") from None
    except urllib.error.URLError as e:
        raise Failure(f"cannot reach {url}: {one_line(e.reason)}") from None
    except TimeoutError:
        raise Failure(f"no reply from {url} within {timeout:g}s") from None
    except OSError as e:
        raise Failure(f"the connection to {url} failed: {one_line(e)}") from None
    try:
        parsed = json.loads(raw.decode("utf-8"))
    except ValueError:
        raise Failure(f"the reply from {url} is not JSON: {one_line(raw[:200])}") from None
    return reply_text(parsed), usage_line(parsed, model)


def main() -> int:
    prompt = sys.stdin.buffer.read().decode("utf-8", "replace")
    try:
        text, usage = ask(prompt)
    except Failure as e:
        print(f"{NAME}: {one_line(e)}", file=sys.stderr)
        return e.code
    if usage:
        print(usage, file=sys.stderr)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
