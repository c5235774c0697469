"""A session's files under `.kb/sessions/`: the name rule, the hook payload, and the events
record `kb boot` appends and `kb capture` consumes (workflow-verbs.md §7.1, §7.2, §8.1).

Rules of this module:
- `safe_session(id)`: every character that is not ASCII alphanumeric or `-` becomes `_`,
  so a session id such as `../../x` names a file inside `.kb/sessions/` and nowhere else.
  (`str.isalnum` alone is not the test: it would let letters of other scripts through.)
  An empty id, which no verb lets through, would still name a file: `_`.
- The hook payload: stdin whose left-trimmed text starts with `{`, parses as a JSON object
  and has at least one of `prompt`, `session_id`, `hook_event_name`, `cwd` is an envelope;
  anything else is the message itself and carries no session and no cwd.
- The events record is one event per line, tab separated, every field flattened (tab, CR
  and LF become a space, then trimmed) so a field can never split its line:
  `refused\\t{question}\\t{w1, w2}`, `routed\\t{agent}`, `conclusion\\t{text}`.
- Reading is forgiving: unknown kinds, a refusal with an empty question, a routed line with
  no agent, a blank conclusion and a torn last line are all skipped, never an error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from attrs import frozen

from kb.pure.sessions.sessionname import safe_session as safe_session

SESSIONS_DIR = (".kb", "sessions")
ENVELOPE_KEYS = ("prompt", "session_id", "hook_event_name", "cwd")


def events_name(id: str) -> str:
    return f"{safe_session(id)}.events"


def clean_session(value: str | None) -> str | None:
    """A session id as given on the command line or in a payload: trimmed, None when blank."""
    if value is None:
        return None
    value = value.strip()
    return value or None


# -- the hook payload ------------------------------------------------------------------------


@frozen
class Envelope:
    """What stdin carried: the message, and the session and cwd when it was a hook payload."""

    prompt: str
    session: str | None = None
    cwd: str | None = None
    is_payload: bool = False


def read_envelope(stdin: str) -> Envelope:
    if not stdin.lstrip().startswith("{"):
        return Envelope(prompt=stdin)
    try:
        value = json.loads(stdin)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than json can decode
        return Envelope(prompt=stdin)
    if not isinstance(value, dict) or not any(k in value for k in ENVELOPE_KEYS):
        return Envelope(prompt=stdin)
    prompt = value.get("prompt")
    session = value.get("session_id")
    cwd = value.get("cwd")
    return Envelope(
        prompt=prompt if isinstance(prompt, str) else "",
        session=clean_session(session) if isinstance(session, str) else None,
        cwd=cwd if isinstance(cwd, str) else None,
        is_payload=True,
    )


# -- the events record -----------------------------------------------------------------------


@frozen
class Refused:
    question: str
    looked_like: tuple[str, ...] = ()


@frozen
class Routed:
    agent: str


@frozen
class Concluded:
    text: str


Event = Refused | Routed | Concluded


def flatten(field: str) -> str:
    return field.replace("\t", " ").replace("\r", " ").replace("\n", " ").strip()


def event_line(event: Event) -> str:
    """One event as its line, with the trailing newline."""
    if isinstance(event, Refused):
        # Imported here: the scrubber compiles its rules (~35 ms) and `kb boot`, which loads
        # this module on every message, writes a refusal only when nothing matched.
        from kb.pure.sessions.scrub import scrub

        offered = ", ".join(flatten(w) for w in event.looked_like)
        # Scrubbed before it is flattened: a secret's shape can span lines (a YAML block
        # value), and one line of it is no longer a shape any rule knows.
        return f"refused\t{flatten(scrub(event.question))}\t{offered}\n"
    if isinstance(event, Routed):
        return f"routed\t{flatten(event.agent)}\n"
    return f"conclusion\t{flatten(event.text)}\n"


def parse_event(line: str) -> Event | None:
    line = line.rstrip("\r")
    kind, _, rest = line.partition("\t")
    if kind == "refused":
        question, _, offered = rest.partition("\t")
        question = question.strip()
        if not question:
            return None
        words = tuple(w.strip() for w in offered.split(",") if w.strip())
        return Refused(question, words)
    if kind == "routed":
        agent = rest.strip()
        return Routed(agent) if agent else None
    if kind == "conclusion":
        text = rest.strip()
        return Concluded(text) if text else None
    return None


def parse_events(text: str) -> tuple[Event, ...]:
    parsed = (parse_event(line) for line in text.split("\n"))
    return tuple(e for e in parsed if e is not None)


def render_events(events: Iterable[Event]) -> str:
    return "".join(event_line(e) for e in events)
