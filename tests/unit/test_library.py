"""The library as other frameworks hold it (issue 26): a shared Memory across threads and
an event loop, a path given as one string, the results a retriever hands on, and the calls
that index a fleet and write a note."""

from __future__ import annotations

import asyncio
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import kb
from kb import Memory

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = [
    "how often should I run a backup restore test",
    "sourdough starter",
    "kubernets crashloop",
    "what is the liquids limit in hand luggage",
    "quantas luas tem jupiter",
    "como adicionar coluna numa tabela grande sem downtime",
    "where can I find cheap flights with a short layover",
    "flights to restore",
]


@pytest.fixture
def fleet(tmp_path: Path) -> Path:
    root = tmp_path / "harbor"
    shutil.copytree(REPO / "examples" / "fleet", root)
    kb.index(root)
    return root


def _fingerprint(answer: kb.Answer) -> tuple[object, ...]:
    return (
        answer.confidence.verdict,
        round(answer.confidence.coverage, 9),
        tuple((f.base, f.path, round(f.score, 9), len(f.passages)) for f in answer.found),
    )


def test_one_memory_shared_by_eight_threads_answers_as_one_thread_does(fleet: Path) -> None:
    asked = [QUESTIONS[i % len(QUESTIONS)] for i in range(1000)]
    with Memory.open(fleet) as memory:
        alone = [_fingerprint(memory.ask(q)) for q in asked]
        with ThreadPoolExecutor(max_workers=8) as pool:
            together = list(pool.map(lambda q: _fingerprint(memory.ask(q)), asked))
    assert together == alone


def test_the_async_calls_answer_as_the_plain_ones_without_blocking_the_loop(fleet: Path) -> None:
    with Memory.open(fleet) as memory:
        plain = [_fingerprint(memory.ask(q)) for q in QUESTIONS]
        listed = memory.list()

        async def main() -> tuple[list[tuple[object, ...]], int, int]:
            ticks = 0

            async def ticker() -> None:
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0)

            beat = asyncio.create_task(ticker())
            answers = await asyncio.gather(*(memory.aask(q) for q in QUESTIONS))
            rows = await memory.alist()
            found = await memory.aretrieve(QUESTIONS[0])
            beat.cancel()
            assert [f.path for f in found] == [f.path for f in answers[0].found]
            return [_fingerprint(a) for a in answers], len(rows), ticks

        answered, rows, ticks = asyncio.run(main())
    assert answered == plain
    assert rows == len(listed)
    assert ticks > 0  # the loop kept running while the questions were answered


def test_a_string_is_one_path_and_a_path_object_too(fleet: Path) -> None:
    for given in (str(fleet), fleet, [str(fleet)], (fleet,)):
        with Memory.open(given) as memory:
            assert memory.agent_count() == 4, given


def test_every_result_carries_its_absolute_path_a_title_and_a_passage(fleet: Path) -> None:
    with Memory.open(fleet) as memory:
        for question in QUESTIONS:
            for f in memory.ask(question).found:
                assert Path(f.file).is_absolute() and Path(f.file).is_file(), f
                assert Path(f.file).resolve() == (fleet / "fleet" / f.base / f.path).resolve()
                assert f.title, f
                assert f.passages, f
        # a file found by its keys alone gets its opening chunk as its passage
        keyed = [f for f in memory.ask("sourdough starter").found if f.why == ("keywords #1",)]
        assert keyed and keyed[0].passages[0].text


def test_scores_lie_on_the_documented_scale(fleet: Path) -> None:
    with Memory.open(fleet) as memory:
        for question in QUESTIONS:
            for f in memory.ask(question).found:
                assert 0.0 <= f.score <= 2.0, f


def test_index_and_write_note_follow_the_verbs_rules(fleet: Path) -> None:
    path = kb.write_note(
        fleet, "ada", "tide-tables", "Spring tides come twice a month.\n", keys=["tide", "moon"]
    )
    assert path.is_file() and path.name == "tide-tables.md"
    assert "[[tide-tables]]" in (fleet / "fleet" / "ada" / "MAP.md").read_text(encoding="utf-8")
    done = kb.index(fleet)
    assert sum(b.reindexed for b in done.bases) == 1
    with Memory.open(fleet) as memory:
        answer = memory.ask("tide moon")
        assert answer.found[0].path == "knowledge/tide-tables.md"
        # no title given: the body's first line titles the note (issue 26)
        assert answer.found[0].title == "Spring tides come twice a month"
    titled = kb.write_note(fleet, "ada", "neap", "Small ones.\n", keys=["neap"], title="Neap tides")
    assert "\n# Neap tides\n" in titled.read_text(encoding="utf-8")
    with pytest.raises(kb.WriteRefused) as refused:
        kb.write_note(fleet, "ada", "tide-tables", "again\n", keys=["tide", "moon"])
    assert "tide-tables" in refused.value.message and refused.value.code == 1
    with pytest.raises(kb.IndexFailed):
        kb.index(fleet / "no-such-fleet")


def test_the_public_names_are_exported() -> None:
    for name in kb.__all__:
        assert getattr(kb, name) is not None, name
