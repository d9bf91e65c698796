"""``record``: frozen value classes without ``dataclasses``' per-class compilation.

``@dataclass(frozen=True)`` writes the source of ``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, ``__setattr__`` and ``__delattr__`` for every class and compiles each with
``exec`` when the module is imported: about 0.3 ms a class, which for the seventy-odd
value classes a ``derivative check`` imports was a tenth of the command's whole run (a
requirements checker runs in pre-commit hooks and editors: start-up is the feature).
``record`` gives the same instances from generic methods shared by every class, driven by
a per-class plan computed once, so declaring a class costs a few microseconds.

What it keeps of a frozen dataclass: fields from annotations (bases' first), defaults and
``dataclasses.field(default=..., default_factory=..., repr=..., compare=...)``, ``ClassVar``
left out, positional or keyword-only ``__init__`` that calls ``__post_init__``, the same
``repr``, equality and hash over the compared fields in order, ``order=True``,
``__match_args__``, ``FrozenInstanceError`` on assignment, methods a class writes itself
left alone, and pickling and copying. ``replace`` is this module's (``dataclasses.replace``
needs ``__dataclass_fields__``). ``record(frozen=False)`` gives the mutable form (what a
plain ``@dataclass`` gives: assignable fields, unhashable). The published option classes
stay real dataclasses: users may call ``dataclasses.fields`` and ``dataclasses.replace`` on
them.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

__all__ = ["record", "record_fields", "replace"]

_T = TypeVar("_T")
_MISSING: Any = dataclasses.MISSING


_REQUIRED: Any = object()


def _nothing(_: Any) -> tuple[()]:
    return ()


class _Plan:
    """One class's fields: names in order, and what ``__init__``/``repr``/``==`` use.

    ``template`` maps every field to its default, or to a marker for a required field or
    one with a factory; ``__init__`` copies it, lays the arguments over it and only then
    looks at the ``check`` fields (required or factory), so the common call is three dict
    operations."""

    __slots__ = (
        "check",
        "compared",
        "factories",
        "key",
        "known",
        "names",
        "positional",
        "post",
        "shown",
        "template",
    )

    def __init__(self, fields: list[tuple[str, Any, Any, bool, bool]], kw_only: bool,
                 post: bool) -> None:
        self.names = tuple(f[0] for f in fields)
        self.known = frozenset(self.names)
        self.factories = {f[0]: f[2] for f in fields if f[2] is not _MISSING}
        self.template = {
            f[0]: (f[1] if f[1] is not _MISSING else _REQUIRED) for f in fields
        }
        self.check = tuple(n for n, v in self.template.items() if v is _REQUIRED)
        self.shown = tuple(f[0] for f in fields if f[3])
        self.compared = tuple(f[0] for f in fields if f[4])
        # the compared values (one value alone, a tuple of several), read in C; not the
        # instance's __dict__, which may also hold what a cached_property stored
        self.key: Callable[[Any], Any] = (
            operator.attrgetter(*self.compared) if self.compared else _nothing
        )
        self.positional = 0 if kw_only else len(self.names)
        self.post = post


def _own_fields(cls: type) -> list[tuple[str, Any, Any, bool, bool]]:
    """``(name, default, factory, repr, compare)`` of the fields ``cls`` itself annotates."""
    out = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063
        text = annotation if isinstance(annotation, str) else repr(annotation)
        if text.startswith(("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar")):
            continue
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, dataclasses.Field):
            out.append((name, value.default, value.default_factory, value.repr, value.compare))
            if value.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, value.default)
        else:
            out.append((name, value, _MISSING, True, True))
    return out


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    plan: _Plan = self._record_plan
    if not kwargs and len(args) == plan.positional and args:
        object.__setattr__(self, "__dict__", dict(zip(plan.names, args, strict=True)))
        if plan.post:
            self.__post_init__()
        return
    values = plan.template.copy()
    if args:
        if len(args) > plan.positional:
            raise TypeError(f"{type(self).__name__}() takes {plan.positional} positional "
                            f"arguments but {len(args)} were given")
        values.update(zip(plan.names, args, strict=False))
        if kwargs:
            for key in plan.names[: len(args)]:
                if key in kwargs:
                    raise TypeError(f"{type(self).__name__}() got multiple values for "
                                    f"argument {key!r}")
    if kwargs:
        if not plan.known.issuperset(kwargs):
            key = next(k for k in kwargs if k not in plan.known)
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument "
                            f"{key!r}")
        values.update(kwargs)
    for name in plan.check:
        if values[name] is _REQUIRED:
            factory = plan.factories.get(name)
            if factory is None:
                raise TypeError(f"{type(self).__name__}() missing required argument {name!r}")
            values[name] = factory()
    object.__setattr__(self, "__dict__", values)
    if plan.post:
        self.__post_init__()


def _repr(self: Any) -> str:
    shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._record_plan.shown)
    return f"{type(self).__qualname__}({shown})"


def _key(self: Any) -> Any:
    key: Any = self._record_plan.key(self)
    return key


def _eq(self: Any, other: object) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    key: Callable[[Any], Any] = getattr(self, "_record_plan").key  # noqa: B009
    return key(self) == key(other)


def _hash(self: Any) -> int:
    return hash(self._record_plan.key(self))


def _setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _ordering(test: Callable[[tuple[Any, ...], tuple[Any, ...]], bool]) -> Callable[..., Any]:
    def compare(self: Any, other: object) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return test(_key(self), _key(other))

    return compare


_ORDER = {
    "__lt__": _ordering(lambda a, b: a < b),
    "__le__": _ordering(lambda a, b: a <= b),
    "__gt__": _ordering(lambda a, b: a > b),
    "__ge__": _ordering(lambda a, b: a >= b),
}


def _build(cls: type[_T], kw_only: bool, order: bool, frozen: bool = True) -> type[_T]:
    fields: dict[str, tuple[str, Any, Any, bool, bool]] = {}
    for base in reversed(cls.__mro__[1:]):
        base_plan = base.__dict__.get("_record_plan")
        if base_plan is not None:
            for f in base.__dict__["_record_fields"]:
                fields[f[0]] = f
    for f in _own_fields(cls):
        fields[f[0]] = f
    mine = list(fields.values())
    cls._record_fields = tuple(mine)  # type: ignore[attr-defined]
    cls._record_plan = _Plan(mine, kw_only, hasattr(cls, "__post_init__"))  # type: ignore[attr-defined]
    own = cls.__dict__
    methods: dict[str, Any] = {"__init__": _init, "__repr__": _repr, "__eq__": _eq}
    if frozen:
        methods.update({"__setattr__": _setattr, "__delattr__": _delattr})
    if order:
        methods.update(_ORDER)
    for name, method in methods.items():
        if name not in own:
            setattr(cls, name, method)
    # Like a frozen dataclass: a hash over the compared fields unless the class wrote one
    # (a class that writes only ``__eq__`` gets ``__hash__ = None`` from Python: not its own).
    # A mutable one is unhashable, as a dataclass with ``eq`` and without ``frozen``.
    explicit = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if not explicit:
        cls.__hash__ = _hash if frozen else None  # type: ignore[assignment]
    if "__match_args__" not in own:
        cls.__match_args__ = () if kw_only else tuple(f[0] for f in mine)  # type: ignore[attr-defined,misc]
    return cls


@overload
def record(cls: type[_T], /) -> type[_T]: ...
@overload
def record(
    cls: None = None, /, *, kw_only: bool = False, order: bool = False, frozen: bool = True
) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def record(
    cls: type[_T] | None = None, /, *, kw_only: bool = False, order: bool = False,
    frozen: bool = True,
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """Make ``cls`` a frozen value class (module docstring): ``@record`` or
    ``@record(kw_only=True, order=True)``; ``@record(frozen=False)`` for a mutable one
    (what ``@dataclass`` gives: assignable fields, no hash)."""
    if cls is None:
        return lambda c: _build(c, kw_only, order, frozen)
    return _build(cls, kw_only, order, frozen)


def record_fields(obj: Any) -> tuple[str, ...]:
    """The field names of a record class or instance, in order."""
    cls: Any = obj if isinstance(obj, type) else type(obj)
    names: tuple[str, ...] = cls._record_plan.names
    return names


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of the record ``obj`` with ``changes`` (``dataclasses.replace`` for records;
    a real dataclass, such as an options class, is handed to ``dataclasses.replace``)."""
    if not hasattr(type(obj), "_record_plan"):
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    values = {n: getattr(obj, n) for n in record_fields(obj)}
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
    values.update(changes)
    return type(obj)(**values)
