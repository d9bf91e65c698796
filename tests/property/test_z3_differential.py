"""The Z3 encoding agrees with the evaluator, undefinedness included (docs/architecture.md §2).

Random well-typed expressions and random values for their free names (the shared
generator ``_exprgen``): the evaluator's answer is the reference; the encoding, with
every variable fixed to its value, must be defined exactly where the evaluator is,
and have the same value there.  Any disagreement is a soundness bug of the encoding
(a certificate or a witness could be wrong), so nothing is skipped: a question Z3
cannot decide on closed terms is a failure too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derivative._ast import BinOp, Call, Expr, IfExpr, Index, ListComp, ListLit, Slice
from derivative._eval import Evaluator
from derivative._regex import RNode, node_to_python
from derivative._types import BOOL, DATE, INT, REAL, STR, TBool, TList, Ty
from derivative._values import UNDEFINED, Value
from derivative._walk import walk
from derivative.solver._decode import from_model
from derivative.solver._definitions import regex_to_z3
from derivative.solver._encode import Encoder
from derivative.solver._encode_calls import EMPTY_ELEMENT
from derivative.solver._terms import Term, literal, var
from derivative.solver._z3util import Unsupported, make_solver, str_val
from tests.property._exprgen import COLOR, DEFAULT_VARS, exprs_with_envs
from tests.property.test_regex_props import regexes, strings

TRUE = z3.BoolVal(True)

UNSUPPORTED = ("list_order",)
"""Lexicographic order of lists is encoded as `unknown` (never guessed): not compared."""


def _decide(s: Any, formula: Any) -> bool | None:
    """Whether the closed ``formula`` is true (simplifier first, then the solver); None if
    the solver cannot tell."""
    simple = z3.simplify(formula)
    if z3.is_true(simple):
        return True
    if z3.is_false(simple):
        return False
    s.push()
    s.add(simple)
    yes = s.check()
    s.pop()
    s.push()
    s.add(z3.Not(simple))
    no = s.check()
    s.pop()
    if z3.unknown in (yes, no):
        return None
    assert yes != no, "both sat or both unsat: the encoding is inconsistent"
    return bool(yes == z3.sat)


def _z3_answer(
    expr: Expr, types: Mapping[str, Ty], env: Mapping[str, Value], symbolic: bool
) -> Any:
    """Z3's value of ``expr`` with every name fixed: a value, UNDEFINED, or None (unknown).

    ``symbolic=False`` encodes the values as literals (what the solver sees for fixed
    inputs: constant ranges are unrolled); ``symbolic=True`` encodes over variables and
    substitutes afterwards (quantifiers over symbolic ranges, recursive list functions).
    """
    if symbolic:
        terms = {name: var(name, ty) for name, ty in types.items()}
        fixed = [(terms[n].value, literal(env[n], ty)) for n, ty in types.items()]
    else:
        terms = {name: Term(literal(env[name], ty), TRUE, ty) for name, ty in types.items()}
        fixed = []
    term: Term = Encoder(terms, enums={"Color": COLOR}).encode(expr)

    def closed(t: Any) -> Any:
        return z3.substitute(t, *fixed) if fixed else t

    s = make_solver(rlimit=5_000_000, timeout_ms=20_000)
    defined = _decide(s, closed(term.defined))
    if defined is None:
        return None
    if not defined:
        return UNDEFINED
    if term.value is None:
        return ()
    value = z3.simplify(closed(term.value))
    if isinstance(term.ty, TBool):
        return _decide(s, value)
    # Read the value through a fresh constant: a model cannot evaluate a quantifier.
    out = z3.FreshConst(value.sort(), "out")
    s.add(closed(term.defined), out == value)
    r = s.check()
    if r == z3.unknown:
        return None
    assert r == z3.sat
    try:
        got = from_model(s.model(), out, term.ty)
    except Unsupported:
        if symbolic:  # the model defines `out` by a quantified term it cannot evaluate
            return None
        raise
    # The model's value must be the only one: nothing else is consistent with it.
    s.add(out != literal(got, term.ty))
    r = s.check()
    if r == z3.unknown:
        return None
    assert r == z3.unsat, f"{value} is not determined by the inputs"
    return got


def _same(a: Any, b: Any) -> bool:
    if a is UNDEFINED or b is UNDEFINED:
        return a is b
    return bool(a == b)


def _untyped_empty(n: Expr) -> bool:
    """An expression that can only be ``[]`` and gives its elements no type."""
    if isinstance(n, ListLit):
        return not n.items
    if isinstance(n, IfExpr):
        return _untyped_empty(n.then) and _untyped_empty(n.orelse)
    if isinstance(n, BinOp):
        return n.op == "+" and all(_untyped_empty(o) for o in n.operands)
    if isinstance(n, Call) and n.func in ("sorted", "reversed"):
        return _untyped_empty(n.args[0])
    if isinstance(n, Slice):
        return _untyped_empty(n.base)
    if isinstance(n, ListComp):
        return _untyped_empty(n.iterable)
    return False


def _empty_element(expr: Expr) -> bool:
    """``[][i]``, ``min([])``, ``max([])``: the one thing the encoding refuses on purpose."""
    for n in walk(expr):
        if isinstance(n, Index) and _untyped_empty(n.base):
            return True
        if (
            isinstance(n, Call)
            and n.func in ("min", "max")
            and len(n.args) == 1
            and _untyped_empty(n.args[0])
        ):
            return True
    return False


def _check(expr: Expr, env: dict[str, Value]) -> None:
    expected = Evaluator().eval(expr, env)
    for symbolic in (False, True):
        try:
            got = _z3_answer(expr, DEFAULT_VARS, env, symbolic)
        except Unsupported as exc:
            assert str(exc) == EMPTY_ELEMENT and _empty_element(expr), exc
            return
        if got is None:
            # Over literals every question is closed and must be decided; over
            # variables Z3 may give up on a quantifier, but must never contradict.
            assert symbolic, "Z3 could not decide a closed question"
            continue
        assert _same(got, expected), (
            f"z3 ({'symbolic' if symbolic else 'literal'}) says {got!r}, the evaluator {expected!r}"
        )


SETTINGS = settings(
    max_examples=int(os.environ.get("Z3DIFF_EXAMPLES", "60")),
    suppress_health_check=[HealthCheck.too_slow],
    deadline=None,
)


@settings(SETTINGS, max_examples=3 * SETTINGS.max_examples)
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


@SETTINGS
@given(node=regexes, ss=st.lists(strings, min_size=1, max_size=5))
def test_regexes_agree_with_python(node: RNode, ss: list[str]) -> None:
    """The Z3 regex of a spec regex accepts exactly what Python's full match accepts."""
    pattern = re.compile(node_to_python(node))
    z3_regex = regex_to_z3(node)
    s = make_solver(rlimit=5_000_000, timeout_ms=20_000)
    for text in ss:
        answer = _decide(s, z3.InRe(str_val(text), z3_regex))
        assert answer is not None, f"Z3 could not decide {text!r}"
        assert answer == (pattern.fullmatch(text) is not None), (node, text)
