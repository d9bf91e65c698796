"""Resolved (semantic) types, as the type checker computes them.

Written types (``_ast.IntType`` ...) may name constants in their bounds and enums
by name; these are what they resolve to.  They are small frozen dataclasses, not
pydantic models, because every back-end asks for them on hot paths.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ty:
    """Base of resolved types."""

    def show(self) -> str:
        """The type as a user writes it."""
        raise NotImplementedError


@dataclass(frozen=True)
class TInt(Ty):
    lo: int | None = None
    hi: int | None = None

    def show(self) -> str:
        if self.lo is None and self.hi is None:
            return "int"
        return f"int in {'' if self.lo is None else self.lo}..{'' if self.hi is None else self.hi}"


@dataclass(frozen=True)
class TBool(Ty):
    def show(self) -> str:
        return "bool"


@dataclass(frozen=True)
class TReal(Ty):
    def show(self) -> str:
        return "real"


@dataclass(frozen=True)
class TStr(Ty):
    pattern: str | None = None

    def show(self) -> str:
        return "str" if self.pattern is None else f"str matching {self.pattern!r}"


@dataclass(frozen=True)
class TDate(Ty):
    def show(self) -> str:
        return "date"


@dataclass(frozen=True)
class TList(Ty):
    """``elem`` is ``TAny`` only for the empty list literal ``[]``."""

    elem: Ty

    def show(self) -> str:
        return f"list[{self.elem.show()}]"


@dataclass(frozen=True)
class TEnum(Ty):
    name: str
    members: tuple[str, ...]

    def show(self) -> str:
        return self.name


@dataclass(frozen=True)
class TNone(Ty):
    def show(self) -> str:
        return "none"


@dataclass(frozen=True)
class TRange(Ty):
    """The type of ``LO..HI``; only meaningful on the right of ``in``."""

    def show(self) -> str:
        return "range"


@dataclass(frozen=True)
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
    return t
