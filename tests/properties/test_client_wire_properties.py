"""The daemon client's JSON (kb.shell.cli.client.dumps / loads) is json's, through the C
codec json itself calls: whatever json writes the client reads the same, whatever the
client writes json reads the same, and any text is accepted or refused as json.loads
does (non-finite numbers refused on both sides, as the wire never carries them)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from kb.shell.cli import client

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
PADDING = st.sampled_from(["", " ", "\n", " \t\r\n "])
REFUSED = object()


def _refuse_constant(name: str) -> object:
    raise ValueError(name)


def _json_reads(text: str) -> object:
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except ValueError:
        return REFUSED


def _client_reads(text: str) -> object:
    try:
        return client.loads(text)
    except ValueError:
        return REFUSED


@given(VALUES)
def test_the_client_writes_what_json_writes(value: object) -> None:
    written = client.dumps(value)
    assert written == json.dumps(value, separators=(",", ":"), allow_nan=False)
    assert json.loads(written) == value


@given(VALUES, PADDING, PADDING)
def test_the_client_reads_what_json_writes(value: object, before: str, after: str) -> None:
    assert client.loads(before + json.dumps(value) + after) == value


@given(st.one_of(st.text(), VALUES.map(json.dumps).map(lambda t: t[: len(t) // 2 + 1])))
def test_any_text_is_read_or_refused_as_json_does(text: str) -> None:
    assert _client_reads(text) == _json_reads(text)


def test_examples_json_refuses() -> None:
    for text in ("", " ", "NaN", "[Infinity]", "{} {}", "[1,]", '{"a" 1}', "tru", '"\\x"'):
        assert _client_reads(text) is REFUSED, text
