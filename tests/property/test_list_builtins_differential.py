"""Slices, comprehensions, ``count``, ``product`` and ``reversed`` mean one thing in every reading.

The shared generator (``_exprgen``) mixes these forms into the general differential tests
of each reading; here they stand at the top of the expression, over elements where the
condition or the item is undefined for some elements (``xs[e]``, ``12 // e``), so that the
rules that matter for them decide the result: Python's bounds of a slice (negative from
the end, clamped, never undefined), a comprehension evaluating every element's condition
and every kept element's item, ``product([]) == 1``.  Each case is judged by

- Python itself (``test_eval_differential.ToPython``: Python's own slice, comprehension,
  ``math.prod`` and ``reversed``) against the evaluator;
- the Z3 encoding over literals and over variables (``test_z3_differential``);
- the SMT-LIB printer's script read by z3, cvc5 where z3 gives up (``test_smtlib_differential``);
- the generated Python over its runtime (``test_codegen_differential``);
- and the printer: the text parses back to the same tree.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derivative._ast import (
    Call,
    Compare,
    Expr,
    Index,
    IntLit,
    ListComp,
    Name,
    Slice,
    Unary,
    make_binop,
)
from derivative._printer import to_source
from derivative._types import BOOL, INT, REAL, STR, TList, Ty
from derivative.grammar import parse_text
from tests.property import test_codegen_differential as codegen
from tests.property import test_eval_differential as python
from tests.property import test_smtlib_differential as smtlib
from tests.property import test_z3_differential as z3diff
from tests.property._exprgen import DEFAULT_VARS, envs, typed_exprs

EXCLUDE = {"list_order"}


def _lit(v: int) -> Expr:
    return IntLit(value=v) if v >= 0 else Unary(op="-", operand=IntLit(value=-v))


@st.composite
def _bound(draw: st.DrawFn) -> Expr | None:
    """A slice bound: none, a small literal on either side of zero, or an int expression."""
    return draw(
        st.one_of(
            st.none(),
            st.integers(-7, 7).map(_lit),
            typed_exprs(INT, DEFAULT_VARS, 1, exclude=EXCLUDE),
        )
    )


@st.composite
def _over(draw: st.DrawFn, var: str, elem: Ty, want: Ty) -> Expr:
    """An expression of type ``want`` over ``var``, often undefined for some of its values."""
    scope = {**DEFAULT_VARS, var: elem}
    if elem == INT and draw(st.booleans()):
        v = Name(id=var)
        partial = draw(
            st.sampled_from(
                [
                    Index(base=Name(id="xs"), index=v),
                    make_binop("//", (IntLit(value=12), v)),
                    make_binop("%", (v, make_binop("-", (v, IntLit(value=1))))),
                ]
            )
        )
        if want == BOOL:
            op = draw(st.sampled_from([">", "<=", "==", "!="]))
            return Compare(ops=(op,), operands=(partial, draw(st.integers(-2, 3).map(_lit))))
        if want == INT:
            return partial
    return draw(typed_exprs(want, scope, 1, exclude=EXCLUDE))


@st.composite
def _cases(draw: st.DrawFn) -> tuple[Ty, Expr, dict[str, Any]]:
    kind = draw(
        st.sampled_from(["slice list", "slice str", "map", "filter", "count", "product",
                         "reversed"])
    )  # fmt: skip
    ty: Ty
    if kind.startswith("slice"):
        ty = TList(INT) if kind == "slice list" else STR
        base = draw(typed_exprs(ty, DEFAULT_VARS, 1, exclude=EXCLUDE))
        expr: Expr = Slice(base=base, lo=draw(_bound()), hi=draw(_bound()))
    elif kind in ("map", "filter", "count"):
        elem = draw(st.sampled_from([INT, STR]))
        iterable = draw(typed_exprs(TList(elem), DEFAULT_VARS, 1, exclude=EXCLUDE))
        var = draw(st.sampled_from(["e", "i"] if elem == INT else ["e", "s"]))
        cond = None if kind == "map" else draw(_over(var, elem, BOOL))
        if kind == "count":
            ty = INT
            keep = ListComp(body=Name(id=var), var=var, iterable=iterable, cond=cond)
            expr = Call(func="len", args=(keep,))
        else:
            item = draw(st.sampled_from([INT, STR, BOOL]))
            ty = TList(item)
            body = draw(_over(var, elem, item))
            expr = ListComp(body=body, var=var, iterable=iterable, cond=cond)
    elif kind == "product":
        item = draw(st.sampled_from([INT, REAL]))
        ty = item
        expr = Call(func="product", args=(draw(typed_exprs(TList(item), DEFAULT_VARS, 2)),))
    else:
        ty = TList(INT)
        expr = Call(func="reversed", args=(draw(typed_exprs(ty, DEFAULT_VARS, 2)),))
    return ty, expr, dict(draw(envs(DEFAULT_VARS)))


def _parse(src: str) -> Expr:
    return parse_text(f"spec s version 1\nrequirement R: {src} == {src}\n").obligations[0].expr


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_every_reading_agrees(case: tuple[Ty, Expr, dict[str, Any]]) -> None:
    ty, expr, env = case
    python.check(ty, (expr, env))
    codegen._check(ty, expr, env)
    z3diff._check(expr, env)
    smtlib._check(expr, env)
    src = to_source(expr)
    parsed = _parse(src)
    assert isinstance(parsed, Compare)
    assert parsed.operands[0].model_dump() == expr.model_dump(), src


def test_slices_follow_python_at_every_bound() -> None:
    """Every pair of bounds from -5 to 5 (and none) on a list of three and a string of
    three, in the evaluator, Z3 and SMT-LIB, against Python's own slice."""
    bounds: list[int | None] = [None, *range(-5, 6)]
    env = {**{n: v for n, v in _default_env().items()}, "xs": (1, 2, 3), "s": "abc"}
    for base in ("xs", "s"):
        for lo in bounds:
            for hi in bounds:
                node = Slice(
                    base=Name(id=base),
                    lo=None if lo is None else _lit(lo),
                    hi=None if hi is None else _lit(hi),
                )
                want = env[base][lo:hi]  # type: ignore[index]
                assert python.EV.eval(node, env) == want, (base, lo, hi)
                z3diff._check(node, env)
                smtlib._check(node, env)
                codegen._check(TList(INT) if base == "xs" else STR, node, env)


def test_items_of_no_known_type_are_still_evaluated() -> None:
    """A comprehension whose item has no known type (``[][i]``: an index into the empty
    literal) over a list that is not empty is undefined in every reading; the SMT-LIB
    reading once treated it as "nothing evaluated" and called it defined."""
    for src, xs in [("[[][i] for e in [i]]", ()), ("[[][e] for e in xs]", (1,)),
                    ("[[][e] for e in xs if e > 0]", (0, 2)), ("[[][e] for e in xs]", ())]:
        expr = _parse(src).operands[0]
        env = {**_default_env(), "xs": xs}
        ty = TList(INT)
        python.check(ty, (expr, env))
        codegen._check(ty, expr, env)
        z3diff._check(expr, env)
        smtlib._check(expr, env)


def _default_env() -> dict[str, Any]:
    from datetime import date

    from derivative._values import EnumValue

    return {"i": 0, "j": 0, "p": True, "q": False, "x": 0, "s": "", "t": "", "d": date(2024, 1, 1),
            "xs": (), "ys": (), "rs": (), "c": EnumValue("Color", "red")}
