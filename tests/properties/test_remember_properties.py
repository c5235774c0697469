"""remember: containment is a share, the proposal a pure function of it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.answering.fusion import TextHit
from kb.pure.notes.tokens import normalise
from kb.pure.roles.remember import NOOP_AT, UPDATE_AT, measure, propose

WORDS = [
    "harbor",
    "ledger",
    "quorum",
    "lantern",
    "sparrow",
    "kernel",
    "tessera",
    "vigil",
    "piso",
    "roteamento",
    "backup",
    "restore",
    "deploy",
    "canary",
]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=30).map(" ".join)


def hit(body: str) -> TextHit:
    return TextHit("b", "n.md", "T", body[:40], body, None, None, None)


@settings(max_examples=300)
@given(claim=text, chunks=st.lists(text, max_size=6))
def test_containment_is_a_share_and_the_proposal_follows_it(claim: str, chunks: list[str]) -> None:
    terms = normalise(claim)
    result = propose(claim, terms, [hit(c) for c in chunks])
    for e in result.evidence:
        assert 0.0 <= e.containment <= 1.0
        assert set(e.shared) | set(e.missing) == set(terms)
        assert not set(e.shared) & set(e.missing)
    containments = [e.containment for e in result.evidence]
    assert containments == sorted(containments, reverse=True)
    best = containments[0] if containments else None
    expected = "ADD" if best is None or best < UPDATE_AT else "UPDATE" if best < NOOP_AT else "NOOP"
    assert result.proposal == expected


@given(chunk=text, pick=st.data())
def test_a_claim_copied_from_a_chunk_is_noop(chunk: str, pick: st.DataObject) -> None:
    words = chunk.split()
    start = pick.draw(st.integers(0, len(words) - 1))
    end = pick.draw(st.integers(start + 1, len(words)))
    claim = " ".join(words[start:end])
    assert propose(claim, normalise(claim), [hit(chunk)]).proposal == "NOOP"


@given(chunk=text)
def test_a_claim_sharing_no_word_is_add(chunk: str) -> None:
    claim = "zeppelin obsidian marmalade"
    assert not set(normalise(claim)) & set(normalise(chunk))
    result = propose(claim, normalise(claim), [hit(chunk)])
    assert result.proposal == "ADD"
    assert measure(normalise(claim), hit(chunk)).containment == 0.0
