"""Issue 24, part 2: every surface reads a note through kb.io.notes.safe_read, which judges the file
it opened, so a link, a hard link, a swapped file or a linked folder is judged when it is read.
One regression test per failure the issue reports (F4, F5, F6, F22), over real processes."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from kb.io.notes.walk import discover
from kb.io.store import Store
from tests.conftest import RunKb
from tests.ui.server import kb_ui

MODELS = Path(__file__).resolve().parent.parent / "models"
END = "=== END PROMPT ==="
CONTRACT = "fleet/ada/records/quillfeather-contract.md"
# Words only the private contract holds
MARKERS = ("Logistics", "retainer", "99.5%", "sixty days")


def _script(name: str, *args: str) -> str:
    return " ".join(shlex.quote(a) for a in (str(MODELS / name), *args))


def _models(fleet: Path, log: Path, promoter: str = "good") -> None:
    (fleet / "fleet.txt").write_text(
        "name = Harbor\n"
        f"promoter = {_script('promoter.py', promoter, '--log', str(log))}\n"
        f"reviewer = {_script('reviewer.py', 'accept')}\n",
        encoding="utf-8",
    )


def _hidden(text: str) -> None:
    for m in MARKERS:
        assert m not in text, f"{m!r} reached a model or an answer:\n{text[:2000]}"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _inbox_links(fleet: Path, outside: Path) -> list[str]:
    """Every kind of link F4 names, placed in ada's inbox under deposit names."""
    ada = fleet / "fleet" / "ada"
    inbox = ada / "inbox"
    contract = ada / "records" / "quillfeather-contract.md"
    os.symlink("../records/quillfeather-contract.md", inbox / "2026-12-01-symlink.md")
    os.link(contract, inbox / "2026-12-01-hardlink.md")
    os.link(contract, inbox / "2026-12-01-hardlink.txt")  # a .txt deposit is never walked
    os.symlink("../records", inbox / "linked-records")
    outside.write_text("# Outside\n\nLogistics retainer kept outside the base\n")
    os.symlink(outside, inbox / "2026-12-01-outside.md")
    return [
        "inbox/2026-12-01-symlink.md",
        "inbox/2026-12-01-hardlink.md",
        "inbox/2026-12-01-hardlink.txt",
        "inbox/linked-records/quillfeather-contract.md",
        "inbox/2026-12-01-outside.md",
    ]


def test_links_in_the_inbox_are_never_handed_to_the_promoter(
    example_fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    # F4: `kb promote --dry-run` handed every one of these to the promoter.
    log = tmp_path / "prompts.txt"
    _models(example_fleet, log)
    links = _inbox_links(example_fleet, tmp_path / "outside.md")
    run = kb(["promote", "--dry-run"], cwd=example_fleet)
    assert run.code == 0, run.stderr
    prompts = _read(log)
    assert prompts.count(END) == 1  # the one real deposit, 2026-11-20-session.md
    _hidden(prompts + run.stdout + run.stderr)
    for rel in links:
        assert rel.rsplit("/", 1)[-1] not in run.stdout + prompts, rel
    # and `kb list` agrees: none of them is a file of the public scope
    listed = kb(["list", "--json"], cwd=example_fleet).stdout
    assert "symlink" not in listed and "hardlink" not in listed and "outside" not in listed


def test_links_in_the_inbox_are_never_handed_to_the_consolidator(
    example_fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    # F4: `kb consolidate` read them as the agent's past sessions.
    log = tmp_path / "prompts.txt"
    _models(example_fleet, log, "consolidate")
    inbox = example_fleet / "fleet" / "ada" / "inbox"
    contract = example_fleet / CONTRACT
    os.symlink("../records/quillfeather-contract.md", inbox / "2026-12-01-session-s7.md")
    os.link(contract, inbox / "2026-12-02-session-s8.md")
    run = kb(["consolidate", "ada"], cwd=example_fleet)
    assert run.code == 0, run.stderr
    _hidden(_read(log) + run.stdout + run.stderr)
    assert "s7" not in _read(log) and "s8" not in _read(log)


def test_ingest_refuses_a_private_record_without_all_and_never_deletes_it(
    example_fleet: Path, kb: RunKb, tmp_path: Path
) -> None:
    # F22: the record went to the model, became a public note and was deleted.
    log = tmp_path / "prompts.txt"
    _models(example_fleet, log)
    contract = example_fleet / CONTRACT
    original = contract.read_bytes()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(contract, elsewhere / "contract-link.md")  # by a link from outside
    os.link(contract, elsewhere / "contract-hard.md")  # by another name outside
    for given in (
        CONTRACT,
        str(elsewhere / "contract-link.md"),
        str(elsewhere / "contract-hard.md"),
    ):
        run = kb(["ingest", given, "."], cwd=example_fleet)
        assert run.code == 1, (given, run.stdout, run.stderr)
        assert "private layer of ada" in run.stderr and "Nothing was moved or sent" in run.stderr
        assert not log.exists(), "the model was asked"
        assert contract.read_bytes() == original
    inbox = example_fleet / "fleet" / "ada" / "inbox"
    assert sorted(p.name for p in inbox.iterdir()) == ["2026-11-20-session.md"]
    # With --all it is ingested, and the original stays where it was, whatever happens.
    run = kb(["ingest", CONTRACT, ".", "--all"], cwd=example_fleet)
    assert log.exists() and "Logistics" in _read(log)
    assert contract.read_bytes() == original, run.stdout
    assert "stays where it is" in run.stdout
    assert not (inbox / "raw").exists()


def _ok(ui_get: Callable[[str], tuple[int, str, bytes]], rel: str) -> tuple[int, bytes]:
    status, _, body = ui_get(f"/api/file?base=ada&rel={rel}")
    return status, body


def test_the_reading_room_never_serves_a_note_swapped_for_a_way_into_records(
    example_fleet: Path, tmp_path: Path
) -> None:
    # F5: a public note replaced by a link into records/ after the fleet was opened was
    # served at /api/file.
    ada = example_fleet / "fleet" / "ada"
    note = ada / "knowledge" / "backups.md"
    kept = tmp_path / "backups.md"
    contract = ada / "records" / "quillfeather-contract.md"
    with kb_ui([str(example_fleet)], {"KB_MISSES_PATH": str(tmp_path / "m.txt")}) as ui:
        status, body = _ok(ui.get, "knowledge/backups.md")
        assert status == 200 and b"restore" in body
        os.replace(note, kept)
        for kind in ("symlink", "hard link"):
            if kind == "symlink":
                os.symlink("../records/quillfeather-contract.md", note)
            else:
                os.link(contract, note)
            status, body = _ok(ui.get, "knowledge/backups.md")
            assert status == 404, (kind, body[:300])
            _hidden(body.decode("utf-8", "replace"))
            note.unlink()
        # the folder itself swapped for a link to records/ (the contract under the note's name)
        os.rename(ada / "knowledge", ada / "knowledge-away")
        os.symlink("records", ada / "knowledge")
        os.link(contract, ada / "records" / "backups.md")
        status, body = _ok(ui.get, "knowledge/backups.md")
        assert status == 404, body[:300]
        (ada / "knowledge").unlink()
        (ada / "records" / "backups.md").unlink()
        os.rename(ada / "knowledge-away", ada / "knowledge")
        os.replace(kept, note)
        status, body = _ok(ui.get, "knowledge/backups.md")
        assert status == 200 and b"restore" in body  # back, and served again


def test_a_note_swapped_while_it_is_indexed_leaves_no_private_text_under_its_name(
    example_fleet: Path, kb: RunKb, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # F6, made deterministic: the swap lands between the header read and the text read of
    # `kb index`. The index then held the record's text as public chunks under the note's
    # hash, and answered `hit` with it after the note was restored.
    monkeypatch.setenv("KB_MISSES_PATH", str(tmp_path / "misses.txt"))
    ada = example_fleet / "fleet" / "ada"
    note = ada / "knowledge" / "backups.md"
    snap = discover(str(ada), include_private=False)
    store = Store.open(ada)
    try:
        scan = store.scan(snap)  # the header is read: the public note
        kept = tmp_path / "backups.md"
        os.replace(note, kept)
        os.symlink("../records/quillfeather-contract.md", note)
        store.sync(snap, scan.lights)  # the text is read: now a link into records/
        rows = store.conn.execute(
            "SELECT text FROM chunks WHERE path = 'knowledge/backups.md'"
        ).fetchall()
        _hidden(" ".join(r[0] for r in rows))
    finally:
        store.close()
    note.unlink()
    os.replace(kept, note)
    assert kb(["index"], cwd=example_fleet).code == 0
    answer = kb(["route", "quillfeather contract penalty", "--json"], cwd=example_fleet).stdout
    backups = kb(["route", "backup restore test", "--json"], cwd=example_fleet).stdout
    _hidden(answer + backups)
    assert json.loads(backups)["results"][0]["path"] == "knowledge/backups.md"
