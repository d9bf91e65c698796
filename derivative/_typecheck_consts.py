"""Type checks of constants: evaluated in dependency order, whatever the declaration order.

A const is computed from literals, other consts and built-ins only; a cycle, an
undefined value (``1 // 0``), a value outside the declared type or its refinement is
an error.  A ``real`` const holds a ``Fraction`` even if written as an integer.  A
const's type is recorded even when its value is not, so one mistake is reported once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
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
    """The consts, each after those it depends on, and those on a cycle (reported here).

    A depth-first search with its own stack, not nested calls: a chain of thousands of
    consts each defined from the next one down is a legal sheet, and one Python call per
    link would end in a RecursionError.  ``path`` is the chain from the search's root to
    the const being expanded, kept once (a copy per step would make a chain quadratic).
    """
    order: list[str] = []
    state: dict[str, int] = {}  # 1 visiting, 2 done
    cyclic: set[str] = set()
    for root in d.const_decls:
        if state.get(root) == 2:
            continue
        state[root] = 1
        path = [root]
        pending = [iter(sorted(_const_deps(d.const_decls[root])))]
        while pending:
            dep = next(pending[-1], None)
            if dep is None:
                done = path.pop()
                pending.pop()
                state[done] = 2
                order.append(done)
                continue
            if dep not in d.const_decls or state.get(dep) == 2:
                continue
            if state.get(dep) == 1:
                _report_cycle(d, [*path[path.index(dep) :], dep], cyclic)
                continue
            state[dep] = 1
            path.append(dep)
            pending.append(iter(sorted(_const_deps(d.const_decls[dep]))))
    return order, cyclic


def _report_cycle(d: Declarations, cycle: list[str], cyclic: set[str]) -> None:
    """Report ``cycle`` at its first const, unless a const of it was already reported."""
    if not cyclic.intersection(cycle):
        decl = d.const_decls[cycle[0]]
        d.error(
            "constants depend on each other in a cycle: " + " -> ".join(cycle),
            decl.file,
            decl.line,
            decl.column,
        )
    cyclic.update(cycle)


class _AllBut(Mapping[str, Ty]):
    """The const types known so far, without the const being defined, read live.

    A copy of the table per const would cost one step per const already checked, which
    made a sheet of many consts quadratic (tests/unit/test_parse_scale.py).  The table
    only grows between checks, never during one.
    """

    def __init__(self, table: Mapping[str, Ty], hidden: str) -> None:
        self._table = table
        self._hidden = hidden

    def __getitem__(self, name: str) -> Ty:
        if name == self._hidden:
            raise KeyError(name)
        return self._table[name]

    def __contains__(self, name: object) -> bool:
        return name != self._hidden and name in self._table

    def __iter__(self) -> Iterator[str]:
        return (n for n in self._table if n != self._hidden)

    def __len__(self) -> int:
        return len(self._table) - (self._hidden in self._table)


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
        names=_AllBut(d.info.const_types, decl.name),
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
