"""A deterministic synthetic fleet for the benchmarks (stdlib plus the installed `kb`).

    python benchmarks/generate.py OUT_DIR --notes N [--agents A] [--seed S]

writes `OUT_DIR/fleet.txt` and `OUT_DIR/fleet/<agent>/` with `agent.txt`, `MAP.md` and notes
under `knowledge/`, `tools/`, `inbox/` (raw deposits, some keyless) and `records/` (private by
default). Notes follow the fleet's format: `# Title`, a `**Search for:**` line of 10-40 keys
in English and Portuguese (about a third of them multi-word phrases), an `**Exists to:**`
line, body paragraphs and `##` sections with a few `[[wikilinks]]`. A note averages about
4 KB, so 10,000 notes are about 40 MB.

Around those N notes (version 2): each base keeps source records in `sources/{KEY}.txt`,
written by kb's own renderer (`kb.pure.writing.sources.render_record`, keys from `mint_key`), and
about one public note in five cites one to three of them as `[src:KEY]` in its prose, with
the exact bibliography line under a closing `## Sources` section; a citing knowledge note
usually opens with front matter (`provenance`, `stage`, `evidence_tier`, `valid_for`). A few
records supersede earlier ones (`replaces =`), some are cited only from private notes, and
one citation in the fleet points at no record (one intended E05). Every third agent declares
its private layer explicitly in `agent.txt` (`private = records`, or `private = records/,
drafts/` with a few private notes in `drafts/`), and a `person` base, private as a whole,
holds the owner's notes. These extras come from a second seeded generator, so the N notes
that cite nothing are byte for byte what version 1 wrote.

The words are invented: two vocabularies of pseudo-words (English-like and Portuguese-like,
the latter with accents such as `ção`) drawn with Zipf-like frequencies, so a few words are
in many notes and most in a few. Invented words use no `k q w x y z j`; refusal questions
are built from words whose every syllable starts with one of those letters, and each is checked
against every word on disk, so they are absent by construction and by test.

Same arguments, same bytes: everything is drawn from two seeded `random.Random`s.
As a module: `generate(out, notes, agents, seed)` writes a fleet and `questions(root, count,
seed)` builds questions for any fleet on disk (generated or not), half answerable from a
note's real keys and half made of absent words.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import accumulate
from pathlib import Path

from kb.pure.writing.sources import Record, bibliography_line, mint_key, render_record

GENERATOR_VERSION = 2  # bump when the output of a given (notes, agents, seed) changes

# -- vocabulary ------------------------------------------------------------------------

EN_ONSETS = (
    "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v",
    "br", "cr", "dr", "fl", "gr", "pl", "pr", "st", "tr", "sh", "ch", "th", "sp", "bl", "cl",
)  # fmt: skip
EN_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "i", "o", "ea", "oo", "ai", "ou")
EN_CODAS = ("", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "rt", "ft")
EN_SUFFIXES = (
    "", "", "", "", "", "", "", "", "", "",
    "ing", "er", "ment", "ness", "able", "ion", "ed", "ity", "al",
)  # fmt: skip
PT_ONSETS = (
    "b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v",
    "ch", "br", "pr", "tr", "gr", "cr", "fr", "lh", "nh",
)  # fmt: skip
PT_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "o")
PT_ACCENTED = {"a": "áãâ", "e": "éê", "i": "í", "o": "óõô", "u": "ú"}
PT_CODAS = ("", "", "", "", "r", "s", "l", "n", "m")
PT_SUFFIXES = (
    "", "", "", "", "", "", "", "", "", "",
    "ção", "ções", "agem", "mente", "ada", "eiro", "ismo", "dade", "ante", "ência",
)  # fmt: skip
# Letters no invented word uses: refusal words are made of these.
ABSENT_ONSETS = ("z", "x", "k", "w", "j", "q", "zy", "kw", "xy", "jy")
ABSENT_VOWELS = ("y", "a", "o", "u", "e", "i")

EN_VOCAB = 15_000
PT_VOCAB = 15_000
KEY_ZIPF = (1.0, 25.0)  # exponent, rank offset: keys avoid the very head of the curve
BODY_ZIPF = (1.05, 2.0)

EN_FILLER = (
    "the", "the", "the", "of", "of", "to", "to", "and", "and", "a", "a", "in", "is", "is",
    "it", "for", "that", "with", "on", "as", "be", "are", "this", "when", "from", "by", "or",
    "not", "at", "so", "if", "before", "after", "then", "there", "which", "can", "should",
)  # fmt: skip
PT_FILLER = (
    "de", "de", "de", "o", "o", "a", "a", "que", "que", "e", "e", "do", "da", "em", "um",
    "uma", "para", "com", "no", "na", "os", "se", "por", "mais", "as", "dos", "como", "mas",
    "ao", "quando", "ja", "entao", "antes", "depois", "tambem",
)  # fmt: skip

AGENT_NAMES = (
    "ada", "bruno", "clara", "dario", "elisa", "fabio", "gaia", "hugo", "iris", "joana",
    "lia", "mateo", "nina", "otto", "paula", "rosa", "saul", "tina", "ugo", "vera",
)  # fmt: skip

FOLDERS = ("knowledge", "tools", "inbox", "records")
FOLDER_WEIGHTS = (0.72, 0.10, 0.10, 0.08)
DRAFTS = "drafts"  # the extra private folder of agents that declare `private = records/, drafts/`
PERSON = "person"  # the owner's base: private as a whole because of its name


@dataclass(frozen=True)
class Vocabulary:
    """Two ranked word lists with their Zipf-like cumulative weights."""

    words: dict[str, tuple[str, ...]]
    key_cw: dict[str, tuple[float, ...]]
    body_cw: dict[str, tuple[float, ...]]

    def keys(self, rng: random.Random, lang: str, k: int) -> list[str]:
        return rng.choices(self.words[lang], cum_weights=self.key_cw[lang], k=k)

    def body(self, rng: random.Random, lang: str, k: int) -> list[str]:
        return rng.choices(self.words[lang], cum_weights=self.body_cw[lang], k=k)


def _accent_once(rng: random.Random, word: str) -> str:
    spots = [i for i, ch in enumerate(word) if ch in PT_ACCENTED]
    if not spots:
        return word
    i = rng.choice(spots)
    return word[:i] + rng.choice(PT_ACCENTED[word[i]]) + word[i + 1 :]


def _en_word(rng: random.Random) -> str:
    n = rng.choice((1, 1, 2, 2, 2, 3))
    body = "".join(
        rng.choice(EN_ONSETS) + rng.choice(EN_VOWELS) + rng.choice(EN_CODAS) for _ in range(n)
    )
    return body + rng.choice(EN_SUFFIXES)


def _pt_word(rng: random.Random) -> str:
    n = rng.choice((2, 2, 2, 3))
    body = "".join(
        rng.choice(PT_ONSETS) + rng.choice(PT_VOWELS) + rng.choice(PT_CODAS) for _ in range(n)
    )
    if rng.random() < 0.25:
        body = _accent_once(rng, body)
    return body + rng.choice(PT_SUFFIXES)


def _zipf_cw(n: int, exponent: float, offset: float) -> tuple[float, ...]:
    return tuple(accumulate(1.0 / (r + offset) ** exponent for r in range(1, n + 1)))


def vocabulary(rng: random.Random) -> Vocabulary:
    taken: set[str] = set()
    words: dict[str, tuple[str, ...]] = {}
    for lang, size, make in (("en", EN_VOCAB, _en_word), ("pt", PT_VOCAB, _pt_word)):
        out: list[str] = []
        while len(out) < size:
            w = make(rng)
            if len(w) >= 4 and fold(w) not in taken:
                taken.add(fold(w))
                out.append(w)
        words[lang] = tuple(out)
    return Vocabulary(
        words=words,
        key_cw={lang: _zipf_cw(len(ws), *KEY_ZIPF) for lang, ws in words.items()},
        body_cw={lang: _zipf_cw(len(ws), *BODY_ZIPF) for lang, ws in words.items()},
    )


@cache
def _combining() -> dict[int, None]:
    """Every combining code point, mapped to None: `str.translate` drops them at C speed (a
    per-character generator took minutes over a 100,000-note fleet in `questions`)."""
    return {c: None for c in range(sys.maxunicode + 1) if unicodedata.combining(chr(c))}


def fold(text: str) -> str:
    """Lowercase and drop accents (what the router's tokenizer does to these words)."""
    return unicodedata.normalize("NFKD", text.lower()).translate(_combining())


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", fold(text)).strip("-") or "note"


# -- notes ---------------------------------------------------------------------------


@dataclass
class NoteSpec:
    agent: str
    folder: str
    stem: str
    title: str
    lang: str  # the note's main language: "en" or "pt"
    keys: list[str]
    purpose: str
    front: bool = False
    links: list[str] = field(default_factory=list)

    @property
    def rel(self) -> str:
        return f"{self.folder}/{self.stem}.md" if self.folder else f"{self.stem}.md"


@dataclass(frozen=True)
class FleetSummary:
    root: Path
    notes: int  # the N asked for: agents' notes in FOLDERS (drafts and person notes come on top)
    agents: int
    seed: int
    bytes: int  # markdown bytes of all notes written, extras included (maps and records not)
    by_folder: dict[str, int]  # FOLDERS, then `drafts` and `person`
    sources: int = 0  # record files written
    citing: int = 0  # notes carrying at least one `[src:KEY]`
    dangling: tuple[str, ...] = ()  # "<base>/<rel>" of each note citing a key with no record


def default_agents(notes: int) -> int:
    return max(1, min(10, notes // 50))


def _split(total: int, weights: Sequence[float]) -> list[int]:
    """`total` split in proportion to `weights` (largest remainder, so it sums exactly)."""
    s = sum(weights)
    exact = [total * w / s for w in weights]
    out = [math.floor(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: out[i] - exact[i])
    for i in order[: total - sum(out)]:
        out[i] += 1
    return out


def _agent_names(count: int) -> list[str]:
    names = list(AGENT_NAMES[:count])
    i = 2
    while len(names) < count:
        names.extend(f"{n}{i}" for n in AGENT_NAMES[: count - len(names)])
        i += 1
    return names


def _phrase(rng: random.Random, vocab: Vocabulary, lang: str) -> str:
    parts = vocab.keys(rng, lang, rng.choice((2, 2, 2, 3)))
    if len(parts) == 2 and rng.random() < 0.3:
        joiner = rng.choice(("de", "do", "da")) if lang == "pt" else rng.choice(("of", "for"))
        return f"{parts[0]} {joiner} {parts[1]}"
    return " ".join(parts)


def _keys(rng: random.Random, vocab: Vocabulary, pt_share: float, count: int) -> list[str]:
    keys: list[str] = []
    seen: set[str] = set()
    while len(keys) < count:
        lang = "pt" if rng.random() < pt_share else "en"
        key = _phrase(rng, vocab, lang) if rng.random() < 0.3 else vocab.keys(rng, lang, 1)[0]
        if fold(key) not in seen:
            seen.add(fold(key))
            keys.append(key)
    return keys


def _title(rng: random.Random, keys: Sequence[str], lang: str) -> str:
    singles = [k for k in keys if " " not in k] or list(keys)
    picked = rng.sample(singles, min(len(singles), rng.choice((1, 2, 2, 3))))
    if lang == "pt":
        text = (" e " if len(picked) == 2 else ", ").join(picked)
        lead = rng.choice(("", "", "Como cuidar de ", "Guia de ", "Notas sobre "))
    else:
        text = (" and " if len(picked) == 2 else ", ").join(picked)
        lead = rng.choice(("", "", "Handling ", "A guide to ", "Notes on "))
    title = lead + text
    return title[0].upper() + title[1:]


def _purpose(rng: random.Random, agent: str, folder: str, keys: Sequence[str], lang: str) -> str:
    a, b = rng.sample(list(keys), 2) if len(keys) >= 2 else (keys[0], keys[0])
    name = agent.capitalize()
    if folder == "inbox":
        return "Raw deposit from a recent session, waiting to be distilled"
    if folder == "records":
        return f"Private record of what {name} agreed about {a}"
    if folder == "tools":
        return f"Declare the tool {name} uses for {a}, and where to look first"
    if folder == DRAFTS:
        return f"Draft of what {name} is still checking about {a}, private until it holds"
    if folder == "":
        return f"Tell the agents what the owner thinks about {a} and {b}"
    if lang == "pt":
        return f"Dizer como {name} cuida de {a} e {b}"
    return f"Say how {name} handles {a} and {b}"


def plan(notes: int, agents: int, vocab: Vocabulary, rng: random.Random) -> list[NoteSpec]:
    names = _agent_names(agents)
    sizes = _split(notes, [rng.uniform(0.5, 1.5) for _ in names])
    specs: list[NoteSpec] = []
    for agent, size in zip(names, sizes, strict=True):
        pt_share = rng.uniform(0.2, 0.8)
        stems: set[str] = set()
        mine: list[NoteSpec] = []
        for _ in range(size):
            folder = rng.choices(FOLDERS, weights=FOLDER_WEIGHTS)[0]
            lang = "pt" if rng.random() < pt_share else "en"
            keys = _keys(rng, vocab, pt_share, rng.randint(10, 40))
            title = _title(rng, keys, lang)
            purpose = _purpose(rng, agent, folder, keys, lang)
            if folder == "inbox":
                day = rng.randint(1, 28)
                month = rng.randint(1, 11)
                title = f"Session 2026-{month:02d}-{day:02d}: {title[0].lower()}{title[1:]}"
            stem = slug(title)[:60].strip("-")
            candidate, n = stem, 2
            while f"{folder}/{candidate}" in stems:
                candidate, n = f"{stem}-{n}", n + 1
            stems.add(f"{folder}/{candidate}")
            keyless = (folder == "inbox" and rng.random() < 0.3) or (
                folder == "knowledge" and rng.random() < 0.01
            )
            mine.append(
                NoteSpec(
                    agent=agent,
                    folder=folder,
                    stem=candidate,
                    title=title,
                    lang=lang,
                    keys=[] if keyless else keys,
                    purpose=purpose,
                    front=folder == "inbox",
                )
            )
        linkable = [s.stem for s in mine if s.folder in ("knowledge", "tools")]
        for s in mine:
            if linkable:
                s.links = rng.sample(linkable, min(len(linkable), rng.choice((0, 1, 1, 2, 3))))
        specs.extend(mine)
    return specs


class Writer:
    """Body text: sentences of filler and Zipf words, with the note's own keys mixed in."""

    def __init__(self, rng: random.Random, vocab: Vocabulary) -> None:
        self.rng = rng
        self.vocab = vocab

    def sentence(self, spec: NoteSpec) -> str:
        rng = self.rng
        n = rng.randint(7, 18)
        lang = spec.lang if rng.random() < 0.9 else ("en" if spec.lang == "pt" else "pt")
        filler = PT_FILLER if lang == "pt" else EN_FILLER
        content = self.vocab.body(rng, lang, n)
        words = [rng.choice(filler) if rng.random() < 0.35 else w for w in content]
        if spec.keys and rng.random() < 0.35:
            words[rng.randrange(n)] = rng.choice(spec.keys)
        text = " ".join(words)
        return text[0].upper() + text[1:] + "."

    def paragraph(self, spec: NoteSpec, links: list[str]) -> str:
        parts = [self.sentence(spec) for _ in range(self.rng.randint(2, 6))]
        if links and self.rng.random() < 0.5:
            link = links.pop()
            parts.append(
                f"Veja também [[{link}]]." if spec.lang == "pt" else f"See also [[{link}]]."
            )
        return _wrap(" ".join(parts))

    def bullets(self, spec: NoteSpec) -> str:
        lines = []
        for _ in range(self.rng.randint(3, 6)):
            head = self.vocab.body(self.rng, spec.lang, 1)[0]
            lines.append(f"- **{head}**: {self.sentence(spec)}")
        return "\n".join(lines)

    def heading(self, spec: NoteSpec) -> str:
        words = self.vocab.body(self.rng, spec.lang, self.rng.randint(1, 3))
        text = " ".join(words)
        return "## " + text[0].upper() + text[1:]

    def note(self, spec: NoteSpec) -> str:
        rng = self.rng
        size = math.exp(rng.gauss(0.0, 0.4))  # log-normal around 1
        out: list[str] = []
        if spec.front:
            out.append("---\nprovenance: agent\nstage: raw\n---")
        out.append(f"# {spec.title}")
        if spec.keys:
            out.append("**Search for:** " + ", ".join(f"`{k}`" for k in spec.keys))
        out.append(f"**Exists to:** {spec.purpose}")
        links = list(spec.links)
        if spec.folder == "inbox":
            out.append(self.bullets(spec))
            out.append(self.paragraph(spec, links))
            return "\n\n".join(out) + "\n"
        for _ in range(max(1, round(2 * size))):
            out.append(self.paragraph(spec, links))
        for _ in range(max(1, round(3 * size))):
            out.append(self.heading(spec))
            if rng.random() < 0.25:
                out.append(self.bullets(spec))
            for _ in range(rng.choice((1, 2, 2))):
                out.append(self.paragraph(spec, links))
        for link in links:
            out.append(f"Related: [[{link}]]")
        return "\n\n".join(out) + "\n"


def _wrap(text: str, width: int = 88) -> str:
    lines: list[str] = []
    line: list[str] = []
    length = 0
    for word in text.split(" "):
        if line and length + 1 + len(word) > width:
            lines.append(" ".join(line))
            line, length = [], 0
        length += len(word) + (1 if line else 0)
        line.append(word)
    if line:
        lines.append(" ".join(line))
    return "\n".join(lines)


def _agent_txt(agent: str, rng: random.Random, vocab: Vocabulary) -> str:
    topics = ", ".join(vocab.keys(rng, "en", 4))
    return (
        "# Read by the orchestrator to name and route this agent.\n"
        f"name = {agent.capitalize()}\n"
        f"role = Keeps the fleet's notes on {topics}\n"
        f"ends = {agent.capitalize()} stops where the question leaves these subjects.\n"
    )


def _map(agent: str, specs: Sequence[NoteSpec]) -> str:
    lines = [
        f"# {agent.capitalize()}, map of the base",
        "",
        f"Where {agent.capitalize()} keeps what it knows.",
        "",
    ]
    lines += [f"- [{s.title}]({s.rel})" for s in specs if s.folder != "records"]
    lines += ["", "The `records/` folder is private and is not listed here."]
    return "\n".join(lines) + "\n"


# -- sources, citations, private layers and the person base (version 2) --------------------
#
# Everything below draws from its own generator (`extras`), never from the one that writes
# the N notes, so a note that cites nothing has exactly the bytes version 1 gave it.

CITABLE = ("knowledge", "tools", "records", DRAFTS)  # inbox deposits cite nothing
RECORDS_PER_CITABLE = 0.12  # records per citable note of a base
CITING_SHARE = 0.2  # citable notes that cite at least one record
FRONT_MATTER_SHARE = 0.75  # citing knowledge notes that open with front matter
SUPERSEDE_SHARE = 0.04  # records that correct an earlier one (`replaces =`)
DRAFT_SHARE = 0.03  # extra private notes in `drafts/`, per note of an agent that declares it
TYPE_WEIGHTS = {
    "book": 20, "chapter": 10, "article": 35, "report": 10, "webpage": 20, "recording": 5,
}  # fmt: skip
STATUS_WEIGHTS = {"full": 50, "partial": 25, "metadata": 15, "unreachable": 10}


def _private_line(index: int) -> str | None:
    """The explicit `private =` line of the agent at `index`, for every agent but one in three.

    `records` alone restates the default in the manifest's own words (it replaces the
    default list, so `profile/` and `projects/` stop being private); `records/, drafts/`
    adds a folder that exists only in those bases.
    """
    if index % 3 == 1:
        return "private = records"
    if index % 3 == 2:
        return f"private = records/, {DRAFTS}/"
    return None


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def _word(rng: random.Random, vocab: Vocabulary, lang: str) -> str:
    return vocab.body(rng, lang, 1)[0]


def _new_key(rng: random.Random, taken: set[str]) -> str:
    """A key drawn the way `kb source add` draws one (kb's own `mint_key`), unique in the fleet."""
    while True:
        key = mint_key(rng.randbytes(16))
        if key is not None and key not in taken:
            taken.add(key)
            return key


def _record(
    key: str, rng: random.Random, vocab: Vocabulary, lang: str, replaces: str | None
) -> Record:
    """A plausible record of any type; only fields `kb source add` accepts, all on one line."""
    kind = rng.choices(tuple(TYPE_WEIGHTS), weights=tuple(TYPE_WEIGHTS.values()))[0]
    title = _cap(" ".join(vocab.body(rng, lang, rng.randint(2, 6))))
    n_authors = rng.choice((0, 1, 1, 2) if kind == "webpage" else (1, 1, 1, 2, 2, 3))
    authors = tuple(
        f"{_cap(_word(rng, vocab, lang))}, {_cap(_word(rng, vocab, lang))[0]}."
        for _ in range(n_authors)
    )
    pt = lang == "pt"
    container = volume = pages = publisher = url = doi = isbn = None
    if kind == "article":
        name = _cap(_word(rng, vocab, lang))
        container = f"Revista de {name}" if pt else f"Journal of {name}"
        volume = str(rng.randint(1, 80)) if rng.random() < 0.8 else None
        doi = f"10.{rng.randint(1000, 9999)}/{slug(title)[:24].strip('-')}.{rng.randint(1, 999)}"
        doi = doi if rng.random() < 0.6 else None
    elif kind == "chapter":
        name = _cap(_word(rng, vocab, lang))
        container = f"Manual de {name}" if pt else f"Handbook of {name}"
    elif kind == "webpage" and rng.random() < 0.5:
        container = f"{_cap(_word(rng, vocab, lang))} Docs"
    if kind in ("article", "chapter") and rng.random() < 0.9:
        first = rng.randint(1, 400)
        pages = f"{first}-{first + rng.randint(3, 40)}"
    if kind in ("book", "chapter", "report") or (kind == "recording" and rng.random() < 0.5):
        name = _cap(_word(rng, vocab, lang))
        if kind == "report":
            publisher = f"Instituto {name}" if pt else f"{name} Institute"
        else:
            publisher = f"Editora {name}" if pt else f"{name} Press"
    if kind == "book" and rng.random() < 0.7:
        isbn = "978" + "".join(str(rng.randrange(10)) for _ in range(10))
    if kind == "webpage" or rng.random() < 0.4:
        url = f"https://{slug(_word(rng, vocab, lang))}.org/{slug(title)[:40].strip('-')}"
    year = str(rng.randint(1950, 2026)) if rng.random() < 0.92 else "n.d."
    status = rng.choices(tuple(STATUS_WEIGHTS), weights=tuple(STATUS_WEIGHTS.values()))[0]
    note = f"Read for the notes on {_word(rng, vocab, lang)}" if rng.random() < 0.1 else None
    return Record(
        key=key,
        type=kind,
        title=title,
        authors=authors,
        year=year,
        container=container,
        volume=volume,
        pages=pages,
        publisher=publisher,
        url=url,
        doi=doi,
        isbn=isbn,
        lang=lang,
        retrieved_on=f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}",
        retrieval_status=status,
        replaces=replaces,
        note=note,
    )


@dataclass
class Citations:
    """One base's records and who cites what."""

    records: dict[str, Record] = field(default_factory=dict)  # by key, in minting order
    by_note: dict[str, list[str]] = field(default_factory=dict)  # rel -> keys, citation order
    front: dict[str, dict[str, str]] = field(default_factory=dict)  # rel -> front matter
    dangling: tuple[str, str] | None = None  # (rel, key with no record) for the intended E05


def _plan_citations(
    specs: Sequence[NoteSpec],
    rng: random.Random,
    vocab: Vocabulary,
    taken: set[str],
    dangle: bool,
) -> Citations:
    """Records for a base and their citations: every record cited at least once.

    Records are dealt round-robin to a shuffled fifth of the citable notes (private ones
    included, so some records are cited only from `records/` or `drafts/`), then each citing
    note may cite one or two more. A corrected record (`replaces`) keeps its citations, so
    `kb check` warns W09 there; that is the point of superseding instead of editing.
    """
    out = Citations()
    citable = [s for s in specs if s.folder in CITABLE]
    if not citable:
        return out
    replaced: set[str] = set()
    for _ in range(max(1, round(RECORDS_PER_CITABLE * len(citable)))):
        replaces = None
        if out.records and rng.random() < SUPERSEDE_SHARE:
            old = rng.choice(list(out.records))
            if old not in replaced:
                replaced.add(old)
                replaces = old
        lang = "pt" if rng.random() < 0.5 else "en"
        key = _new_key(rng, taken)
        out.records[key] = _record(key, rng, vocab, lang, replaces)
    keys = list(out.records)
    pool = list(citable)
    rng.shuffle(pool)
    citing = pool[: max(1, round(CITING_SHARE * len(pool)))]
    out.by_note = {s.rel: [] for s in citing}
    for i, key in enumerate(keys):
        out.by_note[citing[i % len(citing)].rel].append(key)
    for s in citing:
        cited = out.by_note[s.rel]
        if not cited:
            cited.append(rng.choice(keys))
        for key in rng.sample(keys, min(len(keys), rng.choice((0, 0, 0, 1, 1, 2)))):
            if key not in cited:
                cited.append(key)
        if s.folder == "knowledge" and rng.random() < FRONT_MATTER_SHARE:
            out.front[s.rel] = {
                "provenance": rng.choice(("external", "external", "human", "agent")),
                "stage": rng.choice(("distilled", "distilled", "captured", "derived")),
                "evidence_tier": rng.choice("ABC"),
                "valid_for": rng.choice(("2026", "2026-2027", "until revised")),
            }
    if dangle:
        public = [s for s in citing if s.folder in ("knowledge", "tools")]
        if public:
            out.dangling = (public[0].rel, _new_key(rng, taken))
    return out


def _prose_line(line: str) -> bool:
    """A body line a citation can close: a sentence end, not a heading, list, link or label."""
    return (
        line.endswith(".")
        and not line.startswith(("#", "**", "---", "- ", "Related:"))
        and "[[" not in line
    )


def _cite(text: str, spec: NoteSpec, cites: Citations, rng: random.Random) -> str:
    """`text` with its citations put into prose, its bibliography and, maybe, front matter."""
    keys = cites.by_note.get(spec.rel, [])
    missing = cites.dangling[1] if cites.dangling and cites.dangling[0] == spec.rel else None
    if not keys and missing is None:
        return text
    lines = text.split("\n")
    prose = [i for i, line in enumerate(lines) if _prose_line(line)]
    for key in [*keys, *([missing] if missing else [])]:
        if prose:
            i = rng.choice(prose)
            lines[i] = f"{lines[i][:-1]} [src:{key}]."
        else:  # not reached by notes Writer writes; kept so any note can carry a citation
            lines.append(f"See [src:{key}].")
    text = "\n".join(lines)
    front = cites.front.get(spec.rel)
    if front:
        text = "---\n" + "".join(f"{k}: {v}\n" for k, v in front.items()) + "---\n\n" + text
    if keys:
        heading = "## Fontes" if spec.lang == "pt" else "## Sources"
        bib = [f"- [src:{k}] {bibliography_line(cites.records[k])}" for k in keys]
        text = text.rstrip("\n") + f"\n\n{heading}\n\n" + "\n".join(bib) + "\n"
    return text


def _extra_specs(
    agent: str, folder: str, count: int, rng: random.Random, vocab: Vocabulary
) -> list[NoteSpec]:
    """`count` more notes for `agent` in `folder` ("" = the base's top level)."""
    specs: list[NoteSpec] = []
    stems: set[str] = set()
    for _ in range(count):
        lang = "pt" if rng.random() < 0.5 else "en"
        keys = _keys(rng, vocab, 0.5, rng.randint(10, 40))
        title = _title(rng, keys, lang)
        stem = candidate = slug(title)[:60].strip("-")
        n = 2
        while candidate in stems or candidate in ("core", "work", "map"):
            candidate, n = f"{stem}-{n}", n + 1
        stems.add(candidate)
        purpose = _purpose(rng, agent, folder, keys, lang)
        specs.append(NoteSpec(agent, folder, candidate, title, lang, keys, purpose))
    return specs


def _person(notes: int, rng: random.Random, vocab: Vocabulary) -> list[NoteSpec]:
    """The owner's base: `core.md`, `work.md` and a few more, as examples/fleet/person has."""
    given, family = _cap(_word(rng, vocab, "en")), _cap(_word(rng, vocab, "pt"))
    more = _extra_specs(PERSON, "", min(40, max(2, notes // 250)), rng, vocab)
    core_keys = _keys(rng, vocab, 0.5, rng.randint(12, 20))
    work_keys = _keys(rng, vocab, 0.5, rng.randint(12, 20))
    return [
        NoteSpec(
            PERSON, "", "core", f"Who I am: {given} {family}", "en",
            [given.lower(), family.lower(), "owner profile", "perfil pessoal", *core_keys],
            "Tell the agents who they work for, in the owner's own words",
        ),
        NoteSpec(
            PERSON, "", "work", f"Work: {work_keys[0]}", "en", ["work", "trabalho", *work_keys],
            "Describe the owner's work so agents know what is business and what is home",
        ),
        *more,
    ]  # fmt: skip


def _person_map(specs: Sequence[NoteSpec]) -> str:
    lines = [
        "# Person, map of the base",
        "",
        "The owner's own notes. The whole base is private because its folder is named",
        "`person`; nothing here is served without `--all`.",
        "",
        *(f"- [{s.title}]({s.rel})" for s in specs),
    ]
    return "\n".join(lines) + "\n"


def generate(out: Path, notes: int, agents: int | None = None, seed: int = 0) -> FleetSummary:
    """Write a fleet of `notes` notes under `out`; the same arguments write the same bytes."""
    agents = agents or default_agents(notes)
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    specs = plan(notes, agents, vocab, rng)
    writer = Writer(rng, vocab)
    extras = random.Random(f"kb-generate-extras-{seed}")  # a str seed is stable across runs
    side = Writer(extras, vocab)
    out.mkdir(parents=True, exist_ok=True)
    (out / "fleet.txt").write_text(
        "# Manifest of a generated benchmark fleet.\n"
        f"name = Synthetic {notes}\n"
        f"role = A generated fleet of {notes} notes across {agents} agents (seed {seed})\n",
        encoding="utf-8",
    )
    total = n_sources = n_citing = 0
    by_folder: dict[str, int] = dict.fromkeys((*FOLDERS, DRAFTS, PERSON), 0)
    dangling: list[str] = []
    taken: set[str] = set()
    by_agent: dict[str, list[NoteSpec]] = {}
    for s in specs:
        by_agent.setdefault(s.agent, []).append(s)

    def write(base: Path, spec: NoteSpec, text: str) -> None:
        nonlocal total
        data = text.encode("utf-8")
        (base / spec.rel).parent.mkdir(parents=True, exist_ok=True)
        (base / spec.rel).write_bytes(data)
        total += len(data)

    for index, (agent, mine) in enumerate(by_agent.items()):
        base = out / "fleet" / agent
        for folder in FOLDERS:
            (base / folder).mkdir(parents=True, exist_ok=True)
        agent_txt = _agent_txt(agent, rng, vocab)  # the main generator, in version 1's order
        declared = _private_line(index)
        if declared is not None:
            agent_txt += declared + "\n"
        (base / "agent.txt").write_text(agent_txt, encoding="utf-8")
        (base / "MAP.md").write_text(_map(agent, mine), encoding="utf-8")
        drafts: list[NoteSpec] = []
        if declared is not None and DRAFTS in declared:
            count = max(1, round(DRAFT_SHARE * len(mine)))
            drafts = _extra_specs(agent, DRAFTS, count, extras, vocab)
        cites = _plan_citations([*mine, *drafts], extras, vocab, taken, dangle=index == 0)
        for s in mine:
            write(base, s, _cite(writer.note(s), s, cites, extras))
            by_folder[s.folder] += 1
        for s in drafts:
            write(base, s, _cite(side.note(s), s, cites, extras))
            by_folder[DRAFTS] += 1
        if cites.records:
            (base / "sources").mkdir(exist_ok=True)
        for key, record in cites.records.items():
            (base / "sources" / f"{key}.txt").write_bytes(render_record(record).encode("utf-8"))
        n_sources += len(cites.records)
        n_citing += sum(1 for keys in cites.by_note.values() if keys)
        if cites.dangling is not None:
            dangling.append(f"{agent}/{cites.dangling[0]}")

    person = out / "fleet" / PERSON
    person_specs = _person(notes, extras, vocab)
    person.mkdir(parents=True, exist_ok=True)
    (person / "MAP.md").write_text(_person_map(person_specs), encoding="utf-8")
    for s in person_specs:
        write(person, s, side.note(s))
        by_folder[PERSON] += 1
    return FleetSummary(
        out, notes, agents, seed, total, by_folder, n_sources, n_citing, tuple(dangling)
    )


# -- questions -----------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    text: str
    answerable: bool
    source: str | None  # "<base>/<rel>" of the note whose keys built it


_WORD = re.compile(r"[^\W_]+")
SEARCH_LABELS = ("search for", "buscar por")
ANSWER_TEMPLATES = (
    "how do I {a}?",
    "what about {a} and {b}?",
    "{a} {b}",
    "where is {a} for {b}?",
    "como {a} com {b}?",
    "o que é {a}?",
    "{a}",
)
REFUSAL_TEMPLATES = (
    "how do I {a}?",
    "what about {a} and {b}?",
    "{a} {b}",
    "como {a} com {b}?",
    "o que é {a}?",
)


def _keys_of(text: str) -> list[str]:
    """The note's `Search for:` keys, read the way the router reads them (above the first ##)."""
    for raw in text.split("\n"):
        line = raw.strip()
        if line.startswith("##"):
            break
        head, colon, tail = line.partition(":")
        if colon and head.strip().strip("*_ ").lower() in SEARCH_LABELS:
            pieces = tail.lstrip("*").replace(";", ",").split(",")
            return [k for k in (p.strip().lstrip("-*+ ").strip('`"*. ') for p in pieces) if k]
    return []


def _private_folders(base: Path) -> tuple[bool, tuple[str, ...]]:
    """(whole base private, private top folders), as `kb` decides them by default."""
    try:
        agent_txt = (base / "agent.txt").read_text(encoding="utf-8")
    except OSError:
        agent_txt = None
    if agent_txt is not None:
        for line in agent_txt.splitlines():
            key, eq, value = line.partition("=")
            if eq and key.strip() == "private":
                if value.strip() == ".":
                    return True, ()
                return False, tuple(p.strip().rstrip("/") for p in value.split(",") if p.strip())
    if base.name.lower() == "person":
        return True, ()
    return False, ("profile", "projects", "records")


def _bases(root: Path) -> list[Path]:
    parent = root / "fleet" if (root / "fleet").is_dir() else root
    return sorted(p for p in parent.iterdir() if p.is_dir() and not p.name.startswith("."))


def _markdown(base: Path) -> Iterator[Path]:
    for path in sorted(base.rglob("*.md")):
        if not any(part.startswith(".") for part in path.relative_to(base).parts):
            yield path


def _absent_word(rng: random.Random) -> str:
    return "".join(
        rng.choice(ABSENT_ONSETS) + rng.choice(ABSENT_VOWELS) for _ in range(rng.randint(3, 4))
    )


def questions(root: Path, count: int, seed: int = 0) -> list[Question]:
    """`count` questions for the fleet at `root`: even positions answerable, odd ones not.

    An answerable question joins one to three real keys of one public note (drawn at
    random) with stopwords only; a refusal joins one or two words that occur nowhere in the
    fleet's markdown. The public/private split mirrors `kb`'s defaults (`records/`,
    `profile/`, `projects/`, a base named `person`, or an agent.txt `private =` line).
    """
    rng = random.Random(seed)
    keyed: list[tuple[str, list[str]]] = []
    seen_words: set[str] = set()
    for base in _bases(root):
        whole, private = _private_folders(base)
        for path in _markdown(base):
            text = path.read_text(encoding="utf-8", errors="replace")
            seen_words.update(_WORD.findall(fold(text)))
            rel = path.relative_to(base).as_posix()
            if whole or any(rel == f or rel.startswith(f + "/") for f in private):
                continue
            if path.name.lower() in ("map.md", "index.md", "mapa.md", "readme.md"):
                continue
            keys = _keys_of(text)
            if keys:
                keyed.append((f"{base.name}/{rel}", keys))
    if not keyed:
        raise ValueError(f"no public note with a Search for: line under {root}")
    out: list[Question] = []
    for i in range(count):
        if i % 2 == 0:
            source, keys = rng.choice(keyed)
            picked = rng.sample(keys, min(len(keys), rng.choice((1, 2, 2, 3))))
            if len(picked) == 1:
                template = rng.choice([t for t in ANSWER_TEMPLATES if "{b}" not in t])
                a = b = picked[0]
            else:
                template = rng.choice(ANSWER_TEMPLATES)
                a, b = picked[0], " ".join(picked[1:])
                if "{b}" not in template:
                    a = " ".join(picked)
            out.append(Question(template.format(a=a, b=b), True, source))
        else:
            words: list[str] = []
            while len(words) < 2:
                w = _absent_word(rng)
                if w not in seen_words:
                    words.append(w)
            template = rng.choice(REFUSAL_TEMPLATES)
            out.append(Question(template.format(a=words[0], b=words[1]), False, None))
    return out


# -- script ----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="directory to write fleet.txt and fleet/ into")
    parser.add_argument("--notes", type=int, required=True, help="number of notes")
    parser.add_argument("--agents", type=int, default=None, help="number of agents (bases)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--questions", type=int, default=0, help="also print this many questions, TAB-separated"
    )
    args = parser.parse_args(argv)
    if args.notes < 1:
        parser.error("--notes must be at least 1")
    if (args.out / "fleet").exists():
        parser.error(f"{args.out}/fleet already exists; choose an empty directory")
    summary = generate(args.out, args.notes, args.agents, args.seed)
    folders = ", ".join(f"{n} {f}" for f, n in summary.by_folder.items())
    written = sum(summary.by_folder.values())
    print(
        f"wrote {summary.notes} notes, {written} with the private extras ({summary.bytes / 1e6:.1f}"
        f" MB, {summary.bytes / written / 1e3:.1f} KB each) across {summary.agents} agents "
        f"and a person base to {summary.root}: {folders}; {summary.sources} source records, "
        f"cited by {summary.citing} notes",
        file=sys.stderr,
    )
    for q in questions(args.out, args.questions, args.seed):
        print(f"{q.text}\t{q.source or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
