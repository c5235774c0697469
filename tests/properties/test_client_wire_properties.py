"""The daemon client's JSON (kb.client.dumps / loads) is json's, through the C
codec json itself calls: whatever json writes the client reads the same, whatever the
client writes json reads the same, and any text is accepted or refused as json.loads
does (non-finite numbers refused on both sides, as the wire never carries them)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from kb import client

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


# What a process is handed: no NUL, and undecodable bytes as the lone surrogates
# U+DC80-U+DCFF (`os.fsdecode`'s surrogateescape); stdin is any bytes.
PASSED = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\0")
    | st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF)
)


@given(
    PASSED,
    PASSED,
    st.lists(PASSED, max_size=5),
    st.dictionaries(PASSED.filter(bool), PASSED, max_size=4),
    st.none() | st.binary(),
)
def test_a_run_frame_carries_exactly_what_the_process_was_given(
    build: str, cwd: str, argv: list[str], env: dict[str, str], stdin: bytes | None
) -> None:
    request = client.read_run_frame(client.run_frame(build, cwd, argv, env, stdin))
    assert request == {
        "op": "run",
        "build": build,
        "argv": argv,
        "cwd": cwd,
        "env": env,
        # as the daemon's `_run` reads it: one code point a byte
        "stdin": None if stdin is None else stdin.decode("latin-1"),
    }


@given(st.text(), st.text(), st.integers(min_value=-(2**31), max_value=2**31))
def test_a_reply_frame_carries_any_text_and_code(out: str, err: str, code: int) -> None:
    reply = {"stdout": out, "stderr": err, "code": code}
    assert client.read_reply_frame(client.reply_frame(reply)) == reply
    assert client.read_reply_frame(client.reply_frame({"fallback": out})) is None


@given(st.binary())
def test_any_bytes_are_read_or_refused_never_raised(data: bytes) -> None:
    for framed in (data, client.RUN_MAGIC + data, client.REPLY_MAGIC + data):
        reply = client.read_reply_frame(framed)
        assert reply is None or set(reply) == {"stdout", "stderr", "code"}
        try:
            client.read_run_frame(framed)
        except ValueError:
            pass
