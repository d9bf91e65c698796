"""The encoder's walker: the environment, dispatch and term builders every construct uses.

``EncoderBase`` holds what the construct families (``_encode`` for leaves and
operators, ``_encode_quant`` for quantifiers, ``_encode_calls`` for indexing and
built-in calls) share: the environment of named terms, dispatch by node kind, and the
C-API builders for arithmetic and comparisons that build the very terms z3py builds
(so models, and the golden files, do not change; docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import z3

from derivative._ast import Call, Expr
from derivative._types import TEnum, Ty
from derivative._values import Value
from derivative._walk import ExprVisitor

from ._terms import EXPAND_LIMIT, Term
from ._z3util import Unsupported, Z, conj, current, disj, false, implies, true

CallHook = Callable[[Call, list[Term]], Term | None]
"""Gives the term of a call to a spec function (examples); None for built-ins."""


def fold_and(items: list[Term]) -> tuple[Z, Z]:
    """(defined, value) of ``a and b and ...`` with short-circuit, left to right."""
    d: Z = true()
    v: Z = true()
    for t in reversed(items):
        d = conj(t.defined, implies(t.value, d))
        v = conj(t.value, v)
    return d, v


def fold_or(items: list[Term]) -> tuple[Z, Z]:
    d: Z = true()
    v: Z = false()
    for t in reversed(items):
        d = conj(t.defined, disj(t.value, d))
        v = disj(t.value, v)
    return d, v


RUN_BUDGET = 100_000
"""The most operand references the definedness of one ``and``/``or`` run may repeat.

Operand ``i`` is evaluated only where every operand before it let the run go on, so an
operand that may be undefined repeats the ``i`` values before it; a run of thousands of
such operands would build a formula quadratic in its length, which Z3 can neither build
nor solve in useful time.  Past the budget the run is ``Unsupported`` (the question is
then unknown, with that reason), never an approximation.  Runs of operands that are
always defined (comparisons of params, the common case) repeat nothing.
"""


def run_and_or(op: str, items: Sequence[Term]) -> tuple[Z, Z]:
    """(defined, value) of the run ``items[0] op items[1] op ...`` for ``and``/``or``.

    Left to right with short circuits: operand ``i`` counts only where every earlier
    operand was true (``and``) or false (``or``).  Flat, not nested: for two operands
    the very terms the binary encoding built (``d_a ∧ (v_a → d_b)``, ``d_a ∧ (v_a ∨
    d_b)``), for more the conjunction of one such condition per partial operand.
    """
    z = current()
    values = [t.value for t in items]
    parts: list[Z] = []
    spent = 0
    for i, t in enumerate(items):
        if z.literal_value(t.defined) is True:
            continue
        if i == 0:
            parts.append(t.defined)
            continue
        spent += i
        if spent > RUN_BUDGET:
            raise Unsupported(
                f"a run of `{op}` with {len(items)} operands, many of which may be "
                "undefined, is too large to encode"
            )
        if op == "and":
            parts.append(implies(conj(*values[:i]), t.defined))
        else:
            parts.append(disj(*values[:i], t.defined))
    value = conj(*values) if op == "and" else disj(*values)
    return conj(*parts), value


_ARITH_API: dict[str, Callable[..., Any]] = {
    "+": z3.Z3_mk_add,
    "-": z3.Z3_mk_sub,
    "*": z3.Z3_mk_mul,
}
_ORDER_API: dict[str, Callable[..., Any]] = {
    "<": z3.Z3_mk_lt,
    "<=": z3.Z3_mk_le,
    ">": z3.Z3_mk_gt,
    ">=": z3.Z3_mk_ge,
}

_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}

_VISITORS: dict[tuple[type, str], Callable[[Any, Any], Any]] = {}
"""``visit_<kind>`` per encoder class and node kind, looked up once."""


class EncoderBase(ExprVisitor[Term]):
    """The walker every construct family builds on (see ``_encode.Encoder``)."""

    def __init__(
        self,
        env: Mapping[str, Term],
        consts: Mapping[str, tuple[Value, Ty]] | None = None,
        enums: Mapping[str, TEnum] | None = None,
        call_hook: CallHook | None = None,
        expand_limit: int = EXPAND_LIMIT,
    ) -> None:
        self.env: dict[str, Term] = dict(env)
        self.consts = dict(consts or {})
        self.enums = dict(enums or {})
        self.call_hook = call_hook
        self.expand_limit = expand_limit
        self.range_cap: int | None = None
        """Set by a caller that has shown every quantifier range it encodes to hold at
        most this many values (for its valid inputs): quantifiers over symbolic ranges
        are then unrolled to that many guarded items instead of quantified
        (``_encode_quant``, ``_candidates``)."""
        # The Z3 environment the terms are built in (an encoder lives in one context).
        self._z = current()

    # ------------------------------------------------------------------ helpers

    def encode(self, expr: Expr) -> Term:
        return self.visit(expr)

    def visit(self, node: Expr) -> Term:
        """``visit_<kind>`` as ``ExprVisitor`` dispatches it, with the bound method
        looked up once per kind (large specs visit hundreds of thousands of nodes)."""
        key = (type(self), node.kind)
        method = _VISITORS.get(key)
        if method is None:
            method = getattr(type(self), "visit_" + node.kind, None)
            if method is None:
                return self.generic_visit(node)
            # Functions, not bound methods: a bound method held by the encoder would
            # make it a reference cycle, keep its terms alive until the cyclic
            # collector runs, and so change the ids Z3 hands out afterwards (and with
            # them its search).
            _VISITORS[key] = method
        result: Term = method(self, node)
        return result

    def _arith(self, op: str, a: Z, b: Z) -> Z:
        """``a op b`` for ``+ - *`` on arithmetic terms.

        Through the C API when both are arithmetic terms of the encoder's context:
        the same term z3py's operators build (Z3 itself lifts an int operand to real
        exactly as z3py does), without z3py's sort look-ups and coercions.
        """
        z = self._z
        if (
            isinstance(a, z3.ArithRef)
            and isinstance(b, z3.ArithRef)
            and a.ctx is z.ctx
            and b.ctx is z.ctx
        ):
            arr = (z3.Ast * 2)(a.ast, b.ast)
            return z3.ArithRef(_ARITH_API[op](z.ref, 2, arr), z.ctx)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        return a * b

    def _arith_run(self, op: str, values: Sequence[Z]) -> Z:
        """``v0 op v1 op ...`` for a run of ``+`` or ``*``, as one flat term.

        Exact arithmetic is associative, so the flat sum is the run's value; for two
        operands it is the very term ``_arith`` builds.
        """
        z = self._z
        if all(isinstance(v, z3.ArithRef) and v.ctx is z.ctx for v in values):
            arr = (z3.Ast * len(values))(*[v.ast for v in values])
            return z3.ArithRef(_ARITH_API[op](z.ref, len(values), arr), z.ctx)
        return z3.Sum(*values) if op == "+" else z3.Product(*values)

    def _order(self, op: str, a: Z, b: Z) -> Z:
        """``a op b`` for ``< <= > >=`` (arithmetic through the C API, as ``_arith``)."""
        z = self._z
        if (
            isinstance(a, z3.ArithRef)
            and isinstance(b, z3.ArithRef)
            and a.ctx is z.ctx
            and b.ctx is z.ctx
        ):
            ta, tb = type(a), type(b)
            if tb is not ta and issubclass(tb, ta):
                # Python tries the right operand's reflected comparison first when its
                # type is a proper subclass (a numeral on the right of a plain term):
                # ``x >= 1`` is built by z3py as ``1 <= x``.  Build the same term.
                return z3.BoolRef(_ORDER_API[_MIRROR[op]](z.ref, b.ast, a.ast), z.ctx)
            return z3.BoolRef(_ORDER_API[op](z.ref, a.ast, b.ast), z.ctx)
        if op == "<":
            return a < b
        if op == "<=":
            return a <= b
        if op == ">":
            return a > b
        return a >= b

    def _with(self, name: str, term: Term, expr: Expr) -> Term:
        saved = self.env.get(name)
        self.env[name] = term
        try:
            return self.visit(expr)
        finally:
            if saved is None:
                del self.env[name]
            else:
                self.env[name] = saved

    def generic_visit(self, node: Expr) -> Term:
        raise Unsupported(f"expressions of kind {node.kind!r} cannot be encoded")
