"""Runtime values of the language, shared by the evaluator, the oracle and JSON I/O.

=========  ==========================================
type       Python value
=========  ==========================================
int        ``int`` (never ``bool``)
bool       ``bool``
real       ``fractions.Fraction`` (exact); floats from a candidate are compared with tolerance
str        ``str``
date       ``datetime.date``
list[T]    ``tuple`` of values (immutable, hashable)
enum       ``EnumValue``
tuple[..]  ``TupleValue`` (a Python tuple is a list)
optional   ``None`` for ``none``, else the value itself
dict[K,V]  ``DictValue``: its entries sorted by key
=========  ==========================================

``UNDEFINED`` is the distinct result of an expression whose evaluation is undefined
(division by zero, an index out of range, ``int("x")``, a date leaving its range).
It is a value, not an exception, so it can never leak out of the evaluator as a crash.

``value_json`` writes a value as every JSON document of the tool does: integers,
strings and booleans as themselves, numbers by the one rule of ``derivative._numbers``
(reals as exact decimal or ``"p/q"`` strings), dates ``"YYYY-MM-DD"``, enum members by
name, lists and tuples as arrays, ``none`` as ``null``, dicts as objects when every key
is a str (the empty dict too) and else as arrays of ``[key, value]`` pairs.
Where the type is known (certificates), ``certificates._jsonvalue``
encodes by type with the same rule.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from fractions import Fraction
from typing import Any, Final, TypeAlias

from derivative._numbers import number_json
from derivative._record import record


@record(order=True)
class EnumValue:
    """A member of a declared enum, e.g. ``Outcome.ok``."""

    enum: str
    member: str

    def __str__(self) -> str:
        return f"{self.enum}.{self.member}"


@record
class TupleValue:
    """A value of ``tuple[T1, ..., Tn]``: its items in order."""

    items: tuple[Any, ...]

    def __len__(self) -> int:
        return len(self.items)


@record
class DictValue:
    """A value of ``dict[K, V]``: ``(key, value)`` entries sorted by key, keys distinct.

    Keys are ints or strs (one kind per dict), so the sorted entries are the one form
    of a mapping, and equal dicts are equal objects (``keys(d)`` is that order)."""

    entries: tuple[tuple[Any, Any], ...]

    @staticmethod
    def of(pairs: Any) -> DictValue:
        """The dict of ``(key, value)`` pairs; a later pair with a key already seen wins."""
        table: dict[Any, Any] = {}
        for k, v in pairs:
            table[k] = v
        return DictValue(tuple(sorted(table.items(), key=lambda kv: kv[0])))

    def key_tuple(self) -> tuple[Any, ...]:
        return tuple(k for k, _ in self.entries)

    def __len__(self) -> int:
        return len(self.entries)


class _Undefined:
    """The one undefined value; falsy checks on it are a bug, so it refuses ``bool``."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        raise TypeError("UNDEFINED has no truth value; test `is UNDEFINED` first")


UNDEFINED: Final = _Undefined()

Value: TypeAlias = (
    "int | bool | Fraction | str | date | tuple[Value, ...] | EnumValue | TupleValue | DictValue"
    " | None"
)


def value_json(value: object, other: Callable[[object], Any] | None = None) -> Any:
    """A runtime value (or ``None``, a candidate's float) as JSON; anything else goes to
    ``other`` (at any depth), or is a ``TypeError`` without one."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | Fraction | float):
        return number_json(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, EnumValue):
        return value.member
    if isinstance(value, tuple | list):
        return [value_json(v, other) for v in value]
    if isinstance(value, TupleValue):
        return [value_json(v, other) for v in value.items]
    if isinstance(value, DictValue):
        if all(isinstance(k, str) for k in value.key_tuple()):
            return {k: value_json(v, other) for k, v in value.entries}
        return [[value_json(k, other), value_json(v, other)] for k, v in value.entries]
    if other is not None:
        return other(value)
    raise TypeError(f"not a value: {value!r}")
