"""Keyword entries: what the keyword scorer knows about one note.

Rules of this module:
- Every walked file lands in exactly one bucket: orientation/exempt, unreachable, or entry.
  Orientation is decided before the header is read, so a map that carries keys is still
  not an entry.
- A note with a `Search for:` line is an entry keyed by it (declared keys). A note without
  one, outside the exempt folders, is an entry too when it says anything about itself: its
  keys are derived from its front matter and headings (`header.derived_keys`), and its
  title and file name score as for every entry. Derived keys weigh less than declared ones
  (`keyword.DERIVED_FACTOR`). Only an empty note, or one whose title, file name and derived
  keys hold no word at all, is unreachable.
- The keyword bag holds one-word keys that normalise to exactly one word. Phrases are keys
  whose normalised form has several words. A several-word key that normalises to one word
  (`long context` -> `context`) is in neither: a "dead key", reported by `kb check` W07.
- The vocabulary (what document frequency counts) is bag + title + stem + purpose words;
  phrase words count only if they also appear there.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from attrs import frozen

from kb.pure.notes.header import Header, derived_keys, first_heading, header_of
from kb.pure.notes.paths import is_exempt, is_orientation, stem_of
from kb.pure.notes.tokens import STOPWORDS, normalise

Bucket = Literal["entry", "exempt", "unreachable"]


@frozen
class Entry:
    """One routable note, as parsed from its own header."""

    base: str
    rel: str
    stem: str
    title: str
    keywords: tuple[str, ...]
    summary: str
    # True when `keywords` were derived from the note's own text, not declared.
    derived: bool = False


# Where a word of an entry is, as bits of `Prepared.flags`: in its keyword bag, its title,
# its file name, its purpose line.
IN_BAG, IN_TITLE, IN_STEM, IN_SUMMARY = 1, 2, 4, 8
# A field of an entry's packed text never holds this: the text is split back at it.
_FIELD_END = "\0"
# Lone surrogates (a file name read with surrogate escapes) pack and unpack unchanged.
_ERRORS = "surrogatepass"


@frozen
class Prepared:
    """An entry as the keyword scorer holds it: every word it can be found by, once, with
    where each is (`flags`), and its own text packed into one bytes object, unpacked into an
    `Entry` only for a hit. A warm fleet holds one of these per entry: as an `Entry` with six
    tuples of token sets it took about 2 KB an entry, 183 of 465 MB a held fleet of 100,000
    notes held, most of it the headers of strings and tuples rather than their text."""

    base: str
    rel: str
    derived: bool
    # every word of the keyword bag, title, file name and purpose, once, bag words first
    words: tuple[str, ...]
    flags: bytes  # per word of `words`, its IN_* bits
    # the several-word keys, by their place among the entry's keys and `norms`: a key as
    # written is `key_at(k)`, normalised `norms[k]` (a pair object a phrase was 42 of 465 MB
    # a warm fleet of 100,000 notes held; a place is a cached small int)
    phrases: tuple[int, ...]
    # file name, title, purpose, the keys as written and every key's normalised words
    # joined by spaces (in key order), UTF-8 with a NUL after each but the last; the entry
    # and the norms themselves when one of them holds a NUL. Only a hit, and an entry whose
    # phrase may be in the question, unpacks it.
    text: bytes | tuple[Entry, tuple[str, ...]]

    def unpacked(self) -> tuple[Entry, tuple[str, ...]]:
        """The entry and its keys' norms, unpacked together (built again on each call)."""
        if not isinstance(self.text, bytes):
            return self.text
        stem, title, summary, *both = self.text.decode("utf-8", _ERRORS).split(_FIELD_END)
        keys = len(both) // 2
        entry = Entry(self.base, self.rel, stem, title, tuple(both[:keys]), summary, self.derived)
        return entry, tuple(both[keys:])

    @property
    def entry(self) -> Entry:
        """The entry this was prepared from, equal to it (built again on each call)."""
        return self.unpacked()[0]

    @property
    def norms(self) -> tuple[str, ...]:
        """Every key's normalised words joined by spaces, in key order."""
        return self.unpacked()[1]

    def phrase_norms(self) -> list[str]:
        """The norms of the several-word keys, in key order (nothing unpacked without one)."""
        if not self.phrases:
            return []
        norms = self.norms
        return [norms[k] for k in self.phrases]

    def where(self, word: str) -> int:
        """The IN_* bits of `word` in this entry; 0 when it has no such word."""
        return self.flags[self.words.index(word)] if word in self.words else 0

    @property
    def vocabulary(self) -> frozenset[str]:
        return frozenset(self.words)


@frozen
class Parsed:
    """What one walk of one file yields: its bucket, and its entry when it has one."""

    bucket: Bucket
    title: str
    keys: tuple[str, ...]
    purpose: str
    # `keys` were derived (no `Search for:` line); `derivable`: the note has any word to be
    # found by (derived keys, title or file name), so it can be an entry without declaring.
    derived: bool = False
    derivable: bool = False


def bucket_of(map_rel: str | None, rel: str, has_keys: bool, derivable: bool = False) -> Bucket:
    """Which bucket a file lands in. It depends on which file is the base's map, so a cache
    keeps the keys and asks this again on every open (adding MAP.md demotes INDEX.md)."""
    if is_orientation(map_rel, rel):
        return "exempt"
    if has_keys:
        return "entry"
    if is_exempt(map_rel, rel):
        return "exempt"
    return "entry" if derivable else "unreachable"


def parse_note(map_rel: str | None, rel: str, text: str) -> Parsed:
    header: Header = header_of(text)
    title = first_heading(text)
    if header.keys:
        return Parsed(bucket_of(map_rel, rel, True), title, header.keys, header.purpose)
    keys = derived_keys(text)
    # An empty file says nothing about itself, whatever its name: nothing to serve.
    derivable = bool(text.strip()) and bool(
        any(_key_tokens(k) for k in keys) or normalise(title) or normalise(stem_of(rel))
    )
    return Parsed(
        bucket_of(map_rel, rel, False, derivable),
        title,
        keys,
        header.purpose,
        derived=True,
        derivable=derivable,
    )


# Keys repeat across a fleet (89,727 distinct of 219,648 at 10,000 generated notes), so the
# most recent keys' tokens are kept. Pure: the same text always gives the same tokens. Only a
# parse uses it, and a cold index parses a whole base: 131,072 kept keys (the size until
# then) were 30 MB of a 13,278-note base's 207 MB peak, and 8,192 cost it 2% more time.
_KEY_MEMO = 1 << 13


@lru_cache(maxsize=_KEY_MEMO)
def _key_tokens(key: str) -> tuple[str, ...]:
    return tuple(normalise(key))


# What the header cache stores per keyed file so no process re-tokenises it: the keyword
# bag, the phrases as places among the keys, the title, stem and purpose tokens, and every
# key's normalised words joined by spaces (in key order; what spelling suggestions compare).
TokenSets = tuple[
    tuple[str, ...],
    tuple[int, ...],
    tuple[str, ...],
    tuple[str, ...],
    tuple[str, ...],
    tuple[str, ...],
]


def token_sets(stem: str, title: str, keys: tuple[str, ...], summary: str) -> TokenSets:
    """Every token set the scorer compares for one note, in a stable, cacheable form."""
    return sets_from_norms(
        keys,
        tuple(" ".join(_key_tokens(k)) for k in keys),
        tuple(dict.fromkeys(normalise(title))),
        tuple(dict.fromkeys(normalise(stem))),
        tuple(dict.fromkeys(normalise(summary))),
    )


def sets_from_norms(
    keys: tuple[str, ...],
    norms: tuple[str, ...],
    title: tuple[str, ...],
    stem: tuple[str, ...],
    summary: tuple[str, ...],
) -> TokenSets:
    """The token sets, given each key's normalised words joined by spaces: the bag holds
    one-word keys that normalise to one word, the phrases keys that normalise to several.
    The header cache stores only the norms and rebuilds the rest here (less to decode and
    to hold: the decoded cache was 50 MB of strings at 10,000 notes)."""
    bag: dict[str, None] = {}
    phrases: list[int] = []
    for k, (key, norm) in enumerate(zip(keys, norms, strict=True)):
        if " " in norm:
            phrases.append(k)
        elif norm and len(key.split()) == 1:
            bag[norm] = None
    return (tuple(bag), tuple(phrases), title, stem, summary, norms)


def prepared_from(entry: Entry, sets: TokenSets) -> Prepared:
    """An entry with token sets computed earlier (by `token_sets`, possibly in another
    process and read back from the header cache), in the form the scorer holds."""
    bag, phrases, title, stem, summary, norms = sets
    where: dict[str, int] = {}
    for bit, words in ((IN_BAG, bag), (IN_TITLE, title), (IN_STEM, stem), (IN_SUMMARY, summary)):
        for word in words:
            where[word] = where.get(word, 0) | bit
    fields = (entry.stem, entry.title, entry.summary, *entry.keywords, *norms)
    packed = None if any(_FIELD_END in f for f in fields) else _FIELD_END.join(fields)
    return Prepared(
        entry.base,
        entry.rel,
        entry.derived,
        tuple(where),
        bytes(where.values()),
        phrases,
        (entry, norms) if packed is None else packed.encode("utf-8", _ERRORS),
    )


def prepare(entry: Entry) -> Prepared:
    return prepared_from(entry, token_sets(entry.stem, entry.title, entry.keywords, entry.summary))


def make_entry(base: str, rel: str, parsed: Parsed) -> Entry:
    return Entry(
        base=base,
        rel=rel,
        stem=stem_of(rel),
        title=parsed.title,
        keywords=parsed.keys,
        summary=parsed.purpose,
        derived=parsed.derived,
    )


def dead_keys(keys: tuple[str, ...] | list[str]) -> list[str]:
    """Keys no question can reach: written as several words, reduced by stopwords to one
    word or none, so they land in neither the keyword bag nor the phrase list (W07, and
    what `kb write` drops). `nao contestar` indexes as `contestar`, its own opposite."""
    return [k for k in keys if not k.isalnum() and _is_dead(k)]  # one plain word: alive


def _is_dead(key: str) -> bool:
    parts = key.split()
    if len(parts) < 2:
        return False
    kept = 0
    for part in parts:
        if not (part.isascii() and part.isalnum()):
            return len(normalise(key)) <= 1  # punctuation or another script: the full rule
        # a plain ASCII word is one word of `normalise`, folded by lowering: most keys are
        # found alive by their first two such words, without folding or matching the key
        if len(part) > 1 and part.lower() not in STOPWORDS:
            kept += 1
            if kept > 1:
                return False
    return True
