"""Input strategies: bounds become bounded strategies, narrow preconditions never give up.

``forge/testing/_strategies.py`` turns ``requires`` clauses into Hypothesis strategies by bounds
(not by rejection), and where a precondition is narrow or spans several variables it
repairs each draw with Z3 (``_boundary.Space.near``).  The claims checked here: what is
absorbed into bounds, that every generated input is valid, and that a precondition the
solver shows satisfiable never makes Hypothesis give up (``filter_too_much``).
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from derivative._types import TDate, TInt, TList, TReal, TStr
from derivative.api import parse_text
from derivative.forge.testing._oracle import Judge, make_evaluator
from derivative.forge.testing._strategies import Box, InputGen, Region, analyse, value_strategy
from derivative.solver._boundary import clear_cache, plan_for, space_for

STRICT = settings(max_examples=60, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow])
"""No suppression of filter_too_much: a strategy that rejects too much fails the test."""


def _spec(body: str) -> Any:
    clear_cache()
    return parse_text("spec t version 1\n" + body).types


def _gen(info: Any, owner: str) -> tuple[InputGen, Judge]:
    judge = Judge(info, owner)
    space = space_for(info, owner, judge.admits)
    plan = plan_for(info, owner, judge.admits)
    gen = InputGen(judge.param_types, [o.expr for o in judge.requires], judge.evaluator,
                   judge.admits, near=space.near if space.encodable else None, pool=plan.pool)
    return gen, judge


def _analyse(body: str, owner: str = "f") -> tuple[dict[str, Box], list[Any]]:
    info = _spec(body)
    judge = Judge(info, owner)
    return analyse(judge.param_types, [o.expr for o in judge.requires], make_evaluator(info))


# --------------------------------------------------------------------------- bounds


def test_linear_bounds_are_absorbed_not_filtered() -> None:
    boxes, residual = _analyse(
        "const N: int = 10\n"
        "function f(x: int, y: int, z: int) -> int\n"
        "    requires: 0 <= x < N and y > 2.5\n"
        "    requires: z in -3..7\n"
        "    ensures: result == x\n"
    )
    assert residual == []
    assert (boxes["x"].lo, boxes["x"].hi) == (0, 9)
    assert boxes["y"].lo == 3 and boxes["y"].hi is None
    assert (boxes["z"].lo, boxes["z"].hi) == (-3, 7)


def test_mirrored_and_type_bounds_combine() -> None:
    boxes, residual = _analyse(
        "function f(x: int in 0..100) -> int\n"
        "    requires: 50 >= x\n"
        "    ensures: result == x\n"
    )
    assert residual == [] and (boxes["x"].lo, boxes["x"].hi) == (0, 50)


def test_lengths_patterns_dates_and_list_elements_are_absorbed() -> None:
    boxes, residual = _analyse(
        "function f(s: str, t: str, d: date, xs: list[int]) -> int\n"
        "    requires: len(s) <= 6 and matches(t, \"[a-z]+\")\n"
        "    requires: d > date(\"2020-01-31\")\n"
        "    requires: len(xs) >= 2 and all(0 <= e <= 9 for e in xs)\n"
        "    ensures: result == 0\n"
    )
    assert residual == []
    assert boxes["s"].len_hi == 6
    assert boxes["t"].patterns == ["[a-z]+"]
    assert boxes["d"].lo == date(2020, 2, 1)
    assert boxes["xs"].len_lo == 2
    assert boxes["xs"].elem is not None and (boxes["xs"].elem.lo, boxes["xs"].elem.hi) == (0, 9)


def test_what_is_not_a_bound_stays_residual() -> None:
    _, residual = _analyse(
        "function f(x: int, y: int) -> int\n"
        "    requires: x != 3 and x < y\n"
        "    requires: x % 2 == 0 or y > 1\n"
        "    ensures: result == x\n"
    )
    assert len(residual) == 3


@STRICT
@given(value_strategy(TInt(), Box(lo=-5, hi=5))[0])
def test_integer_boxes_are_respected(x: int) -> None:
    assert -5 <= x <= 5


@STRICT
@given(value_strategy(TStr("[a-c]+"), Box(len_hi=4, patterns=["[a-c]+"]))[0])
def test_a_length_bound_folds_into_a_single_class_regex(s: str) -> None:
    assert 1 <= len(s) <= 4 and set(s) <= set("abc")


@STRICT
@given(value_strategy(TReal(), Box(lo=0, hi=1, lo_open=True))[0])
def test_reals_are_finite_floats_in_their_box(x: float) -> None:
    assert isinstance(x, float) and 0 < x <= 1


@STRICT
@given(value_strategy(TList(TDate()), Box(len_lo=1, len_hi=3))[0])
def test_lists_are_tuples_with_size_bounds(xs: tuple[date, ...]) -> None:
    assert isinstance(xs, tuple) and 1 <= len(xs) <= 3


def test_an_empty_box_is_an_empty_strategy() -> None:
    assert value_strategy(TInt(), Box(lo=3, hi=2))[0].is_empty
    assert value_strategy(TStr(), Box(len_lo=3, len_hi=2))[0].is_empty


# --------------------------------------------------------------------------- narrow preconditions


@pytest.mark.parametrize(
    ("body", "owner"),
    [
        ("function f(x: int, y: int) -> int\n"
         "    requires: x == y + 1 and y % 7 == 3\n    ensures: result == x\n", "f"),
        ("function f(s: str) -> int\n"
         "    requires: len(s) == 5 and startswith(s, \"ab\")\n    ensures: result == 1\n", "f"),
        ("function f(a: int, b: int, c: int) -> int\n"
         "    requires: a < b < c and c - a == 2 and b % 1000 == 999\n"
         "    ensures: result == b\n", "f"),
    ],
    ids=["successor-mod-7", "fixed-length-prefix", "three-variables"],
)
def test_narrow_preconditions_never_give_up(body: str, owner: str) -> None:
    info = _spec(body)
    gen, judge = _gen(info, owner)
    assert gen.residual, "the point is a precondition that bounds cannot express"
    seen: list[dict[str, object]] = []

    @STRICT
    @given(gen.strategy())
    def run(inp: dict[str, object]) -> None:
        assert judge.admits(inp)
        seen.append(inp)

    run()  # FailedHealthCheck / Unsatisfiable would propagate and fail the test
    distinct = {tuple(sorted((k, repr(v)) for k, v in i.items())) for i in seen}
    assert len(distinct) >= 10, distinct
    assert gen.stats.repaired + gen.stats.from_pool > 0


def test_a_plain_filter_on_the_same_precondition_gives_up() -> None:
    """The baseline the repair exists for: filtering x == y + 1 and y % 7 == 3."""
    from hypothesis import strategies as st
    from hypothesis.errors import FailedHealthCheck, Unsatisfiable

    info = _spec("function f(x: int, y: int) -> int\n"
                 "    requires: x == y + 1 and y % 7 == 3\n    ensures: result == x\n")
    judge = Judge(info, "f")

    @STRICT
    @given(st.fixed_dictionaries({"x": st.integers(), "y": st.integers()}).filter(judge.admits))
    def run(inp: dict[str, object]) -> None:
        pass

    with pytest.raises((FailedHealthCheck, Unsatisfiable)):
        run()


def test_a_region_steers_draws_without_rejecting() -> None:
    info = _spec(
        "function p(text: str) -> int\n"
        "    requires: len(text) <= 6\n"
        "    raises ValueError when not matches(text, \"[0-9]+\")\n"
        "    ensures: result == int(text)\n"
    )
    gen, judge = _gen(info, "p")
    space = space_for(info, "p", judge.admits)
    raises = judge.raises[0].expr
    cond = [space.encode(raises.operand)]  # type: ignore[union-attr]

    def near(seed: Any, fixed: Any) -> Any:
        return space.near(seed, fixed, ("digits", cond))

    region = Region("digits", lambda i: judge.evaluator.holds(raises, i) is False, near)
    digits = 0

    @STRICT
    @given(gen.strategy([region]))
    def run(inp: dict[str, object]) -> None:
        nonlocal digits
        assert judge.admits(inp)
        digits += str(inp["text"]).isdigit()

    run()
    assert digits >= 10


def test_an_unsatisfiable_precondition_has_no_inputs() -> None:
    info = _spec("function f(x: int in 0..5) -> int\n"
                 "    requires: x > 7\n    ensures: result == x\n")
    gen, _ = _gen(info, "f")
    assert gen.empty and gen.strategy().is_empty
