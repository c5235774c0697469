"""The rules of the in-memory text index (kb.pure.warmtext), one test each.

Each rule is the one `kb.io.store.Store` follows over SQLite; tests/properties/
test_warm_text_properties.py holds the two paths equal on generated fleets."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import kb.io.memory as memory_module
from kb.io.indexer import index_bases
from kb.io.memory import Memory
from kb.pure.warmtext import (
    FTS_IDF_FLOOR,
    ChunkFacts,
    FileFacts,
    StemRules,
    Unpackable,
    WarmText,
    warm_text,
)

WIDE = StemRules(scan_max=2000, class_max=16, prune_min_chunks=10_000)


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
        [ChunkFacts(r, hp, h, b) for r, hp, h, b in chunks],
        [FileFacts("alpha", p, first, last, private) for p, first, last, private in files],
        pages=len(files),
    )


def _fts_bm25(freq: float, idf: float, length: int, avgdl: float) -> float:
    return idf * (freq * 2.2) / (freq + 1.2 * (1 - 0.75 + 0.75 * length / avgdl))


# -- stem classes --------------------------------------------------------------------------


def test_a_stem_class_holds_the_words_of_one_stem_in_vocabulary_order() -> None:
    w = _warm(
        [(1, "", "", "floors floor flooring floorboard flo")],
        [("a.md", 1, 1, False)],
    )
    found, complete = w.stem_class("floor")
    assert [word for word, _ in found] == ["floor", "flooring", "floors"]
    assert complete


def test_a_stem_class_is_cut_at_its_cap_and_a_long_prefix_range_is_not_complete() -> None:
    rules = StemRules(scan_max=3, class_max=2, prune_min_chunks=10_000)
    w = _warm(
        [(1, "", "", "floor floorboard floored flooring floors")], [("a.md", 1, 1, False)], rules
    )
    found, complete = w.stem_class("floor")
    # the scan reads three words from `floor` on: floor, floorboard, floored
    assert [word for word, _ in found] == ["floor", "floored"]
    assert not complete


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


def test_a_word_is_known_in_its_class_or_past_a_cut_class_in_the_vocabulary() -> None:
    rules = StemRules(scan_max=2000, class_max=1, prune_min_chunks=10_000)
    w = _warm([(1, "", "", "floor floors lantern")], [("a.md", 1, 1, False)], rules)
    # `floors` is cut from its class (cap 1) but the vocabulary holds it
    assert w.known_words(["floor", "floors", "lantern", "lanterns"]) == {
        "floor",
        "floors",
        "lantern",
    }


def test_holds_none_only_when_no_chunk_holds_any_word() -> None:
    w = _warm([(1, "", "", "floor")], [("a.md", 1, 1, False)])
    assert w.holds_none(["zzq", "qqx"])
    assert not w.holds_none(["zzq", "floor"])
    assert not w.holds_none([])


# -- pruning and ranking -------------------------------------------------------------------


def test_a_large_base_drops_words_in_more_than_a_quarter_of_its_chunks() -> None:
    rules = StemRules(scan_max=2000, class_max=16, prune_min_chunks=4)
    chunks = [(r, "", "", "common rare" if r == 1 else "common") for r in range(1, 9)]
    w = _warm(chunks, [("a.md", 1, 8, False)], rules)
    assert w.pruned(["common", "rare", "rare"]) == ["rare"]
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
    at = w.ids["floor"]
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
    w = _warm([(1, "", "", "floor")], [("a.md", 1, 1, False)])
    assert w.rank([], 5, False) == ([], [])
    assert w.rank(["floor"], 0, False) == (["floor"], [])
    assert w.rank(["zzq"], 5, False) == (["zzq"], [])


# -- counts ------------------------------------------------------------------------------


def test_chunk_counts_hold_the_asked_words_by_heading_and_text_and_the_whole_length() -> None:
    chunks = [(1, "Floor plan", "floor plan", "floor floor lantern x")]
    w = _warm(chunks, [("a.md", 1, 1, False)])
    assert w.chunk_counts([1, 7], ["floor", "lantern", "zzq"]) == {
        1: ("Floor plan", ({"floor": 1}, {"floor": 2, "lantern": 1}, 6))
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


# -- building -----------------------------------------------------------------------------


def test_a_count_too_large_to_pack_is_refused() -> None:
    with pytest.raises(Unpackable):
        _warm([(1, "", "", " ".join(["floor"] * 65_536))], [("a.md", 1, 1, False)])
    with pytest.raises(Unpackable):
        _warm([(1, "", " ".join(["floor"] * 65_536), "")], [("a.md", 1, 1, False)])
    _warm([(1, "", "", " ".join(["floor"] * 65_535))], [("a.md", 1, 1, False)])


def test_a_chunk_outside_every_span_or_out_of_order_is_refused() -> None:
    with pytest.raises(Unpackable):
        _warm([(1, "", "", "a"), (2, "", "", "b")], [("a.md", 1, 1, False)])
    with pytest.raises(Unpackable):
        _warm([(2, "", "", "a"), (1, "", "", "b")], [("a.md", 1, 2, False)])


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


def test_a_warm_public_memory_ranks_past_a_private_chunk_as_sqlite_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path / "fleet" / "alpha"
    (base / "records").mkdir(parents=True)
    (base / "knowledge").mkdir()
    (base / "agent.txt").write_text("name = alpha\n")
    (base / "records" / "a.md").write_text("# Floor\n\nfloor floor floor\n")
    (base / "knowledge" / "b.md").write_text("# Plan\n\nfloor\n")
    index_bases([str(tmp_path / "fleet")], True)  # the private chunk is in the index
    monkeypatch.setattr(memory_module, "BASE_CANDIDATES", 1)
    with Memory.open(tmp_path / "fleet") as m:
        cold = [(f.path, f.score) for f in m.ask("floor", 1).found]
        assert m.warm() == 1
        assert [(f.path, f.score) for f in m.ask("floor", 1).found] == cold
    assert cold[0][0] == "knowledge/b.md"
