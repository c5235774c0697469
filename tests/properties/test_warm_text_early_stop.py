"""The in-memory text index's early stop: over bases where a question's words hold many
postings, reading them best weight first and stopping at the bound keeps exactly the chunks
and scores that scoring every posting keeps, private chunks and ties by rowid included."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from kb.pure.answering.held.warmtext import (
    EARLY_STOP_ONE_WORD,
    ChunkFacts,
    FileFacts,
    StemRules,
    WarmText,
    _ReadTooMuch,
    warm_text,
)

# Not shrunk: a base is hundreds of chunks, and a failure prints its example whole.
EARLY = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)
RULES = StemRules(scan_max=2000, class_max=16, prune_min_chunks=1_000_000)
WORDS = ("floor", "lantern", "harbor", "vigil")

# One chunk: how often each word is in its heading and its text (mostly not at all, often
# once, so equal scores are common), and some filler words for its length. A rare word is
# in few chunks, so a limit can reach past every chunk holding it.
_count = st.sampled_from((0, 0, 0, 1, 1, 2, 5))
_rare = st.sampled_from((0,) * 30 + (1, 3))


def _chunk(rare: frozenset[str]) -> st.SearchStrategy[tuple[list[int], list[int], int]]:
    counts = st.tuples(*(_rare if w in rare else _count for w in WORDS)).map(list)
    return st.tuples(counts, counts, st.integers(0, 12))


@st.composite
def bases(draw: st.DrawFn) -> WarmText:
    rare = draw(st.frozensets(st.sampled_from(WORDS)))
    sized = st.lists(_chunk(rare), min_size=EARLY_STOP_ONE_WORD // 2, max_size=EARLY_STOP_ONE_WORD)
    drawn = draw(sized)
    chunks: list[ChunkFacts] = []
    vocabulary: dict[str, int] = {}
    for rowid, (head, body, filler) in enumerate(drawn, start=1):
        heading = [w for w, n in zip(WORDS, head, strict=True) for _ in range(n)]
        text = [w for w, n in zip(WORDS, body, strict=True) for _ in range(n)]
        text += ["x"] * filler
        for w in set(heading) | set(text):
            vocabulary[w] = vocabulary.get(w, 0) + 1
        chunks.append(ChunkFacts(rowid, " ".join(heading), " ".join(text)))
    # files of a few chunks each, some private
    files: list[FileFacts] = []
    first = 1
    while first <= len(chunks):
        last = min(len(chunks), first + draw(st.integers(0, 4)))
        files.append(FileFacts("alpha", f"n{first}.md", first, last, draw(st.booleans())))
        first = last + 1
    tokens = sum(len(c.head_words.split()) + len(c.body_words.split()) for c in chunks)
    return warm_text(b"s", RULES, len(chunks), tokens, vocabulary.items(), chunks, files, 1)


@EARLY
@given(
    base=bases(),
    words=st.lists(st.sampled_from((*WORDS, "absent")), min_size=1, max_size=6),
    limit=st.integers(1, 40),
    include_private=st.booleans(),
)
def test_stopping_early_keeps_what_scoring_every_posting_keeps(
    base: WarmText, words: list[str], limit: int, include_private: bool
) -> None:
    every = base.top_of_every_score(words, limit, include_private)
    assert base.top_stopping_early(words, limit, include_private) == every
    # and again, reading the words' orders from the memo
    assert base.top_stopping_early(words, limit, include_private) == every


@EARLY
@given(
    base=bases(),
    words=st.lists(st.sampled_from((*WORDS, "absent")), min_size=1, max_size=6),
    limit=st.integers(1, 40),
    most_met=st.integers(0, EARLY_STOP_ONE_WORD),
)
def test_an_early_read_with_a_budget_keeps_the_same_chunks_or_gives_up_whole(
    base: WarmText, words: list[str], limit: int, most_met: int
) -> None:
    """A budgeted read either keeps what scoring every posting keeps or gives up: it never
    answers from the chunks it had met when the budget ran out."""
    every = base.top_of_every_score(words, limit, False)
    try:
        kept = base.top_stopping_early(words, limit, False, most_met)
    except _ReadTooMuch:
        assert most_met < len(base.rowids)  # a budget of every chunk is never exceeded
        return
    assert kept == every
