"""The conversation panel's pure half: any line a runtime prints becomes well-formed events,
and only ids of hex digits and `-` are ever sessions."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from kb.pure.roles.chat import ChatEvent, chat_argv, events_of_line, sse, valid_session
from kb.pure.sessions.session import safe_session

KINDS = {"session", "routed", "assistant", "tool", "error", "done"}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
shaped = st.fixed_dictionaries(
    {"type": st.sampled_from(["system", "assistant", "user", "result", "x"])},
    optional={
        "subtype": st.sampled_from(["init", "success", "error_max_turns"]),
        "session_id": json_values,
        "message": json_values,
        "result": json_values,
        "is_error": st.booleans(),
    },
)
lines = st.text(max_size=200) | shaped.map(json.dumps) | json_values.map(json.dumps)


@given(line=lines)
def test_any_line_becomes_well_formed_events(line: str) -> None:
    for event in events_of_line(line):
        assert event.kind in KINDS and isinstance(event.text, str)
        framed = sse(1, event)
        assert framed.startswith("data: ") and framed.endswith("\n\n")
        assert "\n" not in framed[:-2]  # one data line: a newline in the text is escaped
        assert json.loads(framed[6:]) == {"seq": 1, "kind": event.kind, "text": event.text}


@given(session=st.text(max_size=40))
def test_a_session_is_hex_and_dashes_and_names_itself(session: str) -> None:
    if valid_session(session):
        assert set(session) <= set("0123456789abcdefABCDEF-") and session
        assert safe_session(session) == session  # the file it names is the id itself
        assert chat_argv(["rt", "-p"], session) == ["rt", "-p", "--resume", session]
    else:
        assert not (0 < len(session) <= 128 and set(session) <= set("0123456789abcdefABCDEF-"))


def test_the_stream_json_shapes() -> None:
    init = {"type": "system", "subtype": "init", "session_id": "ab-12"}
    assert events_of_line(json.dumps(init)) == [ChatEvent("session", "ab-12")]
    text = {"type": "assistant", "message": {"content": [{"type": "text", "text": "hi"}]}}
    assert events_of_line(json.dumps(text)) == [ChatEvent("assistant", "hi")]
    failed = {"type": "result", "subtype": "error_max_turns", "is_error": True}
    assert events_of_line(json.dumps(failed)) == [ChatEvent("error", "error_max_turns")]
    assert events_of_line("VESTA: this message routes to ada.\n") == [
        ChatEvent("routed", "VESTA: this message routes to ada.")
    ]
    assert events_of_line("   \n") == []
