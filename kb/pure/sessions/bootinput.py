"""What `kb boot` was handed, and the part of it that is the user's own words.

Rules of this module:
- With `--text`, stdin is the message verbatim; blank means no request. Otherwise stdin
  that starts (after leading whitespace) with `{`, parses as a JSON object and has at least
  one of `prompt`, `session_id`, `hook_event_name`, `cwd` is a hook payload: the prompt is
  `prompt` when it is a string (else empty, which boot answers with the roster), the
  session a non-blank `session_id` string, trimmed, the cwd a `cwd` string. Anything else
  is the message itself, and a blank message is no request. A message that is itself such
  a JSON object is read as a payload; `--text` is the way around that (kept from the
  original).
- `--session` and `--cwd`, when non-blank after trimming, win over the payload's.
- Text that cannot be encoded as UTF-8 (a lone surrogate from a JSON `\\ud800` escape) is
  replaced here, so no later write or print can fail on it.
- What is routed is at most 4,096 UTF-8 bytes: the first 3,072 and the last 1,024 of a
  longer message (cut at character boundaries), so a question before or after a pasted log
  is still read. Scoring costs about 20 ms per KB here (64 KB measured at 1.9 s), and the
  hook runs on every message; 10 MB of pasted text must not stall a session.
- Machine envelopes are not the user's words: every `<system-reminder>` block and then every
  `<task-notification>` block is removed before anything is scored; an opening tag that is
  never closed removes everything after it.
"""

from __future__ import annotations

import json

from attrs import frozen

ENVELOPE_KEYS = ("prompt", "session_id", "hook_event_name", "cwd")
ENVELOPE_TAGS = ("system-reminder", "task-notification")
ROUTE_BUDGET = 4096
ROUTE_HEAD = 3072


@frozen
class BootRequest:
    prompt: str
    session: str | None = None
    cwd: str | None = None


def _trimmed(value: str | None) -> str | None:
    """A session id or directory as given: trimmed, None when blank."""
    return value.strip() or None if value is not None else None


def encodable(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8")


def _payload(stdin: str) -> dict[str, object] | None:
    """The hook payload, when stdin is one."""
    if not stdin.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(stdin)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than json decodes
        return None
    if not isinstance(value, dict) or not any(k in value for k in ENVELOPE_KEYS):
        return None
    return value


def _string(value: object) -> str | None:
    return value if isinstance(value, str) else None


def read_request(
    stdin: str, text_mode: bool, session: str | None = None, cwd: str | None = None
) -> BootRequest | None:
    """The request on stdin with the flags applied; None when there is none."""
    if text_mode:
        prompt, given_session, given_cwd = stdin, None, None
        if not stdin.strip():
            return None
    else:
        payload = _payload(stdin)
        if payload is None:
            if not stdin.strip():
                return None
            prompt, given_session, given_cwd = stdin, None, None
        else:
            prompt = _string(payload.get("prompt")) or ""
            given_session = _trimmed(_string(payload.get("session_id")))
            given_cwd = _string(payload.get("cwd"))
    chosen_session = _trimmed(session) or given_session
    chosen_cwd = _trimmed(cwd) or given_cwd
    return BootRequest(
        prompt=encodable(prompt),
        session=encodable(chosen_session) if chosen_session else None,
        cwd=encodable(chosen_cwd) if chosen_cwd else None,
    )


def strip_envelopes(text: str) -> str:
    for tag in ENVELOPE_TAGS:
        opening, closing = f"<{tag}>", f"</{tag}>"
        kept: list[str] = []
        rest = text
        while True:
            start = rest.find(opening)
            if start == -1:
                kept.append(rest)
                break
            kept.append(rest[:start])
            end = rest.find(closing, start + len(opening))
            if end == -1:
                break
            rest = rest[end + len(closing) :]
        text = "".join(kept)
    return text


def routed_text(asked: str) -> str:
    """The part of a long message that is scored: its head and its tail."""
    data = asked.encode("utf-8")
    if len(data) <= ROUTE_BUDGET:
        return asked
    head = data[:ROUTE_HEAD].decode("utf-8", "ignore")
    tail = data[len(data) - (ROUTE_BUDGET - ROUTE_HEAD) :].decode("utf-8", "ignore")
    return f"{head} {tail}"
