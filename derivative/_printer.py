"""Expressions back to the language's own syntax, with minimal parentheses.

Used wherever a message, a witness or a generated test shows an obligation to a
person: what they read is what they would have written.  The output parses back
to an equal tree (a property test checks ``parse(to_source(e)) == e``).

Binding strength, loosest first, mirrors docs/language.md §7 and the grammar:

====  ==========================================================
1     ``forall``/``exists`` (the body extends as far right as possible)
2     ``iff`` (left-associative)
3     ``implies`` (right-associative)
4     ``if C then A else B``
5     ``or``            6  ``and``            7  ``not``
8     comparisons (chains; ``in``/``not in``)
9     ``+ -``           10 ``* / // %``       11 unary ``-``
12    ``**`` (right-associative: its left operand binds at 13, its right one at 11,
      so ``-a ** -b`` is ``-(a ** (-b))`` as in Python)
13    calls, indexing, ``Enum.member``, literals, names
====  ==========================================================

A quantifier sits where a ``not`` operand may sit, but because its body swallows
everything to its right it needs parentheses unless it is the last thing before
a closing delimiter (``)``, ``]``, ``,``, ``then``, ``else``...).  The parser
never produces negative literals (``-5`` is unary minus applied to ``5``), so a
negative ``IntLit``/``RealLit`` prints as unary minus and reads back as one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

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
    IntLit,
    ListComp,
    Quantifier,
    RealLit,
    Slice,
    TupleLit,
    Unary,
)

QUANT, IFF, IMPLIES, IF, OR, AND, NOT, CMP, ADD, MUL, UNARY, POW, ATOM = range(1, 14)

_BINOP_LEVEL = {"+": ADD, "-": ADD, "*": MUL, "/": MUL, "//": MUL, "%": MUL}

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote(value: str) -> str:
    """A double-quoted string literal that decodes back to ``value``."""
    out = ['"']
    for ch in value:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch.isprintable():
            out.append(ch)
        else:
            cp = ord(ch)
            out.append(f"\\x{cp:02x}" if cp < 0x100 else
                       f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}")
    out.append('"')
    return "".join(out)


def to_source(expr: Expr) -> str:
    """``expr`` in the language's syntax, with only the parentheses it needs."""
    return _show(expr, QUANT, True)


def _wrap(text: str, level: int, need: int) -> str:
    return f"({text})" if level < need else text


def _show(e: Expr, need: int, tail: bool) -> str:
    """Text of ``e`` placed where binding strength ``need`` is required.

    ``tail`` says whether ``e`` is followed only by a closing delimiter, which
    decides whether a quantifier may go without parentheses.
    """
    printer = _PRINTERS.get(e.kind)
    if printer is None:
        raise ValueError(f"cannot print a node of kind {e.kind!r}")
    return printer(e, need, tail)


def _show_int(e: IntLit, need: int, tail: bool) -> str:
    return _wrap(str(e.value), UNARY if e.value < 0 else ATOM, need)


def _show_real(e: RealLit, need: int, tail: bool) -> str:
    return _wrap(e.value, UNARY if e.value.startswith("-") else ATOM, need)


def _show_call(e: Call, need: int, tail: bool) -> str:
    return f"{e.func}(" + ", ".join(_show(a, QUANT, True) for a in e.args) + ")"


def _show_gen(e: Generator, need: int, tail: bool) -> str:
    body = _show(e.body, QUANT, True)
    return f"{e.func}({body} for {e.var} in {_show(e.iterable, OR, True)})"


def _show_slice(e: Slice, need: int, tail: bool) -> str:
    lo = "" if e.lo is None else _show(e.lo, ADD, False)
    hi = "" if e.hi is None else _show(e.hi, ADD, False)
    return f"{_show(e.base, ATOM, False)}[{lo}:{hi}]"


def _show_listcomp(e: ListComp, need: int, tail: bool) -> str:
    body = _show(e.body, QUANT, True)
    text = f"[{body} for {e.var} in {_show(e.iterable, OR, e.cond is None)}"
    if e.cond is not None:
        text += f" if {_show(e.cond, OR, True)}"
    return text + "]"


def _show_count(e: Count, need: int, tail: bool) -> str:
    inside = e.op
    if e.where is not None:
        inside += " where " + _show(e.where, QUANT, True)
    if e.per is not None:
        inside += f", per {e.per}"
    return f"count({inside})"


def _show_unary(e: Unary, need: int, tail: bool) -> str:
    if e.op == "-":
        return _wrap("-" + _show(e.operand, UNARY, tail), UNARY, need)
    return _wrap("not " + _show(e.operand, NOT, tail or need > NOT), NOT, need)


def _show_binop(e: BinOp, need: int, tail: bool) -> str:
    """``a op b op c``: the first operand binds at the operator's level (``a - b + c`` reads
    back as ``(a - b) + c``), every later one tighter (``a + (b + c)`` keeps its brackets)."""
    if e.op == "**":
        base, exponent = e.operands
        text = f"{_show(base, ATOM, False)} ** {_show(exponent, UNARY, tail or need > POW)}"
        return _wrap(text, POW, need)
    level = _BINOP_LEVEL[e.op]
    inner_tail = tail if level >= need else True
    parts = [_show(e.operands[0], level, False)]
    last = len(e.operands) - 1
    for i, operand in enumerate(e.operands[1:], start=1):
        parts.append(_show(operand, level + 1, inner_tail and i == last))
    return _wrap(f" {e.op} ".join(parts), level, need)


def _show_compare(e: Compare, need: int, tail: bool) -> str:
    inner_tail = tail if need <= CMP else True
    parts = [_show(e.operands[0], ADD, False)]
    last = len(e.ops) - 1
    for i, (op, rhs) in enumerate(zip(e.ops, e.operands[1:], strict=True)):
        parts.append(op)
        parts.append(_show(rhs, ADD, inner_tail and i == last))
    return _wrap(" ".join(parts), CMP, need)


def _show_if(e: IfExpr, need: int, tail: bool) -> str:
    inner_tail = tail if need <= IF else True
    text = (
        f"if {_show(e.cond, QUANT, True)} then {_show(e.then, QUANT, True)} "
        f"else {_show(e.orelse, IF, inner_tail)}"
    )
    return _wrap(text, IF, need)


def _show_quant(e: Quantifier, need: int, tail: bool) -> str:
    free = need <= NOT and tail
    text = (
        f"{e.quantifier} {e.var} in {_show(e.lo, ADD, False)}..{_show(e.hi, ADD, False)}: "
        f"{_show(e.body, QUANT, True)}"
    )
    return text if free else f"({text})"


def _show_boolop(e: BoolOp, need: int, tail: bool) -> str:
    """``and``/``or`` runs print every operand one level tighter (a nested run of the same
    operator keeps its brackets, though the parser would splice it in again);
    ``implies`` binds its right side looser, ``iff`` its left."""
    op = e.op
    if op == "and":
        level, first, rest = AND, NOT, NOT
    elif op == "or":
        level, first, rest = OR, AND, AND
    elif op == "implies":
        level, first, rest = IMPLIES, IF, IMPLIES
    else:  # iff
        level, first, rest = IFF, IFF, IMPLIES
    inner_tail = tail if level >= need else True
    parts = [_show(e.operands[0], first, False)]
    last = len(e.operands) - 1
    for i, operand in enumerate(e.operands[1:], start=1):
        parts.append(_show(operand, rest, inner_tail and i == last))
    return _wrap(f" {op} ".join(parts), level, need)


def _show_tuple(e: TupleLit, need: int, tail: bool) -> str:
    items = [_show(i, QUANT, True) for i in e.items]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _show_dict(e: DictLit, need: int, tail: bool) -> str:
    entries = (
        f"{_show(k, QUANT, False)}: {_show(v, QUANT, True)}"
        for k, v in zip(e.keys, e.values, strict=True)
    )
    return "{" + ", ".join(entries) + "}"


_PRINTERS: Final[dict[str, Callable[[Any, int, bool], str]]] = {
    "int": _show_int,
    "real": _show_real,
    "str": lambda e, need, tail: quote(e.value),
    "bool": lambda e, need, tail: "true" if e.value else "false",
    "date": lambda e, need, tail: f"date({quote(e.value)})",
    "enum_member": lambda e, need, tail: f"{e.enum}.{e.member}",
    "name": lambda e, need, tail: str(e.id),
    "result": lambda e, need, tail: "result",
    "list": lambda e, need, tail: "[" + ", ".join(_show(i, QUANT, True) for i in e.items) + "]",
    "tuple": _show_tuple,
    "none": lambda e, need, tail: "none",
    "dict": _show_dict,
    "call": _show_call,
    "gen": _show_gen,
    "count": _show_count,
    "index": lambda e, need, tail: (
        f"{_show(e.base, ATOM, False)}[{_show(e.index, QUANT, True)}]"
    ),
    "unary": _show_unary,
    "binop": _show_binop,
    "boolop": _show_boolop,
    "compare": _show_compare,
    "range": lambda e, need, tail: f"{_show(e.lo, ADD, False)}..{_show(e.hi, ADD, False)}",
    "if": _show_if,
    "quant": _show_quant,
    "slice": _show_slice,
    "listcomp": _show_listcomp,
}
"""One printer per node kind (``tests/unit/test_readings.py`` holds it complete)."""
