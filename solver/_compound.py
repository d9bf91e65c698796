"""Z3 sorts, conversions, literals and domains of tuples, optionals and dicts.

Each is a Z3 algebraic datatype made once per context (docs/language.md §6.5-6.7):

- ``tuple[T1, ..., Tn]``: one constructor ``mk`` with a field per item;
- ``optional[T]``: ``none`` and ``some(val)``;
- ``dict[K, V]``: ``mk(keys: Seq K, vals: Seq V)`` whose keys are strictly increasing and
  as many as the values (``dict_domain``, part of every dict's intrinsic domain).  A
  mapping has exactly one such form, so equality of dicts is equality of terms, ``keys``
  is the key sequence, membership is ``seq.contains`` and ``get`` looks the key up with
  ``seq.indexof``: all exact, no approximation.

This module depends only on ``_z3util``; the readers of ``_terms`` pass their own
``sort_of`` in, so the two never import each other in a circle.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import z3

from derivative._types import TAny, TDict, TInt, TList, TNone, TOptional, TReal, TTuple, Ty

from ._z3util import Unsupported, Z, ctx, current, true

SortOf = Callable[[Ty], Z]




def _datatype(key: tuple[Any, ...], stem: str, build: Callable[[Any], None]) -> Z:
    """The datatype cached under ``key`` in this context (a fresh unique name when made)."""
    env = current()
    if key not in env.cache:
        for n in itertools.count(1):
            name = stem if n == 1 else f"{stem}!{n}"
            if name not in env.enum_names:
                break
        env.enum_names.add(name)
        dt = z3.Datatype(name, ctx())
        build(dt)
        env.cache[key] = dt.create()
    sort: Z = env.cache[key]
    return sort


def _name(sort: Z) -> str:
    return str(sort.sexpr()).replace(" ", "_").replace("(", "").replace(")", "")


def tuple_sort(t: TTuple, sort_of: SortOf) -> Z:
    sorts = [sort_of(x) for x in t.items]

    def build(dt: Any) -> None:
        dt.declare(
            "Tuple_mk" if len(sorts) > 1 else "Tuple1_mk",
            *[(f"item{i}", s) for i, s in enumerate(sorts)],
        )

    stem = "Tuple_" + "_".join(_name(s) for s in sorts)
    return _datatype(("tuple", *[s.sexpr() for s in sorts]), stem, build)


def optional_sort(t: TOptional, sort_of: SortOf) -> Z:
    inner = sort_of(t.elem)

    def build(dt: Any) -> None:
        dt.declare("none")
        dt.declare("some", ("val", inner))

    return _datatype(("optional", inner.sexpr()), "Opt_" + _name(inner), build)


def dict_sort(t: TDict, sort_of: SortOf) -> Z:
    key, value = sort_of(t.key), sort_of(t.value)

    def build(dt: Any) -> None:
        dt.declare("Dict_mk", ("keys", z3.SeqSort(key)), ("vals", z3.SeqSort(value)))

    stem = "Dict_" + _name(key) + "_" + _name(value)
    return _datatype(("dict", key.sexpr(), value.sexpr()), stem, build)


def none_sort() -> Z:
    """The sort of ``none`` alone (before a context makes it some optional's ``none``):
    one value, so that a tuple holding a bare ``none`` still has a sort."""

    def build(dt: Any) -> None:
        dt.declare("None_none")

    return _datatype(("none",), "NoneType", build)


def compound_sort(t: Ty, sort_of: SortOf) -> Z | None:
    """The sort of a tuple, optional or dict type, or of ``none`` (else None)."""
    if isinstance(t, TNone):
        return none_sort()
    if isinstance(t, TTuple):
        return tuple_sort(t, sort_of)
    if isinstance(t, TOptional):
        return optional_sort(t, sort_of)
    if isinstance(t, TDict):
        return dict_sort(t, sort_of)
    return None


# --------------------------------------------------------------------------- accessors


def items_of(value: Z) -> list[Z]:
    """The item terms of a tuple term."""
    sort = value.sort()
    mk = sort.constructor(0)
    return [sort.accessor(0, i)(value) for i in range(mk.arity())]


def make_tuple(sort: Z, items: list[Z]) -> Z:
    return sort.constructor(0)(*items)


def opt_none(sort: Z) -> Z:
    return sort.constructor(0)()


def opt_some(sort: Z, x: Z) -> Z:
    return sort.constructor(1)(x)


def is_some(value: Z) -> Z:
    return value.sort().recognizer(1)(value)


def opt_val(value: Z) -> Z:
    return value.sort().accessor(1, 0)(value)


def dict_keys(value: Z) -> Z:
    return value.sort().accessor(0, 0)(value)


def dict_vals(value: Z) -> Z:
    return value.sort().accessor(0, 1)(value)


def make_dict(sort: Z, keys: Z, vals: Z) -> Z:
    return sort.constructor(0)(keys, vals)


# --------------------------------------------------------------------------- conversions


def convert(value: Z | None, src: Ty, dst: Ty, sort_of: SortOf) -> Z:
    """A value of ``src`` as a value of ``dst`` (``dst`` is a join of ``src``): int → real
    inside, a plain value → ``some``, ``none``/``{}``/``[]`` (``value`` None) → typed."""
    if value is None:
        return _empty(src, dst, sort_of)
    if isinstance(src, TNone) and isinstance(dst, TOptional):
        return opt_none(sort_of(dst))
    if isinstance(dst, TReal) and isinstance(src, TInt):
        return z3.ToReal(value)
    if sort_of(dst).eq(value.sort()):
        return value
    if isinstance(dst, TOptional):
        sort = sort_of(dst)
        if isinstance(src, TOptional):
            inner = convert(opt_val(value), src.elem, dst.elem, sort_of)
            return z3.If(is_some(value), opt_some(sort, inner), opt_none(sort))
        return opt_some(sort, convert(value, src, dst.elem, sort_of))
    if isinstance(dst, TTuple) and isinstance(src, TTuple):
        items = [
            convert(x, s, d, sort_of)
            for x, s, d in zip(items_of(value), src.items, dst.items, strict=True)
        ]
        return make_tuple(sort_of(dst), items)
    if isinstance(dst, TList) and isinstance(src, TList):
        return _map_seq(value, src.elem, dst.elem, sort_of)
    if isinstance(dst, TDict) and isinstance(src, TDict):
        vals = _map_seq(dict_vals(value), src.value, dst.value, sort_of)
        return make_dict(sort_of(dst), dict_keys(value), vals)
    if isinstance(src, TAny):
        raise Unsupported(f"a value of no known type as {dst.show()}")
    raise Unsupported(f"cannot convert {src.show()} to {dst.show()}")


def _map_seq(seq: Z, src: Ty, dst: Ty, sort_of: SortOf) -> Z:
    if sort_of(dst).eq(seq.sort().basis()):
        return seq
    x = z3.FreshConst(sort_of(src if not isinstance(src, TAny) else dst), "e")
    if isinstance(src, TAny):
        return z3.Empty(z3.SeqSort(sort_of(dst)))
    return z3.SeqMap(z3.Lambda([x], convert(x, src, dst, sort_of)), seq)


def _empty(src: Ty, dst: Ty, sort_of: SortOf) -> Z:
    """``none``, ``{}`` or ``[]`` (a term without a value yet) as a value of ``dst``."""
    if isinstance(dst, TOptional):
        sort = sort_of(dst)
        if isinstance(src, TNone):
            return opt_none(sort)
        return opt_some(sort, _empty(src, dst.elem, sort_of))
    if isinstance(dst, TDict):
        key, value = sort_of(dst.key), sort_of(dst.value)
        return make_dict(sort_of(dst), z3.Empty(z3.SeqSort(key)), z3.Empty(z3.SeqSort(value)))
    if isinstance(dst, TList):
        return z3.Empty(sort_of(dst))
    raise Unsupported(f"{src.show()} as {dst.show()}")


# --------------------------------------------------------------------------- domains


def dict_domain(value: Z) -> Z:
    """A dict term is well formed: as many values as keys, keys strictly increasing
    (``str.<`` is code-point order, as Python's).

    A quantifier, not a recursive definition: Z3 honours its resource limit on these,
    where unfolding a recursive predicate inside a quantified question may not stop.
    """
    keys, vals = dict_keys(value), dict_vals(value)
    i = z3.FreshInt("i", ctx())
    n = z3.Length(keys)
    # The trigger keys[i]: instances for the positions a question reads.  Z3's own choice
    # leaves the solver checked under assumptions spending its resource limit before it
    # finds even the empty dict; stating the first instances outright, or a trigger on
    # two positions, left more of four small probes (a lookup's witness, the empty dict,
    # two given keys, two equal keys) undecided than this one trigger does.
    ordered = z3.ForAll(
        [i],
        z3.Implies(z3.And(i >= 0, i + 1 < n), keys[i] < keys[i + 1]),
        patterns=[keys[i]],
    )
    return z3.And(n == z3.Length(vals), ordered)


def compound_domain(value: Z, ty: Ty, inner: Callable[[Z, Ty], Z]) -> Z:
    """The intrinsic domain of a tuple, optional or dict term (``inner`` for its parts)."""
    if isinstance(ty, TTuple):
        return z3.And(
            true(), *[inner(x, t) for x, t in zip(items_of(value), ty.items, strict=True)]
        )
    if isinstance(ty, TOptional):
        return z3.Implies(is_some(value), inner(opt_val(value), ty.elem))
    if isinstance(ty, TDict):
        vals = dict_vals(value)
        parts = [dict_domain(value), inner(vals, TList(ty.value))]
        return z3.And(*parts)
    return true()
