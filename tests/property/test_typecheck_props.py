"""The type checker agrees with the expression generator and with the evaluator.

``_exprgen`` builds random expressions that are well-typed by construction (its own
reading of docs/language.md §4); the checker must accept every one of them with a type
that fits the requested one, and whenever the evaluator gives a value, that value
must belong to the type the checker computed (an ``int`` for ``int``, a ``Fraction``
for ``real``...).  A typing rule that disagrees with what evaluation really produces
(``//`` on reals, ``sum([])``, ``date - date``) shows up here.

``list_order`` (``<`` on lists) is excluded: the checker allows ordering on int,
real, str and date only (see ``derivative/_typecheck.py``).
"""

from __future__ import annotations

from _exprgen import COLOR, DEFAULT_VARS, exprs_with_envs
from hypothesis import given, settings
from hypothesis import strategies as st

from derivative._ast import Contract, EnumDecl, Expr
from derivative._eval import Evaluator
from derivative._typecheck import TypeInfo, assignable, check, value_fits
from derivative._types import BOOL, DATE, INT, REAL, STR, TList, Ty
from derivative._values import UNDEFINED, Value

INFO: TypeInfo = check(
    Contract(
        name="gen",
        version=1,
        declarations=(EnumDecl(name=COLOR.name, members=COLOR.members),),
    )
)
TYPES: tuple[Ty, ...] = (INT, BOOL, REAL, STR, DATE, TList(INT), TList(STR), COLOR)
EVAL = Evaluator()


@st.composite
def cases(draw: st.DrawFn) -> tuple[Ty, Expr, dict[str, Value]]:
    ty = draw(st.sampled_from(TYPES))
    expr, env = draw(exprs_with_envs(ty, DEFAULT_VARS, exclude={"list_order"}))
    return ty, expr, env


@settings(max_examples=200)
@given(cases())
def test_generated_expressions_type_check_and_values_fit(
    case: tuple[Ty, Expr, dict[str, Value]],
) -> None:
    wanted, expr, env = case
    got = INFO.type_of(expr, DEFAULT_VARS)
    assert assignable(wanted, got), (wanted.show(), got.show())
    value = EVAL.eval(expr, env)
    if value is not UNDEFINED:
        assert value_fits(value, got), (got.show(), value)
