"""The warm keyword ranking on a fleet: how long it takes a question, and how many entries it
scores against how many hold a question word (what scoring every holder would score).

    python benchmarks/keywords.py FLEET_DIR [--questions 600] [--top 20] [--rounds 3]

One warm Memory, questions from `benchmarks/daemon.py`'s generator (half answerable), each
ranked as `ask` ranks it (`top` 20: five answers, oversampled four times). Every question's
hits are first compared with `rank_naive` (every entry scored); a difference fails the run.
The first round pays each common word's first layering; read the later rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from kb import Memory
from kb.pure.answering.entries import Prepared
from kb.pure.answering.keyword import KeywordIndex

sys.path.insert(0, str(Path(__file__).resolve().parent))
import daemon as generated  # a sibling script, not a package


class _Counting(KeywordIndex):
    """The fleet's index, counting the entries a ranking scores."""

    scored = 0

    def prepared_at(self, i: int) -> Prepared:
        self.scored += 1
        return super().prepared_at(i)


def main() -> None:
    parser = argparse.ArgumentParser(description="The warm keyword ranking's cost a question.")
    parser.add_argument("fleet")
    parser.add_argument("--questions", type=int, default=600)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    memory = Memory.open(args.fleet)
    memory.warm(wait=True)
    index = memory.keywords
    asked = [memory.terms(q) for q in generated.questions(Path(args.fleet), args.questions, 0)]
    for terms in asked:
        fast = [(h.entry, h.score, h.matched) for h in index.rank(terms, args.top)]
        slow = [(h.entry, h.score, h.matched) for h in index.rank_naive(terms, args.top)]
        if fast != slow:
            raise SystemExit(f"the ranking differs from scoring every entry for {terms}")
    counting = _Counting.of(index.entries())  # the same entries
    scored, holders = [], []
    for terms in asked:
        counting.scored = 0
        counting.rank(terms, args.top)
        scored.append(counting.scored)
        held: set[int] = set()
        for term in terms:
            held.update(counting._postings.get(term, ()))
        holders.append(len(held))
    print(f"{index.total} entries, {len(asked)} questions, top {args.top}")
    print(
        f"entries scored a question: mean {statistics.mean(scored):.0f}, max {max(scored)}; "
        f"entries holding a question word: mean {statistics.mean(holders):.0f}, "
        f"max {max(holders)}"
    )
    for n in range(args.rounds):
        times = []
        for terms in asked:
            start = time.perf_counter()
            index.rank(terms, args.top)
            times.append((time.perf_counter() - start) * 1e3)
        times.sort()
        p95 = times[int(len(times) * 0.95)]
        print(
            f"round {n + 1}: p50 {times[len(times) // 2]:.3f} ms, p95 {p95:.3f} ms, "
            f"max {times[-1]:.2f} ms"
        )


if __name__ == "__main__":
    main()
