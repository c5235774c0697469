"""`kb sync` and `kb merge-driver` as real processes over real git: a bare repository as the
remote and two clones as two machines (tests/sync/gitfleet.py).

Each test states one promise of docs/deploy.md and docs/verbs/sync.md: the set-up stays in
the repository, git's rebase runs kb's drivers, nothing a person has not committed is ever
committed, a conflict in a note stops the sync with one line and loses nothing, offline is
one line, and what was pulled is re-indexed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kb.pure.logs import misslog
from tests.sync.gitfleet import (
    QUESTIONS,
    clone,
    conflict_lines,
    git,
    git_env,
    kb,
    seeded_remote,
    tracked,
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return git_env(tmp_path / "home")


@pytest.fixture
def pair(tmp_path: Path, env: dict[str, str]) -> tuple[Path, Path]:
    remote = seeded_remote(tmp_path, env)
    return clone(remote, tmp_path / "one", env), clone(remote, tmp_path / "two", env)


def write(repo: Path, env: dict[str, str], agent: str, slug: str, commit: bool = True) -> Path:
    made = kb(
        ["write", agent, slug, str(repo), "--keys", f"{slug}x, {slug}y", "--summary", slug],
        repo,
        env,
        stdin=f"What {slug} says.\n",
    )
    assert made.code == 0, made.stderr
    note = repo / "fleet" / agent / "knowledge" / f"{slug}.md"
    if commit:
        done = kb(["commit", str(note), "-m", f"note {slug}"], repo, env)
        assert done.code == 0, done.stderr
    return note


def refuse(repo: Path, env: dict[str, str], question: str) -> None:
    got = kb(["route", question, str(repo)], repo, env)
    assert got.stdout.startswith("verdict:  nothing"), got.stdout
    assert got.stderr == ""


def sync(repo: Path, env: dict[str, str], code: int = 0) -> str:
    got = kb(["sync", str(repo)], repo, env)
    assert got.code == code, got.stdout + got.stderr
    assert "Traceback" not in got.stderr
    return got.stdout if code == 0 else got.stderr


def test_first_sync_sets_up_the_drivers_in_this_repository_only(
    pair: tuple[Path, Path], env: dict[str, str], tmp_path: Path
) -> None:
    one, _ = pair
    out = sync(one, env)
    assert "set up the merge drivers" in out
    attributes = (one / ".gitattributes").read_text(encoding="utf-8")
    for line in ("MAP.md merge=kb-map", "kb-misses.txt merge=kb-misses"):
        assert line in attributes.split("\n")
    assert "kb-misroutes.txt merge=kb-log" in attributes
    assert attributes == (one / ".git" / "info" / "attributes").read_text(encoding="utf-8")
    driver = git(["config", "--local", "--get", "merge.kb-map.driver"], one, env)
    assert driver.startswith(sys.executable) and "merge-driver map %O %A %B %P" in driver
    assert (tmp_path / "home" / "gitconfig").read_text(encoding="utf-8") == ""  # never global
    # The index is derived: ignored here whatever the base's own .gitignore says.
    kb(["index", str(one)], one, env)
    ignored = git(["check-ignore", "fleet/ada/.kb/index.db"], one, env)
    assert ignored.strip() == "fleet/ada/.kb/index.db"
    assert ".gitattributes" in git(["show", "--name-only", "HEAD"], one, env)
    again = sync(one, env)
    assert "set up" not in again and "nothing of kb's to commit" in again


def test_rebase_runs_the_drivers_for_maps_and_logs(
    pair: tuple[Path, Path], env: dict[str, str]
) -> None:
    one, two = pair
    sync(one, env)
    sync(two, env)
    write(one, env, "ada", "from-one")
    write(two, env, "ada", "from-two")  # the same section of the same map, on both sides
    refuse(one, env, QUESTIONS[0])
    for _ in range(2):
        refuse(two, env, QUESTIONS[0])
    refuse(two, env, QUESTIONS[1])
    sync(one, env)
    out = sync(two, env)  # rebases onto one's commit: both maps and both logs merge
    assert "pulled" in out
    sync(one, env)
    assert tracked(one, env) == tracked(two, env)
    assert not conflict_lines(tracked(one, env))
    ada_map = (two / "fleet" / "ada" / "MAP.md").read_text(encoding="utf-8")
    assert ada_map.count("[[from-one]]") == 1 and ada_map.count("[[from-two]]") == 1
    counts = {m.question: m.count for m in misslog.parse((two / "kb-misses.txt").read_text())}
    assert counts == {QUESTIONS[0]: 3, QUESTIONS[1]: 1}


def test_nothing_the_person_has_not_committed_is_committed(
    pair: tuple[Path, Path], env: dict[str, str]
) -> None:
    one, two = pair
    note = write(one, env, "ada", "kept-local", commit=False)
    source = kb(
        ["source", "add", str(one / "fleet" / "ada"), "--type", "book", "--title", "T",
         "--retrieved-on", "2026-01-01", "--retrieval-status", "full"],
        one,
        env,
    )  # fmt: skip
    assert source.code == 0
    bruno_map = one / "fleet" / "bruno" / "MAP.md"
    bruno_map.write_text(bruno_map.read_text() + "\nA paragraph a person wrote.\n")
    out = sync(one, env)
    assert "committed 2 file(s) kb wrote" in out  # ada's map and .gitattributes only
    assert "left for you: fleet/bruno/MAP.md" in out
    status = git(["status", "--porcelain", "--untracked-files=all"], one, env)
    assert f"?? {note.relative_to(one).as_posix()}" in status.split("\n")
    assert " M fleet/bruno/MAP.md" in status.split("\n")
    assert any(line.startswith("?? fleet/ada/sources/") for line in status.split("\n"))
    sync(two, env)
    assert (two / "fleet" / "ada" / "MAP.md").read_text().count("[[kept-local]]") == 1
    assert not (two / "fleet" / "ada" / "knowledge" / "kept-local.md").exists()


def test_a_note_conflict_is_one_line_and_loses_nothing(
    pair: tuple[Path, Path], env: dict[str, str]
) -> None:
    one, two = pair
    note = write(one, env, "ada", "shared")
    sync(one, env)
    sync(two, env)
    other = two / note.relative_to(one)
    for repo, path, words in ((one, note, "one says"), (two, other, "two says")):
        path.write_text(path.read_text() + f"\n{words} so.\n")
        git(["commit", "-q", "-am", words], repo, env)
    refuse(two, env, QUESTIONS[2])
    sync(one, env)
    head = git(["rev-parse", "HEAD"], two, env)
    dirty = two / "fleet" / "bruno" / "index.md"
    dirty.write_text(dirty.read_text() + "\nnot committed yet\n")
    before = tracked(two, env)
    err = sync(two, env, code=1)
    assert err.count("\n") == 1 and "fleet/ada/knowledge/shared.md" in err
    assert "kb does not merge what a person wrote" in err
    assert git(["rev-parse", "HEAD"], two, env) != head  # kb's log commit landed locally
    assert git(["rev-parse", "HEAD~1"], two, env) == head
    after = tracked(two, env)
    assert after[note.relative_to(one).as_posix()].endswith(b"two says so.\n")
    assert after["fleet/bruno/index.md"] == before["fleet/bruno/index.md"]
    assert not (two / ".git" / "rebase-merge").exists()
    assert not conflict_lines(after)


def test_offline_or_no_remote_is_one_line_and_loses_nothing(
    pair: tuple[Path, Path], env: dict[str, str], tmp_path: Path
) -> None:
    one, _ = pair
    refuse(one, env, QUESTIONS[0])
    git(["remote", "set-url", "origin", str(tmp_path / "gone.git")], one, env)
    head = git(["rev-parse", "HEAD"], one, env)
    err = sync(one, env, code=1)
    assert err.startswith("kb: cannot reach origin: ") and err.count("\n") == 1
    assert git(["rev-parse", "HEAD"], one, env) == head
    assert (one / "kb-misses.txt").is_file()
    git(["remote", "remove", "origin"], one, env)
    err = sync(one, env, code=1)
    assert err.count("\n") == 1 and "has no remote to sync with" in err
    alone = tmp_path / "alone"
    alone.mkdir()
    err = sync(alone, env, code=1)
    assert err.count("\n") == 1 and "is not inside a git repository" in err


def test_a_lock_left_in_the_remote_is_named_with_what_to_do(
    pair: tuple[Path, Path], env: dict[str, str], tmp_path: Path
) -> None:
    one, _ = pair
    write(one, env, "ada", "locked-note")
    note = git(["rev-parse", "HEAD"], one, env).strip()
    remote = tmp_path / "remote.git"
    before = git(["rev-parse", "main"], remote, env)
    lock = remote / "refs" / "heads" / "main.lock"
    lock.write_text("", encoding="utf-8")  # what a git killed mid-push leaves
    err = sync(one, env, code=1)
    assert err.count("\n") == 1 and "refs/heads/main.lock" in err, err
    assert "delete that file" in err and "commits are safe here" in err
    assert git(["rev-parse", "main"], remote, env) == before
    git(["merge-base", "--is-ancestor", note, "HEAD"], one, env)  # the note is kept here
    lock.unlink()
    sync(one, env)
    assert git(["rev-parse", "main"], remote, env) == git(["rev-parse", "HEAD"], one, env)


def test_what_was_pulled_is_reindexed(pair: tuple[Path, Path], env: dict[str, str]) -> None:
    one, two = pair
    kb(["index", str(two)], two, env)
    write(one, env, "bruno", "pulled-note")
    sync(one, env)
    out = sync(two, env)
    assert "re-indexed bruno" in out and "ada" not in out.split("re-indexed")[1]
    answer = kb(["route", "pulled-notex", str(two)], two, env)
    assert "pulled-note.md" in answer.stdout
    assert "changed since kb index" not in answer.stdout


def test_merge_driver_contract(tmp_path: Path, env: dict[str, str]) -> None:
    base, ours, theirs = (tmp_path / n for n in ("O", "A", "B"))
    base.write_text("# MAP\n\nintro\n\n- **[[a]]** A\n")
    ours.write_text("# MAP\n\nintro\n\n- **[[a]]** A\n- **[[b]]** B\n")
    theirs.write_text("# MAP\n\nintro\n\n- **[[a]]** A\n- **[[c]]** C\n")
    files = [str(base), str(ours), str(theirs)]
    clean = kb(["merge-driver", "map", *files, "MAP.md"], tmp_path, env)
    assert (clean.code, clean.stdout, clean.stderr) == (0, "", "")
    assert ours.read_text().endswith("- **[[a]]** A\n- **[[b]]** B\n- **[[c]]** C\n")
    theirs.write_text("# MAP\n\nother words\n\n- **[[a]]** A\n")
    ours.write_text("# MAP\n\nmy words\n\n- **[[a]]** A\n")
    torn = kb(["merge-driver", "map", *files], tmp_path, env)
    assert torn.code == 1 and torn.stderr.count("\n") == 1
    assert "<<<<<<< ours" in ours.read_text() and "other words" in ours.read_text()
    bad = kb(["merge-driver", "notes", *files], tmp_path, env)
    assert bad.code == 2
    assert bad.stderr == "kb: merge-driver kind is one of map, misses, log, not 'notes'\n"
    missing = kb(["merge-driver"], tmp_path, env)
    assert missing.code == 2 and "merge-driver needs a kind (map, misses or log)" in missing.stderr
    short = kb(["merge-driver", "map", str(base)], tmp_path, env)
    assert short.code == 2 and short.stderr.startswith("kb merge-driver: ")


def test_the_same_refusals_on_two_machines_count_twice(
    pair: tuple[Path, Path], env: dict[str, str]
) -> None:
    # Both logs come out byte for byte the same, so git takes one of them as the merge
    # without running the driver; kb sync counts them from the merge base itself.
    one, two = pair
    sync(one, env)
    sync(two, env)
    for repo in (one, two):
        refuse(repo, env, QUESTIONS[1])
    assert (one / "kb-misses.txt").read_bytes() == (two / "kb-misses.txt").read_bytes()
    sync(one, env)
    sync(two, env)
    sync(one, env)
    for repo in (one, two):
        counts = {m.question: m.count for m in misslog.parse((repo / "kb-misses.txt").read_text())}
        assert counts == {QUESTIONS[1]: 2}
    assert tracked(one, env) == tracked(two, env)


def test_uncommitted_changes_that_clash_with_the_pull_are_kept_in_the_stash(
    pair: tuple[Path, Path], env: dict[str, str]
) -> None:
    one, two = pair
    note = write(one, env, "ada", "edited")
    sync(one, env)
    sync(two, env)
    note.write_text(note.read_text().replace("What edited says.", "One's committed words."))
    git(["commit", "-q", "-am", "one edits"], one, env)
    sync(one, env)
    mine = two / note.relative_to(one)
    mine.write_text(mine.read_text().replace("What edited says.", "Two's words, not committed."))
    got = kb(["sync", str(two)], two, env)
    assert got.code == 1, got.stdout + got.stderr
    assert "kept in `git stash`" in got.stdout
    assert "One's committed words." in mine.read_text()  # the pull landed
    kept = git(["stash", "show", "-p"], two, env)
    assert "+Two's words, not committed." in kept  # and nothing of yours was lost
