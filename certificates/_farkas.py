"""Farkas certificates: the smallest proof of a linear conflict anyone can check by hand.

If every core member is a conjunction of linear (in)equalities over int, real or
date variables, each member is written as ``<=`` rows ``sum(a_i * x_i) <= c``:

- ``A <= B`` gives ``A - B <= 0``; ``A >= B`` gives ``B - A <= 0``;
- ``A == B`` and ``x in LO..HI`` give two rows, a chain one per link, ``P and Q`` the
  rows of both sides, ``not (A < B)`` the rows of ``A >= B``, ``false`` the row
  ``0 <= -1``, ``true`` none;
- ``A < B`` over integers (every variable an int or a date, the row scaled to integer
  coefficients) is tightened to ``A - B <= -1``; over reals it is weakened to
  ``A - B <= 0`` (sound, possibly too weak: then no certificate is found);
- constants and the witness input are replaced by their values, and a call, index or
  ``if`` that reads only those is computed with the evaluator (``len(password)`` at a
  witness is a number); a condition that reads only those is computed too: true gives
  no row, false or undefined the row ``0 <= -1``; ``result`` and a
  call of the subject function (in an example) are the variable ``result``; dates
  are day ordinals;
- a comparison with a call of the subject function also gives the rows of
  ``p == a`` for each parameter ``p`` and argument ``a`` of the call (the call is
  the script's call only at its own input), for the parameters whose equation is
  linear; an equation that is not (a string parameter) gives no rows, which only
  makes the rows weaker, never wrong.  A raises example's ``p1 == a1 and ... and
  COND`` (``_formula.core_formula``) is read the same way: rows for its linear
  equations, then the rows of ``COND``.

Every row is implied by its member being defined and true, so non-negative
multipliers ``y`` with ``sum(y_j * a_j) = 0`` and ``sum(y_j * c_j) < 0`` prove the
core contradictory even over the reals: adding the rows gives ``0 <= c < 0``.  The
multipliers are found with an exact LP (Z3 over the reals, in this process: finding
them needs no independence, checking them needs only ``Fraction``).  Anything
non-linear (``or``, ``!=``, ``*`` of two variables, ``//``, strings ...) means no
Farkas certificate: ``derive_rows`` answers None and the certificate's ``farkas`` is
null.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import gcd, lcm

from derivative._ast import (
    BinOp,
    BoolLit,
    BoolOp,
    Call,
    Compare,
    DateLit,
    Expr,
    IntLit,
    Name,
    Range,
    RealLit,
    Unary,
)
from derivative._record import record
from derivative._types import TDate, TInt, TReal, Ty
from derivative._values import UNDEFINED, Value
from derivative._walk import free_names, walk

from ._formula import example_pins

__all__ = ["LinearContext", "Row", "check_combination", "derive_rows", "find_multipliers"]


@record
class Row:
    """``sum(coefficients[x] * x) <= bound``, exactly."""

    coefficients: tuple[tuple[str, Fraction], ...]
    bound: Fraction

    @staticmethod
    def make(coefficients: Mapping[str, Fraction], bound: Fraction) -> Row:
        items = tuple(sorted((k, v) for k, v in coefficients.items() if v != 0))
        return Row(items, bound)

    def as_dict(self) -> dict[str, Fraction]:
        return dict(self.coefficients)

    def show(self) -> str:
        """The row as arithmetic a person reads: ``-max_attempts <= -3``."""
        parts: list[str] = []
        for name, c in self.coefficients:
            mag = abs(c)
            term = name if mag == 1 else f"{mag}*{name}"
            if not parts:
                parts.append(term if c > 0 else f"-{term}")
            else:
                parts.append(f"+ {term}" if c > 0 else f"- {term}")
        return f"{' '.join(parts) or '0'} <= {self.bound}"


@record
class LinearContext:
    """What names mean to the row derivation."""

    variables: Mapping[str, Ty]
    """Decision variables (params, or the function's parameters and ``result``)."""
    constants: Mapping[str, Value]
    """Constants and the witness input: replaced by their values."""
    call_name: str | None = None
    """Calls of this function (an example's) stand for ``result``."""
    call_params: tuple[str, ...] = ()
    """That function's parameters in call order: a call pins them to its arguments."""


_Lin = tuple[dict[str, Fraction], Fraction]

_COMPUTED = frozenset({"call", "index", "if"})
"""Ground expressions of these kinds are evaluated to a number (literals, names and
arithmetic are read directly, so their rows stay readable)."""


def _number(v: object) -> Fraction | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, Fraction)):
        return Fraction(v)
    if isinstance(v, _dt.date) and not isinstance(v, _dt.datetime):
        return Fraction(v.toordinal())
    return None


def _scale(a: _Lin, k: Fraction) -> _Lin:
    return ({n: c * k for n, c in a[0].items()}, a[1] * k)


def _add(a: _Lin, b: _Lin, sign: int = 1) -> _Lin:
    out = dict(a[0])
    for n, c in b[0].items():
        out[n] = out.get(n, Fraction(0)) + sign * c
    return ({n: c for n, c in out.items() if c != 0}, a[1] + sign * b[1])


def _ground(e: Expr, ctx: LinearContext) -> bool:
    """Whether ``e`` reads only constants and the witness input (no decision variable)."""
    if not free_names(e) <= set(ctx.constants):
        return False
    return not any(
        n.kind == "result" or (isinstance(n, Call) and n.func == ctx.call_name) for n in walk(e)
    )


def _value(e: Expr, ctx: LinearContext) -> object:
    """The value of a ground expression (``UNDEFINED`` where the language says so)."""
    from derivative._eval import EvaluationError, Evaluator

    try:
        return Evaluator(ctx.constants).eval(e, {})
    except EvaluationError:
        return UNDEFINED


def _linear(e: Expr, ctx: LinearContext) -> _Lin | None:
    """``e`` as ``(coefficients, constant)``, or None if it is not linear arithmetic."""
    if e.kind in _COMPUTED and _ground(e, ctx):
        # len(XS), abs(NEG), a witness's len(password) ...: a number, computed exactly
        q = _number(_value(e, ctx))
        return None if q is None else ({}, q)
    if isinstance(e, IntLit):
        return ({}, Fraction(e.value))
    if isinstance(e, RealLit):
        try:
            return ({}, Fraction(e.value))
        except (ValueError, ZeroDivisionError):
            return None
    if isinstance(e, DateLit):
        try:
            return ({}, Fraction(_dt.date.fromisoformat(e.value).toordinal()))
        except ValueError:
            return None
    if isinstance(e, Name):
        if e.id in ctx.constants:
            q = _number(ctx.constants[e.id])
            return None if q is None else ({}, q)
        ty = ctx.variables.get(e.id)
        if isinstance(ty, (TInt, TReal, TDate)):
            return ({e.id: Fraction(1)}, Fraction(0))
        return None
    if e.kind == "result" or (isinstance(e, Call) and e.func == ctx.call_name):
        ty = ctx.variables.get("result")
        if isinstance(ty, (TInt, TReal, TDate)):
            return ({"result": Fraction(1)}, Fraction(0))
        return None
    if isinstance(e, Unary) and e.op == "-":
        a = _linear(e.operand, ctx)
        return None if a is None else _scale(a, Fraction(-1))
    if isinstance(e, BinOp):
        acc = _linear(e.operands[0], ctx)
        for operand in e.operands[1:]:
            b = _linear(operand, ctx)
            if acc is None or b is None:
                return None
            acc = _linear_step(e.op, acc, b)
        return acc
    return None


def _linear_step(op: str, a: _Lin, b: _Lin) -> _Lin | None:
    """One step ``a op b`` of a run, if it stays linear."""
    if op == "+":
        return _add(a, b)
    if op == "-":
        return _add(a, b, -1)
    if op == "*":
        if not a[0]:
            return _scale(b, a[1])
        if not b[0]:
            return _scale(a, b[1])
        return None
    if op == "/" and not b[0] and b[1] != 0:
        return _scale(a, 1 / b[1])
    if op in ("//", "%") and not a[0] and not b[0] and b[1] != 0:
        x, y = a[1], b[1]
        q = Fraction(x // y)
        return ({}, q if op == "//" else x - y * q)
    return None


def _integral(lin: _Lin, ctx: LinearContext) -> bool:
    return all(isinstance(ctx.variables.get(n), (TInt, TDate)) for n in lin[0])


def _leq(lin: _Lin) -> Row:
    """``lin <= 0`` as a row."""
    return Row.make(lin[0], -lin[1])


def _link_rows(op: str, left: Expr, right: Expr, ctx: LinearContext) -> list[Row] | None:
    if op in ("in",) and isinstance(right, Range):
        x = _linear(left, ctx)
        lo = _linear(right.lo, ctx)
        hi = _linear(right.hi, ctx)
        if x is None or lo is None or hi is None:
            return None
        return [_leq(_add(lo, x, -1)), _leq(_add(x, hi, -1))]
    a = _linear(left, ctx)
    b = _linear(right, ctx)
    if a is None or b is None:
        return None
    diff = _add(a, b, -1)  # a - b
    if op == "<=":
        return [_leq(diff)]
    if op == ">=":
        return [_leq(_scale(diff, Fraction(-1)))]
    if op == "==":
        return [_leq(diff), _leq(_scale(diff, Fraction(-1)))]
    if op in ("<", ">"):
        lin = diff if op == "<" else _scale(diff, Fraction(-1))
        if _integral(lin, ctx):
            k = lcm(*(c.denominator for c in (*lin[0].values(), lin[1])))
            scaled = _scale(lin, Fraction(k))
            # integer coefficients over integers: scaled < 0 means scaled <= -1
            return [Row.make(scaled[0], -scaled[1] - 1)]
        return [_leq(lin)]
    return None


_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def _rows(e: Expr, ctx: LinearContext) -> list[Row] | None:
    if e.kind != "bool" and _ground(e, ctx):
        # a condition on constants only: true adds nothing; false or undefined means the
        # member can never hold, which the row 0 <= -1 says
        return [] if _value(e, ctx) is True else [Row.make({}, Fraction(-1))]
    if isinstance(e, BoolLit):
        return [] if e.value else [Row.make({}, Fraction(-1))]
    if isinstance(e, BoolOp) and e.op == "and":
        out_rows: list[Row] = []
        for operand in e.operands:
            rows = _rows(operand, ctx)
            if rows is None:
                return None
            out_rows.extend(rows)
        return out_rows
    if isinstance(e, Compare):
        out: list[Row] = []
        for operand in e.operands:
            out.extend(_pin_rows(operand, ctx))
        for i, op in enumerate(e.ops):
            link = _link_rows(op, e.operands[i], e.operands[i + 1], ctx)
            if link is None:
                return None
            out.extend(link)
        return out
    if isinstance(e, Unary) and e.op == "not":
        inner = e.operand
        if isinstance(inner, Compare) and len(inner.ops) == 1 and inner.ops[0] in _NEGATED:
            return _link_rows(_NEGATED[inner.ops[0]], inner.operands[0], inner.operands[1], ctx)
        if isinstance(inner, Unary) and inner.op == "not":
            return _rows(inner.operand, ctx)
        return None
    return None


def _pin_rows(e: Expr, ctx: LinearContext) -> list[Row]:
    """The rows of ``p == a`` for a call of the subject (linear equations only)."""
    if not (isinstance(e, Call) and e.func == ctx.call_name):
        return []
    if len(e.args) != len(ctx.call_params):
        return []
    out: list[Row] = []
    for name, arg in zip(ctx.call_params, e.args, strict=True):
        rows = _link_rows("==", Name(id=name), arg, ctx)
        if rows is not None:
            out.extend(rows)
    return out


def _conjuncts(e: Expr) -> list[Expr]:
    """The operands of an ``and`` run, in order (``e`` alone if it is none)."""
    if isinstance(e, BoolOp) and e.op == "and":
        return list(e.operands)
    return [e]


def _member_rows(e: Expr, ctx: LinearContext) -> list[Row] | None:
    """The rows of one core member; leading parameter equations of a function's member
    contribute their linear rows only (dropping a conjunct's rows is always sound)."""
    if not ctx.call_params:
        return _rows(e, ctx)
    args = example_pins(e, ctx.call_params)
    if args is None:
        return _rows(e, ctx)
    out: list[Row] = []
    for name, arg in zip(ctx.call_params, args, strict=True):
        link = _link_rows("==", Name(id=name), arg, ctx)
        if link is not None:
            out.extend(link)
    for rest in _conjuncts(e)[len(args) :]:
        rows = _rows(rest, ctx)
        if rows is None:
            return None
        out.extend(rows)
    return out


def derive_rows(exprs: Sequence[Expr], ctx: LinearContext) -> list[list[Row]] | None:
    """The rows of each expression, or None if any is not linear arithmetic."""
    out: list[list[Row]] = []
    for e in exprs:
        rows = _member_rows(e, ctx)
        if rows is None:
            return None
        out.append(rows)
    return out


def combine(rows: Sequence[Row], multipliers: Sequence[Fraction]) -> Row:
    """``sum(multipliers[j] * rows[j])`` (coefficients and bound)."""
    total: dict[str, Fraction] = {}
    bound = Fraction(0)
    for row, y in zip(rows, multipliers, strict=True):
        for name, c in row.coefficients:
            total[name] = total.get(name, Fraction(0)) + y * c
        bound += y * row.bound
    return Row.make(total, bound)


def check_combination(rows: Sequence[Row], multipliers: Sequence[Fraction]) -> str | None:
    """None if the multipliers prove ``0 <= c < 0``; else what is wrong, in words."""
    if len(rows) != len(multipliers):
        return "the number of multipliers differs from the number of rows"
    if any(y < 0 for y in multipliers):
        return "a multiplier is negative"
    total = combine(rows, multipliers)
    if total.coefficients:
        left = ", ".join(f"{n}: {c}" for n, c in total.coefficients)
        return f"the weighted rows do not cancel (left over: {left})"
    if total.bound >= 0:
        return f"the weighted rows sum to 0 <= {total.bound}, which is no contradiction"
    return None


def find_multipliers(rows: Sequence[Row]) -> list[Fraction] | None:
    """Non-negative exact multipliers proving the rows infeasible, or None if they are not.

    Solved as an LP over the rationals with Z3 (exact); among solutions, rows are
    preferred unused (a second pass minimises the number of non-zero multipliers
    greedily by trying to pin each to zero).
    """
    import z3

    if not rows:
        return None
    ctx = z3.Context()
    ys = [z3.Real(f"y{j}", ctx) for j in range(len(rows))]
    names = sorted({n for r in rows for n, _ in r.coefficients})

    def base_solver() -> z3.Solver:
        s = z3.Solver(ctx=ctx)
        for y in ys:
            s.add(y >= 0)
        for name in names:
            terms = [
                ys[j] * z3.RealVal(str(dict(r.coefficients)[name]), ctx)
                for j, r in enumerate(rows)
                if name in dict(r.coefficients)
            ]
            s.add(z3.Sum(terms) == 0)
        bound_terms = [ys[j] * z3.RealVal(str(r.bound), ctx) for j, r in enumerate(rows)]
        s.add(z3.Sum(bound_terms) == -1)
        return s

    solver = base_solver()
    if solver.check() != z3.sat:
        return None
    zero: set[int] = set()
    for j in range(len(rows)):
        solver.push()
        solver.add(ys[j] == 0)
        if solver.check() == z3.sat:
            zero.add(j)
            solver.pop()
            solver.add(ys[j] == 0)
        else:
            solver.pop()
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    out: list[Fraction] = []
    for j, y in enumerate(ys):
        if j in zero:
            out.append(Fraction(0))
            continue
        v = model.eval(y, model_completion=True)
        out.append(Fraction(v.numerator_as_long(), v.denominator_as_long()))
    # Scale to the smallest integers (any positive multiple of a proof is a proof).
    nonzero = [y for y in out if y]
    if nonzero:
        k = lcm(*(y.denominator for y in nonzero))
        g = gcd(*(int(y * k) for y in nonzero))
        out = [y * k / g for y in out]
    if check_combination(rows, out) is not None:
        return None
    return out
