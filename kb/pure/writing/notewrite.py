"""`kb write`: deciding whether a note may be written, what it says, and where the map
lists it. The caller does the disk work; every decision is here.

Rules of this module:
- Validation runs in one fixed order and the first failure wins: slug, keys, keys made only
  of stopwords, body, provenance, stage, folder, dead keys, dashes in the rendered note.
  Only then does the caller look at the disk (agent root, MAP.md, an existing note).
- Keys that are every one made only of stopwords or punctuation (`the, how`) are a usage
  error (exit 2): no search reads a word of them, so the note could never be reached.
- A dead key (several written words that reduce to one or none after stopwords, or a single
  stopword among live keys) is dropped and reported; the note is refused only when every key
  is dead. Dead keys and dashes are refusals (a judgement on the note), not outages; verbs
  that write notes for a model rely on the difference.
- An em or en dash is the fleet's house style to refuse, not kb's: only a fleet whose
  fleet.txt says `style = no-dashes` refuses the note; any other fleet gets it written and
  the dash's lines back as a warning (`Note.dashes`), which `kb check` reports as W03.
- The legal provenance and stage values are the ones `kb check` holds front matter to
  (E04): `kb.pure.fleet.listing.PROVENANCES` and `STAGES`, compared exactly.
- The folder is one of the memory folders `kb init` creates, or a folder below one
  (`knowledge/systems`), which the map lists under its own `### knowledge/systems/`
  section. Each part below the top folder is a plain name: not empty, not `.` or `..`, not
  hidden, no backslash and no control character, so no folder can leave the base.
- The keys are written once, on the note's own `Search for:` line. The map entry carries
  the link and the summary only.
- Every note gets a title, its first `# ` heading (what `kb list`, JSON, MCP and the library
  show). `--title` gives it: written as `# <title>` right after the front matter, above the
  `Search for:` line (a body that opens with that same heading does not repeat it). Without
  `--title`, a body whose first line is a `# ` heading already titles the note, which is
  then written exactly as given. Otherwise the title is derived from the body's first line
  of words (code fences, tables, rules and HTML skipped; heading marks, bullets, quote marks,
  emphasis and link targets dropped), cut at its first sentence end after its first word
  and, past `TITLE_MAX` characters, at a word boundary with `...`; a body with no such line
  gets none.
- A line break inside the summary, a key or captured_from is folded to a space: each of
  them lands on one line of the note, and a summary that broke its line would break the
  map's structure too (a second line starting `### ` would be a new section).
- The map insertion only ever adds: the entry line, plus the section heading and its
  blank lines when the section is new. No existing line is changed, moved or sorted. A
  section runs to the next heading of level 1 to 3 (the original stopped only at `### `).
- No line is written with trailing whitespace: an empty summary gives `**Exists to:**` and
  an entry `- **[[slug]]**`, not the same with a dangling space an editor would strip.
- Every value echoed in a message goes through `printable`, so a refusal stays one line.
- A note already on disk is never written over. One exception finishes a write instead of
  refusing it: the note there is byte for byte the one this write would create and the map
  does not link it yet. That is an earlier write of this very note killed between its two
  steps (the note is linked into place first, the map replaced second), and writing the
  map alone completes it without changing a byte of the note.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from attrs import frozen
from returns.result import Failure, Result, Success

from kb.pure.answering.entries import dead_keys
from kb.pure.fleet.listing import PROVENANCES, STAGES
from kb.pure.notes.names import is_plain_component, is_usable_name, printable
from kb.pure.notes.plural import counted
from kb.pure.notes.tokens import normalise
from kb.pure.writing.skeleton import MEMORY_FOLDERS
from kb.pure.writing.style import NO_DASHES, STYLE_KEY, dash_findings

DEFAULT_FOLDER = "knowledge"
DEFAULT_PROVENANCE = "agent"
DEFAULT_STAGE = "derived"


@frozen
class NoteRequest:
    """What the caller asked for, as given (keys still the raw `--keys` text)."""

    slug: str
    keys: str | None
    summary: str | None
    body: str
    folder: str = DEFAULT_FOLDER
    provenance: str = DEFAULT_PROVENANCE
    stage: str = DEFAULT_STAGE
    captured_from: str | None = None
    no_dashes: bool = False  # the fleet's `style = no-dashes`: a dash refuses the note
    title: str | None = None  # `--title`; None or blank: the body's own, or derived from it


@frozen
class Refused:
    """Why nothing was written. `judgement` is True for the refusals that are a verdict on
    the note itself (every key dead, a dash), False for bad input and outages. `code` is the
    exit status `kb write` gives it."""

    message: str
    judgement: bool = False
    code: int = 1


@frozen
class Note:
    """A note that passed every check the disk is not needed for."""

    slug: str
    folder: str
    text: str
    entry: str
    keys: tuple[str, ...]
    dropped: tuple[str, ...]
    dashes: tuple[int, ...] = ()  # lines carrying a dash, written anyway (a warning)
    title: str = ""  # the note's title, however it came
    derived: bool = False  # the title was derived from the body's first line


@frozen
class Placed:
    text: str
    section_created: bool


def one_line(text: str) -> str:
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def parse_keys(raw: str | None) -> tuple[str, ...]:
    """`--keys a, b`: split on commas, trim, strip surrounding backticks, drop empties."""
    if raw is None:
        return ()
    out: list[str] = []
    for piece in one_line(raw).split(","):
        key = piece.strip().strip("`").strip()
        if key:
            out.append(key)
    return tuple(out)


def render_note(
    keys: Sequence[str],
    summary: str,
    body: str,
    provenance: str,
    stage: str,
    captured: str,
    title: str = "",
) -> str:
    """The note's text; `title`, when given, as its `# ` line above the header."""
    front = ["---", f"provenance: {provenance}", f"stage: {stage}"]
    if captured:
        front.append(f"captured_from: {captured}")
    front.append("---")
    heading = [f"# {title}", ""] if title else []
    search = "**Search for:** " + ", ".join(f"`{k}`" for k in keys)
    purpose = f"**Exists to:** {summary.strip().rstrip('.')}".rstrip()
    return "\n".join([*front, "", *heading, search, "", purpose, "", body.strip()]) + "\n"


# -- the title -------------------------------------------------------------------------------

TITLE_MAX = 60  # characters of a derived title: about what a listing's title column shows
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_LINK = re.compile(r"!?\[\[([^\]|]*)(?:\|([^\]]*))?\]\]|!?\[([^\]]*)\]\([^)]*\)")
_MARKS = re.compile(r"^(?:#{1,6}\s+|>\s*|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)+")


def clean_title(title: str | None) -> str:
    """`--title` as written into the note: one line, trimmed, without `#` marks of its own."""
    return one_line(title or "").strip().lstrip("#").strip()


def body_heading(body: str) -> str | None:
    """The text of the `# ` heading the body opens with, if its first non-blank line is one."""
    first = next((line.strip() for line in body.splitlines() if line.strip()), "")
    return first[2:].strip() if first.startswith("# ") and first[2:].strip() else None


def derived_title(body: str) -> str:
    """A title from the body's first line of words (module rules); empty when it has none."""
    fence: str | None = None
    for raw in body.splitlines():
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            fence = None if fence == line[:3] else (fence or line[:3])
            continue
        if fence is not None or not line or line.startswith(("|", "<")):
            continue
        if set(line) <= set("-*_= "):  # a rule, or a setext underline
            continue
        text = _LINK.sub(lambda m: m.group(2) or m.group(1) or m.group(3) or "", line)
        text = _MARKS.sub("", text).replace("**", "").replace("__", "").replace("`", "")
        text = " ".join(text.strip(" *_#").split())
        if not normalise(text):
            continue
        return _cut(text)
    return ""


def _cut(text: str) -> str:
    # the first sentence end past the first word (`e.g. this` is not a sentence of its own)
    end = next((m for m in _SENTENCE_END.finditer(text) if " " in text[: m.start()]), None)
    if end is not None:
        text = text[: end.end() if text[end.start()] in "!?" else end.start()]
    if len(text) <= TITLE_MAX:
        return text.rstrip(" ,;:")
    room = text[: TITLE_MAX + 1]
    cut = room.rsplit(" ", 1)[0] if " " in room else text[:TITLE_MAX]
    return cut.rstrip(" ,;:.") + "..."


def title_for(given: str | None, body: str) -> tuple[str, str, bool]:
    """(the title to write above the header, the body to write, whether it was derived):
    `--title` first, then the body's own opening `# ` heading (nothing written above the
    header: the note is the body as given), then a title derived from the body."""
    title = clean_title(given)
    opening = body_heading(body)
    if title:
        if opening == title:  # the body opens with this very title: written once
            body = body.strip().split("\n", 1)[1] if "\n" in body.strip() else ""
        return title, body, False
    if opening is not None:
        return "", body, False
    derived = derived_title(body)
    return derived, body, bool(derived)


def map_entry(slug: str, summary: str) -> str:
    return f"- **[[{slug}]]** {summary.strip()}".rstrip()


def legal_folder(folder: str) -> str | None:
    """The folder with trailing `/` trimmed when it is one of the memory folders or a plain
    folder below one (`knowledge/systems`); None for anything else."""
    parts = folder.rstrip("/").split("/")
    if parts[0] not in MEMORY_FOLDERS or not all(_plain_part(p) for p in parts[1:]):
        return None
    return "/".join(parts)


def _plain_part(part: str) -> bool:
    # Hidden folders are refused too: the walk skips them, so a note there is never read.
    return (
        is_plain_component(part)
        and not part.startswith(".")
        and part.strip() == part
        and printable(part) == part
    )


def stopword_keys(keys: Sequence[str]) -> list[str]:
    """Keys with no word any search reads: only stopwords, single letters or punctuation."""
    return [k for k in keys if not normalise(k)]


def prepare(req: NoteRequest) -> Result[Note, Refused]:
    if not is_usable_name(req.slug):
        return Failure(Refused(bad_slug(req.slug)))
    keys = parse_keys(req.keys)
    if not keys:
        return Failure(Refused(NO_KEYS))
    empty = stopword_keys(keys)
    if len(empty) == len(keys):
        return Failure(Refused(only_stopwords(keys), judgement=True, code=2))
    if not req.body.strip():
        return Failure(Refused(EMPTY_BODY))
    if req.provenance not in PROVENANCES:
        return Failure(Refused(illegal("provenance", req.provenance, PROVENANCES)))
    if req.stage not in STAGES:
        return Failure(Refused(illegal("stage", req.stage, STAGES)))
    folder = legal_folder(req.folder)
    if folder is None:
        return Failure(Refused(bad_folder(req.folder)))
    dead = dead_keys(keys)
    dead += [k for k in empty if k not in dead]
    if len(dead) == len(keys):
        return Failure(Refused(all_dead(keys), judgement=True))
    live = tuple(k for k in keys if k not in dead)
    summary = one_line(req.summary or "")
    captured = one_line(req.captured_from or "").strip()
    title, body, derived = title_for(req.title, req.body)
    text = render_note(live, summary, body, req.provenance, req.stage, captured, title)
    dashes = tuple(n for n, _ in dash_findings(text))
    if dashes and req.no_dashes:
        return Failure(Refused(dashed(dashes), judgement=True))
    entry = map_entry(req.slug, summary)
    shown = title or (body_heading(body) or "")
    return Success(Note(req.slug, folder, text, entry, live, tuple(dead), dashes, shown, derived))


# -- the map ---------------------------------------------------------------------------------


def interrupted(on_disk: bytes, note: Note, map_text: str) -> bool:
    """True when `on_disk` (the note file there) is exactly `note` and the map does not link
    it: an earlier write of it was killed after the note and before the map."""
    return on_disk == note.text.encode("utf-8") and f"[[{note.slug}]]" not in map_text


def section_heading(folder: str) -> str:
    return f"### {folder}/"


def _ends_section(line: str) -> bool:
    # The original ended a section only at the next `### `, so a `## ` heading written after
    # the last `###` section swallowed every later entry into the wrong part of the map.
    return line.startswith(("# ", "## ", "### "))


def insert_entry(map_text: str, folder: str, entry: str) -> Placed:
    """The map with `entry` listed under `### {folder}/`, appended, never sorted.

    Lines are handled with their own terminators, so a map written with CRLF keeps them and
    the new lines follow the map's first line ending."""
    heading = section_heading(folder)
    newline = "\r\n" if map_text.split("\n", 1)[0].endswith("\r") else "\n"
    lines = _split_lf(map_text)
    at = next((i for i, line in enumerate(lines) if line.strip() == heading), None)
    if at is None:
        tail = newline.join(["", "", heading, "", entry, ""])
        return Placed(map_text.rstrip() + tail, section_created=True)
    end = next((i for i in range(at + 1, len(lines)) if _ends_section(lines[i])), len(lines))
    while end > at + 1 and not lines[end - 1].strip():
        end -= 1
    if end == len(lines) and not lines[-1].endswith("\n"):
        # the map has no final newline: the last line gains one, the entry stays unterminated
        lines[-1] += newline
        lines.append(entry)
    else:
        lines.insert(end, entry + newline)
    return Placed("".join(lines), section_created=False)


def _split_lf(text: str) -> list[str]:
    """Lines with their terminators, split on LF only (a lone CR is not a line break here,
    as it is not for every other reader of these files)."""
    parts = [p + "\n" for p in text.split("\n")]
    parts[-1] = parts[-1][:-1]
    if not parts[-1]:
        parts.pop()
    return parts


# -- where the note goes ---------------------------------------------------------------------


def choose_root(fleet: str, agent: str, agent_dir_exists: bool, fleet_has_map: bool) -> str:
    """`{fleet}/fleet/{agent}` when it exists; the fleet path itself when it is a base
    (has MAP.md), so `kb write ada x fleet/ada` works; else the fleet path, to be refused."""
    in_fleet = join(fleet, "fleet", agent)
    if agent_dir_exists:
        return in_fleet
    return fleet if fleet_has_map else in_fleet


def join(*parts: str) -> str:
    """Paths for display, joined as `os.path.join` would: a `.` fleet stays visible
    (`./fleet/ada`), as the original printed it."""
    return posixpath.join(*parts)


def report(note_path: str, map_path: str, folder: str, note: Note, created: bool) -> str:
    lines = [f"wrote {note_path}", f"  listed in {map_path} under {section_heading(folder)}"]
    if note.dropped:
        lines.append(
            f"  dropped {counted(len(note.dropped), 'key')} the index cannot reach: "
            + ", ".join(note.dropped)
        )
    if note.derived:
        shown = printable(note.title)
        lines.append(f"  titled from the body's first line: {shown} (--title sets it)")
    if created:
        lines.append("  that section did not exist and was created")
    lines += [
        "",
        "Next: `kb index` to make it findable, then `kb check` to be sure",
        "the note says what the entry claims it says.",
    ]
    return "\n".join(lines) + "\n"


# -- messages --------------------------------------------------------------------------------


def bad_slug(slug: str) -> str:
    slug = printable(slug)
    return (
        f"'{slug}' is not a usable name. Lower case letters, digits and hyphens, no leading or "
        "trailing hyphen, 40 characters at most. It becomes both the filename and the [[link]] "
        "every other note uses to point here."
    )


NO_KEYS = (
    "a note needs keys, and there is no flag to skip it. The keyword scorer reads the "
    "`Search for:` line in the note's own header, so a note without one is a note no question "
    "can reach. Give the words a real question would use, not a description of the file."
)

EMPTY_BODY = (
    "the note body was empty. It is read from stdin: pipe the markdown in, or redirect a file "
    "into it."
)


def illegal(field: str, got: str, legal: Sequence[str]) -> str:
    return f"{field} was '{printable(got)}', which is not one of: {', '.join(legal)}"


def bad_folder(folder: str) -> str:
    folder = printable(folder)
    return (
        f"folder was '{folder}', which is not one of: {', '.join(MEMORY_FOLDERS)}, or a "
        "folder below one (knowledge/systems). A note lives in a memory folder of its base, "
        "and a folder outside that set, hidden, or climbing with `..` could put it outside "
        "the base or out of every search."
    )


def only_stopwords(keys: Sequence[str]) -> str:
    listed = ", ".join(f"`{printable(k)}`" for k in keys)
    return (
        f"every key is made only of stopwords, single letters or punctuation ({listed}), and "
        "no search reads those, so no question could reach the note. Give the words a "
        "question about it would use: --keys 'restore test, backup drill'."
    )


def all_dead(keys: Sequence[str]) -> str:
    listed = ", ".join(f"`{printable(k)}`" for k in keys)
    return (
        f"every key given is unsearchable: {listed}. Not one of them reaches the keyword index "
        "or the phrase index, so the note would exist and no question would ever find it. A "
        "dead key among live ones is dropped and the note is still written; this is the case "
        "where nothing is left. Several written words that reduce to one after stopwords is "
        "the usual cause: `o que e ITIL` indexes as `itil` and is thrown away as a duplicate "
        "of the single key beside it. Rewrite so the word carrying the meaning is the one "
        "that survives. This is W07, refused at the write instead of found later."
    )


def _lines(lines: Sequence[int]) -> str:
    where = ", ".join(str(n) for n in lines)
    return f"line {where}" if len(lines) == 1 else f"lines {where}"


def dashed(lines: Sequence[int]) -> str:
    return (
        f"an em or en dash on {_lines(lines)} of the note this would have written, and this "
        f"fleet's fleet.txt sets `{STYLE_KEY} = {NO_DASHES}`. Write a comma, a colon or "
        "parentheses instead."
    )


def dash_warning(lines: Sequence[int]) -> str:
    """What `kb write` says on stderr when a note with a dash is written anyway."""
    return (
        f"kb write: an em or en dash on {_lines(lines)} of the note (written anyway; "
        f"`kb check` reports it as W03). A fleet that refuses them sets `{STYLE_KEY} = "
        f"{NO_DASHES}` in fleet.txt."
    )


def bad_agent(agent: str) -> str:
    agent = printable(agent)
    return (
        f"'{agent}' is not an agent name: an agent is one directory under fleet/, so the name "
        "cannot be empty, `.` or `..`, or contain `/` or `\\`."
    )


def no_agent(path: str) -> str:
    path = printable(path)
    return (
        f"no agent at {path}. `kb fleet` lists the agents that exist, and `kb init <name>` "
        "creates one."
    )


def no_map(root: str) -> str:
    root = printable(root)
    return (
        f"{root} has no MAP.md, so there is nowhere to list the note, and a base that cannot "
        "list cannot route."
    )


def note_exists(path: str) -> str:
    path = printable(path)
    return (
        f"{path} already exists. Refusing to overwrite, because a write over a note is a "
        "silent deletion of whatever it said before. Edit it, or choose another name."
    )


def cannot_write(path: str, error: str) -> str:
    return f"cannot write {printable(path)}: {printable(error)}"


def cannot_read(path: str, error: str) -> str:
    return f"cannot read {printable(path)}: {printable(error)}"


def cannot_read_stdin(error: str) -> str:
    return f"cannot read the note from stdin: {printable(error)}"


NEEDS = "kb: write needs an agent and a name for the note"
