"""Sorts, closed values and regexes as SMT-LIB text, and the names a core may use.

``sort_of`` and ``value_term`` follow the language's types (dates are ``Int``
ordinals, enums datatypes, lists sequences); ``plain``/``join`` compute the type two
operands meet at, without refinements; ``CoreScope`` says what each name of a core is.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from dataclasses import field
from fractions import Fraction

from derivative import _regex
from derivative._record import record
from derivative._types import (
    INT,
    STR,
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
from derivative._values import EnumValue, Value

from ._smt_syntax import (
    EncodingError,
    constructor_symbol,
    int_term,
    real_term,
    string_literal,
    symbol,
)

# --------------------------------------------------------------------------- sorts


def sort_of(ty: Ty) -> str:
    """The SMT sort of a resolved type; ``list[any]`` (only ``[]``) defaults to ``Int``."""
    if isinstance(ty, (TInt, TDate)):
        return "Int"
    if isinstance(ty, TBool):
        return "Bool"
    if isinstance(ty, TReal):
        return "Real"
    if isinstance(ty, TStr):
        return "String"
    if isinstance(ty, TList):
        return f"(Seq {sort_of(ty.elem)})"
    if isinstance(ty, TEnum):
        return symbol(ty.name)
    if isinstance(ty, TAny):
        return "Int"
    if isinstance(ty, (TTuple, TOptional, TDict)):
        return f"|{type_name(ty)}|"
    raise EncodingError(f"values of type {ty.show()} have no SMT-LIB sort")


def type_name(ty: Ty) -> str:
    """The datatype name of a tuple, optional or dict type, without the quoting bars: the
    sorts of its parts (``tuple<Int,String>``), so one type has one name."""

    def bare(t: Ty) -> str:
        return sort_of(t).replace("|", "")

    if isinstance(ty, TTuple):
        return "tuple<" + ",".join(bare(t) for t in ty.items) + ">"
    if isinstance(ty, TOptional):
        return f"optional<{bare(ty.elem)}>"
    if isinstance(ty, TDict):
        return f"dict<{bare(ty.key)},{bare(ty.value)}>"
    raise EncodingError(f"{ty.show()} is not a datatype")


def plain(ty: Ty) -> Ty:
    """The type without refinements (ranges and patterns say nothing about the sort)."""
    if isinstance(ty, TInt):
        return INT
    if isinstance(ty, TStr):
        return STR
    if isinstance(ty, TList):
        return TList(plain(ty.elem))
    if isinstance(ty, TTuple):
        return TTuple(tuple(plain(t) for t in ty.items))
    if isinstance(ty, TOptional):
        return TOptional(plain(ty.elem))
    if isinstance(ty, TDict):
        return TDict(plain(ty.key), plain(ty.value))
    return ty


def contains_enum(ty: Ty, out: set[str]) -> None:
    if isinstance(ty, TEnum):
        out.add(ty.name)
    elif isinstance(ty, TList | TOptional):
        contains_enum(ty.elem, out)
    elif isinstance(ty, TTuple):
        for t in ty.items:
            contains_enum(t, out)
    elif isinstance(ty, TDict):
        contains_enum(ty.key, out)
        contains_enum(ty.value, out)


def value_term(value: object, ty: Ty) -> str:
    """A runtime value of type ``ty`` as a closed SMT term."""
    ty = plain(ty)
    if isinstance(ty, TBool):
        if not isinstance(value, bool):
            raise EncodingError(f"{value!r} is not a bool")
        return "true" if value else "false"
    if isinstance(ty, TInt):
        if isinstance(value, bool) or not isinstance(value, int):
            raise EncodingError(f"{value!r} is not an int")
        return int_term(value)
    if isinstance(ty, TReal):
        if isinstance(value, bool) or not isinstance(value, (int, Fraction, float)):
            raise EncodingError(f"{value!r} is not a real")
        return real_term(Fraction(value))
    if isinstance(ty, TStr):
        if not isinstance(value, str):
            raise EncodingError(f"{value!r} is not a str")
        return string_literal(value)
    if isinstance(ty, TDate):
        if not isinstance(value, _dt.date) or isinstance(value, _dt.datetime):
            raise EncodingError(f"{value!r} is not a date")
        return int_term(value.toordinal())
    if isinstance(ty, TEnum):
        if not isinstance(value, EnumValue) or value.enum != ty.name:
            raise EncodingError(f"{value!r} is not a member of {ty.name}")
        if value.member not in ty.members:
            raise EncodingError(f"{ty.name} has no member {value.member}")
        return constructor_symbol(ty.name, value.member)
    if isinstance(ty, TList):
        if not isinstance(value, tuple):
            raise EncodingError(f"{value!r} is not a list")
        if not value:
            return f"(as seq.empty {sort_of(ty)})"
        units = [f"(seq.unit {value_term(v, ty.elem)})" for v in value]
        return units[0] if len(units) == 1 else f"(seq.++ {' '.join(units)})"
    if isinstance(ty, (TTuple, TOptional, TDict)):
        from ._smt_compound import compound_value

        return compound_value(value, ty, value_term)
    raise EncodingError(f"values of type {ty.show()} cannot be written in SMT-LIB")


# --------------------------------------------------------------------------- regexes


def _re_char(c: int) -> str:
    return string_literal(chr(c))


def _re_ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = [
        f"(str.to_re {_re_char(lo)})" if lo == hi else f"(re.range {_re_char(lo)} {_re_char(hi)})"
        for lo, hi in ranges
    ]
    if not parts:
        return "re.none"
    return parts[0] if len(parts) == 1 else f"(re.union {' '.join(parts)})"


def regex_term(node: _regex.RNode) -> str:
    """The SMT-LIB regular expression of a spec regex tree (a full match via ``str.in_re``)."""
    if isinstance(node, _regex.REmpty):
        return '(str.to_re "")'
    if isinstance(node, _regex.RChar):
        return f"(str.to_re {string_literal(node.char)})"
    if isinstance(node, _regex.RAny):
        return '(re.diff re.allchar (str.to_re "\\u{a}"))'
    if isinstance(node, _regex.RClass):
        inside = _re_ranges(node.ranges)
        return f"(re.diff re.allchar {inside})" if node.negated else inside
    if isinstance(node, _regex.RConcat):
        parts: list[str] = []
        run = ""
        for item in node.items:
            if isinstance(item, _regex.RChar):
                run += item.char
                continue
            if run:
                parts.append(f"(str.to_re {string_literal(run)})")
                run = ""
            parts.append(regex_term(item))
        if run:
            parts.append(f"(str.to_re {string_literal(run)})")
        return parts[0] if len(parts) == 1 else f"(re.++ {' '.join(parts)})"
    if isinstance(node, _regex.RAlt):
        return f"(re.union {' '.join(regex_term(o) for o in node.options)})"
    if isinstance(node, _regex.RRepeat):
        inner = regex_term(node.node)
        lo, hi = node.min, node.max
        if (lo, hi) == (0, None):
            return f"(re.* {inner})"
        if (lo, hi) == (1, None):
            return f"(re.+ {inner})"
        if (lo, hi) == (0, 1):
            return f"(re.opt {inner})"
        if hi is None:
            return f"(re.++ ((_ re.^ {lo}) {inner}) (re.* {inner}))"
        if lo == hi:
            return f"((_ re.^ {lo}) {inner})"
        return f"((_ re.loop {lo} {hi}) {inner})"
    raise EncodingError(f"unknown regex node {node!r}")


# --------------------------------------------------------------------------- scope


@record
class CoreScope:
    """What the printer knows about the names a core uses.

    ``variables``: the free decision variables (params; a function's inputs) with
    their types; those in ``fixed`` (a witness input) are defined to that value,
    the others declared.  ``consts`` are defined by value.  ``result`` is the type of
    ``result`` when the core is about one function, and ``function`` that function's
    name, whose calls (in an ``example``) stand for ``result``.  ``inputs`` are the
    function's parameter names in call order: a call ``f(a1, ..., an)`` is the call
    the script is about only where every parameter equals its argument, so the call
    is *defined* only there (``(= p_i a_i)`` joins its definedness).  That is how an
    example pins the free inputs of a ``contradicting_example`` script.
    """

    variables: Mapping[str, Ty] = field(default_factory=dict)
    fixed: Mapping[str, Value] = field(default_factory=dict)
    consts: Mapping[str, tuple[Ty, Value]] = field(default_factory=dict)
    enums: Mapping[str, TEnum] = field(default_factory=dict)
    result: Ty | None = None
    function: str | None = None
    inputs: Sequence[str] = ()
