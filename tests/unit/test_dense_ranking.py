"""Which ranking a held base gets (kb.io.store.warm.dense_ranking): numpy's where numpy is
installed, Python's where it is not or `KB_NO_NUMPY` rules it out; the answers are the same."""

from __future__ import annotations

import builtins
import sys
from pathlib import Path

import pytest

from kb.io.answering.memory import Answer, Memory
from kb.io.notes.indexer import index_bases
from kb.io.store.warm import NO_NUMPY_ENV, dense_ranking

pytest.importorskip("numpy")

QUESTIONS = (
    "how often should I run a backup restore test",
    "o certificado tls do staging expirou",
    "zorbly quaxing",
)


def _held(fleet: Path) -> tuple[list[bool], list[Answer]]:
    index_bases([str(fleet)], include_private=True)
    with Memory.open([str(fleet)]) as memory:
        assert memory.warm(wait=True) == len(memory.bases)
        dense = [s.warm is not None and s.warm.dense is not None for s in memory._stores]
        answers = [memory.ask(q) for q in QUESTIONS]
    return dense, answers


@pytest.mark.parametrize("value", ["", "0"])
def test_numpy_ranks_where_it_is_installed(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(NO_NUMPY_ENV, value)
    assert dense_ranking()


@pytest.mark.parametrize("value", ["1", "yes"])
def test_kb_no_numpy_rules_it_out(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(NO_NUMPY_ENV, value)
    assert not dense_ranking()


def test_without_numpy_a_base_ranks_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(NO_NUMPY_ENV, raising=False)
    real_import = builtins.__import__

    def no_numpy(name: str, *args: object, **kwargs: object) -> object:
        if name == "numpy" or name.startswith("numpy."):
            raise ImportError("no numpy here")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.delitem(sys.modules, "kb.pure.answering.held.densetext", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_numpy)
    assert not dense_ranking()


def test_a_warm_fleet_answers_alike_ranked_either_way(
    example_fleet: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(NO_NUMPY_ENV, raising=False)
    dense, by_numpy = _held(example_fleet)
    assert dense and all(dense)
    monkeypatch.setenv(NO_NUMPY_ENV, "1")
    python, by_python = _held(example_fleet)
    assert python and not any(python)
    assert by_numpy == by_python
