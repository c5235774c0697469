"""Properties of `kb answer`'s small-to-big assembly (kb.pure.roles.answer) over generated text.

A window never exceeds 1,800 UTF-8 bytes and is always a prefix of its section, cut on a
character (a sentence cut keeps the `.` the text has right there); a merge keeps the first
passage whole and loses no text of the second that the first did not already hold; one
window per heading path, in the order the headings were first seen; every passage of an
inbox/ file carries the short label.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.answering.fusion import Found, Passage
from kb.pure.answering.verdict import Confidence
from kb.pure.roles import answer as core

# Prose-like text: letters, accents, a multi-byte symbol, spaces, sentence ends, newlines.
ALPHABET = st.sampled_from([*"abcdeé€ .\n", "\n\n", ". "])
TEXT = st.lists(ALPHABET, max_size=1500).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.integers(min_value=0, max_value=4))
def test_cap_is_a_bounded_prefix(text: str, repeat: int) -> None:
    text = text * (repeat + 1)
    out = core.cap(text)
    if len(text.encode("utf-8")) <= core.WINDOW_CAP:
        assert out == text
    else:
        # a sentence cut keeps its own `.`, which the text has right there
        assert len(out.encode("utf-8")) <= core.WINDOW_CAP
        assert text.lstrip().startswith(out)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_merge_keeps_the_first_and_the_rest_of_the_second(a: str, b: str) -> None:
    out = core.merge(a, b)
    a, b = a.strip(), b.strip()
    if a in b:
        assert out == b
    else:
        assert out.startswith(a)
        if b not in a:
            # whatever of b is not the overlap follows a, after one separator
            tail = out[len(a) :]
            assert tail.startswith("\n")
            assert b.endswith(tail.lstrip()) or tail.lstrip() == ""


HEADINGS = st.sampled_from(["", "T", "T > A", "T > B"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(HEADINGS, TEXT), max_size=12),
    st.integers(min_value=1, max_value=16),
    st.booleans(),
)
def test_windows_one_per_heading_in_first_seen_order(
    parts: list[tuple[str, str]], limit: int, short: bool
) -> None:
    passages = [Passage(h, t, "", None, None) for h, t in parts]
    ws = core.windows(passages, None, limit)
    seen: list[str] = []
    for h, _ in parts[:limit]:
        if h not in seen:
            seen.append(h)
    # a section whose every passage is blank serves nothing and gets no header
    seen = [h for h in seen if any(t.strip() for hh, t in parts[:limit] if hh == h)]
    assert [w.heading_path for w in ws] == seen
    assert all(len(w.text.encode("utf-8")) <= core.WINDOW_CAP + 1 for w in ws)
    path = "inbox/s.md" if short else "knowledge/k.md"
    f = Found("ada", path, "short" if short else "long", "", "", 1.0, 1.0, (), (), tuple(passages))
    served = core.served_files([f], {}, core.FAST)
    prompt = core.answer_prompt("q", Confidence("hit", 2, 20.0, 1.0, 10.0), served)
    headers = [ln for ln in prompt.split("\n") if ln.startswith(f"--- ada/{path} (")]
    assert len(headers) == len(core.windows(passages, None, core.FAST.passages))
    assert all(h.endswith(core.SHORT_MEMORY) == short for h in headers)
