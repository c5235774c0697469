"""Hypothesis strategies and oracles shared by the property tests.

A generated fleet is a plain description (`FleetSpec`) written to a scratch directory by
`write_fleet`. The oracles here (`expected_files`) re-derive from the spec text (sections 2
and 4 of retrieval-core.md), not from `kb`, which files are walked, which are private and
which bucket each one lands in, so the tests compare two independent readings.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import strategies as st

from kb.pure.answering.entries import Entry
from kb.pure.notes.header import first_heading, headings
from kb.pure.notes.tokens import normalise

# -- words ----------------------------------------------------------------------------------

# Words that normalise to exactly one token and are not stopwords.
PLAIN_WORDS = (
    "floor",
    "piso",
    "calorie",
    "router",
    "kernel",
    "ledger",
    "quorum",
    "harbor",
    "vigil",
    "lantern",
    "roteamento",
    "ingestão",
    "memória",
    "café",
    "sparrow",
    "tessera",
)
# Keys that exercise the odd corners of §6.2: phrases, dead keys, one-word keys that
# normalise to several words or to nothing.
ODD_KEYS = (
    "quem responde",
    "long context",
    "text-embedding-3-small",
    "q4_K_M",
    "false",
    "calorie floor",
    "router kernel ledger",
    "Ação Rápida",
    "the floor",
    "piso calórico",
)
STOPWORDS_SAMPLE = ("the", "what", "is", "de", "você", "how", "a", "I")

words = st.sampled_from(PLAIN_WORDS)
keys = st.one_of(words, st.sampled_from(ODD_KEYS))


def phrase_of(ws: list[str]) -> str:
    return " ".join(ws)


phrases = st.lists(words, min_size=2, max_size=3).map(phrase_of)
any_key = st.one_of(keys, phrases)

# -- pure entries ---------------------------------------------------------------------------

STEMS = ("floor", "router-guide", "a.b", "kernel_notes", "Ação", "x", "quorum", "notes")
FOLDERS = ("knowledge", "inbox", "tools", "skills", "knowledge/sub", "")


@st.composite
def entries(draw: st.DrawFn) -> Entry:
    folder = draw(st.sampled_from(FOLDERS))
    stem = draw(st.sampled_from(STEMS))
    rel = f"{folder}/{stem}.md" if folder else f"{stem}.md"
    title = " ".join(draw(st.lists(st.one_of(words, st.sampled_from(STOPWORDS_SAMPLE)))))
    summary = " ".join(draw(st.lists(words, max_size=4)))
    kws = tuple(draw(st.lists(any_key, min_size=1, max_size=5)))
    return Entry(
        base=draw(st.sampled_from(("alpha", "beta"))),
        rel=rel,
        stem=stem,
        title=title,
        keywords=kws,
        summary=summary,
    )


def _fragments(w: str) -> list[str]:
    return [w, w[:3], w[2:], w + "s", w.upper()]


# Question text: whole words, stopwords, prefixes and suffixes of words (to reach the
# phrase-candidate logic of the inverted index) and hyphenated pairs.
question_piece = st.one_of(
    words,
    st.sampled_from(STOPWORDS_SAMPLE),
    st.sampled_from([f for w in PLAIN_WORDS for f in _fragments(w)]),
    st.tuples(words, words).map(lambda p: f"{p[0]}-{p[1]}"),
    st.sampled_from(ODD_KEYS),
)
questions = st.lists(question_piece, max_size=8).map(" ".join)

alias_pairs = st.lists(
    st.tuples(st.one_of(any_key, question_piece), st.one_of(any_key, question_piece)),
    max_size=6,
).map(tuple)

# -- fleets on disk -------------------------------------------------------------------------

ORIENTATION = ("README", "readme", "what-goes-here", "MOVED", "AGENTS", "CLAUDE", "map")
NOTE_STEMS = ("floor", "router-guide", "a.b", "Ação", "index", "building-agents", "x", "ledger")
DISK_FOLDERS = (
    "",
    "knowledge",
    "knowledge/sub",
    "inbox",
    "inbox/deep",
    "notes/inbox",
    "inboxes",
    "records",
    "Records",
    "knowledge/records",
    "tools",
    "skills",
    "profile",
    "projects",
    "projects/deep",
    "secret",
    "calculation-log",
    "knowledge/calculation-log",
    ".git",
    ".obsidian",
    "node_modules",
    "knowledge/build",
    "dist",
    "target",
)
SKIPPED_DIRS = frozenset({"target", "node_modules", "dist", "build"})
DEFAULT_PRIVATE = ("profile", "projects", "records")
MAP_NAMES = ("MAP.md", "INDEX.md", "MAPA.md")
ORIENTATION_NAMES = frozenset(
    {"readme.md", "what-goes-here.md", "moved.md", "map.md", "agents.md", "claude.md"}
)

# How a note's keys line is written. Only "valid" declares keys (§4.2); the others are
# look-alikes the header parser must not take.
KEY_LINE_KINDS = ("none", "valid", "bullet", "quote", "below_section", "empty", "prose")


@dataclass(frozen=True)
class NoteSpec:
    folder: str
    stem: str
    ext: str
    key_line: str
    label: str
    keys: tuple[str, ...]
    title: str
    purpose: str
    body: tuple[str, ...]
    front: bool
    invalid_utf8: bool

    @property
    def rel(self) -> str:
        name = self.stem + self.ext
        return f"{self.folder}/{name}" if self.folder else name

    def declares_keys(self) -> bool:
        return self.key_line == "valid" and not self.invalid_utf8

    def render(self) -> bytes:
        lines: list[str] = []
        if self.front:
            lines += ["---", "provenance: human", "stage: distilled", "---"]
        if self.title:
            lines.append(f"# {self.title}")
        lines.append("")
        keys_text = ", ".join(self.keys)
        label = self.label
        if self.key_line == "valid":
            lines.append(label.format(keys_text))
        elif self.key_line == "bullet":
            lines.append(f"- **Search for:** {keys_text}")
        elif self.key_line == "quote":
            lines.append(f"> Search for: {keys_text}")
        elif self.key_line == "empty":
            lines.append("**Search for:** , ;")
        elif self.key_line == "prose":
            lines.append(f"This note is what you Search for: {keys_text}")
        if self.purpose:
            lines.append(f"**Exists to:** {self.purpose}.")
        lines.append("")
        if self.key_line == "below_section":
            lines += ["## Section", f"**Search for:** {keys_text}", ""]
        lines += list(self.body)
        data = ("\n".join(lines) + "\n").encode("utf-8")
        if self.invalid_utf8:
            data = b"# broken\n\xff\xfe\xfa not utf-8\n" + data
        return data


@dataclass(frozen=True)
class BaseSpec:
    name: str
    has_agent: bool
    # None: no private line; ".": whole base; a tuple: the declared folders (possibly empty).
    private_decl: str | tuple[str, ...] | None
    maps: tuple[str, ...]
    notes: tuple[NoteSpec, ...]
    extra_files: tuple[str, ...]  # non-markdown files
    map_word: str = ""  # a word written into every map file's title
    # Folders a test writes beside the spec's files (the privacy world's `sources/`): they
    # exist on disk, so a private line naming them names something.
    extra_dirs: tuple[str, ...] = ()

    def agent_txt(self) -> str:
        lines = [f"name = {self.name}", "role = answers questions  # a comment", "# private = ."]
        if self.private_decl is None:
            return "\n".join(lines) + "\n"
        if self.private_decl == ".":
            lines.append("private = .   # the whole base")
        else:
            rendered = ", ".join(
                f" {f.strip()}/ " if i % 2 else f for i, f in enumerate(self.private_decl)
            )
            lines.append(f"private = {rendered}")
        # A second private line never counts: the first one decides.
        lines.append("private = ." if self.private_decl != "." else "private = profile")
        return "\n".join(lines) + "\n"

    def private_rule(self) -> tuple[bool, tuple[str, ...]]:
        """(whole, folders) per §2.2, from the structured declaration."""
        if self.has_agent:
            if self.private_decl == ".":
                return True, ()
            if isinstance(self.private_decl, tuple):
                folders = tuple(f.strip().rstrip("/") for f in self.private_decl if f.strip())
                # A declared folder with nothing on disk names nothing: the defaults then
                # stay private beside the declaration (kb.pure.notes.manifest.fail_closed).
                # Names are compared as people see them (issue 24): here, letter case.
                on_disk = {d.casefold() for d in self._folders_on_disk()}
                if any(f.casefold() not in on_disk for f in folders):
                    return False, (*folders, *DEFAULT_PRIVATE)
                return False, folders
        if self.name.lower() == "person":
            return True, ()
        return False, DEFAULT_PRIVATE

    def _folders_on_disk(self) -> set[str]:
        rels = [*self.maps, *self.extra_files, *(n.rel for n in self.notes)]
        found = {"/".join(r.split("/")[:i]) for r in rels for i in range(1, r.count("/") + 1)}
        return found | set(self.extra_dirs)

    def is_private(self, rel: str) -> bool:
        """Whether `rel` is in the private layer; folder names compared as people see them
        (the generated names are ASCII, so that is letter case: `Records/` is `records/`)."""
        whole, folders = self.private_rule()
        low = rel.casefold()
        return whole or any(
            low == f.casefold() or low.startswith(f.casefold() + "/") for f in folders
        )


@dataclass(frozen=True)
class FleetSpec:
    bases: tuple[BaseSpec, ...]


LABELS = (
    "**Search for:** {}",
    "Search for: {}",
    "search FOR: {}",
    "__Buscar por:__ {}",
    "**Search for**: {}",
)

body_line = st.one_of(
    st.lists(st.one_of(words, st.sampled_from(STOPWORDS_SAMPLE)), max_size=12).map(" ".join),
    st.sampled_from(("## Notes", "### Deeper", "```", "~~~", "", "- a list item about floor")),
)


@st.composite
def notes(draw: st.DrawFn, folders: tuple[str, ...] = DISK_FOLDERS) -> NoteSpec:
    folder = draw(st.sampled_from(folders))
    stem = draw(st.one_of(st.sampled_from(NOTE_STEMS), st.sampled_from(ORIENTATION), words))
    return NoteSpec(
        folder=folder,
        stem=stem,
        ext=draw(st.sampled_from((".md", ".md", ".md", ".MD", ".txt", ".markdown"))),
        key_line=draw(st.one_of(st.just("valid"), st.sampled_from(KEY_LINE_KINDS))),
        label=draw(st.sampled_from(LABELS)),
        keys=tuple(draw(st.lists(any_key, min_size=1, max_size=4))),
        title=" ".join(draw(st.lists(words, max_size=3))),
        purpose=" ".join(draw(st.lists(words, max_size=3))),
        body=tuple(draw(st.lists(body_line, max_size=6))),
        front=draw(st.booleans()),
        invalid_utf8=draw(st.integers(0, 11)) == 0,
    )


private_decls = st.one_of(
    st.none(),
    st.just("."),
    st.lists(
        st.sampled_from(("profile", "secret", "knowledge/sub", "projects", " inbox ", "records")),
        max_size=3,
    ).map(tuple),
)


@st.composite
def bases(draw: st.DrawFn, name: str) -> BaseSpec:
    has_agent = draw(st.booleans())
    decl = draw(private_decls) if has_agent else None
    root_notes = draw(st.lists(notes(), max_size=9))
    # Map files sit at the root; a map may carry keys and is still no entry.
    maps = tuple(draw(st.lists(st.sampled_from((*MAP_NAMES, "index.md")), max_size=2, unique=True)))
    extra = tuple(draw(st.lists(st.sampled_from(("notes.txt", "kb-aliases.txt")), unique=True)))
    return BaseSpec(name, has_agent, decl, maps, tuple(root_notes), extra)


@st.composite
def fleets(draw: st.DrawFn) -> FleetSpec:
    names = draw(
        st.lists(
            st.sampled_from(("alpha", "beta", "person", "Person", "gamma")),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    return FleetSpec(tuple(draw(bases(n)) for n in names))


def map_note(word: str, keyed: bool) -> bytes:
    keys = "**Search for:** floor, router" if keyed else ""
    return f"# Map of this base {word}\n\n{keys}\n".encode()


def files_of(base: BaseSpec) -> dict[str, bytes]:
    """Every file of a base, by rel; a later note at the same path wins."""
    out: dict[str, bytes] = {}
    if base.has_agent:
        out["agent.txt"] = base.agent_txt().encode()
    for i, m in enumerate(base.maps):
        out[m] = map_note(base.map_word, keyed=i % 2 == 0)
    for extra in base.extra_files:
        out[extra] = b"router = floor\n" if extra == "kb-aliases.txt" else b"not markdown\n"
    for note in base.notes:
        out[note.rel] = note.render()
    return out


def write_files(broot: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        path = broot / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def write_fleet(root: Path, fleet: FleetSpec) -> None:
    """Write the fleet as `root/fleet/<base>/...` (every subdirectory is a base, §2.3)."""
    for base in fleet.bases:
        broot = root / "fleet" / base.name
        broot.mkdir(parents=True, exist_ok=True)
        write_files(broot, files_of(base))


@dataclass(frozen=True)
class FileFact:
    base: str
    rel: str
    private: bool
    bucket: str  # entry | exempt | unreachable | unreadable


def disk_markdown(base_root: Path) -> list[str]:
    """Every markdown rel under a base, found with os.walk and the skip rules of §2.1."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(base_root, followlinks=True):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS]
        for name in filenames:
            if name.lower().endswith(".md"):
                rel = Path(dirpath, name).relative_to(base_root).as_posix()
                found.append(rel)
    return sorted(found)


def _exempt_path(rel: str) -> bool:
    low = rel.lower()
    inside = any(low.startswith(f + "/") or f"/{f}/" in low for f in ("inbox", "records"))
    return inside or "calculation-log/" in low


def _derives_keys(note: NoteSpec, rel: str) -> bool:
    """A keyless note is an entry when it is not empty and its title, file name or a
    heading holds a word (decision 0016); its front matter here holds no derived field."""
    text = note.render().decode("utf-8")
    if not text.strip():
        return False
    stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return bool(
        normalise(first_heading(text))
        or normalise(stem)
        or any(normalise(h) for h in headings(text))
    )


def expected_files(root: Path, fleet: FleetSpec, include_private: bool) -> list[FileFact]:
    """Per in-scope file on disk: its privacy and the bucket §4.1 puts it in."""
    out: list[FileFact] = []
    for base in fleet.bases:
        broot = root / "fleet" / base.name
        by_rel = {n.rel: n for n in base.notes}  # a later note at the same path overwrote
        rels = [r for r in disk_markdown(broot) if include_private or not base.is_private(r)]
        map_rel = next((m for m in MAP_NAMES if m in rels), None)
        for rel in rels:
            note = by_rel.get(rel)
            orientation = rel.rsplit("/", 1)[-1].lower() in ORIENTATION_NAMES or rel == map_rel
            if note is not None and note.invalid_utf8:
                bucket = "unreadable"
            elif orientation:
                bucket = "exempt"
            elif note.declares_keys() if note is not None else rel in base.maps[::2]:
                bucket = "entry"
            elif _exempt_path(rel):
                bucket = "exempt"
            elif note is None or _derives_keys(note, rel):
                bucket = "entry"  # a map that is not the map: its `# Map of ...` title
            else:
                bucket = "unreachable"
            out.append(FileFact(base.name, rel, base.is_private(rel), bucket))
    return out


# -- privacy --------------------------------------------------------------------------------

markers = st.text(alphabet="jqxzk", min_size=4, max_size=7).map(lambda s: "mkr" + s)


def with_marker(fleet: FleetSpec, marker: str) -> FleetSpec:
    """Put `marker` in the file name, keys, title and body of every private note."""
    new_bases = []
    for base in fleet.bases:
        new_notes = []
        for n in base.notes:
            if base.is_private(n.rel):
                n = replace(
                    n,
                    stem=f"{marker}-{n.stem}",
                    keys=(marker, *n.keys),
                    title=f"{n.title} {marker}",
                    body=(*n.body, f"{marker} {marker} floor"),
                )
            new_notes.append(n)
        whole, _ = base.private_rule()
        new_bases.append(
            replace(base, notes=tuple(new_notes), map_word=marker if whole else base.map_word)
        )
    return FleetSpec(tuple(new_bases))


def add_private_note(fleet: FleetSpec, note: NoteSpec) -> FleetSpec | None:
    """`fleet` with `note` moved into the private layer of the first base that has one."""
    for i, base in enumerate(fleet.bases):
        whole, folders = base.private_rule()
        if whole or folders:
            placed = replace(note, folder="knowledge" if whole else folders[0])
            assert base.is_private(placed.rel)
            changed = replace(base, notes=(*base.notes, placed))
            return FleetSpec((*fleet.bases[:i], changed, *fleet.bases[i + 1 :]))
    return None


# -- reading `kb index` reports -----------------------------------------------------------

BASE_LINE = re.compile(
    r"^  (\S+)\s+(\d+) reindexed, (\d+) unchanged, (\d+) removed, (\d+) chunks?, "
    r"(\d+) unreachable$"
)
TOTAL_LINE = re.compile(
    r"^  total: (\d+) files?, (\d+) chunks?, (\d+) index(?:es)?, (\d+) unreachable, "
    r"(\d+) unsearchable by design$"
)
UNREADABLE_LINE = re.compile(r"^  skipped (\d+) files? that could not be read as UTF-8 text:$")


def base_lines(report: str) -> dict[str, tuple[int, int, int, int, int]]:
    out: dict[str, tuple[int, int, int, int, int]] = {}
    for line in report.splitlines():
        m = BASE_LINE.match(line)
        if m:
            out[m.group(1)] = (
                int(m.group(2)),
                int(m.group(3)),
                int(m.group(4)),
                int(m.group(5)),
                int(m.group(6)),
            )
    return out


def totals(report: str) -> tuple[int, int, int, int, int]:
    found = [TOTAL_LINE.match(line) for line in report.splitlines()]
    matches = [m for m in found if m]
    assert len(matches) == 1, report
    m = matches[0]
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5)))


def unreadable_count(report: str) -> int:
    for line in report.splitlines():
        m = UNREADABLE_LINE.match(line)
        if m:
            return int(m.group(1))
    return 0


# How far the costly properties explore: 1 on a developer's run, 2 in CI (.ci/run), 10 for
# the nightly run (`make properties`). Each property that pins its examples multiplies them.
PROPERTY_SCALE = max(1, int(os.environ.get("KB_PROPERTY_SCALE", "1") or "1"))


# A mutation run (tests/mutation/mutate.py) sets KB_MUTATION_EXAMPLES: there every mutant
# reruns the properties, and a property that would take tens of seconds a mutant is held to
# that many examples (the rule tests of the module's unit file do most of the killing).
# Unset, or 0, on every other run.
MUTATION_EXAMPLES = max(0, int(os.environ.get("KB_MUTATION_EXAMPLES", "0") or "0"))


def capped(n: int) -> int:
    """`n` examples, or fewer under a mutation run's cap."""
    return min(n, MUTATION_EXAMPLES) if MUTATION_EXAMPLES else n


def examples(n: int) -> int:
    """`n` examples at this run's scale (capped under a mutation run)."""
    return capped(n * PROPERTY_SCALE)
