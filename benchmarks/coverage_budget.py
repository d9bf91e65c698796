"""How many inputs a function needs before the candidate's coverage stops growing.

Run as ``python benchmarks/coverage_budget.py [--cap 3200] [--examples 100]``.  Not run in
CI.  Every correct implementation of the test-engine corpus (``tests/corpus/*/correct.py``)
goes through ``derivative run`` on the process sandbox with coverage measured and a cap
far above any default; per function it prints the rounds of ``--examples`` inputs that ran
(the last one added nothing, unless the cap stopped it), the lines and branches reached,
and the run's wall time.  The default ``EngineOptions.max_examples`` is chosen from this
distribution (docs/decisions.md, "The coverage budget").
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from derivative import load
from derivative.forge.run import RunOptions, run_candidate

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cap", type=int, default=3200)
    parser.add_argument("--examples", type=int, default=100)
    args = parser.parse_args(argv)
    rounds: list[int] = []
    for case in sorted(p for p in CORPUS.iterdir() if (p / "correct.py").exists()):
        loaded = load(str(case / "spec.req"))
        started = time.perf_counter()
        report = run_candidate(loaded.types, RunOptions(
            candidate=str(case / "correct.py"), sandbox="process", examples=args.examples,
            max_examples=args.cap))
        took = time.perf_counter() - started
        strength = report.strength() or {}
        cov = strength.get("coverage") or {}
        stats = report.evidence.stats if report.evidence else {}
        for name, st in sorted(stats.items()):
            if isinstance(st, dict) and "rounds" in st:
                rounds.append(int(st["rounds"]))
                print(f"{case.name:<28} {name:<22} rounds {st['rounds']:>2} "
                      f"({st['coverage_stop']}) lines {cov.get('lines_run')}/{cov.get('lines')} "
                      f"branches {cov.get('branches_run')}/{cov.get('branches')} "
                      f"{report.status} {took:5.1f} s")
    rounds.sort()
    if rounds:
        print(f"functions {len(rounds)}; rounds to plateau: median {rounds[len(rounds) // 2]}, "
              f"max {rounds[-1]}; histogram "
              + ", ".join(f"{r}: {rounds.count(r)}" for r in sorted(set(rounds))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
