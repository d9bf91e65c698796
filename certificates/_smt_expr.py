"""Expressions as (definedness, value) pairs of SMT-LIB terms, with Python's short-circuits.

``a and b`` is defined where ``a`` is and, if ``a`` holds, ``b`` is; comparison chains
stop at the first false link; quantifiers stop at the first deciding element, so they
are defined exactly when every undefined body is preceded by a deciding one.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Final

from derivative._ast import (
    BinOp,
    BoolOp,
    Compare,
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
from derivative._types import (
    BOOL,
    DATE,
    INT,
    REAL,
    STR,
    TAny,
    TDate,
    TEnum,
    TInt,
    TList,
    TReal,
    TStr,
    Ty,
)
from derivative._types import join_base as join

from ._smt_sorts import contains_enum, plain, sort_of
from ._smt_syntax import (
    MAX_DATE_ORDINAL,
    MIN_DATE_ORDINAL,
    EncodingError,
    SmtTerm,
    and_,
    constructor_symbol,
    date_ordinal,
    implies,
    int_term,
    ite,
    not_,
    or_,
    real_term,
    string_literal,
    symbol,
)
from ._smt_typing import SmtTyping

_MAY_BE_ANY: Final = frozenset({"binop", "unary", "if", "index", "call", "slice"})

RUN_BUDGET: Final = 100_000
"""The most operand repeats the definedness of one ``and``/``or`` run may hold (the
solver's ``_encode_base.RUN_BUDGET``, reached independently: see ``_and_or``)."""


class SmtExpressions(SmtTyping):
    """Leaves, operators, comparisons, indexing and quantifiers (see ``_smtlib.SmtEncoder``)."""

    # ------------------------------------------------------------------ encoding

    def term(self, e: Expr) -> SmtTerm:
        """``e`` encoded as (definedness, value) over the scope's names."""
        return self._enc(e, {}, None)

    def _default(self, ty: Ty) -> str:
        """Some closed term of the sort of ``ty`` (the value of a never-defined term)."""
        if isinstance(ty, TEnum):
            return constructor_symbol(ty.name, ty.members[0])
        if isinstance(ty, TList):
            return f"(as seq.empty {sort_of(ty)})"
        return {"Int": "0", "Real": "0.0", "String": '""', "Bool": "false"}[sort_of(ty)]

    def _power(self, e: BinOp, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        """``a ** n``: in ``_smt_text.SmtText``, which extends this class."""
        raise EncodingError("** is encoded by _smt_text")

    def _fresh_symbol(self, stem: str) -> str:
        self._fresh += 1
        return f"|{stem}!{self._fresh}|"

    def _coerce(self, t: SmtTerm, want: Ty | None) -> SmtTerm:
        if want is None:
            return t
        want = plain(want)
        have = plain(t.ty)
        if isinstance(have, TAny):
            # Only an element of [] has type any; it is never defined, so any sort will
            # do, and the producer already built it with the wanted one.
            return SmtTerm(t.defined, t.value, want)
        if isinstance(want, TReal) and isinstance(have, TInt):
            return SmtTerm(t.defined, f"(to_real {t.value})", REAL)
        if isinstance(want, TList) and isinstance(have, TList):
            w, h = plain(want.elem), plain(have.elem)
            if isinstance(w, TReal) and isinstance(h, TInt):
                raise EncodingError("a list of ints used as a list of reals is not supported")
        return t

    def _enc(self, e: Expr, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        method = getattr(self, "_enc_" + e.kind, None)
        if method is None:
            raise EncodingError(f"{e.kind} expressions cannot be encoded in SMT-LIB")
        if e.kind in _MAY_BE_ANY and isinstance(self.type_of(e, bound), TAny):
            # Only elements of [] have type any (``[][i]``, ``min([])``, and what is
            # computed from them): never defined, so only the sort of the value matters.
            ty = INT if want is None or isinstance(plain(want), TAny) else plain(want)
            self._note_type(ty)
            return SmtTerm("false", self._default(ty), ty)
        t: SmtTerm = method(e, bound, want)
        if isinstance(t.ty, TAny):
            t = SmtTerm(t.defined, t.value, INT if want is None else plain(want))
        return self._coerce(t, want)

    # leaves

    def _enc_int(self, e: IntLit, bound: object, want: Ty | None) -> SmtTerm:
        return SmtTerm("true", int_term(e.value), INT)

    def _enc_real(self, e: RealLit, bound: object, want: Ty | None) -> SmtTerm:
        try:
            q = Fraction(e.value)
        except (ValueError, ZeroDivisionError):
            raise EncodingError(f"malformed real literal {e.value!r}") from None
        return SmtTerm("true", real_term(q), REAL)

    def _enc_str(self, e: StrLit, bound: object, want: Ty | None) -> SmtTerm:
        return SmtTerm("true", string_literal(e.value), STR)

    def _enc_bool(self, e: Expr, bound: object, want: Ty | None) -> SmtTerm:
        value = getattr(e, "value", False)
        return SmtTerm("true", "true" if value else "false", BOOL)

    def _enc_date(self, e: DateLit, bound: object, want: Ty | None) -> SmtTerm:
        try:
            return SmtTerm("true", int_term(date_ordinal(e.value)), DATE)
        except ValueError:
            raise EncodingError(f"malformed date literal {e.value!r}") from None

    def _enc_enum_member(self, e: EnumMember, bound: object, want: Ty | None) -> SmtTerm:
        enum = self._enum(e.enum)
        if e.member not in enum.members:
            raise EncodingError(f"{e.enum} has no member {e.member}")
        self.used_enums.add(e.enum)
        return SmtTerm("true", constructor_symbol(e.enum, e.member), enum)

    def _enc_list(
        self, e: ListLit, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        ty = self.type_of(e, bound)
        assert isinstance(ty, TList)
        if isinstance(want, TList):
            ty = TList(join(ty.elem, want.elem))
        self._note_type(ty)
        if not e.items:
            return SmtTerm("true", f"(as seq.empty {sort_of(ty)})", ty)
        items = [self._enc(i, bound, ty.elem) for i in e.items]
        units = [f"(seq.unit {i.value})" for i in items]
        value = units[0] if len(units) == 1 else f"(seq.++ {' '.join(units)})"
        return SmtTerm(and_(*(i.defined for i in items)), value, ty)

    def _note_type(self, ty: Ty) -> None:
        found: set[str] = set()
        contains_enum(ty, found)
        self.used_enums |= found

    def _enc_name(self, e: Name, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        if e.id in bound:
            sym, ty = bound[e.id]
            return SmtTerm("true", sym, plain(ty))
        if e.id in self.scope.variables:
            self.used_vars.add(e.id)
            ty = self.scope.variables[e.id]
        elif e.id in self.scope.consts:
            self.used_consts.add(e.id)
            ty = self.scope.consts[e.id][0]
        else:
            raise EncodingError(f"the name {e.id!r} is not declared")
        self._note_type(ty)
        return SmtTerm("true", symbol(e.id), plain(ty))

    def _enc_result(self, e: Expr, bound: object, want: Ty | None) -> SmtTerm:
        ty = self._result_type()
        self.used_result = True
        self._note_type(ty)
        return SmtTerm("true", "result", plain(ty))

    # operators

    def _enc_unary(self, e: Unary, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        a = self._enc(e.operand, bound, BOOL if e.op == "not" else want)
        if e.op == "not":
            return SmtTerm(a.defined, not_(a.value), BOOL)
        if not isinstance(a.ty, (TInt, TReal)):
            raise EncodingError(f"unary minus on {a.ty.show()}")
        return SmtTerm(a.defined, f"(- {a.value})", a.ty)

    def _enc_binop(self, e: BinOp, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        if e.op == "**":
            return self._power(e, bound, want)
        if len(e.operands) == 2:
            return self._binary(e, bound, want)
        return self._run(e, bound, want)

    def _binary(self, e: BinOp, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        left, right = e.operands
        lt = self.type_of(left, bound)
        rt = self.type_of(right, bound)
        op = e.op
        if isinstance(lt, TDate) or isinstance(rt, TDate):
            a = self._enc(left, bound, DATE if isinstance(lt, TDate) else INT)
            b = self._enc(right, bound, DATE if isinstance(rt, TDate) else INT)
            return self._date_step(op, a, b)
        if op == "+" and (isinstance(lt, TStr) or isinstance(rt, TStr)):
            a = self._enc(left, bound, STR)
            b = self._enc(right, bound, STR)
            return SmtTerm(and_(a.defined, b.defined), f"(str.++ {a.value} {b.value})", STR)
        if op == "+" and (isinstance(lt, TList) or isinstance(rt, TList)):
            ty = join(lt, rt)
            if isinstance(want, TList):
                ty = join(ty, want)
            a = self._enc(left, bound, ty)
            b = self._enc(right, bound, ty)
            self._note_type(ty)
            return SmtTerm(and_(a.defined, b.defined), f"(seq.++ {a.value} {b.value})", ty)
        numeric = (TInt, TReal, TAny)
        if not (isinstance(lt, numeric) and isinstance(rt, numeric)):
            raise EncodingError(f"{lt.show()} {op} {rt.show()} has no arithmetic meaning")
        ty = REAL if op == "/" else join(lt, rt)
        if isinstance(ty, TAny):
            ty = INT if want is None or isinstance(plain(want), TAny) else plain(want)
        a = self._enc(left, bound, ty)
        b = self._enc(right, bound, ty)
        return self._numeric_step(op, a, b, ty)

    def _numeric_step(self, op: str, a: SmtTerm, b: SmtTerm, ty: Ty) -> SmtTerm:
        """``a op b`` on two numbers already of the sort of ``ty``."""
        defined = and_(a.defined, b.defined)
        if op in ("/", "//", "%"):
            zero = "0" if isinstance(ty, TInt) else "0.0"
            defined = and_(defined, f"(not (= {b.value} {zero}))")
        if op in ("+", "-", "*"):
            value = f"({op} {a.value} {b.value})"
        elif op == "/":
            value = f"(/ {a.value} {b.value})"
        else:
            kind = (
                ("div" if op == "//" else "mod")
                if isinstance(ty, TInt)
                else ("rdiv" if op == "//" else "rmod")
            )
            self.aux.add((kind, ""))
            value = f"(|py.{kind}| {a.value} {b.value})"
        return SmtTerm(defined, value, ty)

    def _date_step(self, op: str, a: SmtTerm, b: SmtTerm) -> SmtTerm:
        """``a op b`` where one side is a date: defined only inside the calendar."""
        lt, rt = a.ty, b.ty
        defined = and_(a.defined, b.defined)
        if op == "-" and isinstance(lt, TDate) and isinstance(rt, TDate):
            return SmtTerm(defined, f"(- {a.value} {b.value})", INT)
        if op == "+" and isinstance(lt, TDate) != isinstance(rt, TDate):
            value = f"(+ {a.value} {b.value})"
        elif op == "-" and isinstance(lt, TDate) and isinstance(rt, TInt):
            value = f"(- {a.value} {b.value})"
        else:
            raise EncodingError(f"{lt.show()} {op} {rt.show()} is not date arithmetic")
        in_range = f"(and (<= {MIN_DATE_ORDINAL} {value}) (<= {value} {MAX_DATE_ORDINAL}))"
        return SmtTerm(and_(defined, in_range), value, DATE)

    def _run(self, e: BinOp, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        """A run of ``+`` or ``*`` (three operands or more): one flat term over numbers,
        strings or lists; step by step from the left where a date is involved (each step
        must stay in the calendar; the type checker bounds how many such steps a run has).
        """
        types = [self.type_of(o, bound) for o in e.operands]
        if all(isinstance(t, (TInt, TReal)) for t in types):
            ty: Ty = types[0]
            for t in types[1:]:
                ty = join(ty, t)
            return self._flat(e, bound, ty, e.op)
        if e.op == "+" and all(isinstance(t, TStr) for t in types):
            return self._flat(e, bound, STR, "str.++")
        if e.op == "+" and all(isinstance(t, TList) for t in types):
            ty = types[0]
            for t in types[1:]:
                ty = join(ty, t)
            if isinstance(want, TList):
                ty = join(ty, want)
            self._note_type(ty)
            return self._flat(e, bound, ty, "seq.++")
        terms = [self._enc(o, bound, plain(t)) for o, t in zip(e.operands, types, strict=True)]
        acc = terms[0]
        for b in terms[1:]:
            if isinstance(acc.ty, TDate) or isinstance(b.ty, TDate):
                acc = self._date_step(e.op, acc, b)
            elif isinstance(acc.ty, (TInt, TReal)) and isinstance(b.ty, (TInt, TReal)):
                ty = join(acc.ty, b.ty)
                acc = self._numeric_step(e.op, self._coerce(acc, ty), self._coerce(b, ty), ty)
            else:
                raise EncodingError(f"{acc.ty.show()} {e.op} {b.ty.show()} cannot be encoded")
        return acc

    def _flat(
        self, e: BinOp, bound: Mapping[str, tuple[str, Ty]], ty: Ty, word: str
    ) -> SmtTerm:
        """``(word v0 v1 ...)`` with every operand encoded as a ``ty``."""
        terms = [self._enc(o, bound, ty) for o in e.operands]
        values = " ".join(t.value for t in terms)
        return SmtTerm(and_(*(t.defined for t in terms)), f"({word} {values})", ty)

    def _enc_boolop(
        self, e: BoolOp, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        terms = [self._enc(o, bound, BOOL) for o in e.operands]
        if e.op in ("and", "or"):
            return self._and_or(e.op, terms)
        a, b = terms
        if e.op == "implies":
            return SmtTerm(
                and_(a.defined, or_(not_(a.value), b.defined)), implies(a.value, b.value), BOOL
            )
        return SmtTerm(and_(a.defined, b.defined), f"(= {a.value} {b.value})", BOOL)

    @staticmethod
    def _and_or(op: str, terms: list[SmtTerm]) -> SmtTerm:
        """A run of ``and``/``or``: operand ``i`` counts where every earlier one let the run go
        on.  Flat: for two operands the binary encoding's very text, for more one condition
        per operand that may be undefined (at most ``RUN_BUDGET`` operand repeats)."""
        values = [t.value for t in terms]
        parts: list[str] = []
        spent = 0
        for i, t in enumerate(terms):
            if t.defined == "true":
                continue
            if i == 0:
                parts.append(t.defined)
                continue
            spent += i
            if spent > RUN_BUDGET:
                raise EncodingError(
                    f"a run of `{op}` with {len(terms)} operands, many of which may be "
                    "undefined, is too large to encode"
                )
            if op == "and":
                parts.append(or_(not_(and_(*values[:i])), t.defined))
            else:
                parts.append(or_(or_(*values[:i]), t.defined))
        value = and_(*values) if op == "and" else or_(*values)
        return SmtTerm(and_(*parts), value, BOOL)

    def _enc_if(self, e: IfExpr, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        ty = join(self.type_of(e.then, bound), self.type_of(e.orelse, bound))
        if want is not None:
            ty = join(ty, want)
        if isinstance(ty, TAny):
            ty = INT
        c = self._enc(e.cond, bound, BOOL)
        a = self._enc(e.then, bound, ty)
        b = self._enc(e.orelse, bound, ty)
        self._note_type(ty)
        return SmtTerm(
            and_(c.defined, ite(c.value, a.defined, b.defined)),
            ite(c.value, a.value, b.value),
            ty,
        )

    def _enc_compare(
        self, e: Compare, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        n = len(e.ops)
        if n == 0 or len(e.operands) != n + 1:
            raise EncodingError("a malformed comparison chain")
        # Each link decides its operands' common type; an operand in two links is encoded
        # once per link (pure terms, so duplicates are harmless).
        links: list[tuple[str, str, str]] = []  # (defined-left, defined-right, link value)
        for i, op in enumerate(e.ops):
            left, right = e.operands[i], e.operands[i + 1]
            if isinstance(left, Range):
                raise EncodingError("a range can only be the right operand of 'in'")
            links.append(self._link(op, left, right, bound))
        value = and_(*(v for _, _, v in links))
        # Python stops at the first false link, so operand i+1 (the right side of link i)
        # is only evaluated when links 0..i-1 held:
        # defined = d0 & d1 & (!r0 | (d2 & (!r1 | (d3 & ...))))
        acc = "true"
        for i in range(n - 1, 0, -1):
            acc = and_(links[i][1], or_(not_(links[i][2]), acc))
        defined = and_(links[0][0], links[0][1], or_(not_(links[0][2]), acc))
        return SmtTerm(defined, value, BOOL)

    def _link(
        self, op: str, left: Expr, right: Expr, bound: Mapping[str, tuple[str, Ty]]
    ) -> tuple[str, str, str]:
        """One link ``left op right``: (defined left, defined right, truth value)."""
        if op in ("in", "not in"):
            d_l, d_r, v = self._membership(left, right, bound)
            return d_l, d_r, (not_(v) if op == "not in" else v)
        lt = self.type_of(left, bound)
        rt = self.type_of(right, bound)
        ty = join(lt, rt)
        if isinstance(ty, TAny):
            ty = INT
        self._note_type(ty)
        a = self._enc(left, bound, ty)
        b = self._enc(right, bound, ty)
        if op == "==":
            return a.defined, b.defined, f"(= {a.value} {b.value})"
        if op == "!=":
            return a.defined, b.defined, f"(not (= {a.value} {b.value}))"
        if isinstance(ty, (TInt, TReal, TDate)):
            return a.defined, b.defined, f"({op} {a.value} {b.value})"
        if isinstance(ty, TStr):
            if op == "<":
                v = f"(str.< {a.value} {b.value})"
            elif op == "<=":
                v = f"(str.<= {a.value} {b.value})"
            elif op == ">":
                v = f"(str.< {b.value} {a.value})"
            else:
                v = f"(str.<= {b.value} {a.value})"
            return a.defined, b.defined, v
        raise EncodingError(f"ordering values of type {ty.show()} has no SMT-LIB encoding")

    def _membership(
        self, left: Expr, right: Expr, bound: Mapping[str, tuple[str, Ty]]
    ) -> tuple[str, str, str]:
        if isinstance(right, Range):
            x = self._enc(left, bound, None)
            lo = self._enc(right.lo, bound, INT)
            hi = self._enc(right.hi, bound, INT)
            if isinstance(x.ty, TReal):
                v = (
                    f"(and (is_int {x.value}) (<= (to_real {lo.value}) {x.value}) "
                    f"(<= {x.value} (to_real {hi.value})))"
                )
            elif isinstance(x.ty, TInt):
                v = f"(and (<= {lo.value} {x.value}) (<= {x.value} {hi.value}))"
            else:
                raise EncodingError(f"{x.ty.show()} in LO..HI")
            return x.defined, and_(lo.defined, hi.defined), v
        rt = self.type_of(right, bound)
        if isinstance(rt, TAny):
            # an element of [] as the container: its sort follows the left side
            lt = self.type_of(left, bound)
            rt = STR if isinstance(lt, TStr) else TList(INT if isinstance(lt, TAny) else lt)
        if isinstance(rt, TStr):
            a = self._enc(left, bound, STR)
            b = self._enc(right, bound, STR)
            return a.defined, b.defined, f"(str.contains {b.value} {a.value})"
        if isinstance(rt, TList):
            lt = self.type_of(left, bound)
            elem = join(rt.elem, lt)
            if isinstance(elem, TAny):
                elem = INT
            a = self._enc(left, bound, elem)
            self._note_type(TList(elem))
            if isinstance(right, ListLit):
                # a literal list: one equation per item (Python builds the whole list
                # first, so every item must be defined)
                items = [self._enc(i, bound, elem) for i in right.items]
                v = or_(*(f"(= {a.value} {i.value})" for i in items))
                return a.defined, and_(*(i.defined for i in items)), v
            if isinstance(elem, TReal) and isinstance(plain(rt.elem), TInt):
                # a real in a list of ints: compare each element as a real
                b = self._enc(right, bound, None)
                return a.defined, b.defined, self._seq_has(b.value, a.value, to_real=True)
            b = self._enc(right, bound, TList(elem))
            return a.defined, b.defined, self._seq_has(b.value, a.value)
        raise EncodingError(f"'in' on {rt.show()}")

    def _seq_has(self, xs: str, x: str, *, to_real: bool = False) -> str:
        """``x`` is an element of ``xs``: some index in range holds it.

        Written with an index, like ``all``/``any`` over a list, rather than as
        ``(seq.contains xs (seq.unit x))``: a solver then meets one representation
        (``seq.nth`` at an index) and instantiates ``all(...)`` with the witness
        index directly.  Measured: ``3 in xs`` with ``all(x > 5 for x in xs)`` is
        refuted by z3 in well under a second this way, and not within 120 s with
        ``seq.contains``.
        """
        i = self._fresh_symbol("i")
        nth = f"(seq.nth {xs} {i})"
        if to_real:
            nth = f"(to_real {nth})"
        return f"(exists (({i} Int)) (and (<= 0 {i}) (< {i} (seq.len {xs})) (= {nth} {x})))"

    def _enc_index(self, e: Index, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        bt = self.type_of(e.base, bound)
        if isinstance(bt, TList) and isinstance(bt.elem, TAny):
            bt = TList(INT if want is None else plain(want))
        b = self._enc(e.base, bound, bt)
        i = self._enc(e.index, bound, INT)
        if isinstance(b.ty, TList):
            length, value, ty = f"(seq.len {b.value})", f"(seq.nth {b.value} {i.value})", b.ty.elem
        elif isinstance(b.ty, TStr):
            length, value, ty = f"(str.len {b.value})", f"(str.at {b.value} {i.value})", STR
        else:
            raise EncodingError(f"indexing a {b.ty.show()}")
        in_range = f"(and (<= 0 {i.value}) (< {i.value} {length}))"
        return SmtTerm(and_(b.defined, i.defined, in_range), value, plain(ty))

    # binders

    def _enc_quant(
        self, e: Quantifier, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        lo = self._enc(e.lo, bound, INT)
        hi = self._enc(e.hi, bound, INT)
        var = symbol(e.var)
        inner = {**bound, e.var: (var, INT)}
        body = self._enc(e.body, inner, BOOL)
        in_range = f"(and (<= {lo.value} {var}) (<= {var} {hi.value}))"
        if e.quantifier == "forall":
            value = f"(forall (({var} Int)) {implies(in_range, body.value)})"
        else:
            value = f"(exists (({var} Int)) {and_(in_range, body.defined, body.value)})"
        defined = and_(lo.defined, hi.defined)
        if body.defined != "true":
            j = self._fresh_symbol(e.var)
            body_j = self._enc(e.body, {**bound, e.var: (j, INT)}, BOOL)
            stop = not_(body_j.value) if e.quantifier == "forall" else body_j.value
            earlier = f"(and (<= {lo.value} {j}) (< {j} {var}))"
            guard = (
                f"(forall (({var} Int)) (=> {and_(in_range, not_(body.defined))} "
                f"(exists (({j} Int)) {and_(earlier, body_j.defined, stop)})))"
            )
            defined = and_(defined, guard)
        return SmtTerm(defined, value, BOOL)

    def _enc_gen(
        self, e: Generator, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        if isinstance(self.type_of(e.iterable, bound), TAny):
            return SmtTerm("false", "false", BOOL)
        xs = self._enc(e.iterable, bound, None)
        if not isinstance(xs.ty, TList):
            raise EncodingError(f"{e.func}() over a {xs.ty.show()}")
        elem = plain(xs.ty.elem)
        if isinstance(elem, TAny):
            # only [] has elements of type any: the body is never evaluated
            return SmtTerm(xs.defined, "true" if e.func == "all" else "false", BOOL)
        k = self._fresh_symbol("k")
        var = symbol(e.var)
        inner = {**bound, e.var: (var, elem)}
        body = self._enc(e.body, inner, BOOL)

        def at(index: str, term: str) -> str:
            return f"(let (({var} (seq.nth {xs.value} {index}))) {term})"

        in_range = f"(and (<= 0 {k}) (< {k} (seq.len {xs.value})))"
        if e.func == "all":
            value = f"(forall (({k} Int)) {implies(in_range, at(k, body.value))})"
        else:
            ok = and_(body.defined, body.value)
            value = f"(exists (({k} Int)) {and_(in_range, at(k, ok))})"
        defined = xs.defined
        if body.defined != "true":
            j = self._fresh_symbol("j")
            stop = not_(body.value) if e.func == "all" else body.value
            earlier = f"(and (<= 0 {j}) (< {j} {k}))"
            guard = (
                f"(forall (({k} Int)) (=> {and_(in_range, at(k, not_(body.defined)))} "
                f"(exists (({j} Int)) {and_(earlier, at(j, and_(body.defined, stop)))})))"
            )
            defined = and_(defined, guard)
        return SmtTerm(defined, value, BOOL)
