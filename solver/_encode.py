"""Expression nodes → Z3 terms, with Python's semantics and explicit undefinedness.

Every expression is encoded as a ``Term``: its value, a Boolean ``defined`` that is
true exactly where the evaluator would not answer ``UNDEFINED``, and its resolved
type.  ``defined`` follows Python's left-to-right short-circuit evaluation
(LANGUAGE.md §4): ``false and 1 // 0 == 0`` is defined, ``1 // 0 == 0 and false``
is not.  Where ``defined`` is false the value term is unconstrained and means
nothing; every reader combines the two (``holds = defined ∧ value``).

Where Z3's built-ins differ from the language, the encoding adjusts instead of
trusting them (ARCHITECTURE.md §2):

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
"""

from __future__ import annotations

import builtins
import datetime as _dt
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from derivative import _regex
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
    TBool,
    TDate,
    TEnum,
    TInt,
    TList,
    TReal,
    TStr,
    Ty,
    base,
)
from derivative._types import join_base as join
from derivative._values import EnumValue, Value
from derivative._walk import ExprVisitor

from ._z3util import (
    Unsupported,
    Z,
    conj,
    ctx,
    current,
    disj,
    false,
    fraction_from_z3,
    fraction_val,
    fresh_name,
    implies,
    make_solver,
    str_from_z3,
    str_val,
    true,
)

DATE_MIN = _dt.date.min.toordinal()  # 1
DATE_MAX = _dt.date.max.toordinal()  # 3652059

ALWAYS_RLIMIT = 20_000
"""Resource limit of the small validity check behind ``_always`` (deterministic)."""


def _always(condition: Z, claim: Z) -> bool:
    """Whether ``condition`` implies ``claim`` for every value of every variable: a
    quantifier-free validity check, cheap and deterministic; False when undecided."""
    s = make_solver(ALWAYS_RLIMIT, None, simple=True)
    s.add(condition, z3.Not(claim))
    return bool(s.check() == z3.unsat)


EXPAND_LIMIT = 64
"""A quantifier over a constant range at most this long is unrolled (no Z3 quantifier)."""


EMPTY_ELEMENT = "an element of the empty list literal [] (always undefined, but of no known type)"
"""Why ``[][i]`` and ``min([])`` are not encoded: they have no sort to encode them in."""


# --------------------------------------------------------------------------- sorts


def enum_sort(t: TEnum) -> tuple[Z, dict[str, Z]]:
    """The Z3 enumeration sort of ``t`` and its member constants (made once per context).

    Two contracts may declare enums of the same name with different members; the
    Z3 names are made unique so the sorts never clash.
    """
    env = current()
    key = ("enum", t.name, t.members)
    if key not in env.cache:
        if not t.members:
            raise Unsupported(f"enum {t.name} has no members")
        name = t.name
        for n in itertools.count(2):
            if name not in env.enum_names:
                break
            name = f"{t.name}!{n}"
        env.enum_names.add(name)
        sort, consts = z3.EnumSort(name, [f"{name}.{m}" for m in t.members], ctx())
        env.cache[key] = (sort, dict(zip(t.members, consts, strict=True)))
    result: tuple[Z, dict[str, Z]] = env.cache[key]
    return result


def sort_of(t: Ty) -> Z:
    """The Z3 sort that represents values of ``t``."""
    if isinstance(t, TInt | TDate | TAny):
        return z3.IntSort(ctx())
    if isinstance(t, TBool):
        return z3.BoolSort(ctx())
    if isinstance(t, TReal):
        return z3.RealSort(ctx())
    if isinstance(t, TStr):
        return z3.StringSort(ctx())
    if isinstance(t, TList):
        return z3.SeqSort(sort_of(t.elem))
    if isinstance(t, TEnum):
        return enum_sort(t)[0]
    raise Unsupported(f"values of type {t.show()} cannot be encoded")


def is_num(t: Ty) -> bool:
    return isinstance(t, TInt | TReal)


# --------------------------------------------------------------------------- terms


@dataclass(frozen=True)
class Term:
    """An encoded expression: ``value`` means something only where ``defined`` holds.

    ``value`` is None only for the empty list literal ``[]`` before a context gives
    it an element type.
    """

    value: Z
    defined: Z
    ty: Ty

    @property
    def holds(self) -> Z:
        """For a condition: defined and true (how every obligation is read)."""
        return conj(self.defined, self.value)


def var(name: str, ty: Ty) -> Term:
    """A free variable of type ``ty`` (named so that SMT-LIB stays readable)."""
    return Term(z3.Const(name, sort_of(ty)), true(), ty)


def coerce(term: Term, ty: Ty) -> Z:
    """``term``'s value as a value of ``ty`` (int → real, ``[]`` → a typed empty sequence)."""
    if term.value is None:
        return z3.Empty(sort_of(ty if isinstance(ty, TList) else TList(INT)))
    if isinstance(ty, TReal) and isinstance(term.ty, TInt):
        return z3.ToReal(term.value)
    if isinstance(ty, TList) and isinstance(term.ty, TList) and sort_of(ty) != term.value.sort():
        src, dst = term.ty.elem, ty.elem
        if isinstance(dst, TReal) and isinstance(src, TInt):
            x = z3.FreshConst(z3.IntSort(ctx()), "e")
            return z3.SeqMap(z3.Lambda([x], z3.ToReal(x)), term.value)
        raise Unsupported(f"cannot convert {term.ty.show()} to {ty.show()}")
    return term.value


def intrinsic_domain(value: Z, ty: Ty) -> Z:
    """What every value of the sort must satisfy to be a value of ``ty`` at all.

    Dates are day ordinals within 0001-01-01..9999-12-31; lists of dates carry
    that for every element.  Declared refinements (``int in 0..9``, ``str matching``)
    are *not* here: they are obligations of their own with ids (``x.range``).
    """
    if isinstance(ty, TDate):
        return z3.And(value >= DATE_MIN, value <= DATE_MAX)
    if isinstance(ty, TList) and _has_intrinsic(ty.elem):
        i = z3.FreshInt("i", ctx())
        inner = intrinsic_domain(value[i], ty.elem)
        return z3.ForAll([i], z3.Implies(z3.And(i >= 0, i < z3.Length(value)), inner))
    return true()


def _has_intrinsic(ty: Ty) -> bool:
    return isinstance(ty, TDate) or (isinstance(ty, TList) and _has_intrinsic(ty.elem))


# --------------------------------------------------------------------------- values


def literal(value: Value, ty: Ty) -> Z:
    """The Z3 constant for a runtime value of type ``ty``."""
    if isinstance(ty, TBool):
        return z3.BoolVal(bool(value), ctx())
    if isinstance(ty, TInt):
        assert isinstance(value, int)
        return z3.IntVal(int(value), ctx())
    if isinstance(ty, TReal):
        if isinstance(value, float):
            return fraction_val(Fraction(value))
        assert isinstance(value, int | Fraction)
        return fraction_val(Fraction(value))
    if isinstance(ty, TStr):
        assert isinstance(value, str)
        return str_val(value)
    if isinstance(ty, TDate):
        assert isinstance(value, _dt.date)
        return z3.IntVal(value.toordinal(), ctx())
    if isinstance(ty, TEnum):
        member = value.member if isinstance(value, EnumValue) else str(value)
        return enum_sort(ty)[1][member]
    if isinstance(ty, TList):
        assert isinstance(value, tuple | list)
        return seq_of([literal(v, ty.elem) for v in value], sort_of(ty))
    raise Unsupported(f"values of type {ty.show()} cannot be encoded")


def from_model(model: Z, value: Z, ty: Ty) -> Value:
    """The runtime value that ``model`` gives the term ``value`` of type ``ty``."""
    if isinstance(ty, TInt) and isinstance(value, z3.ArithRef):
        # The common case, without z3py's wrappers: Z3's own evaluation (completing
        # the model exactly as ``model.eval(value, model_completion=True)`` does).
        env = current()
        ref = env.ref
        out = (z3.Ast * 1)()
        if (
            value.ctx is env.ctx
            and model.ctx is env.ctx
            and z3.Z3_model_eval(ref, model.model, value.ast, True, out)
        ):
            result = out[0]
            z3.Z3_inc_ref(ref, result)  # held while we read it, as a z3py term would be
            try:
                if (
                    z3.Z3_get_ast_kind(ref, result) == z3.Z3_NUMERAL_AST
                    and z3.Z3_get_sort_kind(ref, z3.Z3_get_sort(ref, result)) == z3.Z3_INT_SORT
                ):
                    return int(z3.Z3_get_numeral_string(ref, result))
            finally:
                z3.Z3_dec_ref(ref, result)
    v = model.eval(value, model_completion=True)
    if isinstance(ty, TBool):
        if not (z3.is_true(v) or z3.is_false(v)):
            raise Unsupported(f"the model gives no truth value for {value}")
        return bool(z3.is_true(v))
    if isinstance(ty, TInt | TAny):
        if not z3.is_int_value(v):
            raise Unsupported(f"the model gives no integer for {value}")
        return int(v.as_long())
    if isinstance(ty, TReal):
        return fraction_from_z3(v)
    if isinstance(ty, TStr):
        v = z3.simplify(v)
        if not z3.is_string_value(v):
            raise Unsupported(f"the model gives no string for {value}")
        return str_from_z3(v)
    if isinstance(ty, TDate):
        if not z3.is_int_value(v):
            raise Unsupported(f"the model gives no day for {value}")
        n = int(v.as_long())
        if not DATE_MIN <= n <= DATE_MAX:
            raise Unsupported(f"the model gives a day outside the date range for {value}")
        return _dt.date.fromordinal(n)
    if isinstance(ty, TEnum):
        _, consts = enum_sort(ty)
        for member, c in consts.items():
            if c.eq(v):
                return EnumValue(ty.name, member)
        raise Unsupported(f"the model gives no member of {ty.name} for {value}")
    if isinstance(ty, TList):
        n_val = model.eval(z3.Length(value), model_completion=True)
        if not z3.is_int_value(n_val):
            raise Unsupported(f"the model gives no length for {value}")
        n = int(n_val.as_long())
        return tuple(from_model(model, value[i], ty.elem) for i in range(n))
    raise Unsupported(f"values of type {ty.show()} cannot be read back")


# --------------------------------------------------------------------------- recursive functions


def _tail(s: Z) -> Z:
    return z3.SubSeq(s, 1, z3.Length(s) - 1)


def _le(a: Z, b: Z) -> Z:
    return a <= b


def recfun(kind: str, seq_sort: Z, elem_sort: Z) -> Z:
    """An exact recursive definition of a list built-in over ``seq_sort``, made once."""
    cache = current().cache
    key = ("recfun", kind, seq_sort.sexpr())
    if key in cache:
        return cache[key]
    name = fresh_name(kind)
    s = z3.Const("s", seq_sort)
    empty = z3.Length(s) == 0
    if kind == "sum":
        f = z3.RecFunction(name, seq_sort, elem_sort)
        zero = z3.RealVal(0, ctx()) if elem_sort == z3.RealSort(ctx()) else z3.IntVal(0, ctx())
        z3.RecAddDefinition(f, [s], z3.If(empty, zero, s[0] + f(_tail(s))))
    elif kind in ("min", "max"):
        f = z3.RecFunction(name, seq_sort, elem_sort)
        rest = f(_tail(s))
        better = _le(s[0], rest) if kind == "min" else _le(rest, s[0])
        z3.RecAddDefinition(f, [s], z3.If(z3.Length(s) <= 1, s[0], z3.If(better, s[0], rest)))
    elif kind == "occurrences":
        x = z3.Const("x", elem_sort)
        f = z3.RecFunction(name, seq_sort, elem_sort, z3.IntSort(ctx()))
        z3.RecAddDefinition(f, [s, x], z3.If(empty, 0, z3.If(s[0] == x, 1, 0) + f(_tail(s), x)))
    elif kind == "sorted":
        ins = z3.RecFunction(name + "!insert", elem_sort, seq_sort, seq_sort)
        x = z3.Const("x", elem_sort)
        z3.RecAddDefinition(
            ins,
            [x, s],
            z3.If(
                empty,
                z3.Unit(x),
                z3.If(
                    _le(x, s[0]),
                    z3.Concat(z3.Unit(x), s),
                    z3.Concat(z3.Unit(s[0]), ins(x, _tail(s))),
                ),
            ),
        )
        f = z3.RecFunction(name, seq_sort, seq_sort)
        z3.RecAddDefinition(f, [s], z3.If(empty, z3.Empty(seq_sort), ins(s[0], f(_tail(s)))))
    else:  # pragma: no cover - programming error
        raise ValueError(kind)
    cache[key] = f
    return f


# --------------------------------------------------------------------------- regexes


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = max(nxt, hi + 1)
    if nxt <= 0x2FFFF:
        out.append((nxt, 0x2FFFF))
    return tuple(out)


def _char_ranges(ranges: tuple[tuple[int, int], ...]) -> Z:
    re_sort = z3.ReSort(z3.StringSort(ctx()))
    parts = [
        z3.Range(str_val(chr(lo)), str_val(chr(min(hi, 0x2FFFF))))
        for lo, hi in ranges
        if lo <= 0x2FFFF
    ]
    if not parts:
        return z3.Empty(re_sort)
    return parts[0] if len(parts) == 1 else z3.Union(*parts)


def regex_to_z3(node: _regex.RNode) -> Z:
    """The Z3 regular expression of a parsed spec regex (a full match; ``.`` ≠ newline)."""
    if isinstance(node, _regex.REmpty):
        return z3.Re(str_val(""))
    if isinstance(node, _regex.RChar):
        return z3.Re(str_val(node.char))
    if isinstance(node, _regex.RAny):
        return _char_ranges(((0, 9), (11, 0x2FFFF)))
    if isinstance(node, _regex.RClass):
        ranges = _complement(node.ranges) if node.negated else node.ranges
        return _char_ranges(ranges)
    if isinstance(node, _regex.RConcat):
        parts = [regex_to_z3(n) for n in node.items]
        return parts[0] if len(parts) == 1 else z3.Concat(*parts)
    if isinstance(node, _regex.RAlt):
        parts = [regex_to_z3(n) for n in node.options]
        return parts[0] if len(parts) == 1 else z3.Union(*parts)
    if isinstance(node, _regex.RRepeat):
        inner = regex_to_z3(node.node)
        lo, hi = node.min, node.max
        if hi is None:
            if lo == 0:
                return z3.Star(inner)
            if lo == 1:
                return z3.Plus(inner)
            return z3.Concat(z3.Loop(inner, lo, lo), z3.Star(inner))
        if hi == 0:
            # Z3's loop reads an upper bound of 0 as "unbounded": spell {0} out.
            return z3.Re(str_val(""))
        if (lo, hi) == (0, 1):
            return z3.Option(inner)
        return z3.Loop(inner, lo, hi)
    raise Unsupported(f"unknown regex node {node!r}")


def regex_for(pattern: str) -> Z:
    """The Z3 regex of a spec pattern (cached; ``RegexError`` outside the subset)."""
    cache = current().cache
    key = ("regex", pattern)
    if key not in cache:
        cache[key] = regex_to_z3(_regex.parse(pattern))
    return cache[key]


def _digits() -> Z:
    """``[0-9]+``: the only strings ``int(s)`` is defined on."""
    cache = current().cache
    if "digits" not in cache:
        cache["digits"] = z3.Plus(z3.Range(str_val("0"), str_val("9")))
    return cache["digits"]


# --------------------------------------------------------------------------- the walker

CallHook = Callable[[Call, list[Term]], Term | None]
"""Gives the term of a call to a spec function (examples); None for built-ins."""


def _fold_and(items: list[Term]) -> tuple[Z, Z]:
    """(defined, value) of ``a and b and ...`` with short-circuit, left to right."""
    d: Z = true()
    v: Z = true()
    for t in reversed(items):
        d = conj(t.defined, implies(t.value, d))
        v = conj(t.value, v)
    return d, v


def _fold_or(items: list[Term]) -> tuple[Z, Z]:
    d: Z = true()
    v: Z = false()
    for t in reversed(items):
        d = conj(t.defined, disj(t.value, d))
        v = disj(t.value, v)
    return d, v


SORT_UNROLL_LIMIT = 16
"""``sorted`` of a list of known length up to this is a sorting network, not a recursion."""


def const_items(seq: Z, limit: int = EXPAND_LIMIT) -> list[Z] | None:
    """The elements of a sequence term whose length is a known constant (else None)."""
    length = z3.simplify(z3.Length(seq))
    if not z3.is_int_value(length) or length.as_long() > limit:
        return None
    return [z3.simplify(seq[k]) for k in range(length.as_long())]


def seq_of(items: Sequence[Z], sort: Z | None = None) -> Z:
    """The sequence of ``items``; ``sort`` (the sequence sort) is needed only when empty."""
    if not items:
        assert sort is not None, "an empty sequence needs its sort"
        return z3.Empty(sort)
    units = [z3.Unit(x) for x in items]
    return units[0] if len(units) == 1 else z3.Concat(*units)


_ARITH_API: dict[str, Callable[..., Any]] = {
    "+": z3.Z3_mk_add,
    "-": z3.Z3_mk_sub,
    "*": z3.Z3_mk_mul,
}
_ORDER_API: dict[str, Callable[..., Any]] = {
    "<": z3.Z3_mk_lt,
    "<=": z3.Z3_mk_le,
    ">": z3.Z3_mk_gt,
    ">=": z3.Z3_mk_ge,
}

_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}

_VISITORS: dict[tuple[type, str], Callable[[Any, Any], Any]] = {}
"""``visit_<kind>`` per encoder class and node kind, looked up once."""


class Encoder(ExprVisitor[Term]):
    """Encodes expressions over an environment of named terms.

    ``env`` maps names (params, function parameters, ``"result"``) to terms;
    ``consts`` maps constant names to their value and type (constants are fixed,
    so they are encoded as literals); ``enums`` resolves ``Enum.member``.
    """

    def __init__(
        self,
        env: Mapping[str, Term],
        consts: Mapping[str, tuple[Value, Ty]] | None = None,
        enums: Mapping[str, TEnum] | None = None,
        call_hook: CallHook | None = None,
        expand_limit: int = EXPAND_LIMIT,
    ) -> None:
        self.env: dict[str, Term] = dict(env)
        self.consts = dict(consts or {})
        self.enums = dict(enums or {})
        self.call_hook = call_hook
        self.expand_limit = expand_limit
        # The Z3 environment the terms are built in (an encoder lives in one context).
        self._z = current()

    # ------------------------------------------------------------------ helpers

    def encode(self, expr: Expr) -> Term:
        return self.visit(expr)

    def visit(self, node: Expr) -> Term:
        """``visit_<kind>`` as ``ExprVisitor`` dispatches it, with the bound method
        looked up once per kind (large specs visit hundreds of thousands of nodes)."""
        key = (type(self), node.kind)
        method = _VISITORS.get(key)
        if method is None:
            method = getattr(type(self), "visit_" + node.kind, None)
            if method is None:
                return self.generic_visit(node)
            # Functions, not bound methods: a bound method held by the encoder would
            # make it a reference cycle, keep its terms alive until the cyclic
            # collector runs, and so change the ids Z3 hands out afterwards (and with
            # them its search).
            _VISITORS[key] = method
        result: Term = method(self, node)
        return result

    def _arith(self, op: str, a: Z, b: Z) -> Z:
        """``a op b`` for ``+ - *`` on arithmetic terms.

        Through the C API when both are arithmetic terms of the encoder's context:
        the same term z3py's operators build (Z3 itself lifts an int operand to real
        exactly as z3py does), without z3py's sort look-ups and coercions.
        """
        z = self._z
        if (
            isinstance(a, z3.ArithRef)
            and isinstance(b, z3.ArithRef)
            and a.ctx is z.ctx
            and b.ctx is z.ctx
        ):
            arr = (z3.Ast * 2)(a.ast, b.ast)
            return z3.ArithRef(_ARITH_API[op](z.ref, 2, arr), z.ctx)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        return a * b

    def _order(self, op: str, a: Z, b: Z) -> Z:
        """``a op b`` for ``< <= > >=`` (arithmetic through the C API, as ``_arith``)."""
        z = self._z
        if (
            isinstance(a, z3.ArithRef)
            and isinstance(b, z3.ArithRef)
            and a.ctx is z.ctx
            and b.ctx is z.ctx
        ):
            ta, tb = type(a), type(b)
            if tb is not ta and issubclass(tb, ta):
                # Python tries the right operand's reflected comparison first when its
                # type is a proper subclass (a numeral on the right of a plain term):
                # ``x >= 1`` is built by z3py as ``1 <= x``.  Build the same term.
                return z3.BoolRef(_ORDER_API[_MIRROR[op]](z.ref, b.ast, a.ast), z.ctx)
            return z3.BoolRef(_ORDER_API[op](z.ref, a.ast, b.ast), z.ctx)
        if op == "<":
            return a < b
        if op == "<=":
            return a <= b
        if op == ">":
            return a > b
        return a >= b

    def _with(self, name: str, term: Term, expr: Expr) -> Term:
        saved = self.env.get(name)
        self.env[name] = term
        try:
            return self.visit(expr)
        finally:
            if saved is None:
                del self.env[name]
            else:
                self.env[name] = saved

    def generic_visit(self, node: Expr) -> Term:
        raise Unsupported(f"expressions of kind {node.kind!r} cannot be encoded")

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
        left = self.visit(n.left)
        right = self.visit(n.right)
        d = self._z.conj((left.defined, right.defined))
        lt, rt, op = left.ty, right.ty, n.op
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
        a = self.visit(n.left)
        b = self.visit(n.right)
        if n.op == "and":
            d, v = _fold_and([a, b])
        elif n.op == "or":
            d, v = _fold_or([a, b])
        elif n.op == "implies":
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

    # ------------------------------------------------------------------ quantifiers

    def visit_quant(self, n: Quantifier) -> Term:
        lo, hi = self.visit(n.lo), self.visit(n.hi)
        if not (isinstance(lo.ty, TInt) and isinstance(hi.ty, TInt)):
            raise Unsupported("quantifier bounds must be integers")
        bounds_defined = conj(lo.defined, hi.defined)
        slo, shi = z3.simplify(lo.value), z3.simplify(hi.value)
        if z3.is_int_value(slo) and z3.is_int_value(shi):
            a, b = slo.as_long(), shi.as_long()
            if b - a + 1 <= self.expand_limit:
                items = [
                    self._with(n.var, Term(z3.IntVal(k, ctx()), true(), INT), n.body)
                    for k in range(a, b + 1)
                ]
                d, v = _fold_and(items) if n.quantifier == "forall" else _fold_or(items)
                return Term(v, conj(bounds_defined, d), BOOL)
        i = z3.FreshInt(n.var, ctx())
        body = self._with(n.var, Term(i, true(), INT), n.body)
        in_range = z3.And(lo.value <= i, i <= hi.value)
        d, v = self._symbolic_all_any(n.quantifier == "forall", i, in_range, body, lo.value)
        return Term(v, conj(bounds_defined, d), BOOL)

    def _symbolic_all_any(
        self, is_all: bool, i: Z, in_range: Z, body: Term, first: Z
    ) -> tuple[Z, Z]:
        """(defined, value) of all()/any() over ``i`` in a symbolic range.

        Short-circuit: element ``i`` is evaluated only if every earlier element was
        defined and true (all) / defined and false (any).
        """
        if not z3.is_true(z3.simplify(body.defined)) and _always(in_range, body.defined):
            # Every element in the range is defined (``xs[i]`` for ``i`` in
            # ``0..len(xs) - 1``): short-circuiting cannot matter, and the quantified
            # definedness (which Z3's instantiation often cannot decide) is not needed.
            body = Term(body.value, true(), body.ty)
        if is_all:
            value = z3.ForAll([i], z3.Implies(in_range, conj(body.defined, body.value)))
        else:
            value = z3.Exists([i], conj(in_range, body.defined, body.value))
        if z3.is_true(z3.simplify(body.defined)):
            return true(), value
        j = z3.FreshInt("j", ctx())
        bj_d = z3.substitute(body.defined, (i, j))
        bj_v = z3.substitute(body.value, (i, j))
        earlier_continue = conj(bj_d, bj_v) if is_all else conj(bj_d, z3.Not(bj_v))
        reached = z3.ForAll([j], z3.Implies(z3.And(first <= j, j < i), earlier_continue))
        defined = z3.ForAll([i], z3.Implies(z3.And(in_range, reached), body.defined))
        return defined, value

    def visit_gen(self, n: Generator) -> Term:
        it = self.visit(n.iterable)
        is_all = n.func == "all"
        if isinstance(it.ty, TList):
            if it.value is None or isinstance(it.ty.elem, TAny):
                return Term(z3.BoolVal(is_all, ctx()), it.defined, BOOL)
            elem_ty = it.ty.elem

            def element(k: Z) -> Z:
                return it.value[k]
        elif isinstance(it.ty, TStr):
            # The language iterates lists only; over a string the generator is undefined.
            return Term(z3.BoolVal(is_all, ctx()), false(), BOOL)
        else:
            raise Unsupported(f"iterating over {it.ty.show()}")
        length = z3.simplify(z3.Length(it.value))
        if z3.is_int_value(length) and length.as_long() <= self.expand_limit:
            items = [
                self._with(
                    n.var, Term(z3.simplify(element(z3.IntVal(k, ctx()))), true(), elem_ty), n.body
                )
                for k in range(length.as_long())
            ]
            d, v = _fold_and(items) if is_all else _fold_or(items)
            return Term(v, conj(it.defined, d), BOOL)
        i = z3.FreshInt("k", ctx())
        body = self._with(n.var, Term(element(i), true(), elem_ty), n.body)
        in_range = z3.And(i >= 0, i < z3.Length(it.value))
        d, v = self._symbolic_all_any(is_all, i, in_range, body, z3.IntVal(0, ctx()))
        return Term(v, conj(it.defined, d), BOOL)

    def visit_count(self, n: Count) -> Term:
        raise Unsupported(
            "count(...) is about a system's history of calls; check does not reason about it"
        )

    def visit_range(self, n: Range) -> Term:
        raise Unsupported("a range LO..HI is only meaningful on the right of `in`")

    # ------------------------------------------------------------------ indexing and calls

    def visit_index(self, n: Index) -> Term:
        b = self.visit(n.base)
        i = self.visit(n.index)
        if not isinstance(i.ty, TInt):
            raise Unsupported("an index must be an integer")
        if isinstance(b.ty, TList):
            if b.value is None:
                raise Unsupported(EMPTY_ELEMENT)
            ok = z3.And(i.value >= 0, i.value < z3.Length(b.value))
            return Term(b.value[i.value], conj(b.defined, i.defined, ok), b.ty.elem)
        if isinstance(b.ty, TStr):
            ok = z3.And(i.value >= 0, i.value < z3.Length(b.value))
            return Term(z3.SubString(b.value, i.value, 1), conj(b.defined, i.defined, ok), STR)
        raise Unsupported(f"indexing {b.ty.show()}")

    def visit_call(self, n: Call) -> Term:
        args = [self.visit(a) for a in n.args]
        if self.call_hook is not None:
            hooked = self.call_hook(n, args)
            if hooked is not None:
                return hooked
        method = getattr(self, "_call_" + n.func, None)
        if method is None:
            raise Unsupported(f"calls of {n.func!r} cannot be encoded here")
        d = conj(*[a.defined for a in args])
        term: Term = method(n, args, d)
        return term

    def _call_len(self, n: Call, args: list[Term], d: Z) -> Term:
        (x,) = args
        if x.value is None:
            return Term(z3.IntVal(0, ctx()), d, INT)
        if not isinstance(x.ty, TStr | TList):
            raise Unsupported(f"len of {x.ty.show()}")
        return Term(z3.Length(x.value), d, INT)

    def _call_abs(self, n: Call, args: list[Term], d: Z) -> Term:
        (x,) = args
        if not is_num(x.ty):
            raise Unsupported(f"abs of {x.ty.show()}")
        return Term(z3.If(x.value < 0, -x.value, x.value), d, base(x.ty))

    def _minmax(self, kind: str, args: list[Term], d: Z) -> Term:
        if len(args) == 1:
            (xs,) = args
            if not isinstance(xs.ty, TList):
                raise Unsupported(f"{kind} of {xs.ty.show()}")
            if xs.value is None or isinstance(xs.ty.elem, TAny):
                raise Unsupported(EMPTY_ELEMENT)
            elem = xs.ty.elem
            self._check_orderable(elem)
            nonempty = conj(d, z3.Length(xs.value) > 0)
            items = const_items(xs.value)
            if items is not None:
                if not items:
                    return Term(z3.FreshConst(sort_of(elem)), false(), elem)
                return Term(self._fold_extreme(kind, items), nonempty, elem)
            f = recfun(kind, xs.value.sort(), sort_of(elem))
            return Term(f(xs.value), nonempty, elem)
        ty: Ty = TAny()
        for a in args:
            ty = join(ty, a.ty)
        self._check_orderable(ty)
        return Term(self._fold_extreme(kind, [coerce(a, ty) for a in args]), d, ty)

    @staticmethod
    def _fold_extreme(kind: str, values: list[Z]) -> Z:
        acc = values[0]
        for v in values[1:]:
            # Python keeps the first of equal elements: only a strictly better one replaces.
            acc = z3.If(v < acc, v, acc) if kind == "min" else z3.If(v > acc, v, acc)
        return acc

    @staticmethod
    def _check_orderable(ty: Ty) -> None:
        if not isinstance(ty, TInt | TReal | TStr | TDate):
            raise Unsupported(f"ordering values of type {ty.show()}")

    def _call_min(self, n: Call, args: list[Term], d: Z) -> Term:
        return self._minmax("min", args, d)

    def _call_max(self, n: Call, args: list[Term], d: Z) -> Term:
        return self._minmax("max", args, d)

    def _call_sum(self, n: Call, args: list[Term], d: Z) -> Term:
        (xs,) = args
        if not isinstance(xs.ty, TList):
            raise Unsupported(f"sum of {xs.ty.show()}")
        if xs.value is None or isinstance(xs.ty.elem, TAny):
            return Term(z3.IntVal(0, ctx()), d, INT)
        elem = xs.ty.elem
        if not is_num(elem):
            raise Unsupported(f"sum of {xs.ty.show()}")
        ty = base(elem)
        items = const_items(xs.value)
        if items is not None:
            zero = z3.RealVal(0, ctx()) if isinstance(ty, TReal) else z3.IntVal(0, ctx())
            if not items:
                return Term(z3.IntVal(0, ctx()), d, INT)
            total = items[0] if len(items) == 1 else z3.Sum(*items)
            return Term(total if items else zero, d, ty)
        f = recfun("sum", xs.value.sort(), sort_of(ty))
        return Term(f(xs.value), d, ty)

    def _call_sorted(self, n: Call, args: list[Term], d: Z) -> Term:
        (xs,) = args
        if not isinstance(xs.ty, TList):
            raise Unsupported(f"sorted of {xs.ty.show()}")
        if xs.value is None:
            return Term(None, d, xs.ty)
        self._check_orderable(xs.ty.elem)
        items = const_items(xs.value, SORT_UNROLL_LIMIT)
        if items is not None:
            # Odd-even transposition sort: n rounds of compare-exchange sort any n values.
            for r in range(len(items)):
                for k in range(r % 2, len(items) - 1, 2):
                    a, b = items[k], items[k + 1]
                    items[k], items[k + 1] = z3.If(a <= b, a, b), z3.If(a <= b, b, a)
            return Term(seq_of(items, xs.value.sort()), d, xs.ty)
        f = recfun("sorted", xs.value.sort(), sort_of(xs.ty.elem))
        return Term(f(xs.value), d, xs.ty)

    def _call_occurrences(self, n: Call, args: list[Term], d: Z) -> Term:
        xs, v = args
        if not isinstance(xs.ty, TList):
            raise Unsupported(f"occurrences in {xs.ty.show()}")
        if xs.value is None or isinstance(xs.ty.elem, TAny):
            return Term(z3.IntVal(0, ctx()), d, INT)
        elem = join(xs.ty.elem, v.ty)
        seq = coerce(xs, TList(elem))
        x = coerce(v, elem)
        if x.sort() != seq.sort().basis():
            return Term(z3.IntVal(0, ctx()), d, INT)
        items = const_items(seq)
        if items is not None:
            if not items:
                return Term(z3.IntVal(0, ctx()), d, INT)
            hits = [z3.If(item == x, 1, 0) for item in items]
            return Term(hits[0] if len(hits) == 1 else z3.Sum(*hits), d, INT)
        f = recfun("occurrences", seq.sort(), x.sort())
        return Term(f(seq, x), d, INT)

    def _call_int(self, n: Call, args: list[Term], d: Z) -> Term:
        (x,) = args
        if isinstance(x.ty, TStr):
            # str.to_int answers -1 outside digit strings: guard with the regex.
            return Term(z3.StrToInt(x.value), conj(d, z3.InRe(x.value, _digits())), INT)
        return Term(z3.IntVal(0, ctx()), false(), INT)  # int() of a non-string

    def _call_str(self, n: Call, args: list[Term], d: Z) -> Term:
        (x,) = args
        if isinstance(x.ty, TInt):
            v = x.value
            # int.to.str answers "" for negatives: put the sign on by hand.
            text = z3.If(v >= 0, z3.IntToStr(v), z3.Concat(str_val("-"), z3.IntToStr(-v)))
            return Term(text, d, STR)
        return Term(str_val(""), false(), STR)  # str() of a non-int

    def _call_matches(self, n: Call, args: list[Term], d: Z) -> Term:
        s, _ = args
        pattern = n.args[1]
        if not isinstance(pattern, StrLit):
            raise Unsupported("matches() needs a literal pattern")
        try:
            regex = regex_for(pattern.value)
        except _regex.RegexError as exc:
            raise Unsupported(f"pattern {pattern.value!r}: {exc.message}") from exc
        return Term(z3.InRe(s.value, regex), d, BOOL)

    def _call_startswith(self, n: Call, args: list[Term], d: Z) -> Term:
        s, p = args
        return Term(z3.PrefixOf(p.value, s.value), d, BOOL)

    def _call_endswith(self, n: Call, args: list[Term], d: Z) -> Term:
        s, p = args
        return Term(z3.SuffixOf(p.value, s.value), d, BOOL)

    def _call_contains(self, n: Call, args: list[Term], d: Z) -> Term:
        s, p = args
        return Term(z3.Contains(s.value, p.value), d, BOOL)


# --------------------------------------------------------------------------- exceptions


def _builtin_mro(name: str) -> tuple[str, ...] | None:
    obj: Any = getattr(builtins, name, None)
    if isinstance(obj, type) and issubclass(obj, BaseException):
        return tuple(c.__name__ for c in obj.__mro__)
    return None


def exception_ancestors(name: str, declared: Mapping[str, str]) -> tuple[str, ...]:
    """``name`` and its bases, nearest first: declared exceptions, then Python's built-ins."""
    out: list[str] = []
    current: str | None = name
    while current is not None and current not in out:
        if current in declared:
            out.append(current)
            current = declared[current]
            continue
        mro = _builtin_mro(current)
        if mro is None:
            out.append(current)
        else:
            out.extend(m for m in mro if m not in out)
        current = None
    return tuple(out)


def is_subclass(sub: str, sup: str, declared: Mapping[str, str]) -> bool:
    return sup in exception_ancestors(sub, declared)
