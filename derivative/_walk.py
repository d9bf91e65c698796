"""Dispatch walkers over immutable expression nodes.

A walker subclasses ``ExprVisitor`` and defines ``visit_<kind>`` for each node kind
it handles (``visit_int``, ``visit_binop``, ``visit_compare`` ...).  Dispatch is one
dictionary look-up on the node's ``kind``; there are no ``isinstance`` ladders, and a
missing method fails loudly with the kind's name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, TypeVar

from derivative._ast import (
    BinOp,
    BoolOp,
    Call,
    Compare,
    Count,
    DictLit,
    Expr,
    Generator,
    IfExpr,
    Index,
    ListComp,
    ListLit,
    Quantifier,
    Range,
    Slice,
    TupleLit,
    Unary,
)

R = TypeVar("R")


class ExprVisitor(Generic[R]):
    """Base of walkers: ``visit(node)`` calls ``self.visit_<node.kind>(node)``."""

    def visit(self, node: Expr) -> R:
        method = getattr(self, "visit_" + node.kind, None)
        if method is None:
            return self.generic_visit(node)
        result: R = method(node)
        return result

    def generic_visit(self, node: Expr) -> R:
        raise NotImplementedError(f"{type(self).__name__} has no visit_{node.kind}")


def children(node: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of ``node``, left to right (evaluation order)."""
    k = node.kind
    if k == "list":
        assert isinstance(node, ListLit)
        return node.items
    if k == "tuple":
        assert isinstance(node, TupleLit)
        return node.items
    if k == "dict":
        assert isinstance(node, DictLit)
        return tuple(x for pair in zip(node.keys, node.values, strict=True) for x in pair)
    if k == "unary":
        assert isinstance(node, Unary)
        return (node.operand,)
    if k in ("binop", "boolop"):
        assert isinstance(node, (BinOp, BoolOp))
        return node.operands
    if k == "compare":
        assert isinstance(node, Compare)
        return node.operands
    if k == "range":
        assert isinstance(node, Range)
        return (node.lo, node.hi)
    if k == "if":
        assert isinstance(node, IfExpr)
        return (node.cond, node.then, node.orelse)
    if k == "quant":
        assert isinstance(node, Quantifier)
        return (node.lo, node.hi, node.body)
    if k == "call":
        assert isinstance(node, Call)
        return node.args
    if k == "index":
        assert isinstance(node, Index)
        return (node.base, node.index)
    if k == "gen":
        assert isinstance(node, Generator)
        return (node.iterable, node.body)
    if k == "slice":
        assert isinstance(node, Slice)
        return tuple(b for b in (node.base, node.lo, node.hi) if b is not None)
    if k == "listcomp":
        assert isinstance(node, ListComp)
        if node.cond is None:
            return (node.iterable, node.body)
        return (node.iterable, node.cond, node.body)
    if k == "count":
        assert isinstance(node, Count)
        return () if node.where is None else (node.where,)
    return ()


def walk(node: Expr) -> Iterator[Expr]:
    """Every node of the tree, pre-order."""
    stack: list[Expr] = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(children(n)))


def free_names(node: Expr) -> frozenset[str]:
    """Names used in ``node`` that are not bound by a quantifier or generator inside it."""
    out: set[str] = set()

    def go(n: Expr, bound: frozenset[str]) -> None:
        if n.kind == "name":
            name: Any = n
            if name.id not in bound:
                out.add(name.id)
            return
        if n.kind == "quant":
            assert isinstance(n, Quantifier)
            go(n.lo, bound)
            go(n.hi, bound)
            go(n.body, bound | {n.var})
            return
        if n.kind == "gen":
            assert isinstance(n, Generator)
            go(n.iterable, bound)
            go(n.body, bound | {n.var})
            return
        if n.kind == "listcomp":
            assert isinstance(n, ListComp)
            go(n.iterable, bound)
            for part in (n.cond, n.body):
                if part is not None:
                    go(part, bound | {n.var})
            return
        for c in children(n):
            go(c, bound)

    go(node, frozenset())
    return frozenset(out)
