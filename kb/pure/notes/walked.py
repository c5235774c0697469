"""What a walk of a fleet reads, by path: a change anywhere else cannot change what the fleet
opens as, so a resident kb's watcher does not count it.

A walk (kb.io.notes.walk) reads every folder whose name does not start with `.`, every
`*.md` file in them, a base's `agent.txt` and `kb-aliases.txt`, and (for its stamp,
kb.io.answering.live) the stat of each base's index files in `.kb/`. A fleet's `fleet.txt`
counts too, to be safe, though the verbs that read it read it afresh. Nothing else does:
not the miss log and the other logs kb writes beside the notes, not their locks and
temporary files, not the session records in `.kb/sessions/`. Counting those as changes made
every question after a refusal pay a stat pass of the whole fleet (119 ms at 10,000 notes,
against 8 ms), since a refusal writes the miss log into the fleet's root.
"""

from __future__ import annotations

from collections.abc import Sequence

WALKED_FILES = frozenset({"agent.txt", "kb-aliases.txt", "fleet.txt"})
STATE_DIR = ".kb"
INDEX_FILES = ("index.db", "index.db-wal")  # a base's index, whose stat is in its stamp


def inside_a_skipped_folder(folders: Sequence[str]) -> bool:
    """Whether a path below a walked folder, by the names of the folders it lies in, is inside
    one the walk never enters: a folder whose name starts with a dot."""
    return any(f.startswith(".") for f in folders)


def changes_a_walk(parts: Sequence[str], is_dir: bool, closed: bool = False) -> bool:
    """Whether a change at the path `parts` (its names below a watched folder; a folder when
    `is_dir`) can change what a walk reads. Names are compared case-folded, as a
    case-insensitive disk would open them; anything unsure counts.

    `closed`: the event says only that a file opened for writing was closed. SQLite opens a
    base's index files for writing in every process that reads them, so each reader's close
    (a warm copy's snapshot, a connection of a one-shot kb) was reported as a change, and a
    resident kb walked the whole fleet after it (six walks in 310 `kb serve` calls at 10,000
    notes; a walk is about a second at 100,000). Every write SQLite makes to them is
    reported as a modification, a deletion or a move first, so their closes are not counted."""
    if not parts:
        # The watched folder itself: its changes are its entries' (each reported on its own,
        # and watchdog reports the folder modified beside each, a miss log's write too); its
        # own attributes changing (made unreadable) leaves a resident kb answering from what
        # it holds either way, as a walk that fails keeps the last good open.
        return False
    *folders, name = (p.lower() for p in parts)
    if inside_a_skipped_folder(folders) or (is_dir and name.startswith(".")):
        # inside a folder the walk skips: only a base's index files, in its own `.kb/` (a
        # folder by such a name too: the stamp stats whatever is there)
        return (
            not closed
            and len(folders) >= 1
            and folders[-1] == STATE_DIR
            and not inside_a_skipped_folder(folders[:-1])
            and name in INDEX_FILES
        )
    return is_dir or name.endswith(".md") or name in WALKED_FILES
