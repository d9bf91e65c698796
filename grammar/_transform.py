"""Parser callbacks: grammar rules straight to the frozen nodes of ``derivative._ast``.

The transformer is handed to the Lark constructor, so the LALR parser calls these
methods on every reduction and no intermediate parse tree is ever built.  Each
method receives the rule's children (tokens and already-built nodes) and takes
its position from the first token or node, so ``propagate_positions`` is not
needed either.

Structured English is desugared here (docs/language.md §8), so it never reaches the
model.  Obligations leave this module as ``Clause`` records: their owner is only
known when the enclosing function or system is reduced, and their identifiers
only when the whole requirement set is assembled (``_loader``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from derivative._ast import (
    BindDecl,
    BinOp,
    BoolLit,
    BoolOp,
    BoolType,
    Call,
    Compare,
    ConstDecl,
    Count,
    DateLit,
    DateType,
    DictLit,
    DictType,
    EnumDecl,
    EnumMember,
    ExceptionDecl,
    FunctionDecl,
    Generator,
    IfExpr,
    Index,
    IntLit,
    IntType,
    ListComp,
    ListLit,
    ListType,
    Name,
    NamedType,
    NoneLit,
    NoneType_,
    OperationDecl,
    OptionalType,
    ParamDecl,
    Parameter,
    Quantifier,
    Range,
    RealLit,
    RealType,
    Result,
    Slice,
    StrLit,
    StrType,
    SystemDecl,
    TupleLit,
    TupleType,
    TypeNode,
    Unary,
    make_binop,
    make_boolop,
)

from ._lexer import LexError, Tok
from ._literals import (
    LiteralError,
    check_date,
    decode_string,
    normalise_decimal,
    normalise_tolerance,
)

_BIND_TARGET = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*"
)


@dataclass(slots=True)
class Label:
    """An obligation's optional identifier, tags and quoted text."""

    ident: Tok | None = None
    tags: dict[str, str] = field(default_factory=dict)
    text: str | None = None


@dataclass(slots=True)
class Clause:
    """An obligation before its owner and identifier are final."""

    kind: str
    expr: Any
    label: Label
    line: int
    column: int
    owner: str | None = None
    exception: str | None = None
    file: str = ""


@dataclass(slots=True)
class Header:
    name: str
    version: int
    description: str | None
    line: int
    column: int


@dataclass(slots=True)
class UseLine:
    path: str
    line: int
    column: int


@dataclass(slots=True)
class ToleranceLine:
    value: str
    line: int
    column: int


@dataclass(slots=True)
class ParsedFile:
    """Everything one file says, in source order."""

    file: str
    header: Header
    uses: list[UseLine]
    tolerance: ToleranceLine | None
    declarations: list[Any]
    clauses: list[Clause]


@dataclass(slots=True)
class _OperationParts:
    name: Tok
    params: tuple[Parameter, ...]
    returns: Any
    clauses: list[Clause]


def _err(message: str, tok: Any, hint: str | None = None) -> LexError:
    return LexError(message, tok.line, getattr(tok, "column", None) or tok.col, hint)


def _string(tok: Tok) -> str:
    try:
        return decode_string(tok.value)
    except LiteralError as exc:
        raise LexError(exc.message, tok.line, tok.column + exc.offset, exc.hint) from None


_SCALARS = {
    "int": IntType,
    "bool": BoolType,
    "real": RealType,
    "str": StrType,
    "date": DateType,
}


def _arity(name: str, n: int, args: list[Any], tok: Tok, shape: str) -> None:
    if len(args) != n:
        raise _err(
            f"`{name}` takes {n} type argument{'s' if n > 1 else ''} ({len(args)} given)",
            tok,
            f"write {shape}",
        )


def _list_type(args: list[Any], tok: Tok) -> ListType:
    _arity("list", 1, args, tok, "list[int]")
    return ListType(elem=args[0], line=tok.line, col=tok.column)


def _tuple_type(args: list[Any], tok: Tok) -> TupleType:
    return TupleType(items=tuple(args), line=tok.line, col=tok.column)


def _optional_type(args: list[Any], tok: Tok) -> OptionalType:
    _arity("optional", 1, args, tok, "optional[int]")
    return OptionalType(elem=args[0], line=tok.line, col=tok.column)


def _dict_type(args: list[Any], tok: Tok) -> DictType:
    _arity("dict", 2, args, tok, "dict[str, int]")
    return DictType(key=args[0], value=args[1], line=tok.line, col=tok.column)


_GENERICS: dict[str, Any] = {
    "list": _list_type,
    "tuple": _tuple_type,
    "optional": _optional_type,
    "dict": _dict_type,
}
"""The generic types by name: each checks its number of type arguments."""


class SpecTransformer:
    """Callbacks named after the grammar's rules and aliases (see requirements.lark).

    ``file`` is set by the front end before each parse (under its lock).
    """

    def __init__(self) -> None:
        self.file = "<string>"

    # ------------------------------------------------------------ file structure

    def start(self, c: list[Any]) -> ParsedFile:
        header: Header = c[0]
        uses: list[UseLine] = []
        tolerance: ToleranceLine | None = None
        decls: list[Any] = []
        clauses: list[Clause] = []
        for item in c[1] + c[2]:
            t = type(item)
            if t is Clause:
                clauses.append(item)
            elif t is tuple:
                decls.append(item[0])
                clauses.extend(item[1])
            elif t is UseLine:
                uses.append(item)
            elif t is ToleranceLine:
                if tolerance is not None:
                    raise LexError(
                        f"tolerance is set twice (first at line {tolerance.line})",
                        item.line,
                        item.column,
                    )
                tolerance = item
            else:
                decls.append(item)
        file = self.file
        for cl in clauses:
            cl.file = file
        return ParsedFile(file, header, uses, tolerance, decls, clauses)

    def preambles(self, c: list[Any]) -> list[Any]:
        if not c:
            return []
        items: list[Any] = c[0]
        items.append(c[1])
        return items

    declarations = preambles

    def header(self, c: list[Any]) -> Header:
        version = c[3]
        value = int(version.value.replace("_", ""))
        if value < 1:
            raise _err("the version must be a positive integer", version)
        description = _string(c[5]) if len(c) > 5 else None
        return Header(c[1].value, value, description, c[1].line, c[1].column)

    def use_line(self, c: list[Any]) -> UseLine:
        path = _string(c[1])
        if not path:
            raise _err("`use` needs a file name", c[1])
        return UseLine(path, c[1].line, c[1].column)

    def tolerance_line(self, c: list[Any]) -> ToleranceLine:
        tok = c[1]
        value = normalise_tolerance(tok.value)
        if value is None:
            raise _err("the tolerance must be a positive number", tok)
        return ToleranceLine(value, c[0].line, c[0].column)

    # ------------------------------------------------------------ declarations

    def enum_decl(self, c: list[Any]) -> EnumDecl:
        name = c[1]
        # A set for the duplicate test: a list looked up once per member made a
        # 100,000-member enum quadratic (tests/unit/test_parse_scale.py).
        members: list[str] = []
        seen: set[str] = set()
        for tok in c[3:]:
            if tok.type == "NAME":
                if tok.value in seen:
                    raise _err(f"enum member {tok.value!r} is listed twice", tok)
                seen.add(tok.value)
                members.append(tok.value)
        return EnumDecl(
            name=name.value,
            members=tuple(members),
            file=self.file,
            line=name.line,
            column=name.column,
        )

    def exception_decl(self, c: list[Any]) -> ExceptionDecl:
        name = c[1]
        base = c[3].value if len(c) > 3 else "Exception"
        return ExceptionDecl(
            name=name.value, base=base, file=self.file, line=name.line, column=name.column
        )

    def const_decl(self, c: list[Any]) -> ConstDecl:
        name = c[1]
        return ConstDecl(
            name=name.value,
            type=c[3],
            value=c[5],
            file=self.file,
            line=name.line,
            column=name.column,
        )

    def param_decl(self, c: list[Any]) -> ParamDecl:
        name = c[1]
        return ParamDecl(
            name=name.value, type=c[3], file=self.file, line=name.line, column=name.column
        )

    def bind_decl(self, c: list[Any]) -> BindDecl:
        name = c[1]
        target = _string(c[3])
        if not _BIND_TARGET.fullmatch(target):
            raise _err(
                f"bind target {target!r} is not of the form \"module:attribute\"",
                c[3],
                'write e.g. bind is_strong to "accounts.rules:strong"',
            )
        return BindDecl(
            name=name.value, target=target, file=self.file, line=name.line, column=name.column
        )

    # ------------------------------------------------------------ obligations

    def label(self, c: list[Any]) -> Label:
        lab = Label()
        for item in c:
            if type(item) is dict:
                lab.tags = item
            elif item.type == "NAME":
                lab.ident = item
            else:
                lab.text = _string(item)
        return lab

    def tags(self, c: list[Any]) -> dict[str, str]:
        out: dict[str, str] = {}
        for item in c:
            if type(item) is tuple:
                key, value, tok = item
                if key in out:
                    raise _err(f"tag {key!r} is given twice", tok)
                out[key] = value
        return out

    def tag(self, c: list[Any]) -> tuple[str, str, Tok]:
        value = c[2]
        text = _string(value) if value.type == "STRING" else value.value
        return (c[0].value, text, c[0])

    def requirement(self, c: list[Any]) -> Clause:
        kw = c[0]
        return Clause("requirement", c[3], c[1], kw.line, kw.column)

    def requires_clause(self, c: list[Any]) -> Clause:
        kw = c[0]
        return Clause("requires", c[3], c[1], kw.line, kw.column)

    def ensures_clause(self, c: list[Any]) -> Clause:
        kw = c[0]
        return Clause("ensures", c[3], c[1], kw.line, kw.column)

    def raises_clause(self, c: list[Any]) -> Clause:
        kw = c[0]
        return Clause("raises", c[4], c[2], kw.line, kw.column, exception=c[1].value)

    def example_clause(self, c: list[Any]) -> Clause:
        kw = c[0]
        expr = c[3]
        if not (
            type(expr) is Compare
            and expr.ops == ("==",)
            and type(expr.operands[0]) is Call
        ):
            raise LexError(
                "an example is `CALL == VALUE` or `CALL raises ExceptionName`",
                expr.line,
                expr.col,
                "e.g. example: is_strong(\"short\") == false",
            )
        return Clause("example", expr, c[1], kw.line, kw.column)

    def example_raises_clause(self, c: list[Any]) -> Clause:
        kw = c[0]
        call = c[3]
        if type(call) is not Call:
            raise LexError(
                "only a call can raise in an example: `CALL raises ExceptionName`",
                call.line,
                call.col,
            )
        return Clause("example", call, c[1], kw.line, kw.column, exception=c[5].value)

    # ------------------------------------------------------------ functions and systems

    def parameter(self, c: list[Any]) -> Parameter:
        name = c[0]
        return Parameter(
            name=name.value,
            type=c[2],
            from_op=c[4].value if len(c) > 3 else None,
            file=self.file,
            line=name.line,
            column=name.column,
        )

    def parameters(self, c: list[Any]) -> tuple[Parameter, ...]:
        params = tuple(p for p in c if type(p) is Parameter)
        seen: set[str] = set()
        for p in params:
            if p.name in seen:
                raise LexError(f"parameter {p.name!r} is declared twice", p.line, p.column)
            seen.add(p.name)
        return params

    def clauses(self, c: list[Any]) -> list[Clause]:
        return c[1:-1]

    def function_decl(self, c: list[Any]) -> tuple[FunctionDecl, list[Clause]]:
        name = c[1]
        params: tuple[Parameter, ...] = c[3]
        for p in params:
            if p.from_op is not None:
                raise LexError(
                    "`from` is only for operation parameters",
                    p.line,
                    p.column,
                    "`p: T from op` says p is a value an earlier operation returned",
                )
        returns = c[6]
        if type(returns) is NoneType_:
            raise LexError(
                "a function must return a value; `none` is only an operation's result",
                returns.line,
                returns.col,
            )
        decl = FunctionDecl(
            name=name.value,
            params=params,
            returns=returns,
            file=self.file,
            line=name.line,
            column=name.column,
        )
        clauses: list[Clause] = c[8] if len(c) > 8 else []
        for cl in clauses:
            cl.owner = name.value
        return (decl, clauses)

    def operation(self, c: list[Any]) -> _OperationParts:
        return _OperationParts(c[1], c[3], c[6], c[8] if len(c) > 8 else [])

    def invariant(self, c: list[Any]) -> Clause:
        kw = c[0]
        return Clause("invariant", c[3], c[1], kw.line, kw.column)

    def system_decl(self, c: list[Any]) -> tuple[SystemDecl, list[Clause]]:
        name = c[1]
        system = name.value
        ops: list[OperationDecl] = []
        clauses: list[Clause] = []
        seen: dict[str, int] = {}
        for member in c[2:]:
            if type(member) is Clause:
                member.owner = system
                clauses.append(member)
                continue
            if type(member) is not _OperationParts:
                continue
            op_name = member.name
            if op_name.value in seen:
                raise _err(
                    f"operation {op_name.value!r} is declared twice in system {system!r} "
                    f"(first at line {seen[op_name.value]})",
                    op_name,
                )
            seen[op_name.value] = op_name.line
            ops.append(
                OperationDecl(
                    system=system,
                    name=op_name.value,
                    params=member.params,
                    returns=member.returns,
                    file=self.file,
                    line=op_name.line,
                    column=op_name.column,
                )
            )
            owner = f"{system}.{op_name.value}"
            for cl in member.clauses:
                cl.owner = owner
                clauses.append(cl)
        decl = SystemDecl(
            name=system,
            operations=tuple(ops),
            file=self.file,
            line=name.line,
            column=name.column,
        )
        return (decl, clauses)

    # ------------------------------------------------------------ types

    def simple_type(self, c: list[Any]) -> Any:
        tok = c[0]
        cls = _SCALARS.get(tok.value)
        if cls is not None:
            return cls(line=tok.line, col=tok.column)
        if tok.value == "list":
            raise _err("`list` needs an element type", tok, "write e.g. list[int]")
        return NamedType(name=tok.value, line=tok.line, col=tok.column)

    def ranged_type(self, c: list[Any]) -> IntType:
        tok = c[0]
        if tok.value != "int":
            raise _err(
                f"only `int` can have a range, not `{tok.value}`",
                c[1],
                "write int in LO..HI",
            )
        return IntType(lo=c[2], hi=c[4], line=tok.line, col=tok.column)

    def matching_type(self, c: list[Any]) -> StrType:
        tok = c[0]
        if tok.value != "str":
            raise _err(
                f"only `str` can be refined with `matching`, not `{tok.value}`", c[1]
            )
        return StrType(pattern=_string(c[2]), line=tok.line, col=tok.column)

    def generic_type(self, c: list[Any]) -> TypeNode:
        tok = c[0]
        args = c[2:-1:2]
        maker = _GENERICS.get(tok.value)
        if maker is None:
            raise _err(
                f"`{tok.value}` takes no type argument; only list[T], tuple[T, ...], "
                "optional[T] and dict[K, V] do",
                c[1],
            )
        made: TypeNode = maker(args, tok)
        return made

    def none_type(self, c: list[Any]) -> NoneType_:
        tok = c[0]
        return NoneType_(line=tok.line, col=tok.column)

    def bound_int(self, c: list[Any]) -> IntLit:
        tok = c[0]
        return IntLit(value=int(tok.value.replace("_", "")), line=tok.line, col=tok.column)

    def bound_neg(self, c: list[Any]) -> Unary:
        minus, tok = c
        lit = IntLit(value=int(tok.value.replace("_", "")), line=tok.line, col=tok.column)
        return Unary(op="-", operand=lit, line=minus.line, col=minus.column)

    def bound_name(self, c: list[Any]) -> Name:
        tok = c[0]
        return Name(id=tok.value, line=tok.line, col=tok.column)

    # ------------------------------------------------------------ structured English

    def when_cond(self, c: list[Any]) -> BoolOp:
        kw = c[0]
        return make_boolop("implies", (c[1], c[3]), line=kw.line, col=kw.column)

    def never_cond(self, c: list[Any]) -> Unary:
        kw = c[0]
        return Unary(op="not", operand=c[1], line=kw.line, col=kw.column)

    @staticmethod
    def _shall(op: Any, x: Any, v: Any) -> Compare:
        return Compare(ops=(op,), operands=(x, v), line=x.line, col=x.col)

    def shall_be(self, c: list[Any]) -> Compare:
        return self._shall("==", c[0], c[3])

    def shall_not_be(self, c: list[Any]) -> Compare:
        return self._shall("!=", c[0], c[4])

    def shall_ge(self, c: list[Any]) -> Compare:
        return self._shall(">=", c[0], c[5])

    def shall_le(self, c: list[Any]) -> Compare:
        return self._shall("<=", c[0], c[5])

    def shall_gt(self, c: list[Any]) -> Compare:
        return self._shall(">", c[0], c[5])

    def shall_lt(self, c: list[Any]) -> Compare:
        return self._shall("<", c[0], c[5])

    def shall_between(self, c: list[Any]) -> Compare:
        x = c[0]
        return Compare(ops=("<=", "<="), operands=(c[4], x, c[6]), line=x.line, col=x.col)

    # ------------------------------------------------------------ expressions

    def boolop(self, c: list[Any]) -> BoolOp:
        """``implies`` and ``iff``: always two operands."""
        left = c[0]
        return make_boolop(c[1].value, (left, c[2]), line=left.line, col=left.col)

    @staticmethod
    def _run(c: list[Any]) -> list[Any]:
        """A run ``x op y op z ...`` collected flat (left recursion appends in place)."""
        if type(c[0]) is list:
            items: list[Any] = c[0]
            items.append(c[2])
            return items
        return [c[0], c[2]]

    disjuncts = conjuncts = addends = factors = _run

    def or_(self, c: list[Any]) -> BoolOp:
        first = c[0][0]
        return make_boolop("or", c[0], line=first.line, col=first.col)

    def and_(self, c: list[Any]) -> BoolOp:
        first = c[0][0]
        return make_boolop("and", c[0], line=first.line, col=first.col)

    def plus(self, c: list[Any]) -> BinOp:
        first = c[0][0]
        return make_binop("+", c[0], line=first.line, col=first.col)

    def times(self, c: list[Any]) -> BinOp:
        first = c[0][0]
        return make_binop("*", c[0], line=first.line, col=first.col)

    def if_expr(self, c: list[Any]) -> IfExpr:
        kw = c[0]
        return IfExpr(cond=c[1], then=c[3], orelse=c[5], line=kw.line, col=kw.column)

    def not_(self, c: list[Any]) -> Unary:
        kw = c[0]
        return Unary(op="not", operand=c[1], line=kw.line, col=kw.column)

    def quantifier(self, c: list[Any]) -> Quantifier:
        kw = c[0]
        return Quantifier(
            quantifier=kw.value,
            var=c[1].value,
            lo=c[3],
            hi=c[5],
            body=c[7],
            line=kw.line,
            col=kw.column,
        )

    def comp_op(self, c: list[Any]) -> str:
        return "not in" if len(c) == 2 else str(c[0].value)

    def chain(self, c: list[Any]) -> list[Any]:
        """``a op b op c ...`` collected flat (left recursion appends in place)."""
        if type(c[0]) is list:
            items: list[Any] = c[0]
            items.append(c[1])
            items.append(c[2])
            return items
        return c

    def compare(self, c: list[Any]) -> Compare:
        items = c[0]
        first = items[0]
        ops = tuple(items[1::2])
        operands = tuple(items[0::2])
        for op, rhs in zip(ops, operands[1:], strict=True):
            if type(rhs) is Range and op not in ("in", "not in"):
                raise LexError(
                    "a range LO..HI may only follow `in` or `not in`",
                    rhs.line,
                    rhs.col,
                    "write `x in LO..HI`",
                )
        return Compare(ops=ops, operands=operands, line=first.line, col=first.col)

    def range_(self, c: list[Any]) -> Range:
        lo = c[0]
        return Range(lo=lo, hi=c[2], line=lo.line, col=lo.col)

    def binop(self, c: list[Any]) -> BinOp:
        """``-``, ``/``, ``//`` and ``%``: always two operands."""
        left = c[0]
        return make_binop(c[1].value, (left, c[2]), line=left.line, col=left.col)

    def neg(self, c: list[Any]) -> Unary:
        kw = c[0]
        return Unary(op="-", operand=c[1], line=kw.line, col=kw.column)

    def index(self, c: list[Any]) -> Index:
        base = c[0]
        return Index(base=base, index=c[2], line=base.line, col=base.col)

    def slice(self, c: list[Any]) -> Slice:
        """``base[lo:hi]``: the children are the base, ``[``, an optional bound, ``:``, an
        optional bound and ``]``; a missing bound is None."""
        base = c[0]
        inner = c[2:-1]
        colon = next(k for k, item in enumerate(inner) if type(item) is Tok)
        lo = inner[0] if colon == 1 else None
        hi = inner[colon + 1] if colon + 1 < len(inner) else None
        return Slice(base=base, lo=lo, hi=hi, line=base.line, col=base.col)

    def int_lit(self, c: list[Any]) -> IntLit:
        tok = c[0]
        return IntLit(value=int(tok.value.replace("_", "")), line=tok.line, col=tok.column)

    def dec_lit(self, c: list[Any]) -> RealLit:
        tok = c[0]
        return RealLit(value=normalise_decimal(tok.value), line=tok.line, col=tok.column)

    def str_lit(self, c: list[Any]) -> StrLit:
        tok = c[0]
        return StrLit(value=_string(tok), line=tok.line, col=tok.column)

    def true_lit(self, c: list[Any]) -> BoolLit:
        tok = c[0]
        return BoolLit(value=True, line=tok.line, col=tok.column)

    def false_lit(self, c: list[Any]) -> BoolLit:
        tok = c[0]
        return BoolLit(value=False, line=tok.line, col=tok.column)

    def result(self, c: list[Any]) -> Result:
        tok = c[0]
        return Result(line=tok.line, col=tok.column)

    def name(self, c: list[Any]) -> Name:
        tok = c[0]
        return Name(id=tok.value, line=tok.line, col=tok.column)

    def enum_member(self, c: list[Any]) -> EnumMember:
        tok = c[0]
        return EnumMember(enum=tok.value, member=c[2].value, line=tok.line, col=tok.column)

    def arguments(self, c: list[Any]) -> list[Any]:
        return c[0::2]

    def call(self, c: list[Any]) -> Any:
        tok = c[0]
        args = c[2]
        if tok.value == "date":
            if len(args) != 1 or type(args[0]) is not StrLit:
                raise _err(
                    'date(...) takes one literal string "YYYY-MM-DD"',
                    tok,
                    'write e.g. date("2026-03-01")',
                )
            arg = args[0]
            problem = check_date(arg.value)
            if problem is not None:
                raise LexError(problem, arg.line, arg.col, "write a real day as YYYY-MM-DD")
            return DateLit(value=arg.value, line=tok.line, col=tok.column)
        return Call(func=tok.value, args=tuple(args), line=tok.line, col=tok.column)

    def generator(self, c: list[Any]) -> Generator:
        tok = c[0]
        if tok.value not in ("all", "any"):
            raise _err(
                f"a generator expression is only allowed in all(...), any(...) or "
                f"count(...), not in {tok.value}(...)",
                c[3],
            )
        return Generator(
            func=tok.value,
            body=c[2],
            var=c[4].value,
            iterable=c[6],
            line=tok.line,
            col=tok.column,
        )

    def count_gen(self, c: list[Any]) -> Call:
        """``count(P for x in xs)`` means exactly ``len([x for x in xs if P])`` and is
        parsed as that (one meaning, one identity; docs/decisions.md)."""
        kw = c[0]
        var = c[4]
        keep = ListComp(
            body=Name(id=var.value, line=var.line, col=var.column),
            var=var.value,
            iterable=c[6],
            cond=c[2],
            line=kw.line,
            col=kw.column,
        )
        return Call(func="len", args=(keep,), line=kw.line, col=kw.column)

    def listcomp(self, c: list[Any]) -> ListComp:
        """``[E for x in xs]`` or ``[E for x in xs if C]``."""
        tok = c[0]
        cond = c[7] if len(c) > 8 else None
        return ListComp(
            body=c[1],
            var=c[3].value,
            iterable=c[5],
            cond=cond,
            line=tok.line,
            col=tok.column,
        )

    def count(self, c: list[Any]) -> Count:
        kw = c[0]
        op = c[2].value
        where = None
        per = None
        i = 3
        while i < len(c):
            item = c[i]
            if type(item) is Tok and item.type == "WHERE":
                where = c[i + 1]
                i += 2
            elif type(item) is Tok and item.type == "PER":
                per = c[i + 1].value
                i += 2
            else:
                i += 1
        return Count(op=op, where=where, per=per, line=kw.line, col=kw.column)

    def list_lit(self, c: list[Any]) -> ListLit:
        tok = c[0]
        return ListLit(items=tuple(c[1]), line=tok.line, col=tok.column)

    def paren(self, c: list[Any]) -> Any:
        return c[1]

    def tuple_lit(self, c: list[Any]) -> TupleLit:
        tok = c[0]
        return TupleLit(items=(c[1], *c[3]), line=tok.line, col=tok.column)

    def none_lit(self, c: list[Any]) -> NoneLit:
        tok = c[0]
        return NoneLit(line=tok.line, col=tok.column)

    def entries(self, c: list[Any]) -> list[Any]:
        return c[0::2]

    def entry(self, c: list[Any]) -> tuple[Any, Any]:
        return (c[0], c[2])

    def dict_lit(self, c: list[Any]) -> DictLit:
        tok = c[0]
        pairs = c[1]
        return DictLit(
            keys=tuple(k for k, _ in pairs),
            values=tuple(v for _, v in pairs),
            line=tok.line,
            col=tok.column,
        )
