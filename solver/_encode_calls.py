"""Encoding indexing and the built-in functions with Python's meaning.

``int(s)`` is defined only on ``[0-9]+`` (Z3's ``str.to_int`` answers -1 elsewhere),
``str(n)`` carries the sign (Z3's ``int.to.str`` answers ""), ``min``/``max`` keep the
first of equal elements; lists of known length are unrolled (``sorted`` becomes a
sorting network), others use the exact recursive definitions of ``_definitions``.
"""

from __future__ import annotations

import z3

from derivative import _regex
from derivative._ast import Call, Index, StrLit
from derivative._types import BOOL, INT, STR, TAny, TDate, TInt, TList, TReal, TStr, Ty, base
from derivative._types import join_base as join

from ._definitions import digits, recfun, regex_for
from ._encode_base import EncoderBase
from ._terms import Term, coerce, const_items, is_num, seq_of, sort_of
from ._z3util import Unsupported, Z, conj, ctx, false, str_val

EMPTY_ELEMENT = "an element of the empty list literal [] (always undefined, but of no known type)"
"""Why ``[][i]`` and ``min([])`` are not encoded: they have no sort to encode them in."""


SORT_UNROLL_LIMIT = 16
"""``sorted`` of a list of known length up to this is a sorting network, not a recursion."""


class Calls(EncoderBase):
    """Indexing and built-in calls (a mixin of ``Encoder``)."""

    def visit_index(self, n: Index) -> Term:
        return self.index_with_base(n, self.visit(n.base))

    def index_with_base(self, n: Index, b: Term) -> Term:
        """``b[i]`` of a list or string ``b`` (already encoded)."""
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

    def _call_product(self, n: Call, args: list[Term], d: Z) -> Term:
        (xs,) = args
        if not isinstance(xs.ty, TList):
            raise Unsupported(f"product of {xs.ty.show()}")
        if xs.value is None or isinstance(xs.ty.elem, TAny):
            return Term(z3.IntVal(1, ctx()), d, INT)
        elem = xs.ty.elem
        if not is_num(elem):
            raise Unsupported(f"product of {xs.ty.show()}")
        ty = base(elem)
        items = const_items(xs.value)
        if items is not None:
            if not items:
                return Term(z3.IntVal(1, ctx()), d, INT)
            total = items[0] if len(items) == 1 else z3.Product(*items)
            return Term(total, d, ty)
        f = recfun("product", xs.value.sort(), sort_of(ty))
        return Term(f(xs.value), d, ty)

    def _call_reversed(self, n: Call, args: list[Term], d: Z) -> Term:
        (xs,) = args
        if not isinstance(xs.ty, TList):
            raise Unsupported(f"reversed of {xs.ty.show()}")
        if xs.value is None:
            return Term(None, d, xs.ty)
        items = const_items(xs.value)
        if items is not None:
            return Term(seq_of(items[::-1], xs.value.sort()), d, xs.ty)
        f = recfun("reversed", xs.value.sort(), sort_of(xs.ty.elem))
        return Term(f(xs.value), d, xs.ty)

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
            return Term(z3.StrToInt(x.value), conj(d, z3.InRe(x.value, digits())), INT)
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
