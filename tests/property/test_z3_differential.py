"""The Z3 encoding agrees with the evaluator, undefinedness included (ARCHITECTURE.md §2).

Random well-typed expressions and random values for their free names (the shared
generator ``_exprgen``): the evaluator's answer is the reference; the encoding, with
every variable fixed to its value, must be defined exactly where the evaluator is,
and have the same value there.  Any disagreement is a soundness bug of the encoding
(a certificate or a witness could be wrong), so nothing is skipped: a question Z3
cannot decide on closed terms is a failure too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
import z3
from hypothesis import HealthCheck, given, settings

from derivative._ast import Expr
from derivative._eval import Evaluator
from derivative._types import BOOL, DATE, INT, REAL, STR, TList, Ty
from derivative._values import UNDEFINED, Value
from derivative.solver._encode import Encoder, Term, from_model, literal, var
from derivative.solver._z3util import make_solver
from tests.property._exprgen import DEFAULT_VARS, exprs_with_envs

UNSUPPORTED = ("list_order",)
"""Lexicographic order of lists is encoded as `unknown` (never guessed): not compared."""


def _z3_answer(expr: Expr, types: Mapping[str, Ty], env: Mapping[str, Value]) -> Any:
    """Z3's value of ``expr`` with every name fixed: a value, or UNDEFINED."""
    terms = {name: var(name, ty) for name, ty in types.items()}
    term: Term = Encoder(terms).encode(expr)
    s = make_solver(rlimit=50_000_000, timeout_ms=60_000)
    for name, ty in types.items():
        s.add(terms[name].value == literal(env[name], ty))
    s.push()
    s.add(term.defined)
    defined = s.check()
    s.pop()
    s.push()
    s.add(z3.Not(term.defined))
    undefined = s.check()
    s.pop()
    assert sorted([str(defined), str(undefined)]) == ["sat", "unsat"], (
        defined,
        undefined,
        s.reason_unknown(),
    )
    if defined == z3.unsat:
        return UNDEFINED
    if term.value is None:
        return ()
    s.add(term.defined)
    assert s.check() == z3.sat
    got = from_model(s.model(), term.value, term.ty)
    # The model's value must be the only one: nothing else is consistent with it.
    s.add(term.value != literal(got, term.ty))
    assert s.check() == z3.unsat, s.reason_unknown()
    return got


def _same(a: Any, b: Any) -> bool:
    if a is UNDEFINED or b is UNDEFINED:
        return a is b
    return bool(a == b)


def _check(expr: Expr, env: dict[str, Value]) -> None:
    expected = Evaluator().eval(expr, env)
    got = _z3_answer(expr, DEFAULT_VARS, env)
    assert _same(got, expected), f"z3 says {got!r}, the evaluator {expected!r}"


SETTINGS = settings(
    max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None
)


@settings(SETTINGS, max_examples=150)
@given(data=exprs_with_envs(BOOL, depth=3, exclude=UNSUPPORTED))
def test_conditions_agree(data: tuple[Expr, dict[str, Value]]) -> None:
    expr, env = data
    _check(expr, env)


@pytest.mark.parametrize("ty", [INT, REAL, STR, DATE, TList(INT)], ids=lambda t: t.show())
def test_values_agree(ty: Ty) -> None:
    @SETTINGS
    @given(data=exprs_with_envs(ty, depth=3, exclude=UNSUPPORTED))
    def inner(data: tuple[Expr, dict[str, Value]]) -> None:
        expr, env = data
        _check(expr, env)

    inner()
