"""The ground every type check stands on: what an expression may see, where its
errors go, the type tests that let ``any`` through, and the walker's plumbing.

``Ctx`` says which names an expression sees (and which declared names it may not
use, with the message to give); ``State`` collects the errors of one whole check;
``ExprCheckerBase`` is the part of the expression checker that the checks of
operators (``_typecheck_expr``) and of calls (``_typecheck_calls``) share.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import field
from typing import TYPE_CHECKING

from derivative._ast import Expr, SystemDecl
from derivative._errors import SpecError
from derivative._record import record
from derivative._typecheck_positions import source_pos
from derivative._types import TAny, TBool, TDate, TInt, TReal, TStr, Ty
from derivative._walk import ExprVisitor

if TYPE_CHECKING:
    from derivative._typeinfo import Signature, TypeInfo

# --------------------------------------------------------------------------- type tests


def is_num(t: Ty) -> bool:
    """An int or a real, or ``any`` (an element of ``[]``, or an ill-typed operand)."""
    return isinstance(t, (TInt, TReal, TAny))


def is_int(t: Ty) -> bool:
    return isinstance(t, (TInt, TAny))


def is_str(t: Ty) -> bool:
    return isinstance(t, (TStr, TAny))


def is_bool(t: Ty) -> bool:
    return isinstance(t, (TBool, TAny))


def is_ordered(t: Ty) -> bool:
    return isinstance(t, (TInt, TReal, TStr, TDate, TAny))


# --------------------------------------------------------------------------- hints


def _closest(name: str, candidates: Iterable[str]) -> str | None:
    import difflib  # only for a name that is not found: an error path

    found = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    best = _closest(name, candidates)
    return None if best is None else f"did you mean {best!r}?"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --------------------------------------------------------------------------- context and state


class Forbidden(Mapping[str, tuple[str, str | None]]):
    """Declared names that may not be used here, with the message and hint to give.

    Built per obligation, so it formats messages only on a look-up that hits (a
    dictionary of every param per obligation made large specs quadratic)."""

    def __init__(self, names: Collection[str], message: str, hint: str | None) -> None:
        self._names = names
        self._message = message
        self._hint = hint

    def __getitem__(self, name: str) -> tuple[str, str | None]:
        if name not in self._names:
            raise KeyError(name)
        hint = None if self._hint is None else self._hint.format(name=name)
        return (self._message.format(name=repr(name)), hint)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


@record(frozen=False)
class Ctx:
    """What an expression may see."""

    file: str
    names: Mapping[str, Ty]
    result: Ty | None = None
    result_error: str | None = "`result` is only allowed in ensures clauses and count predicates"
    forbidden: Mapping[str, tuple[str, str | None]] = field(default_factory=dict)
    """Declared names not visible here -> (message, hint)."""
    system: SystemDecl | None = None
    callables: dict[str, Signature] = field(default_factory=dict)
    count_allowed: bool = False
    line: int = 0
    column: int = 0
    """Fallback position for nodes built without one."""


class State:
    """Errors and the resolved tables shared by all expression checks."""

    def __init__(self, info: TypeInfo) -> None:
        self.info = info
        self.errors: list[SpecError] = []

    def error(
        self, message: str, file: str, line: int, column: int, hint: str | None = None
    ) -> None:
        self.errors.append(SpecError(message, source_pos(file, line, column), hint=hint))


# --------------------------------------------------------------------------- the walker's plumbing


class ExprCheckerBase(ExprVisitor[Ty]):
    """What every expression check shares: the context, bound variables, errors.

    An ill-typed sub-expression gets ``TAny`` so one mistake is reported once, not
    again by every operator above it.
    """

    def __init__(self, state: State, ctx: Ctx) -> None:
        self.state = state
        self.ctx = ctx
        self.bound: dict[str, Ty] = {}
        self.count_operands: set[int] = set()

    def check(self, expr: Expr) -> Ty:
        return self.visit(expr)

    def err(self, node: Expr, message: str, hint: str | None = None) -> Ty:
        line, col = (node.line, node.col) if node.line else (self.ctx.line, self.ctx.column)
        self.state.error(message, self.ctx.file, line, col, hint)
        return TAny()

    def cond(self, node: Expr, what: str) -> None:
        t = self.visit(node)
        if not is_bool(t):
            self.err(node, f"{what} must be a bool, not {t.show()}")
