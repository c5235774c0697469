"""Mutation testing of kb's decision modules, each against its own fast tests (issue 25).

    python tests/mutation/mutate.py [--module NAME ...] [--work DIR] [--fail-under PCT]
                                    [--timeout SECONDS] [--json FILE] [--show]

For each module it copies the checkout into `--work/<module>` (the source tree is never
mutated), writes a mutmut configuration naming that one file and the tests mapped to it
below, runs `mutmut run` (mutmut 3: every mutant is run against the tests that cover its
function), and prints one row: mutants, killed, survived, not covered, timed out, and the
score. The score counts a timeout as killed (a mutant that hangs the tests is caught) and
a mutant no test covers as survived; mutants listed in `tests/mutation/equivalent.txt`
(with the reason each cannot change behaviour) are left out of the score and reported as
explained. `--show` prints every unexplained survivor's diff. `--fail-under 90` exits 1
when a module scores lower: CI runs the privacy and verdict modules that way.

Only in-process tests can kill a mutant: the subprocess tests run the installed kb, not
the mutated copy, so each module is mapped to its unit and property tests.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EQUIVALENT = Path(__file__).with_name("equivalent.txt")

# module name -> (the file mutated, the tests that hold its rules)
MODULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "verdict": (
        "kb/pure/answering/verdict.py",
        ("tests/unit/test_decisions.py", "tests/properties/test_verdict_properties.py"),
    ),
    "calibration": (
        "kb/pure/answering/calibration.py",
        ("tests/unit/test_calibration.py", "tests/properties/test_verdict_properties.py"),
    ),
    "fusion": (
        "kb/pure/answering/fusion.py",
        ("tests/unit/test_decisions.py", "tests/properties/test_rank_properties.py"),
    ),
    # the keyword scorer: its rules one test each, the early stop against scoring every
    # entry, and the pure properties' indexed-against-naive ranking
    "keyword": (
        "kb/pure/answering/keyword.py",
        (
            "tests/unit/test_keyword_rules.py",
            "tests/properties/test_keyword_properties.py",
            "tests/properties/test_pure_properties.py",
        ),
    ),
    "textrank": (
        "kb/pure/answering/textrank.py",
        (
            "tests/unit/test_decisions.py",
            "tests/properties/test_verdict_properties.py",
            "tests/properties/test_chunk_scoring.py",
        ),
    ),
    # the in-memory text index: its rule tests, and the property that a warm Memory answers
    # as a cold one (capped: each example indexes a fleet)
    "warmtext": (
        "kb/pure/answering/held/warmtext.py",
        (
            "tests/unit/test_warm_text.py",
            "tests/properties/test_warm_text_properties.py",
            "tests/properties/test_warm_text_early_stop.py",
            "tests/properties/test_warm_text_dense.py",
        ),
    ),
    # a held base's ranking summed by numpy: the rule tests run against both rankings, and
    # the property that it keeps Python's chunks and floats
    "densetext": (
        "kb/pure/answering/held/densetext.py",
        (
            "tests/unit/test_warm_text.py",
            "tests/properties/test_warm_text_dense.py",
        ),
    ),
    # where a held base's postings lie in their file and what binds the file to its index:
    # the layout's properties, and the file's own tests (checks, binding, privacy)
    "postingslayout": (
        "kb/pure/answering/held/postingslayout.py",
        ("tests/properties/test_postings_layout.py", "tests/unit/test_postings_file.py"),
    ),
    # an open fleet's entries by path (the keyword ranking's last tie-break): its property
    "entryorder": (
        "kb/pure/answering/entryorder.py",
        ("tests/properties/test_entryorder_properties.py",),
    ),
    # what the keyword scorer knows of a note: its bucket, its token sets, the keys no
    # question reaches, and the packed form a held fleet keeps of it
    "entries": (
        "kb/pure/answering/entries.py",
        (
            "tests/unit/test_entries_rules.py",
            "tests/unit/test_keyword_rules.py",
            "tests/properties/test_pure_properties.py",
            "tests/properties/test_line_scan_properties.py",
        ),
    ),
    # parse header: the `Search for:` and `Exists to:` lines, front matter, headings and the
    # keys a note without a `Search for:` line is found by
    "header": (
        "kb/pure/notes/header.py",
        (
            "tests/unit/test_header_rules.py",
            "tests/properties/test_line_scan_properties.py",
            "tests/properties/test_pure_properties.py",
        ),
    ),
    "privacy": (
        "kb/pure/notes/manifest.py",
        ("tests/unit/test_private_layer.py", "tests/properties/test_names_properties.py"),
    ),
    "merge": (
        "kb/pure/fleet/merge.py",
        ("tests/unit/test_merge_rules.py", "tests/properties/test_merge_drivers.py"),
    ),
    # not the secrets corpus file: its capture and serving tests run the whole kb for every
    # mutant; the unit file drives each corpus form once, through the same leak check
    "scrub": (
        "kb/pure/sessions/scrub.py",
        ("tests/unit/test_scrub_rules.py", "tests/properties/test_scrub_properties.py"),
    ),
    "misslog": (
        "kb/pure/logs/misslog.py",
        (
            "tests/unit/test_logs.py",
            "tests/properties/test_misses_properties.py",
            "tests/properties/test_log_bounds.py",
        ),
    ),
    "routelogs": (
        "kb/pure/logs/routelogs.py",
        (
            "tests/unit/test_logs.py",
            "tests/unit/test_routelogs_rules.py",
            "tests/properties/test_routelogs_properties.py",
        ),
    ),
    "keys": (
        "kb/pure/writing/sources.py",
        ("tests/unit/test_sources_rules.py", "tests/properties/test_sources_properties.py"),
    ),
    "chunking": (
        "kb/pure/notes/chunking.py",
        ("tests/unit/test_decisions.py",),
    ),
    "aliases": (
        "kb/pure/answering/aliases.py",
        ("tests/unit/test_decisions.py", "tests/properties/test_retrieval_properties.py"),
    ),
    "checks": (
        "kb/pure/writing/checks.py",
        (
            "tests/unit/test_checks_rules.py",
            "tests/unit/test_checks.py",
            "tests/properties/test_check_properties.py",
            "tests/properties/test_line_scan_properties.py",
        ),
    ),
    # the safe reader's pure judgement; the unit file drives kb.io.notes.safe_read in process over
    # a real base in tmp_path (links, FIFOs, hard links), the rules file calls it directly
    "reading": (
        "kb/pure/notes/reading.py",
        ("tests/unit/test_safe_read.py", "tests/unit/test_reading_rules.py"),
    ),
    "lookalike": (
        "kb/pure/notes/lookalike.py",
        (
            "tests/unit/test_lookalike_rules.py",
            "tests/unit/test_private_layer.py",
            "tests/properties/test_names_properties.py",
        ),
    ),
    # the link and shared-key graphs: resolution, walks, the views `kb graph` draws (its
    # fleet counted a base at a time is held to the whole graph's views by a property)
    "graph": (
        "kb/pure/writing/graph.py",
        ("tests/unit/test_graph.py", "tests/properties/test_graph_properties.py"),
    ),
    "logbounds": (
        "kb/pure/logs/logbounds.py",
        (
            "tests/unit/test_logs.py",
            "tests/unit/test_routelogs_rules.py",
            "tests/unit/test_logbounds_rules.py",
            "tests/properties/test_log_bounds.py",
        ),
    ),
}

# For these modules every property pinned through tests/properties/strategies.py (`examples`,
# `capped`) runs at most CAPPED[module] examples a mutant: at their own figures the merge
# drivers' properties take tens of seconds a run and the scrubber's seconds, for each of
# hundreds of mutants, and each module's unit file holds its rules one test each. The other
# modules' properties run at their own figures. The in-memory text index's properties index
# a fleet an example: 5 a mutant (its unit file holds the rules).
CAPPED = {"merge": 25, "scrub": 25, "warmtext": 5}

IGNORED = {".git", ".venv", "mutants", "__pycache__", ".hypothesis", ".kb", ".mypy_cache"}
STATS = ("killed", "survived", "no_tests", "timeout", "suspicious", "skipped", "total")


def equivalent() -> dict[str, str]:
    """mutant name -> why it cannot change what the module does."""
    out: dict[str, str] = {}
    if EQUIVALENT.exists():
        for line in EQUIVALENT.read_text(encoding="utf-8").splitlines():
            name, _, why = line.partition(" ")
            if name and not name.startswith("#"):
                out[name] = why.strip()
    return out


def prepare(module: str, work: Path) -> Path:
    source, tests = MODULES[module]
    copy = work / module
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(REPO, copy, ignore=lambda _d, names: [n for n in names if n in IGNORED])
    pyproject = (copy / "pyproject.toml").read_text(encoding="utf-8")
    pyproject = re.sub(r"\n\[tool\.mutmut\][^\[]*", "\n", pyproject)
    pyproject += (
        "\n[tool.mutmut]\n"
        f"source_paths = [{json.dumps(source)}]\n"
        f"pytest_add_cli_args_test_selection = {json.dumps(list(tests))}\n"
        'also_copy = ["kb/", "tests/", "examples/", "skeletons/", "docs/"]\n'
    )
    (copy / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return copy


def run(module: str, work: Path, timeout: float) -> dict[str, object]:
    copy = prepare(module, work)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", "run"],
        cwd=copy,
        env={**os.environ, "KB_MUTATION_EXAMPLES": str(CAPPED[module])}
        if module in CAPPED
        else None,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    seconds = time.monotonic() - started
    subprocess.run(
        [sys.executable, "-m", "mutmut", "export-cicd-stats"], cwd=copy, capture_output=True
    )
    stats_file = copy / "mutants" / "mutmut-cicd-stats.json"
    if not stats_file.exists():
        raise SystemExit(f"mutmut did not run on {module}:\n{done.stdout[-3000:]}{done.stderr}")
    stats = json.loads(stats_file.read_text(encoding="utf-8"))
    if int(stats["total"]) and not any(int(stats[k]) for k in STATS if k != "total"):
        # mutmut stops before any mutant when the unmutated tests fail (a file the copy
        # lacks, say): that is no score, and must not read as 0% or pass as 100%
        raise SystemExit(
            f"mutmut ran no mutant of {module}; its tests fail unmutated:\n{done.stdout[-3000:]}"
        )
    listed = subprocess.run(
        [sys.executable, "-m", "mutmut", "results"], cwd=copy, capture_output=True, text=True
    ).stdout
    surviving = re.findall(r"^\s*(\S+): (survived|no tests)$", listed, re.MULTILINE)
    # A run that stopped part way (mutmut died, or was stopped) leaves mutants never run;
    # scoring it would count them neither way and print a score nobody measured.
    run_all = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=copy,
        capture_output=True,
        text=True,
    ).stdout
    not_run = len(re.findall(r": not checked$", run_all, re.MULTILINE))
    if not_run:
        raise SystemExit(
            f"mutmut stopped on {module} with {not_run} of {stats['total']} mutants not run "
            f"(exit {done.returncode}); resume with `python -m mutmut run` in {copy}:\n"
            f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    known = equivalent()
    explained = [name for name, _ in surviving if name in known]
    unexplained = [name for name, _ in surviving if name not in known]
    counted = int(stats["total"]) - int(stats["skipped"]) - len(explained)
    caught = int(stats["killed"]) + int(stats["timeout"])
    score = 100.0 * caught / counted if counted else 100.0
    return {
        "module": module,
        "file": MODULES[module][0],
        **{k: int(stats[k]) for k in STATS},
        "explained": len(explained),
        "score": round(score, 1),
        "seconds": round(seconds),
        "unexplained": unexplained,
        "copy": str(copy),
    }


def show(row: dict[str, object]) -> None:
    for name in row["unexplained"]:  # type: ignore[attr-defined]
        diff = subprocess.run(
            [sys.executable, "-m", "mutmut", "show", str(name)],
            cwd=str(row["copy"]),
            capture_output=True,
            text=True,
        ).stdout
        print(diff)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--module", action="append", choices=sorted(MODULES))
    parser.add_argument("--work", type=Path, default=Path("/tmp/kb-mutants"))
    parser.add_argument("--fail-under", type=float, default=None)
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    print(
        "| module | file | mutants | killed | survived | not covered | timed out | explained "
        "| score | s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for module in args.module or sorted(MODULES):
        row = run(module, args.work, args.timeout)
        rows.append(row)
        print(
            f"| {module} | `{row['file']}` | {row['total']} | {row['killed']} | "
            f"{row['survived']} | {row['no_tests']} | {row['timeout']} | {row['explained']} | "
            f"{row['score']}% | {row['seconds']} |",
            flush=True,
        )
        if args.show:
            show(row)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    low = [
        r for r in rows if args.fail_under is not None and float(str(r["score"])) < args.fail_under
    ]
    for r in low:
        print(f"{r['module']}: {r['score']}% is under {args.fail_under}%", file=sys.stderr)
    return 1 if low else 0


if __name__ == "__main__":
    raise SystemExit(main())
