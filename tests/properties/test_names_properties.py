"""Names compared as people see them (issue 24, part 3): the private layer covers a folder
however it is spelled to a reader, in letter case, Unicode form or look-alike letters."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kb.pure.notes.lookalike import CONFUSABLES, lookalike_message, looks_like, skeleton
from kb.pure.notes.manifest import DEFAULT_PRIVATE_FOLDERS, PrivateLayer, private_layer

# Latin letter -> every character of the table drawn like it
_DRAWN_AS: dict[str, list[str]] = {}
for _c, _latin in CONFUSABLES.items():
    _DRAWN_AS.setdefault(_latin.lower(), []).append(_c)

_name = st.text(alphabet="abcdeghiklmnoprstuvwxyz", min_size=1, max_size=10)


@st.composite
def disguised(draw: st.DrawFn, name: str) -> str:
    """`name` as a person could still read it: each letter kept, upper-cased, or replaced
    by a character drawn like it."""
    out = []
    for c in name:
        choice = draw(st.sampled_from(("keep", "upper", "drawn")))
        if choice == "upper":
            out.append(c.upper())
        elif choice == "drawn" and c in _DRAWN_AS:
            out.append(draw(st.sampled_from(_DRAWN_AS[c])))
        else:
            out.append(c)
    return "".join(out)


@given(st.data(), _name, st.text(alphabet="abcxyz/", max_size=12))
def test_a_private_folder_covers_every_spelling_of_it(
    data: st.DataObject, name: str, rest: str
) -> None:
    layer = PrivateLayer(whole=False, folders=(name,))
    seen_as = data.draw(disguised(name))
    assert layer.covers(f"{seen_as}/{rest}.md")
    assert layer.cover_test()(f"{seen_as}/{rest}.md")
    # and a name that does not look like it is not covered
    assert not layer.covers(f"{name}x/{rest}.md")


@given(_name, _name)
def test_plain_names_are_compared_exactly_as_before(folder: str, top: str) -> None:
    """For the lower-case ASCII names every fleet uses, look-alike matching changes
    nothing: a path is covered exactly when its first segment is the folder."""
    layer = PrivateLayer(whole=False, folders=(folder,))
    assert layer.covers(f"{top}/x.md") == (top == folder)


def test_unicode_forms_are_one_spelling_and_not_warned_about() -> None:
    nfd, nfc = unicodedata.normalize("NFD", "résumé"), unicodedata.normalize("NFC", "résumé")
    assert nfd != nfc and skeleton(nfd) == skeleton(nfc)
    for declared, disk in ((nfd, nfc), (nfc, nfd)):
        layer = PrivateLayer(whole=False, folders=(declared,), declared=True)
        assert layer.covers(f"{disk}/cv.md")
        assert layer.lookalikes([disk]) == ()


@pytest.mark.parametrize(
    "disk",
    ["Records", "RECORDS", "rеcords", "RЕCORDS", "rec0rds", "ｒｅｃｏｒｄｓ", "reсords"],
)
def test_the_default_layer_keeps_a_look_alike_of_records_private_and_names_it(disk: str) -> None:
    layer = private_layer(None, "ada")
    assert layer.folders == DEFAULT_PRIVATE_FOLDERS
    assert layer.covers(f"{disk}/contract.md")
    found = layer.lookalikes([disk, "knowledge"])
    assert found == (("records", disk),)
    message = lookalike_message("ada", found)
    assert message is not None and f"`{disk}/`" in message


@pytest.mark.parametrize("name", ["Person", "PERSON", "реrson", "pеrson"])
def test_a_folder_that_reads_as_person_is_the_person_base(name: str) -> None:
    assert private_layer(None, name).whole


@pytest.mark.parametrize("other", ["knowledge", "recordings", "record", "profiles", "inbox"])
def test_names_that_only_share_letters_are_not_look_alikes(other: str) -> None:
    assert not any(looks_like(other, f) for f in DEFAULT_PRIVATE_FOLDERS)
