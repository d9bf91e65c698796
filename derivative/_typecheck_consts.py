"""Type checks of constants: evaluated in dependency order, whatever the declaration order.

A const is computed from literals, other consts and built-ins only; a cycle, an
undefined value (``1 // 0``), a value outside the declared type or its refinement is
an error.  A ``real`` const holds a ``Fraction`` even if written as an integer.  A
const's type is recorded even when its value is not, so one mistake is reported once.
"""

from __future__ import annotations

from typing import cast

from derivative._ast import ConstDecl, Expr, IntType, Name
from derivative._eval import EvaluationError, evaluate
from derivative._typecheck_base import Ctx, Forbidden
from derivative._typecheck_decls import Declarations
from derivative._typecheck_expr import ExprChecker
from derivative._typecheck_values import coerce_value, show_value, value_fits
from derivative._types import TAny, Ty, assignable
from derivative._values import UNDEFINED, Value
from derivative._walk import free_names


def check_consts(d: Declarations) -> None:
    """Type and evaluate every const; report cycles once per cycle."""
    order, cyclic = _const_order(d)
    for name in order:
        _check_const(d, d.const_decls[name], cyclic)


def _const_deps(decl: ConstDecl) -> set[str]:
    deps = set(free_names(decl.value))
    if isinstance(decl.type, IntType):
        for b in (decl.type.lo, decl.type.hi):
            if isinstance(b, Name):
                deps.add(b.id)
    return deps


def _const_order(d: Declarations) -> tuple[list[str], set[str]]:
    """The consts, each after those it depends on, and those on a cycle (reported here)."""
    order: list[str] = []
    state: dict[str, int] = {}  # 1 visiting, 2 done
    cyclic: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cycle = [*path[path.index(name) :], name]
            if not cyclic.intersection(cycle):
                decl = d.const_decls[name]
                d.error(
                    "constants depend on each other in a cycle: " + " -> ".join(cycle),
                    decl.file,
                    decl.line,
                    decl.column,
                )
            cyclic.update(cycle)
            return
        state[name] = 1
        for dep in sorted(_const_deps(d.const_decls[name])):
            if dep in d.const_decls:
                visit(dep, [*path, name])
        state[name] = 2
        order.append(name)

    for name in d.const_decls:
        visit(name, [])
    return order, cyclic


def _check_const(d: Declarations, decl: ConstDecl, cyclic: set[str]) -> None:
    name = decl.name
    ty = d.resolve(decl.type, decl.file, (decl.line, decl.column))
    d.info.const_types[name] = ty  # known even without a value: no cascades
    if name in cyclic:
        return
    bad_dep = [
        n for n in free_names(decl.value) if n in d.const_decls and n not in d.info.const_values
    ]
    n_errors = len(d.state.errors)
    vty = _value_type(d, decl)
    if len(d.state.errors) > n_errors or bad_dep or isinstance(ty, TAny):
        return
    if not assignable(ty, vty):
        _at_value(d, decl, f"constant {name} is declared {ty.show()} but its value is {vty.show()}")
        return
    value = _const_value(d, decl, ty)
    if value is not None:
        d.info.const_values[name] = value


def _value_type(d: Declarations, decl: ConstDecl) -> Ty:
    """The type of the const's defining expression (errors recorded in ``d.state``)."""
    forbidden = Forbidden(
        d.param_decls,
        "a constant cannot use the param {name}",
        "constants are computed from literals and other constants",
    )
    ctx = Ctx(
        file=decl.file,
        names={n: t for n, t in d.info.const_types.items() if n != decl.name},
        result_error="`result` cannot appear in a constant",
        forbidden=forbidden,
        line=decl.line,
        column=decl.column,
    )
    return ExprChecker(d.state, ctx).check(decl.value)


def _const_value(d: Declarations, decl: ConstDecl, ty: Ty) -> Value | None:
    """The const's value, or None when it cannot be had (the reason is reported)."""
    name = decl.name
    try:
        value = evaluate(decl.value, {}, d.info.const_values)
    except EvaluationError as exc:
        _at_value(d, decl, f"the value of constant {name} cannot be computed: {exc}")
        return None
    if value is UNDEFINED:
        _at_value(
            d,
            decl,
            f"the value of constant {name} is undefined "
            "(division by zero, index out of range, int() of a non-number...)",
        )
        return None
    value = coerce_value(cast(Value, value), ty)
    if not value_fits(value, ty):
        _at_value(
            d, decl, f"constant {name} = {show_value(value)} is outside its type {ty.show()}"
        )
        return None
    return value


def _at_value(d: Declarations, decl: ConstDecl, message: str) -> None:
    """An error at the const's defining expression (else at the declaration)."""
    expr: Expr = decl.value
    line, col = (expr.line, expr.col) if expr.line else (decl.line, decl.column)
    d.error(message, decl.file, line, col)
