"""The Python that generated tests run agrees with the evaluator (docs/architecture.md §2).

``derivative tests -o`` compiles obligations to Python source over a small inlined
runtime: a fourth reading of the AST.  Random well-typed expressions and values for
their names (the shared generator ``_exprgen``) are evaluated both ways; the
evaluator is the reference.  Undefined must be exactly ``Undefined`` raised; any other
value must be equal (enum values are member names in the generated code, reals are
Fractions or floats on both sides).  Any disagreement means a generated test could
pass a wrong implementation or fail a right one.
"""

from __future__ import annotations

import os
from datetime import date
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derivative._ast import Expr
from derivative._eval import Evaluator
from derivative._printer import to_source
from derivative._types import BOOL, DATE, INT, REAL, STR, TList, Ty
from derivative._values import UNDEFINED, EnumValue
from derivative.forge.codegen._embed import runtime
from derivative.forge.codegen._python import PyCompiler, py_value, pyname
from tests.property._exprgen import COLOR, DEFAULT_VARS, exprs_with_envs

RT = runtime()
EVALUATOR = Evaluator()
ENUMS = {"Color": COLOR}


def _to_python(value: Any) -> Any:
    """A language value in the generated code's representation."""
    if isinstance(value, EnumValue):
        return value.member
    if isinstance(value, tuple):
        return tuple(_to_python(v) for v in value)
    return value


def _run(expr: Expr, env: dict[str, Any]) -> tuple[str, Any]:
    source = PyCompiler(DEFAULT_VARS, ENUMS).compile(expr)
    namespace = dict(RT)
    namespace.update({pyname(k): _to_python(v) for k, v in env.items()})
    try:
        return "value", eval(compile(source, "<generated>", "eval"), namespace)
    except RT["Undefined"]:
        return "undefined", None


def _same(ours: Any, reference: Any) -> bool:
    if isinstance(reference, bool) or isinstance(ours, bool):
        return type(ours) is type(reference) and ours == reference
    if isinstance(reference, tuple):
        return (
            isinstance(ours, tuple)
            and len(ours) == len(reference)
            and all(_same(a, b) for a, b in zip(ours, reference, strict=True))
        )
    if isinstance(reference, float) or isinstance(ours, float):
        return bool(EVALUATOR.comparer.eq(ours, reference))
    return type(ours) is type(reference) and ours == reference


def _check(ty: Ty, expr: Expr, env: dict[str, Any]) -> None:
    reference = EVALUATOR.eval(expr, env)
    kind, ours = _run(expr, env)
    text = to_source(expr)
    python = PyCompiler(DEFAULT_VARS, ENUMS).compile(expr)
    if reference is UNDEFINED:
        assert kind == "undefined", (text, python, env, ours)
        return
    assert kind == "value", (text, python, env, "generated code says undefined", reference)
    assert _same(ours, _to_python(reference)), (text, python, env, ours, reference)


EXAMPLES = int(os.environ.get("DERIVATIVE_DIFF_EXAMPLES", "200"))
"""Examples per property (raise it for a long local run)."""
SETTINGS = settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(exprs_with_envs(BOOL, DEFAULT_VARS, depth=3))
def test_conditions_agree(case: tuple[Expr, dict[str, Any]]) -> None:
    _check(BOOL, *case)


@SETTINGS
@given(st.sampled_from([INT, REAL, STR, DATE, TList(INT), COLOR]).flatmap(
    lambda ty: st.tuples(st.just(ty), exprs_with_envs(ty, DEFAULT_VARS, depth=3))
))
def test_values_agree(case: tuple[Ty, tuple[Expr, dict[str, Any]]]) -> None:
    ty, (expr, env) = case
    _check(ty, expr, env)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(exprs_with_envs(BOOL, DEFAULT_VARS, depth=3, floats=True))
def test_conditions_agree_with_float_inputs(case: tuple[Expr, dict[str, Any]]) -> None:
    """Candidates return floats for reals: the slack of comparisons must match."""
    _check(BOOL, *case)


def test_literals_round_trip_through_python_source() -> None:
    for value in (0, -7, 10**30, True, False, Fraction(-1, 3), 2.5, -0.0, "a\n\u00e9'\"",
                  date(1, 1, 1), date(9999, 12, 31), (), (1, (2, 3)),
                  EnumValue("Color", "red")):
        text = py_value(value)
        back = eval(text, {"Fraction": Fraction, "datetime": __import__("datetime")})
        assert back == _to_python(value) and type(back) is type(_to_python(value)), text


def test_a_known_disagreement_would_be_caught() -> None:
    """The comparison is not vacuous: a wrong runtime helper is noticed."""
    from derivative.grammar import parse_text

    c = parse_text("spec t version 1\nparam i: int\nparam j: int\nrequirement r: i // j == 0\n")
    expr = c.obligations[0].expr
    namespace = dict(RT)
    namespace["_floordiv"] = lambda a, b: int(a / b)  # truncation: wrong for negatives
    source = PyCompiler({"i": INT, "j": INT}).compile(expr)
    env = {"i": -1, "j": 2}
    ours = eval(source, {**namespace, **env})
    assert ours != EVALUATOR.eval(expr, env)
