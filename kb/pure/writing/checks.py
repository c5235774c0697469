"""`kb check`: every check as a pure function over one base's values, and the report.

Rules of this module (workflow-verbs.md §2):
- A finding is (file, line, code, level, message). Line 0 means the file as a whole; other
  lines are 1-based. The codes, their levels and where each lands are a contract:
    E01 broken link           error    the linking file, the link's line
    W01 ambiguous link        warning  the linking file, the link's line
    W03 em or en dash         warning  the file, the line (bibliography lines exempt)
    E02 not indexed           error    the file, line 0
    W06 thin keyword line     warning  the file, line 0 (1 or 2 keys; decision 0023)
    W07 unsearchable key      warning  the file, line 0
    W04 no evidence grade     warning  the note, line 1 (once per missing field)
    W05 no provenance/stage   warning  the note, line 1 (once per missing field)
    E04 illegal value         error    the note, line 1 (once per illegal field)
    E05 citation unresolved   error    the citing file, the citation's first line
    W09 superseded source     warning  the citing file, the citation's first line
    E08 bibliography line     error    missing: first citation line; drifted: that line
    E06 uncited record        error    `sources/{KEY}.txt`, line 0
    E09 broken record         error    `sources/{file}`, line 0
    W08 .gitignore gap        warning  `.gitignore`, line 0
    E10 private names nothing error    `agent.txt`, line 0 (once per entry)
    W10 private look-alike    warning  `agent.txt`, line 0 (once per folder kept private)
    E11 conflict marker       error    the file, each `<<<<<<<`, `|||||||` or `>>>>>>>` line
  Retired codes (E03 no map, E07, W02 map entry without keys) are never emitted.
- Links are not checked in `templates/` (its links are placeholders); every other check is.
- E02/W06/W07 skip exactly the files `kb index` counts as exempt: one predicate,
  `kb.pure.notes.paths.is_exempt`, serves both verbs, so the two can never disagree.
- Note checks run only under the base's knowledge folder and only when the file has front
  matter. The legal provenance and stage values are `kb.pure.fleet.listing`'s, shared with
  `kb write`.
- Citations: only keys cross the privacy line. Private files add to the cited set (so a
  record cited only from `records/` is not reported as uncited) but no private path is
  ever named in a finding.
- The report sorts findings by (file, line, code), groups them by (file, code, message),
  orders groups by (file, first line, code), and lists at most LINES_SHOWN further lines
  of a group before counting the rest.
"""

from __future__ import annotations

from collections.abc import Collection, Container, Iterable, Mapping, Sequence
from typing import Literal

from attrs import frozen

from kb.pure.answering.entries import dead_keys, parse_note
from kb.pure.fleet.listing import PROVENANCES, STAGES
from kb.pure.notes.header import front_matter, header_of, lines_holding, lines_of
from kb.pure.notes.links import CITE_OPEN, LINK_EXEMPT, citations, stems_of, wikilinks
from kb.pure.notes.lookalike import how_alike
from kb.pure.notes.manifest import DEFAULT_PRIVATE_FOLDERS, PrivateLayer
from kb.pure.notes.paths import is_exempt, stem_of
from kb.pure.notes.plural import counted
from kb.pure.writing.sources import NOT_A_KEY, Record, bibliography_line, is_key
from kb.pure.writing.style import EM_DASH, EN_DASH, bibliography_entry, dash_findings

Level = Literal["error", "warning"]

KNOWLEDGE_DIRS = ("knowledge", "conhecimento")
SOURCES_DIR = "sources"
# W06 fires below this many keys (decision 0023). The original's 12 predates the text index
# reaching every note: on the til-dev benchmark, gold notes with 1-2, 3-4 and 5+ title-word
# keys were found top-1 for 6/10, 44/83 and 31/57 questions (top-5: 8/10, 63/83, 42/57), so
# a handful of keys no longer leaves a note to luck, and 12 flagged all 1,871 of its notes.
# Cutting the example fleet's keys to 1..6 per note kept top-1 at 11/12 (12/12 from 12 keys)
# while hits rose from 8 to 11 between 6 and 12: more keys buy confidence, which the message
# says, and a line of one or two keys is the title again, which the warning is for.
THIN_BELOW = 3
LINES_SHOWN = 3  # further line numbers printed for a repeated finding before "and k more"
PLACE_WIDTH = 46
EVIDENCE_FIELDS = ("evidence_tier", "valid_for")
PROSE_SOURCES = ("sources, ", "sources:", "fontes, ", "fontes:")


@frozen
class Finding:
    file: str
    line: int
    code: str
    level: Level
    message: str


@frozen
class BaseFacts:
    """Everything `kb check` needs to know about one base, read once from disk."""

    label: str
    map_rel: str | None
    knowledge: str | None  # the knowledge folder's name, when the base has one
    rels: tuple[str, ...]  # every discovered markdown file, in discovery order
    texts: tuple[tuple[str, str], ...]  # (rel, text) of every file that could be read
    skipped: tuple[tuple[str, str], ...]  # (rel, reason) of every file that could not
    private: PrivateLayer
    include_private: bool
    gitignore: str | None  # the base's .gitignore, when it exists and reads as text
    records: tuple[Record, ...] = ()
    broken_records: tuple[tuple[str, str], ...] = ()  # (display path, problem)
    private_citations: frozenset[str] = frozenset()  # tokens cited in the private layer
    private_unmatched: tuple[str, ...] = ()  # `private =` entries that name no folder
    # (private folder, folder on disk) kept private as look-alikes (kb.pure.notes.lookalike)
    private_lookalikes: tuple[tuple[str, str], ...] = ()


@frozen
class Unreadable:
    """A base that could not be discovered at all."""

    path: str
    message: str


# -- what to read (asked by kb.io.writing.checker before it reads) -----------------------------


def knowledge_folder(present: Collection[str]) -> str | None:
    """The base's knowledge folder: the first of KNOWLEDGE_DIRS that exists."""
    return next((d for d in KNOWLEDGE_DIRS if d in present), None)


def records_hidden(layer: PrivateLayer, include_private: bool) -> bool:
    """Records are not loaded at all when `sources/` is private and --all is off. Every
    citation in a public note then reports E05 (kept from the original, §21 quirk 2)."""
    return not include_private and layer.covers(SOURCES_DIR)


def private_scan_folders(
    layer: PrivateLayer, include_private: bool, record_count: int
) -> tuple[str, ...]:
    """Folders (relative to the base; "" is the whole base) whose markdown is scanned for
    citation keys only. With --all the private files are checked like any other; with no
    records there is nothing a private citation could keep from E06."""
    if include_private or record_count == 0:
        return ()
    return ("",) if layer.whole else (*layer.folders, *layer.kept)


# -- the checks --------------------------------------------------------------------------


def _error(file: str, line: int, code: str, message: str) -> Finding:
    return Finding(file, line, code, "error", message)


def _warn(file: str, line: int, code: str, message: str) -> Finding:
    return Finding(file, line, code, "warning", message)


def link_findings(rel: str, text: str, by_stem: Mapping[str, Sequence[str]]) -> list[Finding]:
    """E01 and W01: wikilinks resolve by exact, case-sensitive stem inside the base."""
    if rel.startswith(LINK_EXEMPT) or "[[" not in text:  # no marker, no link: skip the scan
        return []
    out: list[Finding] = []
    for line, target in wikilinks(text):
        matches = by_stem.get(target)
        if not matches:
            out.append(
                _error(rel, line, "E01", f"broken link [[{target}]]: this base has no {target}.md")
            )
        elif len(matches) > 1:
            out.append(
                _warn(
                    rel,
                    line,
                    "W01",
                    f"ambiguous link [[{target}]] matches {', '.join(matches)}: "
                    "rename one of them, or link by path",
                )
            )
    return out


def dash_checks(rel: str, text: str) -> list[Finding]:
    """W03: the first em or en dash of each line that is not a bibliography line."""
    if EM_DASH not in text and EN_DASH not in text:  # most notes: skip the line scan
        return []
    return [
        _warn(
            rel,
            line,
            "W03",
            f"{dash} dash: use a comma, a colon or parentheses (a fleet whose fleet.txt says "
            "`style = no-dashes` has kb write refuse it)",
        )
        for line, dash in dash_findings(text)
    ]


def reach_findings(map_rel: str | None, rel: str, text: str) -> list[Finding]:
    """E02, W06, W07: can a question reach this file, and through which of its keys."""
    if is_exempt(map_rel, rel):
        return []
    keys = header_of(text).keys
    if not keys:
        if parse_note(map_rel, rel, text).bucket == "entry":
            return []  # keyed by its own title, file name, headings and front matter
        return [
            _error(
                rel,
                0,
                "E02",
                "not indexed: this file is empty, or has no `Search for:` line and neither its "
                "title, its file name, its headings nor its front matter hold a word to find "
                "it by, so it scores zero on every question. Give it a `# Title` and some "
                "text, or a `Search for:` line above the first `##` heading",
            )
        ]
    out: list[Finding] = []
    if len(keys) < THIN_BELOW:
        out.append(
            _warn(
                rel,
                0,
                "W06",
                f"thin keyword line: {counted(len(keys), 'term')}. The text index still finds "
                "this file by its own words, but its keys are how a question in other words "
                "reaches it (a synonym, another language, the symptom rather than the fix), and "
                "each one a question matches makes a `hit` likelier. Add the words somebody "
                "would type from inside the problem",
            )
        )
    dead = dead_keys(keys)
    if dead:
        out.append(
            _warn(
                rel,
                0,
                "W07",
                f"unsearchable {'key' if len(dead) == 1 else 'keys'}: {', '.join(dead)}. Each is "
                "several written words that "
                "shrink to one word or none once stopwords go, so it reaches neither the "
                "keyword index nor the phrase index and no question can find it. Rewrite it "
                "so the word that carries the meaning is the one that survives: "
                "`nao contestar` was indexed as `contestar`, its own opposite, until it "
                "became `proibido contestar`",
            )
        )
    return out


CONFLICT_MARKS = ("<" * 7, "|" * 7, ">" * 7)  # git's markers; `=======` alone is a heading rule
CONFLICT_MESSAGE = (
    "merge conflict marker: git left two versions of a passage here, between `<<<<<<<` and "
    "`>>>>>>>`, and a question can be answered from either. Keep the right text, delete the "
    "marker lines and the `=======` between them, then commit"
)


def _is_conflict_mark(line: str) -> bool:
    mark = line[:7]
    return mark in CONFLICT_MARKS and (len(line) == 7 or line[7] in " \t\r")


def conflict_findings(rel: str, text: str) -> list[Finding]:
    """E11: a line git writes around a conflict it could not merge (`kb sync` stops before
    it would, but a hand-run `git pull` does not)."""
    if not any(m in text for m in CONFLICT_MARKS):  # most files: skip the line scan
        return []
    return [
        _error(rel, n, "E11", CONFLICT_MESSAGE)
        for n, line in enumerate(lines_of(text), start=1)
        if _is_conflict_mark(line)
    ]


def is_note(knowledge: str | None, rel: str) -> bool:
    return knowledge is not None and rel.startswith(knowledge + "/")


def _has_front_matter(text: str) -> bool:
    # front_matter() reads an empty block (`---` then `---`) and no block alike, and only
    # the first of those is a note that declared front matter and left the fields out.
    if text.partition("\n")[0].strip() != "---":  # most notes: no split of the rest
        return False
    return any(x.strip() == "---" for x in lines_of(text)[1:])


def _cites_in_prose(text: str) -> bool:
    return any(line.lstrip().lower().startswith(PROSE_SOURCES) for line in lines_of(text))


def note_findings(rel: str, text: str) -> list[Finding]:
    """W04, W05, E04 for a note with front matter (the caller asks `is_note` first)."""
    if not _has_front_matter(text):
        return []
    pairs = front_matter(text)
    keys = {k for k, _ in pairs}
    out: list[Finding] = []
    sourced = (
        "source" in keys
        or "type" in keys
        or (CITE_OPEN in text and bool(citations(text)))
        or _cites_in_prose(text)
    )
    if sourced:
        out += [
            _warn(
                rel,
                1,
                "W04",
                f"this note cites a source and has no {field}. Add it to the front matter: "
                "a sourced claim that grades itself nowhere is a claim nobody can weigh",
            )
            for field in EVIDENCE_FIELDS
            if field not in keys
        ]
    for field, legal in (("provenance", PROVENANCES), ("stage", STAGES)):
        value = next((v for k, v in pairs if k == field), None)
        if value is None:
            out.append(
                _warn(
                    rel,
                    1,
                    "W05",
                    f"front matter has no {field}, so nobody can tell who wrote this or how "
                    f"settled it is. Add `{field}:` with one of {', '.join(legal)}",
                )
            )
        elif value not in legal:
            out.append(
                _error(
                    rel, 1, "E04", f"{field} is '{value}', which is not one of {', '.join(legal)}"
                )
            )
    return out


def successors_of(records: Sequence[Record]) -> dict[str, Record]:
    """replaced key -> the first record (in load order) whose `replaces` names it."""
    out: dict[str, Record] = {}
    for r in records:
        if r.replaces and r.replaces != r.key:
            out.setdefault(r.replaces, r)
    return out


def bibliography_of(text: str) -> dict[str, tuple[int, str]]:
    """key -> (line, rendering) of the file's bibliography lines; the last line wins."""
    out: dict[str, tuple[int, str]] = {}
    for n, line in lines_holding(text, CITE_OPEN):  # a bibliography line holds `[src:`
        entry = bibliography_entry(line)
        if entry is not None:
            out[entry[0]] = (n, entry[1])
    return out


def citation_findings(
    rel: str,
    text: str,
    by_key: Mapping[str, Record],
    successors: Mapping[str, Record],
) -> tuple[list[Finding], set[str]]:
    """E05, W09, E08 for one file (each at most once per distinct token), and the known keys
    it cites."""
    pointers = citations(text) if CITE_OPEN in text else []  # most notes cite nothing
    cited: set[str] = set()
    if not pointers:
        return [], cited
    bibliography = bibliography_of(text)
    out: list[Finding] = []
    seen: set[str] = set()
    for line, token in pointers:
        if token in seen:
            continue
        seen.add(token)
        record = by_key.get(token)
        if record is None:
            why = (
                f"no {SOURCES_DIR}/{token}.txt in this base"
                if is_key(token)
                else f"`{token}` is not a key: {NOT_A_KEY}"
            )
            out.append(
                _error(
                    rel,
                    line,
                    "E05",
                    f"citation [src:{token}] does not resolve: {why}. A citation is a pointer, "
                    "so a key with no record behind it is a claim with no source",
                )
            )
            continue
        cited.add(token)
        newer = successors.get(token)
        if newer is not None:
            out.append(
                _warn(
                    rel,
                    line,
                    "W09",
                    f'[src:{token}] is superseded by [src:{newer.key}], "{newer.title}". The '
                    "old key still resolves, so this is a correction to consider and not a "
                    "broken link",
                )
            )
        expected = bibliography_line(record)
        entry = bibliography.get(token)
        if entry is None:
            out.append(
                _error(
                    rel,
                    line,
                    "E08",
                    f"cited [src:{token}] with no bibliography line for it. Add:\n"
                    f"    - [src:{token}] {expected}",
                )
            )
        elif entry[1] != expected:
            out.append(
                _error(
                    rel,
                    entry[0],
                    "E08",
                    f"the bibliography line for [src:{token}] has drifted from the record. "
                    f"The record says:\n    - [src:{token}] {expected}",
                )
            )
    return out, cited


def record_findings(broken: Iterable[tuple[str, str]]) -> list[Finding]:
    """E09: a file in `sources/` that is not a valid record."""
    return [
        _error(
            path,
            0,
            "E09",
            f"not a source record: {problem}. Records are written by `kb source add`, so a "
            "broken one was edited by hand: fix the line named, or write the record again",
        )
        for path, problem in broken
    ]


def uncited_findings(
    records: Sequence[Record], cited: Collection[str], successors: Mapping[str, Record]
) -> list[Finding]:
    """E06: a record no note cites. A superseded record is exempt: it stays on disk so the
    notes that still cite it keep resolving, and nothing should force them to."""
    return [
        _error(
            f"{SOURCES_DIR}/{r.key}.txt",
            0,
            "E06",
            f'no note cites [src:{r.key}], "{r.title}". The bibliography is a projection of '
            "the pointers, so a record nothing points at is in no bibliography and answers no "
            "question. Cite it or delete it",
        )
        for r in records
        if r.key not in cited and r.key not in successors
    ]


def ignored_entries(gitignore: str) -> set[str]:
    """What a .gitignore covers, read literally: comments cut, `/` trimmed at both ends.
    Wildcards and negations are not interpreted (`profile/**` does not cover `profile`)."""
    out: set[str] = set()
    for line in lines_of(gitignore):
        entry = line.split("#", 1)[0].strip().lstrip("/").rstrip("/")
        if entry:
            out.add(entry)
    return out


def ignore_findings(layer: PrivateLayer, gitignore: str | None) -> list[Finding]:
    """W08: a declared private folder this base's .gitignore does not cover. Only when the
    file exists (no ignore file is no promise to git) and the layer is a folder list."""
    if gitignore is None or layer.whole:
        return []
    covered = ignored_entries(gitignore)
    return [
        _warn(
            ".gitignore",
            0,
            "W08",
            f"`{folder}/` is declared private and this .gitignore does not cover it. kb serves "
            "nothing from it without --all and publishes nothing ever, so this is a warning; "
            f"a repository pushed from here would publish it. Add `{folder}/` to .gitignore",
        )
        for folder in layer.folders
        if folder not in covered
    ]


def private_findings(unmatched: tuple[str, ...]) -> list[Finding]:
    """E10: a `private =` entry in agent.txt that names no folder of the base. The default
    private folders were kept private beside it (kb.pure.notes.manifest.fail_closed), so nothing
    leaked; but what the line meant to hide is not hidden by it."""
    return [
        _error(
            "agent.txt",
            0,
            "E10",
            f"private entry `{entry}` names no folder in this base, so it hides nothing; the "
            f"default private folders ({', '.join(DEFAULT_PRIVATE_FOLDERS)}) stay private "
            "until it does. Write the folder as the base spells it, relative to the base "
            "(`records`, `notes/secret`), or `.` for the whole base",
        )
        for entry in unmatched
    ]


def lookalike_findings(found: tuple[tuple[str, str], ...]) -> list[Finding]:
    """W10: a folder kept private because it looks like a private folder it is not spelled
    as (other letter case, letters of another script: kb.pure.notes.lookalike). Nothing leaked,
    but a person reading the names cannot tell the two apart."""
    return [
        _warn(
            "agent.txt",
            0,
            "W10",
            f"the folder `{folder}/` is kept private as `{private}` "
            f"({how_alike(private, folder)}); rename the folder, or write in agent.txt what "
            "is private as the disk spells it",
        )
        for private, folder in found
    ]


def sort_key(f: Finding) -> tuple[str, int, str]:
    return (f.file, f.line, f.code)


@frozen
class FileRules:
    """What judging one file needs from the rest of its base, known before any file is read:
    `kb check` judges each file as it reads it and holds no base's text (77 MB at 13,000)."""

    map_rel: str | None
    knowledge: str | None
    by_stem: Mapping[str, Sequence[str]]
    by_key: Mapping[str, Record]
    successors: Mapping[str, Record]


def file_rules(facts: BaseFacts) -> FileRules:
    """The rules every file of this base is judged by (its `texts` are not read)."""
    records = () if records_hidden(facts.private, facts.include_private) else facts.records
    return FileRules(
        facts.map_rel,
        facts.knowledge,
        stems_of(facts.rels),
        {r.key: r for r in records},
        successors_of(records),
    )


def file_findings(rules: FileRules, rel: str, text: str) -> tuple[list[Finding], set[str]]:
    """Every finding of one file, and the known source keys it cites."""
    out = link_findings(rel, text, rules.by_stem) + dash_checks(rel, text)
    out += reach_findings(rules.map_rel, rel, text) + conflict_findings(rel, text)
    found, keys = citation_findings(rel, text, rules.by_key, rules.successors)
    out += found
    if is_note(rules.knowledge, rel):
        out += note_findings(rel, text)
    return out, keys


def base_findings(
    facts: BaseFacts, per_file: Iterable[Finding], cited: Iterable[str]
) -> list[Finding]:
    """Every finding for one base, sorted by (file, line, code): its records', its files'
    (`file_findings` in file order, citing `cited`), then the base's as a whole."""
    records = () if records_hidden(facts.private, facts.include_private) else facts.records
    out = record_findings(facts.broken_records)
    out += per_file
    out += uncited_findings(records, {*facts.private_citations, *cited}, successors_of(records))
    out += ignore_findings(facts.private, facts.gitignore)
    out += private_findings(facts.private_unmatched)
    out += lookalike_findings(facts.private_lookalikes)
    return sorted(out, key=sort_key)


def check_base(facts: BaseFacts) -> list[Finding]:
    """Every finding for one base whose texts are all in `facts`, sorted."""
    rules = file_rules(facts)
    judged = [file_findings(rules, rel, text) for rel, text in facts.texts]
    per_file = [f for found, _ in judged for f in found]
    return base_findings(facts, per_file, {key for _, keys in judged for key in keys})


# -- the cross-base hint (§2.4) ----------------------------------------------------------

_ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_fold(text: str) -> str:
    return text.translate(_ASCII_FOLD)


def link_target(message: str) -> str | None:
    """The target between the first `[[` and the `]]` after it in an E01 message."""
    start = message.find("[[")
    if start < 0:
        return None
    end = message.find("]]", start + 2)
    return message[start + 2 : end] if end >= 0 else None


def with_cross_base_hint(
    findings: Sequence[Finding], home: str, stems: Sequence[tuple[str, Container[str]]]
) -> list[Finding]:
    """E01 findings whose target is a note in another base (ASCII case ignored, first base
    in expansion order) get a message that names that base. The rule is unchanged: a
    wikilink stops at the base edge, so it is still an error, now with its fix."""
    out: list[Finding] = []
    for f in findings:
        target = link_target(f.message) if f.code == "E01" else None
        if target is not None:
            folded = ascii_fold(target)
            other = next((label for label, s in stems if label != home and folded in s), None)
            if other is not None:
                f = Finding(
                    f.file,
                    f.line,
                    f.code,
                    f.level,
                    f"broken link [[{target}]]: that note is in {other}, not here. A wikilink "
                    "stops at the base edge, so write the path instead",
                )
        out.append(f)
    return out


def folded_stems(rels: Iterable[str]) -> frozenset[str]:
    return frozenset(ascii_fold(stem_of(r)) for r in rels)


# -- the report (§2.2) -------------------------------------------------------------------


@frozen
class Group:
    file: str
    code: str
    level: Level
    message: str
    lines: tuple[int, ...]


def group_findings(findings: Iterable[Finding]) -> list[Group]:
    """Findings sorted by (file, line, code), then one group per (file, code, message) with
    its lines in order, groups ordered by (file, first line, code)."""
    slots: dict[tuple[str, str, str], tuple[Level, list[int]]] = {}
    for f in sorted(findings, key=sort_key):
        slot = slots.setdefault((f.file, f.code, f.message), (f.level, []))
        slot[1].append(f.line)
    groups = [
        Group(file, code, level, message, tuple(lines))
        for (file, code, message), (level, lines) in slots.items()
    ]
    return sorted(groups, key=lambda g: (g.file, g.lines[0], g.code))


def group_line(g: Group) -> str:
    level = "error" if g.level == "error" else "warn "
    first = g.lines[0]
    place = g.file if first == 0 else f"{g.file}:{first}"
    line = f"{level} {g.code}  {place:<{PLACE_WIDTH}} {g.message}"
    if len(g.lines) > 1:
        shown = [str(n) for n in g.lines[1 : 1 + LINES_SHOWN]]
        rest = len(g.lines) - 1 - len(shown)
        more = f", and {rest} more" if rest > 0 else ""
        line += f"  ({len(g.lines)} times, also on {', '.join(shown)}{more})"
    return line


def counts(findings: Iterable[Finding]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = warnings = 0
    for f in findings:
        if f.level == "error":
            errors += 1
        else:
            warnings += 1
    return errors, warnings


def base_report(facts: BaseFacts, findings: Sequence[Finding]) -> str:
    n = len(facts.rels)
    scope = (
        f"{counted(n, 'file')}, private layer included"
        if facts.include_private
        else counted(n, "public file")
    )
    lines = [f"{facts.label}  ({scope}, map: {facts.map_rel or 'none'})"]
    lines += [f"  skipped  {rel}: {reason}" for rel, reason in facts.skipped]
    lines += [f"  {group_line(g)}" for g in group_findings(findings)]
    if findings:
        errors, warnings = counts(findings)
        lines.append(f"  {counted(errors, 'error')}, {counted(warnings, 'warning')}")
    else:
        lines.append("  clean")
    return "\n".join(lines) + "\n"


@frozen
class FleetCheck:
    stdout: str
    stderr: str
    errors: int
    warnings: int
    bases: tuple[dict[str, object], ...] = ()  # each base's report as data (`--json`)

    def exit_code(self, strict: bool) -> int:
        return 1 if self.errors or (strict and self.warnings) else 0


@frozen
class BaseCheck:
    """One base judged: its report, its stderr line when it could not be read, its counts."""

    stdout: str
    stderr: str
    errors: int
    warnings: int
    data: dict[str, object] | None = None  # the same report as data (`--json`)


def base_data(facts: BaseFacts, findings: Sequence[Finding]) -> dict[str, object]:
    """One base's report for `kb check --json`: every finding on its own (the text groups
    repeats of one message), sorted by (file, line, code) as the text is."""
    errors, warnings = counts(findings)
    return {
        "base": facts.label,
        "errors": errors,
        "files": len(facts.rels),
        "findings": [
            {"code": f.code, "file": f.file, "level": f.level, "line": f.line, "message": f.message}
            for f in sorted(findings, key=sort_key)
        ],
        "map": facts.map_rel,
        "private_included": facts.include_private,
        "skipped": [{"path": rel, "reason": why} for rel, why in facts.skipped],
        "warnings": warnings,
    }


def fleet_stems(bases: Iterable[tuple[str, Iterable[str]]]) -> list[tuple[str, frozenset[str]]]:
    """(label, folded stems) for each readable base given as (label, rels): all the cross-base
    hint needs to know about the other bases, so no base's text has to be held for it."""
    return [(label, folded_stems(rels)) for label, rels in bases]


def judge_base(
    base: BaseFacts | Unreadable, stems: Sequence[tuple[str, Container[str]]]
) -> BaseCheck:
    """One base checked and rendered. A base that could not be read is one line on stderr
    and counts as one error."""
    if isinstance(base, Unreadable):
        unread = {"base": base.path, "error": base.message, "errors": 1, "warnings": 0}
        return BaseCheck("", f"kb: {base.message}\n", 1, 0, unread)
    return judge_found(base, check_base(base), stems)


def judge_found(
    base: BaseFacts, found: Sequence[Finding], stems: Sequence[tuple[str, Container[str]]]
) -> BaseCheck:
    """One base rendered from its findings (`check_base`'s, or found file by file)."""
    findings = with_cross_base_hint(found, base.label, stems)
    errors, warnings = counts(findings)
    return BaseCheck(base_report(base, findings), "", errors, warnings, base_data(base, findings))


def fleet_check(judged: Iterable[BaseCheck]) -> FleetCheck:
    """The bases' reports in order, a blank line before every base after the first.

    `judged` may be a generator that reads each base only when its turn comes (what
    `kb check` does): then only one base's text is in memory at a time, not the fleet's.
    """
    out: list[str] = []
    err: list[str] = []
    data: list[dict[str, object]] = []
    errors = warnings = 0
    for i, j in enumerate(judged):
        if i:
            out.append("\n")
        out.append(j.stdout)
        err.append(j.stderr)
        if j.data is not None:
            data.append(j.data)
        errors += j.errors
        warnings += j.warnings
    return FleetCheck("".join(out), "".join(err), errors, warnings, tuple(data))


def check_fleet(bases: Sequence[BaseFacts | Unreadable]) -> FleetCheck:
    """Every base checked and reported in expansion order (all of them already read)."""
    stems = fleet_stems((b.label, b.rels) for b in bases if isinstance(b, BaseFacts))
    return fleet_check(judge_base(b, stems) for b in bases)
