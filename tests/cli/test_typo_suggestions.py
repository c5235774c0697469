"""A refusal offers the keys a one-letter typo was probably meant for (issue 26): through the
real `kb route`, so the suggestions come from the persisted index (`kw_trigrams`, with the
deletion neighbourhoods of 5- and 6-letter key words), not from an index built in memory."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import RunKb


def _suggested(kb: RunKb, question: str, cwd: Path) -> tuple[str, list[str]]:
    out = kb(["route", question, "--json"], cwd=cwd)
    assert out.code == 0, out.stderr
    payload = json.loads(out.stdout)
    return payload["verdict"], payload["suggestions"]


def test_one_letter_typos_of_keys_are_suggested(tmp_path: Path, kb: RunKb) -> None:
    root = tmp_path / "lab"
    root.mkdir()
    assert kb(["init", "curie"], cwd=root).code == 0
    for slug, keys in (("radium", "radium, radioactivity"), ("gravity", "gravity, free fall")):
        done = kb(["write", "curie", slug, "--keys", keys], cwd=root, stdin=f"On {slug}.\n")
        assert done.code == 0, done.stderr
    assert kb(["index"], cwd=root).code == 0
    assert _suggested(kb, "radiom", root) == ("nothing", ["radium"])
    assert _suggested(kb, "gravty", root) == ("nothing", ["gravity"])
    assert _suggested(kb, "raidum", root) == ("nothing", ["radium"])  # no trigram in common
    text = kb(["route", "radiom gravty"], cwd=root).stdout
    assert "look like words you used:\n    gravity, radium\n" in text


def test_a_swap_in_a_six_letter_key_of_the_example_fleet(example_fleet: Path, kb: RunKb) -> None:
    assert kb(["index"], cwd=example_fleet).code == 0
    # `bakcup` shares no trigram with `backup`: only the deletion neighbourhood finds it
    verdict, suggestions = _suggested(kb, "bakcup", example_fleet)
    assert verdict == "nothing" and suggestions[0] == "backup"
    assert _suggested(kb, "zebra quagga", example_fleet) == ("nothing", [])
