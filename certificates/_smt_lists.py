"""Slices and list comprehensions as SMT-LIB, with Python's meaning.

A slice normalises its bounds as Python does (negative from the end, clamped to the
ends) and is one ``seq.extract`` / ``str.substr``.  A list comprehension is a helper
``define-fun-rec`` over the list by index, one per comprehension, whose extra parameters
are the bound variables its condition and item read (the declared names it reads
directly, so the preamble defines the helpers after every declaration); both z3 and
cvc5 read that, where ``seq.map``/``seq.foldl`` with a lambda is z3's alone.  It is
defined where every element's condition is, and every kept element's item.
"""

from __future__ import annotations

from collections.abc import Mapping

from derivative._ast import ListComp, Slice
from derivative._types import BOOL, INT, TAny, TList, TStr, Ty
from derivative._types import join_base as join
from derivative._walk import free_names

from ._smt_expr import SmtExpressions
from ._smt_sorts import plain, sort_of
from ._smt_syntax import EncodingError, SmtTerm, and_, implies, symbol


def _bound(b: str | None, n: str, default: str) -> str:
    """Python's normalisation of one slice bound against the length ``n``."""
    if b is None:
        return default
    shifted = f"(+ {b} {n})"
    return f"(ite (< {b} 0) (ite (< {shifted} 0) 0 {shifted}) (ite (> {b} {n}) {n} {b}))"


class SmtLists(SmtExpressions):
    """Slices and comprehensions (see ``_smtlib.SmtEncoder``)."""

    def _enc_slice(
        self, e: Slice, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        bt = self.type_of(e.base, bound)
        if isinstance(bt, TList) and isinstance(bt.elem, TAny):
            bt = TList(INT if not isinstance(want, TList) else plain(want.elem))
        b = self._enc(e.base, bound, bt)
        lo = None if e.lo is None else self._enc(e.lo, bound, INT)
        hi = None if e.hi is None else self._enc(e.hi, bound, INT)
        defined = and_(b.defined, *(t.defined for t in (lo, hi) if t is not None))
        if isinstance(b.ty, TStr):
            n, extract = f"(str.len {b.value})", "str.substr"
        elif isinstance(b.ty, TList):
            n, extract = f"(seq.len {b.value})", "seq.extract"
        else:
            raise EncodingError(f"slicing a {b.ty.show()}")
        start = _bound(None if lo is None else lo.value, n, "0")
        stop = _bound(None if hi is None else hi.value, n, n)
        size = f"(let ((|lo!| {start}) (|hi!| {stop})) (ite (> |hi!| |lo!|) (- |hi!| |lo!|) 0))"
        value = f"({extract} {b.value} {start} {size})"
        return SmtTerm(defined, value, b.ty)

    def _enc_listcomp(
        self, e: ListComp, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        it_ty = self.type_of(e.iterable, bound)
        if isinstance(it_ty, TAny):
            return SmtTerm("false", self._default(TList(INT)), TList(INT))
        xs = self._enc(e.iterable, bound, None)
        if not isinstance(xs.ty, TList):
            raise EncodingError(f"a comprehension over a {xs.ty.show()}")
        elem = plain(xs.ty.elem)
        out = self.type_of(e, bound)
        assert isinstance(out, TList)
        if isinstance(want, TList) and not isinstance(plain(want.elem), TAny):
            # the items at the wanted type (ints where reals are wanted are made reals)
            wanted = plain(want.elem)
            out = TList(wanted if isinstance(out.elem, TAny) else join(out.elem, wanted))
        if isinstance(elem, TAny):
            # over [] nothing is evaluated: the empty list, of the sort wanted
            ty = out if not isinstance(out.elem, TAny) else TList(INT)
            self._note_type(ty)
            return SmtTerm(xs.defined, self._default(ty), ty)
        if isinstance(out.elem, TAny):
            # items of no known type (``[][i]``) are still evaluated, and may be undefined
            out = TList(INT)
        self._note_type(out)
        var = symbol(e.var)
        inner = {**bound, e.var: (var, elem)}
        keep = None if e.cond is None else self._enc(e.cond, inner, BOOL)
        item = self._enc(e.body, inner, out.elem)
        name = self._helper(e, bound, xs.ty, out, var, keep, item)
        params = [bound[n][0] for n in self._captured(e, bound)]
        value = f"({name} {xs.value} 0{''.join(' ' + p for p in params)})"
        ok = item.defined if keep is None else and_(keep.defined, implies(keep.value, item.defined))
        defined = xs.defined
        if ok != "true":
            k = self._fresh_symbol("k")
            in_range = f"(and (<= 0 {k}) (< {k} (seq.len {xs.value})))"
            at = f"(let (({var} (seq.nth {xs.value} {k}))) {ok})"
            defined = and_(defined, f"(forall (({k} Int)) {implies(in_range, at)})")
        return SmtTerm(defined, value, out)

    @staticmethod
    def _captured(e: ListComp, bound: Mapping[str, tuple[str, Ty]]) -> list[str]:
        """The bound variables (of enclosing binders) the condition and item read."""
        names: set[str] = set()
        for part in (e.cond, e.body):
            if part is not None:
                names |= free_names(part)
        return sorted(n for n in names - {e.var} if n in bound)

    def _helper(
        self,
        e: ListComp,
        bound: Mapping[str, tuple[str, Ty]],
        it: TList,
        out: TList,
        var: str,
        keep: SmtTerm | None,
        item: SmtTerm,
    ) -> str:
        """Defines the comprehension's helper (kept items from index ``i`` on); its name."""
        name = self._fresh_symbol("py.comp")
        captured = self._captured(e, bound)
        params = "".join(f" ({bound[n][0]} {sort_of(bound[n][1])})" for n in captured)
        args = "".join(f" {bound[n][0]}" for n in captured)
        xs, i = "|comp.xs|", "|comp.i|"
        seq_in, seq_out = sort_of(it), sort_of(out)
        rest = f"({name} {xs} (+ {i} 1){args})"
        kept = f"(seq.++ (seq.unit {item.value}) {rest})"
        step = kept if keep is None else f"(ite {keep.value} {kept} {rest})"
        self.comprehensions.append(
            f"(define-fun-rec {name} (({xs} {seq_in}) ({i} Int){params}) {seq_out} "
            f"(ite (>= {i} (seq.len {xs})) (as seq.empty {seq_out}) "
            f"(let (({var} (seq.nth {xs} {i}))) {step})))"
        )
        return name

