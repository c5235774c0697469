"""Fuzz: fleet.txt, agent.txt and kb-aliases.txt (kb.pure.notes.manifest), the fleet card rendered
from them (kb.pure.fleet.fleetcard) and alias expansion (kb.pure.answering.aliases).

These files are decoded strictly (a file that is not UTF-8 is ignored), so their text holds
no lone surrogate. Folder names do: a base's root and fallback name come from the disk, and
a name that is not UTF-8 reaches the card as surrogates before the walk escapes it.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kb.pure.answering import aliases
from kb.pure.fleet import fleetcard
from kb.pure.notes.manifest import Manifest, parse_aliases, parse_manifest, private_layer
from tests.fuzz.hostile import hostile, line_of, raw_text, twice, words

manifest_keys = st.sampled_from(
    ("name", "role", "private", "attach", "disable", "ends", "answerer", "classifier", "", "#x")
)
manifest_values = st.sampled_from(
    (".", "profile, projects/", " , ,", "records/", "Ada", "x = y", "a # comment", "", "../../etc")
)
manifest_lines = st.one_of(
    line_of(manifest_keys, st.sampled_from((" = ", "=", " =", "= ", " == ")), manifest_values),
    line_of(st.just("# "), words),
    line_of(words, st.sampled_from((" = ", "")), words),
)
manifests = hostile(manifest_lines)

# A declaration that survives a write and a read: trimmed, and free of what the syntax uses.
plain = st.text(min_size=1, max_size=12).filter(
    lambda s: s == s.strip() and not any(c in s for c in "=#\n")
)


@given(text=manifests, dir_name=st.sampled_from(("person", "PERSON", "ada", "", ".", "Person ")))
def test_manifest_and_private_layer(text: str, dir_name: str) -> None:
    m = twice(lambda: parse_manifest(text))
    for k, v in m.pairs:
        assert v and k == k.strip() and v == v.strip()
        assert "#" not in k + v and "\n" not in k + v
    layer = twice(lambda: private_layer(text, dir_name))
    assert all(f and not f.endswith("/") for f in layer.folders)
    assert not (layer.whole and layer.folders)
    for rel in ("records/x.md", "profile", "a/b.md", "", "inbox/x.md"):
        assert layer.covers(rel) in (True, False)
        if layer.whole:
            assert layer.covers(rel)


@given(pairs=st.lists(st.tuples(plain | st.just(""), plain), max_size=8))
def test_manifest_round_trip(pairs: list[tuple[str, str]]) -> None:
    written = "".join(f"{k} = {v}\n" for k, v in pairs)
    assert parse_manifest(written).pairs == tuple(pairs)
    assert parse_aliases(written) == tuple((k, v) for k, v in pairs if k)


@given(text=manifests, question=raw_text())
def test_aliases(text: str, question: str) -> None:
    table = twice(lambda: parse_aliases(text))
    assert all(k and v for k, v in table)
    plain_terms = aliases.expand_query(question, ())
    expanded = twice(lambda: aliases.expand_query(question, table))
    assert expanded[: len(plain_terms)] == plain_terms  # additive: nothing removed, order kept


@given(
    fleet=manifests,
    members=st.lists(
        st.tuples(manifests, raw_text(surrogate=True, max_size=30), raw_text(True, 30)),
        max_size=4,
    ),
)
def test_fleet_card(fleet: str, members: list[tuple[str, str, str]]) -> None:
    fleet_card = fleetcard.card(parse_manifest(fleet), "fleet")
    cards = [
        fleetcard.Member(c.name, root, c.role)
        for text, root, fallback in members
        for c in [fleetcard.card(parse_manifest(text), fallback)]
    ]
    out = twice(lambda: fleetcard.describe(fleet_card, cards))
    # No name, role or root can add a line (a CR from agent.txt, a newline in a folder name).
    expected = 3 + 4 * len(cards) + (2 if not cards else 0) + 2
    assert len(out.splitlines()) == expected, out


def test_an_empty_manifest_is_empty() -> None:
    assert parse_manifest("") == Manifest()
