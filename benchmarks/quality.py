"""Retrieval and verdict quality on every dev corpus, kb beside plain BM25 (issue 23's goals).

    python benchmarks/quality.py [--work DIR] [--json FILE] [--corpus NAME ...]
                                 [--fixtures ../shared/fixtures] [--pydocs-src DIR]

Corpora (each is skipped, with a line saying why, when its source is absent):

- `til-plain`, `til-keyed`: the til-dev fixture's 1,871 short real notes, built by the
  fixture's own `convert.py` (150 answerable questions, 50 to refuse).
- `pydocs`: about 300 long, sectioned pages of the Python 3.11 documentation, built by
  `benchmarks/corpora/pydocs/convert.py` from Debian's `python3-doc` package (installed, not
  shipped); its questions are `benchmarks/corpora/pydocs/gold.tsv`.
- `demo`: the original's eleven-note demo fleet (`ulpia-demo`), asked its own gold file and
  the blind abstention set in `benchmarks/corpora/demo-abstention/`.

Every question goes through `Memory.ask` (the contract every surface uses) at the default
top 5. Per fleet it prints fused top-1, top-5 and MRR over the answerable questions, the
verdict table (answerable: hit right / hit wrong / guess / nothing; must-refuse: hit /
guess / nothing), hit precision, and in-process `ask` p50 and p95. With the `bench` extra
(`pip install -e ".[bench]"`), the same notes are ranked by `bm25s` over whole notes
(English stopwords, its defaults): the yardstick the goals name, never a kb dependency.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from kb.io.answering.memory import Answer, Memory
from kb.io.notes.indexer import index_bases

HERE = Path(__file__).resolve().parent
DEFAULT_FIXTURES = HERE.parent.parent / "shared" / "fixtures"
CORPORA = HERE / "corpora"
DEFAULT_PYDOCS = Path("/usr/share/doc/python3.11/html")

Row = tuple[str, str | None]


def gold_rows(path: Path) -> list[Row]:
    rows: list[Row] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        question, answer = line.split("\t")[:2]
        rows.append((question, None if answer.strip() == "-" else answer.strip()))
    return rows


def build_til(fixture: Path, work: Path) -> dict[str, Path]:
    src = work / "til-src"
    if not src.exists():
        src.mkdir(parents=True)
        with tarfile.open(fixture / "til-src.tar.xz") as tar:
            tar.extractall(src, filter="data")
    fleets: dict[str, Path] = {}
    for name, extra in (("til-plain", []), ("til-keyed", ["--keyed"])):
        out = work / name
        if not (out / "fleet").exists():
            subprocess.run(
                [sys.executable, str(fixture / "convert.py"), str(src), str(out), *extra],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        fleets[name] = out / "fleet"
    return fleets


def build_pydocs(src: Path, work: Path) -> Path:
    out = work / "pydocs"
    if not (out / "fleet").exists():
        subprocess.run(
            [sys.executable, str(CORPORA / "pydocs" / "convert.py"), "--src", str(src), str(out)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return out / "fleet"


def build_demo(fixture: Path, work: Path) -> Path:
    out = work / "demo"
    if not out.exists():
        shutil.copytree(fixture, out)
    return out


def measure_kb(fleet: Path, rows: Sequence[Row]) -> dict[str, float]:
    """The retrieval and verdict figures of one fleet over one gold file."""
    answerable = [r for r in rows if r[1]]
    counts = dict.fromkeys(("top1", "top5", "hit_right", "hit_wrong", "guess", "nothing"), 0) | {
        "refuse_hit": 0,
        "refuse_guess": 0,
        "refuse_nothing": 0,
    }
    rr = 0.0
    times: list[float] = []
    answers = []
    with Memory.open([str(fleet)]) as memory:
        memory.ask("warm up")
        for question, _ in rows:
            start = time.perf_counter()
            answers.append(memory.ask(question))  # the default top 5, what every surface serves
            times.append((time.perf_counter() - start) * 1000)
    # the same questions of a Memory held in memory (decision 0037): the same answers, faster
    warm_times: list[float] = []
    same = 0
    with Memory.open([str(fleet)]) as memory:
        memory.warm()
        memory.ask("warm up")
        for (question, _), cold in zip(rows, answers, strict=True):
            start = time.perf_counter()
            answer = memory.ask(question)
            warm_times.append((time.perf_counter() - start) * 1000)
            same += _facts(answer) == _facts(cold)
    for (_, gold), answer in zip(rows, answers, strict=True):
        files = [f"{f.base}/{f.path}" for f in answer.found]
        verdict = answer.confidence.verdict
        if gold is None:
            counts[f"refuse_{verdict}"] += 1
            continue
        if verdict == "hit":
            counts["hit_right" if files[:1] == [gold] else "hit_wrong"] += 1
        else:
            counts[verdict] += 1
        if gold in files:
            rank = files.index(gold) + 1
            counts["top1"] += rank == 1
            counts["top5"] += rank <= 5
            rr += 1 / rank
    times.sort()
    warm_times.sort()
    # every `hit` verdict counts, a must-refuse question's too (as `kb eval` counts them)
    hits = counts["hit_right"] + counts["hit_wrong"] + counts["refuse_hit"]
    return {
        **counts,
        "answerable": len(answerable),
        "refusable": len(rows) - len(answerable),
        "mrr": round(rr / max(len(answerable), 1), 3),
        "hits": hits,
        "precision": round(counts["hit_right"] / hits, 3) if hits else 0.0,
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[max(int(len(times) * 0.95) - 1, 0)], 2),
        "warm_p50_ms": round(statistics.median(warm_times), 2),
        "warm_p95_ms": round(warm_times[max(int(len(warm_times) * 0.95) - 1, 0)], 2),
        "warm_same": same,
    }


def _facts(answer: Answer) -> tuple[object, ...]:
    return (tuple((f.base, f.path, f.score) for f in answer.found), answer.confidence)


def measure_bm25s(fleet: Path, rows: Sequence[Row]) -> dict[str, float] | None:
    try:
        import bm25s  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        return None
    notes = sorted(p for p in fleet.glob("*/*/*.md") if p.name not in ("MAP.md",))
    ids = [str(p.relative_to(fleet)) for p in notes]
    retriever = bm25s.BM25()
    corpus = [p.read_text(encoding="utf-8") for p in notes]
    retriever.index(
        bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False
    )
    top1 = top5 = 0
    rr = 0.0
    answerable = [r for r in rows if r[1]]
    for question, gold in answerable:
        found, _ = retriever.retrieve(
            bm25s.tokenize([question], stopwords="en", show_progress=False),
            k=min(10, len(ids)),
            show_progress=False,
        )
        files = [ids[i] for i in found[0]]
        if gold in files:
            rank = files.index(gold) + 1
            top1 += rank == 1
            top5 += rank <= 5
            rr += 1 / rank
    return {"top1": top1, "top5": top5, "mrr": round(rr / max(len(answerable), 1), 3)}


def table(name: str, kb: dict[str, float], bm: dict[str, float] | None) -> list[str]:
    n, r = int(kb["answerable"]), int(kb["refusable"])
    lines = [
        f"### {name}",
        "",
        "| measure | kb | bm25s |",
        "|---|---:|---:|",
        f"| fused top-1 /{n} | {kb['top1']} | {bm['top1'] if bm else '-'} |",
        f"| top-5 /{n} | {kb['top5']} | {bm['top5'] if bm else '-'} |",
        f"| MRR (top 5) | {kb['mrr']} | {bm['mrr'] if bm else '-'} |",
        f"| hit precision (every hit) | {kb['precision']:.0%} of {kb['hits']} | |",
        f"| ask p50 / p95 ms | {kb['p50_ms']} / {kb['p95_ms']} | |",
        f"| warm ask p50 / p95 ms (same answers) | {kb['warm_p50_ms']} / {kb['warm_p95_ms']} "
        f"({kb['warm_same']}/{n + r}) | |",
        "",
        "| verdict | hit (right top file) | guess | nothing |",
        "|---|---:|---:|---:|",
        f"| {n} answerable | {kb['hit_right'] + kb['hit_wrong']} ({kb['hit_right']}) "
        f"| {kb['guess']} | {kb['nothing']} |",
    ]
    if r:
        lines.append(
            f"| {r} must-refuse | {kb['refuse_hit']} | {kb['refuse_guess']} "
            f"| {kb['refuse_nothing']} |"
        )
    return [*lines, ""]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--pydocs-src", type=Path, default=DEFAULT_PYDOCS)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--corpus", action="append", choices=("til-plain", "til-keyed", "pydocs", "demo")
    )
    args = parser.parse_args(argv)
    wanted = set(args.corpus or ("til-plain", "til-keyed", "pydocs", "demo"))
    work = args.work or Path(tempfile.mkdtemp(prefix="kb-quality-"))
    runs: list[tuple[str, Path, Path, bool]] = []  # name, fleet, gold, with bm25s
    try:
        til = args.fixtures / "til-dev"
        if wanted & {"til-plain", "til-keyed"}:
            if (til / "til-src.tar.xz").exists():
                for name, fleet in build_til(til, work).items():
                    if name in wanted:
                        runs.append((name, fleet, til / "gold.tsv", name == "til-plain"))
            else:
                print(f"skipped til-dev: no fixture at {til}", file=sys.stderr)
        if "pydocs" in wanted:
            if (args.pydocs_src / "library").is_dir():
                fleet = build_pydocs(args.pydocs_src, work)
                runs.append(("pydocs", fleet, CORPORA / "pydocs" / "gold.tsv", True))
            else:
                print(
                    f"skipped pydocs: no documentation at {args.pydocs_src} "
                    "(apt-get install python3-doc)",
                    file=sys.stderr,
                )
        demo = args.fixtures / "ulpia-demo"
        if "demo" in wanted:
            if (demo / "gold.tsv").exists():
                fleet = build_demo(demo, work)
                runs.append(("demo (its gold)", fleet, demo / "gold.tsv", False))
                runs.append(
                    (
                        "demo (blind abstention set)",
                        fleet,
                        CORPORA / "demo-abstention" / "gold.tsv",
                        False,
                    )
                )
            else:
                print(f"skipped demo: no fixture at {demo}", file=sys.stderr)
        results: dict[str, dict[str, dict[str, float] | None]] = {}
        out: list[str] = []
        indexed: set[Path] = set()
        for name, fleet, gold, with_bm25s in runs:
            if fleet not in indexed:
                index_bases([str(fleet)], False)
                indexed.add(fleet)
            rows = gold_rows(gold)
            kb = measure_kb(fleet, rows)
            bm = measure_bm25s(fleet, rows) if with_bm25s else None
            results[name] = {"kb": kb, "bm25s": bm}
            out += table(name, kb, bm)
        print("\n".join(out))
        if args.json:
            args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
