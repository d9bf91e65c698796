"""``**`` and the text built-ins as SMT-LIB, with the language's meaning (docs/language.md §7.5).

``a ** n`` needs ``n >= 0``; a literal exponent up to ``POWER_UNROLL_LIMIT`` is a
product, any other the recursive ``py.pow``.  ``lower``/``upper``/``strip`` are ASCII
only, ``split`` needs a non-empty separator, ``ord`` a one-character string and ``chr``
a code in ``0..0x2FFFF`` (the SMT-LIB alphabet); the helpers are in ``_smt_text_aux``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from derivative._ast import BinOp, Call, IntLit
from derivative._types import INT, REAL, STR, TAny, TInt, TList, TReal, TStr, Ty

from ._smt_expr import SmtExpressions
from ._smt_sorts import plain
from ._smt_syntax import MAX_CHAR, EncodingError, SmtTerm, and_

POWER_UNROLL_LIMIT: Final = 16
"""A literal exponent up to this is written as a product of that many factors."""

Bound = Mapping[str, tuple[str, Ty]]


class SmtText(SmtExpressions):
    """``**`` and the text built-ins (a base of ``_smt_calls.SmtCalls``)."""

    def _power(self, e: BinOp, bound: Bound, want: Ty | None) -> SmtTerm:
        left, right = e.operands
        lt = plain(self.type_of(left, bound))
        ty: Ty = REAL if isinstance(lt, TReal) else INT
        if not isinstance(lt, (TInt, TReal)):
            raise EncodingError(f"{lt.show()} ** ... has no arithmetic meaning")
        a = self._enc(left, bound, ty)
        n = self._enc(right, bound, INT)
        if not isinstance(n.ty, TInt):
            raise EncodingError(f"an exponent of type {n.ty.show()}")
        sort = "Real" if isinstance(ty, TReal) else "Int"
        if isinstance(right, IntLit) and 0 <= right.value <= POWER_UNROLL_LIMIT:
            k = right.value
            defined = and_(a.defined, n.defined)
            if k == 0:
                return SmtTerm(defined, "1.0" if sort == "Real" else "1", ty)
            if k == 1:
                return SmtTerm(defined, a.value, ty)
            b = self._fresh_symbol("b")
            return SmtTerm(defined, f"(let (({b} {a.value})) (* {' '.join([b] * k)}))", ty)
        self.aux.add(("pow", sort))
        defined = and_(a.defined, n.defined, f"(>= {n.value} 0)")
        return SmtTerm(defined, f"(|py.pow.{sort}| {a.value} {n.value})", ty)

    def _string(self, e: Call, i: int, bound: Bound) -> SmtTerm:
        t = self._enc(e.args[i], bound, STR)
        if not isinstance(t.ty, TStr):
            raise EncodingError(f"{e.func}() of a {t.ty.show()}")
        return t

    def _call_case(self, e: Call, bound: Bound, want: Ty | None) -> SmtTerm:
        s = self._string(e, 0, bound)
        self.aux.add(("case", e.func))
        return SmtTerm(s.defined, f"(|py.{e.func}| {s.value} 0)", STR)

    def _call_strip(self, e: Call, bound: Bound, want: Ty | None) -> SmtTerm:
        s = self._string(e, 0, bound)
        self.aux.add(("strip", ""))
        return SmtTerm(s.defined, f"(|py.strip| {s.value})", STR)

    def _call_split(self, e: Call, bound: Bound, want: Ty | None) -> SmtTerm:
        s = self._string(e, 0, bound)
        sep = self._string(e, 1, bound)
        self.aux.add(("split", ""))
        defined = and_(s.defined, sep.defined, f"(> (str.len {sep.value}) 0)")
        return SmtTerm(defined, f"(|py.split| {s.value} {sep.value} 0)", TList(STR))

    def _call_join(self, e: Call, bound: Bound, want: Ty | None) -> SmtTerm:
        sep = self._string(e, 0, bound)
        xs = self._enc(e.args[1], bound, TList(STR))
        if not isinstance(xs.ty, TList):
            raise EncodingError(f"join() of a {xs.ty.show()}")
        if isinstance(plain(xs.ty.elem), TAny):  # a list that can only be []
            return SmtTerm(and_(sep.defined, xs.defined), '""', STR)
        if not isinstance(plain(xs.ty.elem), TStr):
            raise EncodingError(f"join() of a {xs.ty.show()}")
        self.aux.add(("join", ""))
        return SmtTerm(
            and_(sep.defined, xs.defined), f"(|py.join| {sep.value} {xs.value} 0)", STR
        )

    def _call_ord(self, e: Call, bound: Bound, want: Ty | None) -> SmtTerm:
        c = self._string(e, 0, bound)
        defined = and_(c.defined, f"(= (str.len {c.value}) 1)")
        return SmtTerm(defined, f"(str.to_code {c.value})", INT)

    def _call_chr(self, e: Call, bound: Bound, want: Ty | None) -> SmtTerm:
        n = self._enc(e.args[0], bound, INT)
        if not isinstance(n.ty, TInt):
            raise EncodingError(f"chr() of a {n.ty.show()}")
        defined = and_(n.defined, f"(<= 0 {n.value})", f"(<= {n.value} {MAX_CHAR})")
        return SmtTerm(defined, f"(str.from_code {n.value})", STR)
