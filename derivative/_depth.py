"""How deeply an expression or a written type nests, and the limit every reading relies on.

Every reading of an expression (the type checker, the evaluator, the printer, the Z3 and
SMT-LIB encodings, the generated Python, the JSON of the contract) walks it by recursion,
one or a few Python calls per level, and the generated Python must also compile, which
Python refuses past 200 nested brackets.  So the depth of what a spec may write is
bounded once, right after parsing (``grammar``), with a located error, and every reading
can then recurse without care.  Length is not depth: a run of ``+``, ``*``, ``and`` or
``or`` is one node however many operands it has (``_ast.BinOp``, ``_ast.BoolOp``).

The walk here keeps its own stack, so measuring a hostile input (10,000 nested ``not``)
costs time linear in its size and no recursion.
"""

from __future__ import annotations

from typing import Final

from derivative._ast import (
    DictType,
    Expr,
    IntType,
    ListType,
    OptionalType,
    TupleType,
    TypeRef,
)
from derivative._walk import children

MAX_DEPTH: Final = 100
"""The deepest nesting of expression nodes (a leaf alone is depth 1), and of list types.

Realistic conditions nest a dozen levels; 100 leaves each reading room to spare: at most
two brackets per level in the generated Python (whose compiler stops at 200), and a few
Python calls per level in every recursive walker, well within Python's default recursion
limit of 1,000 with a caller's frames on top.  ``tests/unit/test_depth.py`` runs every
command on expressions of exactly this depth, of every node kind.
"""


def too_deep(expr: Expr, limit: int = MAX_DEPTH) -> Expr | None:
    """The first node (in reading order) that lies deeper than ``limit``, or None."""
    stack: list[tuple[Expr, int]] = [(expr, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return node
        below = children(node)
        stack.extend((c, depth + 1) for c in reversed(below))
    return None


def depth(expr: Expr) -> int:
    """How many nodes the longest path from ``expr`` down to a leaf has (a leaf: 1)."""
    deepest = 0
    stack: list[tuple[Expr, int]] = [(expr, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((c, level + 1) for c in children(node))
    return deepest


def type_too_deep(ty: TypeRef, limit: int = MAX_DEPTH) -> TypeRef | Expr | None:
    """The first written type nested deeper than ``limit`` in ``ty`` (list, tuple, optional
    and dict types each add a level), or a too-deep range bound."""
    stack: list[tuple[TypeRef, int]] = [(ty, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return node
        if isinstance(node, ListType | OptionalType):
            stack.append((node.elem, depth + 1))
        elif isinstance(node, TupleType):
            stack.extend((t, depth + 1) for t in reversed(node.items))
        elif isinstance(node, DictType):
            stack.extend(((node.value, depth + 1), (node.key, depth + 1)))
        elif isinstance(node, IntType):
            for bound in (node.lo, node.hi):
                if bound is not None:
                    found = too_deep(bound, limit)
                    if found is not None:
                        return found
    return None
