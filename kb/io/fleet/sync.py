"""`kb sync` through the real git binary: commit kb's own files, rebase onto the remote,
push, and re-index what the pull changed. Every decision is kb.pure.fleet.syncplan's.

One run, in order:
1. Find the repository, its branch and the remote (`--remote`, else the branch's upstream,
   else the only remote). No repository, no branch, no remote: one line, nothing written.
   Take the sync lock (`.git/kb-sync.lock`; another live sync: one line). A state file a
   killed sync left (`.git/kb-sync.state`) is recovered from first (kb.io.fleet.syncrecover):
   its git locks removed, its rebase undone, its recount made, its re-index redone.
2. Set up, every run (each step is skipped when already done): `.gitattributes` and
   `.git/info/attributes` name kb's drivers, `.git/info/exclude` lists `.kb/` and kb's
   transient files, and this repository's git config points each driver at
   `<this python> -I -m kb.shell.cli.main merge-driver` (isolated mode: nothing in the
   repository can be imported by it). A `.kb/` the repository tracks stops the sync.
3. Fetch the remote branch. Unreachable: one line, exit 1; nothing is committed yet. What
   the fetched commits bring is checked before anything else (kb.pure.fleet.syncplan): a `.kb/`
   path, a `.gitattributes` line routing files through `union` or through kb's drivers, a
   counted log whose count kb refuses: one line, exit 1, nothing changed.
4. Under the tree lock (`.git/kb-tree.lock`, also taken by `kb commit`) and the lock of every
   kb file a writer rewrites (each base's `MAP.md.lock`, each log's `.lock`), so no kb
   writer changes them mid-rebase: fold the records writers deferred into their logs,
   commit kb's own files, and rebase onto the fetched branch with `--autostash` (git runs
   kb's merge drivers for kb's files during the rebase). A conflict the drivers do not
   settle (a note, or a map a person edited on both sides) aborts the rebase: the branch,
   the working tree and the index are as they were before it, and the one line names the
   files. Writers wait (`kb write`) or defer their records (the logs) meanwhile; the locks
   are held for this local step only, never across the network.
   Each counted log both sides changed is also merged here from the merge base, sides
   kept apart, and the rebase's result put right when it differs: git takes two identical
   texts as one without running the driver, which would count one machine's refusals once
   for two machines.
   Only kb's own files at their own places, never in a private layer, are committed.
5. Re-index the bases whose files the pull changed (`kb index` on them).
6. Push (never forced). When the push is refused because the remote moved since step 3,
   start again at step 3, at most MAX_ROUNDS times.
"""

from __future__ import annotations

import contextlib
import os
import platform
import secrets
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from attrs import evolve, frozen

from kb.io.files.atomic import crash_point, write_atomic
from kb.io.files.deferred import Fold, fold_pending
from kb.io.files.lockfile import (
    DEAD_LOCK_GRACE_S,
    LockBusy,
    held_by_live,
    lock_path,
    release_lock,
    take_lock,
)
from kb.io.fleet import syncrecover
from kb.io.fleet.git import TREE_LOCK_NAME, TREE_LOCK_WAIT_S
from kb.io.fleet.syncgit import SyncFailure as SyncFailure
from kb.io.fleet.syncgit import git as _git
from kb.io.fleet.syncgit import is_ancestor as _is_ancestor
from kb.io.fleet.syncgit import last_line as _last_line
from kb.io.fleet.syncgit import ref as _ref
from kb.io.fleet.syncgit import run as _run
from kb.io.fleet.syncgit import stale_lock
from kb.io.fleet.syncrecover import RecoveryFailure, State
from kb.io.logs import misslog, routelogs
from kb.io.notes.indexer import IndexFailure, index_bases
from kb.io.notes.walk import WalkError, expand_roots, read_text
from kb.io.promotion import rejectlog
from kb.pure.fleet import syncplan
from kb.pure.fleet.merge import count_line, count_problem, merge_counts
from kb.pure.fleet.syncplan import Place, Refused, Report
from kb.pure.logs import misslog as pure_misslog
from kb.pure.logs import routelogs as pure_routelogs
from kb.pure.notes.manifest import private_layer
from kb.pure.notes.names import printable
from kb.pure.promotion import rejections

# Another clone's push lands between our fetch and our push: try again this often. Three
# clones each syncing every 0.5-3 s on a loaded 2-core box (tests/sync, long form) ran out of
# six tries in 3 syncs of 40; the next sync carried on, and nothing was lost.
MAX_ROUNDS = 6
# A kb writer holds a map's or a log's lock for milliseconds; ten seconds means something is
# wrong, and the sync is better stopped (and run again) than left waiting.
FILE_LOCK_WAIT_S = 10.0
SYNC_LOCK_NAME = "kb-sync.lock"

# The logs whose writers defer a record when their lock is busy (kb.io.files.deferred), and how
# each folds its records in. The alias-rejection log is rewritten whole, never deferred.
FOLDS: dict[str, Fold] = {
    pure_misslog.LOG_NAME: misslog._fold,
    pure_routelogs.MISROUTES_NAME: routelogs._fold_misroutes,
    pure_routelogs.ABSTENTIONS_NAME: routelogs._fold_abstentions,
    rejections.LOG_NAME: rejectlog._fold,
}


@frozen
class Synced:
    report: Report
    index_error: str | None = None


@frozen
class _Repo:
    top: Path
    git_dir: Path
    fleet: Path  # the fleet directory as given, resolved
    fleet_rel: str  # relative to `top`, `.` for the top itself
    common_dir: Path  # where refs live (the git directory itself, but in a linked worktree)


# -- where ----------------------------------------------------------------------------------


def _repo(fleet: str) -> _Repo:
    path = Path(fleet)
    if not path.is_dir():
        raise SyncFailure(f"cannot sync {printable(fleet)}: no such directory")
    proc = _run(path, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir")
    if proc.returncode != 0:
        raise SyncFailure(
            f"{printable(fleet)} is not inside a git repository; kb sync replicates a fleet "
            "through git (docs/deploy.md)"
        )
    top, git_dir, common = proc.stdout.strip().split("\n")[:3]
    resolved = path.resolve()
    rel = os.path.relpath(resolved, Path(top).resolve()).replace(os.sep, "/")
    common_dir = Path(common) if os.path.isabs(common) else Path(path) / common
    return _Repo(Path(top), Path(git_dir), resolved, rel, common_dir.resolve())


def _busy_with(repo: _Repo) -> str | None:
    for name, what in (
        ("rebase-merge", "a rebase"),
        ("rebase-apply", "a rebase"),
        ("MERGE_HEAD", "a merge"),
        ("CHERRY_PICK_HEAD", "a cherry-pick"),
    ):
        if (repo.git_dir / name).exists():
            return what
    return None


def _upstream(repo: _Repo, remote: str | None) -> tuple[str, str, bool]:
    """(remote, remote branch, whether the branch already has an upstream)."""
    branch = _run(repo.top, "symbolic-ref", "-q", "--short", "HEAD").stdout.strip()
    if not branch:
        raise SyncFailure("HEAD is detached; kb sync works on a branch, so check one out first")
    remotes = _git(repo.top, "remote").split()
    if not remotes:
        raise SyncFailure(
            f"{printable(str(repo.top))} has no remote to sync with; add one "
            "(git remote add origin <url>) and run kb sync again"
        )
    configured = _run(repo.top, "config", "--get", f"branch.{branch}.remote").stdout.strip()
    merge = _run(repo.top, "config", "--get", f"branch.{branch}.merge").stdout.strip()
    if remote is not None and remote not in remotes:
        raise SyncFailure(
            f"no remote named {printable(remote)}; this repository has: {', '.join(remotes)}"
        )
    chosen = remote or configured or (remotes[0] if len(remotes) == 1 else "")
    if not chosen:
        raise SyncFailure(
            f"branch {branch} has no upstream and this repository has several remotes "
            f"({', '.join(remotes)}); name one: kb sync --remote <name>"
        )
    tracked = configured == chosen and merge.startswith("refs/heads/")
    remote_branch = merge[len("refs/heads/") :] if tracked else branch
    return chosen, remote_branch, bool(configured)


# -- set-up ---------------------------------------------------------------------------------


def _read_kept(path: Path) -> str:
    """A file's text with any byte that is not UTF-8 kept (surrogateescape); absent: ''."""
    try:
        return path.read_bytes().decode("utf-8", errors="surrogateescape")
    except FileNotFoundError:
        return ""


def _write_if_changed(path: Path, text: str) -> bool:
    if _read_kept(path) == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text, errors="surrogateescape")
    return True


def _isolated_kb_runs(python: str, where: Path) -> bool:
    """Whether `python -I` (isolated mode) can import kb: a kb installed through PYTHONPATH
    or into the user's site folder cannot be, and then no driver could run."""
    try:
        proc = subprocess.run(
            [python, syncplan.ISOLATED, "-c", "import kb.shell.cli.main"],
            cwd=where,
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _set_up(repo: _Repo, python: str) -> bool:
    """Write what is missing of the drivers' set-up; whether anything was."""
    changed = False
    attributes = repo.top / syncplan.ATTRIBUTES_NAME
    changed |= _write_if_changed(attributes, syncplan.with_attributes(_read_kept(attributes)))
    local = repo.git_dir / "info" / "attributes"
    changed |= _write_if_changed(local, syncplan.with_attributes(_read_kept(local)))
    exclude = repo.git_dir / "info" / "exclude"
    changed |= _write_if_changed(exclude, syncplan.with_excludes(_read_kept(exclude)))
    probed = False
    for key, value in syncplan.driver_settings(python):
        if _run(repo.top, "config", "--local", "--get", key).stdout.rstrip("\n") != value:
            if key.endswith(".driver") and not probed:
                if not _isolated_kb_runs(python, repo.git_dir):
                    raise SyncFailure(
                        f"{printable(python)} {syncplan.ISOLATED} cannot import kb, so git could "
                        "not run kb's merge drivers in isolated mode (which keeps anything in "
                        "the repository from being imported as kb); install kb into that "
                        "interpreter's environment (pip install kb-fleet), not through "
                        "PYTHONPATH or a --user install, and run kb sync again"
                    )
                probed = True
            _git(repo.top, "config", "--local", key, value)
            changed = True
    return changed


# -- locks ----------------------------------------------------------------------------------


@contextlib.contextmanager
def _holding(locks: Sequence[tuple[Path, float]]) -> Iterator[None]:
    """Take every lock in the order given (the same order every time: no two syncs can wait
    on each other), or none: a busy one releases those taken and stops the sync."""
    held: list[tuple[Path, int]] = []
    try:
        for lock, wait_s in locks:
            try:
                held.append((lock, take_lock(lock, wait_s)))
            except LockBusy as e:
                raise SyncFailure(f"{e}; nothing was changed, run kb sync again") from e
        yield
    finally:
        for lock, fd in reversed(held):
            release_lock(lock, fd)


@contextlib.contextmanager
def _alone(repo: _Repo) -> Iterator[None]:
    """One `kb sync` at a time in a repository: a second one stops at once. A lock whose
    holder was killed is taken over (after the lock module's grace for a lock just made)."""
    lock = repo.git_dir / SYNC_LOCK_NAME
    busy = SyncFailure(f"another kb sync is running in this repository ({lock}); let it finish")
    try:
        fd = take_lock(lock, 0.0)
    except LockBusy:
        if held_by_live(lock):
            raise busy from None
        try:
            fd = take_lock(lock, DEAD_LOCK_GRACE_S + 1.0)
        except LockBusy as e:
            raise busy from e
    try:
        yield
    finally:
        release_lock(lock, fd)


def _bases(repo: _Repo) -> list[tuple[str, Path]]:
    try:
        roots = expand_roots([str(repo.fleet)])
    except WalkError as e:
        raise SyncFailure(str(e)) from e
    return [(Path(r).resolve().name, Path(r).resolve()) for r in roots]


def _places(repo: _Repo, bases: Sequence[tuple[str, Path]]) -> list[Place]:
    """Each base's root relative to the repository, with its private layer (from its
    agent.txt, or the default for its folder's name)."""
    top = repo.top.resolve()
    out: list[Place] = []
    for _, root in bases:
        rel = os.path.relpath(root, top).replace(os.sep, "/")
        if rel == ".." or rel.startswith("../"):
            continue  # attached from outside the repository: nothing of it is committed
        layer = private_layer(read_text(root / "agent.txt"), root.name)
        out.append(Place(rel, layer))
    return out


def _kb_files(repo: _Repo, bases: Sequence[tuple[str, Path]]) -> tuple[list[Path], list[Path]]:
    """(maps, logs): every path a kb writer may rewrite in the fleet, present or not."""
    listed = _git(
        repo.top,
        "ls-files",
        "-z",
        "--cached",
        "--others",
        "--exclude-standard",
        "--",
        repo.fleet_rel,
    )
    known = [repo.top / p for p in listed.split("\0") if p]
    maps = {root / syncplan.MAP_NAME for _, root in bases}
    maps |= {p for p in known if syncplan.is_map(p.name)}
    logs = {repo.fleet / name for name in syncplan.OWN_LOGS}
    logs |= {root / "kb-misses.txt" for _, root in bases}
    logs |= {p for p in known if syncplan.is_own_log(p.name)}
    return sorted(maps), sorted(logs)


# -- the local step -------------------------------------------------------------------------


def _machine() -> str:
    return platform.node() or "this machine"


def _committed_text(repo: _Repo, rel: str) -> str:
    proc = _run(repo.top, "show", f"HEAD:{rel}")
    return proc.stdout if proc.returncode == 0 else ""


def _commit_own(repo: _Repo, places: Sequence[Place]) -> tuple[list[str], list[str]]:
    """Commit kb's own changed files, at their own places and never in a private layer;
    (committed, maps left for the person). A log whose count kb refuses stops the sync."""
    status = syncplan.parse_status(
        _git(repo.top, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
    )
    fleet = repo.fleet_rel.rstrip("/")
    own: list[str] = []
    left: list[str] = []
    for entry in status:
        rel = entry.path
        inside = fleet in ("", ".") or rel == fleet or rel.startswith(fleet + "/")
        if rel == syncplan.ATTRIBUTES_NAME:
            now = _read_kept(repo.top / rel)
            if syncplan.is_kb_attributes_change(_committed_text(repo, rel), now):
                own.append(rel)
            continue
        kind = syncplan.own_kind(rel, repo.fleet_rel, places) if inside else None
        if kind == "log":
            was, now = _committed_text(repo, rel), _read_kept(repo.top / rel)
            found = count_problem(rel, now, was)
            if found is not None:
                raise SyncFailure(
                    f"{count_line(printable(rel), 'here', found)}. Nothing was committed: fix "
                    "the line (or delete it), then run kb sync again"
                )
            own.append(rel)
        elif kind == "map" and entry.tracked:
            now = _read_kept(repo.top / rel)
            if syncplan.is_kb_map_change(_committed_text(repo, rel), now):
                own.append(rel)
            else:
                left.append(rel)
    if own:
        _git(repo.top, "add", "-A", "--", *own)
        crash_point("sync.added")
        message = syncplan.commit_message(own, _machine(), secrets.token_hex(4))
        _git(repo.top, "commit", "-q", "-m", message, "--", *own)
    return own, left


def _show(repo: _Repo, rev: str | None, rel: str) -> str:
    if rev is None:
        return ""
    proc = _run(repo.top, "show", f"{rev}:{rel}")
    return proc.stdout if proc.returncode == 0 else ""


def _merge_base(repo: _Repo, head: str | None, tip: str) -> str | None:
    if head is None:
        return None
    proc = _run(repo.top, "merge-base", head, tip)
    return proc.stdout.strip() if proc.returncode == 0 else None


def _own_logs_in(repo: _Repo, rev: str, places: Sequence[Place]) -> set[str]:
    listed = _git(repo.top, "ls-tree", "-r", "--name-only", "-z", rev)
    return {
        p for p in listed.split("\0") if p and syncplan.own_kind(p, repo.fleet_rel, places) == "log"
    }


def _counted(
    repo: _Repo, head: str | None, tip: str, places: Sequence[Place], upstream: str
) -> dict[str, str]:
    """Each counted log both sides changed since they parted, merged as separate records
    (kb.pure.fleet.merge.merge_counts), as the rebase should leave it: git takes two identical
    sides as one without asking the driver, and drops a local commit whose change is already
    upstream, and either would lose one side's count."""
    if head is None:
        return {}
    base = _merge_base(repo, head, tip)
    names = _own_logs_in(repo, head, places) | _own_logs_in(repo, tip, places)
    out: dict[str, str] = {}
    for rel in sorted(names):
        was, mine, theirs = (_show(repo, rev, rel) for rev in (base, head, tip))
        if mine == was or theirs == was:
            continue  # one side alone changed it: git takes that side, which is right
        # The rebase's sides: upstream is "ours", the commits replayed are "theirs".
        for side, text in ((f"on {upstream}", theirs), ("here", mine)):
            found = count_problem(rel, text, was)
            if found is not None:
                raise SyncFailure(
                    f"{count_line(printable(rel), printable(side), found)}. Nothing was "
                    "changed: fix the line (or delete it), then run kb sync again"
                )
        merged = merge_counts(was, theirs, mine, rel)
        if merged is not None and not merged.problem:
            out[rel] = merged.text
    return out


def _recount(repo: _Repo, counts: dict[str, str]) -> list[str]:
    """Put right, and commit, each counted log the rebase left other than `counts` says.
    Under the logs' locks, so the working tree holds what the rebase left; a sync killed
    before this commit is recounted by the next one (kb.io.fleet.syncrecover)."""
    fixed = [rel for rel, text in counts.items() if _read_kept(repo.top / rel) != text]
    for rel in fixed:
        write_atomic(repo.top / rel, counts[rel], errors="surrogateescape")
        crash_point("sync.recount-written")
    if fixed:
        _git(repo.top, "add", "--", *fixed)
        message = syncplan.commit_message(fixed, _machine(), secrets.token_hex(4))
        _git(repo.top, "commit", "-q", "-m", message, "--", *fixed)
    return fixed


def _rebase(repo: _Repo, onto: str, upstream: str) -> bool:
    """Rebase onto `onto`; whether the autostash was kept in `git stash` (it did not apply).
    A conflict aborts the rebase and raises SyncFailure naming the files."""
    stash = _ref(repo.top, "refs/stash")
    if _ref(repo.top, "HEAD") is None:  # an unborn branch: nothing to replay
        _git(repo.top, "merge", "-q", "--ff-only", onto)
        return False
    proc = _run(repo.top, "rebase", "--autostash", onto)
    if proc.returncode != 0:
        unmerged = _run(repo.top, "diff", "--name-only", "-z", "--diff-filter=U").stdout
        files = [p for p in unmerged.split("\0") if p]
        if _busy_with(repo) is not None:
            _run(repo.top, "rebase", "--abort")
        if files:
            raise SyncFailure(syncplan.conflict_line(files, upstream))
        raise SyncFailure(
            f"git rebase onto {printable(upstream)} failed: {_last_line(proc)}; "
            "nothing was changed, your commits and files are as they were"
        )
    return _ref(repo.top, "refs/stash") != stash


# -- what a pull brings ---------------------------------------------------------------------


def _tracked_index(repo: _Repo) -> list[str]:
    """Paths under a `.kb/` folder the repository tracks now."""
    listed = _git(repo.top, "ls-files", "-z", "--", ":(glob)**/.kb/**", ":(glob)**/.kb")
    return [p for p in listed.split("\0") if p and syncplan.in_kb_folder(p)]


def _check_pull(
    repo: _Repo, head: str | None, tip: str, upstream: str, places: Sequence[Place]
) -> None:
    """Refuse, changing nothing, what the commits between `head` and `tip` bring that kb
    does not take from a remote (kb.pure.fleet.syncplan: a `.kb/`, a routing `.gitattributes`
    line, a count kb refuses)."""
    base = _merge_base(repo, head, tip)
    args = ["diff", "--name-status", "-z", "--no-renames", base or _EMPTY_TREE, tip]
    fields = [f for f in _git(repo.top, *args).split("\0")]
    changed = [(fields[i], fields[i + 1]) for i in range(0, len(fields) - 1, 2) if fields[i]]
    kb_folders: list[str] = []
    routed: list[tuple[str, str]] = []
    counts: list[str] = []
    for status, rel in changed:
        if status.startswith("D"):
            continue
        if syncplan.in_kb_folder(rel):
            kb_folders.append(rel)
        elif rel.rsplit("/", 1)[-1] == syncplan.ATTRIBUTES_NAME:
            mine = _show(repo, head, rel)
            routed += [(rel, line) for line in syncplan.routed_lines(mine, _show(repo, tip, rel))]
        elif syncplan.own_kind(rel, repo.fleet_rel, places) == "log":
            found = count_problem(rel, _show(repo, tip, rel), _show(repo, base, rel))
            if found is not None:
                counts.append(count_line(rel, f"on {upstream}", found))
    refused = Refused(tuple(kb_folders), tuple(routed), tuple(counts))
    if refused:
        raise SyncFailure(syncplan.refused_line(refused, upstream))


# -- one run --------------------------------------------------------------------------------


def _note(repo: _Repo, state: State) -> None:
    syncrecover.write_state(repo.git_dir, state)


@frozen
class _Fleet:
    """The fleet's bases and kb's files in it, found once per run."""

    bases: tuple[tuple[str, Path], ...]
    places: tuple[Place, ...]
    logs: tuple[Path, ...]
    locks: tuple[tuple[Path, float], ...]  # the tree lock first, then each file's


def _fleet(repo: _Repo) -> _Fleet:
    bases = _bases(repo)
    maps, logs = _kb_files(repo, bases)
    locks = [(repo.git_dir / TREE_LOCK_NAME, TREE_LOCK_WAIT_S)]
    locks += [(lock_path(p), FILE_LOCK_WAIT_S) for p in sorted({*maps, *logs})]
    return _Fleet(tuple(bases), tuple(_places(repo, bases)), tuple(logs), tuple(locks))


def _recover(repo: _Repo, fleet: _Fleet) -> syncrecover.Recovered:
    """Undo what a killed sync left (kb.io.fleet.syncrecover), under kb's locks: what was undone,
    and what is still to re-index. Nothing when no sync was killed."""
    dead = syncrecover.read_state(repo.git_dir)
    if dead is None:
        return syncrecover.Recovered((), ())
    git_dirs = list(dict.fromkeys([repo.git_dir, repo.common_dir]))
    folders = list(dict.fromkeys([repo.git_dir, repo.fleet, *(root for _, root in fleet.bases)]))
    with _holding(fleet.locks):
        try:
            done = syncrecover.recover(
                repo.top, git_dirs, dead, folders, lambda *a: _run(repo.top, *a)
            )
        except RecoveryFailure as e:
            raise SyncFailure(str(e)) from e
    syncrecover.clear_state(repo.git_dir)
    crash_point("sync.recovered")
    who = f"process {dead.pid}" if dead.pid else "a process"
    return evolve(done, lines=(f"a kb sync ({who}) was killed; recovered", *done.lines))


def sync(fleet: str, remote: str | None, include_private: bool, python: str) -> Synced:
    repo = _repo(fleet)
    with _alone(repo):
        crash_point("sync.locked")
        found = _fleet(repo)
        recovered = _recover(repo, found)
        try:
            return _sync(repo, found, remote, include_private, python, recovered)
        finally:
            syncrecover.clear_state(repo.git_dir)


def _sync(
    repo: _Repo,
    fleet: _Fleet,
    remote: str | None,
    include_private: bool,
    python: str,
    recovered: syncrecover.Recovered,
) -> Synced:
    busy = _busy_with(repo)
    if busy is not None:
        raise SyncFailure(
            f"{busy} is in progress in {printable(str(repo.top))}; finish it or abort it, "
            "then run kb sync again"
        )
    chosen, remote_branch, has_upstream = _upstream(repo, remote)
    upstream = f"{chosen}/{remote_branch}"
    tracking = f"refs/remotes/{chosen}/{remote_branch}"
    branch = _run(repo.top, "symbolic-ref", "-q", "--short", "HEAD").stdout.strip()
    # Read by the next sync if this one is killed (kb.io.fleet.syncrecover); removed at the end.
    state = State(os.getpid(), time.time(), branch)
    tracked = _tracked_index(repo)
    if tracked:
        raise SyncFailure(
            f"this repository tracks {', '.join(printable(p) for p in tracked[:3])}"
            f"{' and more' if len(tracked) > 3 else ''}: .kb/ holds this machine's own index "
            "and is never committed. Untrack it (git rm -r --cached <base>/.kb, then commit), "
            "and run kb sync again"
        )
    _note(repo, state)
    crash_point("sync.noted")
    set_up = _set_up(repo, python)
    crash_point("sync.set-up")

    committed: list[str] = []
    left: list[str] = []
    pulled = changed = pushed = 0
    reindexed: list[str] = []
    index_error: str | None = None
    stash_kept = False
    if recovered.pulled_since is not None:
        since = recovered.pulled_since or _EMPTY_TREE
        files = _git(repo.top, "diff", "--name-only", "-z", since, "HEAD")
        paths = [p for p in files.split("\0") if p]
        index_error = _reindex(repo, fleet.bases, paths, include_private, reindexed, state)
    if recovered.reindex:
        error = _reindex_roots(fleet.bases, recovered.reindex, include_private, reindexed)
        index_error = index_error or error
    for _round in range(MAX_ROUNDS):
        tip = _fetch(repo, chosen, remote_branch, tracking, committed)
        crash_point("sync.fetched")
        head = _ref(repo.top, "HEAD")
        if tip is not None and (head is None or not _is_ancestor(repo.top, tip, head)):
            _check_pull(repo, head, tip, upstream, fleet.places)
        crash_point("sync.checked")
        with _holding(fleet.locks):
            crash_point("sync.held")
            for log in fleet.logs:
                fold = FOLDS.get(log.name)
                if fold is not None:
                    fold_pending(log, fold)
            crash_point("sync.folded")
            mine, left = _commit_own(repo, fleet.places)
            committed += [p for p in mine if p not in committed]
            crash_point("sync.committed")
            before = _ref(repo.top, "HEAD")
            if tip is not None and (before is None or not _is_ancestor(repo.top, tip, before)):
                counts = _counted(repo, before, tip, fleet.places, upstream)
                _note(repo, evolve(state, stage="rebase", head=before, onto=tip, counts=counts))
                crash_point("sync.counted")
                stash_kept |= _rebase(repo, tip, upstream)
                crash_point("sync.rebased")
                committed += [p for p in _recount(repo, counts) if p not in committed]
                crash_point("sync.recounted")
                # The state still says "rebase" until the re-index notes itself: a sync
                # killed before re-indexing leaves the next one to re-index what it pulled.
            after = _ref(repo.top, "HEAD")
        crash_point("sync.released")
        if after is not None and after != before and tip is not None:
            span = f"{before}..{tip}" if before is not None else tip
            pulled += int(_git(repo.top, "rev-list", "--count", span).strip() or 0)
            files = _git(repo.top, "diff", "--name-only", "-z", before or _EMPTY_TREE, after)
            paths = [p for p in files.split("\0") if p]
            changed += len(paths)
            error = _reindex(repo, fleet.bases, paths, include_private, reindexed, state)
            index_error = index_error or error
            crash_point("sync.reindexed")
        if after is None:
            break  # nothing committed anywhere yet: nothing to push
        ahead_span = f"{tip}..{after}" if tip is not None else after
        ahead = int(_git(repo.top, "rev-list", "--count", ahead_span).strip() or 0)
        if ahead == 0:
            break
        args = ["push", "-q"] + ([] if has_upstream else ["--set-upstream"])
        proc = _run(repo.top, *args, chosen, f"HEAD:refs/heads/{remote_branch}")
        crash_point("sync.pushed")
        if proc.returncode == 0:
            pushed += ahead
            has_upstream = True
            break
        if _remote_tip(repo, chosen, remote_branch) == tip:
            lock = stale_lock(proc)
            if lock is not None:
                raise SyncFailure(
                    f"cannot push to {printable(chosen)}: its git could not create {lock}, "
                    "left by a git still running there or by one that was killed; your "
                    "commits are safe here: once no git runs there, delete that file and "
                    "run kb sync again"
                )
            raise SyncFailure(
                f"cannot push to {printable(chosen)}: {_last_line(proc)}; your commits "
                "are safe here, run kb sync again"
            )
    else:
        raise SyncFailure(
            f"{printable(upstream)} kept moving while kb sync pushed ({MAX_ROUNDS} tries); "
            "your commits are safe here, run kb sync again"
        )
    crash_point("sync.done")
    from kb.io.fleet.trust import examine

    awaiting = tuple(j.command.role for j in examine(repo.fleet, record=False).awaiting)
    report = Report(
        where=str(repo.top),
        upstream=upstream,
        set_up=set_up,
        committed=tuple(committed),
        left=tuple(left),
        pulled=pulled,
        changed=changed,
        reindexed=tuple(reindexed),
        pushed=pushed,
        stash_kept=stash_kept,
        recovered=recovered.lines,
        awaiting=awaiting,
        fleet=str(repo.fleet),
    )
    return Synced(report, index_error)


_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's well-known empty tree


def _remote_tip(repo: _Repo, remote: str, branch: str) -> str | None:
    proc = _run(repo.top, "ls-remote", "--heads", remote, f"refs/heads/{branch}")
    if proc.returncode != 0:
        return None
    line = proc.stdout.strip().split("\n")[0]
    return line.split("\t")[0] if line else None


def _fetch(
    repo: _Repo, remote: str, branch: str, tracking: str, committed: Sequence[str]
) -> str | None:
    """The remote branch's tip after fetching it; None when the remote has no such branch."""
    proc = _run(repo.top, "fetch", "-q", remote, f"+refs/heads/{branch}:{tracking}")
    if proc.returncode == 0:
        return _ref(repo.top, tracking)
    probe = _run(repo.top, "ls-remote", "--heads", remote, f"refs/heads/{branch}")
    if probe.returncode == 0 and not probe.stdout.strip():
        return None  # reachable, and the branch is not there yet: the first push makes it
    kept = "; your commits are safe here" if committed else ""
    raise SyncFailure(
        f"cannot reach {printable(remote)}: {_last_line(proc)}{kept}; nothing was lost, "
        "run kb sync again when it is back"
    )


def _reindex(
    repo: _Repo,
    bases: Sequence[tuple[str, Path]],
    changed: Sequence[str],
    include_private: bool,
    done: list[str],
    state: State,
) -> str | None:
    top = repo.top.resolve()
    rels = [(name, os.path.relpath(root, top).replace(os.sep, "/")) for name, root in bases]
    names = syncplan.touched_bases(rels, changed)
    roots = tuple(str(root) for name, root in bases if name in names)
    if not roots:
        return None
    # A kill while indexing leaves these for the next sync to index (kb.io.fleet.syncrecover).
    _note(repo, evolve(state, stage="reindex", reindex=roots))
    crash_point("sync.reindexing")
    error = _reindex_roots(bases, roots, include_private, done)
    _note(repo, state)
    return error


def _reindex_roots(
    bases: Sequence[tuple[str, Path]],
    roots: Sequence[str],
    include_private: bool,
    done: list[str],
) -> str | None:
    known = {str(root): name for name, root in bases}
    present = [r for r in roots if Path(r).is_dir()]
    if not present:
        return None
    try:
        index_bases(list(present), include_private)
    except IndexFailure as e:
        return f"synced, but re-indexing failed: {e}; run kb index"
    for r in present:
        name = known.get(r, Path(r).name)
        if name not in done:
            done.append(name)
    return None
