"""The rules of the in-memory text index (kb.pure.answering.held.warmtext), one test each.

Each rule is the one `kb.io.store.Store` follows over SQLite; tests/properties/
test_warm_text_properties.py holds the two paths equal on generated fleets."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import kb.io.answering.memory as memory_module
from kb.io.answering.memory import Memory
from kb.io.notes.indexer import index_bases
from kb.io.store import Store
from kb.pure.answering.held import warmtext
from kb.pure.answering.held.warmtext import (
    EARLY_STOP_BATCH,
    EARLY_STOP_ONE_WORD,
    FTS_IDF_FLOOR,
    ChunkFacts,
    FileFacts,
    StemRules,
    Unpackable,
    WarmText,
    warm_text,
)

WIDE = StemRules(scan_max=2000, class_max=16, prune_min_chunks=10_000)
# Every rule holds for both rankings of a held base: Python's, and numpy's where installed.
_RANKINGS = ["python", "numpy"]
_ranked_by = {"now": "python"}


@pytest.fixture(autouse=True, params=_RANKINGS)
def ranking(request: pytest.FixtureRequest) -> str:
    if request.param == "numpy":
        pytest.importorskip("numpy")
    _ranked_by["now"] = request.param
    return str(request.param)


def _warm(
    chunks: list[tuple[int, str, str, str]],
    files: list[tuple[str, int, int, bool]],
    rules: StemRules = WIDE,
    vocabulary: dict[str, int] | None = None,
) -> WarmText:
    """A base of `chunks` (rowid, heading path, heading words, text words) in `files`
    (path, first, last, private); the vocabulary and totals as FTS5 would count them."""
    if vocabulary is None:
        vocabulary = {}
        for _, _, head, body in chunks:
            for w in set(head.split()) | set(body.split()):
                vocabulary[w] = vocabulary.get(w, 0) + 1
    tokens = sum(len(h.split()) + len(b.split()) for _, _, h, b in chunks)
    return warm_text(
        b"stamp",
        rules,
        len(chunks),
        tokens,
        vocabulary.items(),
        [ChunkFacts(r, h, b) for r, _, h, b in chunks],
        [FileFacts("alpha", p, first, last, private) for p, first, last, private in files],
        pages=len(files),
        dense=_ranked_by["now"] == "numpy",
    )


def _fts_bm25(freq: float, idf: float, length: int, avgdl: float) -> float:
    return idf * (freq * 2.2) / (freq + 1.2 * (1 - 0.75 + 0.75 * length / avgdl))


# -- stem classes --------------------------------------------------------------------------


def test_a_stem_class_holds_the_words_of_one_stem_in_vocabulary_order() -> None:
    w = _warm(
        [(1, "", "", "floors floor flooring floorboard flo fz a")],
        [("a.md", 1, 1, False)],
    )
    assert [word for word, _ in w.stem_class("floor")] == ["floor", "flooring", "floors"]
    assert w.stem_class("zzq") == []
    assert w.stem_class("fz") == [("fz", 1)]  # the vocabulary's last word


def test_a_stem_class_is_cut_at_its_cap_and_at_the_scan_bound() -> None:
    text = "floor floorboard floored flooring floors"
    capped = _warm([(1, "", "", text)], [("a.md", 1, 1, False)], StemRules(2000, 2, 10_000))
    assert [word for word, _ in capped.stem_class("floor")] == ["floor", "floored"]
    # the scan reads three words from `floor` on (floor, floorboard, floored), as the SQL
    # scan's LIMIT does, so `flooring` and `floors` are past it
    scanned = _warm([(1, "", "", text)], [("a.md", 1, 1, False)], StemRules(3, 16, 10_000))
    assert [word for word, _ in scanned.stem_class("floor")] == ["floor", "floored"]
    # a scan that starts past the vocabulary's first words still reads `scan_max` of them
    late = _warm([(1, "", "", "a b c " + text)], [("a.md", 1, 1, False)], StemRules(4, 16, 10_000))
    assert [word for word, _ in late.stem_class("floor")] == ["floor", "floored", "flooring"]


def test_stats_sum_a_class_chunk_frequencies_and_name_the_question_word_first() -> None:
    w = _warm(
        [(1, "", "", "floors"), (2, "", "", "floors flooring"), (3, "", "", "roof")],
        [("a.md", 1, 3, False)],
    )
    stats, variants = w.stats(["floor", "zzq"])
    assert stats.chunks == 3
    assert stats.tokens == 4
    assert dict(stats.df) == {"floor": 3, "zzq": 0}  # flooring 1 + floors 2
    assert variants == {"floor": ("floor", "flooring", "floors"), "zzq": ("zzq",)}


def test_a_word_is_known_when_the_vocabulary_holds_it_as_it_is() -> None:
    rules = StemRules(scan_max=2000, class_max=1, prune_min_chunks=10_000)
    w = _warm([(1, "", "", "floor floors lantern")], [("a.md", 1, 1, False)], rules)
    # `floors` is cut from its class (cap 1) but the vocabulary holds it; `lanterns`
    # shares a stem with a known word and is not known
    known = w.known_words(["floor", "floors", "lantern", "lanterns"])
    assert known == {"floor", "floors", "lantern"}


def test_a_word_id_is_its_place_in_the_vocabulary_and_none_for_any_other_word() -> None:
    w = _warm([(1, "", "", "floor lantern mast")], [("a.md", 1, 1, False)])
    assert w.vocabulary == ("floor", "lantern", "mast")
    assert [w.word_id(x) for x in w.vocabulary] == [0, 1, 2]
    # before the first word, between two, a prefix of one, after the last
    assert [w.word_id(x) for x in ("apple", "kite", "lant", "zebra")] == [None] * 4
    assert w.known_words(["zebra", "mast", "apple"]) == {"mast"}


def test_holds_none_only_when_no_chunk_holds_any_word() -> None:
    w = _warm([(1, "", "", "floor")], [("a.md", 1, 1, False)])
    assert w.holds_none(["zzq", "qqx"])
    assert not w.holds_none(["zzq", "floor"])
    assert not w.holds_none([])


# -- pruning and ranking -------------------------------------------------------------------


def test_a_large_base_drops_words_in_more_than_a_quarter_of_its_chunks() -> None:
    rules = StemRules(scan_max=2000, class_max=16, prune_min_chunks=8)  # exactly 8 chunks
    chunks = [(r, "", "", "common rare" if r == 1 else "common") for r in range(1, 9)]
    chunks[1] = (2, "", "", "common quarter")
    chunks[2] = (3, "", "", "common quarter third")
    chunks[3] = (4, "", "", "common third")
    chunks[4] = (5, "", "", "common third")
    w = _warm(chunks, [("a.md", 1, 8, False)], rules)
    # 8 // 4 = 2: a word in 2 chunks stays, one in 3 goes
    assert w.pruned(["common", "rare", "quarter", "third", "rare"]) == ["rare", "quarter"]
    assert w.pruned(["common"]) == ["common"]  # dropping every word keeps them all


def test_a_small_base_drops_no_word() -> None:
    chunks = [(r, "", "", "common") for r in range(1, 9)]
    w = _warm(chunks, [("a.md", 1, 8, False)], StemRules(2000, 16, 9))
    assert w.pruned(["common", "zzq"]) == ["common", "zzq"]


def test_rank_scores_by_fts5_bm25_with_the_heading_weighing_twice() -> None:
    chunks = [
        (1, "Floor", "floor", "a b c"),
        (2, "", "", "floor d e f"),
        (3, "", "", "g h"),
        (4, "", "", "i j k l m n"),
        (5, "", "", "o"),
        (6, "", "", "p q r"),
    ]
    w = _warm(chunks, [("a.md", 1, 2, False), ("b.md", 3, 6, False)])
    _, best = w.rank(["floor"], 5, False)
    assert best == [(1, "alpha", "a.md"), (2, "alpha", "a.md")]
    # each posting's weight is bm25's before idf, over FTS5's average chunk length
    avgdl = 20 / 6
    at = w.word_id("floor")
    assert at is not None
    weights = list(w.post_weight[w.at[at] : w.at[at + 1]])
    assert weights == [_fts_bm25(2.0, 1.0, 4, avgdl), _fts_bm25(1.0, 1.0, 4, avgdl)]


def test_a_word_in_half_the_chunks_or_more_counts_by_the_idf_floor() -> None:
    chunks = [(1, "", "", "floor x"), (2, "", "", "floor floor")]
    w = _warm(chunks, [("a.md", 1, 2, False)])
    # ln((2 - 2 + 0.5) / (2 + 0.5)) is negative: floored at FTS_IDF_FLOOR, so more
    # occurrences still rank higher (a negative idf would rank them lower)
    assert math.log(0.5 / 2.5) < 0 < FTS_IDF_FLOOR
    _, best = w.rank(["floor"], 5, False)
    assert [r for r, _, _ in best] == [2, 1]


def test_equal_scores_rank_by_rowid_and_the_limit_cuts_after_sorting() -> None:
    chunks = [(r, "", "", "floor x y") for r in (5, 3, 9)]
    chunks.sort()
    w = _warm(chunks, [("a.md", 3, 9, False)])
    _, best = w.rank(["floor"], 2, False)
    assert [r for r, _, _ in best] == [3, 5]


def test_a_private_chunk_never_takes_a_public_questions_place() -> None:
    chunks = [(1, "", "", "floor floor floor"), (2, "", "", "floor")]
    w = _warm(chunks, [("records/a.md", 1, 1, True), ("knowledge/b.md", 2, 2, False)])
    assert w.rank(["floor"], 1, False)[1] == [(2, "alpha", "knowledge/b.md")]
    assert w.rank(["floor"], 1, True)[1] == [(1, "alpha", "records/a.md")]


def test_rank_sums_every_asked_word_once() -> None:
    chunks = [(1, "", "", "floor lantern"), (2, "", "", "floor floor"), (3, "", "", "z")]
    w = _warm(chunks, [("a.md", 1, 3, False)])
    kept, best = w.rank(["lantern", "floor", "lantern"], 5, False)
    assert kept == ["lantern", "floor"]
    assert [r for r, _, _ in best] == [1, 2]


def test_nothing_is_ranked_for_no_words_or_no_room() -> None:
    w = _warm([(1, "", "", "floor"), (2, "", "", "floor floor")], [("a.md", 1, 2, False)])
    assert w.rank([], 5, False) == ([], [])
    assert w.rank(["floor"], 0, False) == (["floor"], [])
    assert w.rank(["floor"], -1, False) == (["floor"], [])
    assert w.rank(["zzq"], 5, False) == (["zzq"], [])
    if w.dense is not None:  # numpy's own guard, which `rank`'s keeps it from meeting
        spans = [(w.at[i], w.at[i + 1], idf) for i, idf in w._weighted(["floor"])]
        assert w.dense.top(spans, 0, False) == []
        assert w.dense.top(spans, -1, False) == []
        assert w.dense.top([], 5, False) == []


def test_the_limit_keeps_the_best_of_distinct_scores() -> None:
    chunks = [(r, "", "", " ".join(["floor"] * r + ["x"] * (6 - r))) for r in range(1, 6)]
    w = _warm(chunks, [("a.md", 1, 5, False)], vocabulary={"floor": 1, "x": 5})
    for limit in (1, 2, 4, 5, 6):
        assert [r for r, _, _ in w.rank(["floor"], limit, False)[1]] == [5, 4, 3, 2, 1][:limit]


def _crowded(private_first: bool = False) -> WarmText:
    """A base of more postings than `EARLY_STOP_ONE_WORD`: `floor` in its first three chunks
    (rare, so worth most), `lantern` in every later one, its first holder long (worth
    least). With `private_first`, the first four chunks are a private file's."""
    n = EARLY_STOP_ONE_WORD + 40
    chunks = [(r, "", "", f"floor {'floor ' * r}x") for r in (1, 2, 3)]
    chunks.append((4, "", "", "lantern " + "x " * 40))
    chunks += [(r, "", "", "lantern y") for r in range(5, n + 1)]
    files = [("records/first.md", 1, 4, private_first), ("b.md", 5, n, False)]
    return _warm(chunks, files)


def test_a_crowded_base_stops_early_and_ranks_as_scoring_every_posting() -> None:
    w = _crowded(private_first=True)
    for words in (["floor"], ["lantern"], ["floor", "lantern"], ["lantern", "floor", "x"]):
        for limit in (1, 5, 40, 400):
            for include_private in (False, True):
                _, best = w.rank(words, limit, include_private)
                every = w.top_of_every_score(words, limit, include_private)
                assert [r for r, _, _ in best] == [w.rowids[j] for j, _ in every]
    assert [r for r, _, _ in w.rank(["floor", "lantern"], 5, False)[1]] == [5, 6, 7, 8, 9]
    assert [r for r, _, _ in w.rank(["floor", "lantern"], 5, True)[1]] == [3, 2, 1, 5, 6]
    assert w.rank(["lantern"], 400, True)[1][-1] == (4, "alpha", "records/first.md")
    assert w.rank(["floor", "lantern"], 0, False) == (["floor", "lantern"], [])


def test_stopping_early_never_reads_past_the_end_of_a_words_postings() -> None:
    # `floor`'s postings end just before `lantern`'s first, chunk 4's: probing chunk 4 for
    # `floor` lands on that posting, which is `lantern`'s, not `floor`'s
    w = _crowded()
    best = w.top_stopping_early(["floor", "lantern"], 5, False)
    assert [w.rowids[j] for j, _ in best] == [3, 2, 1, 5, 6]
    assert [r for r, _, _ in w.rank(["lantern"], 2, False)[1]] == [5, 6]


def test_a_chunk_met_through_two_words_counts_once_towards_the_limit() -> None:
    # chunk 1 holds `floor` and `vigil` (met through both), 2 and 3 one of them each in a
    # long chunk (worth little), 4 `lantern` five times in a short one: counted twice,
    # chunk 1 would fill a limit of two alone and cut 4 before `lantern` is read
    long = " ".join(["x"] * 200)
    chunks = [
        (1, "", "", "floor vigil"),
        (2, "", "", f"floor {long}"),
        (3, "", "", f"vigil {long}"),
        (4, "", "", "lantern " * 5),
    ]
    chunks += [(r, "", "", "lantern y") if r % 3 == 0 else (r, "", "", "y") for r in range(5, 300)]
    w = _warm(chunks, [("a.md", 1, 299, False)])
    words = ["floor", "vigil", "lantern"]
    every = w.top_of_every_score(words, 2, False)
    assert [w.rowids[j] for j, _ in every] == [1, 4]
    assert w.top_stopping_early(words, 2, False) == every


@pytest.mark.parametrize("ranking", ["python"], indirect=True)  # Python's choice of its ways
def test_an_early_read_past_its_budget_gives_way_to_scoring_every_posting(
    monkeypatch: pytest.MonkeyPatch, ranking: str
) -> None:
    """Where the bound falls too slowly, early stopping would cost more than scoring every
    posting: past `EARLY_STOP_SHARE` of the postings met it stops, and the ranking scores
    them all instead, with the same rows. A read within its budget is kept."""
    w = _crowded(private_first=True)
    words = ["floor", "lantern"]
    every = w.top_of_every_score(words, 5, False)
    with pytest.raises(warmtext._ReadTooMuch):
        w.top_stopping_early(words, 5, False, most_met=0)
    assert w.top_stopping_early(words, 5, False, most_met=len(w.rowids)) == every
    scored_all: list[int] = []
    real = WarmText.top_of_every_score

    def counted(self: WarmText, *args: object) -> list[tuple[int, float]]:
        scored_all.append(1)
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(WarmText, "top_of_every_score", counted)
    monkeypatch.setattr(warmtext, "EARLY_STOP_SEVERAL_WORDS", 0)
    monkeypatch.setattr(warmtext, "EARLY_STOP_SHARE", 0.0)  # no chunk may be met
    assert [r for r, _, _ in w.rank(words, 5, False)[1]] == [w.rowids[j] for j, _ in every]
    assert scored_all == [1]
    monkeypatch.setattr(warmtext, "EARLY_STOP_SHARE", float(len(w.rowids) * 2))  # any number
    assert [r for r, _, _ in w.rank(words, 5, False)[1]] == [w.rowids[j] for j, _ in every]
    assert scored_all == [1]  # early stopping answered alone


def test_an_early_read_within_its_budget_ranks_a_private_chunk_only_when_asked() -> None:
    """One word in more than `EARLY_STOP_ONE_WORD` chunks, each longer than the last, so the
    bound falls at once and early stopping answers alone, within its budget; the best chunk
    is a private file's."""
    n = EARLY_STOP_ONE_WORD + 40
    chunks = [(1, "", "", "lantern lantern")]
    chunks += [(r, "", "", "lantern " + "x " * r) for r in range(2, n + 1)]
    w = _warm(chunks, [("records/own.md", 1, 1, True), ("b.md", 2, n, False)])
    assert w.top_stopping_early(["lantern"], 3, True, most_met=2 * EARLY_STOP_BATCH)
    assert [r for r, _, _ in w.rank(["lantern"], 3, True)[1]] == [1, 2, 3]
    assert [r for r, _, _ in w.rank(["lantern"], 3, False)[1]] == [2, 3, 4]


# -- counts ------------------------------------------------------------------------------


def test_chunk_counts_hold_the_asked_words_by_heading_and_text_and_the_whole_length() -> None:
    """And no heading path: a held base does not keep them (a passage's comes from the
    index with its text)."""
    chunks = [(1, "Floor plan", "floor plan", "floor floor lantern x"), (2, "Other", "other", "a")]
    w = _warm(chunks, [("a.md", 1, 2, False)])
    assert w.chunk_counts([7, 2, 1], ["floor", "lantern", "zzq", "other"]) == {
        1: ("", ({"floor": 1}, {"floor": 2, "lantern": 1}, 6)),
        2: ("", ({"other": 1}, {}, 2)),
    }


def test_page_counts_sum_a_files_chunks_and_leave_out_one_chunk_files() -> None:
    chunks = [
        (1, "A", "a", "floor x"),
        (2, "A > B", "a b", "floor floor"),
        (3, "C", "c", "floor"),
        (4, "", "", "floor"),
    ]
    w = _warm(chunks, [("a.md", 1, 2, False), ("c.md", 3, 3, False), ("d.md", 4, 4, False)])
    assert w.page_counts("alpha", ["c.md", "a.md", "zz.md"], ["floor", "a"]) == {
        "a.md": ({"a": 2}, {"floor": 3}, 7)
    }
    assert w.page_counts("beta", ["a.md"], ["floor"]) == {}


def test_page_counts_read_each_word_within_its_own_postings() -> None:
    # several words, several files, a skipped file before a counted one: each word's
    # count is of its own postings, within the file's own chunks
    chunks = [
        (1, "", "", "alpha beta"),
        (2, "", "", "beta gamma"),
        (3, "", "", "alpha"),
        (4, "", "", "gamma gamma alpha"),
        (5, "", "", "beta"),
        (6, "", "", "zeta"),
    ]
    files = [("b.md", 1, 2, False), ("c.md", 3, 3, False), ("d.md", 4, 6, False)]
    w = _warm(chunks, files)
    assert w.page_counts("alpha", ["a.md", "d.md", "b.md"], ["alpha", "beta", "gamma"]) == {
        "b.md": ({}, {"alpha": 1, "beta": 2, "gamma": 1}, 4),
        "d.md": ({}, {"alpha": 1, "beta": 1, "gamma": 2}, 5),
    }


# -- building -----------------------------------------------------------------------------


def test_a_count_too_large_to_pack_is_refused() -> None:
    with pytest.raises(Unpackable, match=r"^a text count of 65536$"):
        _warm([(1, "", "", " ".join(["floor"] * 65_536))], [("a.md", 1, 1, False)])
    with pytest.raises(Unpackable, match=r"^a heading count of 65536$"):
        _warm([(1, "", " ".join(["floor"] * 65_536), "")], [("a.md", 1, 1, False)])


def test_the_largest_packable_counts_are_held_whole() -> None:
    # a heading count past 32,767 fills the packed value's top bit
    head, body = " ".join(["floor"] * 65_535), " ".join(["floor"] * 65_535)
    w = _warm([(1, "Floor", head, body)], [("a.md", 1, 1, False)])
    assert w.chunk_counts([1], ["floor"]) == {
        1: ("", ({"floor": 65_535}, {"floor": 65_535}, 131_070))
    }


def test_any_sqlite_rowid_is_held() -> None:
    chunks = [(-3, "", "", "floor"), (2**40, "", "", "floor floor")]
    w = _warm(chunks, [("a.md", -3, -3, False), ("b.md", 2**40, 2**40, False)])
    assert [r for r, _, _ in w.rank(["floor"], 5, True)[1]] == [2**40, -3]


def test_a_base_of_chunks_without_words_is_held() -> None:
    w = _warm([(1, "", "", ""), (2, "", "", "")], [("a.md", 1, 2, False)])
    assert w.rank(["floor"], 5, False) == (["floor"], [])
    assert w.chunk_counts([1], ["floor"]) == {1: ("", ({}, {}, 0))}


def test_a_chunk_outside_every_span_or_out_of_order_is_refused() -> None:
    with pytest.raises(Unpackable, match=r"^a chunk outside every file's span$"):
        _warm([(1, "", "", "a"), (2, "", "", "b")], [("a.md", 1, 1, False)])
    with pytest.raises(Unpackable, match=r"^chunks not in rowid order$"):
        _warm([(2, "", "", "a"), (1, "", "", "b")], [("a.md", 1, 2, False)])
    with pytest.raises(Unpackable, match=r"^chunks not in rowid order$"):
        _warm([(1, "", "", "a"), (1, "", "", "b")], [("a.md", 1, 1, False)])


def test_a_later_span_wins_a_shared_chunk() -> None:
    chunks = [(1, "", "", "floor"), (2, "", "", "floor")]
    w = _warm(chunks, [("b.md", 2, 2, False), ("a.md", 1, 2, False)])
    _, best = w.rank(["floor"], 5, True)
    assert best == [(1, "alpha", "a.md"), (2, "alpha", "b.md")]


def test_a_word_fts5_does_not_know_is_left_out() -> None:
    w = _warm([(1, "", "", "floor odd")], [("a.md", 1, 1, False)], vocabulary={"floor": 1})
    assert w.rank(["odd"], 5, True)[1] == []
    assert w.chunk_counts([1], ["odd", "floor"]) == {1: ("", ({}, {"floor": 1}, 2))}


# -- through a Memory -----------------------------------------------------------------------


def _indexed_base(root: Path, notes: dict[str, str]) -> Path:
    """The base `alpha` of a fleet at `root/fleet` holding `notes` (rel -> text), indexed
    with `--all` (so private chunks are in the index, flagged)."""
    base = root / "fleet" / "alpha"
    base.mkdir(parents=True)
    (base / "agent.txt").write_text("name = alpha\n")
    for rel, text in notes.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text)
    index_bases([str(root / "fleet")], True)
    return base


def test_a_warm_public_memory_ranks_past_a_private_chunk_as_sqlite_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = {
        "records/a.md": "# Floor\n\nfloor floor floor\n",
        "knowledge/b.md": "# Plan\n\nfloor\n",
    }
    _indexed_base(tmp_path, notes)  # the private chunk is in the index
    monkeypatch.setattr(memory_module, "BASE_CANDIDATES", 1)
    with Memory.open(tmp_path / "fleet") as m:
        cold = [(f.path, f.score) for f in m.ask("floor", 1).found]
        assert m.warm() == 1
        assert [(f.path, f.score) for f in m.ask("floor", 1).found] == cold
    assert cold[0][0] == "knowledge/b.md"


def test_scores_are_fts5s_own_bm25_of_an_indexed_base(tmp_path: Path) -> None:
    """The warm scores against SQLite's `bm25()` on the same index: every word's idf (the
    floor included), the heading's weight, each chunk's length over the average, summed
    over the asked words, private chunks left out of a public ranking."""
    notes = {
        "knowledge/floor.md": "# Floor plans\n\nThe floor of the harbor, floor by floor.\n\n"
        "## Lanterns\n\nA lantern on every floor.\n",
        "knowledge/lantern.md": "# Lantern\n\nOne lantern, one kernel, one ledger.\n",
        "knowledge/kernel.md": "# Kernel notes\n\nkernel kernel kernel router\n",
        "knowledge/quiet.md": "# Quiet\n\nnothing asked here at all\n",
        "records/private.md": "# Floor\n\nfloor lantern floor lantern floor\n",
    }
    base = _indexed_base(tmp_path, notes)
    store = Store.open(base)
    try:
        warm = store.read_warm()
        assert warm is not None
        for words in (["floor"], ["lantern", "floor"], ["kernel", "zzq", "router"], ["one"]):
            expr = " OR ".join(f'"{w}"' for w in words)
            rows = store.conn.execute(
                "SELECT c.rowid, -bm25(chunks, 0.0, 0.0, 2.0, 1.0), f.private FROM chunks c "
                "JOIN files f ON f.path = c.path WHERE chunks MATCH ?",
                (expr,),
            ).fetchall()
            for include_private in (True, False):
                got = {
                    warm.rowids[j]: score
                    for j, score in warm.scores(words, include_private).items()
                }
                wanted = {r: s for r, s, private in rows if include_private or not private}
                assert got.keys() == wanted.keys()
                for rowid, score in wanted.items():
                    assert math.isclose(got[rowid], score, rel_tol=1e-12, abs_tol=1e-15)
    finally:
        store.close()


def test_two_open_memories_of_one_index_hold_one_copy(tmp_path: Path) -> None:
    base = _indexed_base(tmp_path, {"knowledge/floor.md": "# Floor\n\nfloor plans\n"})
    with (
        Memory.open(tmp_path / "fleet") as public,
        Memory.open(tmp_path / "fleet", all=True) as every,
    ):
        assert public.warm() == every.warm() == 1
        assert public._stores[0].warm is every._stores[0].warm
        (base / "knowledge" / "more.md").write_text("# More\n\nfloor lanterns\n")
        index_bases([str(tmp_path / "fleet")], True)
        public.warm()  # read again: the index changed, so the copy is a new one
        assert public._stores[0].warm is not every._stores[0].warm
        every.warm()  # the other finds its copy stale, and takes the one already read
        assert public._stores[0].warm is every._stores[0].warm


def test_two_spellings_of_one_fleet_hold_one_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fleet named relatively, by its absolute path and through a link (a hook's `kb boot`
    and a `kb route` typed in the fleet, both answered by one daemon) holds one copy."""
    _indexed_base(tmp_path, {"knowledge/floor.md": "# Floor\n\nfloor plans\n"})
    (tmp_path / "link").symlink_to(tmp_path / "fleet")
    monkeypatch.chdir(tmp_path)
    with (
        Memory.open("fleet") as relative,
        Memory.open(tmp_path / "fleet") as absolute,
        Memory.open(tmp_path / "link") as linked,
    ):
        assert relative.warm() == absolute.warm() == linked.warm() == 1
        assert relative._stores[0].warm is absolute._stores[0].warm is linked._stores[0].warm


def test_a_fleet_named_relatively_is_held_whatever_the_directory_when_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resident kb answers a caller in the caller's folder, but reads the fleet into
    memory later, from its own: a base named relatively is still read from its own file."""
    base = _indexed_base(tmp_path, {"knowledge/floor.md": "# Floor\n\nfloor plans\n"})
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "fleet" / "alpha" / ".kb").mkdir(parents=True)  # what "fleet" names there
    monkeypatch.chdir(tmp_path)
    with Memory.open("fleet") as m:
        cold = [(f.path, f.score) for f in m.ask("floor", 1).found]
        monkeypatch.chdir(elsewhere)
        assert m.warm() == 1
        monkeypatch.chdir(tmp_path)
        assert m._stores[0].warm is not None
        assert [(f.path, f.score) for f in m.ask("floor", 1).found] == cold
    assert (base / ".kb").is_dir() and not any((elsewhere / "fleet" / "alpha" / ".kb").iterdir())


def test_a_base_ranked_by_numpy_never_ranks_in_python(
    monkeypatch: pytest.MonkeyPatch, ranking: str
) -> None:
    """With numpy, every ranking is numpy's (the Python ways are never asked); without it,
    none is."""
    w = _crowded(private_first=True)
    assert (w.dense is not None) == (ranking == "numpy")
    asked: list[str] = []
    for name in ("top_of_every_score", "top_stopping_early"):
        real = getattr(WarmText, name)

        def counted(self: WarmText, *args: object, _real: object = real, _n: str = name) -> object:
            asked.append(_n)
            return _real(self, *args)  # type: ignore[operator]

        monkeypatch.setattr(WarmText, name, counted)
    for words in (["floor"], ["floor", "lantern"]):
        w.rank(words, 5, False)
    assert bool(asked) == (ranking == "python")


def test_a_private_chunk_past_every_chunk_the_words_hold_is_left_out_quietly() -> None:
    """The private chunks are left out by place whether a word reached them or not: here
    the last chunk is private and holds none of the asked words (numpy's sums must reach
    every chunk of the base, not only the last one a word holds)."""
    w = _warm(
        [(1, "", "", "floor"), (2, "", "", "floor lantern"), (3, "", "", "vigil")],
        [("a.md", 1, 2, False), ("records/b.md", 3, 3, True)],
    )
    assert [r for r, _, _ in w.rank(["floor"], 5, False)[1]] == [1, 2]
    assert [r for r, _, _ in w.rank(["floor", "lantern"], 5, False)[1]] == [2, 1]
    assert [r for r, _, _ in w.rank(["vigil", "floor"], 5, True)[1]] == [3, 1, 2]
    assert [r for r, _, _ in w.rank(["vigil", "floor"], 5, False)[1]] == [1, 2]


def test_numpy_holds_a_base_only_when_asked() -> None:
    """The caller knows whether numpy imports (kb.io.store.warm.dense_ranking): a base built
    without saying so ranks in Python."""
    chunks = [ChunkFacts(1, "", "floor")]
    files = [FileFacts("alpha", "a.md", 1, 1, False)]
    assert warm_text(b"s", WIDE, 1, 1, [("floor", 1)], chunks, files, 1).dense is None
