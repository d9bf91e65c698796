"""A concrete question is concrete: an example with literal arguments and result is decided
by evaluation when the solver cannot decide it (docs/decisions.md)."""

from __future__ import annotations

from derivative import api
from derivative.solver import CheckOptions, check

COMMON = """\
spec common version 1
function common(l1: list[int], l2: list[int]) -> list[int]
    requires: len(l1) <= 10 and len(l2) <= 10
    ensures: forall i in 0..len(result) - 1: result[i] in l1 and result[i] in l2
    ensures: forall i in 0..len(result) - 2: result[i] < result[i + 1]
    ensures: forall j in 0..len(l1) - 1: (l1[j] in l2) implies (l1[j] in result)
    example E1: common([1, 4, 3, 34, 653, 2, 5], [5, 7, 1, 5, 9, 653, 121]) == [1, 5, 653]
"""


def _unknown_ids(text: str) -> set[str]:
    loaded = api.parse_text(text, "common.req")
    result = check(loaded.contract, loaded.types, CheckOptions())
    return {m for u in result.unknowns for m in (u.question, *u.ids)}


def test_a_right_example_the_solver_cannot_decide_is_decided_by_evaluation() -> None:
    # Before: "common.example ... resource limit reached" (Z3 on quantifiers over the
    # example's concrete lists); the example is a witness by plain evaluation.
    assert "E1" not in _unknown_ids(COMMON)


def test_a_wrong_example_is_never_accepted_by_evaluation() -> None:
    wrong = COMMON.replace("== [1, 5, 653]", "== [1, 653]")  # 5 is in both lists
    loaded = api.parse_text(wrong, "common.req")
    result = check(loaded.contract, loaded.types, CheckOptions())
    assert result.status != "feasible"
    if result.status == "unknown":
        assert "E1" in {m for u in result.unknowns for m in (u.question, *u.ids)}
