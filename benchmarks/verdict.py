"""The verdict's evidence on every dev corpus: how well each feature separates, and the grid.

    python benchmarks/verdict.py [--work DIR] [--fixtures DIR] [--pydocs-src DIR]

Builds the corpora as `quality.py` does (same `--work` cache), asks every gold question
once through `Memory.ask` with the verdict's evidence recorded, then prints:

- per corpus, the fleet's calibration (on-topic and off-topic rates, known-share line);
- per feature, its ROC AUC between answerable and must-refuse questions on each corpus
  (1.0 separates perfectly, 0.5 is chance): decision 0030 quotes this table;
- the `nothing` margin grid: for each margin, answerable questions refused and must-refuse
  questions refused, per corpus, the same evidence judged again at each setting.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from attrs import evolve

import kb.io.answering.memory as memory_module
from kb.io.answering.memory import Memory
from kb.io.notes.indexer import index_bases
from kb.pure.answering import verdict
from kb.pure.answering.keyword import KeywordHit
from kb.pure.answering.verdict import Evidence

sys.path.insert(0, str(Path(__file__).resolve().parent))
import quality

Case = tuple[Evidence, bool, bool]  # evidence, answerable, top file is the gold one

FEATURES: dict[str, Callable[[Evidence], float]] = {
    "known share (exact words)": lambda e: e.known,
    "known share - fleet line": lambda e: e.known - e.known_line,
    "top file coverage": lambda e: e.coverage,
    "known share + coverage": lambda e: e.known + e.coverage,
    "text lead": lambda e: e.text_lead,
    "matched words": lambda e: float(e.matched),
    "keyword lead (capped 10)": lambda e: min(e.keyword_lead, 10.0),
}


def auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """The probability that a random answerable question scores above a random
    must-refuse one (ties count half)."""
    if not positive or not negative:
        return float("nan")
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positive for n in negative)
    return wins / (len(positive) * len(negative))


def collect(fleet: Path, rows: Sequence[quality.Row]) -> list[Case]:
    seen: list[Evidence] = []
    judge = verdict.judged

    def recording(
        hits: Sequence[KeywordHit], keys: set[tuple[str, str]], n: int, evidence: Evidence
    ) -> verdict.Confidence:
        seen.append(evidence)
        return judge(hits, keys, n, evidence)

    # `Memory.ask` calls the name it imported: the recorder stands in for it there
    setattr(memory_module, "judged", recording)  # noqa: B010
    cases: list[Case] = []
    try:
        with Memory.open([str(fleet)]) as memory:
            for question, gold in rows:
                answer = memory.ask(question)
                files = [f"{f.base}/{f.path}" for f in answer.found]
                cases.append((seen[-1], gold is not None, bool(gold) and files[:1] == [gold]))
            calibration = memory.calibration()
            print(
                f"  calibration: on-topic {calibration.on_topic():.3f}, off-topic en "
                f"{calibration.off_topic('en'):.3f} pt {calibration.off_topic('pt'):.3f}, "
                f"line en {calibration.known_line('en'):.3f} pt "
                f"{calibration.known_line('pt'):.3f}"
            )
    finally:
        setattr(memory_module, "judged", judge)  # noqa: B010
    return cases


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=quality.DEFAULT_FIXTURES)
    parser.add_argument("--pydocs-src", type=Path, default=quality.DEFAULT_PYDOCS)
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args(argv)
    corpora: dict[str, list[Case]] = {}
    til = args.fixtures / "til-dev"
    sources: list[tuple[str, Path, Path]] = []
    if (til / "til-src.tar.xz").exists():
        fleets = quality.build_til(til, args.work)
        sources.append(("til-plain", fleets["til-plain"], til / "gold.tsv"))
    if (args.pydocs_src / "library").is_dir():
        fleet = quality.build_pydocs(args.pydocs_src, args.work)
        sources.append(("pydocs", fleet, quality.CORPORA / "pydocs" / "gold.tsv"))
    demo = args.fixtures / "ulpia-demo"
    if (demo / "gold.tsv").exists():
        fleet = quality.build_demo(demo, args.work)
        sources.append(("demo-blind", fleet, quality.CORPORA / "demo-abstention" / "gold.tsv"))
    for name, fleet, gold in sources:
        index_bases([str(fleet)], False)
        print(name)
        corpora[name] = collect(fleet, quality.gold_rows(gold))
    if sources and sources[0][0] == "til-plain":
        line_by_size(sources[0][1])
    names = list(corpora)
    print("\n| feature | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, feature in FEATURES.items():
        cells = []
        for name in names:
            pos = [feature(e) for e, answerable, _ in corpora[name] if answerable]
            neg = [feature(e) for e, answerable, _ in corpora[name] if not answerable]
            cells.append(f"{auc(pos, neg):.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |")
    print("\n`nothing` margin: answerable refused / must-refuse refused, and hits (right)")
    print("\n| margin | " + " | ".join(names) + " |")
    print("|---:|" + "---|" * len(names))
    for margin in (0.35, 0.4, 0.42, 0.45, 0.48, 0.5, 0.55, 0.6):
        cells = []
        for name in names:
            cases = corpora[name]
            verdicts = [
                (verdict_at(e, margin), answerable, right) for e, answerable, right in cases
            ]
            refused = sum(v == "nothing" and a for v, a, _ in verdicts)
            declined = sum(v == "nothing" and not a for v, a, _ in verdicts)
            hits = sum(v == "hit" and a for v, a, _ in verdicts)
            right = sum(v == "hit" and r for v, a, r in verdicts)
            wrong_hits = sum(v == "hit" and not a for v, a, _ in verdicts)
            total_a = sum(a for _, a, _ in cases)
            cells.append(
                f"{refused}/{total_a} . {declined}/{len(cases) - total_a} . "
                f"hits {hits} ({right}) +{wrong_hits}"
            )
        print(f"| {margin} | " + " | ".join(cells) + " |")
    return 0


def line_by_size(fleet: Path) -> None:
    """How the known-share line moves as a fleet grows: the til-dev agents opened one,
    three, five and all nine at a time (smallest first)."""
    bases = sorted(
        (p for p in fleet.iterdir() if (p / "agent.txt").exists()),
        key=lambda p: sum(1 for _ in p.glob("knowledge/*.md")),
    )
    print("\n| agents open | notes | on-topic | off-topic (en) | line (en) |")
    print("|---:|---:|---:|---:|---:|")
    for n in (1, 3, 5, len(bases)):
        chosen = bases[:n]
        notes = sum(1 for b in chosen for _ in b.glob("knowledge/*.md"))
        with Memory.open([str(b) for b in chosen]) as memory:
            c = memory.calibration()
            print(
                f"| {n} | {notes} | {c.on_topic():.3f} | {c.off_topic('en'):.3f} "
                f"| {c.known_line('en'):.3f} |"
            )


def verdict_at(e: Evidence, margin: float) -> str:
    saved = verdict.NOTHING_MARGIN
    verdict.NOTHING_MARGIN = margin
    try:
        return verdict.verdict_of(evolve(e))
    finally:
        verdict.NOTHING_MARGIN = saved


if __name__ == "__main__":
    raise SystemExit(main())
