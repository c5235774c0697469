"""Hostile files on disk, through the whole CLI: the real `kb` process (the `kb` fixture) on a
fleet that holds notes that are not UTF-8 or hold NUL bytes, a deep folder tree, symlink
loops, dangling links, and file and folder names with newlines, carriage returns, tabs,
backslashes, leading dashes and bytes that are not UTF-8; plus one large file.

For `kb index`, `route`, `check`, `list`, `boot` and `fleet`: the spec's exit code, no
traceback, no hang (the fixture's 120 s timeout), output that decodes as UTF-8, JSON that
parses, and no name that splits an output line (each name with a line break carries a
marker after the break, and no output line may start with it). A refused input is one
`kb: ...` line on stderr.

Sizes: the deep tree is nested past Python's recursion limit; the large files are
`scaled(ci, nightly)` (tests/stress/budget.py): a 10 MB note in CI, 100 MB under
KB_STRESS=nightly, plus a sparse 100 MB `.md` that kb must refuse without reading.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.io.notes.walk import MAX_NOTE_BYTES
from tests.conftest import EXAMPLE_FLEET, Result, RunKb
from tests.stress.budget import scaled

MB = 1024 * 1024
DEEP = scaled(1100, 1500)  # folders nested: past the ~1,000-frame recursion limit either way
LARGE_NOTE = scaled(10 * MB, 100 * MB)
SPARSE_NOTE = 100 * MB  # costs no disk: a hole, read back as NUL bytes if anyone reads it
PEAK_RSS_LIMIT = 200 * MB

# Markers that follow a line break inside a name: if a name is ever printed raw, a marker
# starts an output line.
TAILS = ("TAILNEWLINE", "TAILCR", "TAILDIR", "TAILAGENT", "TAILSRC")


def _write(path: bytes, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)


def _nest(top: bytes, depth: int, leaf: bytes) -> None:
    """`top/d/d/.../d/deep.md`, `depth` folders deep. Built from the bottom by renames, so
    every call names a short path (creating each level by its full path costs time growing
    with the square of the depth, and `os.makedirs` recurses once per level)."""
    chain, wrap = top + b"/.chain", top + b"/.wrap"
    os.mkdir(chain)
    _write(chain + b"/deep.md", leaf)
    for _ in range(depth - 1):
        os.mkdir(wrap)
        os.rename(chain, wrap + b"/d")
        os.rename(wrap, chain)
    os.rename(chain, top + b"/d")


def _unnest(top: bytes) -> None:
    """Remove what `_nest` made: walk down by relative `chdir`, then remove each level on the
    way up, so no call names a long path (`shutil.rmtree` recurses once per level)."""
    here = os.getcwd()
    try:
        os.chdir(top)
        depth = 0
        while os.path.isdir(b"d"):
            os.chdir(b"d")
            depth += 1
        for _ in range(depth):
            for name in os.listdir(b"."):
                os.unlink(name)
            os.chdir(b"..")
            os.rmdir(b"d")
    finally:
        os.chdir(here)


def _note(title: str, keys: str) -> bytes:
    return f"# {title}\n\n**Search for:** {keys}\n\nBody text about {keys}.\n".encode()


def build_hostile_fleet(root: Path) -> Path:
    shutil.copytree(EXAMPLE_FLEET, root, ignore=shutil.ignore_patterns(".kb", "kb-misses.txt*"))
    k = os.fsencode(root / "fleet" / "ada" / "knowledge")
    # Contents.
    _write(k + b"/latin1.md", "# Caf\xe9\n\n**Search for:** caf\xe9, zebrafish\n".encode("latin-1"))
    _write(k + b"/blob.md", bytes(range(256)) * 16)
    _write(k + b"/nul.md", b"# Nul\x00 note\n\n**Search for:** zebrafish\x00, nul\n\x00\x00\n")
    _write(k + b"/bom-crlf.md", b"\xef\xbb\xbf# Bom\r\n\r\n**Search for:** zebrafish, bom\r\n")
    _write(
        k + b"/rtl.md",
        "# \u202eevil\u202c title\n\n**Search for:** zebrafish, \u200fmark\n".encode(),
    )
    _write(k + b"/confusable.md", "# C\n\n**Ѕearch for:** zebrafish, cyrillic\n".encode())
    _write(k + b"/long-line.md", _note("Long", "zebrafish, longline") + b"x" * 2_000_000 + b"\n")
    # Names.
    _write(k + b"/newline\nTAILNEWLINE.md", _note("Newline", "zebrafish, newline"))
    _write(k + b"/carriage\rTAILCR.md", _note("Return", "zebrafish, carriage"))
    _write(k + b"/tab\tname.md", _note("Tab", "zebrafish, tabbed"))
    _write(k + b"/back\\slash.md", _note("Backslash", "zebrafish, backslash"))
    _write(k + b"/-dash.md", _note("Dash", "zebrafish, dashed"))
    _write(k + b"/--all.md", _note("Flag", "zebrafish, flaglike"))
    _write(k + b"/bad\xff.md", _note("Bad byte", "zebrafish, badbyte"))
    os.makedirs(k + b"/bad\xfedir")
    _write(k + b"/bad\xfedir/inner.md", _note("Inner", "zebrafish, innerbad"))
    os.makedirs(k + b"/dir\nTAILDIR")
    _write(k + b"/dir\nTAILDIR/inner.md", _note("Inner", "zebrafish, innernewline"))
    # Links: an ancestor, itself, a dangling one, a file link to itself, a two-link loop.
    os.symlink("..", k + b"/loop")
    os.symlink("self", k + b"/self")
    os.symlink("nowhere.md", k + b"/dangling.md")
    os.symlink("selfmd.md", k + b"/selfmd.md")
    os.symlink("ring-b", k + b"/ring-a")
    os.symlink("ring-a", k + b"/ring-b")
    # Deep: a note at the bottom of a tree nested past the recursion limit, reached from the
    # public files and, by a link, from the private layer (which `kb check` scans for
    # citations on its own walk). One tree: removing a folder costs milliseconds here.
    _nest(k, DEEP, _note("Deep", "zebrafish, abyss [src:X]"))
    os.symlink("../knowledge/d", os.fsencode(root / "fleet" / "ada" / "records" / "d"))
    # Agents with hostile folder names, and manifests with hostile bytes.
    fleet = os.fsencode(root / "fleet")
    for name, agent_txt in (
        (b"bad\nTAILAGENT", b"name = Newline agent\nrole = tester\n"),
        (b"inv\xffagent", b"\xff\xfe not utf-8 at all\n"),
        (b"tab\tagent", b"\xef\xbb\xbfname = Tab\r\nrole = has\x00nul\r\n= orphan\n\x00\n"),
        (b"-dashagent", b"name = Dash\nrole = cr\rin the middle\nprivate = \n"),
    ):
        os.makedirs(fleet + b"/" + name + b"/knowledge")
        _write(fleet + b"/" + name + b"/agent.txt", agent_txt)
        _write(fleet + b"/" + name + b"/MAP.md", _note("Map", "zebrafish"))
        _write(fleet + b"/" + name + b"/knowledge/z.md", _note("Z", "zebrafish, okapi"))
    _write(fleet + b"/ada/kb-aliases.txt", b"\xef\xbb\xbfzebra = zebrafish\r\n\x00 = \x00\n== x\n")
    _write(os.fsencode(root) + b"/fleet.txt", b"name = Harbor\r\nrole = \x00\xff\n")
    sources = fleet + b"/ada/sources"
    os.makedirs(sources, exist_ok=True)
    _write(sources + b"/bad\nTAILSRC.txt", b"type = book\ntitle = T\n")
    _write(sources + b"/23456789AB.txt", b"type = bo\rok\ntitle = \x00\nretrieved_on = x\n")
    _write(
        sources + b"/23456789AC.txt",
        b"type = book\ntitle = Fine\nretrieved_on = 2026-01-01\nretrieval_status = full\n",
    )
    return root


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = build_hostile_fleet(tmp_path_factory.mktemp("hostile") / "fleet")
    yield root
    # pytest's own clean-up of old temp dirs would recurse once per level on this
    _unnest(os.fsencode(root / "fleet" / "ada" / "knowledge"))


def _env(fleet: Path) -> dict[str, str]:
    return {"KB_MISSES_PATH": str(fleet.parent / "misses.txt")}


def _sound(out: Result) -> None:
    text = out.stdout + out.stderr
    assert "Traceback" not in text, out.stderr
    for tail in TAILS:
        assert not re.search(rf"^\s*{tail}", text, re.M), f"a name split a line at {tail}"
    assert "\r" not in text  # a raw CR would rewrite a terminal line


def _one_line_error(out: Result) -> None:
    assert out.stderr.startswith("kb: ") and out.stderr.count("\n") == 1, out.stderr


@pytest.fixture(scope="module")
def indexed(hostile: Path) -> Path:
    proc = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", "index"],
        cwd=hostile,
        env={**os.environ, **_env(hostile)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return hostile


def test_index_reports_every_refusal_on_one_line(indexed: Path, kb: RunKb) -> None:
    out = kb(["index"], cwd=indexed, env=_env(indexed))
    _sound(out)
    assert out.code == 0
    for shown in (
        "ada/knowledge/latin1.md: not valid UTF-8",
        "ada/knowledge/blob.md: not valid UTF-8",
        "ada/knowledge/newline\\nTAILNEWLINE.md: its name holds a line break",
        "ada/knowledge/carriage\\rTAILCR.md: its name holds",
        "ada/knowledge/tab\\tname.md: its name holds",
        "ada/knowledge/bad\ufffd.md: its name holds",
        "ada/knowledge/bad\ufffddir/inner.md: its name holds",
        "ada/knowledge/dir\\nTAILDIR/inner.md: its name holds",
    ):
        assert shown in out.stdout, (shown, out.stdout)


def test_index_json_is_valid(indexed: Path, kb: RunKb) -> None:
    summary = kb(["index", "--json"], cwd=indexed, env=_env(indexed))
    _sound(summary)
    assert summary.code == 0 and json.loads(summary.stdout)["total"]["indexes"] >= 1
    out = kb(["index", "--entries"], cwd=indexed, env=_env(indexed))
    _sound(out)
    assert out.code == 0
    rows = json.loads(out.stdout)
    paths = {(r["base"], r["path"]) for r in rows}
    assert ("ada", "knowledge/-dash.md") in paths
    assert ("ada", "knowledge/back\\slash.md") in paths
    assert ("ada", "knowledge/nul.md") in paths
    assert ("ada", "knowledge/bom-crlf.md") in paths
    assert ("ada", "knowledge/" + "d/" * DEEP + "deep.md") in paths
    assert ("bad\\nTAILAGENT", "knowledge/z.md") in paths
    assert ("inv\ufffdagent", "knowledge/z.md") in paths


@pytest.mark.parametrize("flags", [["--hybrid"], ["--json", "--top", "99999999999999999999"]])
def test_route(indexed: Path, kb: RunKb, flags: list[str]) -> None:
    out = kb(["route", "zebrafish abyss", *flags], cwd=indexed, env=_env(indexed))
    _sound(out)
    assert out.code == 0, out.stderr
    if "--json" in flags:
        assert out.stdout.count("\n") == 1
        payload = json.loads(out.stdout)
        assert payload["verdict"] in ("hit", "guess", "nothing")
    else:
        assert "deep.md" in out.stdout


def test_check(indexed: Path, kb: RunKb) -> None:
    out = kb(["check"], cwd=indexed, env=_env(indexed))
    _sound(out)
    assert out.code == 1  # the example fleet carries an E02 on purpose; unreadable files add
    assert "knowledge/newline\\nTAILNEWLINE.md: its name holds" in out.stdout
    assert "knowledge/latin1.md: not valid UTF-8" in out.stdout
    assert "bad\\nTAILSRC" in out.stdout + out.stderr  # the record's stem, escaped


@pytest.mark.parametrize("flags", [["--all"], ["--json"]])
def test_list(indexed: Path, kb: RunKb, flags: list[str]) -> None:
    out = kb(["list", *flags], cwd=indexed, env=_env(indexed))
    _sound(out)
    assert out.code == 0
    if "--json" in flags:
        rows = json.loads(out.stdout)
        assert any(r["path"] == "knowledge/-dash.md" for r in rows)
    else:
        assert "ada/knowledge/-dash.md" in out.stdout
        assert "bad\\nTAILAGENT/knowledge/z.md" in out.stdout


def test_fleet(indexed: Path, kb: RunKb) -> None:
    out = kb(["fleet"], cwd=indexed, env=_env(indexed))
    _sound(out)
    assert out.code == 0
    assert "root: fleet/bad\\nTAILAGENT" in out.stdout
    assert "role: cr\\rin the middle" in out.stdout


@pytest.mark.parametrize(
    "stdin",
    [
        '{"prompt": "zebrafish abyss okapi", "session_id": "s1"}',
        '{"prompt": "\\ud800 zebrafish\\u0000abyss \\udfff", "cwd": "/nonexistent\\n"}',
    ],
)
def test_boot(indexed: Path, kb: RunKb, stdin: str) -> None:
    out = kb(["boot"], cwd=indexed, env=_env(indexed), stdin=stdin)
    _sound(out)
    assert out.code == 0 and out.stderr == ""


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["index", "no\nTAILAGENT"], "no such directory"),
        (["list", "fleet/ada/knowledge/-dash.md"], "not a directory"),
        (["route", "q", "fleet/ada/knowledge/ring-a"], "no such directory"),
        (["check", "fleet/ada/knowledge/self"], "no such directory"),
    ],
)
def test_refusals_are_one_line(indexed: Path, kb: RunKb, args: list[str], says: str) -> None:
    out = kb(args, cwd=indexed, env=_env(indexed))
    _sound(out)
    assert out.code == 1
    if args[0] == "check":  # check names an unreadable base in its report and exits 1
        assert says in out.stdout + out.stderr
        return
    _one_line_error(out)
    assert says in out.stderr


# Run by a fresh, small interpreter: Linux carries a parent's peak RSS into a forked
# child's ru_maxrss, so a `kb` forked straight from a pytest process of 300 MB would report
# 300 MB whatever it used. Forked from this ~10 MB helper, it reports its own peak.
_RSS_HELPER = """
import json, os, subprocess, sys
with open(sys.argv[1], "wb") as out:
    proc = subprocess.Popen(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
print(json.dumps([os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024]))
"""


def _wait4_rss(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, int, str]:
    """(exit code, peak resident set size in bytes, stdout) of one `kb` process, from the
    rusage `wait4` reports for exactly that child."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    out_path = cwd.parent / "rss-stdout.txt"
    helper = subprocess.run(
        [
            sys.executable,
            "-c",
            _RSS_HELPER,
            str(out_path),
            sys.executable,
            "-m",
            "kb.shell.cli.main",
            *args,
        ],
        cwd=cwd,
        env={**full_env, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    code, peak = json.loads(helper.stdout)
    return int(code), int(peak), out_path.read_text("utf-8")


def test_large_files_are_not_read_whole(tmp_path: Path, kb: RunKb) -> None:
    fleet = tmp_path / "fleet"
    shutil.copytree(EXAMPLE_FLEET, fleet, ignore=shutil.ignore_patterns(".kb"))
    knowledge = fleet / "fleet" / "ada" / "knowledge"
    with open(knowledge / "video.bin", "wb") as fh:  # not a note: never opened
        fh.truncate(LARGE_NOTE)
    with open(knowledge / "sparse.md", "wb") as fh:  # a note past the cap: refused unread
        fh.truncate(SPARSE_NOTE)
    paragraph = ("lorem ipsum dolor sit amet " * 40 + "\n\n").encode()
    with open(knowledge / "large.md", "wb") as fh:
        fh.write(b"# Large\n\n**Search for:** enormous, gigantic\n\n")
        for _ in range(LARGE_NOTE // len(paragraph)):
            fh.write(paragraph)
    code, peak, stdout = _wait4_rss(["index"], fleet, _env(fleet))
    assert code == 0
    assert peak < PEAK_RSS_LIMIT, f"kb index peaked at {peak // MB} MB"
    assert f"ada/knowledge/sparse.md: {SPARSE_NOTE} bytes, past the" in stdout
    if LARGE_NOTE > MAX_NOTE_BYTES:
        assert f"ada/knowledge/large.md: {os.path.getsize(knowledge / 'large.md')} bytes" in stdout
    else:  # a large note under the cap is still a note: indexed and found
        out = kb(["route", "gigantic", "--json"], cwd=fleet, env=_env(fleet))
        assert json.loads(out.stdout)["keyword_top"] == "ada/knowledge/large.md"
    check = kb(["check"], cwd=fleet, env=_env(fleet))
    _sound(check)
    assert "knowledge/sparse.md: 104857600 bytes, past the 16 MiB" in check.stdout
