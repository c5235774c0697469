"""Fuzz: what a hook hands kb on stdin (the boot payload, kb.pure.sessions.bootinput; the capture
envelope, kb.pure.sessions.session) and the session events record written from it.

Stdin is decoded strictly (boot gives up silently on bytes that are not UTF-8), but JSON
can still carry a lone surrogate as a `\\ud800` escape, so the payload's strings can hold
one; nothing read from it may fail a later write.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kb.pure.sessions import bootinput, session, sessionlog
from tests.fuzz.hostile import raw_text, twice

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    raw_text(surrogate=True, max_size=60),
)


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)


json_values = st.recursive(json_scalars, _containers, max_leaves=8)
payload_objects = st.dictionaries(
    st.sampled_from(("prompt", "session_id", "hook_event_name", "cwd", "transcript_path", "x")),
    json_values,
    max_size=5,
)


@st.composite
def stdins(draw: st.DrawFn) -> str:
    """A hook payload (JSON, sometimes damaged), or a plain message, or raw text."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(raw_text(surrogate=False, max_size=300))
    if kind == 1:  # nesting deeper than json can decode
        depth = draw(st.integers(1, 5000))
        return '{"prompt": ' + "[" * depth + "]" * depth + "}"
    text = json.dumps(draw(payload_objects), ensure_ascii=draw(st.booleans()))
    if kind == 2 and text:  # cut short, as a killed writer would leave it
        text = text[: draw(st.integers(0, len(text)))]
    if kind == 3:
        text = draw(st.sampled_from((" ", "\n", "\ufeff", "\t"))) + text
    if kind == 4:  # the envelopes boot strips before scoring
        text = json.dumps(
            {
                "prompt": draw(
                    st.lists(
                        st.sampled_from(
                            (
                                "<system-reminder>",
                                "</system-reminder>",
                                "<task-notification>",
                                "</task-notification>",
                                "backup restore",
                                " ",
                                "é" * 700,
                            )
                        ),
                        max_size=12,
                    ).map("".join)
                )
            }
        )
    return text


flags = st.none() | raw_text(surrogate=True, max_size=20)


@given(stdin=stdins(), text_mode=st.booleans(), session_flag=flags, cwd_flag=flags)
def test_boot_payload(
    stdin: str, text_mode: bool, session_flag: str | None, cwd_flag: str | None
) -> None:
    request = twice(lambda: bootinput.read_request(stdin, text_mode, session_flag, cwd_flag))
    if request is None:
        return
    # Nothing read from stdin can fail a later print or write.
    request.prompt.encode("utf-8")
    if request.session is not None:
        request.session.encode("utf-8")
        assert request.session == request.session.strip() and request.session
    if request.cwd is not None:  # the payload's cwd is taken as given (workflow-verbs.md §7.1)
        request.cwd.encode("utf-8")
        assert request.cwd
    asked = twice(lambda: bootinput.strip_envelopes(request.prompt))
    for tag in bootinput.ENVELOPE_TAGS:
        assert f"<{tag}>" not in asked
    routed = twice(lambda: bootinput.routed_text(asked))
    assert len(routed.encode("utf-8")) <= bootinput.ROUTE_BUDGET + 1


@given(stdin=stdins())
def test_capture_envelope(stdin: str) -> None:
    envelope = twice(lambda: session.read_envelope(stdin))
    assert isinstance(envelope.prompt, str)
    if envelope.session is not None:
        safe = session.safe_session(envelope.session)
        assert safe and all(c.isascii() and (c.isalnum() or c in "-_") for c in safe)
        assert session.events_name(envelope.session) == safe + ".events"


events = st.one_of(
    st.builds(
        session.Refused,
        raw_text(max_size=40),
        st.lists(raw_text(max_size=10), max_size=3).map(tuple),
    ),
    st.builds(session.Routed, raw_text(max_size=20)),
    st.builds(session.Concluded, raw_text(max_size=40)),
)


@given(record=raw_text(max_size=600), more=st.lists(events, max_size=6))
def test_session_events_record(record: str, more: list[session.Event]) -> None:
    parsed = twice(lambda: session.parse_events(record))
    rendered = session.render_events(parsed)
    assert session.parse_events(rendered) == parsed  # what was read, written back, reads the same
    appended = rendered + session.render_events(more)
    again = session.parse_events(appended)
    assert again[: len(parsed)] == parsed  # an append never disturbs what came before
    assert len(again) <= len(parsed) + len(more)
    assert appended.count("\n") == len(parsed) + len(more)  # one event, one line


@given(
    question=raw_text(max_size=60),
    offered=st.lists(raw_text(max_size=10), max_size=3),
    agent=raw_text(max_size=20),
)
def test_boot_event_lines(question: str, offered: list[str], agent: str) -> None:
    refused = sessionlog.refused_line(question, offered)
    routed = sessionlog.routed_line(agent)
    for line in (refused, routed):
        assert line.endswith("\n") and line.count("\n") == 1 and "\r" not in line
    got = session.parse_event(refused.rstrip("\n"))
    if got is not None:
        assert isinstance(got, session.Refused) and got.question == sessionlog.flatten(question)
