"""Z3 sorts and terms for the language's types: the encoder's vocabulary.

Shared by the encoder, the questions (``_check`` and friends), the boundary search and
model decoding, so it depends on nothing of theirs.  A ``Term`` carries an expression's
value *and* its definedness (docs/language.md §7): every reader combines the two.  Dates are
day ordinals (``date.toordinal``); lists are Z3 sequences; enums are Z3 enumeration
sorts made once per context.
"""

from __future__ import annotations

import datetime as _dt
import itertools
from collections.abc import Sequence
from fractions import Fraction

import z3

from derivative._record import record
from derivative._types import (
    INT,
    TAny,
    TBool,
    TDate,
    TDict,
    TEnum,
    TInt,
    TList,
    TNone,
    TOptional,
    TReal,
    TStr,
    TTuple,
    Ty,
)
from derivative._values import DictValue, EnumValue, TupleValue, Value

from ._compound import (
    compound_domain,
    compound_sort,
    convert,
    make_dict,
    make_tuple,
    opt_none,
    opt_some,
)
from ._z3util import Unsupported, Z, conj, ctx, current, fraction_val, str_val, true

DATE_MIN = _dt.date.min.toordinal()  # 1
DATE_MAX = _dt.date.max.toordinal()  # 3652059

COMPOUND = (TTuple, TOptional, TDict, TNone)
"""Types whose values ``_compound`` converts (``none`` has no sort of its own)."""

EXPAND_LIMIT = 64
"""A quantifier over a constant range at most this long is unrolled (no Z3 quantifier)."""


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
    compound = compound_sort(t, sort_of)
    if compound is not None:
        return compound
    raise Unsupported(f"values of type {t.show()} cannot be encoded")


def is_num(t: Ty) -> bool:
    return isinstance(t, TInt | TReal)


# --------------------------------------------------------------------------- terms


@record
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
    if isinstance(ty, COMPOUND) or isinstance(term.ty, COMPOUND):
        return convert(term.value, term.ty, ty, sort_of)
    if term.value is None:
        return z3.Empty(sort_of(ty if isinstance(ty, TList) else TList(INT)))
    if isinstance(ty, TReal) and isinstance(term.ty, TInt):
        return z3.ToReal(term.value)
    if isinstance(ty, TList) and isinstance(term.ty, TList) and sort_of(ty) != term.value.sort():
        return convert(term.value, term.ty, ty, sort_of)
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
    if isinstance(ty, COMPOUND) and _has_intrinsic(ty):
        return compound_domain(value, ty, intrinsic_domain)
    return true()


def _has_intrinsic(ty: Ty) -> bool:
    if isinstance(ty, TTuple):
        return any(_has_intrinsic(t) for t in ty.items)
    if isinstance(ty, TOptional):
        return _has_intrinsic(ty.elem)
    return (
        isinstance(ty, TDate | TDict)
        or (isinstance(ty, TList) and _has_intrinsic(ty.elem))
    )


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
    return _compound_literal(value, ty)


def _compound_literal(value: Value, ty: Ty) -> Z:
    if isinstance(ty, TNone):
        return sort_of(ty).constructor(0)()
    if isinstance(ty, TTuple) and isinstance(value, TupleValue):
        items = [literal(v, t) for v, t in zip(value.items, ty.items, strict=True)]
        return make_tuple(sort_of(ty), items)
    if isinstance(ty, TOptional):
        sort = sort_of(ty)
        return opt_none(sort) if value is None else opt_some(sort, literal(value, ty.elem))
    if isinstance(ty, TDict) and isinstance(value, DictValue):
        keys = seq_of([literal(k, ty.key) for k, _ in value.entries], z3.SeqSort(sort_of(ty.key)))
        vals = seq_of(
            [literal(v, ty.value) for _, v in value.entries], z3.SeqSort(sort_of(ty.value))
        )
        return make_dict(sort_of(ty), keys, vals)
    raise Unsupported(f"values of type {ty.show()} cannot be encoded")


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
