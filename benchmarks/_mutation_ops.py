"""The mutation operators of ``benchmarks/mutation.py``: where a module can be changed, and
the change.

A *site* is one node of the module's tree (numbered in ``ast.walk`` order, which is fixed
for a given text) and one change to it.  ``sites(source)`` lists them; ``mutate(source, n)``
parses the text again, applies the ``n``-th change and unparses it.  The operators:

- ``cmp``: ``<``↔``<=``, ``>``↔``>=``, ``==``↔``!=``, ``in``↔``not in``, ``is``↔``is not``;
- ``swap``: the operands of an ordering comparison (``a < b`` → ``b < a``) and of a
  non-commutative arithmetic operator (``-``, ``/``, ``//``, ``%``, ``**``, shifts; ``+``
  only where one side is a string or list display, i.e. a concatenation);
- ``binop``: ``+``↔``-``, ``*``→``//``, ``//``→``/``, ``/``→``//``, ``%``→``//``;
- ``bool``: ``and``↔``or``; ``not``: ``not x`` → ``x``; ``neg``: ``-x`` → ``x``;
- ``const``: integer constants ±1;
- ``if-body``/``else``: a branch dropped (its body becomes ``pass``; an ``else`` removed);
- ``raise``: ``raise X`` becomes ``pass``;
- ``call``: a string-normalising call dropped (``x.lower()`` → ``x``; ``upper``,
  ``casefold``, ``strip``, ``lstrip``, ``rstrip``, ``title``, ``capitalize``, ``swapcase``);
- ``return``: an early return at the start of a function (``return <its first return's
  value>`` and ``return None``) and the function's last statement dropped;
- ``slice``: a bound or the step of a slice dropped (``[1:]`` → ``[:]``, ``[::-1]`` →
  ``[:]``), a bound that is not a constant ±1 (constants are ``const`` sites);
- ``index``: a subscript's index that is not a constant ±1 (``x[i]`` → ``x[i + 1]``).

Annotations are never mutated (``list[int]`` is a subscript too).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from dataclasses import dataclass

COMPARE_SWAPS: dict[type[ast.cmpop], list[type[ast.cmpop]]] = {
    ast.Lt: [ast.LtE], ast.LtE: [ast.Lt], ast.Gt: [ast.GtE], ast.GtE: [ast.Gt],
    ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq], ast.In: [ast.NotIn], ast.NotIn: [ast.In],
    ast.Is: [ast.IsNot], ast.IsNot: [ast.Is],
}
"""Boundary flips and negations (``<`` → ``>`` is ``swap``'s ``b < a``, not repeated here)."""
ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
BINOP_SWAPS: dict[type[ast.operator], list[type[ast.operator]]] = {
    ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.FloorDiv],
    ast.FloorDiv: [ast.Div], ast.Div: [ast.FloorDiv], ast.Mod: [ast.FloorDiv],
}
NON_COMMUTATIVE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift)
NORMALISING = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip", "title",
                         "capitalize", "swapcase"})
_DISPLAYS = (ast.List, ast.ListComp, ast.JoinedStr, ast.Tuple)


@dataclass(frozen=True)
class Site:
    """One change: the node's number in ``ast.walk`` order, the change's words and line."""

    node: int
    change: str
    line: int


def _annotation_nodes(tree: ast.AST) -> set[int]:
    """``id`` of every node inside an annotation (never mutated)."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
            roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
    return {id(n) for r in roots for n in ast.walk(r)}


def _is_concat(node: ast.BinOp) -> bool:
    def textual(n: ast.expr) -> bool:
        return isinstance(n, _DISPLAYS) or (isinstance(n, ast.Constant)
                                            and isinstance(n.value, str))
    return textual(node.left) or textual(node.right)


def _own_returns(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The function's own ``return`` statements (not those of nested functions), in order."""
    out: list[ast.Return] = []
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.Return):
            out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            todo[:0] = list(ast.iter_child_nodes(node))
    out.sort(key=lambda r: (r.lineno, r.col_offset))
    return out


def _body_start(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    first = fn.body[0]
    doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
        and isinstance(first.value.value, str)
    return 1 if doc else 0


def _changes(node: ast.AST) -> list[str]:
    """Every change of one node, in words (what ``_apply`` reads back)."""
    out: list[str] = []
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            out += [f"cmp[{i}] {type(op).__name__}->{new.__name__}"
                    for new in COMPARE_SWAPS.get(type(op), [])]
        if len(node.ops) == 1 and isinstance(node.ops[0], ORDERING):
            out.append("swap compare operands")
    elif isinstance(node, ast.BinOp):
        out += [f"binop {type(node.op).__name__}->{new.__name__}"
                for new in BINOP_SWAPS.get(type(node.op), [])]
        if isinstance(node.op, NON_COMMUTATIVE) or (isinstance(node.op, ast.Add)
                                                    and _is_concat(node)):
            out.append(f"swap {type(node.op).__name__} operands")
    elif isinstance(node, ast.BoolOp):
        out.append("bool And->Or" if isinstance(node.op, ast.And) else "bool Or->And")
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        out.append("not removed" if isinstance(node.op, ast.Not) else "neg removed")
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        out += [f"const {node.value}->{node.value + 1}", f"const {node.value}->{node.value - 1}"]
    elif isinstance(node, ast.If):
        out.append("if-body dropped")
        if node.orelse:
            out.append("else dropped")
    elif isinstance(node, ast.Raise):
        out.append("raise dropped")
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in NORMALISING and not node.keywords:
        out.append(f"call .{node.func.attr}() dropped")
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        out += _function_changes(node)
    elif isinstance(node, ast.Slice):
        out += _slice_changes(node)
    elif isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Slice, ast.Tuple)) \
            and not isinstance(node.slice, ast.Constant):
        out += ["index +1", "index -1"]
    return out


def _function_changes(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    out: list[str] = []
    start = _body_start(fn)
    valued = [r for r in _own_returns(fn) if r.value is not None]
    # a body that starts with its first return would only repeat it
    if valued and start < len(fn.body) and fn.body[start] is not valued[0]:
        out.append("return first value early")
    if start < len(fn.body):
        out.append("return None early")
    if len(fn.body) - start > 1:
        out.append("last statement dropped")
    return out


def _slice_changes(node: ast.Slice) -> list[str]:
    out: list[str] = []
    for part in ("lower", "upper", "step"):
        bound = getattr(node, part)
        if bound is None:
            continue
        out.append(f"slice {part} dropped")
        if part != "step" and not isinstance(bound, ast.Constant):
            out += [f"slice {part} +1", f"slice {part} -1"]
    return out


def sites(source: str) -> list[Site]:
    """Every change of ``source``, in a fixed order."""
    tree = ast.parse(source)
    skip = _annotation_nodes(tree)
    out: list[Site] = []
    for n, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", 0)
        out += [Site(n, change, line) for change in _changes(node)]
    return out


def _shifted(expr: ast.expr, by: int) -> ast.expr:
    op: ast.operator = ast.Add() if by > 0 else ast.Sub()
    return ast.BinOp(left=expr, op=op, right=ast.Constant(abs(by)))


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, list) and old in value:
                value[value.index(old)] = new
                return
            if value is old:
                setattr(parent, field, new)
                return


def _apply_function(tree: ast.AST, node: ast.AST, change: str) -> None:
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    start = _body_start(node)
    if change == "last statement dropped":
        node.body.pop()
        return
    value = None
    if change == "return first value early":
        first = next(r for r in _own_returns(node) if r.value is not None)
        value = copy.deepcopy(first.value)
    node.body.insert(start, ast.Return(value=value))


def _apply_expr(tree: ast.AST, node: ast.AST, change: str) -> None:
    if change.startswith("cmp["):
        assert isinstance(node, ast.Compare)
        node.ops[int(change[4:change.index("]")])] = getattr(ast, change.split("->")[1])()
    elif change == "swap compare operands":
        assert isinstance(node, ast.Compare)
        node.left, node.comparators[0] = node.comparators[0], node.left
    elif change.startswith("swap "):
        assert isinstance(node, ast.BinOp)
        node.left, node.right = node.right, node.left
    elif change.startswith("binop"):
        assert isinstance(node, ast.BinOp)
        node.op = getattr(ast, change.split("->")[1])()
    elif change.startswith("bool"):
        assert isinstance(node, ast.BoolOp)
        node.op = ast.Or() if change.endswith("Or") else ast.And()
    elif change in ("not removed", "neg removed"):
        assert isinstance(node, ast.UnaryOp)
        _replace(tree, node, node.operand)
    elif change.startswith("const"):
        assert isinstance(node, ast.Constant)
        node.value = int(change.split("->")[1])
    elif change.startswith("call ."):
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        _replace(tree, node, node.func.value)
    else:
        raise ValueError(change)


def _apply_other(tree: ast.AST, node: ast.AST, change: str) -> None:
    if change == "if-body dropped":
        assert isinstance(node, ast.If)
        node.body = [ast.Pass()]
    elif change == "else dropped":
        assert isinstance(node, ast.If)
        node.orelse = []
    elif change == "raise dropped":
        _replace(tree, node, ast.copy_location(ast.Pass(), node))
    elif change.startswith("slice "):
        assert isinstance(node, ast.Slice)
        _, part, what = change.split()
        bound = getattr(node, part)
        setattr(node, part, None if what == "dropped" else _shifted(bound, int(what)))
    elif change.startswith("index "):
        assert isinstance(node, ast.Subscript)
        node.slice = _shifted(node.slice, int(change.split()[1]))
    else:
        _apply_expr(tree, node, change)


APPLY: dict[str, Callable[[ast.AST, ast.AST, str], None]] = {
    "return first value early": _apply_function,
    "return None early": _apply_function,
    "last statement dropped": _apply_function,
}


def mutate(source: str, site: Site) -> str:
    """``source`` with ``site``'s change made (the text of the mutant)."""
    tree = ast.parse(source)
    node = list(ast.walk(tree))[site.node]
    APPLY.get(site.change, _apply_other)(tree, node, site.change)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def kind(change: str) -> str:
    """The operator a change belongs to (the report's rows)."""
    head = change.split()[0]
    if head.startswith("cmp["):
        return "cmp"
    if change.startswith("return") or change == "last statement dropped":
        return "return"
    return {"if-body": "branch", "else": "branch", "raise": "raise"}.get(head, head)


__all__ = ["Site", "kind", "mutate", "sites"]
