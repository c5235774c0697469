"""What `kb sync` leaves for the next one when it is killed, and how the next one undoes it.

A sync holding the repository's sync lock (`.git/kb-sync.lock`) writes its state to
`.git/kb-sync.state` (JSON) before its first git command that can leave anything behind,
updates it before each step a kill could cut in half (the rebase, the re-index), and
removes it when it ends in any way but a kill. A sync killed again while it recovers leaves
the first state in place, so the next one recovers both. The sync lock is held with an
flock, which the kernel drops when its holder dies (kb.io.files.lockfile): so a sync that holds
the lock and finds a state file knows the file's owner, the process it names, is dead, and
that everything git did since the state's start time was done for that process.

Recovery, in order, before the new sync does anything else (it holds the repository's
tree lock and the lock of every kb file meanwhile, as its own local step does):

1. Git processes still running in the work tree are waited for (up to ORPHAN_WAIT_S): a git
   the dead kb started runs on without it. On Linux `/proc` says which are running; where
   it cannot be read, git's locks are given the same time to go.
2. git's lock files made while the dead sync ran (`index.lock`, `next-index-*.lock`,
   `HEAD.lock`, `config.lock`, `packed-refs.lock`, a ref's `.lock` under `refs/`), still
   there with no git left running, are what a killed git left: they are removed. A lock
   older than the dead sync's start is not its own and is left alone (git then says so).
3. An unfinished rebase is undone with `git rebase --abort`: branch, index and working tree
   as they were before it, and the autostash (the person's uncommitted changes) applied
   back. If git cannot undo it, the autostash is kept in `git stash`, never lost, and the
   sync stops with one line that says how to finish by hand.
4. The `.merge_file_*` files git writes in the top of the work tree for a merge driver, and
   kb's temp files beside the files it rewrites, made while the dead sync ran, are removed.
5. A rebase that finished without its recount (the counted logs kb merged itself from the
   merge base, kept in the state before the rebase began) is recounted now: merged three
   ways with the committed log and the working tree's, so a refusal recorded since is kept.
6. What a finished rebase pulled is handed back to be re-indexed by this run (the dead
   sync may have been killed before or while it re-indexed), as are the bases whose
   re-index was cut short.

Nothing here decides what is kb's or how logs merge: kb.pure.fleet.syncplan and kb.pure.fleet.merge.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from subprocess import CompletedProcess

from attrs import field, frozen

from kb.io.files.atomic import crash_point, is_temp_name, write_atomic
from kb.pure.fleet.merge import log_spec, merge_counts

STATE_NAME = "kb-sync.state"
# How long a git the dead kb started may still run: a rebase replaying a few commits, with a
# merge driver each (about 0.7 s apiece on a loaded box), is done well within this.
ORPHAN_WAIT_S = 20.0
POLL_S = 0.05
CLOCK_SLACK_S = 1.0  # a lock file's mtime against the state's start time (two clocks)
# git's lock files: `<file>.lock` beside the file it rewrites (index.lock, HEAD.lock,
# config.lock, packed-refs.lock, the next-index-<pid>.lock of a `git commit -- <paths>`),
# in the git directory itself and under its refs/ and logs/. kb's own locks there
# (kb-sync.lock, kb-tree.lock) are flocked and judged by kb.io.files.lockfile instead.
KB_LOCK_PREFIX = "kb-"
REBASE_DIRS = ("rebase-merge", "rebase-apply")
KEPT = "kb sync: changes put aside by an interrupted sync"

# Runs git in the work tree with these arguments, as kb.io.fleet.sync runs it.
Run = Callable[..., CompletedProcess[str]]


class RecoveryFailure(Exception):
    """Recovery could not finish; one line for stderr (without `kb: `)."""


@frozen
class State:
    """What a running sync tells the one that may find it dead."""

    pid: int
    started: float  # time.time() when the sync took its lock
    branch: str
    stage: str = "local"  # "local", "rebase" (onto, head and counts set) or "reindex"
    head: str | None = None  # HEAD before the rebase
    onto: str | None = None  # what it rebased onto
    counts: dict[str, str] = field(factory=dict)  # each counted log as the rebase should leave it
    reindex: tuple[str, ...] = ()  # base roots to re-index


def state_path(git_dir: Path) -> Path:
    return git_dir / STATE_NAME


def write_state(git_dir: Path, state: State) -> None:
    payload = {
        "pid": state.pid,
        "started": state.started,
        "branch": state.branch,
        "stage": state.stage,
        "head": state.head,
        "onto": state.onto,
        "counts": state.counts,
        "reindex": list(state.reindex),
    }
    # ensure_ascii: a log's bytes that are not UTF-8 travel as \udcxx escapes and come back.
    write_atomic(state_path(git_dir), json.dumps(payload, ensure_ascii=True) + "\n")


def read_state(git_dir: Path) -> State | None:
    """The state a dead sync left, or None. A file that cannot be read as one (a kill
    cannot tear it: it is written whole, but a person may have edited it) still says a sync
    died: its own mtime stands in for the start, so only what came after it is undone."""
    path = state_path(git_dir)
    try:
        raw = path.read_text(encoding="utf-8")
        mtime = path.stat().st_mtime
    except FileNotFoundError:
        return None
    except OSError:
        return State(0, time.time(), "")
    try:
        d = json.loads(raw)
        counts = d.get("counts") or {}
        return State(
            pid=int(d["pid"]),
            started=float(d["started"]),
            branch=str(d.get("branch") or ""),
            stage=str(d.get("stage") or "local"),
            head=d.get("head") or None,
            onto=d.get("onto") or None,
            counts={str(k): str(v) for k, v in counts.items()},
            reindex=tuple(str(r) for r in d.get("reindex") or ()),
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return State(0, mtime, "")


def clear_state(git_dir: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(state_path(git_dir))


# -- what is left behind -------------------------------------------------------------------


def _git_running_in(top: Path) -> bool | None:
    """Whether a git process is running with its working folder in `top` (None: this
    system does not say; Linux's /proc does)."""
    proc = Path("/proc")
    if not (proc / "self" / "cwd").exists():
        return None
    mine = str(top.resolve())
    me = os.getpid()
    try:
        entries = os.listdir(proc)
    except OSError:
        return None
    for name in entries:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            comm = (proc / name / "comm").read_text(encoding="utf-8", errors="replace").strip()
            if not comm.startswith("git"):
                continue
            cwd = os.readlink(proc / name / "cwd")
        except OSError:
            continue
        if cwd == mine or cwd.startswith(mine + "/"):
            return True
    return False


def _lock_files(git_dirs: Sequence[Path]) -> Iterator[Path]:
    seen: set[Path] = set()
    for git_dir in git_dirs:
        with contextlib.suppress(OSError):
            for name in sorted(os.listdir(git_dir)):
                p = git_dir / name
                if name.endswith(".lock") and not name.startswith(KB_LOCK_PREFIX) and p not in seen:
                    seen.add(p)
                    yield p
        for sub in ("refs", "logs"):
            root = git_dir / sub
            if not root.is_dir():
                continue
            for p in root.rglob("*.lock"):
                if p not in seen:
                    seen.add(p)
                    yield p


def _made_since(path: Path, started: float) -> bool:
    try:
        return path.lstat().st_mtime >= started - CLOCK_SLACK_S
    except OSError:
        return False


def _wait_for_git(top: Path, git_dirs: Sequence[Path], started: float) -> None:
    deadline = time.monotonic() + ORPHAN_WAIT_S
    while time.monotonic() < deadline:
        running = _git_running_in(top)
        if running is False:
            return
        if running is None and not any(_made_since(p, started) for p in _lock_files(git_dirs)):
            return
        time.sleep(POLL_S)


def _rebasing(git_dir: Path) -> Path | None:
    return next((git_dir / d for d in REBASE_DIRS if (git_dir / d).is_dir()), None)


def _temps(folders: Sequence[Path], started: float) -> list[Path]:
    out: list[Path] = []
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            p = folder / name
            ours = name.startswith(".merge_file_") or (
                is_temp_name(name) and name.startswith((".kb-", ".MAP.md.", ".gitattributes."))
            )
            if ours and p.is_file() and not p.is_symlink() and _made_since(p, started):
                out.append(p)
    return out


@frozen
class Recovered:
    lines: tuple[str, ...]  # what was undone, for the report
    reindex: tuple[str, ...]  # base roots to re-index
    # HEAD before a rebase that finished: what it pulled since is to be re-indexed. "" for
    # an unborn branch (everything), None when no rebase finished.
    pulled_since: str | None = None


def recover(
    top: Path,
    git_dirs: Sequence[Path],
    state: State,
    folders: Sequence[Path],
    run: Run,
) -> Recovered:
    """Undo what the dead sync `state` names left behind (module docstring). `git_dirs` is
    the work tree's git directory, then the common one when they differ; `folders` are the
    folders kb's own files live in (the fleet root, each base's root); `run(*args)` runs git
    in `top` as kb.io.fleet.sync runs it."""
    git_dir = git_dirs[0]
    done: list[str] = []
    _wait_for_git(top, git_dirs, state.started)
    stale = [p for p in _lock_files(git_dirs) if _made_since(p, state.started)]
    for p in stale:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(p)
    if stale:
        shown = ", ".join(_shown(p, top) for p in stale[:4])
        more = f" and {len(stale) - 4} more" if len(stale) > 4 else ""
        done.append(f"removed the lock(s) a killed git left: {shown}{more}")
    crash_point("sync.recover.locks")
    rebase = _rebasing(git_dir)
    undid = False
    if rebase is not None:
        _undo_rebase(rebase, state, run)
        undid = True
        done.append("undid its unfinished rebase (your commits and files are as before it)")
    crash_point("sync.recover.rebase")
    strays = _temps([top, git_dir / "info", *folders], state.started)
    for p in strays:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(p)
    if strays:
        done.append(f"removed {len(strays)} temporary file(s) git or kb left")
    since: str | None = None
    if not undid and state.stage == "rebase" and state.onto and _rebased(state, run):
        since = state.head or ""
        fixed = _recount_after(top, state, run)
        if fixed:
            done.append(f"recounted {', '.join(fixed)} after its rebase")
    reindex = state.reindex if state.stage == "reindex" else ()
    return Recovered(tuple(done), reindex, since)


def _shown(p: Path, top: Path) -> str:
    try:
        return p.relative_to(top).as_posix()
    except ValueError:
        return p.name


def _ok(proc: CompletedProcess[str]) -> bool:
    return proc.returncode == 0


def _out(proc: CompletedProcess[str]) -> str:
    return proc.stdout or ""


def _undo_rebase(rebase: Path, state: State, run: Run) -> None:
    try:
        autostash = (rebase / "autostash").read_text(encoding="utf-8").strip() or None
    except OSError:
        autostash = None
    if _ok(run("rebase", "--abort")):
        return
    # git cannot undo it: its state was cut short (killed between writing the autostash and
    # the rest, say). Drop that state without letting git file the autostash away, go back to
    # the branch (a rebase moves it only when it finishes) and put the person's changes back.
    with contextlib.suppress(FileNotFoundError):
        (rebase / "autostash").unlink()
    run("rebase", "--quit")
    if rebase.exists():
        shutil.rmtree(rebase, ignore_errors=True)
    attached = _ok(run("symbolic-ref", "-q", "HEAD"))
    if autostash is None and attached:
        return  # nothing was put aside and nothing moved: the tree is the person's as it is
    # Every uncommitted change is in the autostash (it is made before anything moves), so
    # the tree can be set back to the branch and the autostash applied to it.
    branch = state.branch or _out(run("symbolic-ref", "-q", "--short", "HEAD")).strip()
    if not branch or not _ok(run("checkout", "-q", "-f", branch)):
        if autostash:
            run("stash", "store", "-m", KEPT, autostash)
        raise RecoveryFailure(
            "a kb sync was killed in the middle of a rebase, and git could not undo it; "
            + ("your uncommitted changes are kept in `git stash`; " if autostash else "")
            + "check out your branch (git checkout -f <branch>), then run kb sync again"
        )
    if autostash and not _ok(run("stash", "apply", "-q", autostash)):
        run("checkout", "-q", "-f", branch)
        run("stash", "store", "-m", KEPT, autostash)
        raise RecoveryFailure(
            "a kb sync was killed in the middle of a rebase; it was undone, and your "
            "uncommitted changes did not apply back cleanly: they are kept in `git stash` "
            "(git stash pop to merge them), then run kb sync again"
        )


def _rebased(state: State, run: Run) -> bool:
    """Whether the rebase the dead sync began has finished: HEAD moved, onto its target."""
    head = _out(run("rev-parse", "-q", "--verify", "HEAD^{commit}")).strip()
    onto = state.onto or ""
    return bool(head) and head != state.head and _ok(run("merge-base", "--is-ancestor", onto, head))


def _contains(spec_text: str, counted: str, rel: str) -> bool:
    """Whether every row of `counted` is in `spec_text` with at least its count: the
    recount was written, and more has been recorded since."""
    spec = log_spec(rel)
    if spec is None:
        return False
    have = {spec.key(r): r.count for r in spec.parse(spec_text)}
    return all(have.get(spec.key(r), 0) >= r.count for r in spec.parse(counted))


def _recount_after(top: Path, state: State, run: Run) -> list[str]:
    """The recount the dead sync did not make after its finished rebase (module docstring).
    Each log is compared with what the recount would write: committed already, or written
    and not yet committed (the new sync commits it as kb's own file), is done; the working
    tree as the rebase left it gets the recount; a working tree with more recorded since
    gets the recount merged in (ours + theirs - base), unless it already holds every
    recounted row at its count or more, which is a recount written before those records.
    """
    fixed: list[str] = []
    for rel, counted in sorted(state.counts.items()):
        committed = _out(run("show", f"HEAD:{rel}"))
        try:
            now = (top / rel).read_bytes().decode("utf-8", errors="surrogateescape")
        except FileNotFoundError:
            now = ""
        if counted in (now, committed):
            continue
        if now == committed:
            target = counted
        elif _contains(now, counted, rel):
            continue
        else:
            merged = merge_counts(committed, now, counted, rel)
            if merged is None or merged.problem:
                continue
            target = merged.text
        write_atomic(top / rel, target, errors="surrogateescape")
        fixed.append(rel)
    return fixed
