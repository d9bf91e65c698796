"""Triggers: the conditions over an owner's inputs that the generated tests must hit.

The generated tests must *exercise* every obligation, not just run it: every ``raises``
condition, every ``when``/``implies`` antecedent and each boundary of every comparison
over the inputs must be hit by at least one input (docs/build.md, evidence
sufficiency).  This module finds those conditions in the AST (no solver); ``_boundary``
has Z3 solve them.

Triggers, per obligation of a function or operation (``requires``, ``ensures``,
``raises``), over expressions whose free names are the owner's parameters and
constants (never ``result``, a bound variable or ``count``):

- ``raises E when C``: ``C`` (solved first together with "no other raises condition
  holds", so that the input isolates the clause, then alone);
- every ``A implies B`` (also ``when A, B``): ``A``;
- every comparison link ``a OP b``: for ``int`` and ``date`` operands ``a - b == k`` for
  ``k`` in -1, 0, 1 (the boundary and one step either side); for ``x in LO..HI`` the
  same around ``LO`` and ``HI``; for other operands ``a == b`` (reals, strings, bools,
  enums, lists) and, for ``in``/``not in`` over a list or string, ``a in b``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Literal

from derivative._ast import (
    BinOp,
    BoolOp,
    Compare,
    Count,
    Expr,
    Generator,
    IfExpr,
    IntLit,
    ListComp,
    Obligation,
    Quantifier,
    Range,
    Result,
    Unary,
    disjunction,
    make_binop,
)
from derivative._printer import to_source
from derivative._record import record
from derivative._typecheck import TypeInfo
from derivative._types import TDate, TInt, Ty, base
from derivative._walk import children, free_names, walk

from ._mcdc import LIMIT, atom_targets, quantifier_targets, size_targets

TriggerStatus = Literal["possible", "vacuous", "unknown"]
TriggerKind = Literal["raises", "normal", "antecedent", "boundary", "membership",
                      "condition", "position", "tie", "size"]
COVERAGE_KINDS: frozenset[str] = frozenset({"condition", "position", "tie", "size"})
"""Coverage targets (``_mcdc``): reported, never held against a candidate."""


@record(frozen=False)
class Trigger:
    """A condition over inputs that some input must make true (see the module docstring).

    ``status`` is what the solver found: ``possible`` (with ``input``, a valid input
    hitting it), ``vacuous`` (proved impossible for valid inputs) or ``unknown``.
    """

    id: str
    obligation: str
    kind: TriggerKind
    expr: Expr
    description: str
    status: TriggerStatus = "unknown"
    input: dict[str, object] | None = None
    reason: str | None = None
    context: tuple[Expr, ...] = ()
    """Conditions under which the trigger decides its obligation (solved for first)."""

    @property
    def required(self) -> bool:
        """Whether the tests must hit it (a trigger), or only should (a coverage target)."""
        return self.kind not in COVERAGE_KINDS


def _int(value: int) -> Expr:
    return IntLit(value=value)


def _diff_is(a: Expr, b: Expr, k: int) -> Expr:
    return Compare(ops=("==",), operands=(make_binop("-", (a, b)), _int(k)))


def _over_inputs(expr: Expr, allowed: frozenset[str]) -> bool:
    """Whether ``expr`` is a function of the inputs alone (no result, count, bound var)."""
    for n in walk(expr):
        if isinstance(n, (Result, Count)):
            return False
    return free_names(expr) <= allowed


def find_triggers(
    info: TypeInfo, owner: str, obligations: Sequence[Obligation]
) -> list[Trigger]:
    """Every trigger of the owner's ``requires``/``ensures``/``raises`` obligations.

    Each trigger also carries its *context*: the conditions under which it decides
    its obligation (the other operands of an enclosing ``and`` are true, of an ``or``
    false, the antecedent of an ``implies`` holds, the condition of an ``if`` selects
    its branch), as far as they are over the inputs.  The solver looks for an input
    hitting the trigger in its context first: ``len(name) == 16`` is only worth
    testing where the rest of ``3 <= len(name) <= 16 and matches(name, RE)`` holds.
    """
    sig = info.signatures[owner]
    scope = {n: t for n, t, _ in sig.params}
    allowed = frozenset(scope) | frozenset(info.const_values)
    full_scope: dict[str, Ty] = dict(info.const_types)
    full_scope.update(scope)
    out: list[Trigger] = []
    raises = [o for o in obligations if o.kind == "raises"]
    over = all(_over_inputs(r.expr, allowed) for r in raises)
    normal = normal_condition(raises) if over else None
    for o in obligations:
        if o.kind not in ("requires", "ensures", "raises"):
            continue
        found = _Walk(info, full_scope, allowed, o, out)
        for size in size_targets(scope, free_names(o.expr)):
            found.add("size", size)
        if o.kind == "raises" and _over_inputs(o.expr, allowed):
            found.add("raises", o.expr)
        if o.kind == "ensures" and normal is not None:
            found.add("normal", normal)
        found.visit(o.expr, ())
    return out


class _Walk:
    """The triggers of one obligation, each with its context, appended to ``out``."""

    def __init__(
        self,
        info: TypeInfo,
        scope: Mapping[str, Ty],
        allowed: frozenset[str],
        ob: Obligation,
        out: list[Trigger],
    ) -> None:
        self.info = info
        self.scope = scope
        self.allowed = allowed
        self.ob = ob
        self.out = out
        self.seen: set[str] = set()
        self.coverage = 0

    def add(self, kind: TriggerKind, expr: Expr, context: tuple[Expr, ...] = ()) -> None:
        """A trigger, once per kind and text (numbered in the order found); coverage
        targets up to ``_mcdc.LIMIT`` per obligation."""
        text = to_source(expr)
        key = f"{kind}:{text}"
        if key in self.seen:
            return
        if kind in COVERAGE_KINDS:
            if self.coverage >= LIMIT:
                return
            self.coverage += 1
        self.seen.add(key)
        ctx = tuple(c for c in context if _over_inputs(c, self.allowed))
        o = self.ob
        self.out.append(Trigger(f"{o.id}#{len(self.seen)}", o.id, kind, expr, text, context=ctx))

    def visit(self, n: Expr, ctx: tuple[Expr, ...]) -> None:
        """The triggers in ``n``, where ``ctx`` holds (see ``find_triggers``)."""
        visit = self.visit
        self._coverage(n, ctx)
        if isinstance(n, (Quantifier, Generator)):
            for c in (n.lo, n.hi) if isinstance(n, Quantifier) else (n.iterable,):
                visit(c, ctx)
            return  # the body sees a bound variable
        if isinstance(n, ListComp):
            visit(n.iterable, ctx)
            return  # so do the condition and the item
        if isinstance(n, BoolOp):
            if n.op in ("and", "or"):
                # Each operand decides where the others hold (and) or fail (or).
                for i, operand in enumerate(n.operands):
                    visit(operand, (*ctx, *_siblings(n, i)))
            elif n.op == "implies":
                left, right = n.operands
                if _over_inputs(left, self.allowed):
                    self.add("antecedent", left, ctx)
                visit(left, ctx)
                visit(right, (*ctx, left))
            else:
                for operand in n.operands:
                    visit(operand, ctx)
            return
        if isinstance(n, IfExpr):
            visit(n.cond, ctx)
            visit(n.then, (*ctx, n.cond))
            visit(n.orelse, (*ctx, _not(n.cond)))
            return
        if isinstance(n, Compare):
            for i, op in enumerate(n.ops):
                a, b = n.operands[i], n.operands[i + 1]
                for kind, t in _link_triggers(self.info, self.scope, op, a, b, self.allowed):
                    self.add(kind, t, ctx)
        if isinstance(n, BinOp) and n.op in ("//", "%"):
            for t in _floor_triggers(self.info, self.scope, n, self.allowed):
                self.add("boundary", t, ctx)
        for c in children(n):
            visit(c, ctx)


    def _coverage(self, n: Expr, ctx: tuple[Expr, ...]) -> None:
        """The coverage targets of ``n`` (``_mcdc``), where ``n`` is over the inputs (none
        in a ``requires``: every judged input makes it true, so its other side is no
        target)."""
        if self.ob.kind == "requires" or not _over_inputs(n, self.allowed):
            return
        boundaries = isinstance(n, Compare) and all(
            isinstance(b, Range) or _ordered_pair(self.info, self.scope, a, b)
            for a, b in zip(n.operands, n.operands[1:], strict=False))
        for e in atom_targets(self.info, self.scope, n, boundaries):
            self.add("condition", e, ctx)
        if isinstance(n, (Quantifier, Generator)):
            for kind, e in quantifier_targets(self.info, self.scope, n):
                self.add("position" if kind == "position" else "tie", e, ctx)


def _ordered_pair(info: TypeInfo, scope: Mapping[str, Ty], a: Expr, b: Expr) -> bool:
    """Whether ``a`` and ``b`` get integer boundaries (``_link_triggers``)."""
    ta, tb = _type(info, scope, a), _type(info, scope, b)
    return isinstance(ta, (TInt, TDate)) and type(ta) is type(tb)


SIBLINGS = 16
"""The most other operands of one ``and``/``or`` run a trigger's context takes (the nearest).

The context only orders the search (where a trigger is worth testing first); taking every
other operand of a run of thousands would make the walk quadratic in the run's length.
"""


def _siblings(n: BoolOp, i: int) -> list[Expr]:
    """What holds where operand ``i`` of the run ``n`` decides it: the other operands (of an
    ``and``) or their negations (of an ``or``), the nearest ``SIBLINGS``, in run order."""
    window = range(max(0, i - SIBLINGS), min(len(n.operands), i + SIBLINGS + 1))
    nearest = sorted((j for j in window if j != i), key=lambda j: (abs(j - i), j))[:SIBLINGS]
    chosen = [n.operands[j] for j in sorted(nearest)]
    return chosen if n.op == "and" else [_not(e) for e in chosen]


def _floor_triggers(
    info: TypeInfo, scope: Mapping[str, Ty], n: BinOp, allowed: frozenset[str]
) -> Iterator[Expr]:
    """The edges of ``a // c`` and ``a % c`` (``c`` a positive integer constant): where
    ``a % c`` is 0 and ``c - 1``, the quotient steps."""
    left, right = n.operands
    if not (_over_inputs(left, allowed) and _over_inputs(right, allowed)):
        return
    if free_names(right) - frozenset(info.const_values):
        return
    if not isinstance(_type(info, scope, left), TInt):
        return
    from derivative._eval import evaluate

    c = evaluate(right, {}, info.const_values)
    if not isinstance(c, int) or isinstance(c, bool) or not 1 < c <= 10**9:
        return
    rem = make_binop("%", (left, _int(c)))
    for k in (0, c - 1):
        yield Compare(ops=("==",), operands=(rem, _int(k)))


def _not(e: Expr) -> Expr:
    if isinstance(e, Unary) and e.op == "not":
        return e.operand
    return Unary(op="not", operand=e)


def normal_condition(raises: Sequence[Obligation]) -> Expr | None:
    """``not (C1 or C2 ...)``: no ``raises`` condition holds (None without raises)."""
    if not raises:
        return None
    if len(raises) == 1 and isinstance(raises[0].expr, Unary) and raises[0].expr.op == "not":
        return raises[0].expr.operand
    return Unary(op="not", operand=disjunction([o.expr for o in raises]))


def _type(info: TypeInfo, scope: Mapping[str, Ty], e: Expr) -> Ty | None:
    try:
        return base(info.type_of(e, scope))
    except Exception:  # a sub-expression the checker cannot type alone
        return None


def _link_triggers(
    info: TypeInfo,
    scope: Mapping[str, Ty],
    op: str,
    a: Expr,
    b: Expr,
    allowed: frozenset[str],
) -> Iterator[tuple[TriggerKind, Expr]]:
    if not _over_inputs(a, allowed):
        return
    if isinstance(b, Range):
        if op in ("in", "not in") and _over_inputs(b.lo, allowed) and _over_inputs(
            b.hi, allowed
        ):
            for edge in (b.lo, b.hi):
                for k in (0, -1, 1):
                    yield "boundary", _diff_is(a, edge, k)
        return
    if not _over_inputs(b, allowed):
        return
    if free_names(a) | free_names(b) <= frozenset(info.const_values):
        return  # constants only: nothing an input can change
    ta, tb = _type(info, scope, a), _type(info, scope, b)
    if ta is None or tb is None:
        return
    if op in ("in", "not in"):
        yield "membership", Compare(ops=("in",), operands=(a, b))
        return
    if isinstance(ta, (TInt, TDate)) and type(ta) is type(tb):
        for k in (0, -1, 1):
            yield "boundary", _diff_is(a, b, k)
        return
    yield "boundary", Compare(ops=("==",), operands=(a, b))
