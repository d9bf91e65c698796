"""The types of a core's expressions, read from its scope (no type checker needed).

The printer is the checker's independent reading: it computes the types it needs
(unrefined, from the declared names and the literals) instead of asking the solver
or the type checker, and keeps the state an encoding accumulates.
"""

from __future__ import annotations

from collections.abc import Mapping

from derivative._ast import (
    BinOp,
    Call,
    EnumMember,
    Expr,
    IfExpr,
    Index,
    ListComp,
    ListLit,
    Name,
    Slice,
    Unary,
)
from derivative._types import BOOL, DATE, INT, REAL, STR, TAny, TDate, TEnum, TList, TStr, Ty
from derivative._types import join_base as join

from ._smt_sorts import CoreScope, plain
from ._smt_syntax import EncodingError


class SmtTyping:
    """What an encoder knows and has used so far, and the types of expressions.

    The base of ``SmtEncoder`` (``_smtlib``): ``_smt_expr`` and ``_smt_calls`` encode,
    this class answers "what type is this?" from the scope and the bound variables.
    """

    def __init__(self, scope: CoreScope) -> None:
        self.scope = scope
        self.used_vars: set[str] = set()
        self.used_consts: set[str] = set()
        self.used_enums: set[str] = set()
        self.used_result = False
        self.aux: set[tuple[str, str]] = set()
        self.comprehensions: list[str] = []
        """Helper definitions of list comprehensions, innermost first (they read the
        declared names, so the preamble puts them after every declaration)."""
        self._fresh = 0

    # ------------------------------------------------------------------ typing

    def type_of(self, e: Expr, bound: Mapping[str, tuple[str, Ty]]) -> Ty:
        """The resolved type of ``e`` (unrefined), from the scope and bound variables."""
        k = e.kind
        if k == "int":
            return INT
        if k == "real":
            return REAL
        if k == "str":
            return STR
        if k == "bool":
            return BOOL
        if k == "date":
            return DATE
        if k == "list":
            assert isinstance(e, ListLit)
            elem: Ty = TAny()
            for item in e.items:
                elem = join(elem, self.type_of(item, bound))
            return TList(elem)
        if k == "enum_member":
            assert isinstance(e, EnumMember)
            return self._enum(e.enum)
        if k == "name":
            assert isinstance(e, Name)
            return plain(self._name_type(e.id, bound))
        if k == "result":
            return plain(self._result_type())
        if k == "unary":
            assert isinstance(e, Unary)
            return BOOL if e.op == "not" else self.type_of(e.operand, bound)
        if k == "binop":
            assert isinstance(e, BinOp)
            return self._binop_type(e, bound)
        if k in ("boolop", "compare", "quant", "gen"):
            return BOOL
        if k == "if":
            assert isinstance(e, IfExpr)
            return join(self.type_of(e.then, bound), self.type_of(e.orelse, bound))
        if k == "call":
            assert isinstance(e, Call)
            return self._call_type(e, bound)
        if k == "index":
            assert isinstance(e, Index)
            base = self.type_of(e.base, bound)
            if isinstance(base, TList):
                return base.elem
            return base if isinstance(base, TAny) else STR
        if k == "slice":
            assert isinstance(e, Slice)
            return self.type_of(e.base, bound)
        if k == "listcomp":
            assert isinstance(e, ListComp)
            it = self.type_of(e.iterable, bound)
            elem = it.elem if isinstance(it, TList) else TAny()
            return TList(self.type_of(e.body, {**bound, e.var: (e.var, elem)}))
        raise EncodingError(f"{k} expressions cannot be encoded in SMT-LIB")

    def _enum(self, name: str) -> TEnum:
        enum = self.scope.enums.get(name)
        if enum is None:
            raise EncodingError(f"unknown enum {name}")
        return enum

    def _name_type(self, name: str, bound: Mapping[str, tuple[str, Ty]]) -> Ty:
        if name in bound:
            return bound[name][1]
        if name in self.scope.variables:
            return self.scope.variables[name]
        if name in self.scope.consts:
            return self.scope.consts[name][0]
        raise EncodingError(f"the name {name!r} is not declared")

    def _result_type(self) -> Ty:
        if self.scope.result is None:
            raise EncodingError("'result' is used outside a function's clauses")
        return self.scope.result

    def _binop_type(self, e: BinOp, bound: Mapping[str, tuple[str, Ty]]) -> Ty:
        """The type of a run, step by step from the left (``d + 1 + 2`` is a date)."""
        acc = self.type_of(e.operands[0], bound)
        for operand in e.operands[1:]:
            acc = self._step_type(e.op, acc, self.type_of(operand, bound))
        return acc

    @staticmethod
    def _step_type(op: str, a: Ty, b: Ty) -> Ty:
        if isinstance(a, TAny) or isinstance(b, TAny):
            return TAny()  # an operand that is an element of []: never defined
        if op == "/":
            return REAL
        if op == "+":
            if isinstance(a, TDate) or isinstance(b, TDate):
                return DATE
            if isinstance(a, TStr):
                return STR
            return join(a, b)
        if op == "-":
            if isinstance(a, TDate):
                return INT if isinstance(b, TDate) else DATE
            return join(a, b)
        return join(a, b)

    def _call_type(self, e: Call, bound: Mapping[str, tuple[str, Ty]]) -> Ty:
        f = e.func
        if f in ("len", "occurrences", "int", "ord"):
            return INT
        if f in ("lower", "upper", "strip", "join", "chr"):
            return STR
        if f == "split":
            return TList(STR)
        if f in ("matches", "startswith", "endswith", "contains"):
            return BOOL
        if f == "str":
            return STR
        if f == "abs":
            return self.type_of(e.args[0], bound)
        if f in ("min", "max"):
            if len(e.args) == 1:
                t = self.type_of(e.args[0], bound)
                return t.elem if isinstance(t, TList) else t
            out: Ty = TAny()
            for a in e.args:
                out = join(out, self.type_of(a, bound))
            return out
        if f == "sum":
            t = self.type_of(e.args[0], bound)
            elem = t.elem if isinstance(t, TList) else INT
            return INT if isinstance(elem, TAny) else elem
        if f in ("sorted", "reversed"):
            return self.type_of(e.args[0], bound)
        if f == "product":
            t = self.type_of(e.args[0], bound)
            elem = t.elem if isinstance(t, TList) else INT
            return INT if isinstance(elem, TAny) else elem
        if f == self.scope.function:
            return plain(self._result_type())
        raise EncodingError(f"the function {f}() has no SMT-LIB encoding here")
