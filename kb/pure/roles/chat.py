"""The reading room's conversation panel: which runtime command runs, and what its output means.

Rules of this module (workflow-verbs.md §18, `/api/chat`):
- The runtime is a command line the person configures (`chat = ...` in fleet.txt, or the
  `KB_UI_CHAT` environment variable, which wins); there is none by default. It is split into
  shell words by the model-command rule (kb.io.roles.model) and run with no shell. When the
  conversation already has a session, `--resume {id}` is appended (the flag Claude Code and
  its look-alikes take).
- A session id is accepted only when it is 1 to SESSION_MAX characters of hex digits and
  `-` (the shape of the UUIDs runtimes hand out). Anything else is refused before a process
  starts, so an id can never become a path or an argument of another shape; the file it
  names is `safe_session(id)`, identical for every accepted id.
- The runtime's stdout is read a line at a time. A line that parses as a JSON object in the
  stream-json shape becomes events: `system`/`init` gives `session`, an `assistant`
  message's text blocks give `assistant` and its tool calls give `tool`, a `result` gives
  `error` when it is an error. A line that is not JSON is assistant text as it stands, so a
  plain script can be a runtime. Any text that starts with `VESTA:` (the routing hook's
  voice) is a `routed` event instead.
- Every event is one server-sent event: `data: {"seq","kind","text"}` and a blank line.
  `seq` counts from 1 in the order the events were sent.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from attrs import frozen

from kb.pure.render.jsonout import dumps

Kind = Literal["session", "routed", "assistant", "tool", "error", "done"]

SESSION_MAX = 128
HEX = frozenset("0123456789abcdefABCDEF-")
ROUTED_PREFIX = "VESTA:"
TOOL_INPUT_SHOWN = 160  # characters of a tool call's input shown beside its name

NOT_CONFIGURED = (
    "no conversation runtime is configured. Add a line `chat = <command>` to fleet.txt (for "
    "example `chat = claude -p --output-format stream-json --verbose`) or set KB_UI_CHAT, "
    "then reload"
)
BAD_SESSION = "not a session id: only hex digits and `-` are accepted"


@frozen
class ChatEvent:
    kind: Kind
    text: str


def valid_session(session: str) -> bool:
    return 0 < len(session) <= SESSION_MAX and all(c in HEX for c in session)


def chat_argv(words: Sequence[str], session: str | None) -> list[str]:
    """The runtime's argv: its configured words, then `--resume {id}` for a known session."""
    argv = list(words)
    if session:
        argv += ["--resume", session]
    return argv


def _text_event(text: str) -> ChatEvent:
    if text.lstrip().startswith(ROUTED_PREFIX):
        return ChatEvent("routed", text.strip())
    return ChatEvent("assistant", text)


def _tool_text(block: dict[str, Any]) -> str:
    name = str(block.get("name") or "tool")
    raw = block.get("input")
    shown = dumps(raw) if isinstance(raw, dict | list) else ("" if raw is None else str(raw))
    if len(shown) > TOOL_INPUT_SHOWN:
        shown = shown[: TOOL_INPUT_SHOWN - 1] + "…"
    return f"{name} {shown}".strip()


def events_of_line(line: str) -> list[ChatEvent]:
    """The events one line of the runtime's stdout carries (often none)."""
    stripped = line.strip()
    if not stripped:
        return []
    try:
        value = json.loads(stripped) if stripped.startswith("{") else None
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        return [_text_event(line.rstrip("\r\n"))]
    kind = value.get("type")
    if kind == "system":
        session = value.get("session_id")
        if value.get("subtype") == "init" and isinstance(session, str):
            return [ChatEvent("session", session)]
        text = value.get("text") or value.get("message")
        if isinstance(text, str) and text.lstrip().startswith(ROUTED_PREFIX):
            return [ChatEvent("routed", text.strip())]
        return []
    if kind == "assistant":
        message = value.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            return [_text_event(content)] if content.strip() else []
        out: list[ChatEvent] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                if block["text"].strip():
                    out.append(_text_event(block["text"]))
            elif block.get("type") == "tool_use":
                out.append(ChatEvent("tool", _tool_text(block)))
        return out
    if kind == "result":
        if value.get("is_error") or value.get("subtype") not in (None, "success"):
            detail = value.get("result") or value.get("subtype") or "the runtime reported an error"
            return [ChatEvent("error", str(detail))]
        return []
    return []


def routed_line(agent: str) -> str:
    """What the panel shows when the session file names the agent that answered."""
    return f"{ROUTED_PREFIX} answering as {agent}"


def sse(seq: int, event: ChatEvent) -> str:
    return f"data: {dumps({'seq': seq, 'kind': event.kind, 'text': event.text})}\n\n"
