"""Encoding tuples, ``none`` and dicts (docs/language.md §6.5-6.7), a mixin of ``Encoder``.

Sorts and conversions are in ``_compound``.  A dict literal is put in its one sorted
form here, so its keys must be constants (literals, or anything Z3 simplifies to a
value); a literal with a key only known at solving time is ``Unsupported``, never
approximated.  ``none`` and ``{}`` are terms without a value until a context gives
them a type, as ``[]`` is.
"""

from __future__ import annotations

from typing import Any

import z3

from derivative._ast import Call, DictLit, Index, NoneLit, TupleLit
from derivative._typecheck_compound import tuple_position
from derivative._types import (
    INT,
    NONE,
    TAny,
    TDict,
    TList,
    TNone,
    TOptional,
    TTuple,
    Ty,
    base,
)
from derivative._types import join_base as join

from ._compound import (
    dict_keys,
    dict_vals,
    is_some,
    items_of,
    make_dict,
    make_tuple,
    none_sort,
    opt_none,
    opt_some,
    opt_val,
)
from ._encode_calls import Calls
from ._terms import Term, coerce, seq_of, sort_of
from ._z3util import Unsupported, Z, conj, ctx, false, str_from_z3, str_val, true


def _constant(value: Z) -> Any:
    """The Python int or str a key term simplifies to (else ``Unsupported``)."""
    v = z3.simplify(value)
    if z3.is_int_value(v):
        return v.as_long()
    if z3.is_string_value(v):
        return str_from_z3(v)
    raise Unsupported("a dict literal whose keys are not constants")


class CompoundEncoding(Calls):
    """Tuples, optionals and dicts, over the indexing and calls of ``Calls``."""

    def visit_index(self, n: Index) -> Term:
        b = self.visit(n.base)
        if isinstance(b.ty, TTuple | TDict):
            return self.index_compound(n, b)
        return self.index_with_base(n, b)

    def _call_len(self, n: Call, args: list[Term], d: Z) -> Term:
        if isinstance(args[0].ty, TTuple | TDict):
            return self.length_compound(args[0], d)
        return super()._call_len(n, args, d)

    def visit_tuple(self, n: TupleLit) -> Term:
        items = [self.visit(i) for i in n.items]
        ty = TTuple(tuple(base(t.ty) for t in items))
        parts = [coerce(t, u) for t, u in zip(items, ty.items, strict=True)]
        value = make_tuple(sort_of(ty), parts)
        return Term(value, conj(*[t.defined for t in items]), ty)

    def visit_none(self, n: NoneLit) -> Term:
        return Term(none_sort().constructor(0)(), true(), NONE)

    def visit_dict(self, n: DictLit) -> Term:
        pairs = [(self.visit(k), self.visit(v)) for k, v in zip(n.keys, n.values, strict=True)]
        defined = conj(*[x for k, v in pairs for x in (k.defined, v.defined)])
        if not pairs:
            return Term(None, defined, TDict(TAny(), TAny()))
        key: Ty = TAny()
        val: Ty = TAny()
        for k, v in pairs:
            key, val = join(key, k.ty), join(val, v.ty)
        ty = TDict(key, val)
        table: dict[Any, Z] = {}
        for k, v in pairs:
            table[_constant(k.value)] = coerce(v, val)
        order = sorted(table)
        keys = seq_of([_key_term(x) for x in order], z3.SeqSort(sort_of(key)))
        vals = seq_of([table[x] for x in order], z3.SeqSort(sort_of(val)))
        return Term(make_dict(sort_of(ty), keys, vals), defined, ty)

    def index_compound(self, n: Index, b: Term) -> Term:
        """``t[k]`` (a literal position) or ``d[key]`` (defined when the key is there)."""
        if isinstance(b.ty, TTuple):
            pos = tuple_position(n.index)
            if pos is None:
                raise Unsupported("a tuple indexed by a non-literal")
            return Term(items_of(b.value)[pos], b.defined, b.ty.items[pos])
        assert isinstance(b.ty, TDict)
        k = self.visit(n.index)
        if b.value is None:
            # `{}[k]`, like `[][i]`: never defined, and of no sort to encode it in
            raise Unsupported("an element of the empty dict literal {} (always undefined)")
        found, at = self._find(b, k)
        vals = dict_vals(b.value)
        return Term(vals[at], conj(b.defined, k.defined, found), b.ty.value)

    def _find(self, d: Term, k: Term) -> tuple[Z, Z]:
        """(is ``k`` a key of ``d``, its position) for a dict term with a value."""
        assert isinstance(d.ty, TDict)
        keys = dict_keys(d.value)
        x = coerce(k, d.ty.key) if not isinstance(d.ty.key, TAny) else k.value
        unit = z3.Unit(x)
        return z3.Contains(keys, unit), z3.IndexOf(keys, unit, 0)

    def dict_member(self, a: Term, b: Term) -> tuple[Z, Z]:
        if b.value is None or (isinstance(b.ty, TDict) and isinstance(b.ty.key, TAny)):
            return false(), true()
        found, _ = self._find(b, a)
        return found, true()

    def equal_compound(self, a: Term, b: Term) -> tuple[Z, Z]:
        """``a == b`` where either side is a tuple, optional, dict or ``none``."""
        if isinstance(a.ty, TNone) and isinstance(b.ty, TNone):
            return true(), true()
        if isinstance(a.ty, TAny) or isinstance(b.ty, TAny):
            # a value of no known type (`value(get({}, k))`) is never defined
            return false(), true()
        ty = join(a.ty, b.ty)
        if isinstance(ty, TDict) and a.value is None and b.value is None:
            return true(), true()
        return coerce(a, ty) == coerce(b, ty), true()

    def length_compound(self, x: Term, d: Z) -> Term:
        if isinstance(x.ty, TTuple):
            return Term(z3.IntVal(len(x.ty.items), ctx()), d, INT)
        if x.value is None:
            return Term(z3.IntVal(0, ctx()), d, INT)
        return Term(z3.Length(dict_keys(x.value)), d, INT)

    # ------------------------------------------------------------------ built-ins

    def _call_get(self, n: Call, args: list[Term], d: Z) -> Term:
        dct, k = args[0], args[1]
        if not isinstance(dct.ty, TDict):
            raise Unsupported(f"get of {dct.ty.show()}")
        value_ty = dct.ty.value
        if len(args) == 3:
            default = args[2]
            ty = join(value_ty, default.ty)
            if dct.value is None:
                return Term(coerce(default, ty), d, ty)
            found, at = self._find(dct, k)
            hit = coerce(Term(dict_vals(dct.value)[at], true(), value_ty), ty)
            return Term(z3.If(found, hit, coerce(default, ty)), d, ty)
        ty = value_ty if isinstance(value_ty, TOptional) else TOptional(value_ty)
        sort = sort_of(ty)
        if dct.value is None or isinstance(value_ty, TAny):
            return Term(opt_none(sort), d, ty)
        found, at = self._find(dct, k)
        hit = dict_vals(dct.value)[at]
        some = hit if isinstance(value_ty, TOptional) else opt_some(sort, hit)
        return Term(z3.If(found, some, opt_none(sort)), d, ty)

    def _call_keys(self, n: Call, args: list[Term], d: Z) -> Term:
        (dct,) = args
        if not isinstance(dct.ty, TDict):
            raise Unsupported(f"keys of {dct.ty.show()}")
        if dct.value is None:
            return Term(None, d, TList(TAny()))
        return Term(dict_keys(dct.value), d, TList(dct.ty.key))

    def _call_value(self, n: Call, args: list[Term], d: Z) -> Term:
        (x,) = args
        if isinstance(x.ty, TNone):
            return Term(z3.FreshConst(z3.IntSort(ctx()), "v"), false(), TAny())
        if not isinstance(x.ty, TOptional):
            raise Unsupported(f"value of {x.ty.show()}")
        return Term(opt_val(x.value), conj(d, is_some(x.value)), x.ty.elem)


def _key_term(x: Any) -> Z:
    return str_val(x) if isinstance(x, str) else z3.IntVal(x, ctx())


