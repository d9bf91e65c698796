"""Expressions back to the language's own syntax, with minimal parentheses.

Used wherever a message, a witness or a generated test shows an obligation to a
person: what they read is what they would have written.  The output parses back
to an equal tree (a property test checks ``parse(to_source(e)) == e``).

Binding strength, loosest first, mirrors LANGUAGE.md §4 and the grammar:

====  ==========================================================
1     ``forall``/``exists`` (the body extends as far right as possible)
2     ``iff`` (left-associative)
3     ``implies`` (right-associative)
4     ``if C then A else B``
5     ``or``            6  ``and``            7  ``not``
8     comparisons (chains; ``in``/``not in``)
9     ``+ -``           10 ``* / // %``       11 unary ``-``
12    calls, indexing, ``Enum.member``, literals, names
====  ==========================================================

A quantifier sits where a ``not`` operand may sit, but because its body swallows
everything to its right it needs parentheses unless it is the last thing before
a closing delimiter (``)``, ``]``, ``,``, ``then``, ``else``...).  The parser
never produces negative literals (``-5`` is unary minus applied to ``5``), so a
negative ``IntLit``/``RealLit`` prints as unary minus and reads back as one.
"""

from __future__ import annotations

from derivative._ast import (
    BinOp,
    BoolLit,
    BoolOp,
    Call,
    Compare,
    Count,
    DateLit,
    EnumMember,
    Expr,
    Generator,
    IfExpr,
    Index,
    IntLit,
    ListLit,
    Name,
    Quantifier,
    Range,
    RealLit,
    StrLit,
    Unary,
)

QUANT, IFF, IMPLIES, IF, OR, AND, NOT, CMP, ADD, MUL, UNARY, ATOM = range(1, 13)

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
    k = e.kind
    if k == "int":
        assert isinstance(e, IntLit)
        return _wrap(str(e.value), UNARY if e.value < 0 else ATOM, need)
    if k == "real":
        assert isinstance(e, RealLit)
        return _wrap(e.value, UNARY if e.value.startswith("-") else ATOM, need)
    if k == "str":
        assert isinstance(e, StrLit)
        return quote(e.value)
    if k == "bool":
        assert isinstance(e, BoolLit)
        return "true" if e.value else "false"
    if k == "date":
        assert isinstance(e, DateLit)
        return f"date({quote(e.value)})"
    if k == "enum_member":
        assert isinstance(e, EnumMember)
        return f"{e.enum}.{e.member}"
    if k == "name":
        assert isinstance(e, Name)
        return e.id
    if k == "result":
        return "result"
    if k == "list":
        assert isinstance(e, ListLit)
        return "[" + ", ".join(_show(i, QUANT, True) for i in e.items) + "]"
    if k == "call":
        assert isinstance(e, Call)
        return f"{e.func}(" + ", ".join(_show(a, QUANT, True) for a in e.args) + ")"
    if k == "gen":
        assert isinstance(e, Generator)
        body = _show(e.body, QUANT, True)
        return f"{e.func}({body} for {e.var} in {_show(e.iterable, OR, True)})"
    if k == "count":
        assert isinstance(e, Count)
        inside = e.op
        if e.where is not None:
            inside += " where " + _show(e.where, QUANT, True)
        if e.per is not None:
            inside += f", per {e.per}"
        return f"count({inside})"
    if k == "index":
        assert isinstance(e, Index)
        return f"{_show(e.base, ATOM, False)}[{_show(e.index, QUANT, True)}]"
    if k == "unary":
        assert isinstance(e, Unary)
        if e.op == "-":
            return _wrap("-" + _show(e.operand, UNARY, tail), UNARY, need)
        return _wrap("not " + _show(e.operand, NOT, tail or need > NOT), NOT, need)
    if k == "binop":
        assert isinstance(e, BinOp)
        level = _BINOP_LEVEL[e.op]
        inner_tail = tail if level >= need else True
        text = (
            f"{_show(e.left, level, False)} {e.op} {_show(e.right, level + 1, inner_tail)}"
        )
        return _wrap(text, level, need)
    if k == "boolop":
        assert isinstance(e, BoolOp)
        return _show_boolop(e, need, tail)
    if k == "compare":
        assert isinstance(e, Compare)
        inner_tail = tail if need <= CMP else True
        parts = [_show(e.operands[0], ADD, False)]
        last = len(e.ops) - 1
        for i, (op, rhs) in enumerate(zip(e.ops, e.operands[1:], strict=True)):
            parts.append(op)
            parts.append(_show(rhs, ADD, inner_tail and i == last))
        return _wrap(" ".join(parts), CMP, need)
    if k == "range":
        assert isinstance(e, Range)
        return f"{_show(e.lo, ADD, False)}..{_show(e.hi, ADD, False)}"
    if k == "if":
        assert isinstance(e, IfExpr)
        inner_tail = tail if need <= IF else True
        text = (
            f"if {_show(e.cond, QUANT, True)} then {_show(e.then, QUANT, True)} "
            f"else {_show(e.orelse, IF, inner_tail)}"
        )
        return _wrap(text, IF, need)
    if k == "quant":
        assert isinstance(e, Quantifier)
        free = need <= NOT and tail
        text = (
            f"{e.quantifier} {e.var} in {_show(e.lo, ADD, False)}..{_show(e.hi, ADD, False)}: "
            f"{_show(e.body, QUANT, True)}"
        )
        return text if free else f"({text})"
    raise ValueError(f"cannot print a node of kind {k!r}")


def _show_boolop(e: BoolOp, need: int, tail: bool) -> str:
    op = e.op
    if op == "and":
        level, left, right = AND, AND, NOT
    elif op == "or":
        level, left, right = OR, OR, AND
    elif op == "implies":
        level, left, right = IMPLIES, IF, IMPLIES
    else:  # iff
        level, left, right = IFF, IFF, IMPLIES
    inner_tail = tail if level >= need else True
    text = f"{_show(e.left, left, False)} {op} {_show(e.right, right, inner_tail)}"
    return _wrap(text, level, need)
