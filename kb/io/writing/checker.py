"""`kb check`'s reading half: each base read once into a `BaseFacts` value for
kb.pure.writing.checks.

Reads only: the walk snapshot, every discovered file's text, the base's `.gitignore`, its
source records, and (when kb.pure.writing.checks asks for it) the citation keys in the private
layer. Nothing is written and the index is never opened, so `kb check` can run on a read-only fleet
and leaves no `.kb/` folder behind.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from attrs import evolve, frozen

from kb.io.notes.safe_read import Refused, read_note
from kb.io.notes.walk import (
    UNREAD_FOLDER,
    BaseSnapshot,
    WalkError,
    discover,
    expand_roots,
    read_text,
)
from kb.io.writing.sources import load_records
from kb.pure.notes.links import CITE_OPEN, citations
from kb.pure.writing.checks import (
    KNOWLEDGE_DIRS,
    BaseFacts,
    Finding,
    Unreadable,
    base_findings,
    file_findings,
    file_rules,
    folded_stems,
    knowledge_folder,
    private_scan_folders,
    records_hidden,
)
from kb.pure.writing.sources import Record


def file_text(snap: BaseSnapshot, rel: str) -> str | tuple[None, str]:
    """The file's text (kb.io.notes.safe_read), or (None, why it could not be read)."""
    got = read_note(snap, rel)
    if isinstance(got, Refused):
        return (None, got.reason)
    text = got.text()
    return text if text is not None else (None, "not valid UTF-8")


def _private_citations(root: Path, folders: tuple[str, ...]) -> frozenset[str]:
    """Every citation token in `*.md` under the given folders, recursively, skipping every
    entry whose name starts with `.`. Only the tokens come back, never a path."""
    tokens: set[str] = set()
    seen: set[tuple[int, int]] = set()
    # An explicit stack, not recursion: a private tree nested past Python's recursion limit
    # is still scanned, not a RecursionError.
    pending = [root / folder if folder else root for folder in reversed(folders)]
    while pending:
        directory = pending.pop()
        try:
            st = directory.stat()
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in seen:  # a symlink loop, or a folder already walked
            continue
        seen.add((st.st_dev, st.st_ino))
        for e in entries:
            if e.name.startswith("."):
                continue
            path = Path(e.path)
            if path.is_dir():
                pending.append(path)
            elif path.suffix == ".md":
                text = read_text(path)
                if text is not None and CITE_OPEN in text:  # most files cite nothing
                    tokens.update(token for _, token in citations(text))
    return frozenset(tokens)


def _readable(snap: BaseSnapshot, skipped: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """(rel, text) of each file of the base that can be read, one at a time, in order; each
    that cannot goes to `skipped` with the reason."""
    for rel in snap.files.rels:  # the paths alone: no FileStat is made for them
        got = file_text(snap, rel)
        if isinstance(got, str):
            yield rel, got
        else:
            skipped.append((rel, got[1]))


def read_base(snap: BaseSnapshot, include_private: bool) -> BaseFacts:
    """The base with every file's text held (what the reading room shows)."""
    skipped: list[tuple[str, str]] = []
    texts = tuple(_readable(snap, skipped))
    facts = base_facts(snap, include_private)
    return evolve(facts, texts=texts, skipped=_skipped(skipped, snap, facts))


def check_read(snap: BaseSnapshot, include_private: bool) -> tuple[BaseFacts, list[Finding]]:
    """The base (its texts not held) and its findings, each file judged as it is read and
    let go: `kb check` holds one note's text at a time."""
    facts = base_facts(snap, include_private)
    rules = file_rules(facts)
    per_file: list[Finding] = []
    cited: set[str] = set()
    skipped: list[tuple[str, str]] = []
    for rel, text in _readable(snap, skipped):
        found, keys = file_findings(rules, rel, text)
        per_file += found
        cited |= keys
    facts = evolve(facts, skipped=_skipped(skipped, snap, facts))
    return facts, base_findings(facts, per_file, cited)


class FoldedStems:
    """A base's folded stems, held as one string and made a set the first time the
    cross-base hint asks (only a broken link somewhere does): 100,000 file names as sets in
    `kb check`'s parent were most of its peak memory."""

    def __init__(self, joined: str) -> None:
        self._joined: str | None = joined
        self._set: frozenset[str] = frozenset()

    def __contains__(self, stem: object) -> bool:
        if self._joined is not None:
            self._set = frozenset(self._joined.split("\0")) if self._joined else frozenset()
            self._joined = None
        return stem in self._set


@frozen
class CheckedBase:
    """One base as a `kb check` job hands it back: its facts without its file names, which
    travel as one string (`names`, a walk's names never hold NUL) and are unpacked only
    while its report is rendered, its findings, and its folded stems."""

    facts: BaseFacts
    findings: tuple[Finding, ...]
    names: str
    stems: str

    def facts_with_names(self) -> BaseFacts:
        return evolve(self.facts, rels=tuple(self.names.split("\0")) if self.names else ())


def walk_and_check(include_private: bool, root: str) -> CheckedBase | Unreadable:
    """One base of `kb check` whole: walked, read and judged where it runs (a worker
    process, for a large fleet), or why it could not be walked. The walk was 0.7 s of
    `kb check` at 100,000 notes in the parent, alone, before any worker began."""
    try:
        snap = discover(root, include_private)
    except WalkError as e:
        return Unreadable(root, str(e))
    facts, findings = check_read(snap, include_private)
    return CheckedBase(
        evolve(facts, rels=()),
        tuple(findings),
        "\0".join(facts.rels),
        "\0".join(folded_stems(facts.rels)),
    )


def _skipped(
    files: list[tuple[str, str]], snap: BaseSnapshot, facts: BaseFacts
) -> tuple[tuple[str, str], ...]:
    """What could not be read, in report order: files, then folders the walk could not
    list, then the records folder."""
    folders = [(rel, UNREAD_FOLDER.format(reason=why)) for rel, why in snap.unread_folders]
    return (*files, *folders, *facts.skipped)


def base_facts(snap: BaseSnapshot, include_private: bool) -> BaseFacts:
    """Everything about the base but its files' texts (none yet) and the files it could
    not read (only the records folder, when it cannot be listed)."""
    records: tuple[Record, ...] = ()
    broken: tuple[tuple[str, str], ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    if not records_hidden(snap.private, include_private):
        try:
            loaded, bad = load_records(snap.root)
            records, broken = tuple(loaded), tuple(bad)
        except OSError as e:  # sources/ exists but cannot be listed
            skipped = (("sources", e.strerror or str(e)),)
    folders = private_scan_folders(snap.private, include_private, len(records))
    gitignore = snap.root / ".gitignore"
    return BaseFacts(
        label=snap.name,
        map_rel=snap.map_rel,
        knowledge=knowledge_folder([d for d in KNOWLEDGE_DIRS if (snap.root / d).is_dir()]),
        rels=snap.files.rels,
        texts=(),
        skipped=skipped,
        private=snap.private,
        include_private=include_private,
        gitignore=read_text(gitignore) if gitignore.is_file() else None,
        records=records,
        broken_records=broken,
        private_citations=_private_citations(snap.root, folders) if folders else frozenset(),
        private_unmatched=snap.private_unmatched,
        private_lookalikes=snap.private_lookalikes,
    )


def discover_fleet(paths: list[str], include_private: bool) -> list[BaseSnapshot | Unreadable]:
    """Every base the paths expand into, walked (stat only, no file read), in order; a base
    that cannot be walked is named."""
    out: list[BaseSnapshot | Unreadable] = []
    for root in expand_roots(paths):
        try:
            out.append(discover(root, include_private))
        except WalkError as e:
            out.append(Unreadable(root, str(e)))
    return out


def read_fleet(paths: list[str], include_private: bool) -> list[BaseFacts | Unreadable]:
    """Every base the paths expand into, read, in order. This holds the whole fleet's text
    at once; `kb check` itself reads one base at a time (kb.shell.writing.checkverbs)."""
    return [
        s if isinstance(s, Unreadable) else read_base(s, include_private)
        for s in discover_fleet(paths, include_private)
    ]
