"""A server re-walks only the bases a watcher saw change (kb.io.answering.live.walk_again):
for every kind of change, what it opens is what a walk of every base finds, and a base no
change lies in keeps the snapshot it had, unless a change made through a name outside it
could have reached it (a link, a second hard link)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from kb.io.answering.live import walk_again
from kb.io.answering.memory import Memory
from kb.io.answering.watcher import CHANGED_PATHS_KEPT, Watcher
from kb.io.notes.walk import BaseSnapshot, WalkError, walk_roots

REPO = Path(__file__).resolve().parents[2]


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _new_base(root: Path) -> None:
    (root / "fleet" / "dora" / "knowledge").mkdir(parents=True)
    (root / "fleet" / "dora" / "knowledge" / "kites.md").write_text("# Kites\n\nOn windy days.\n")


# change name -> (what is done, the bases that must be walked again at most)
CHANGES: dict[str, tuple[Callable[[Path], object], set[str] | None]] = {
    "a note edited": (
        lambda r: _append(r / "fleet/ada/knowledge/backups.md", "\nMore.\n"),
        {"ada"},
    ),
    "a note written": (
        lambda r: (r / "fleet/bruno/knowledge/polenta.md").write_text("# Polenta\n\nStir.\n"),
        {"bruno"},
    ),
    "a note deleted": (lambda r: (r / "fleet/clara/knowledge/bagagem.md").unlink(), {"clara"}),
    "a note renamed": (
        lambda r: (r / "fleet/ada/tools/grafana.md").rename(r / "fleet/ada/tools/dashboards.md"),
        {"ada"},
    ),
    "a note moved to another base": (
        lambda r: (r / "fleet/ada/tools/grafana.md").rename(r / "fleet/bruno/grafana.md"),
        {"ada", "bruno"},
    ),
    "an agent.txt edited": (
        lambda r: _append(r / "fleet/clara/agent.txt", "\n# late\n"),
        {"clara"},
    ),
    "a folder added": (lambda r: (r / "fleet/bruno/recipes").mkdir(), {"bruno"}),
    "a base added": (_new_base, None),
    "a base removed": (lambda r: shutil.rmtree(r / "fleet/clara"), None),
    "fleet.txt edited": (lambda r: _append(r / "fleet.txt", "\n# late\n"), None),
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    pytest.importorskip("watchdog")
    root = tmp_path / "harbor"
    shutil.copytree(REPO / "examples" / "fleet", root)
    return root


def _reported(root: Path, change: Callable[[Path], object]) -> list[str] | None:
    """The paths a real watcher over `root` reports for `change`."""
    watcher = Watcher([str(root)], root / ".kb" / "cookie")
    watcher.start()
    assert watcher.mode == "watcher", watcher.why
    try:
        before = watcher.generation
        change(root)
        assert watcher.send() and watcher.wait(), watcher.why
        return watcher.changed_since(before)
    finally:
        watcher.stop()


def _same(walked: list[BaseSnapshot | WalkError], full: list[BaseSnapshot | WalkError]) -> None:
    assert [str(w) if isinstance(w, WalkError) else w for w in walked] == [
        str(w) if isinstance(w, WalkError) else w for w in full
    ]


@pytest.mark.parametrize("name", sorted(CHANGES))
@pytest.mark.parametrize("include_private", [False, True])
def test_a_partial_walk_finds_what_a_full_walk_finds(
    root: Path, name: str, include_private: bool
) -> None:
    change, at_most = CHANGES[name]
    with Memory.open([str(root)], all=include_private) as memory:
        changed = _reported(root, change)
        assert changed, "the watcher reported the change"
        walked = walk_again(memory, changed)
        _same(walked, walk_roots(list(memory.opened), include_private))
        old = {b.snapshot.given: b.snapshot for b in memory.bases}
        again = {
            os.path.basename(w.given)
            for w in walked
            if isinstance(w, BaseSnapshot) and old.get(w.given) is not w
        }
        if at_most is None:
            assert again == {
                os.path.basename(w.given) for w in walked if isinstance(w, BaseSnapshot)
            }
        else:
            assert again <= at_most and again  # only the bases the change lies in


def test_a_change_inside_a_folder_the_walk_skips_walks_nothing_again(root: Path) -> None:
    """kb's own index writes (the re-index after an edit) land in the base's `.kb/`, and an
    editor keeps its state in a dot folder: a walk lists neither, so neither makes the next
    question walk the base again (the index files' stat is taken afresh for the fleet's
    stamp, kb.io.answering.live.stamp_of, whatever the walk keeps). A dot file the walk does
    list still does."""
    wal = root / "fleet/ada/.kb/index.db-wal"
    wal.parent.mkdir(parents=True, exist_ok=True)  # a new folder changes its parent
    with Memory.open([str(root)]) as memory:
        changed = _reported(root, lambda r: wal.write_text("frames\n", encoding="utf-8"))
        assert changed and all("/.kb/" in p for p in changed)
        editor = os.path.realpath(root / "fleet/ada/knowledge") + "/.obsidian/workspace.json"
        for paths in (changed, [editor]):
            walked = walk_again(memory, paths)
            _same(walked, walk_roots(list(memory.opened), False))
            assert all(w is b.snapshot for w, b in zip(walked, memory.bases, strict=True))
        dotted = root / "fleet/ada/knowledge/.draft.md"
        changed = _reported(root, lambda r: dotted.write_text("# Draft\n", encoding="utf-8"))
        assert changed
        walked = walk_again(memory, changed)
        _same(walked, walk_roots(list(memory.opened), False))
        ada = next(b.snapshot for b in memory.bases if b.snapshot.name == "ada")
        assert ada not in walked  # walked again: it holds a new note


@pytest.mark.parametrize("kind", ["hard link", "symlink"])
def test_a_base_that_names_a_file_of_another_is_walked_again_with_it(root: Path, kind: str) -> None:
    """A change made through bruno's name for a file reaches ada's name for it too, and is
    reported in bruno alone: ada is walked again whatever changed."""
    target = root / "fleet/bruno/knowledge/arroz-e-feijao.md"
    twin = root / "fleet/ada/knowledge/twin.md"
    if kind == "hard link":
        os.link(target, twin)
    else:
        twin.symlink_to(target)
    with Memory.open([str(root)]) as memory:
        changed = _reported(root, lambda r: _append(target, "\nSoak overnight.\n"))
        assert changed and all("/fleet/bruno/" in p for p in changed)
        walked = walk_again(memory, changed)
        full = walk_roots(list(memory.opened), False)
        _same(walked, full)
        ada = next(b.snapshot for b in memory.bases if b.snapshot.name == "ada")
        assert ada not in walked  # walked again: its twin's size changed


def test_changed_since_is_none_once_paths_are_lost(tmp_path: Path) -> None:
    """A reader behind a loss (the kernel's queue overflowed) or behind more changes than
    are kept is told to walk everything; one after it gets the paths since its count."""
    watcher = Watcher([str(tmp_path)], tmp_path / ".kb" / "cookie")
    note = str(tmp_path / "fleet" / "ada" / "a.md")
    watcher._reported(False, note)
    assert watcher.changed_since(0) == [note] and watcher.changed_since(1) == []
    watcher._lost(watcher.generation + 1)  # what the overflow handler does
    watcher.generation += 1
    assert watcher.changed_since(1) is None and watcher.changed_since(2) == []
    for i in range(CHANGED_PATHS_KEPT + 1):
        watcher._reported(False, f"{note}.{i}.md")
    assert watcher.changed_since(2) is None
    last = watcher.generation
    assert watcher.changed_since(last - 3) == [
        f"{note}.{i}.md" for i in range(CHANGED_PATHS_KEPT - 2, CHANGED_PATHS_KEPT + 1)
    ]


QUESTIONS = ("backup restore", "arroz feijao", "bagagem de mao", "grafana dashboards", "zorbly")


@pytest.mark.parametrize("warm", [False, True])
def test_a_reopen_after_one_change_keeps_what_the_unchanged_bases_prepared(
    root: Path, warm: bool
) -> None:
    """The re-opened fleet keeps each unchanged base's stat pass and prepared keyword
    entries (kb.io.answering.memory.adopt_warm): a question then decodes only the changed
    base's candidates, and answers as a fleet opened afresh does."""
    from kb.io.answering.live import LiveMemory

    memory = Memory.open([str(root)])
    if warm:
        memory.warm(wait=True)  # every entry prepared, by the keyword index
    for q in QUESTIONS:
        memory.ask(q)  # cold, the candidates the questions meet are prepared
    if warm:
        prepared = {
            (b.snapshot.name, rel)
            for b, o in zip(memory.bases, memory._entry_order, strict=True)
            for rel in o
        }
    else:
        prepared = {(memory.bases[i].snapshot.name, rel) for i, rel in memory._prepared}
    live = LiveMemory(memory)
    try:
        note = root / "fleet/bruno/knowledge/temperos-e-ervas.md"
        _append(note, "\nGrafana dashboards for the spice rack.\n")
        live.refresh([os.path.realpath(note)])
        fresh = live.current()
        assert live.reopened == 1 and fresh is not memory
        kept = [b for b in fresh.bases if any(b.scan is old.scan for old in memory.bases)]
        assert {b.snapshot.name for b in kept} == {"ada", "clara", "person"}
        carried = {(fresh.bases[j].snapshot.name, rel) for j, rel in fresh._prepared}
        assert carried == {(name, rel) for name, rel in prepared if name != "bruno"}
        assert any(name == "ada" for name, _ in carried)
        answers = [fresh.ask(q) for q in QUESTIONS]
        with Memory.open([str(root)]) as afresh:
            assert answers == [afresh.ask(q) for q in QUESTIONS]
    finally:
        live.close()


def test_a_reopened_fleet_is_warmed_once_the_disk_was_quiet_as_long_as_a_warm_read_takes(
    root: Path,
) -> None:
    """Each change re-read text and the whole keyword index at once (13 s of a core at
    100,000 notes), so a burst of changes ran one read per change on top of each other."""
    from kb.io.answering.live import LiveMemory

    memory = Memory.open([str(root)])
    memory.warm(wait=True)
    assert memory.warm_seconds > 0
    memory.warm_seconds = 0.6  # as if a warm read took this long
    live = LiveMemory(memory)
    try:
        note = root / "fleet/bruno/knowledge/temperos-e-ervas.md"
        _append(note, "\nOne change.\n")
        live.refresh([os.path.realpath(note)])
        first = live.current()
        assert first is not memory and not first.is_warming()
        _append(note, "\nAnother, within the wait.\n")
        live.refresh([os.path.realpath(note)])
        second = live.current()
        assert second is not first and not second.is_warming()
        assert second.warm_seconds == 0.6  # carried: the wait follows the measured cost
        deadline = time.monotonic() + 10
        while not second.is_warm and time.monotonic() < deadline:
            time.sleep(0.05)
        assert second.is_warm
        assert not first.is_warming()  # its warm was called off by the second change
    finally:
        live.close()
