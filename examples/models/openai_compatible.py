#!/usr/bin/env python3
"""openai_compatible: a kb model command for any OpenAI-compatible chat endpoint.

Reads the prompt on stdin, sends it as one user message to `{OPENAI_BASE_URL}/chat/
completions`, and prints the reply on stdout. Works against OpenAI itself and against the
local servers that speak the same API (llama.cpp's llama-server, vLLM, Ollama, LM Studio).
Standard library only; configured by environment variables and nothing else:

  OPENAI_BASE_URL     default https://api.openai.com/v1 (a local server: http://127.0.0.1:8080/v1)
  OPENAI_API_KEY      sent as `Authorization: Bearer ...`; required only for the default URL
  OPENAI_MODEL        required: the model name the endpoint serves
  OPENAI_MAX_TOKENS   optional cap on the reply's length
  OPENAI_TEMPERATURE  optional, e.g. 0 for the most repeatable replies
  OPENAI_TIMEOUT      optional seconds to wait for the reply (default 300)

Token usage goes to stderr (kb discards it; run the script by hand to see it). Any HTTP
error, unreadable reply or empty answer exits non-zero with a one-line reason on stderr,
which kb reads as "did not answer". Name it in fleet.txt by its absolute path, or copy it
into the fleet root's models/ and write
`answerer = models/openai_compatible.py` (a relative path is read from the fleet root).
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any

NAME = "openai_compatible"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT = 300.0
DETAIL_CAP = 300  # characters of a server's error message worth repeating


class Failure(Exception):
    def __init__(self, reason: str, code: int = 1) -> None:
        super().__init__(reason)
        self.code = code


def one_line(text: str, cap: int = DETAIL_CAP) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= cap else flat[: cap - 3] + "..."


def setting(name: str) -> str:
    return os.environ.get(name, "").strip()


def number(name: str, kind: type[int] | type[float]) -> int | float | None:
    raw = setting(name)
    if not raw:
        return None
    try:
        value = kind(raw)
    except ValueError:
        raise Failure(f"{name} must be a number, not {raw!r}", 2) from None
    if value < 0:
        raise Failure(f"{name} must not be negative, not {raw!r}", 2)
    return value


def server_detail(body: bytes) -> str:
    """The error message an OpenAI-style server put in its body, else the body itself."""
    text = body.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        return one_line(text) or "no detail in the body"
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict) and err.get("message"):
            return one_line(err["message"])
        if isinstance(err, str):
            return one_line(err)
    return one_line(text)


def request_body(prompt: str, model: str) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": prompt}]}
    max_tokens = number("OPENAI_MAX_TOKENS", int)
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    temperature = number("OPENAI_TEMPERATURE", float)
    if temperature is not None:
        body["temperature"] = temperature
    return body


def reply_text(data: Any) -> str:
    try:
        choice = data["choices"][0]
        content = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise Failure("the reply has no choices[0].message.content") from None
    if isinstance(content, list):  # some servers send content parts
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    if not isinstance(content, str) or not content.strip():
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        raise Failure(f"the reply held no text (finish_reason: {reason})")
    return content


def usage_line(data: Any, model: str) -> str | None:
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return None
    parts = [
        f"{label} {usage[key]}"
        for key, label in (
            ("prompt_tokens", "prompt"),
            ("completion_tokens", "completion"),
            ("total_tokens", "total"),
        )
        if isinstance(usage.get(key), int)
    ]
    served = data.get("model") or model
    return f"{NAME}: tokens: {', '.join(parts) or 'not reported'} ({served})"


def ask(prompt: str) -> tuple[str, str | None]:
    base = setting("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    key = setting("OPENAI_API_KEY")
    model = setting("OPENAI_MODEL")
    if not model:
        raise Failure("OPENAI_MODEL is not set; name the model the endpoint serves", 2)
    if not key and base.rstrip("/") == DEFAULT_BASE_URL:
        raise Failure("OPENAI_API_KEY is not set, and the default endpoint needs one", 2)
    timeout = number("OPENAI_TIMEOUT", float) or DEFAULT_TIMEOUT
    url = base.rstrip("/") + "/chat/completions"
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(request_body(prompt, model)).encode("utf-8")
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
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
