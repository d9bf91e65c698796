"""Expression nodes → Z3 terms, with Python's semantics and explicit undefinedness.

Every expression is encoded as a ``Term``: its value, a Boolean ``defined`` that is
true exactly where the evaluator would not answer ``UNDEFINED``, and its resolved
type.  ``defined`` follows Python's left-to-right short-circuit evaluation
(docs/language.md §7): ``false and 1 // 0 == 0`` is defined, ``1 // 0 == 0 and false``
is not.  Where ``defined`` is false the value term is unconstrained and means
nothing; every reader combines the two (``holds = defined ∧ value``).

Where Z3's built-ins differ from the language, the encoding adjusts instead of
trusting them (docs/architecture.md):

- ``//`` and ``%`` are Python's floor division and modulo (Z3's are Euclidean);
- ``int(s)`` is defined only when ``s`` fully matches ``[0-9]+`` (``str.to_int``
  answers -1 elsewhere), ``str(n)`` carries the sign (``int.to.str`` answers "");
- dates are day ordinals (``date.toordinal``) and arithmetic that leaves
  0001-01-01..9999-12-31 is undefined;
- string constants are built with ``str_val`` (z3py would decode ``\\u{..}``).

``sum``, ``min``/``max``, ``sorted`` and ``occurrences`` over a list whose length is
not known are encoded with Z3 recursive functions: an exact definition that Z3 may
fail to reason about (then the question is ``unknown``), never an approximation.
Anything that cannot be encoded exactly raises ``Unsupported``.

The encoder is one class assembled from construct families, one module each: this
module (leaves, operators, comparisons), ``_encode_quant`` (quantifiers and
generators), ``_encode_calls`` (indexing and built-in calls), ``_encode_lists``
(slices and list comprehensions), ``_encode_text`` (``**`` and the text built-ins), on the walker of
``_encode_base``; sorts and terms are in ``_terms``, model values in ``_decode``.
"""

from __future__ import annotations

import datetime as _dt
from fractions import Fraction

import z3

from derivative._ast import (
    BinOp,
    BoolLit,
    BoolOp,
    Compare,
    Count,
    DateLit,
    EnumMember,
    Expr,
    IfExpr,
    IntLit,
    ListLit,
    Name,
    Range,
    RealLit,
    Result,
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
    TDict,
    TInt,
    TList,
    TReal,
    TStr,
    Ty,
    base,
)
from derivative._types import join_base as join

from ._encode_base import run_and_or
from ._encode_compound import CompoundEncoding
from ._encode_lists import Lists
from ._encode_quant import Quantifiers
from ._encode_text import TextCalls
from ._terms import (
    COMPOUND,
    DATE_MAX,
    DATE_MIN,
    Term,
    coerce,
    enum_sort,
    is_num,
    literal,
    seq_of,
)
from ._z3util import Unsupported, Z, conj, ctx, current, false, fraction_val, implies, str_val, true


class Encoder(Quantifiers, CompoundEncoding, Lists, TextCalls):
    """Encodes expressions over an environment of named terms.

    ``env`` maps names (params, function parameters, ``"result"``) to terms;
    ``consts`` maps constant names to their value and type (constants are fixed,
    so they are encoded as literals); ``enums`` resolves ``Enum.member``.
    Leaves, operators and comparisons are here; quantifiers and calls come from
    ``Quantifiers`` and ``Calls``, the walker itself from ``EncoderBase``.
    """

    # ------------------------------------------------------------------ leaves

    def visit_int(self, n: IntLit) -> Term:
        # Large specs repeat the same few literals: build each numeral term once per
        # context (Z3 hash-conses them, so the term is the same AST either way).
        cache = current().cache
        key = ("int", n.value)
        term = cache.get(key)
        if term is None:
            term = cache[key] = Term(z3.IntVal(n.value, ctx()), true(), INT)
        result: Term = term
        return result

    def visit_real(self, n: RealLit) -> Term:
        return Term(fraction_val(Fraction(n.value)), true(), REAL)

    def visit_str(self, n: StrLit) -> Term:
        return Term(str_val(n.value), true(), STR)

    def visit_bool(self, n: BoolLit) -> Term:
        return Term(z3.BoolVal(n.value, ctx()), true(), BOOL)

    def visit_date(self, n: DateLit) -> Term:
        return Term(z3.IntVal(_dt.date.fromisoformat(n.value).toordinal(), ctx()), true(), DATE)

    def visit_enum_member(self, n: EnumMember) -> Term:
        t = self.enums.get(n.enum)
        if t is None or n.member not in t.members:
            raise Unsupported(f"unknown enum member {n.enum}.{n.member}")
        return Term(enum_sort(t)[1][n.member], true(), t)

    def visit_name(self, n: Name) -> Term:
        if n.id in self.env:
            return self.env[n.id]
        if n.id in self.consts:
            value, ty = self.consts[n.id]
            return Term(literal(value, ty), true(), ty)
        raise Unsupported(f"the name {n.id!r} is not in scope here")

    def visit_result(self, n: Result) -> Term:
        if "result" not in self.env:
            raise Unsupported("`result` is not in scope here")
        return self.env["result"]

    def visit_list(self, n: ListLit) -> Term:
        items = [self.visit(i) for i in n.items]
        if not items:
            return Term(None, true(), TList(TAny()))
        elem: Ty = TAny()
        for t in items:
            elem = join(elem, t.ty)
        value = seq_of([coerce(t, elem) for t in items])
        return Term(value, conj(*[t.defined for t in items]), TList(elem))

    # ------------------------------------------------------------------ operators

    def visit_unary(self, n: Unary) -> Term:
        t = self.visit(n.operand)
        if n.op == "not":
            return Term(z3.Not(t.value), t.defined, BOOL)
        if not is_num(t.ty):
            raise Unsupported(f"unary minus on {t.ty.show()}")
        return Term(-t.value, t.defined, base(t.ty))

    def visit_binop(self, n: BinOp) -> Term:
        """A run of ``+``/``*`` over numbers, strings or lists is one flat term (exact
        arithmetic and concatenation are associative); anything else, date arithmetic
        above all (each step must stay in the calendar), is folded step by step."""
        terms = [self.visit(o) for o in n.operands]
        if n.op == "**":
            return self._power(terms[0], terms[1])
        if len(terms) > 2:
            flat = self._flat_run(n.op, terms)
            if flat is not None:
                return flat
        acc = terms[0]
        for t in terms[1:]:
            acc = self._binop_step(n.op, acc, t)
        return acc

    def _flat_run(self, op: str, terms: list[Term]) -> Term | None:
        """The run as one n-ary term when every operand has the same family of type."""
        d = self._z.conj([t.defined for t in terms])
        types = [t.ty for t in terms]
        if all(is_num(t) for t in types):
            ty: Ty = types[0]
            for t in types[1:]:
                ty = join(ty, t)
            return Term(self._arith_run(op, [coerce(t, ty) for t in terms]), d, base(ty))
        if op != "+":
            return None
        if all(isinstance(t, TStr) for t in types):
            return Term(z3.Concat(*[t.value for t in terms]), d, STR)
        if all(isinstance(t, TList) for t in types):
            ty = types[0]
            for t in types[1:]:
                ty = join(ty, t)
            if all(t.value is None for t in terms):
                return Term(None, d, ty)
            return Term(z3.Concat(*[coerce(t, ty) for t in terms]), d, ty)
        return None

    def _binop_step(self, op: str, left: Term, right: Term) -> Term:
        """One step ``left op right`` of a run (two operands: the whole node)."""
        d = self._z.conj((left.defined, right.defined))
        lt, rt = left.ty, right.ty
        if op == "+" and isinstance(lt, TStr) and isinstance(rt, TStr):
            return Term(z3.Concat(left.value, right.value), d, STR)
        if op == "+" and isinstance(lt, TList) and isinstance(rt, TList):
            ty = join(lt, rt)
            if left.value is None and right.value is None:
                return Term(None, d, ty)
            return Term(z3.Concat(coerce(left, ty), coerce(right, ty)), d, ty)
        if isinstance(lt, TDate) or isinstance(rt, TDate):
            return self._date_arith(op, left, right, d)
        if not (is_num(lt) and is_num(rt)):
            raise Unsupported(f"{lt.show()} {op} {rt.show()}")
        if op == "/":
            a, b = coerce(left, REAL), coerce(right, REAL)
            return Term(a / b, conj(d, b != 0), REAL)
        ty = join(lt, rt)
        a, b = coerce(left, ty), coerce(right, ty)
        if op in ("+", "-", "*"):
            return Term(self._arith(op, a, b), d, ty)
        d = conj(d, b != 0)
        # Z3's div is Euclidean; Python floors.  For b > 0 they agree, and
        # floor(a / b) == floor(-a / -b) turns b < 0 into that case.
        q = z3.If(b > 0, a / b, (-a) / (-b)) if isinstance(ty, TInt) else z3.ToReal(z3.ToInt(a / b))
        if op == "//":
            return Term(q, d, ty)
        if op == "%":
            return Term(a - b * q, d, ty)
        raise Unsupported(f"operator {op}")

    def _date_arith(self, op: str, left: Term, right: Term, d: Z) -> Term:
        lt, rt = left.ty, right.ty
        if op == "-" and isinstance(lt, TDate) and isinstance(rt, TDate):
            return Term(left.value - right.value, d, INT)
        if op in ("+", "-") and isinstance(lt, TDate) and isinstance(rt, TInt):
            v = left.value + right.value if op == "+" else left.value - right.value
        elif op == "+" and isinstance(lt, TInt) and isinstance(rt, TDate):
            v = left.value + right.value
        else:
            raise Unsupported(f"{lt.show()} {op} {rt.show()}")
        return Term(v, conj(d, v >= DATE_MIN, v <= DATE_MAX), DATE)

    def visit_boolop(self, n: BoolOp) -> Term:
        terms = [self.visit(o) for o in n.operands]
        if n.op in ("and", "or"):
            d, v = run_and_or(n.op, terms)
            return Term(v, d, BOOL)
        a, b = terms
        if n.op == "implies":
            # `A implies B` is `not A or B`: B is evaluated only when A is true.
            d = conj(a.defined, implies(a.value, b.defined))
            v = implies(a.value, b.value)
        else:  # iff: both sides are always evaluated
            d = conj(a.defined, b.defined)
            v = a.value == b.value
        return Term(v, d, BOOL)

    def visit_if(self, n: IfExpr) -> Term:
        c = self.visit(n.cond)
        a = self.visit(n.then)
        b = self.visit(n.orelse)
        ty = join(a.ty, b.ty)
        if a.value is None and b.value is None:
            return Term(None, conj(c.defined, z3.If(c.value, a.defined, b.defined)), ty)
        value = z3.If(c.value, coerce(a, ty), coerce(b, ty))
        return Term(value, conj(c.defined, z3.If(c.value, a.defined, b.defined)), ty)

    def visit_compare(self, n: Compare) -> Term:
        z = self._z
        operands: list[Term] = []
        defs: list[Z] = []
        for node in n.operands:
            if isinstance(node, Range):
                lo, hi = self.visit(node.lo), self.visit(node.hi)
                operands.append(Term((lo.value, hi.value), z.true, TInt()))
                defs.append(z.conj((lo.defined, hi.defined)))
            else:
                t = self.visit(node)
                operands.append(t)
                defs.append(t.defined)
        links = [
            self._compare(op, operands[i], operands[i + 1], n.operands[i + 1])
            for i, op in enumerate(n.ops)
        ]
        tests = [v for v, _ in links]
        # x0 op1 x1 op2 x2 ...: x_{i+1} is evaluated only if every earlier link held,
        # and a link between values it cannot compare (no common sort) is undefined.
        tail: Z = z.true
        for i in range(len(tests) - 1, 0, -1):
            tail = z.implies(tests[i - 1], z.conj((defs[i + 1], links[i][1], tail)))
        defined = z.conj((defs[0], defs[1], links[0][1], tail))
        return Term(z.conj(tests), defined, BOOL)

    def _compare(self, op: str, a: Term, b: Term, b_node: Expr) -> tuple[Z, Z]:
        """(value, extra definedness) of one link of a chain."""
        if op in ("in", "not in"):
            inside, ok = self._member(a, b, b_node)
            return (inside if op == "in" else z3.Not(inside)), ok
        if op in ("==", "!="):
            eq, ok = self._equal(a, b)
            return (eq if op == "==" else z3.Not(eq)), ok
        x, y = self._ordered(a, b)
        return self._order(op, x, y), self._z.true

    def _equal(self, a: Term, b: Term) -> tuple[Z, Z]:
        if isinstance(a.ty, COMPOUND) or isinstance(b.ty, COMPOUND):
            return self.equal_compound(a, b)
        ty = join(a.ty, b.ty)
        if a.value is None and b.value is None:
            return true(), true()
        try:
            x, y = coerce(a, ty), coerce(b, ty)
        except Unsupported:
            return false(), false()
        if x.sort() != y.sort():
            # Values without a common sort cannot be compared: the link is undefined.
            return false(), false()
        return x == y, true()

    def _ordered(self, a: Term, b: Term) -> tuple[Z, Z]:
        if is_num(a.ty) and is_num(b.ty):
            ty = join(a.ty, b.ty)
            return coerce(a, ty), coerce(b, ty)
        if isinstance(a.ty, TDate) and isinstance(b.ty, TDate):
            return a.value, b.value
        if isinstance(a.ty, TStr) and isinstance(b.ty, TStr):
            return a.value, b.value
        raise Unsupported(f"ordering comparison between {a.ty.show()} and {b.ty.show()}")

    def _member(self, a: Term, b: Term, b_node: Expr) -> tuple[Z, Z]:
        if isinstance(b_node, Range):
            lo, hi = b.value
            if isinstance(a.ty, TReal):
                x = a.value
                return z3.And(z3.IsInt(x), z3.ToReal(lo) <= x, x <= z3.ToReal(hi)), true()
            if not isinstance(a.ty, TInt):
                return false(), false()
            return z3.And(lo <= a.value, a.value <= hi), true()
        if isinstance(b.ty, TStr):
            if not isinstance(a.ty, TStr):
                return false(), false()
            return z3.Contains(b.value, a.value), true()
        if isinstance(b.ty, TDict):
            return self.dict_member(a, b)
        if isinstance(b.ty, TList):
            if b.value is None or isinstance(b.ty.elem, TAny):
                return false(), true()
            elem = join(b.ty.elem, a.ty)
            try:
                seq = coerce(b, TList(elem))
                x = coerce(a, elem)
            except Unsupported:
                return false(), false()
            if x.sort() != seq.sort().basis():
                return false(), false()
            return z3.Contains(seq, z3.Unit(x)), true()
        raise Unsupported(f"`in` between {a.ty.show()} and {b.ty.show()}")

    def visit_count(self, n: Count) -> Term:
        raise Unsupported(
            "count(...) is about a system's history of calls; check does not reason about it"
        )

    def visit_range(self, n: Range) -> Term:
        raise Unsupported("a range LO..HI is only meaningful on the right of `in`")
