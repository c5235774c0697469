"""The persisted keyword postings (issue 15) answer as the in-memory index does.

A question reads only the postings of its own words (kb/io/store.py, `kw_*` tables) and
decodes only its candidates' headers; the keyword ranking, every idf it used and the spelling
suggestions must equal what the whole-fleet index built in memory gives, on generated fleets,
with and without the private layer, and after edits, deletions and map changes made behind
kb's back (the rows of a changed file are replaced, a deleted file's rows are never counted).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kb.io.answering.memory import Memory
from kb.io.notes.indexer import index_bases
from kb.pure.answering.suggest import suggest_among
from kb.pure.notes.tokens import question_terms
from tests.properties.strategies import BaseSpec, FleetSpec, NoteSpec, files_of, fleets, write_files
from tests.properties.test_cache_properties import Change, apply, changes

POSTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _vocabulary(memory: Memory) -> list[str]:
    words = {w for _, norm in memory.keywords.key_norms() for w in norm.split()}
    words |= {w for e in memory.entries for w in question_terms(f"{e.title} {e.stem}")}
    return sorted(words)


def _questions(
    vocabulary: list[str], phrases: list[str], picks: list[list[int]], typos: list[int]
) -> list[str]:
    out: list[str] = []
    for i in typos[:1]:
        # a several-word key inside longer words: it matches as a substring, so its words
        # are weighed although no question term is one of them
        if phrases:
            out.append(f"x{phrases[i % len(phrases)]}s")
    for pick in picks:
        out.append(" ".join(vocabulary[i % len(vocabulary)] for i in pick))
    for i in typos:  # a word with one letter doubled: found only by the suggestions
        w = vocabulary[i % len(vocabulary)]
        out.append(f"{w}{w[-1]} quixotry")
        # and one letter substituted, dropped, or two swapped in the middle (issue 26): for a
        # word of 5 or 6 letters only the deletion neighbourhood finds some of these
        m = max(len(w) // 2, 1)
        swapped = w[: m - 1] + w[m : m + 1] + w[m - 1 : m] + w[m + 1 :]
        out.append(f"{w[:m]}q{w[m + 1 :]} {w[:m]}{w[m + 1 :]} {swapped}")
    return out


def _agree(root: Path, include_private: bool, picks: list[list[int]], typos: list[int]) -> None:
    with Memory.open([str(root)], all=include_private) as memory:
        assert memory._postings, "every re-read header was saved, so postings answer"
        vocabulary = _vocabulary(memory)
        if not vocabulary:
            return
        phrases = sorted({n for _, n in memory.keywords.key_norms() if " " in n})
        index = memory.keywords  # the whole-fleet index, built in memory
        questions = _questions(vocabulary, phrases, picks, typos)
        for question in questions:
            terms = memory.terms(question)
            # a short list too: only the candidates that can reach it are decoded
            for top in (1, 3):
                assert memory._rank_keywords(terms, top)[0] == index.rank(terms, top), question
            persisted, idf, _ = memory._rank_keywords(terms, 1000)
            assert persisted == index.rank(terms, 1000), question
            for word in {*terms, *(w for h in persisted for m in h.matched for w in m.split())}:
                assert idf(word) == index.idf(word), (question, word)
            assert memory.suggest(question) == suggest_among(question, index.key_norms())
            assert memory.entry_count() == len(memory.entries)
        suggested = [memory.suggest(question) for question in questions]
    # a Memory held in memory suggests from its own trigram index, never the persisted one
    with Memory.open([str(root)], all=include_private) as held:
        held.warm()
        assert [held.suggest(question) for question in questions] == suggested


@POSTINGS
@given(
    fleet=fleets(),
    per_base=st.lists(changes(maps=True), min_size=3, max_size=3),
    include_private=st.booleans(),
    picks=st.lists(st.lists(st.integers(0, 10_000), min_size=1, max_size=4), max_size=4),
    typos=st.lists(st.integers(0, 10_000), min_size=1, max_size=2),
)
def test_postings_rank_and_suggest_as_the_in_memory_index(
    fleet: FleetSpec,
    per_base: list[Change],
    include_private: bool,
    picks: list[list[int]],
    typos: list[int],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for base in fleet.bases:
            write_files(root / "fleet" / base.name, files_of(base))
        index_bases([str(root)], True)  # every file's postings, private ones included
        _agree(root, include_private, picks, typos)
        apply(root, fleet, per_base)  # edits, deletions, new files, maps changed
        _agree(root, include_private, picks, typos)


def test_a_cache_that_could_not_be_saved_scores_in_memory(
    tmp_path: Path, monkeypatch: object
) -> None:
    """A busy or read-only index that is behind the disk: the postings are not trusted and
    the question is scored by the in-memory index instead, with the same answer."""
    import pytest

    from kb.io import store

    root = tmp_path / "fleet"
    base = root / "fleet" / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = Ada\n")
    (base / "MAP.md").write_text("# Map\n\n### knowledge/\n- [[knowledge/tide]]\n")
    (base / "knowledge" / "tide.md").write_text(
        "# Tide tables\n\n**Search for:** tide, harbour pilot, moon\n\nBody.\n"
    )
    index_bases([str(root)], False)
    (base / "knowledge" / "tide.md").write_text(
        "# Tide tables\n\n**Search for:** tide, lighthouse keeper, moon\n\nBody.\n"
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(store.Store, "_save_headers", lambda self, fresh: False)
        with Memory.open([str(root)]) as memory:
            assert not memory._postings
            hits = memory.route("lighthouse keeper")
            assert [h.entry.rel for h in hits] == ["knowledge/tide.md"]
            assert memory.route("harbour pilot") == []


# -- chunk word counts ---------------------------------------------------------------------

chunk_text = st.text(
    alphabet=st.sampled_from("abc déf ghi ação Über ÉCOLE tide tides tidal 12 - _\n"),
    max_size=120,
)


@settings(max_examples=200, deadline=None)
@given(
    chunks=st.lists(st.tuples(chunk_text, chunk_text), min_size=1, max_size=6),
    question=chunk_text,
)
def test_stored_chunk_counts_score_as_the_text_does(
    chunks: list[tuple[str, str]], question: str
) -> None:
    """What `kb index` stores in chunk_counts (the words, and the JSON an older index holds)
    decodes to the text's own counts, and scores a candidate exactly as counting its text at
    question time does."""
    import json

    from kb.io.store import counts_from, counts_text
    from kb.pure.answering.textrank import Candidate, TextStats, counts_of, score_chunks

    terms = question_terms(question)
    stats = TextStats(chunks=50, tokens=2000, df=tuple((t, 3) for t in terms))
    by_text = [Candidate("b", f"n{i}.md", i, 0, h, t) for i, (h, t) in enumerate(chunks)]
    stored = [counts_from(counts_text(h, t)) for h, t in chunks]
    assert stored == [counts_of(h, t) for h, t in chunks]
    assert [counts_from(json.dumps(counts_of(h, t))) for h, t in chunks] == stored
    by_counts = [
        Candidate("b", f"n{i}.md", i, 0, h, "", (c[0], c[1], c[2]))
        for i, ((h, _), c) in enumerate(zip(chunks, stored, strict=True))
    ]
    assert score_chunks(terms, by_counts, stats) == [
        s.__class__(by_counts[s.candidate.rowid], s.score, s.matched)
        for s in score_chunks(terms, by_text, stats)
    ]


# -- the kept stat pass ---------------------------------------------------------------------


def _lights(root: Path, include_private: bool, kept: bool) -> list[object]:
    """Every base's light headers, from `scan_lights` when `kept`, else from header rows."""
    import pytest

    from kb.io import store

    with pytest.MonkeyPatch.context() as mp:
        if not kept:
            mp.setattr(store.Store, "_kept_lights", lambda self, digest, stats=None: None)
        with Memory.open([str(root)], all=include_private) as memory:
            assert memory._postings
            # one light per walked file, kept or read: a question's text hits are held
            # in scope by the walk's files (Memory._in_scope)
            for b in memory.bases:
                assert [h.rel for h in b.scan.lights] == [f.rel for f in b.snapshot.files]
                assert set(b.scan.stats) == {f.rel for f in b.snapshot.files}
            return [b.scan.lights for b in memory.bases]


# Found by CI: a note added behind kb's back was kept with its purpose as the unreadable
# reason, where its cached row gives none.
_ADDED_NOTE = NoteSpec(
    "", "floor", ".md", "valid", "**Search for:** {}", ("floor",), "", "floor", (), False, False
)
_TWO_BASES = FleetSpec(
    (BaseSpec("alpha", False, None, (), (), ()), BaseSpec("beta", True, None, (), (), ()))
)
_NO_CHANGE = Change((), (), (), ())


@POSTINGS
@given(
    fleet=fleets(),
    per_base=st.lists(changes(maps=True), min_size=3, max_size=3),
    include_private=st.booleans(),
)
@example(
    fleet=_TWO_BASES,
    per_base=[_NO_CHANGE, Change((), (), (_ADDED_NOTE,), ()), _NO_CHANGE],
    include_private=False,
)
def test_a_kept_stat_pass_equals_reading_every_header_row(
    fleet: FleetSpec, per_base: list[Change], include_private: bool
) -> None:
    """The light headers a walk seen before is answered with (`scan_lights`) are those the
    header rows give, in both scopes, before and after edits, deletions and map changes
    made behind kb's back: nothing kept can hide a change or a private file."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for base in fleet.bases:
            write_files(root / "fleet" / base.name, files_of(base))
        index_bases([str(root)], True)
        for changed in (False, True):
            if changed:
                apply(root, fleet, per_base)
            for scope in (include_private, not include_private):
                fresh = _lights(root, scope, kept=False)
                assert _lights(root, scope, kept=True) == fresh  # saved by the open before
                assert _lights(root, scope, kept=True) == fresh  # read back


def test_a_file_rewritten_in_place_is_noticed_through_a_kept_stat_pass(tmp_path: Path) -> None:
    """An editor that rewrites a note in place changes no folder, only the file's stat: the
    next open still reads it again, though the walk before was kept."""
    import os

    root = tmp_path / "fleet"
    base = root / "fleet" / "ada"
    (base / "knowledge").mkdir(parents=True)
    (base / "agent.txt").write_text("name = Ada\n")
    (base / "MAP.md").write_text("# Map\n\n### knowledge/\n- [[knowledge/tide]]\n")
    note = base / "knowledge" / "tide.md"
    note.write_text("# Tide tables\n\n**Search for:** tide, harbour pilot, moon\n\nBody.\n")
    index_bases([str(root)], False)
    for _ in range(2):  # the second open is answered from the kept pass
        with Memory.open([str(root)]) as memory:
            assert [h.entry.rel for h in memory.route("harbour pilot")] == ["knowledge/tide.md"]
    before = note.stat()
    # same size, same folder listing: only the content and the mtime differ
    with note.open("r+b") as f:
        f.write(note.read_bytes().replace(b"harbour pilot", b"lantern guard"))
    os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    assert note.stat().st_size == before.st_size
    with Memory.open([str(root)]) as memory:
        assert memory.route("harbour pilot") == []
        assert [h.entry.rel for h in memory.route("lantern guard")] == ["knowledge/tide.md"]
