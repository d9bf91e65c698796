"""Resolved (semantic) types, as the type checker computes them.

Written types (``_ast.IntType`` ...) may name constants in their bounds and enums
by name; these are what they resolve to.  They are small frozen dataclasses, not
pydantic models, because every back-end asks for them on hot paths.
"""

from __future__ import annotations

from derivative._record import record


@record
class Ty:
    """Base of resolved types."""

    def show(self) -> str:
        """The type as a user writes it."""
        raise NotImplementedError


@record
class TInt(Ty):
    lo: int | None = None
    hi: int | None = None

    def show(self) -> str:
        if self.lo is None and self.hi is None:
            return "int"
        return f"int in {'' if self.lo is None else self.lo}..{'' if self.hi is None else self.hi}"


@record
class TBool(Ty):
    def show(self) -> str:
        return "bool"


@record
class TReal(Ty):
    def show(self) -> str:
        return "real"


@record
class TStr(Ty):
    pattern: str | None = None

    def show(self) -> str:
        return "str" if self.pattern is None else f"str matching {self.pattern!r}"


@record
class TDate(Ty):
    def show(self) -> str:
        return "date"


@record
class TList(Ty):
    """``elem`` is ``TAny`` only for the empty list literal ``[]``."""

    elem: Ty

    def show(self) -> str:
        return f"list[{self.elem.show()}]"


@record
class TTuple(Ty):
    """``tuple[T1, ..., Tn]``, n >= 1 (docs/language.md §6.5)."""

    items: tuple[Ty, ...]

    def show(self) -> str:
        return "tuple[" + ", ".join(t.show() for t in self.items) + "]"


@record
class TOptional(Ty):
    """``optional[T]``: ``none`` or a value of ``elem`` (never itself optional or none)."""

    elem: Ty

    def show(self) -> str:
        return f"optional[{self.elem.show()}]"


@record
class TDict(Ty):
    """``dict[K, V]``; both are ``TAny`` only for the empty literal ``{}``."""

    key: Ty
    value: Ty

    def show(self) -> str:
        return f"dict[{self.key.show()}, {self.value.show()}]"


@record
class TEnum(Ty):
    name: str
    members: tuple[str, ...]

    def show(self) -> str:
        return self.name


@record
class TNone(Ty):
    def show(self) -> str:
        return "none"


@record
class TRange(Ty):
    """The type of ``LO..HI``; only meaningful on the right of ``in``."""

    def show(self) -> str:
        return "range"


@record
class TAny(Ty):
    """Element type of ``[]``: compatible with every type."""

    def show(self) -> str:
        return "any"


INT = TInt()
BOOL = TBool()
REAL = TReal()
STR = TStr()
DATE = TDate()
NONE = TNone()


def base(t: Ty) -> Ty:
    """The type without refinements (ranges, regexes), for compatibility checks."""
    if isinstance(t, TInt):
        return INT
    if isinstance(t, TStr):
        return STR
    if isinstance(t, TList):
        return TList(base(t.elem))
    if isinstance(t, TTuple):
        return TTuple(tuple(base(x) for x in t.items))
    if isinstance(t, TOptional):
        return TOptional(base(t.elem))
    if isinstance(t, TDict):
        return TDict(base(t.key), base(t.value))
    return t


# --------------------------------------------------------------------------- the join


def join(a: Ty, b: Ty) -> Ty | None:
    """The least type that values of ``a`` and of ``b`` both belong to, or None.

    This is the one join of the project: the type checker asks it whether two values
    can meet (``==``, ``in``, list items, the branches of ``if``, the arguments of
    ``min``/``max``), and every reading (the Z3 encoder, the SMT-LIB printer, the
    generated Python) asks ``join_base`` for the type an operation works at.

    - ``any`` (the element type of ``[]``) meets everything: ``join(any, t)`` is ``t``;
    - equal types are their own join (a refinement both share is kept);
    - ``int`` and ``real`` meet at ``real``; two ``int`` types (different ranges) at ``int``;
    - two ``str`` types (different patterns) meet at ``str``;
    - lists meet element-wise, tuples of one length item by item, dicts key and value;
    - ``none`` and ``T`` meet at ``optional[T]``, ``optional[T]`` and ``T'`` at
      ``optional[join(T, T')]``;
    - anything else (``bool``, ``date``, an enum, ``none``, only with itself) does not meet.
    """
    if isinstance(a, TAny):
        return b
    if isinstance(b, TAny):
        return a
    if a == b:
        return a
    if isinstance(a, (TInt, TReal)) and isinstance(b, (TInt, TReal)):
        return INT if isinstance(a, TInt) and isinstance(b, TInt) else REAL
    if isinstance(a, TStr) and isinstance(b, TStr):
        return STR
    if isinstance(a, TList) and isinstance(b, TList):
        e = join(a.elem, b.elem)
        return None if e is None else TList(e)
    return _join_compound(a, b)


def _join_compound(a: Ty, b: Ty) -> Ty | None:
    """``join`` of tuples, optionals and dicts (docs/language.md §6.5-6.7)."""
    if isinstance(a, TTuple) and isinstance(b, TTuple):
        if len(a.items) != len(b.items):
            return None
        items = [join(x, y) for x, y in zip(a.items, b.items, strict=True)]
        if any(t is None for t in items):
            return None
        return TTuple(tuple(t for t in items if t is not None))
    if isinstance(a, TDict) and isinstance(b, TDict):
        k, v = join(a.key, b.key), join(a.value, b.value)
        return None if k is None or v is None else TDict(k, v)
    if isinstance(a, TNone) or isinstance(b, TNone):
        other = b if isinstance(a, TNone) else a
        if isinstance(other, TRange):
            return None
        return other if isinstance(other, TOptional) else TOptional(other)
    if isinstance(a, TOptional) or isinstance(b, TOptional):
        x = a.elem if isinstance(a, TOptional) else a
        y = b.elem if isinstance(b, TOptional) else b
        e = join(x, y)
        return None if e is None or isinstance(e, TOptional) else TOptional(e)
    return None


def join_base(a: Ty, b: Ty) -> Ty:
    """``join`` of the unrefined types, for the readings of a type-checked tree.

    Where the two types do not meet (the operands of ``date + int``), the answer is
    the left operand's unrefined type, which is what each reading then dispatches on.
    """
    joined = join(base(a), base(b))
    return base(a) if joined is None else joined


def assignable(target: Ty, value: Ty) -> bool:
    """Whether a value of type ``value`` may stand where ``target`` is expected
    (refinements are checked on values, not here; int is promoted to real)."""
    if isinstance(value, TAny) or isinstance(target, TAny):
        return True
    if isinstance(target, TReal):
        return isinstance(value, (TInt, TReal))
    if isinstance(target, TList):
        return isinstance(value, TList) and assignable(target.elem, value.elem)
    if isinstance(target, TTuple):
        return (
            isinstance(value, TTuple)
            and len(value.items) == len(target.items)
            and all(assignable(t, v) for t, v in zip(target.items, value.items, strict=True))
        )
    if isinstance(target, TOptional):
        if isinstance(value, TNone):
            return True
        inner = value.elem if isinstance(value, TOptional) else value
        return assignable(target.elem, inner)
    if isinstance(target, TDict):
        return (
            isinstance(value, TDict)
            and assignable(target.key, value.key)
            and assignable(target.value, value.value)
        )
    return base(target) == base(value)


def comparable(a: Ty, b: Ty) -> bool:
    """``a == b`` is meaningful: the two types meet (see ``join``); ranges never do."""
    if isinstance(a, TRange) or isinstance(b, TRange):
        return False
    return join(a, b) is not None
