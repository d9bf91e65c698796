"""HumanEval-style functions: how many ``check`` decides, how long it takes, and whether
the test engine judges the correct and the wrong implementation right.

Run as ``python benchmarks/humaneval.py [--cases DIR] [--json PATH] [--no-run]``.

Issue 16, item 5.  For every folder of ``tests/humaneval`` (a spec written from a
docstring, a correct and a subtly wrong implementation), in this process through the API:
``api.check`` at the default limits (status, the method of the witness call, seconds), then
the test engine on both implementations with the budget of ``tests/unit/test_humaneval.py``
(the correct one must pass, the wrong one fail; seconds for both).  The imports and the
cvc5 child are warmed up first.  The summary line gives the counts; the per-case expectation
(``# check: unknown`` on a spec's first line) is not consulted: this measures, it does not
excuse.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from derivative import api
from derivative.forge.testing import (
    Engine,
    EngineOptions,
    InProcessCaller,
    constants_of,
    hints_of,
    load_target,
)
from derivative.solver import CheckResult

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "humaneval"


@dataclass(frozen=True)
class Row:
    case: str
    status: str
    method: str
    check_seconds: float
    judged_right: bool | None
    run_seconds: float


def _engine_status(folder: Path, impl: str) -> str:
    info = api.load([folder / "spec.req"]).types
    source = (folder / impl).read_bytes()
    engine = Engine(
        info,
        InProcessCaller.for_contract(load_target(str(folder / impl)), info),
        EngineOptions(examples=20, sequences=4, steps=5, seed=0, hints=hints_of([source]),
                      constants=constants_of([source])),
    )
    return str(engine.run().status)


def _method(result: CheckResult) -> str:
    if result.witness is not None:
        calls = list(result.witness.functions.values())
        return ", ".join(str(getattr(c, "method", None) or "-") for c in calls) or "-"
    return "-"


def measure(folder: Path, run: bool) -> list[Row]:
    """One row per case of ``folder``."""
    api.check(api.parse_text("spec w version 1\nfunction f(s: str) -> str\n"
                             "    ensures: startswith(result, s)\n"))
    rows: list[Row] = []
    for spec in sorted(folder.glob("*/spec.req")):
        started = time.perf_counter()
        result = api.check(api.load([spec]))
        checked = time.perf_counter() - started
        judged: bool | None = None
        ran = 0.0
        if run:
            started = time.perf_counter()
            judged = (_engine_status(spec.parent, "correct.py") == "passed"
                      and _engine_status(spec.parent, "wrong.py") == "failed")
            ran = time.perf_counter() - started
        rows.append(Row(spec.parent.name, str(result.status), _method(result), checked,
                        judged, ran))
    return rows


def table(rows: list[Row]) -> str:
    """The Markdown table of ``rows`` and the summary line."""
    lines = ["| case | check | method | check (s) | correct passes, wrong fails | run (s) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        judged = "-" if r.judged_right is None else ("yes" if r.judged_right else "NO")
        lines.append(f"| {r.case} | {r.status} | {r.method} | {r.check_seconds:.2f} | "
                     f"{judged} | {r.run_seconds:.2f} |")
    decided = [r for r in rows if r.status != "unknown"]
    right = [r for r in rows if r.judged_right]
    lines += ["", f"{len(decided)} of {len(rows)} decided by check "
              f"({sum(r.check_seconds for r in decided):.1f} s for those, median "
              f"{sorted(r.check_seconds for r in decided)[len(decided) // 2]:.2f} s); "
              f"{sum(r.check_seconds for r in rows):.1f} s of check in all; "
              f"{len(right)} of {len(rows)} judged right by the engine"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=Path, default=CASES, help="the catalogue folder")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    parser.add_argument("--no-run", action="store_true", help="check only, no engine runs")
    args = parser.parse_args(argv)
    rows = measure(args.cases, not args.no_run)
    print(table(rows))
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=2) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
