"""Keyword entries: what the keyword scorer knows about one note.

Rules of this module:
- Every walked file lands in exactly one bucket: orientation/exempt, unreachable, or entry.
  Orientation is decided before the header is read, so a map that carries keys is still
  not an entry.
- The keyword bag holds one-word keys that normalise to exactly one word. Phrases are keys
  whose normalised form has several words. A several-word key that normalises to one word
  (`long context` -> `context`) is in neither: a "dead key", reported by `kb check` W07.
- The vocabulary (what document frequency counts) is bag + title + stem + purpose words;
  phrase words count only if they also appear there.
"""

from __future__ import annotations

from typing import Literal

from attrs import frozen

from kb.pure.header import Header, first_heading, header_of
from kb.pure.paths import is_exempt, is_orientation, stem_of
from kb.pure.tokens import normalise

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


@frozen
class Phrase:
    original: str
    norm: str


@frozen
class Prepared:
    """An entry with every token set the scorer compares, computed once."""

    entry: Entry
    bag: frozenset[str]
    phrases: tuple[Phrase, ...]
    title_tokens: frozenset[str]
    stem_tokens: frozenset[str]
    summary_tokens: frozenset[str]

    @property
    def vocabulary(self) -> frozenset[str]:
        return self.bag | self.title_tokens | self.stem_tokens | self.summary_tokens


@frozen
class Parsed:
    """What one walk of one file yields: its bucket, and its entry when it has one."""

    bucket: Bucket
    title: str
    keys: tuple[str, ...]
    purpose: str


def bucket_of(map_rel: str | None, rel: str, has_keys: bool) -> Bucket:
    """Which bucket a file lands in. It depends on which file is the base's map, so a cache
    keeps the keys and asks this again on every open (adding MAP.md demotes INDEX.md)."""
    if is_orientation(map_rel, rel):
        return "exempt"
    if has_keys:
        return "entry"
    return "exempt" if is_exempt(map_rel, rel) else "unreachable"


def parse_note(map_rel: str | None, rel: str, text: str) -> Parsed:
    header: Header = header_of(text)
    return Parsed(
        bucket_of(map_rel, rel, bool(header.keys)), first_heading(text), header.keys,
        header.purpose,
    )


def prepare(entry: Entry) -> Prepared:
    bag: set[str] = set()
    phrases: list[Phrase] = []
    for key in entry.keywords:
        tokens = normalise(key)
        if len(key.split()) == 1 and len(tokens) == 1:
            bag.add(tokens[0])
        if len(tokens) > 1:
            phrases.append(Phrase(original=key, norm=" ".join(tokens)))
    return Prepared(
        entry=entry,
        bag=frozenset(bag),
        phrases=tuple(phrases),
        title_tokens=frozenset(normalise(entry.title)),
        stem_tokens=frozenset(normalise(entry.stem)),
        summary_tokens=frozenset(normalise(entry.summary)),
    )


def make_entry(base: str, rel: str, parsed: Parsed) -> Entry:
    return Entry(
        base=base,
        rel=rel,
        stem=stem_of(rel),
        title=parsed.title,
        keywords=parsed.keys,
        summary=parsed.purpose,
    )


def dead_keys(keys: tuple[str, ...] | list[str]) -> list[str]:
    """Keys no question can reach: written as several words, reduced by stopwords to one
    word or none, so they land in neither the keyword bag nor the phrase list (W07, and
    what `kb write` drops). `nao contestar` indexes as `contestar`, its own opposite."""
    return [k for k in keys if len(k.split()) > 1 and len(normalise(k)) <= 1]
