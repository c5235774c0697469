"""A deterministic synthetic fleet for the benchmarks (stdlib only).

    python benchmarks/generate.py OUT_DIR --notes N [--agents A] [--seed S]

writes `OUT_DIR/fleet.txt` and `OUT_DIR/fleet/<agent>/` with `agent.txt`, `MAP.md` and notes
under `knowledge/`, `tools/`, `inbox/` (raw deposits, some keyless) and `records/` (private by
default). Notes follow the fleet's format: `# Title`, a `**Search for:**` line of 10-40 keys
in English and Portuguese (about a third of them multi-word phrases), an `**Exists to:**`
line, body paragraphs and `##` sections with a few `[[wikilinks]]`. A note averages about
4 KB, so 10,000 notes are about 40 MB.

The words are invented: two vocabularies of pseudo-words (English-like and Portuguese-like,
the latter with accents such as `ção`) drawn with Zipf-like frequencies, so a few words are
in many notes and most in a few. Invented words use no `k q w x y z j`; refusal questions
are built from words whose every syllable starts with one of those letters, and each is checked
against every word on disk, so they are absent by construction and by test.

Same arguments, same bytes: everything is drawn from one seeded `random.Random`.
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
from itertools import accumulate
from pathlib import Path

GENERATOR_VERSION = 1  # bump when the output of a given (notes, agents, seed) changes

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


def fold(text: str) -> str:
    """Lowercase and drop accents (what the router's tokenizer does to these words)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


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
        return f"{self.folder}/{self.stem}.md"


@dataclass(frozen=True)
class FleetSummary:
    root: Path
    notes: int
    agents: int
    seed: int
    bytes: int
    by_folder: dict[str, int]


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


def generate(out: Path, notes: int, agents: int | None = None, seed: int = 0) -> FleetSummary:
    """Write a fleet of `notes` notes under `out`; the same arguments write the same bytes."""
    agents = agents or default_agents(notes)
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    specs = plan(notes, agents, vocab, rng)
    writer = Writer(rng, vocab)
    out.mkdir(parents=True, exist_ok=True)
    (out / "fleet.txt").write_text(
        "# Manifest of a generated benchmark fleet.\n"
        f"name = Synthetic {notes}\n"
        f"role = A generated fleet of {notes} notes across {agents} agents (seed {seed})\n",
        encoding="utf-8",
    )
    total = 0
    by_folder: dict[str, int] = dict.fromkeys(FOLDERS, 0)
    by_agent: dict[str, list[NoteSpec]] = {}
    for s in specs:
        by_agent.setdefault(s.agent, []).append(s)
    for agent, mine in by_agent.items():
        base = out / "fleet" / agent
        for folder in FOLDERS:
            (base / folder).mkdir(parents=True, exist_ok=True)
        (base / "agent.txt").write_text(_agent_txt(agent, rng, vocab), encoding="utf-8")
        (base / "MAP.md").write_text(_map(agent, mine), encoding="utf-8")
        for s in mine:
            data = writer.note(s).encode("utf-8")
            (base / s.rel).write_bytes(data)
            total += len(data)
            by_folder[s.folder] += 1
    return FleetSummary(out, notes, agents, seed, total, by_folder)


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
    print(
        f"wrote {summary.notes} notes ({summary.bytes / 1e6:.1f} MB, "
        f"{summary.bytes / summary.notes / 1e3:.1f} KB each) across {summary.agents} agents "
        f"to {summary.root}: {folders}",
        file=sys.stderr,
    )
    for q in questions(args.out, args.questions, args.seed):
        print(f"{q.text}\t{q.source or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
