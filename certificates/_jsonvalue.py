"""Runtime values <-> JSON, by type (docs/cli.md), and values as spec literals.

JSON conventions of every derivative document: integers, strings and booleans as
themselves, dates as ``"YYYY-MM-DD"``, enum members by member name, lists and tuples as
arrays, ``none`` as ``null``, dicts as objects (str keys, and ``{}``) or arrays of
``[key, value]`` pairs (int keys),
reals as exact strings (a decimal where one exists, else ``"p/q"``), by the one rule of
``derivative._numbers`` (the rationals of Farkas rows too).  JSON alone does
not say whether ``"2026-01-01"`` is a string or a date, so decoding needs the type;
certificates carry it in ``declarations``.

``literal(value, ty)`` writes a value as an expression of the language, so that a
certificate's constants can be re-read by the spec parser.
"""

from __future__ import annotations

import datetime as _dt
import re
from fractions import Fraction
from typing import Any, Final

from derivative._ast import (
    BoolLit,
    DateLit,
    DictLit,
    EnumMember,
    Expr,
    IntLit,
    ListLit,
    NoneLit,
    RealLit,
    StrLit,
    TupleLit,
    Unary,
    make_binop,
)
from derivative._errors import DerivativeError
from derivative._numbers import parse_real, real_json, real_text
from derivative._strictjson import MAX_INT_DIGITS
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

__all__ = [
    "ValueError_",
    "decode",
    "encode",
    "literal",
    "parse_fraction",
]

_DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


class ValueError_(DerivativeError):
    """A JSON value that is not a value of the expected type."""


def parse_fraction(text: object) -> Fraction:
    """An exact rational as ``derivative._numbers`` writes it (``"p/q"``, ``"p"`` or an
    exact decimal string; no floats, no exponents)."""
    if not isinstance(text, str):
        raise ValueError_(f"{text!r} is not an exact rational string")
    digits = max(sum(c.isdigit() for c in part) for part in text.split("/"))
    if digits > MAX_INT_DIGITS:
        # Fraction() would raise past Python's digit limit, in Python's own words
        raise ValueError_(
            f"a number of {digits} digits ({text[:20]}...; at most {MAX_INT_DIGITS} are read)"
        )
    try:
        return parse_real(text)
    except ValueError as exc:
        raise ValueError_(str(exc)) from None


def encode(value: Value | float, ty: Ty) -> Any:
    """``value`` (of type ``ty``) as a JSON-safe object."""
    if isinstance(ty, TBool):
        if not isinstance(value, bool):
            raise ValueError_(f"{value!r} is not a bool")
        return value
    if isinstance(ty, TInt):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError_(f"{value!r} is not an int")
        return value
    if isinstance(ty, TReal):
        if isinstance(value, bool) or not isinstance(value, (int, Fraction, float)):
            raise ValueError_(f"{value!r} is not a real")
        return real_json(value)
    if isinstance(ty, TStr):
        if not isinstance(value, str):
            raise ValueError_(f"{value!r} is not a str")
        return value
    if isinstance(ty, TDate):
        if not isinstance(value, _dt.date) or isinstance(value, _dt.datetime):
            raise ValueError_(f"{value!r} is not a date")
        return value.isoformat()
    if isinstance(ty, TEnum):
        if not isinstance(value, EnumValue) or value.enum != ty.name:
            raise ValueError_(f"{value!r} is not a member of {ty.name}")
        return value.member
    if isinstance(ty, TList):
        if not isinstance(value, tuple):
            raise ValueError_(f"{value!r} is not a list")
        return [encode(v, ty.elem) for v in value]
    return _encode_compound(value, ty)


def _encode_compound(value: Value | float, ty: Ty) -> Any:
    """Tuples as arrays, ``none`` as ``null``, dicts as objects (str keys; the empty dict
    whatever its key type) or as arrays of ``[key, value]`` pairs (int keys)."""
    if isinstance(ty, TTuple):
        if not isinstance(value, TupleValue) or len(value.items) != len(ty.items):
            raise ValueError_(f"{value!r} is not a {ty.show()}")
        return [encode(v, t) for v, t in zip(value.items, ty.items, strict=True)]
    if isinstance(ty, TOptional):
        return None if value is None else encode(value, ty.elem)
    if isinstance(ty, TDict):
        if not isinstance(value, DictValue):
            raise ValueError_(f"{value!r} is not a {ty.show()}")
        if isinstance(ty.key, TStr) or not value.entries:
            return {encode(k, ty.key): encode(v, ty.value) for k, v in value.entries}
        return [[encode(k, ty.key), encode(v, ty.value)] for k, v in value.entries]
    raise ValueError_(f"values of type {ty.show()} have no JSON form")


def decode(data: object, ty: Ty) -> Value:
    """The runtime value of type ``ty`` that the JSON object ``data`` writes."""
    if isinstance(ty, TBool):
        if not isinstance(data, bool):
            raise ValueError_(f"{data!r} is not a bool")
        return data
    if isinstance(ty, TInt):
        if isinstance(data, bool) or not isinstance(data, int):
            raise ValueError_(f"{data!r} is not an int")
        return data
    if isinstance(ty, TReal):
        try:
            return parse_real(data)
        except ValueError as exc:
            raise ValueError_(str(exc)) from None
    if isinstance(ty, TStr):
        if not isinstance(data, str):
            raise ValueError_(f"{data!r} is not a str")
        return data
    if isinstance(ty, TDate):
        if not isinstance(data, str) or not _DATE.fullmatch(data):
            raise ValueError_(f"{data!r} is not a date 'YYYY-MM-DD'")
        try:
            return _dt.date.fromisoformat(data)
        except ValueError:
            raise ValueError_(f"{data!r} is not a calendar day") from None
    if isinstance(ty, TEnum):
        if not isinstance(data, str):
            raise ValueError_(f"{data!r} is not a member of {ty.name}")
        member = data[len(ty.name) + 1 :] if data.startswith(ty.name + ".") else data
        if member not in ty.members:
            raise ValueError_(f"{ty.name} has no member {data!r}")
        return EnumValue(ty.name, member)
    if isinstance(ty, TList):
        if not isinstance(data, list):
            raise ValueError_(f"{data!r} is not a list")
        return tuple(decode(v, ty.elem) for v in data)
    if isinstance(ty, TAny):
        raise ValueError_("a value of an unknown type")
    return _decode_compound(data, ty)


def _decode_compound(data: object, ty: Ty) -> Value:
    if isinstance(ty, TTuple):
        if not isinstance(data, list) or len(data) != len(ty.items):
            raise ValueError_(f"{data!r} is not a {ty.show()} (an array of {len(ty.items)})")
        return TupleValue(tuple(decode(v, t) for v, t in zip(data, ty.items, strict=True)))
    if isinstance(ty, TOptional):
        return None if data is None else decode(data, ty.elem)
    if isinstance(ty, TDict):
        if isinstance(data, dict) and (isinstance(ty.key, TStr) or not data):
            pairs = [(decode(k, ty.key), decode(v, ty.value)) for k, v in data.items()]
        elif isinstance(data, list) and not isinstance(ty.key, TStr):
            if not all(isinstance(p, list) and len(p) == 2 for p in data):
                raise ValueError_(f"{data!r} is not a list of [key, value] pairs")
            pairs = [(decode(k, ty.key), decode(v, ty.value)) for k, v in data]
        else:
            raise ValueError_(f"{data!r} is not a {ty.show()}")
        d = DictValue.of(pairs)
        if len(d.entries) != len(pairs):
            raise ValueError_(f"{data!r} repeats a key")
        return d
    raise ValueError_(f"values of type {ty.show()} have no JSON form")


def literal(value: Value, ty: Ty) -> Expr:
    """``value`` written as an expression of the language (for a constant's definition)."""
    if isinstance(ty, TBool) and isinstance(value, bool):
        return BoolLit(value=value)
    if isinstance(ty, TInt) and isinstance(value, int) and not isinstance(value, bool):
        return IntLit(value=value) if value >= 0 else Unary(op="-", operand=IntLit(value=-value))
    if isinstance(ty, TReal) and isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        q = Fraction(value)
        a = abs(q)
        text = real_text(a)
        node: Expr
        if "/" in text:
            node = make_binop("/", (IntLit(value=a.numerator), IntLit(value=a.denominator)))
        elif "." in text:
            node = RealLit(value=text)
        else:
            node = RealLit(value=text + ".0")
        return node if q >= 0 else Unary(op="-", operand=node)
    if isinstance(ty, TStr) and isinstance(value, str):
        return StrLit(value=value)
    if isinstance(ty, TDate) and isinstance(value, _dt.date):
        return DateLit(value=value.isoformat())
    if isinstance(ty, TEnum) and isinstance(value, EnumValue):
        return EnumMember(enum=value.enum, member=value.member)
    if isinstance(ty, TList) and isinstance(value, tuple):
        return ListLit(items=tuple(literal(v, ty.elem) for v in value))
    if isinstance(ty, TTuple) and isinstance(value, TupleValue):
        pairs = zip(value.items, ty.items, strict=True)
        return TupleLit(items=tuple(literal(v, t) for v, t in pairs))
    if isinstance(ty, TOptional):
        return NoneLit() if value is None else literal(value, ty.elem)
    if isinstance(ty, TDict) and isinstance(value, DictValue):
        return DictLit(
            keys=tuple(literal(k, ty.key) for k, _ in value.entries),
            values=tuple(literal(v, ty.value) for _, v in value.entries),
        )
    raise ValueError_(f"{value!r} cannot be written as a literal of type {ty.show()}")
