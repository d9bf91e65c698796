"""Encoding slices and list comprehensions with Python's meaning (a mixin of ``Encoder``).

A slice ``s[lo:hi]`` normalises each bound as Python does (a negative one counts from the
end, one past an end is clamped) and is then one ``seq.extract``; it is never undefined
itself.  A comprehension over a list of known length is unrolled (a concatenation of
``ite(cond, [item], [])``, decidable); over a list of unknown length it is Z3's
``seq.map`` (no condition) or a ``seq.foldl`` that appends the kept items, exact but
often beyond what Z3 decides (the question is then ``unknown``, never guessed).
Python evaluates every element's condition and, where it holds, its item, so the
comprehension is defined exactly when every one of those is.
"""

from __future__ import annotations

import z3

from derivative._ast import ListComp, Slice
from derivative._types import TAny, TList, TStr, Ty
from derivative._types import join_base as join

from ._encode_base import EncoderBase
from ._terms import Term, coerce, const_items, sort_of
from ._z3util import Unsupported, Z, conj, ctx, true


def _bound(b: Z | None, n: Z, default: Z) -> Z:
    """Python's normalisation of one slice bound against the length ``n``."""
    if b is None:
        return default
    return z3.If(b < 0, z3.If(b + n < 0, 0, b + n), z3.If(b > n, n, b))


class Lists(EncoderBase):
    """Slices and list comprehensions (a mixin of ``Encoder``)."""

    def visit_slice(self, n: Slice) -> Term:
        b = self.visit(n.base)
        lo = None if n.lo is None else self.visit(n.lo)
        hi = None if n.hi is None else self.visit(n.hi)
        defined = conj(b.defined, *(t.defined for t in (lo, hi) if t is not None))
        if not isinstance(b.ty, TList | TStr):
            raise Unsupported(f"slicing {b.ty.show()}")
        if b.value is None:  # a slice of [] is []
            return Term(None, defined, b.ty)
        length = z3.Length(b.value)
        zero = z3.IntVal(0, ctx())
        start = _bound(None if lo is None else lo.value, length, zero)
        stop = _bound(None if hi is None else hi.value, length, length)
        size = z3.If(stop > start, stop - start, 0)
        if isinstance(b.ty, TStr):
            return Term(z3.SubString(b.value, start, size), defined, b.ty)
        return Term(z3.SubSeq(b.value, start, size), defined, b.ty)

    def visit_listcomp(self, n: ListComp) -> Term:
        it = self.visit(n.iterable)
        if not isinstance(it.ty, TList):
            raise Unsupported(f"a comprehension over {it.ty.show()}")
        if it.value is None or isinstance(it.ty.elem, TAny):
            # over [] nothing is evaluated; the items have no type to encode
            return Term(None, it.defined, TList(TAny()))
        items = const_items(it.value, self.expand_limit)
        if items is not None:
            return self._unrolled(n, it, items)
        return self._symbolic(n, it)

    def _element(self, n: ListComp, x: Term) -> tuple[Term | None, Term]:
        """The condition (if any) and the item for one element ``x``."""
        keep = None if n.cond is None else self._with(n.var, x, n.cond)
        return keep, self._with(n.var, x, n.body)

    @staticmethod
    def _element_defined(keep: Term | None, item: Term) -> Z:
        if keep is None:
            return item.defined
        return conj(keep.defined, z3.Implies(keep.value, item.defined))

    def _unrolled(self, n: ListComp, it: Term, items: list[Z]) -> Term:
        elem_ty = it.ty.elem if isinstance(it.ty, TList) else TAny()
        if not items:
            return self._empty(n, it, elem_ty)
        parts = [self._element(n, Term(v, true(), elem_ty)) for v in items]
        item_ty: Ty = TAny()
        for _, item in parts:
            item_ty = join(item_ty, item.ty)
        if not parts or isinstance(item_ty, TAny):
            # no element, or items that are elements of [] (refused where they are made)
            defined = conj(it.defined, *(self._element_defined(k, i) for k, i in parts))
            return Term(None, defined, TList(TAny()))
        seq_sort = sort_of(TList(item_ty))
        empty = z3.Empty(seq_sort)
        pieces: list[Z] = []
        for keep, item in parts:
            unit = z3.Unit(coerce(item, item_ty))
            pieces.append(unit if keep is None else z3.If(keep.value, unit, empty))
        value = pieces[0] if len(pieces) == 1 else z3.Concat(*pieces)
        defined = conj(it.defined, *(self._element_defined(k, i) for k, i in parts))
        return Term(value, defined, TList(item_ty))

    def _empty(self, n: ListComp, it: Term, elem_ty: Ty) -> Term:
        """Over a list known to be empty: the empty list of the items' type, which the
        item read at a symbolic element tells (nothing of it is evaluated)."""
        x = z3.Const(f"{n.var}!item", sort_of(elem_ty))
        item = self._with(n.var, Term(x, true(), elem_ty), n.body)
        if isinstance(item.ty, TAny):
            return Term(None, it.defined, TList(TAny()))
        return Term(z3.Empty(sort_of(TList(item.ty))), it.defined, TList(item.ty))

    def _symbolic(self, n: ListComp, it: Term) -> Term:
        assert isinstance(it.ty, TList)
        elem_ty = it.ty.elem
        # Named by the variable, not fresh: two encodings of one comprehension are then
        # the same Z3 term (a pinned result and its ensures meet as one term).
        x = z3.Const(f"{n.var}!item", sort_of(elem_ty))
        keep, item = self._element(n, Term(x, true(), elem_ty))
        if isinstance(item.ty, TAny) or item.value is None:
            raise Unsupported("a comprehension whose items have no known type")
        value = item.value
        out_sort = sort_of(TList(item.ty))
        if keep is None:
            result = z3.SeqMap(z3.Lambda([x], value), it.value)
        else:
            acc = z3.Const(f"{n.var}!kept", out_sort)
            step = z3.If(keep.value, z3.Concat(acc, z3.Unit(value)), acc)
            result = z3.SeqFoldLeft(z3.Lambda([acc, x], step), z3.Empty(out_sort), it.value)
        ok = self._element_defined(keep, item)
        if z3.is_true(z3.simplify(ok)):
            return Term(result, it.defined, TList(item.ty))
        i = z3.Int(f"{n.var}!at", ctx())
        at = z3.substitute(ok, (x, it.value[i]))
        inside = z3.And(i >= 0, i < z3.Length(it.value))
        every = z3.ForAll([i], z3.Implies(inside, at))
        return Term(result, conj(it.defined, every), TList(item.ty))
