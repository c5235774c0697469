"""Nothing kb prints can act on a terminal (issue 24, F13): `printable` escapes every control
character, DEL, the C1 controls, the line separators, the bidi controls and lone surrogates;
with `lines` it keeps LF, TAB and CRLF, so a note or a model's reply keeps its shape. The JSON
writer escapes the same characters, so a JSON output passes `printable` unchanged and stays
the same JSON."""

from __future__ import annotations

import json
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.notes.names import BIDI_CONTROLS, printable
from kb.pure.render.jsonout import dumps
from kb.shell.cli.main import terminal_safe
from kb.shell.cli.outcome import Outcome

# What a hostile note, question or reply holds: text, and the characters that act on a
# terminal (ESC sequences, OSC 52, BEL, NUL, C1's CSI, bidi overrides, separators).
HOSTILE = st.lists(
    st.one_of(
        st.text(max_size=8),
        st.sampled_from(
            ["\x1b", "\x07", "\x00", "\x9b", "\x7f", "\r", "\n", "\t", "\r\n", "\u2028",
             "\u202e", "\u2066", "\u200f", "\ud800", "\x1b]52;c;aGk=\x07", "\x1b[2J"]
        ),
    ),
    max_size=12,
).map("".join)  # fmt: skip


def _acts_on_a_terminal(c: str) -> bool:
    code = ord(c)
    return (
        (code < 0x20 and c not in "\t\n")
        or 0x7F <= code < 0xA0
        or 0xD800 <= code <= 0xDFFF
        or c in "\u2028\u2029"
        or c in BIDI_CONTROLS
    )


@settings(max_examples=400, deadline=None)
@given(HOSTILE)
def test_nothing_that_acts_on_a_terminal_survives(text: str) -> None:
    for out in (printable(text), printable(text, lines=True).replace("\r\n", "\n")):
        assert not any(_acts_on_a_terminal(c) for c in out), repr(out)
    assert "\n" not in printable(text)  # one line stays one line


@settings(max_examples=400, deadline=None)
@given(HOSTILE)
def test_lines_and_tabs_and_ordinary_text_are_kept(text: str) -> None:
    safe = "".join(c for c in text if not _acts_on_a_terminal(c) and c != "\r")
    assert printable(safe, lines=True) == safe
    assert printable(text, lines=True).count("\n") == text.count("\n")


def test_the_bidi_controls_are_the_unicode_ones() -> None:
    # every explicit directional formatting character of Unicode (UAX #9): marks,
    # embeddings, overrides, isolates and their pops
    words = ("MARK", "EMBEDDING", "OVERRIDE", "ISOLATE", "POP DIRECTIONAL")
    for c in BIDI_CONTROLS:
        assert unicodedata.category(c) == "Cf", hex(ord(c))
        assert any(w in unicodedata.name(c) for w in words), unicodedata.name(c)
    assert len(BIDI_CONTROLS) == 12


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(HOSTILE, st.one_of(HOSTILE, st.lists(HOSTILE, max_size=3)), max_size=4))
def test_json_output_is_unchanged_and_stays_the_same_json(value: dict[str, object]) -> None:
    text = dumps(value) + "\n"
    assert printable(text, lines=True) == text
    assert terminal_safe(Outcome(stdout=text)).stdout == text
    assert json.loads(text) == value
