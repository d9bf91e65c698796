"""Model values back to the language's runtime values (``from_model``).

Kept apart from the encoder: reading a model is what every question does after a
``sat`` answer, and its fast path (Z3's C API for integers and truth values, the common
cases on large sheets) must complete the model exactly as
``model.eval(..., model_completion=True)``.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import Any, cast

import z3

from derivative._types import (
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

from ._compound import dict_keys, dict_vals, is_some, items_of, opt_val
from ._terms import DATE_MAX, DATE_MIN, enum_sort
from ._z3util import Unsupported, Z, Z3Env, current, fraction_from_z3, str_from_z3

_UNREAD: object = object()
"""What ``_through_c`` gives when the C API's evaluation does not apply."""


def _through_c(model: Z, value: Z, read: Callable[[Any, Z3Env], object]) -> object:
    """``read`` of Z3's own evaluation of ``value`` in ``model`` (completed, as
    ``model.eval(value, model_completion=True)``), without z3py's wrappers; the result
    term is held while it is read (and freed after) as a z3py term would be.
    ``_UNREAD`` when ``value`` or ``model`` is of another context or Z3 declines."""
    env = current()
    out = (z3.Ast * 1)()
    if not (
        value.ctx is env.ctx
        and model.ctx is env.ctx
        and z3.Z3_model_eval(env.ref, model.model, value.ast, True, out)
    ):
        return _UNREAD
    result = out[0]
    z3.Z3_inc_ref(env.ref, result)
    try:
        return read(result, env)
    finally:
        z3.Z3_dec_ref(env.ref, result)


def _int_numeral(result: Any, env: Z3Env) -> object:
    ref = env.ref
    if (
        z3.Z3_get_ast_kind(ref, result) == z3.Z3_NUMERAL_AST
        and z3.Z3_get_sort_kind(ref, z3.Z3_get_sort(ref, result)) == z3.Z3_INT_SORT
    ):
        return int(z3.Z3_get_numeral_string(ref, result))
    return _UNREAD


def _truth(result: Any, env: Z3Env) -> object:
    # the context's True and False are single AST nodes (hash-consing): compared by pointer
    if result.value in (env.true_ptr, env.false_ptr):
        return bool(result.value == env.true_ptr)
    return _UNREAD


def from_model(model: Z, value: Z, ty: Ty) -> Value:
    """The runtime value that ``model`` gives the term ``value`` of type ``ty``."""
    # The common cases through Z3's C API (``_through_c``); anything else through z3py.
    fast: object = _UNREAD
    if isinstance(ty, TInt) and isinstance(value, z3.ArithRef):
        fast = _through_c(model, value, _int_numeral)
    elif isinstance(ty, TBool) and isinstance(value, z3.BoolRef):
        fast = _through_c(model, value, _truth)
    if fast is not _UNREAD:
        return cast(Value, fast)
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
    return _compound_from_model(model, v, ty)


def _compound_from_model(model: Z, v: Z, ty: Ty) -> Value:
    """A tuple, optional or dict the model gives (``v`` already evaluated)."""
    if isinstance(ty, TNone):
        return None
    if isinstance(ty, TTuple):
        items = items_of(v)
        return TupleValue(
            tuple(from_model(model, x, t) for x, t in zip(items, ty.items, strict=True))
        )
    if isinstance(ty, TOptional):
        some = model.eval(is_some(v), model_completion=True)
        if z3.is_false(some):
            return None
        return from_model(model, opt_val(v), ty.elem)
    if isinstance(ty, TDict):
        keys = from_model(model, dict_keys(v), TList(ty.key))
        vals = from_model(model, dict_vals(v), TList(ty.value))
        assert isinstance(keys, tuple) and isinstance(vals, tuple)
        if len(keys) != len(vals) or list(keys) != sorted(set(keys)):  # type: ignore[type-var]
            raise Unsupported(f"the model gives a malformed dict for {v}")
        return DictValue(tuple(zip(keys, vals, strict=True)))
    raise Unsupported(f"values of type {ty.show()} cannot be read back")
