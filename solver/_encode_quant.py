"""Encoding ``forall``/``exists`` and ``all``/``any``: unrolled when short, else quantified.

Python evaluates a quantifier's body element by element and stops at the first
deciding one, so definedness needs a nested quantifier ("every earlier element
continued"); a small validity check (``_always``) drops it where the body is defined
over the whole range, which is what keeps preconditions like ``exists i in
0..len(xs) - 1: xs[i] > 0`` decidable (docs/decisions.md).
"""

from __future__ import annotations

import z3

from derivative._ast import Generator, Quantifier
from derivative._types import BOOL, INT, TAny, TInt, TList, TStr

from ._encode_base import EncoderBase, fold_and, fold_or
from ._terms import Term
from ._z3util import Unsupported, Z, conj, ctx, false, make_solver, true

ALWAYS_RLIMIT = 20_000
"""Resource limit of the small validity check behind ``_always`` (deterministic)."""


def _always(condition: Z, claim: Z) -> bool:
    """Whether ``condition`` implies ``claim`` for every value of every variable: a
    quantifier-free validity check, cheap and deterministic; False when undecided."""
    s = make_solver(ALWAYS_RLIMIT, None, simple=True)
    s.add(condition, z3.Not(claim))
    return bool(s.check() == z3.unsat)


class Quantifiers(EncoderBase):
    """Quantifiers and generators (a mixin of ``Encoder``)."""

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
                d, v = fold_and(items) if n.quantifier == "forall" else fold_or(items)
                return Term(v, conj(bounds_defined, d), BOOL)
        if self.range_cap is not None:
            return self._capped(n, lo, hi, self.range_cap)
        i = z3.FreshInt(n.var, ctx())
        body = self._with(n.var, Term(i, true(), INT), n.body)
        in_range = z3.And(lo.value <= i, i <= hi.value)
        d, v = self._symbolic_all_any(n.quantifier == "forall", i, in_range, body, lo.value)
        return Term(v, conj(bounds_defined, d), BOOL)

    def _capped(self, n: Quantifier, lo: Term, hi: Term, cap: int) -> Term:
        """A quantifier over a symbolic range that the caller has shown to hold at most
        ``cap`` values: ``cap`` items ``lo + k``, each standing for itself inside the
        range and for the neutral value (true for forall, false for exists) beyond it."""
        items: list[Term] = []
        neutral = n.quantifier == "forall"
        for k in range(cap):
            at = lo.value + k
            body = self._with(n.var, Term(at, true(), INT), n.body)
            inside = at <= hi.value
            value = z3.If(inside, body.value, z3.BoolVal(neutral, ctx()))
            items.append(Term(value, z3.Or(z3.Not(inside), body.defined), BOOL))
        d, v = fold_and(items) if neutral else fold_or(items)
        return Term(v, conj(lo.defined, hi.defined, d), BOOL)

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
            d, v = fold_and(items) if is_all else fold_or(items)
            return Term(v, conj(it.defined, d), BOOL)
        i = z3.FreshInt("k", ctx())
        body = self._with(n.var, Term(element(i), true(), elem_ty), n.body)
        in_range = z3.And(i >= 0, i < z3.Length(it.value))
        d, v = self._symbolic_all_any(is_all, i, in_range, body, z3.IntVal(0, ctx()))
        return Term(v, conj(it.defined, d), BOOL)
