"""What `kb help <verb>` and `kb <verb> --help` print: one entry per verb of the command
table, the one place a verb's arguments and flags are explained.

Why a module of its own beside kb/shell/cli/table.py rather than fields on each Command: the
table is imported by every process, `kb route` and `kb boot` included, and this text is
read only when someone asks for help. Entries are keyed by the table's verb names and name
the input-class fields they explain; tests/cli/test_help.py holds every verb and every
field of its input class to exactly one line here, so a flag cannot be added without its
help, and a surface that shows flag help (the CLI now, the MCP tool schemas when they take
it from here via `flag_line`) cannot describe a flag the parser does not have.

Plain named tuples, not attrs classes: nothing here is built unless help was asked for,
and then cheaply.
"""

from __future__ import annotations

from typing import NamedTuple

from kb.shell.cli.outcome import NOTHING_EXIT


class Item(NamedTuple):
    """One argument or flag as help shows it, and the input-class fields it fills."""

    shown: str  # `<question>`, `[path]...`, `--top N`
    line: str  # one line: what it does, its default
    fields: tuple[str, ...]  # the input-class fields it sets; () for a literal word


class VerbHelp(NamedTuple):
    args: tuple[Item, ...]
    flags: tuple[Item, ...]
    examples: tuple[str, ...]
    exits: tuple[tuple[int, str], ...]


def _i(shown: str, line: str, *fields: str) -> Item:
    return Item(shown, line, fields)


PATHS = _i("[path]...", "bases or fleet roots to open together; default .", "paths")
ROOT = _i("[path]", "the fleet root; default .", "path")
ALL = _i("--all", "include the private layer (left out without it)", "all")
TOP = _i("--top N", "how many files to return, 0 or more; default 5", "top")
JSON = _i("--json", "print one line of JSON instead of text", "json")
USAGE_2 = (2, "the command line is wrong: an unknown flag, or a value that does not parse")
OPEN_1 = (1, "the memory could not be opened")

HELP: dict[str, VerbHelp] = {
    "index": VerbHelp(
        (PATHS,),
        (
            _i("--json", "print the indexing summary as one line of JSON", "json"),
            _i(
                "--entries",
                "index nothing: print every keyword entry, read from the notes, as JSON",
                "entries",
            ),
            ALL,
        ),
        ("kb index", "kb index fleet/ada --json"),
        (
            (0, "indexed (or the entries printed)"),
            (1, "a base could not be read, or an index could not be opened or written"),
            USAGE_2,
        ),
    ),
    "list": VerbHelp(
        (PATHS,),
        (
            _i("--base B", "only files of the base named B", "base"),
            _i("--folder F", "only files in folder F or below it", "folder"),
            _i("--kind K", "only memory, skills or tools", "kind"),
            _i(
                "--stage S", "only front matter stage S: raw, captured, distilled, derived", "stage"
            ),
            _i(
                "--provenance P",
                "only front matter provenance P: human, agent, external",
                "provenance",
            ),
            _i(
                "--where key=value",
                "only files whose front matter holds value under key; repeat to AND",
                "where",
            ),
            _i("--sort FIELD", "sort by base, path, title, ... or any front-matter key", "sort"),
            JSON,
            ALL,
        ),
        ("kb list --folder knowledge --stage distilled", "kb list --where tags=backup --json"),
        (
            (0, "listed, even when no file matched"),
            OPEN_1,
            (2, "an illegal facet, --where or --sort value; a bad flag"),
        ),
    ),
    "route": VerbHelp(
        (
            _i("<question>", "the question, as one argument: quote it", "question"),
            PATHS,
        ),
        (
            TOP,
            _i(
                "--hybrid",
                "kept for old scripts: the same output as without it",
                "hybrid",
            ),
            _i("--json", "print one line of JSON (always the fused list)", "json"),
            ALL,
            _i("--context", "print the served files as excerpts cut to a byte budget", "context"),
            _i(
                "--context-chars N", "with --context: bytes per file; default 4000", "context_chars"
            ),
            _i("--context-total N", "with --context: bytes in all; default 8000", "context_total"),
            _i(
                "--exit-code",
                f"exit {NOTHING_EXIT} instead of 0 when the verdict is nothing",
                "exit_code",
            ),
        ),
        (
            'kb route "how often should I test a backup restore"',
            'kb route "k8s rollout" fleet/ada --json --exit-code',
        ),
        (
            (0, "answered, a refusal (verdict nothing) included"),
            OPEN_1,
            (2, "no question; a bad flag"),
            (NOTHING_EXIT, "with --exit-code only: the verdict was nothing"),
        ),
    ),
    "fleet": VerbHelp(
        (PATHS,),
        (
            _i("--all", "also name the person's base, private as a whole", "all"),
            _i("--json", "print the fleet card as one line of JSON", "json"),
        ),
        ("kb fleet", "kb fleet --json"),
        ((0, "described"), OPEN_1, USAGE_2),
    ),
    "doctor": VerbHelp(
        (_i("[fleet]", "the fleet root or base to check; default .", "path"),),
        (
            _i(
                "--settings FILE",
                "the Claude Code settings whose hooks to run; default: the first "
                ".claude/settings.json from here upward",
                "settings",
            ),
            _i("--all", "open the fleet with its private layer, as a hook with --all would", "all"),
        ),
        ("kb doctor", "kb doctor ~/fleet --settings .claude/settings.json"),
        (
            (0, "nothing to fix"),
            (1, "at least one check says what to fix"),
            (2, "the command line is wrong, or --settings names no file"),
        ),
    ),
    "sync": VerbHelp(
        (_i("[fleet]", "the fleet's git checkout; default .", "fleet"),),
        (
            _i(
                "--remote R",
                "the git remote to pull from and push to; default the branch's",
                "remote",
            ),
            _i("--all", "re-index the private layer too after the pull", "all"),
        ),
        ("kb sync", "kb sync ~/fleet --remote origin"),
        (
            (0, "in step with the remote: kb's files committed, rebased, pushed, re-indexed"),
            (1, "offline, no remote, a note in conflict (named, the rebase undone), or git failed"),
            USAGE_2,
        ),
    ),
    "daemon": VerbHelp(
        (
            _i(
                "<start|stop|status>",
                "start the fleet's resident kb, stop it, or say whether one runs and how",
                "action",
            ),
            _i("[fleet-root]", "the fleet root it holds open; default .", "path"),
        ),
        (JSON,),
        ("kb daemon start", "kb daemon status --json", "kb daemon stop ~/fleet"),
        (
            (0, "started, already running, stopped (or none was running), or status: running"),
            (1, "status: none running; or the socket folder is not this user's alone"),
            USAGE_2,
        ),
    ),
    "trust": VerbHelp(
        (_i("[fleet]", "the fleet root whose fleet.txt names the commands; default .", "path"),),
        (
            _i(
                "--dry-run",
                "show each command, what it runs and whether it awaits approval; approve nothing",
                "dry_run",
            ),
        ),
        ("kb trust --dry-run", "kb trust ~/fleet"),
        (
            (0, "every command fleet.txt names is approved (or --dry-run showed them)"),
            (1, "the fleet is not a folder, or the approvals could not be written"),
            USAGE_2,
        ),
    ),
    "merge-driver": VerbHelp(
        (
            _i(
                "<map|misses|log>",
                "which of kb's files: MAP.md, kb-misses.txt, a counted log",
                "kind",
            ),
            _i("<base>", "the common ancestor's copy (git's %O)", "base"),
            _i("<ours>", "our copy, where the merge is written (git's %A)", "ours"),
            _i("<theirs>", "their copy (git's %B)", "theirs"),
            _i("[path]", "the file's path in the repository, for messages (git's %P)", "path"),
        ),
        (),
        ("kb merge-driver map %O %A %B %P",),
        (
            (0, "merged cleanly into <ours>"),
            (1, "a conflict git must show the person (written into <ours> with markers)"),
            (2, "an unknown kind, or a file that cannot be read"),
        ),
    ),
    "commit": VerbHelp(
        (_i("<path>...", "the paths to commit, and only these", "paths"),),
        (_i("-m, --message TEXT", "the commit message (required)", "message"),),
        ('kb commit fleet/ada/knowledge/backups.md -m "Backups: the monthly drill"',),
        ((0, "committed"), (1, "every refusal and every git failure"), USAGE_2),
    ),
    "remember": VerbHelp(
        (_i("<claim>", "the claim you are about to write down, as one argument", "claim"), PATHS),
        (ALL, JSON),
        ('kb remember "the restore drill runs monthly"',),
        ((0, "a proposal was made; nothing is ever written"), OPEN_1, (2, "no claim; a bad flag")),
    ),
    "serve": VerbHelp(
        (PATHS,),
        (
            _i(
                "--top N", "results per kb_route/kb_retrieve call that names none; default 5", "top"
            ),
            _i("--all", "include the private layer in every tool's answers", "all"),
            _i("--http", "serve HTTP on 127.0.0.1 with a bearer token instead of stdio", "http"),
            _i("--port N", "with --http: the port; default 4115, 0 picks a free one", "port"),
        ),
        ("kb serve", "kb serve --http --port 4115"),
        (
            (0, "the client closed stdin, or the server was stopped"),
            (1, "the memory could not be opened; stdout could not be written"),
            USAGE_2,
        ),
    ),
    "source": VerbHelp(
        (
            _i("add", "the only action: mint one source record", "action"),
            _i("[path]", "the base the record belongs to (not a fleet root); default .", "path"),
        ),
        (
            _i(
                "--type T", "required: book, chapter, article, report, webpage or recording", "type"
            ),
            _i("--title X", "required: the work's title", "title"),
            _i(
                "--retrieved-on DATE",
                "required: the day you read it, as YYYY-MM-DD",
                "retrieved_on",
            ),
            _i(
                "--retrieval-status S",
                "required: full, partial, metadata or unreachable",
                "retrieval_status",
            ),
            _i("--author A", "one author, Family, Given; repeat in order", "author"),
            _i("--year Y", "the year of publication", "year"),
            _i("--container C", "the journal, book or site it appeared in", "container"),
            _i("--volume V", "the volume", "volume"),
            _i("--pages P", "the page range", "pages"),
            _i("--publisher P", "the publisher", "publisher"),
            _i("--url U", "where it can be read", "url"),
            _i("--doi D", "its DOI", "doi"),
            _i("--isbn I", "its ISBN", "isbn"),
            _i("--lang L", "the language it is written in", "lang"),
            _i("--replaces KEY", "this record corrects KEY, a record of the same base", "replaces"),
            _i("--note N", "a free note kept with the record", "note"),
        ),
        (
            'kb source add fleet/ada --type webpage --title "Restore drills" '
            "--retrieved-on 2026-09-06 --retrieval-status full",
        ),
        (
            (0, "written"),
            (1, "the base is not there, or the disk refused"),
            (2, "a missing or bad field, a fleet root instead of a base, no free key; a bad flag"),
        ),
    ),
    "sources": VerbHelp(
        (PATHS,),
        (_i("--json", "print the records as one line of CSL JSON", "json"), ALL),
        ("kb sources", "kb sources fleet/ada --json"),
        ((0, "listed"), (1, "a base is missing, or a record is broken"), USAGE_2),
    ),
    "check": VerbHelp(
        (PATHS,),
        (
            _i("--strict", "warnings also make the exit code 1", "strict"),
            ALL,
            _i("--json", "print every base's findings as one line of JSON", "json"),
        ),
        ("kb check", "kb check fleet/ada --strict"),
        (
            (0, "clean, or warnings only"),
            (1, "errors; warnings with --strict; a base that could not be read"),
            USAGE_2,
        ),
    ),
    "init": VerbHelp(
        (
            _i("<name>", "the agent's name: lower case, digits and hyphens", "name"),
            _i("[fleet-root]", "the fleet to add it to; default .", "paths"),
        ),
        (_i("--person", "create fleet/person, the owner's private base, instead", "person"),),
        ("kb init ada", "kb init --person ~/fleet"),
        (
            (0, "created"),
            (1, "it exists already, a bad name, or the disk refused"),
            (2, "no name; a bad flag"),
        ),
    ),
    "write": VerbHelp(
        (
            _i("<agent>", "the agent's folder name under fleet/", "agent"),
            _i("<slug>", "the note's name: <slug>.md, linked as [[<slug>]]", "slug"),
            _i("[fleet-root]", "the fleet root, or the base itself; default .", "paths"),
        ),
        (
            _i(
                "--keys 'a, b'", "required: the words a question would use, comma separated", "keys"
            ),
            _i(
                "--summary LINE",
                "one line: what the note exists to say, and its map entry",
                "summary",
            ),
            _i(
                "--title T",
                "the note's `# ` title; default the body's heading or first line",
                "title",
            ),
            _i(
                "--folder F",
                "knowledge (default), inbox, decisions, protocols or templates,"
                " or a folder below one",
                "folder",
            ),
            _i("--provenance P", "agent (default), human or external", "provenance"),
            _i("--stage S", "derived (default), raw, captured or distilled", "stage"),
            _i(
                "--captured-from PATH",
                "where the note came from, kept in its front matter",
                "captured_from",
            ),
        ),
        (
            "echo 'Test a restore monthly.' | kb write ada restore-drills "
            "--keys 'restore test, backup drill'",
            "echo 'Monthly.' | kb write ada drills --keys 'restore test' --title 'Restore drills'",
        ),
        (
            (0, "written (a house-style warning, if any, on stderr)"),
            (
                1,
                "a refusal (the note exists, no such agent, every key unreachable, a dash where"
                " fleet.txt says style = no-dashes) or the disk refused",
            ),
            (2, "no agent or name; keys made only of stopwords; a bad flag"),
        ),
    ),
    "eval": VerbHelp(
        (
            _i("<gold.tsv>", "the gold file: question, TAB, the file that answers or -", "gold"),
            PATHS,
        ),
        (
            _i("--top N", "how many files each reading list holds; default 5", "top"),
            ALL,
            _i(
                "--classify",
                "also grade the fleet's classifier model, one call a question",
                "classify",
            ),
            _i("--triad", "add the offline faithfulness/relevance/context table", "triad"),
            JSON,
        ),
        ("kb eval gold.tsv", "kb eval gold.tsv fleet --json"),
        (
            (0, "graded"),
            (
                1,
                "the memory could not be opened; the gold file names files the fleet does not have",
            ),
            (2, "no gold file, or one that cannot be read; a bad flag"),
        ),
    ),
    "misses": VerbHelp(
        (PATHS,),
        (
            _i("--all", "include the private layer in the near misses", "all"),
            _i("--top N", "candidate files looked at per logged question; default 5", "top"),
            JSON,
            _i(
                "--apply",
                "with --gold: propose alias lines and keep those the gold survives",
                "apply",
            ),
            _i("--gold TSV", "the gold file --apply must not break", "gold"),
        ),
        ("kb misses", "kb misses --apply --gold gold.tsv"),
        (
            (0, "reported, including nothing missed"),
            (1, "the memory or the log could not be read; --apply could not write"),
            (2, "--apply without --gold; a bad gold file; no promoter; a bad flag"),
        ),
    ),
    "misroute": VerbHelp(
        (
            _i("<message>", "the message that was routed wrong, as one argument", "message"),
            ROOT,
        ),
        (
            _i("--chose AGENT", "the agent kb boot picked", "chose"),
            _i("--owner AGENT", "the agent that owns it; none (or -) when no agent does", "owner"),
            _i("--why TEXT", "one line on why the owner is the owner", "why"),
        ),
        ('kb misroute "rotate the staging cert" --chose clara --owner ada',),
        (
            (0, "recorded"),
            (1, "the fleet could not be read, or the log not written"),
            (2, "a missing flag or message, an unknown agent, chose equals owner"),
        ),
    ),
    "misroutes": VerbHelp(
        (_i("[path]", "the fleet root whose kb-misroutes.txt is read; default .", "path"),),
        (_i("--top N", "print the first max(N, 1) x 4 faults; default 5", "top"),),
        ("kb misroutes",),
        ((0, "always, once the command line parses"), USAGE_2),
    ),
    "abstentions": VerbHelp(
        (_i("[path]", "the fleet root whose kb-abstentions.txt is read; default .", "path"),),
        (
            _i("--top N", "print the first max(N, 1) x 4 subjects; default 5", "top"),
            _i("--all", "include the private layer when scoring today", "all"),
        ),
        ("kb abstentions",),
        ((0, "reported"), OPEN_1, USAGE_2),
    ),
    "links": VerbHelp(
        (
            _i("<note>", "the note to start from: base/path, a path, or a file name", "note"),
            PATHS,
        ),
        (
            _i("--direction D", "out (default), in (backlinks) or both", "direction"),
            _i("--depth N", "how many hops to walk; default 1", "depth"),
            _i("--limit N", "print at most N notes; default 50", "limit"),
            JSON,
            ALL,
        ),
        ("kb links ada/knowledge/backups.md --direction both",),
        (
            (0, "walked, even when nothing was reached"),
            (1, "no note in scope answers to <note>; the memory could not be opened"),
            (2, "no note, or one matching several; a bad flag"),
        ),
    ),
    "graph": VerbHelp(
        (PATHS,),
        (
            _i("--format F", "mermaid (default), dot or json", "format"),
            _i("--note N", "only this note's neighbourhood", "note"),
            _i("--key K", "only the notes that declare key K", "key"),
            _i("--limit N", "at most N notes and N keys; default 50", "limit"),
            ALL,
        ),
        ("kb graph --format dot", "kb graph --key backup"),
        (
            (0, "exported"),
            (1, "--note or --key names nothing in scope; the memory could not be opened"),
            (2, "--note and --key together; a bad flag"),
        ),
    ),
    "blocks": VerbHelp(
        (_i("[path]", "the agent's base; default .", "path"),),
        (_i("--emit", "print the assembled constitution instead of the price list", "emit"),),
        ("kb blocks fleet/ada", "kb blocks fleet/ada --emit"),
        ((0, "printed"), (1, "no readable blocks.txt at the path"), USAGE_2),
    ),
    "boot": VerbHelp(
        (_i("[path]...", "the fleet to route across; default the payload's cwd, else .", "paths"),),
        (
            _i("--top N", "how many files the briefing draws from; default 5", "top"),
            ALL,
            _i("--session ID", "the session id, over the payload's session_id", "session"),
            _i("--cwd DIR", "the directory to route from when no path is given", "cwd"),
            _i("--text", "stdin is the message itself, even when it looks like JSON", "text"),
        ),
        ("echo 'how do I restore a backup' | kb boot ~/fleet --text",),
        ((0, "always: a hook that fails must cost the person nothing (errors go to stderr)"),),
    ),
    "handoff": VerbHelp(
        (
            _i(
                "save|claim|complete|show",
                "the action; none reads the latest record back",
                "action",
            ),
            _i(
                "<agent> [path]", "the agent (save, claim), then the fleet root; default .", "paths"
            ),
        ),
        (
            _i("--task TEXT", "with save, required: one line of what the work is", "task"),
            _i("--decision D", "with save: a decision made; repeatable", "decision"),
            _i("--blocker B", "with save: what is in the way; repeatable", "blocker"),
            _i("--next N", "with save: a next step; repeatable", "next"),
            _i(
                "--ref R, --reference R",
                "with save: a file or link to read; repeatable",
                "ref",
                "reference",
            ),
            _i(
                "--session ID",
                "the session's record; default today's (save) or the latest",
                "session",
            ),
            _i("--claim AGENT", "the same as the claim action", "claim"),
            _i("--complete", "the same as the complete action", "complete"),
            _i("--show", "the same as the show action", "show"),
            _i("--json", "print the record as one JSON object", "json"),
        ),
        (
            'kb handoff save ada --task "finish the restore drill" --next "run it on staging"',
            "kb handoff claim bruno",
        ),
        (
            (0, "done; show found a record or none"),
            (1, "no record to claim or complete, a refused transition, or the disk refused"),
            (2, "save without an agent or --task, claim without an agent; a bad flag"),
        ),
    ),
    "capture": VerbHelp(
        (_i("[path]", "the fleet root; default the hook payload's cwd, else .", "path"),),
        (
            _i(
                "--session ID",
                "the session to capture; default the payload's session_id",
                "session",
            ),
            _i(
                "--conclusion TEXT",
                "a conclusion to record first (scrubbed of secrets)",
                "conclusion",
            ),
        ),
        ("kb capture --session abc123",),
        (
            (0, "a deposit was written, or there was nothing to do"),
            (1, "the root is missing, or the record could not be written or cleared"),
            (2, "no session named; a bad flag"),
        ),
    ),
    "ui": VerbHelp(
        (PATHS,),
        (_i("--port N", "the port on 127.0.0.1, 1 to 65535; default 4114", "port"), ALL),
        ("kb ui", "kb ui ~/fleet --port 4200"),
        (
            (0, "stopped normally"),
            (1, "the port could not be bound, or the memory opened"),
            USAGE_2,
        ),
    ),
    "answer": VerbHelp(
        (
            _i("<question>", "the question, as one argument: quote it", "question"),
            _i(
                "[path]...",
                "bases or fleet roots; the first one's fleet.txt names the answerer",
                "paths",
            ),
        ),
        (
            _i("--top N", "how deep retrieval looks; default 5", "top"),
            ALL,
            _i(
                "--expanded", "read the top 12 files instead of 5, still one model call", "expanded"
            ),
            _i("--complete", "read every keyed file in batches, then compose; slow", "complete"),
            _i(
                "--model-timeout S",
                "seconds each model call may take; default KB_MODEL_TIMEOUT, else 300",
                "model_timeout",
            ),
            _i("--json", "print the outcome as one line of JSON", "json"),
            _i(
                "--exit-code",
                f"exit {NOTHING_EXIT} instead of 0 when the library holds no answer",
                "exit_code",
            ),
        ),
        (
            'kb answer "what is the liquids limit in hand luggage"',
            'kb answer "how many times did the gateway fail" --complete',
        ),
        (
            (0, "answered, refused, or the reading list printed"),
            (1, "the memory could not be opened; the answerer did not reply"),
            (2, "no question; --complete without an answerer; a bad flag"),
            (NOTHING_EXIT, "with --exit-code only: the library holds no answer (verdict nothing)"),
        ),
    ),
    "panel": VerbHelp(
        (
            _i("<artifact>", "the piece under review, as a path or a name", "artifact"),
            ROOT,
        ),
        (
            _i("--owner AGENT", "open: the agent accountable for the piece", "owner"),
            _i("--reviewer AGENT", "open: a reviewer, at most three; repeatable", "reviewer"),
            _i("--out DIR", "open: where the constitutions go; default <path>/.kb/panel", "out"),
            _i("--from AGENT", "record: the reviewer reporting back (or resolving)", "from_"),
            _i("--objection TEXT", "record: one objection", "objection"),
            _i("--blocking", "record: the objection blocks the piece", "blocking"),
            _i("--nothing", "record: the reviewer found nothing to object to", "nothing"),
            _i("--not-returned", "record: the reviewer never came back", "not_returned"),
            _i("--why TEXT", "the reason, with an objection or a resolution", "why"),
            _i("--resolve N", "resolve objection N of the ledger", "resolve"),
            _i("--taken", "resolve: the owner changed the piece", "taken"),
            _i("--refused", "resolve: refused, with --why (advisory objections only)", "refused"),
            _i("--escalated", "resolve: handed to the person", "escalated"),
            _i("--ledger", "read the round back; exit 1 while it is open", "ledger"),
            _i("--json", "print the outcome or the ledger as JSON", "json"),
        ),
        ("kb panel draft.md --owner ada --reviewer bruno", "kb panel draft.md --ledger"),
        (
            (0, "done; --ledger on a closed round"),
            (1, "the fleet or ledger could not be read or written; --ledger on an open round"),
            (2, "an argument error or a move the ledger refuses"),
        ),
    ),
    "promote": VerbHelp(
        (
            _i(
                "[path]...",
                "bases or a fleet root; the first is the root fleet.txt is read from",
                "paths",
            ),
        ),
        (
            _i("--top N", "files shown to the reviewer as evidence; default 5", "top"),
            _i("--all", "also read deposits in the private layer", "all"),
            _i("--dry-run", "ask every model, write nothing, count no refusal", "dry_run"),
            _i("--max N", "stop after N proposals are admitted", "max"),
            _i("--lock", "hold .kb-promote.lock for the run", "lock"),
        ),
        ("kb promote --dry-run", "kb promote fleet/ada --max 3"),
        (
            (0, "ran, or another run holds the lock"),
            (1, "the memory could not be opened; a model or file was unreachable"),
            (2, "no promoter or reviewer in fleet.txt; a bad flag"),
        ),
    ),
    "rejections": VerbHelp(
        (_i("[path]...", "the root whose kb-rejections.txt is read; default .", "paths"),),
        (
            _i("--top N", "print the first max(N, 1) x 4 rows; default 5", "top"),
            _i("--agent A", "only rows for agent A", "agent"),
            _i("--lens L", "only contradiction, duplication or scope", "lens"),
            _i("--json", "print every row as a JSON array", "json"),
        ),
        ("kb rejections --lens scope",),
        ((0, "always, once the command line parses"), USAGE_2),
    ),
    "ingest": VerbHelp(
        (
            _i("<file>", "the document to ingest", "file"),
            _i("[path]...", "the fleet; default .", "paths"),
        ),
        (
            _i("--agent NAME", "the owner, instead of letting the router choose", "agent"),
            _i("--keep", "keep the staged document even when a note was written", "keep"),
            _i("--dry-run", "read the text and choose the owner, then stop", "dry_run"),
            _i("--top N", "candidates the router carries; default 5", "top"),
            ALL,
        ),
        ("kb ingest ~/Downloads/runbook.md --agent ada",),
        (
            (0, "absorbed, kept with --keep, or a dry run"),
            (1, "no such file, no text, no owner, or kept for any other reason"),
            (2, "no file named; no promoter or reviewer; a bad flag"),
        ),
    ),
    "consolidate": VerbHelp(
        (_i("<agent>", "the agent whose sessions are read", "agent"), ROOT),
        (
            _i("--sessions N", "how many sessions to gather at most; default 5", "sessions"),
            _i("--top N", "files shown to the reviewer as evidence; default 5", "top"),
            _i("--dry-run", "decide everything, write nothing", "dry_run"),
            _i("--json", "print the result as one JSON object", "json"),
        ),
        ("kb consolidate ada --dry-run",),
        (
            (0, "it ran, whatever it found"),
            (1, "the memory could not be opened; no such agent"),
            (2, "no agent; no promoter or reviewer; a bad flag"),
        ),
    ),
}


def flag_line(verb: str, field: str) -> str | None:
    """The one line that explains `field` of `verb`'s input, for any surface that lists it."""
    entry = HELP.get(verb)
    if entry is None:
        return None
    return next((i.line for i in (*entry.args, *entry.flags) if field in i.fields), None)


def flag_names(verb: str) -> list[str]:
    """The flags of `verb` as typed (`--top`), for a message that lists the legal ones."""
    entry = HELP.get(verb)
    if entry is None:
        return []
    return [part.split()[0] for i in entry.flags for part in i.shown.split(", ")]


WIDTH = 88  # columns a help line wraps at: as wide as most of the table's usage lines


def _rows(items: tuple[Item, ...]) -> list[str]:
    """`  shown  line`, the lines aligned, a long line wrapped under its own column."""
    import textwrap

    width = min(max((len(i.shown) for i in items), default=0), 24)
    out: list[str] = []
    for i in items:
        indent = " " * (width + 4)
        wrapped = textwrap.wrap(i.line, WIDTH - len(indent)) or [""]
        if len(i.shown) > width:
            out.append(f"  {i.shown}")
        else:
            out.append(f"  {i.shown:<{width}}  {wrapped.pop(0)}")
        out += [indent + w for w in wrapped]
    return out


def help_text(name: str, summary: str, usage: tuple[str, ...]) -> str:
    """The help of one verb: what it does, its usage, each argument and flag in one line, an
    example, and what each exit code means."""
    lines = [f"kb {name}: {summary}", "", "usage:", *(f"  {u}" for u in usage)]
    entry = HELP.get(name)
    if entry is not None:
        if entry.args:
            lines += ["", "arguments:", *_rows(entry.args)]
        if entry.flags:
            lines += ["", "flags:", *_rows(entry.flags)]
        lines += ["", "example:" if len(entry.examples) == 1 else "examples:"]
        lines += [f"  {e}" for e in entry.examples]
        lines += ["", "exit codes:", *_rows(tuple(Item(str(c), why, ()) for c, why in entry.exits))]
    return "\n".join(lines) + "\n"
