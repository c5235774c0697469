"""`kb init` and `kb write`: the two verbs that create files in a fleet.

Each run function interprets its positionals, asks kb.pure for every decision and message,
and hands the disk work to kb.io. Nothing is printed here; an Outcome is returned.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from kb.pure.notes.names import is_plain_component, is_usable_name, printable
from kb.pure.writing import notewrite as nw
from kb.pure.writing import skeleton as sk
from kb.shell.cli.inputs import InitInput, WriteInput
from kb.shell.cli.outcome import Outcome

INIT_NEEDS = "kb: init needs a name for the agent"


def _usage_error(verb: str, line: str) -> Outcome:
    from kb.shell.cli.table import usage_of

    return Outcome(stdout=usage_of(verb), stderr=f"{line}\n\n", code=2)


def _too_many(verb: str, extra: tuple[str, ...]) -> Outcome:
    listed = ", ".join(f"'{printable(a)}'" for a in extra)
    return Outcome(
        stderr=f"kb {verb}: unexpected argument(s) {listed}: it takes one fleet root at most\n",
        code=2,
    )


def _fail(message: str, code: int = 1) -> Outcome:
    return Outcome(stderr=f"kb: {message}\n", code=code)


# -- kb init ---------------------------------------------------------------------------------


def init(inp: InitInput) -> Outcome:
    if inp.person:
        given = tuple(p for p in (inp.name, *inp.paths) if p is not None)
        if len(given) > 1:
            return _too_many("init", given[1:])
        fleet = given[0] if given else "."
        return _create(fleet, sk.PERSON_DIR, sk.person_skeleton(), sk.person_report)
    if inp.name is None:
        return _usage_error("init", INIT_NEEDS)
    if len(inp.paths) > 1:
        return _too_many("init", inp.paths[1:])
    if not is_usable_name(inp.name):
        return _fail(sk.bad_name(inp.name))
    fleet = inp.paths[0] if inp.paths else "."
    return _create(fleet, inp.name, sk.agent_skeleton(inp.name), sk.agent_report)


def _create(
    fleet: str, dirname: str, skeleton: sk.Skeleton, report: Callable[[str, int], str]
) -> Outcome:
    from kb.io.files.newtree import create_tree

    shown = nw.join(fleet, "fleet", dirname)
    try:
        create_tree(Path(fleet) / "fleet", dirname, skeleton.files)
    except FileExistsError:
        return _fail(sk.already_exists(shown))
    except OSError as e:
        return _fail(sk.cannot_write(shown, e.strerror or str(e)))
    return Outcome(stdout=report(shown, skeleton.reported))


# -- kb write --------------------------------------------------------------------------------


def _interrupted(note_path: str, map_path: str, note: nw.Note) -> bool:
    """The note on disk is a regular file holding exactly `note`, and the map does not link
    it (kb.pure.writing.notewrite.interrupted); False whenever either cannot be read."""
    try:
        if os.path.islink(note_path) or not os.path.isfile(note_path):
            return False
        on_disk = Path(note_path).read_bytes()
        map_text = Path(map_path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return nw.interrupted(on_disk, note, map_text)


def write(inp: WriteInput) -> Outcome:
    if inp.agent is None or inp.slug is None:
        return _usage_error("write", nw.NEEDS)
    if len(inp.paths) > 1:
        return _too_many("write", inp.paths[1:])
    from kb.io.writing.notewrite import StdinError, read_stdin

    try:
        body = read_stdin()
    except StdinError as e:
        return _fail(nw.cannot_read_stdin(str(e)))
    return write_note(inp, body)


def write_note(inp: WriteInput, body: str) -> Outcome:
    """Everything `kb write` does after the body is read (the library and tests call this)."""
    from returns.result import Failure

    from kb.io.files.lockfile import LockBusy
    from kb.io.writing.notewrite import map_locked

    agent, slug = inp.agent or "", inp.slug or ""
    fleet = inp.paths[0] if inp.paths else "."
    root = nw.choose_root(
        fleet,
        agent,
        agent_dir_exists=os.path.isdir(nw.join(fleet, "fleet", agent)),
        fleet_has_map=os.path.isfile(nw.join(fleet, "MAP.md")),
    )
    no_dashes, unknown = house_style(root) if is_plain_component(agent) else (False, ())
    request = nw.NoteRequest(
        slug=slug,
        keys=inp.keys,
        summary=inp.summary,
        body=body,
        folder=inp.folder,
        provenance=inp.provenance,
        stage=inp.stage,
        captured_from=inp.captured_from,
        no_dashes=no_dashes,
        title=inp.title,
    )
    prepared = nw.prepare(request)
    if isinstance(prepared, Failure):
        refused = prepared.failure()
        return _fail(refused.message, refused.code)
    note = prepared.unwrap()
    if not is_plain_component(agent):
        return _fail(nw.bad_agent(agent))
    if not os.path.isdir(root):
        return _fail(nw.no_agent(root))
    map_path = nw.join(root, "MAP.md")
    note_path = nw.join(root, note.folder, f"{note.slug}.md")
    try:
        with map_locked(Path(map_path)):  # one writer at a time reads, places, rewrites
            # Looked for under the lock: `kb sync` holds it while git rewrites the tree, and
            # git removes a file before it writes the file's new version.
            if not os.path.isfile(map_path):
                return _fail(nw.no_map(root))
            done = _place(note, note_path, map_path)
    except LockBusy as e:
        return _fail(nw.cannot_write(map_path, str(e)))
    if done.code != 0:
        return done
    warnings = [nw.dash_warning(note.dashes)] if note.dashes else []
    warnings += [unknown_style(name) for name in unknown]
    return Outcome(stdout=done.stdout, stderr="".join(f"{w}\n" for w in warnings))


def house_style(base_root: str) -> tuple[bool, tuple[str, ...]]:
    """(does the fleet refuse dashes, the style names kb does not know), from the fleet.txt
    nearest above the base: in its parent (a fleet root that holds its bases) or in the
    folder above its `fleet/` folder. No fleet.txt means no house style."""
    from kb.io.notes.walk import fleet_manifest
    from kb.pure.writing.style import NO_DASHES, STYLE_KEY, style_rules

    here = Path(os.path.abspath(base_root))
    for folder in (here.parent, here.parent.parent):
        if (folder / "fleet.txt").is_file():
            known, unknown = style_rules(fleet_manifest(str(folder)).every(STYLE_KEY))
            return NO_DASHES in known, unknown
    return False, ()


def unknown_style(name: str) -> str:
    from kb.pure.writing.style import STYLES

    return (
        f"kb write: fleet.txt names the style `{printable(name)}`, which kb does not know "
        f"(it knows: {', '.join(STYLES)}); it was ignored"
    )


def _place(note: nw.Note, note_path: str, map_path: str) -> Outcome:
    """Write the note and its map entry (the map's lock is held)."""
    from kb.io.writing.notewrite import WriteFailed, write_map, write_note_and_map

    finish = os.path.lexists(note_path)
    if finish and not _interrupted(note_path, map_path, note):
        return _fail(nw.note_exists(note_path))
    try:
        map_text = Path(map_path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = (e.strerror or str(e)) if isinstance(e, OSError) else "it is not UTF-8 text"
        return _fail(nw.cannot_read(map_path, reason))
    placed = nw.insert_entry(map_text, note.folder, note.entry)
    try:
        if finish:  # a write of this very note was killed before its map: finish it
            write_map(Path(map_path), placed.text)
        else:
            write_note_and_map(Path(note_path), note.text, Path(map_path), placed.text)
    except FileExistsError:  # created between the check above and the write
        return _fail(nw.note_exists(note_path))
    except WriteFailed as e:
        return _fail(nw.cannot_write(str(e.path), e.reason))
    except OSError as e:  # the map alone, when finishing
        return _fail(nw.cannot_write(map_path, e.strerror or str(e)))
    return Outcome(stdout=nw.report(note_path, map_path, note.folder, note, placed.section_created))
