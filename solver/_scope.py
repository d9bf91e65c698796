"""Who is checked together, with which variables, and the type obligations.

A declared refinement (``param lockout_minutes: int in 0..1440``, ``p: str matching
"[a-z]+"``, a ``-> int in 0..9`` result) constrains values exactly like a written
clause, and a conflict may involve it.  So each one becomes an obligation of its
own, written in the language's own syntax, with a generated id:

=========================  =========================================  ==========
declared                   obligation                                 kind
=========================  =========================================  ==========
``param x: int in A..B``   ``x.range``: ``A <= x <= B``               requirement
``param s: str matching``  ``s.range``: ``matches(s, "RE")``          requirement
``f(p: int in A..B)``      ``f.p.range``: ``A <= p <= B``             requires
``f(...) -> int in A..B``  ``f.result.range``: ``A <= result <= B``   requires
``list[int in A..B]``      ``all(A <= item <= B for item in xs)``     (same ids)
=========================  =========================================  ==========

(ids and kinds as the certificate layer defines them, so its verifier re-derives them;
the result's type obligation is read as part of the ensures side here.)

(one-sided ranges give one comparison).  What every value of a type satisfies by
construction (a date lies in 0001-01-01..9999-12-31, an enum value is a member) is
not an obligation: it is background, true in every question.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping

from derivative._ast import (
    Call,
    Compare,
    CompareOp,
    Contract,
    Expr,
    FunctionDecl,
    Generator,
    IntLit,
    Located,
    Name,
    Obligation,
    Result,
    StrLit,
    Unary,
)
from derivative._record import record
from derivative._types import TInt, TList, TNone, TStr, Ty
from derivative._values import Value
from derivative.certificates import range_obligation


@record
class Owner:
    """A function or an operation: the unit whose clauses are checked together."""

    name: str
    """Function name or ``System.op``."""
    params: tuple[tuple[str, Ty, str | None], ...]
    returns: Ty
    decl: Located
    system: str | None = None

    @property
    def call_names(self) -> tuple[str, ...]:
        """How an example calls it (an operation by its bare name)."""
        if self.system is None:
            return (self.name,)
        return (self.name.split(".", 1)[1], self.name)

    @property
    def has_result(self) -> bool:
        return not isinstance(self.returns, TNone)

    @property
    def from_params(self) -> tuple[str, ...]:
        return tuple(n for n, _, f in self.params if f is not None)


def _int(v: int) -> Expr:
    return IntLit(value=v) if v >= 0 else Unary(op="-", operand=IntLit(value=-v))


def _binder_names() -> Iterator[str]:
    """Names for the variable of each nested ``all(...)``: readable ones first, then as many
    numbered ones as a deeply nested list type needs (four names once ran out at the fifth
    level, an internal error)."""
    yield from ("item", "elem", "element", "member")
    for k in itertools.count(2):
        yield f"item{k}"


def refinement_expr(subject: Expr, ty: Ty, taken: frozenset[str]) -> tuple[Expr, str] | None:
    """The condition a declared refinement puts on ``subject``, and the id suffix."""
    if isinstance(ty, TInt):
        if ty.lo is not None and ty.hi is not None:
            ops: tuple[CompareOp, ...] = ("<=", "<=")
            return Compare(ops=ops, operands=(_int(ty.lo), subject, _int(ty.hi))), "range"
        if ty.lo is not None:
            return Compare(ops=(">=",), operands=(subject, _int(ty.lo))), "range"
        if ty.hi is not None:
            return Compare(ops=("<=",), operands=(subject, _int(ty.hi))), "range"
        return None
    if isinstance(ty, TStr):
        if ty.pattern is None:
            return None
        return Call(func="matches", args=(subject, StrLit(value=ty.pattern))), "matching"
    if isinstance(ty, TList):
        var = next(v for v in _binder_names() if v not in taken)
        inner = refinement_expr(Name(id=var), ty.elem, taken | {var})
        if inner is None:
            return None
        body, suffix = inner
        return Generator(func="all", body=body, var=var, iterable=subject), suffix
    return None


def _synthetic(
    name: str, owner: str | None, ty: Ty, where: Located, taken: frozenset[str]
) -> Obligation | None:
    """The type obligation of ``name`` (a param, a parameter of ``owner``, or ``result``).

    Scalars use the certificate layer's own definition (``range_obligation``), so a
    certificate's verifier re-derives exactly the same id and expression; a list with
    refined elements (which that definition does not cover) gets ``all(...)``.
    """
    ob = range_obligation(
        name, ty, owner=owner, file=where.file, line=where.line, column=where.column
    )
    if ob is None and isinstance(ty, TList):
        subject: Expr = Result() if owner is not None and name == "result" else Name(id=name)
        made = refinement_expr(subject, ty, taken)
        if made is not None:
            ident = f"{name}.range" if owner is None else f"{owner}.{name}.range"
            ob = Obligation(
                id=ident,
                generated_id=True,
                kind="requirement" if owner is None else "requires",
                owner=owner,
                expr=made[0],
                file=where.file,
                line=where.line,
                column=where.column,
            )
    if ob is None:
        return None
    what = "result" if name == "result" and owner is not None else name
    return ob.model_copy(update={"text": f"declared type of {what}: {ty.show()}"})


def owners(contract: Contract, signatures: Mapping[str, object]) -> list[Owner]:
    """Every function and operation, in declaration order."""
    out: list[Owner] = []
    for d in contract.declarations:
        if isinstance(d, FunctionDecl):
            sig = signatures[d.name]
            out.append(Owner(d.name, sig.params, sig.returns, d))  # type: ignore[attr-defined]
        elif d.kind == "system":
            for op in d.operations:
                sig = signatures[op.qualname]
                out.append(
                    Owner(op.qualname, sig.params, sig.returns, op, system=d.name)  # type: ignore[attr-defined]
                )
    return out


def param_obligations(
    contract: Contract, param_types: Mapping[str, Ty], consts: Mapping[str, Value]
) -> list[Obligation]:
    """The type obligations of the requirement set's params (``x.range``, ``s.matching``)."""
    out: list[Obligation] = []
    taken = frozenset(param_types) | frozenset(consts)
    for p in contract.params():
        ob = _synthetic(p.name, None, param_types[p.name], p, taken)
        if ob is not None:
            out.append(ob)
    return out


def owner_obligations(
    owner: Owner, consts: Mapping[str, Value]
) -> tuple[list[Obligation], list[Obligation]]:
    """The type obligations of an owner: its parameters' (requires) and its result's (ensures)."""
    taken = frozenset(n for n, _, _ in owner.params) | frozenset(consts)
    where = owner.decl
    requires: list[Obligation] = []
    for name, ty, _ in owner.params:
        ob = _synthetic(name, owner.name, ty, where, taken)
        if ob is not None:
            requires.append(ob)
    ensures: list[Obligation] = []
    if owner.has_result:
        ob = _synthetic("result", owner.name, owner.returns, where, taken)
        if ob is not None:
            ensures.append(ob)
    return requires, ensures
