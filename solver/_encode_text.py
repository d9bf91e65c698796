"""Encoding ``**`` and the text built-ins with the language's meaning (docs/language.md §7.5).

- ``a ** n`` is defined only for ``n >= 0``.  A constant exponent (after
  simplification: a literal, or an expression over fixed values) up to
  ``POWER_UNROLL_LIMIT`` becomes products by repeated squaring; any other exponent
  an exact recursive definition (``pow(a, n) = a * pow(a, n - 1)``), about which Z3
  may answer ``unknown`` but never something false.
- ``lower``/``upper`` map ASCII letters only, ``strip`` removes ASCII white space
  only (``_evaltext.ASCII_SPACE``): both exactly what Z3's code points can say.  A
  string of known length is unrolled character by character; otherwise the
  functions are recursive definitions over the string.
- ``split(s, sep)`` needs ``sep != ""``; ``join(sep, xs)`` of a list of known length
  is one concatenation, otherwise a recursive definition.
- ``ord(c)`` needs ``len(c) == 1`` (``str.to_code`` answers -1 elsewhere), ``chr(n)``
  needs ``0 <= n <= 0x2FFFF`` (``str.from_code`` answers "" elsewhere), Z3's own
  character range.
"""

from __future__ import annotations

from collections.abc import Callable

import z3

from derivative._ast import Call
from derivative._types import INT, STR, TAny, TInt, TList, TReal, TStr, Ty, base

from ._encode_base import EncoderBase
from ._terms import Term, coerce, const_items, is_num
from ._z3util import Unsupported, Z, conj, ctx, current, false, fresh_name, str_val

POWER_UNROLL_LIMIT = 4096
"""A constant exponent up to this is spelled as products (at most 24 of them)."""

STRING_UNROLL_LIMIT = 64
"""A string of known length up to this is mapped character by character."""

MAX_CHAR = 0x2FFFF
"""Z3's largest character, and the language's."""

ASCII_SPACE = " \t\n\r\x0b\x0c"
"""What ``strip`` removes (the same set as ``derivative._evaltext.ASCII_SPACE``,
written again here: the readings are checked against each other)."""


# --------------------------------------------------------------------------- helpers


def _rest(s: Z) -> Z:
    """``s`` without its first character (or element)."""
    return z3.SubSeq(s, 1, z3.Length(s) - 1)


def _case_char(c: Z, to_lower: bool) -> Z:
    """One character (a string of length 1) with its ASCII case mapped."""
    code = z3.StrToCode(c)
    lo, hi, shift = (65, 90, 32) if to_lower else (97, 122, -32)
    return z3.If(z3.And(code >= lo, code <= hi), z3.StrFromCode(code + shift), c)


def _is_space(c: Z) -> Z:
    return z3.Or(*[c == str_val(ch) for ch in ASCII_SPACE])


def _known_length(s: Z) -> int | None:
    n = z3.simplify(z3.Length(s))
    if z3.is_int_value(n) and n.as_long() <= STRING_UNROLL_LIMIT:
        return int(n.as_long())
    return None


def _defined_once(key: str, make: Callable[[], Z]) -> Z:
    """A recursive function of this context, defined once (``make`` builds it)."""
    cache = current().cache
    if key not in cache:
        cache[key] = make()
    return cache[key]


def _case_fun(to_lower: bool) -> Z:
    def make() -> Z:
        s_sort = z3.StringSort(ctx())
        f = z3.RecFunction(fresh_name("lower" if to_lower else "upper"), s_sort, s_sort)
        s = z3.Const("s", s_sort)
        head = _case_char(z3.SubString(s, 0, 1), to_lower)
        z3.RecAddDefinition(
            f, [s], z3.If(z3.Length(s) == 0, str_val(""), z3.Concat(head, f(_rest(s))))
        )
        return f

    return _defined_once("text.lower" if to_lower else "text.upper", make)


def _strip_funs() -> tuple[Z, Z]:
    def make_left() -> Z:
        s_sort = z3.StringSort(ctx())
        f = z3.RecFunction(fresh_name("lstrip"), s_sort, s_sort)
        s = z3.Const("s", s_sort)
        strips = z3.And(z3.Length(s) > 0, _is_space(z3.SubString(s, 0, 1)))
        z3.RecAddDefinition(f, [s], z3.If(strips, f(_rest(s)), s))
        return f

    def make_right() -> Z:
        s_sort = z3.StringSort(ctx())
        f = z3.RecFunction(fresh_name("rstrip"), s_sort, s_sort)
        s = z3.Const("s", s_sort)
        last = z3.Length(s) - 1
        strips = z3.And(z3.Length(s) > 0, _is_space(z3.SubString(s, last, 1)))
        z3.RecAddDefinition(f, [s], z3.If(strips, f(z3.SubString(s, 0, last)), s))
        return f

    return _defined_once("text.lstrip", make_left), _defined_once("text.rstrip", make_right)


def _split_fun() -> Z:
    def make() -> Z:
        s_sort = z3.StringSort(ctx())
        seq = z3.SeqSort(s_sort)
        f = z3.RecFunction(fresh_name("split"), s_sort, s_sort, z3.IntSort(ctx()), seq)
        s, sep = z3.Const("s", s_sort), z3.Const("sep", s_sort)
        i = z3.Int("i", ctx())
        # The pieces of s from position i on: walking one string by index, as the
        # SMT-LIB helper does.  (A definition that recursed on the rest of the string
        # sent Z3's rewriter into an endless loop on a constant ending in a separator,
        # "a,", while it asserted the formula, past every resource limit.)
        j = z3.IndexOf(s, sep, i)
        last = z3.Unit(z3.SubString(s, i, z3.Length(s) - i))
        more = z3.Concat(z3.Unit(z3.SubString(s, i, j - i)), f(s, sep, j + z3.Length(sep)))
        # An empty separator is undefined (the caller's guard); the definition
        # answers [] there so that it never unfolds forever.
        body = z3.If(z3.Length(sep) == 0, z3.Empty(seq), z3.If(j < 0, last, more))
        z3.RecAddDefinition(f, [s, sep, i], body)
        return f

    return _defined_once("text.split", make)


def _join_fun() -> Z:
    def make() -> Z:
        s_sort = z3.StringSort(ctx())
        seq = z3.SeqSort(s_sort)
        f = z3.RecFunction(fresh_name("join"), s_sort, seq, s_sort)
        sep, xs = z3.Const("sep", s_sort), z3.Const("xs", seq)
        body = z3.If(
            z3.Length(xs) == 0,
            str_val(""),
            z3.If(z3.Length(xs) == 1, xs[0], z3.Concat(xs[0], sep, f(sep, _rest(xs)))),
        )
        z3.RecAddDefinition(f, [sep, xs], body)
        return f

    return _defined_once("text.join", make)


def _pow_fun(sort: Z) -> Z:
    def make() -> Z:
        f = z3.RecFunction(fresh_name("pow"), sort, z3.IntSort(ctx()), sort)
        a, n = z3.Const("a", sort), z3.Int("n", ctx())
        one = z3.RealVal(1, ctx()) if sort == z3.RealSort(ctx()) else z3.IntVal(1, ctx())
        z3.RecAddDefinition(f, [a, n], z3.If(n <= 0, one, a * f(a, n - 1)))
        return f

    return _defined_once("text.pow." + sort.sexpr(), make)


def _squarings(a: Z, k: int, one: Z) -> Z:
    """``a ** k`` for a constant ``k >= 0`` as products by repeated squaring."""
    acc: Z | None = None
    square = a
    while k:
        if k & 1:
            acc = square if acc is None else acc * square
        k >>= 1
        if k:
            square = square * square
    return one if acc is None else acc


# --------------------------------------------------------------------------- the mixin


class TextCalls(EncoderBase):
    """``**`` and the text built-ins (a mixin of ``Encoder``)."""

    def _power(self, left: Term, right: Term) -> Term:
        if not (is_num(left.ty) and isinstance(right.ty, TInt)):
            raise Unsupported(f"{left.ty.show()} ** {right.ty.show()}")
        ty: Ty = base(left.ty)
        a = coerce(left, ty)
        one = z3.RealVal(1, ctx()) if isinstance(ty, TReal) else z3.IntVal(1, ctx())
        d = self._z.conj((left.defined, right.defined))
        k = z3.simplify(right.value)
        if z3.is_int_value(k):
            n = k.as_long()
            if n < 0:
                return Term(one, false(), ty)
            if n <= POWER_UNROLL_LIMIT:
                return Term(_squarings(a, n, one), d, ty)
        value = _pow_fun(a.sort())(a, right.value)
        return Term(value, conj(d, right.value >= 0), ty)

    def _string_arg(self, n: Call, t: Term) -> Z:
        if not isinstance(t.ty, TStr):
            raise Unsupported(f"{n.func}() of {t.ty.show()}")
        return t.value

    def _case(self, n: Call, args: list[Term], d: Z, to_lower: bool) -> Term:
        s = self._string_arg(n, args[0])
        size = _known_length(s)
        if size is None:
            return Term(_case_fun(to_lower)(s), d, STR)
        if size == 0:
            return Term(str_val(""), d, STR)
        chars = [_case_char(z3.SubString(s, i, 1), to_lower) for i in range(size)]
        return Term(chars[0] if size == 1 else z3.Concat(*chars), d, STR)

    def _call_lower(self, n: Call, args: list[Term], d: Z) -> Term:
        return self._case(n, args, d, to_lower=True)

    def _call_upper(self, n: Call, args: list[Term], d: Z) -> Term:
        return self._case(n, args, d, to_lower=False)

    def _call_strip(self, n: Call, args: list[Term], d: Z) -> Term:
        s = self._string_arg(n, args[0])
        left, right = _strip_funs()
        return Term(right(left(s)), d, STR)

    def _call_split(self, n: Call, args: list[Term], d: Z) -> Term:
        s = self._string_arg(n, args[0])
        sep = self._string_arg(n, args[1])
        zero = z3.IntVal(0, ctx())
        return Term(_split_fun()(s, sep, zero), conj(d, z3.Length(sep) > 0), TList(STR))

    def _call_join(self, n: Call, args: list[Term], d: Z) -> Term:
        sep = self._string_arg(n, args[0])
        xs_t = args[1]
        if not isinstance(xs_t.ty, TList):
            raise Unsupported(f"join() of {xs_t.ty.show()}")
        if xs_t.value is None or isinstance(xs_t.ty.elem, TAny):
            # [] (or a list that can only be []: its items have no type)
            return Term(str_val(""), d, STR)
        xs = coerce(xs_t, TList(STR))
        items = const_items(xs)
        if items is None:
            return Term(_join_fun()(sep, xs), d, STR)
        if not items:
            return Term(str_val(""), d, STR)
        parts: list[Z] = [items[0]]
        for x in items[1:]:
            parts += [sep, x]
        return Term(parts[0] if len(parts) == 1 else z3.Concat(*parts), d, STR)

    def _call_ord(self, n: Call, args: list[Term], d: Z) -> Term:
        c = self._string_arg(n, args[0])
        return Term(z3.StrToCode(c), conj(d, z3.Length(c) == 1), INT)

    def _call_chr(self, n: Call, args: list[Term], d: Z) -> Term:
        (x,) = args
        if not isinstance(x.ty, TInt):
            raise Unsupported(f"chr() of {x.ty.show()}")
        v = x.value
        return Term(z3.StrFromCode(v), conj(d, v >= 0, v <= MAX_CHAR), STR)
