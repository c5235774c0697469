"""A header read back from the cache: its keys are interned, so a warm fleet holds each
distinct key once however many notes share it (kb.io.store.headers._decode)."""

from __future__ import annotations

import json

from kb.io.store.fileheader import _decode


def test_the_same_key_decoded_from_two_rows_is_one_string() -> None:
    # built at run time: a literal in this file would be interned by the compiler already
    key = "".join(["backup ", "restore ", "drill"])
    first = _decode(json.dumps([[key, "harbor"], [], False, False]))
    second = _decode(json.dumps([["tide", key], [["stage", "draft"]], True, False]))
    assert first is not None and second is not None
    assert first[0][0] == second[0][1] == key
    assert first[0][0] is second[0][1]
    assert second[1:] == ((("stage", "draft"),), True, False)


def test_a_row_of_the_wrong_shape_decodes_to_none() -> None:
    assert _decode(json.dumps({"keys": []})) is None
    assert _decode("not json") is None
