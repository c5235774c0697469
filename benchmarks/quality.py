"""Retrieval quality on the til-dev benchmark: kb beside plain BM25, against issue 13's goals.

    python benchmarks/quality.py [--fixture ../shared/fixtures/til-dev] [--work DIR] [--json FILE]

Unpacks the fixture's upstream tarball, builds the plain and the keyed fleet with the
fixture's own `convert.py`, indexes both, asks every gold question through `Memory.ask`
(the contract every surface uses) and prints one markdown table per fleet:

- fused top-1, top-5 and MRR (over the 150 answerable questions; rank in the default top 5,
  as `kb eval` counts it);
- hit precision (share of `hit` verdicts whose first file is gold) and how many hits;
- refuse-questions answered `hit`, and answerable questions refused as `nothing`;
- in-process `ask` p50 and p95.

With the `bench` extra installed (`pip install -e ".[bench]"`), the same notes are also ranked
by `bm25s` (whole notes, English stopwords, its defaults): the yardstick the goals name.
bm25s is never a runtime dependency of kb.
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

from kb.io.indexer import index_bases
from kb.io.memory import Memory

HERE = Path(__file__).resolve().parent
DEFAULT_FIXTURE = HERE.parent.parent / "shared" / "fixtures" / "til-dev"
GOALS = {
    "top1": 77,  # bm25s on the plain notes
    "top5": 108,
    "precision": 0.85,
    "hits": 40,
    "refuse_hit": 3,
    "answerable_nothing": 30,
}


def gold_rows(path: Path) -> list[tuple[str, str | None]]:
    rows: list[tuple[str, str | None]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        question, answer = line.split("\t")
        rows.append((question, None if answer.strip() == "-" else answer.strip()))
    return rows


def build(fixture: Path, work: Path) -> dict[str, Path]:
    src = work / "til-src"
    if not src.exists():
        src.mkdir(parents=True)
        with tarfile.open(fixture / "til-src.tar.xz") as tar:
            tar.extractall(src, filter="data")
    fleets: dict[str, Path] = {}
    for name, extra in (("plain", []), ("keyed", ["--keyed"])):
        out = work / f"til-{name}"
        if not (out / "fleet").exists():
            subprocess.run(
                [sys.executable, str(fixture / "convert.py"), str(src), str(out), *extra],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        index_bases([str(out / "fleet")], False)
        fleets[name] = out / "fleet"
    return fleets


def measure_kb(fleet: Path, rows: Sequence[tuple[str, str | None]]) -> dict[str, float]:
    answerable = [r for r in rows if r[1]]
    top1 = top5 = hits = right_hits = refuse_hit = answer_nothing = 0
    rr = 0.0
    times: list[float] = []
    with Memory.open([str(fleet)]) as memory:
        memory.ask("warm up")
        for question, gold in rows:
            start = time.perf_counter()
            answer = memory.ask(question)  # the default top 5, what every surface serves
            times.append((time.perf_counter() - start) * 1000)
            files = [f"{f.base}/{f.path}" for f in answer.found]
            verdict = answer.confidence.verdict
            if verdict == "hit":
                hits += 1
                right_hits += bool(gold and files[:1] == [gold])
                refuse_hit += gold is None
            if gold is None:
                continue
            answer_nothing += verdict == "nothing"
            if gold in files:
                rank = files.index(gold) + 1
                top1 += rank == 1
                top5 += rank <= 5
                rr += 1 / rank
    times.sort()
    return {
        "top1": top1,
        "top5": top5,
        "mrr": round(rr / max(len(answerable), 1), 3),
        "hits": hits,
        "precision": round(right_hits / hits, 3) if hits else 0.0,
        "refuse_hit": refuse_hit,
        "answerable_nothing": answer_nothing,
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(len(times) * 0.95) - 1], 2),
    }


def measure_bm25s(fleet: Path, rows: Sequence[tuple[str, str | None]]) -> dict[str, float] | None:
    try:
        import bm25s  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    notes = sorted(p for p in fleet.glob("*/knowledge/*.md"))
    ids = [f"{p.parent.parent.name}/knowledge/{p.name}" for p in notes]
    retriever = bm25s.BM25()
    corpus = [p.read_text(encoding="utf-8") for p in notes]
    retriever.index(
        bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False
    )
    top1 = top5 = 0
    rr = 0.0
    times: list[float] = []
    for question, gold in rows:
        if gold is None:
            continue
        start = time.perf_counter()
        found, _ = retriever.retrieve(
            bm25s.tokenize([question], stopwords="en", show_progress=False),
            k=10,
            show_progress=False,
        )
        times.append((time.perf_counter() - start) * 1000)
        files = [ids[i] for i in found[0]]
        if gold in files:
            rank = files.index(gold) + 1
            top1 += rank == 1
            top5 += rank <= 5
            rr += 1 / rank
    return {
        "top1": top1,
        "top5": top5,
        "mrr": round(rr / 150, 3),
        "p50_ms": round(statistics.median(times), 2),
    }


def table(name: str, kb: dict[str, float], bm: dict[str, float] | None) -> list[str]:
    def ok(good: bool) -> str:
        return "yes" if good else "**no**"

    lines = [
        f"### {name} fleet",
        "",
        "| measure | kb | bm25s | goal | met |",
        "|---|---:|---:|---:|:---:|",
        f"| fused top-1 /150 | {kb['top1']} | {bm['top1'] if bm else '-'} | >= 77 "
        f"| {ok(kb['top1'] >= GOALS['top1'])} |",
        f"| top-5 /150 | {kb['top5']} | {bm['top5'] if bm else '-'} | >= 108 "
        f"| {ok(kb['top5'] >= GOALS['top5'])} |",
        f"| MRR (top 5) | {kb['mrr']} | {bm['mrr'] if bm else '-'} | | |",
        f"| hit precision | {kb['precision']:.0%} of {kb['hits']} | | >= 85% of >= 40 "
        f"| {ok(kb['precision'] >= GOALS['precision'] and kb['hits'] >= GOALS['hits'])} |",
        f"| refuse-questions answered hit /50 | {kb['refuse_hit']} | | <= 3 "
        f"| {ok(kb['refuse_hit'] <= GOALS['refuse_hit'])} |",
        f"| answerable refused (nothing) /150 | {kb['answerable_nothing']} | | <= 30 "
        f"| {ok(kb['answerable_nothing'] <= GOALS['answerable_nothing'])} |",
        f"| ask p50 / p95 ms | {kb['p50_ms']} / {kb['p95_ms']} | "
        f"{bm['p50_ms'] if bm else '-'} | | |",
        "",
    ]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixture", type=Path, default=DEFAULT_FIXTURE)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if not (args.fixture / "til-src.tar.xz").exists():
        print(f"no til-dev fixture at {args.fixture}", file=sys.stderr)
        return 1
    work = args.work or Path(tempfile.mkdtemp(prefix="kb-quality-"))
    try:
        fleets = build(args.fixture, work)
        rows = gold_rows(args.fixture / "gold.tsv")
        results: dict[str, dict[str, dict[str, float] | None]] = {}
        out: list[str] = []
        for name, fleet in fleets.items():
            kb = measure_kb(fleet, rows)
            bm = measure_bm25s(fleet, rows) if name == "plain" else None
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
