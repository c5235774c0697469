"""What the keyword scorer knows of one note (kb.pure.answering.entries): its bucket, its token
sets, the keys no question reaches, and the packed form a held fleet keeps of it. One rule a
test, each named after it."""

from __future__ import annotations

import pytest

from kb.pure.answering.entries import (
    IN_BAG,
    IN_STEM,
    IN_SUMMARY,
    IN_TITLE,
    Entry,
    Parsed,
    Prepared,
    bucket_of,
    make_entry,
    parse_note,
    prepare,
    prepared_from,
    token_sets,
)

# -- buckets ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("map_rel", "rel", "has_keys", "derivable", "bucket"),
    [
        # orientation first: a map or a README is never an entry, keys or not
        ("MAP.md", "MAP.md", True, True, "exempt"),
        ("INDEX.md", "INDEX.md", True, True, "exempt"),
        (None, "knowledge/README.md", True, True, "exempt"),
        # the map is the map only where it is the base's map
        ("MAP.md", "INDEX.md", True, False, "entry"),
        (None, "INDEX.md", False, True, "entry"),
        # keys make an entry anywhere else, the exempt folders included
        (None, "inbox/x.md", True, False, "entry"),
        (None, "records/x.md", True, False, "entry"),
        # without keys: exempt in the exempt folders, else an entry if derivable
        (None, "inbox/x.md", False, True, "exempt"),
        (None, "a/records/x.md", False, True, "exempt"),
        ("INDEX.md", "INDEX.md", False, True, "exempt"),
        (None, "knowledge/x.md", False, True, "entry"),
        (None, "knowledge/x.md", False, False, "unreachable"),
    ],
)
def test_a_file_lands_in_exactly_one_bucket(
    map_rel: str | None, rel: str, has_keys: bool, derivable: bool, bucket: str
) -> None:
    assert bucket_of(map_rel, rel, has_keys, derivable) == bucket


def test_a_file_is_unreachable_unless_said_derivable() -> None:
    assert bucket_of(None, "knowledge/x.md", False) == "unreachable"


# -- parsing a note --------------------------------------------------------------------------


def test_a_note_with_a_search_line_is_an_entry_keyed_by_it() -> None:
    text = "# Backups\n**Search for:** `backup`, `restore drill`\n**Exists to:** keep them.\n"
    assert parse_note(None, "knowledge/backups.md", text) == Parsed(
        "entry", "Backups", ("backup", "restore drill"), "keep them"
    )
    # the map's keys do not make it an entry
    assert parse_note("knowledge/backups.md", "knowledge/backups.md", text).bucket == "exempt"


def test_a_note_without_one_is_keyed_by_what_it_says_of_itself() -> None:
    text = "---\ntags: [ops]\n---\n# Backups\nExists to: keep them\n## Restore drill\n"
    assert parse_note(None, "knowledge/backups.md", text) == Parsed(
        "entry",
        "Backups",
        ("ops", "Restore drill"),
        "keep them",
        derived=True,
        derivable=True,
    )
    # in an exempt folder it is exempt, derivable or not
    assert parse_note(None, "inbox/backups.md", text).bucket == "exempt"
    assert parse_note(None, "inbox/backups.md", text).derivable


@pytest.mark.parametrize(
    ("rel", "text", "derivable"),
    [
        ("knowledge/x.md", "", False),  # empty: nothing to serve, whatever its name
        ("knowledge/x.md", "   \n\n", False),
        ("knowledge/the.md", "prose only\n", False),  # a stopword name, no title, no keys
        ("knowledge/the.md", "# The\n", False),  # a title of stopwords only
        ("knowledge/the.md", "# Kernel\n", True),  # a title with a word
        ("knowledge/kernel.md", "prose only\n", True),  # a file name with a word
        ("knowledge/the.md", "prose\n## Upgrades\n", True),  # a heading with a word
        ("knowledge/the.md", "prose\n## The\n", False),  # a heading of stopwords only
    ],
)
def test_a_note_is_derivable_when_it_is_not_empty_and_a_word_can_find_it(
    rel: str, text: str, derivable: bool
) -> None:
    parsed = parse_note(None, rel, text)
    assert parsed.derivable is derivable
    assert parsed.derived
    assert parsed.bucket == ("entry" if derivable else "unreachable")


def test_an_entry_is_made_from_its_path_and_what_parsing_found() -> None:
    parsed = Parsed("entry", "Title", ("k",), "purpose", derived=True, derivable=True)
    assert make_entry("ada", "knowledge/a.b.md", parsed) == Entry(
        base="ada",
        rel="knowledge/a.b.md",
        stem="a.b",
        title="Title",
        keywords=("k",),
        summary="purpose",
        derived=True,
    )
    assert not make_entry("ada", "x.md", Parsed("entry", "", (), "")).derived


# -- token sets ------------------------------------------------------------------------------


def test_one_word_keys_fill_the_bag_phrases_are_places_and_dead_keys_neither() -> None:
    keys = ("Backup", "restore drill", "long context", "the", "Backup", "kernel-upgrade", "Ação")
    bag, phrases, title, stem, summary, norms = token_sets(
        "kernel-notes", "The Kernel", keys, "keeps kernels"
    )
    assert norms == (
        "backup",
        "restore drill",
        "context",
        "",
        "backup",
        "kernel upgrade",
        "acao",
    )
    # `long context` normalises to one word and `the` to none: neither is in the bag, and
    # a key written as one word with a hyphen is a phrase of its parts
    assert bag == ("backup", "acao")
    assert phrases == (1, 5)
    assert (title, stem, summary) == (("kernel",), ("kernel", "notes"), ("keeps", "kernels"))


# -- the packed entry ------------------------------------------------------------------------


def having(p: Prepared, place: int) -> tuple[str, ...]:
    """The words of `p` in one place (an IN_* bit), in the order it holds them."""
    return tuple(w for w in p.words if p.where(w) & place)


def _entry(**fields: object) -> Entry:
    base = {
        "base": "ada",
        "rel": "k/kernel-notes.md",
        "stem": "kernel-notes",
        "title": "Kernel upgrades",
        "keywords": ("kernel", "reboot window", "Ação"),
        "summary": "plan a kernel upgrade",
        "derived": False,
    }
    base.update(fields)
    return Entry(**base)  # type: ignore[arg-type]


def test_an_entry_is_held_packed_into_bytes_and_unpacked_equal() -> None:
    entry = _entry()
    p = prepare(entry)
    assert isinstance(p.text, bytes)
    assert (p.base, p.rel, p.derived) == ("ada", "k/kernel-notes.md", False)
    assert p.entry == entry and p.entry.keywords == entry.keywords
    assert p.norms == ("kernel", "reboot window", "acao")
    assert p.unpacked() == (entry, p.norms)
    assert [p.entry.keywords[k] for k in range(3)] == list(entry.keywords)
    assert p.phrases == (1,) and p.phrase_norms() == ["reboot window"]
    assert prepare(_entry(keywords=("kernel",))).phrase_norms() == []


@pytest.mark.parametrize("field", ["stem", "title", "summary", "keywords"])
def test_an_entry_whose_text_holds_a_nul_is_held_whole(field: str) -> None:
    value: object = ("a\0b",) if field == "keywords" else "a\0b"
    entry = _entry(**{field: value})
    p = prepare(entry)
    sets = token_sets(entry.stem, entry.title, entry.keywords, entry.summary)
    assert p.text == (entry, sets[5])
    assert p.entry == entry and p.norms == sets[5] and p.entry.keywords == entry.keywords


def test_a_lone_surrogate_packs_and_unpacks_unchanged() -> None:
    entry = _entry(title="caf\udce9", keywords=("x\udcff",))
    p = prepare(entry)
    assert isinstance(p.text, bytes) and p.entry == entry


def test_each_word_is_held_once_with_every_place_it_is_in() -> None:
    entry = _entry(
        stem="kernel", title="Kernel reboot", keywords=("kernel", "patch"), summary="reboot"
    )
    p = prepare(entry)
    assert p.words == ("kernel", "patch", "reboot")  # the bag first
    assert p.where("kernel") == IN_BAG | IN_TITLE | IN_STEM
    assert p.where("patch") == IN_BAG
    assert p.where("reboot") == IN_TITLE | IN_SUMMARY
    assert p.where("absent") == 0
    assert having(p, IN_BAG) == ("kernel", "patch")
    assert having(p, IN_TITLE) == ("kernel", "reboot")
    assert having(p, IN_STEM) == ("kernel",)
    assert having(p, IN_SUMMARY) == ("reboot",)
    assert p.vocabulary == frozenset({"kernel", "patch", "reboot"})


def test_a_prepared_entry_is_the_same_from_cached_sets_or_tokenised_again() -> None:
    entry = _entry(derived=True)
    sets = token_sets(entry.stem, entry.title, entry.keywords, entry.summary)
    assert prepared_from(entry, sets) == prepare(entry)
    assert prepare(entry).derived


def test_a_base_map_without_keys_is_exempt_whatever_its_name() -> None:
    text = "# Index\n\n- [Backups](knowledge/backups.md)\n"
    assert parse_note("INDEX.md", "INDEX.md", text).bucket == "exempt"
    assert parse_note(None, "INDEX.md", text).bucket == "entry"
