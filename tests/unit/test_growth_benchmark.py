"""``benchmarks/growth.py``'s judgement, from made-up figures (no benchmark runs).

The benchmark takes minutes; what can be checked quickly is that a phase growing faster
than linear misses the goal, that an ``unknown`` where z3py decided is always a miss, and
that the generated sheets are what the docstring says.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks import growth  # noqa: E402
from derivative import api  # noqa: E402


def _size(sheet: str, n: int, seconds: float, status: str, z3: str = "sat") -> growth.Size:
    size = growth.Size(sheet, n, status=status, z3_verdict=z3)
    for phase in (*growth.PHASES, "z3py"):
        size.seconds[phase] = seconds
        size.kb[phase] = n // 10
    return size


def test_linear_growth_meets_the_goal_and_quadratic_misses_it() -> None:
    linear = [_size("independent", n, n / 10_000, "feasible") for n in (10_000, 100_000)]
    assert all(abs(r.value - 1.0) < 1e-9 for r in growth.ratios(linear))
    quadratic = [_size("independent", n, (n / 10_000) ** 2, "feasible") for n in (10_000, 50_000)]
    times = [r for r in growth.ratios(quadratic) if r.what == "time"]
    assert times and all(r.value == 5.0 > growth.GOAL for r in times)
    assert any("NO" in line for line in growth.summary(quadratic))


def test_an_unknown_where_z3py_decided_is_a_miss() -> None:
    undecided = _size("independent", 50_000, 1.0, "unknown", z3="sat")
    assert undecided.unknown_where_z3_decided
    assert undecided.problems() == ["status unknown, expected feasible"]
    both = _size("independent", 50_000, 1.0, "unknown", z3="unknown")
    assert not both.unknown_where_z3_decided
    found = _size("cycle", 1_000, 1.0, "infeasible_proven", z3="unsat")
    found.core = growth.expected("cycle", 1_000)[1]
    assert found.problems() == []
    found.core = ["L0"]
    assert found.problems() and "expected" in found.problems()[0]


def test_the_sheets_are_what_they_claim() -> None:
    loaded = api.parse_text(growth.independent_text(30), "independent.req")
    assert len(loaded.contract.obligations) == 30
    data = growth.constraints("independent", 30)
    assert len(data.ranges) == len(data.floors) == 30
    cycle = growth.constraints("cycle", 200)
    assert len(cycle.differences) == 200
    assert growth.expected("cycle", 200)[0] == "infeasible_proven"
