"""Coverage targets over the contract: conditions both ways, quantifier positions, sizes.

The triggers of ``_triggers`` are what the tests *must* hit (a boundary, a ``raises``
condition); these are what they *should* hit to find a bug, reported as coverage but never
held against a candidate when the solver cannot reach them (``Trigger.required`` is false):

- **conditions** (MC/DC over the contract): every atomic condition over the inputs (a
  comparison that is not an integer boundary, a ``matches``, a quantifier, a Boolean
  parameter) both true and false, each where it decides its clause (the context of
  ``_triggers``: the other operands of an ``and`` true, of an ``or`` false, an antecedent
  holding);
- **positions**: each bounded quantifier ``forall v in LO..HI: B`` decided at its first,
  middle and last position alone (``B`` false there and true everywhere else; for
  ``exists``, true there only), and every comparison of ``B`` tied at those positions with
  the quantifier still true (``l[i] <= l[i + 1]`` with ``l[0] == l[1]``); a
  ``Generator`` over a list parameter likewise at its first, middle and last element;
- **sizes**: each list or string parameter empty, with one element and with two.

Blind round 1 and the HumanEval report: ``monotonic`` that picks the direction from the
first pair passed, because no input had a tie at the first position of the decreasing
branch (``[0, 0, -1]``); here that is the target "tie at the first position of
``forall i: l[i] >= l[i + 1]`` where the increasing clause is false".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

from derivative._ast import (
    BoolOp,
    Call,
    Compare,
    Expr,
    ExprNode,
    Generator,
    Index,
    IntLit,
    ListComp,
    Name,
    Quantifier,
    Unary,
    make_binop,
)
from derivative._typecheck import TypeInfo
from derivative._types import TBool, TDate, TInt, TList, TStr, Ty, base
from derivative._walk import free_names, walk

__all__ = ["LIMIT", "atom_targets", "quantifier_targets", "size_targets", "substitute"]

LIMIT: Final = 32
"""Coverage targets per obligation at most (the nearest the clause's top first): each is one
solver question, and a clause of a large requirement set must not cost hundreds."""


def substitute(expr: Expr, name: str, value: Expr) -> Expr:
    """``expr`` with the free occurrences of ``name`` replaced by ``value`` (the nodes are
    immutable: the changed path is copied, the rest shared)."""
    if isinstance(expr, Name):
        return value if expr.id == name else expr
    if name not in free_names(expr):
        return expr
    update: dict[str, object] = {}
    for field, current in expr:
        if field == "body" and isinstance(expr, (Quantifier, Generator)) and expr.var == name:
            continue  # rebinds the name: the body sees the bound variable
        if field in ("body", "cond") and isinstance(expr, ListComp) and expr.var == name:
            continue
        if isinstance(current, ExprNode):
            update[field] = substitute(current, name, value)  # type: ignore[arg-type]
        elif isinstance(current, tuple) and current and \
                all(isinstance(c, ExprNode) for c in current):
            update[field] = tuple(substitute(c, name, value) for c in current)
    return expr.model_copy(update=update)


def _int(n: int) -> Expr:
    return IntLit(value=n)


def _eq(a: Expr, b: Expr) -> Expr:
    return Compare(ops=("==",), operands=(a, b))


def _not(e: Expr) -> Expr:
    if isinstance(e, Unary) and e.op == "not":
        return e.operand
    return Unary(op="not", operand=e)


def _and(*items: Expr) -> Expr:
    return BoolOp(op="and", operands=tuple(items)) if len(items) > 1 else items[0]


def _or(*items: Expr) -> Expr:
    return BoolOp(op="or", operands=tuple(items))


def atom_targets(info: TypeInfo, scope: Mapping[str, Ty], n: Expr,
                 covered_by_boundaries: bool) -> Iterator[Expr]:
    """``n`` true and ``n`` false, when ``n`` is an atomic condition (see the module
    docstring); a comparison whose every link got integer boundaries has both already."""
    if isinstance(n, (BoolOp,)) or (isinstance(n, Unary) and n.op == "not"):
        return
    if isinstance(n, Compare):
        if covered_by_boundaries:
            return
    elif isinstance(n, (Quantifier, Generator)):
        pass
    elif isinstance(n, (Call, Name, Index)):
        if not isinstance(_type(info, scope, n), TBool):
            return
    else:
        return
    yield n
    yield _not(n)
    if isinstance(n, Quantifier):
        # true over at least two positions: the solver's first answer to ``n`` is the empty
        # range, where every quantifier is trivially true (a palindrome of length 0)
        yield _and(n, _at_least(n.lo, n.hi, 2))


def quantifier_targets(info: TypeInfo, scope: Mapping[str, Ty],
                       q: Quantifier | Generator) -> Iterator[tuple[str, Expr]]:
    """The positions of ``q`` (``("position", e)`` and ``("tie", e)``; module docstring)."""
    if isinstance(q, Quantifier):
        yield from _range_targets(info, scope, q)
    else:
        yield from _generator_targets(info, scope, q)


def _positions(lo: Expr, hi: Expr) -> list[tuple[Expr, int]]:
    """First, middle and last position, each with the fewest positions the range must
    have for it to be distinct from the others (two for an end, three for the middle)."""
    mid = make_binop("+", (lo, make_binop("//", (make_binop("-", (hi, lo)), _int(2)))))
    return [(lo, 2), (mid, 3), (hi, 2)]


def _at_least(lo: Expr, hi: Expr, n: int) -> Expr:
    """``hi - lo >= n - 1``: the range ``lo..hi`` has at least ``n`` positions."""
    return Compare(ops=(">=",), operands=(make_binop("-", (hi, lo)), _int(n - 1)))


def _range_targets(info: TypeInfo, scope: Mapping[str, Ty],
                   q: Quantifier) -> Iterator[tuple[str, Expr]]:
    v, body = q.var, q.body
    inner = {**scope, v: TInt()}
    ties = [c for c in walk(body) if isinstance(c, Compare) and v in free_names(c)
            and _tie_types(info, inner, c)]
    for p, least in _positions(q.lo, q.hi):
        wide = _at_least(q.lo, q.hi, least)
        at_p = substitute(body, v, p)
        elsewhere = Quantifier(quantifier="forall", var=v, lo=q.lo, hi=q.hi,
                               body=_or(_eq(Name(id=v), p),
                                        body if q.quantifier == "forall" else _not(body)))
        decides = _not(at_p) if q.quantifier == "forall" else at_p
        yield "position", _and(decides, elsewhere, wide)
        whole = q if q.quantifier == "forall" else at_p
        for c in ties:
            for a, b in zip(c.operands, c.operands[1:], strict=False):
                if v in free_names(a) | free_names(b):
                    yield "tie", _and(_eq(substitute(a, v, p), substitute(b, v, p)), whole,
                                      wide)


def _generator_targets(info: TypeInfo, scope: Mapping[str, Ty],
                       g: Generator) -> Iterator[tuple[str, Expr]]:
    """``all(B for x in L)`` over a list ``L``: ``B`` decided at ``L``'s first, middle and
    last element alone (as for a quantifier over ``0..len(L) - 1``)."""
    ty = _type(info, scope, g.iterable)
    if not isinstance(ty, TList):
        return
    index = "__position"
    if index in free_names(g.body):
        return
    lo, hi = _int(0), make_binop("-", (Call(func="len", args=(g.iterable,)), _int(1)))
    element = Index(base=g.iterable, index=Name(id=index))
    body = substitute(g.body, g.var, element)
    q = Quantifier(quantifier="forall" if g.func == "all" else "exists", var=index, lo=lo,
                   hi=hi, body=body)
    for kind, e in _range_targets(info, {**scope, g.var: ty.elem}, q):
        if kind == "position":
            yield kind, e


def _tie_types(info: TypeInfo, scope: Mapping[str, Ty], c: Compare) -> bool:
    """Whether every link of ``c`` compares values of one ordered or equatable type."""
    for a, b in zip(c.operands, c.operands[1:], strict=False):
        ta, tb = _type(info, scope, a), _type(info, scope, b)
        if ta is None or tb is None or type(ta) is not type(tb):
            return False
        if not isinstance(ta, (TInt, TDate, TStr)):
            return False
    return True


def size_targets(scope: Mapping[str, Ty], names: frozenset[str]) -> Iterator[Expr]:
    """``len(p) == 0``, ``== 1`` and ``== 2`` for each list or string parameter in ``names``."""
    for p in sorted(names):
        ty = scope.get(p)
        if ty is not None and isinstance(base(ty), (TList, TStr)):
            for k in (0, 1, 2):
                yield _eq(Call(func="len", args=(Name(id=p),)), _int(k))


def _type(info: TypeInfo, scope: Mapping[str, Ty], e: Expr) -> Ty | None:
    try:
        return base(info.type_of(e, scope))
    except Exception:  # a sub-expression the checker cannot type alone
        return None
