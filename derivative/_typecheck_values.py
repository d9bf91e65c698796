"""Computed values against resolved types: whether a value fits a type (refinements
included), ints promoted where a real is declared, and values shown in messages.

Used for constants (``_typecheck_consts``) and the arguments of examples
(``_typecheck_obligations``), the two places the checker evaluates expressions.
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction

from derivative import _regex
from derivative._numbers import number_source
from derivative._types import (
    TAny,
    TBool,
    TDate,
    TDict,
    TEnum,
    TInt,
    TList,
    TOptional,
    TReal,
    TStr,
    TTuple,
    Ty,
)
from derivative._values import DictValue, EnumValue, TupleValue, Value


def value_fits(value: object, ty: Ty) -> bool:
    """Whether a computed value belongs to ``ty`` including its refinement."""
    if isinstance(ty, TAny):
        return True
    if isinstance(ty, TInt):
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        return (ty.lo is None or value >= ty.lo) and (ty.hi is None or value <= ty.hi)
    if isinstance(ty, TReal):
        return isinstance(value, Fraction | int) and not isinstance(value, bool)
    if isinstance(ty, TBool):
        return isinstance(value, bool)
    if isinstance(ty, TStr):
        if not isinstance(value, str):
            return False
        return ty.pattern is None or _regex.fullmatch(ty.pattern, value)
    if isinstance(ty, TDate):
        return isinstance(value, date)
    if isinstance(ty, TEnum):
        return (
            isinstance(value, EnumValue) and value.enum == ty.name and (value.member in ty.members)
        )
    if isinstance(ty, TList):
        return isinstance(value, tuple) and all(value_fits(v, ty.elem) for v in value)
    if isinstance(ty, TTuple):
        return (
            isinstance(value, TupleValue)
            and len(value.items) == len(ty.items)
            and all(value_fits(v, t) for v, t in zip(value.items, ty.items, strict=True))
        )
    if isinstance(ty, TOptional):
        return value is None or value_fits(value, ty.elem)
    if isinstance(ty, TDict):
        return isinstance(value, DictValue) and all(
            value_fits(k, ty.key) and value_fits(v, ty.value) for k, v in value.entries
        )
    return False


def coerce_value(value: Value, ty: Ty) -> Value:
    """A real-typed value written as an int becomes a Fraction (also inside lists)."""
    if isinstance(ty, TReal) and isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(ty, TList) and isinstance(value, tuple):
        return tuple(coerce_value(v, ty.elem) for v in value)
    if isinstance(ty, TTuple) and isinstance(value, TupleValue):
        pairs = zip(value.items, ty.items, strict=True)
        return TupleValue(tuple(coerce_value(v, t) for v, t in pairs))
    if isinstance(ty, TOptional) and value is not None:
        return coerce_value(value, ty.elem)
    if isinstance(ty, TDict) and isinstance(value, DictValue):
        return DictValue(tuple((k, coerce_value(v, ty.value)) for k, v in value.entries))
    return value


def show_value(value: object) -> str:
    """A value in an error message, as the language writes it."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Fraction | float | int):
        return number_source(value)
    if isinstance(value, date):
        return f'date("{value.isoformat()}")'
    if isinstance(value, tuple):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    if value is None:
        return "none"
    if isinstance(value, TupleValue):
        inner = ", ".join(show_value(v) for v in value.items)
        return "(" + inner + ("," if len(value.items) == 1 else "") + ")"
    if isinstance(value, DictValue):
        return "{" + ", ".join(f"{show_value(k)}: {show_value(v)}" for k, v in value.entries) + "}"
    return str(value)

