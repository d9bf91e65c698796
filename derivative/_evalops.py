"""Operations on runtime values with the language's meaning (docs/language.md §6-7).

The evaluator (``_eval.py``) walks expressions; this module says what each operator
does to the values it meets.  It is separate so that the oracle, which must compare a
candidate's result with an expected value (an ``example``) and check a result against
its declared type, uses the very same equality, tolerance and type rules.

Values arrive from two places: literals and constants (always well-typed) and a
candidate's results (anything at all, normalised by the oracle but not trusted).  So
every operation first checks the *sorts* of its operands and answers ``UNDEFINED`` on
a mismatch; a Python ``TypeError`` never escapes.  Sorts:

=============  ===============================================================
sort           Python values
=============  ===============================================================
``"num"``      ``int`` (never ``bool``), ``Fraction``, finite ``float``
``"bool"``     ``bool``
``"str"``      ``str``
``"date"``     ``datetime.date`` (a ``datetime.datetime`` is *not* a date)
``("enum",N)`` ``EnumValue`` with ``enum == N``
``("list",S)`` ``tuple`` whose elements all have sort ``S`` (``"any"`` when empty)
``("tuple",…)`` ``TupleValue``: the sorts of its items, in order
``"none"``      ``None`` (the value ``none``)
``("opt",S)``  none and values of sort ``S`` together (a list ``[1, none]``)
``("dict",…)`` ``DictValue``: the sorts of its keys and of its values
=============  ===============================================================

Anything else (a Python ``list``, ``nan``, ``inf``, a ``Decimal``, an
``enum.Enum`` member, a list mixing sorts) has no sort and every operation on it is
undefined.  ``int`` and ``real`` share the sort ``"num"``: the language compares them
by mathematical value, and whether an ``int`` result was required is the oracle's
question (``conforms``), not an operator's.

**Floating point.**  Exact arithmetic is the rule (``Fraction``).  A float can only
come from a candidate (a ``real`` result); arithmetic with it stays in floating point
(Python's numeric tower), and every comparison in which either side is a float uses a
slack: ``a == b`` is ``math.isclose(a, b, rel_tol=rel_tol, abs_tol=ABS_TOL)``;
``a < b`` holds when ``a < b`` exactly and the two are not close; ``a <= b`` when
``a < b`` exactly or they are close (``>``/``>=`` mirror these).  Lists compare element
by element with the same rules.  A float computation that overflows (``inf``, ``nan``,
an ``int`` too large for a float) is undefined.  ``min``, ``max`` and ``sorted`` order
exactly (values that differ by less than the slack are interchangeable anyway).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final, TypeAlias, TypeGuard, cast

from derivative import _regex
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
    TTuple,
    Ty,
)
from derivative._types import TStr as _TStr
from derivative._values import UNDEFINED, DictValue, EnumValue, TupleValue, _Undefined

ABS_TOL: Final = 1e-12
"""Absolute slack of float comparisons (docs/language.md §6.4); the relative one is configurable."""

DEFAULT_REL_TOL: Final = 1e-9

RuntimeValue: TypeAlias = (
    "int | bool | Fraction | float | str | date | tuple[RuntimeValue, ...] | EnumValue"
    " | TupleValue | DictValue | None"
)
"""A value as the evaluator sees it: a ``Value``, or one holding floats a candidate returned."""

Outcome: TypeAlias = "RuntimeValue | _Undefined"
"""What evaluating an expression gives: a value or ``UNDEFINED``."""

Sort: TypeAlias = "str | tuple[str, Sort] | tuple[str, tuple[Sort, ...]]"

NUM: Final = "num"
BOOL: Final = "bool"
STR: Final = "str"
DATE: Final = "date"
ANY: Final = "any"
"""Element sort of the empty list: compatible with every sort."""
NONE: Final = "none"

_MIN_ORD: Final = date.min.toordinal()
_MAX_ORD: Final = date.max.toordinal()
_SAFE_DIGITS: Final = 4000
"""Below Python's ``int``/``str`` conversion limit (4300 digits); longer go through Decimal."""


# --------------------------------------------------------------------------- sorts


def is_int(v: object) -> TypeGuard[int]:
    """An ``int`` of the language: a Python ``int`` that is not a ``bool``."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v: object) -> TypeGuard[int | Fraction | float]:
    """An ``int`` or ``real``: int (not bool), Fraction, or a finite float."""
    if isinstance(v, float):
        return math.isfinite(v)
    return isinstance(v, Fraction) or is_int(v)


def is_date(v: object) -> TypeGuard[date]:
    """A calendar day; a ``datetime`` (a subclass of ``date``) is not one."""
    return isinstance(v, date) and not isinstance(v, datetime)


def admissible(v: object) -> bool:
    """Whether ``v`` can be a value at all, judged without looking inside lists (O(1))."""
    return (
        is_num(v)
        or isinstance(v, (bool, str, tuple, EnumValue, TupleValue, DictValue))
        or is_date(v)
        or v is None
    )


def sort_of(v: object) -> Sort | None:
    """The sort of ``v`` (see the module docstring), or None when ``v`` is no value."""
    if isinstance(v, bool):
        return BOOL
    if is_num(v):
        return NUM
    if isinstance(v, str):
        return STR
    if is_date(v):
        return DATE
    if isinstance(v, EnumValue):
        return ("enum", v.enum)
    if isinstance(v, tuple):
        elem: Sort | None = ANY
        for item in v:
            s = sort_of(item)
            if s is None or elem is None:
                return None
            elem = unify(elem, s)
        return None if elem is None else ("list", elem)
    return _compound_sort(v)


def _compound_sort(v: object) -> Sort | None:
    """The sort of ``none``, a ``TupleValue`` or a ``DictValue`` (else None)."""
    if v is None:
        return NONE
    if isinstance(v, TupleValue):
        items: list[Sort] = []
        for item in v.items:
            s = sort_of(item)
            if s is None:
                return None
            items.append(s)
        return ("tuple", tuple(items))
    if isinstance(v, DictValue):
        key: Sort | None = ANY
        val: Sort | None = ANY
        for k, x in v.entries:
            sk, sx = sort_of(k), sort_of(x)
            if sk not in (NUM, STR) or sx is None or key is None or val is None:
                return None
            if isinstance(k, float | Fraction):
                return None
            key, val = unify(key, sk), unify(val, sx)
        keys = v.key_tuple()
        if key is None or val is None or any(a >= b for a, b in itertools.pairwise(keys)):
            return None  # not in its one form: keys distinct and increasing
        return ("dict", (key, val))
    return None


def _unify_compound(a: Sort, b: Sort) -> Sort | None:
    """``unify`` of tuple, dict and optional sorts."""
    if a == NONE or b == NONE:
        other = b if a == NONE else a
        return other if isinstance(other, tuple) and other[0] == "opt" else ("opt", other)
    if (isinstance(a, tuple) and a[0] == "opt") or (isinstance(b, tuple) and b[0] == "opt"):
        x = a[1] if isinstance(a, tuple) and a[0] == "opt" else a
        y = b[1] if isinstance(b, tuple) and b[0] == "opt" else b
        inner = unify(cast(Sort, x), cast(Sort, y))
        return None if inner is None else ("opt", inner)
    if not (isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0]):
        return None
    if a[0] in ("tuple", "dict"):
        xs, ys = a[1], b[1]
        assert isinstance(xs, tuple) and isinstance(ys, tuple)
        if len(xs) != len(ys):
            return None
        out: list[Sort] = []
        for x, y in zip(xs, ys, strict=True):
            u = unify(cast(Sort, x), cast(Sort, y))
            if u is None:
                return None
            out.append(u)
        return (a[0], tuple(out))
    return None


def unify(a: Sort, b: Sort) -> Sort | None:
    """The common sort of two sorts (``"any"`` fits everything), or None if they clash."""
    if a == b:
        return a
    if a == ANY:
        return b
    if b == ANY:
        return a
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "list":
        inner = unify(a[1], b[1])  # type: ignore[arg-type]
        return None if inner is None else ("list", inner)
    return _unify_compound(a, b)


def common_sort(*values: object) -> Sort | None:
    """The sort all ``values`` share, or None if one is no value or two clash."""
    out: Sort | None = ANY
    for v in values:
        s = sort_of(v)
        if s is None or out is None:
            return None
        out = unify(out, s)
    return out


def is_ordered(s: Sort) -> bool:
    """Sorts with an order: numbers, strings, dates, and lists of those (lexicographic).

    ``bool`` and enums have equality only: the language gives them no order (Python's
    ``False < True`` is an accident of ``bool`` being an ``int``, which it is not here).
    """
    if s in (NUM, STR, DATE, ANY):
        return True
    if isinstance(s, tuple) and s[0] == "list":
        return is_ordered(s[1])  # type: ignore[arg-type]
    return False


# --------------------------------------------------------------------------- comparisons


class Comparer:
    """Equality and order with the float slack of docs/language.md §6.4 (``rel_tol`` is
    per spec)."""

    __slots__ = ("rel_tol",)

    def __init__(self, rel_tol: float = DEFAULT_REL_TOL) -> None:
        self.rel_tol = rel_tol

    def close(self, a: int | Fraction | float, b: int | Fraction | float) -> bool:
        """``math.isclose`` with this slack; exact arithmetic when a side overflows a float."""
        try:
            return math.isclose(float(a), float(b), rel_tol=self.rel_tol, abs_tol=ABS_TOL)
        except OverflowError:
            fa, fb = Fraction(a), Fraction(b)
            limit = max(Fraction(self.rel_tol) * max(abs(fa), abs(fb)), Fraction(ABS_TOL))
            return abs(fa - fb) <= limit

    # Operands of the ``_v`` methods are already known to share a sort.
    def eq_v(self, a: object, b: object) -> bool:
        if a is None or b is None:
            return a is b
        if isinstance(a, TupleValue):
            assert isinstance(b, TupleValue)
            return self.eq_v(a.items, b.items)
        if isinstance(a, DictValue):
            assert isinstance(b, DictValue)
            return a.key_tuple() == b.key_tuple() and all(
                self.eq_v(x, y) for (_, x), (_, y) in zip(a.entries, b.entries, strict=True)
            )
        if isinstance(a, tuple):
            assert isinstance(b, tuple)
            return len(a) == len(b) and all(self.eq_v(x, y) for x, y in zip(a, b, strict=True))
        if isinstance(a, float) or isinstance(b, float):
            assert is_num(a) and is_num(b)
            return self.close(a, b)
        return a == b

    def lt_v(self, a: object, b: object) -> bool:
        if isinstance(a, tuple):
            assert isinstance(b, tuple)
            for x, y in zip(a, b, strict=False):
                if not self.eq_v(x, y):
                    return self.lt_v(x, y)
            return len(a) < len(b)
        if isinstance(a, float) or isinstance(b, float):
            assert is_num(a) and is_num(b)
            return a < b and not self.close(a, b)
        result: bool = a < b  # type: ignore[operator]
        return result

    def le_v(self, a: object, b: object) -> bool:
        return self.lt_v(a, b) or self.eq_v(a, b)

    def eq(self, a: object, b: object) -> bool | _Undefined:
        """``a == b``; undefined when the two have no common sort."""
        if common_sort(a, b) is None:
            return UNDEFINED
        return self.eq_v(a, b)

    def compare(self, op: str, a: object, b: object) -> bool | _Undefined:
        """One link of a comparison chain other than ``in``/``not in``."""
        s = common_sort(a, b)
        if s is None:
            return UNDEFINED
        if op == "==":
            return self.eq_v(a, b)
        if op == "!=":
            return not self.eq_v(a, b)
        if not is_ordered(s):
            return UNDEFINED
        if op == "<":
            return self.lt_v(a, b)
        if op == "<=":
            return self.le_v(a, b)
        if op == ">":
            return self.lt_v(b, a)
        if op == ">=":
            return self.le_v(b, a)
        return UNDEFINED

    def member(self, x: object, xs: object) -> bool | _Undefined:
        """``x in xs``: substring for strings, element (with slack) for lists, key for dicts."""
        if isinstance(xs, DictValue):
            return dict_find(xs, x) is not None if _is_key_for(xs, x) else UNDEFINED
        if isinstance(xs, str):
            return x in xs if isinstance(x, str) else UNDEFINED
        n = self.occurrences(xs, x, stop_at_first=True)
        return n if isinstance(n, _Undefined) else n > 0

    def occurrences(self, xs: object, x: object, stop_at_first: bool = False) -> int | _Undefined:
        """How many elements of the list ``xs`` equal ``x`` (with slack)."""
        if not isinstance(xs, tuple):
            return UNDEFINED
        if common_sort((x,), xs) is None:
            return UNDEFINED
        count = 0
        for y in xs:
            if self.eq_v(x, y):
                count += 1
                if stop_at_first:
                    break
        return count

    def in_range(self, x: object, lo: int, hi: int) -> bool | _Undefined:
        """``x in lo..hi``: whether ``x`` is one of the integers ``lo``..``hi``."""
        if is_int(x):
            return lo <= x <= hi
        if isinstance(x, Fraction):
            return x.denominator == 1 and lo <= x <= hi
        if isinstance(x, float) and math.isfinite(x):
            k = round(x)
            return lo <= k <= hi and self.close(x, k)
        return UNDEFINED


# --------------------------------------------------------------------------- arithmetic


def _finite(x: int | Fraction | float) -> int | Fraction | float | _Undefined:
    if isinstance(x, float) and not math.isfinite(x):
        return UNDEFINED
    return x


def _has_float(a: object, b: object) -> bool:
    return isinstance(a, float) or isinstance(b, float)


def shift_date(d: date, days: int) -> date | _Undefined:
    """``d + days``; undefined when the day leaves 0001-01-01..9999-12-31."""
    o = d.toordinal() + days
    if _MIN_ORD <= o <= _MAX_ORD:
        return date.fromordinal(o)
    return UNDEFINED


def add(a: object, b: object) -> Outcome:
    """``a + b``: numbers, string and list concatenation, ``date + int``/``int + date``."""
    if is_num(a) and is_num(b):
        return _finite(a + b)
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, tuple) and isinstance(b, tuple):
        if common_sort(a, b) is None:
            return UNDEFINED
        return a + b
    if is_date(a) and is_int(b):
        return shift_date(a, b)
    if is_int(a) and is_date(b):
        return shift_date(b, a)
    return UNDEFINED


def sub(a: object, b: object) -> Outcome:
    """``a - b``: numbers, ``date - date`` (days, an int), ``date - int``."""
    if is_num(a) and is_num(b):
        return _finite(a - b)
    if is_date(a) and is_date(b):
        return a.toordinal() - b.toordinal()
    if is_date(a) and is_int(b):
        return shift_date(a, -b)
    return UNDEFINED


def mul(a: object, b: object) -> Outcome:
    """``a * b`` on numbers only: the language has no string or list repetition."""
    if is_num(a) and is_num(b):
        return _finite(a * b)
    return UNDEFINED


def truediv(a: object, b: object) -> Outcome:
    """``a / b``: always a real; exact (Fraction) unless a float is involved."""
    if not (is_num(a) and is_num(b)) or b == 0:
        return UNDEFINED
    if _has_float(a, b):
        return _finite(a / b)
    return Fraction(a) / Fraction(b)


def floordiv(a: object, b: object) -> Outcome:
    """``a // b``: Python's floor division; int for two ints, else a real."""
    if not (is_num(a) and is_num(b)) or b == 0:
        return UNDEFINED
    if is_int(a) and is_int(b):
        return a // b
    if _has_float(a, b):
        return _finite(a // b)
    return Fraction(a // b)  # Python's Fraction // gives an int; the language says real


def mod(a: object, b: object) -> Outcome:
    """``a % b``: Python's modulo (the sign of the divisor); int for two ints, else a real."""
    if not (is_num(a) and is_num(b)) or b == 0:
        return UNDEFINED
    if is_int(a) and is_int(b):
        return a % b
    if _has_float(a, b):
        return _finite(a % b)
    return Fraction(a % b)


def neg(a: object) -> Outcome:
    return -a if is_num(a) else UNDEFINED


def absolute(a: object) -> Outcome:
    return cast(RuntimeValue, abs(a)) if is_num(a) else UNDEFINED


BINOPS: Final = {"+": add, "-": sub, "*": mul, "/": truediv, "//": floordiv, "%": mod}


# --------------------------------------------------------------------------- built-ins


def length(a: object) -> Outcome:
    return len(a) if isinstance(a, (str, tuple, TupleValue, DictValue)) else UNDEFINED


def index(base: object, i: object) -> Outcome:
    """``base[i]`` for a string or list; only ``0 <= i < len(base)`` is defined."""
    if isinstance(base, (TupleValue, DictValue)):
        return compound_index(base, i)
    if not isinstance(base, (str, tuple)) or not is_int(i):
        return UNDEFINED
    if 0 <= i < len(base):
        return cast(RuntimeValue, base[i])
    return UNDEFINED


def int_of_str(s: object) -> Outcome:
    """``int(s)``: defined only for ASCII digit strings (no sign, space, ``_``, other digits)."""
    if not isinstance(s, str) or not (s.isascii() and s.isdigit()):
        return UNDEFINED
    if len(s) <= _SAFE_DIGITS:
        return int(s)
    return int(Decimal(s))  # exact, and not subject to Python's digit limit


def str_of_int(n: object) -> Outcome:
    """``str(n)`` for an int, in decimal with a leading ``-`` if negative, any length."""
    if not is_int(n):
        return UNDEFINED
    if n.bit_length() < _SAFE_DIGITS * 3:
        return str(n)
    return str(Decimal(n))


def _strings(*args: object) -> bool:
    return all(isinstance(a, str) for a in args)


def matches(s: object, pattern: object) -> Outcome:
    """``matches(s, RE)``: a full match of the spec regex (``derivative._regex``).

    A pattern outside the regex subset is outside ``matches``' domain: undefined.  (A
    literal pattern never is; the type checker rejects it at its position.)
    """
    if not (isinstance(s, str) and isinstance(pattern, str)):
        return UNDEFINED
    try:
        return _regex.fullmatch(pattern, s)
    except _regex.RegexError:
        return UNDEFINED


def startswith(s: object, p: object) -> Outcome:
    if isinstance(s, str) and isinstance(p, str):
        return s.startswith(p)
    return UNDEFINED


def endswith(s: object, p: object) -> Outcome:
    if isinstance(s, str) and isinstance(p, str):
        return s.endswith(p)
    return UNDEFINED


def contains(s: object, p: object) -> Outcome:
    if isinstance(s, str) and isinstance(p, str):
        return p in s
    return UNDEFINED


def total(xs: object) -> Outcome:
    """``sum(xs)`` of a list of numbers; 0 (an int) for the empty list."""
    if not isinstance(xs, tuple) or common_sort(*xs) not in (NUM, ANY):
        return UNDEFINED
    acc: int | Fraction | float = 0
    for x in xs:
        assert is_num(x)
        r = _finite(acc + x)
        if isinstance(r, _Undefined):
            return r
        acc = r
    return acc


def product(xs: object) -> Outcome:
    """``product(xs)`` of a list of numbers; 1 (an int) for the empty list."""
    if not isinstance(xs, tuple) or common_sort(*xs) not in (NUM, ANY):
        return UNDEFINED
    acc: int | Fraction | float = 1
    for x in xs:
        assert is_num(x)
        r = _finite(acc * x)
        if isinstance(r, _Undefined):
            return r
        acc = r
    return acc


def reverse(xs: object) -> Outcome:
    """``reversed(xs)``: the list's elements in the opposite order (a list, not an iterator)."""
    if not isinstance(xs, tuple):
        return UNDEFINED
    return xs[::-1]


def slice_of(base: object, lo: object, hi: object) -> Outcome:
    """``base[lo:hi]`` of a string or list with Python's meaning: a negative bound counts
    from the end, bounds past either end are clamped, a missing bound (None) is the end
    it stands for; never undefined when its parts are values."""
    if not isinstance(base, (str, tuple)):
        return UNDEFINED
    if not (lo is None or is_int(lo)) or not (hi is None or is_int(hi)):
        return UNDEFINED
    return cast(RuntimeValue, base[lo:hi])


def _ordered_args(args: Iterable[object]) -> tuple[RuntimeValue, ...] | None:
    items = tuple(args)
    s = common_sort(*items)
    if s is None or not is_ordered(s):
        return None
    return items  # type: ignore[return-value]  # sort_of vouched for every item


def extreme(args: tuple[object, ...], largest: bool) -> Outcome:
    """``min``/``max`` of two or more values, or of one non-empty list."""
    if len(args) == 1:
        if not isinstance(args[0], tuple):
            return UNDEFINED
        args = args[0]
    items = _ordered_args(args)
    if not items:
        return UNDEFINED
    ordered: list[Any] = list(items)
    return cast(RuntimeValue, max(ordered) if largest else min(ordered))


def sort_list(xs: object) -> Outcome:
    """``sorted(xs)``: ascending, stable; the list's elements must be ordered."""
    if not isinstance(xs, tuple):
        return UNDEFINED
    items = _ordered_args(xs)
    if items is None:
        return UNDEFINED
    ordered: list[Any] = list(items)
    return tuple(sorted(ordered))


# --------------------------------------------------------------------------- tuples, none, dicts


def _is_key_for(d: DictValue, k: object) -> bool:
    """``k`` can be a key of ``d``: an int or a str, of the kind ``d``'s keys are."""
    if not (is_int(k) or isinstance(k, str)):
        return False
    return not d.entries or isinstance(d.entries[0][0], str) == isinstance(k, str)


def dict_find(d: DictValue, k: object) -> int | None:
    """The position of key ``k`` in ``d``'s entries (binary search: they are sorted)."""
    lo, hi = 0, len(d.entries)
    while lo < hi:
        mid = (lo + hi) // 2
        key = d.entries[mid][0]
        if key == k:
            return mid
        if key < k:
            lo = mid + 1
        else:
            hi = mid
    return None


def compound_index(base: TupleValue | DictValue, i: object) -> Outcome:
    """``t[i]`` (``-n <= i < n``, as Python) or ``d[k]`` (undefined for a missing key)."""
    if isinstance(base, TupleValue):
        n = len(base.items)
        if not is_int(i) or not -n <= i < n:
            return UNDEFINED
        return cast(RuntimeValue, base.items[i])
    if not _is_key_for(base, i):
        return UNDEFINED
    at = dict_find(base, i)
    return UNDEFINED if at is None else cast(RuntimeValue, base.entries[at][1])


def dict_get(d: object, k: object, default: object = UNDEFINED) -> Outcome:
    """``get(d, k)``: ``d[k]``, or ``none`` (``default`` if given) for a missing key."""
    if not isinstance(d, DictValue) or not _is_key_for(d, k):
        return UNDEFINED
    at = dict_find(d, k)
    if at is not None:
        return cast(RuntimeValue, d.entries[at][1])
    if isinstance(default, _Undefined):
        return None
    if d.entries and common_sort(d.entries[0][1], default) is None:
        return UNDEFINED
    return cast(RuntimeValue, default)


def dict_keys(d: object) -> Outcome:
    """``keys(d)``: the keys in increasing order (a list)."""
    return d.key_tuple() if isinstance(d, DictValue) else UNDEFINED


def some_value(x: object) -> Outcome:
    """``value(x)``: ``x`` itself; undefined when ``x`` is ``none``."""
    return UNDEFINED if x is None else cast(RuntimeValue, x)


def make_dict(pairs: list[tuple[RuntimeValue, RuntimeValue]]) -> Outcome:
    """The value of a dict literal: undefined when its keys or its values mix sorts."""
    d = DictValue.of(pairs) if _plain_keys(pairs) else None
    if d is None or sort_of(d) is None:
        return UNDEFINED
    return d


def _plain_keys(pairs: list[tuple[RuntimeValue, RuntimeValue]]) -> bool:
    kinds = {str if isinstance(k, str) else int if is_int(k) else None for k, _ in pairs}
    return None not in kinds and len(kinds) <= 1


# --------------------------------------------------------------------------- conformance


def conforms(v: object, ty: Ty) -> bool:
    """Whether ``v`` is a value of the resolved type ``ty`` (the oracle's result check).

    ``real`` accepts ints, Fractions and finite floats (docs/language.md §6); ``int`` only
    ints (never a bool or a float, even ``3.0``); refinements (ranges, regexes) and enum
    membership are checked; ``TAny`` accepts any value; ``none`` only ``None``.
    """
    if isinstance(ty, TInt):
        return is_int(v) and (ty.lo is None or v >= ty.lo) and (ty.hi is None or v <= ty.hi)
    if isinstance(ty, TBool):
        return isinstance(v, bool)
    if isinstance(ty, TReal):
        return is_num(v)
    if isinstance(ty, _TStr):
        return isinstance(v, str) and (ty.pattern is None or _regex.fullmatch(ty.pattern, v))
    if isinstance(ty, TDate):
        return is_date(v)
    if isinstance(ty, TList):
        return isinstance(v, tuple) and all(conforms(x, ty.elem) for x in v)
    if isinstance(ty, TEnum):
        return isinstance(v, EnumValue) and v.enum == ty.name and v.member in ty.members
    if isinstance(ty, TNone):
        return v is None
    if isinstance(ty, TAny):
        return sort_of(v) is not None
    return _conforms_compound(v, ty)


def _conforms_compound(v: object, ty: Ty) -> bool:
    if isinstance(ty, TTuple):
        return (
            isinstance(v, TupleValue)
            and len(v.items) == len(ty.items)
            and all(conforms(x, t) for x, t in zip(v.items, ty.items, strict=True))
        )
    if isinstance(ty, TOptional):
        return v is None or conforms(v, ty.elem)
    if isinstance(ty, TDict):
        return isinstance(v, DictValue) and all(
            conforms(k, ty.key) and conforms(x, ty.value) for k, x in v.entries
        )
    return False


__all__ = [
    "ABS_TOL",
    "DEFAULT_REL_TOL",
    "Comparer",
    "Outcome",
    "RuntimeValue",
    "Sort",
    "admissible",
    "common_sort",
    "conforms",
    "is_date",
    "is_int",
    "is_num",
    "sort_of",
    "unify",
]
