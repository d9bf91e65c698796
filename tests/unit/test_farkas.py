"""Farkas rows and multipliers: derived exactly, found by an exact LP, checked with fractions."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest

from derivative._ast import Expr
from derivative._types import BOOL, DATE, INT, REAL, STR, Ty
from derivative.certificates._farkas import (
    LinearContext,
    Row,
    check_combination,
    combine,
    derive_rows,
    find_multipliers,
)
from derivative.grammar import parse_text

TYPES: dict[str, Ty] = {"a": INT, "b": INT, "x": REAL, "y": REAL, "d": DATE, "s": STR, "p": BOOL}
CTX = LinearContext(variables=TYPES, constants={"K": 10, "D0": dt.date(2026, 1, 1)})


def expr(text: str) -> Expr:
    decls = "\n".join(f"param {n}: {t.show()}" for n, t in TYPES.items())
    spec = (
        f'spec t version 1\nconst K: int = 10\nconst D0: date = date("2026-01-01")\n'
        f"{decls}\nrequirement E: {text}\n"
    )
    return parse_text(spec).obligations[0].expr


def rows(text: str) -> list[str] | None:
    derived = derive_rows([expr(text)], CTX)
    return None if derived is None else [r.show() for r in derived[0]]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a >= 3", ["-a <= -3"]),
        ("a <= K", ["a <= 10"]),
        ("a == b + 1", ["a - b <= 1", "-a + b <= -1"]),
        ("0 <= a <= 1440", ["-a <= 0", "a <= 1440"]),  # 'between' gives two rows
        ("a in 1..5", ["-a <= -1", "a <= 5"]),
        ("a < b", ["a - b <= -1"]),  # strict over integers: tightened by 1
        ("a > 2 * b", ["-a + 2*b <= -1"]),
        ("a / 2 < 3", ["a <= 5"]),  # scaled to integer coefficients, then tightened
        ("x < y", ["x - y <= 0"]),  # strict over reals: weakened (sound)
        ("x + 0.5 <= a", ["-a + x <= -1/2"]),
        ("d - D0 >= 30", [f"-d <= -{dt.date(2026, 1, 1).toordinal() + 30}"]),
        ("a >= 1 and b >= 1", ["-a <= -1", "-b <= -1"]),
        ("not (a < 3)", ["-a <= -3"]),
        ("false", ["0 <= -1"]),
        ("true", []),
        ("K // 3 * a <= 7 % 4", ["3*a <= 3"]),
    ],
)
def test_rows_of_linear_members(text: str, expected: list[str]) -> None:
    assert rows(text) == expected


@pytest.mark.parametrize(
    "text",
    ["a != 3", "a > 1 or b > 1", "a * b > 1", "a // 2 > 1", "len(s) > 2", "p",
     "a > 1 implies b > 1", "not (a == 3)", "x in [1.5]", "a not in 1..5"],
)  # fmt: skip
def test_non_linear_members_have_no_rows(text: str) -> None:
    assert rows(text) is None


def test_witness_values_and_results_are_constants_and_variables() -> None:
    ctx = LinearContext(variables={"result": INT}, constants={"x": 6}, call_name="f")
    types = "function f(x: int) -> int\n    ensures E: result == 2 * x\n    example X: f(6) == 7\n"
    contract = parse_text(f"spec t version 1\n{types}")
    derived = derive_rows([o.expr for o in contract.obligations], ctx)
    assert derived is not None
    assert [[r.show() for r in rs] for rs in derived] == [
        ["result <= 12", "-result <= -12"],
        ["result <= 7", "-result <= -7"],
    ]


def test_ground_parts_are_computed() -> None:
    ctx = LinearContext(
        variables={"result": INT}, constants={"s": "abc", "xs": (4, 5)}, call_name="f"
    )
    types = (
        "function f(s: str, xs: list[int]) -> int\n"
        '    ensures E: result == len(s) + xs[1] * 2 and startswith(s, "a")\n'
        "    ensures F: result <= 1 or len(s) > 9\n"
        "    ensures G: len(s) // 0 == 1\n"
    )
    contract = parse_text(f"spec t version 1\n{types}")
    derived = derive_rows([o.expr for o in contract.obligations[:1]], ctx)
    assert derived is not None
    assert [r.show() for r in derived[0]] == ["result <= 13", "-result <= -13"]
    assert derive_rows([contract.obligations[1].expr], ctx) is None  # 'or' with a variable
    derived = derive_rows([contract.obligations[2].expr], ctx)  # undefined: cannot hold
    assert derived is not None and [r.show() for r in derived[0]] == ["0 <= -1"]


def test_multipliers_are_found_exactly_and_checked() -> None:
    derived = derive_rows([expr("a >= 3"), expr("a + b <= 1"), expr("b >= 0")], CTX)
    assert derived is not None
    flat = [r for rs in derived for r in rs]
    ys = find_multipliers(flat)
    assert ys == [Fraction(1), Fraction(1), Fraction(1)]
    assert check_combination(flat, ys) is None
    assert combine(flat, ys) == Row.make({}, Fraction(-2))


def test_multipliers_prefer_fewer_rows_and_small_integers() -> None:
    derived = derive_rows([expr("0 <= a <= 1440"), expr("a >= 2000")], CTX)
    assert derived is not None
    flat = [r for rs in derived for r in rs]
    assert find_multipliers(flat) == [Fraction(0), Fraction(1), Fraction(1)]


def test_feasible_rows_have_no_multipliers() -> None:
    derived = derive_rows([expr("a >= 3"), expr("a <= 5")], CTX)
    assert derived is not None
    assert find_multipliers([r for rs in derived for r in rs]) is None
    # over the integers 2a == 1 is infeasible, but its real relaxation is not
    derived = derive_rows([expr("2 * a == 1")], CTX)
    assert derived is not None
    assert find_multipliers([r for rs in derived for r in rs]) is None


def test_bad_combinations_are_explained() -> None:
    r1 = Row.make({"a": Fraction(-1)}, Fraction(-3))
    r2 = Row.make({"a": Fraction(1)}, Fraction(2))
    assert check_combination([r1, r2], [Fraction(1), Fraction(1)]) is None
    assert "negative" in (check_combination([r1, r2], [Fraction(-1), Fraction(1)]) or "")
    assert "do not cancel" in (check_combination([r1, r2], [Fraction(2), Fraction(1)]) or "")
    assert "no contradiction" in (check_combination([r1, r2], [Fraction(0), Fraction(0)]) or "")
    assert "number of multipliers" in (check_combination([r1], [Fraction(1), Fraction(1)]) or "")


def test_an_example_call_pins_the_parameters_it_can_write_as_rows() -> None:
    # contradicting_example: the inputs are variables, and the call is only the
    # script's call at its own arguments (x == 3); a string equation is no row
    ctx = LinearContext(
        variables={"x": INT, "s": STR, "result": INT},
        constants={},
        call_name="f",
        call_params=("x", "s"),
    )
    text = (
        'function f(x: int, s: str) -> int\n    example X: f(3, "a") == 4\n    requires P: x >= 5\n'
    )
    contract = parse_text(f"spec t version 1\n{text}")
    derived = derive_rows([o.expr for o in contract.obligations], ctx)
    assert derived is not None
    assert [[r.show() for r in rs] for rs in derived] == [
        ["x <= 3", "-x <= -3", "result <= 4", "-result <= -4"],
        ["-x <= -5"],
    ]
    multipliers = find_multipliers([r for rs in derived for r in rs])
    assert multipliers == [Fraction(y) for y in (1, 0, 0, 0, 1)]
    # without the call's parameters, the example says nothing about x: no conflict
    bare = LinearContext(variables=ctx.variables, constants={}, call_name="f")
    unpinned = derive_rows([o.expr for o in contract.obligations], bare)
    assert unpinned is not None
    assert find_multipliers([r for rs in unpinned for r in rs]) is None


def test_a_raises_examples_equations_give_rows_and_its_condition_must_be_linear() -> None:
    ctx = LinearContext(
        variables={"x": INT, "s": STR, "result": INT},
        constants={},
        call_name="f",
        call_params=("x", "s"),
    )
    text = (
        "function f(x: int, s: str) -> int\n"
        '    requires A: x == 5 and s == "b" and x > 7\n'
        '    requires B: x == 5 and s == "b" and len(s) > 7\n'
        '    requires C: s == "b" and x == 5 and x > 7\n'
    )
    contract = parse_text(f"spec t version 1\n{text}")
    a, b, c = (o.expr for o in contract.obligations)
    derived = derive_rows([a], ctx)
    assert derived is not None
    assert [r.show() for r in derived[0]] == ["x <= 5", "-x <= -5", "-x <= -8"]
    assert derive_rows([b], ctx) is None  # the condition itself is not linear
    assert derive_rows([c], ctx) is None  # not the parameters in order: read as written
