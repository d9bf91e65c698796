"""What each core member asserts, as one expression of the language.

A certificate's core entry carries an ``expr``: the obligation *as an expression*,
exactly what the SMT-LIB script asserts for it (defined and true).  For most
obligations that is their own expression; the rest follows from what an obligation
means at the certificate's witness input (docs/language.md §8):

==================================  ======================================================
obligation                          asserted expression
==================================  ======================================================
requirement, requires, ensures      its expression
``raises E when C``                 ``not C``: at the witness the call must return
                                    normally (an ``unrealizable`` input satisfies no
                                    raises condition; an ``f(..) == V`` example returns)
``example: f(args) == V``           the comparison itself; the call stands for ``result``
                                    *at the call's own input*: the encoding pins the
                                    function's parameters to ``args`` (see below)
``example: f(args) raises E``       ``p1 == a1 and ... and (C1 or C2 ...)``: the parameters
                                    are the call's arguments, and one of the ``when``
                                    conditions of the raises clauses of ``f`` whose
                                    exception is related to ``E`` (a subclass or a base)
                                    holds (``false`` if none)
a type range (synthetic)            ``LO <= x <= HI`` / ``matches(x, "RE")`` / for a list
                                    ``all(... for item in xs)``, with the id
                                    ``x.range`` (``f.x.range``, ``f.result.range`` inside
                                    function ``f``)
==================================  ======================================================

The builder and the verifier (with ``--spec``) both derive the expression with this
module, so a certificate whose ``expr`` differs from the spec's obligation is caught.

Where the witness input is fixed and where it is free: an ``unrealizable``
certificate is about one input (it satisfies every requires and no raises condition),
so its script fixes the parameters to the witness.  A ``contradicting_example``
certificate is about the example's own call: its parameters are free and the example
member itself pins them (an ``f(args) == V`` call is defined only where the parameters
equal ``args``; a raises example says so in its expression).  So an example whose
input violates a ``requires`` or triggers a ``raises`` condition has a minimal core
that contains the example: without the example the parameters may be anything, and
the requires or raises member holds somewhere.
"""

from __future__ import annotations

from collections.abc import Sequence

from derivative._ast import (
    BoolOp,
    Call,
    Compare,
    Contract,
    Expr,
    FunctionDecl,
    Generator,
    IntLit,
    Name,
    Obligation,
    Result,
    StrLit,
    SystemDecl,
    Unary,
    conjunction,
    disjunction,
)
from derivative._types import TInt, TList, TStr, Ty

__all__ = [
    "RANGE_SUFFIX",
    "core_formula",
    "example_pins",
    "owner_params",
    "raises_example_condition",
    "range_expr",
    "range_obligation",
    "related_exceptions",
]

RANGE_SUFFIX = ".range"


def _int(n: int) -> Expr:
    return IntLit(value=n) if n >= 0 else Unary(op="-", operand=IntLit(value=-n))


def _item_name(taken: frozenset[str]) -> str:
    for name in ("item", "elem", "element", "member"):
        if name not in taken:
            return name
    n = 1
    while f"item{n}" in taken:
        n += 1
    return f"item{n}"


def range_expr(subject: Expr, ty: Ty, taken: frozenset[str] = frozenset()) -> Expr | None:
    """The refinement of ``ty`` as a condition on ``subject`` (None: ``ty`` has none).

    A list whose elements are refined gives ``all(COND for item in subject)``; the
    bound name is the first of ``item``, ``elem``, ``element``, ``member`` that is not the
    subject's own name or an enclosing bound name (shadowing anything else is harmless:
    the body only reads the bound name), so the builder and the verifier agree on it.
    """
    if isinstance(ty, TList):
        if isinstance(subject, Name):
            taken = taken | {subject.id}
        var = _item_name(taken)
        inner = range_expr(Name(id=var), ty.elem, taken | {var})
        if inner is None:
            return None
        return Generator(func="all", body=inner, var=var, iterable=subject)
    if isinstance(ty, TInt) and (ty.lo is not None or ty.hi is not None):
        if ty.lo is not None and ty.hi is not None:
            return Compare(ops=("<=", "<="), operands=(_int(ty.lo), subject, _int(ty.hi)))
        if ty.lo is not None:
            return Compare(ops=(">=",), operands=(subject, _int(ty.lo)))
        assert ty.hi is not None
        return Compare(ops=("<=",), operands=(subject, _int(ty.hi)))
    if isinstance(ty, TStr) and ty.pattern is not None:
        return Call(func="matches", args=(subject, StrLit(value=ty.pattern)))
    return None


def range_obligation(
    name: str,
    ty: Ty,
    *,
    owner: str | None = None,
    file: str = "",
    line: int = 0,
    column: int = 0,
) -> Obligation | None:
    """The synthetic obligation "``name`` lies in its declared range" (None if unrefined).

    ``owner=None``: a global ``param``, id ``name.range``.  With ``owner`` (a function
    or ``System.op``): a parameter of it, id ``owner.name.range``, or its result when
    ``name == "result"``, id ``owner.result.range``.  Positions: the declaration's.
    """
    subject: Expr = Result() if owner is not None and name == "result" else Name(id=name)
    expr = range_expr(subject, ty)
    if expr is None:
        return None
    ident = f"{name}{RANGE_SUFFIX}" if owner is None else f"{owner}.{name}{RANGE_SUFFIX}"
    return Obligation(
        id=ident,
        generated_id=True,
        kind="requirement" if owner is None else "requires",
        owner=owner,
        expr=expr,
        file=file,
        line=line,
        column=column,
    )


_BUILTIN_MRO_CACHE: dict[str, tuple[str, ...]] = {}


def _chain(name: str, declared: dict[str, str]) -> tuple[str, ...]:
    """``name`` and its bases (declared ones, then Python's built-in hierarchy)."""
    import builtins

    out: list[str] = []
    while name in declared and name not in out:
        out.append(name)
        name = declared[name]
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, BaseException):
        out.extend(c.__name__ for c in cls.__mro__ if c is not object)
    elif name not in out:
        out.append(name)
    return tuple(out)


def related_exceptions(a: str, b: str, declared: dict[str, str]) -> bool:
    """Whether one of the two exception classes is a subclass of the other."""
    return a in _chain(b, declared) or b in _chain(a, declared)


def _disjunction(conditions: Sequence[Expr]) -> Expr:
    return disjunction(conditions)


def owner_params(contract: Contract, owner: str | None) -> tuple[str, ...] | None:
    """The parameter names of a function or ``System.op``, in call order (None: unknown)."""
    if owner is None:
        return None
    for d in contract.declarations:
        if isinstance(d, FunctionDecl) and d.name == owner:
            return tuple(p.name for p in d.params)
        if isinstance(d, SystemDecl) and owner.startswith(d.name + "."):
            op = owner[len(d.name) + 1 :]
            for o in d.operations:
                if o.name == op:
                    return tuple(p.name for p in o.params)
    return None


def raises_example_condition(
    obligation: Obligation, contract: Contract, exceptions: dict[str, str]
) -> Expr:
    """``C1 or C2 ...`` for ``example: f(args) raises E``: a related raises condition holds."""
    assert obligation.exception is not None
    conditions = [
        o.expr
        for o in contract.obligations
        if o.kind == "raises"
        and o.owner == obligation.owner
        and o.exception is not None
        and related_exceptions(o.exception, obligation.exception, exceptions)
    ]
    return _disjunction(conditions)


def _pin_conjunction(params: Sequence[str], args: Sequence[Expr], condition: Expr) -> Expr:
    pins: list[Expr] = [
        Compare(ops=("==",), operands=(Name(id=name), arg))
        for name, arg in zip(params, args, strict=True)
    ]
    return conjunction([*pins, condition])


def example_pins(expr: Expr, params: Sequence[str]) -> list[Expr] | None:
    """The arguments a raises example's asserted expression pins the parameters to.

    ``core_formula`` writes ``p1 == a1 and ... and pn == an and COND`` (one ``and`` run,
    into which an ``and`` in ``COND`` is spliced); this reads the ``a_i`` back, or answers
    None if ``expr`` does not start that way.  With no parameters there is nothing to pin:
    the answer is ``[]``.
    """
    if not params:
        return []
    conjuncts: list[Expr] = (
        list(expr.operands) if isinstance(expr, BoolOp) and expr.op == "and" else [expr]
    )
    if len(conjuncts) < len(params) + 1:
        return None
    args: list[Expr] = []
    for name, pin in zip(params, conjuncts, strict=False):
        if not (
            isinstance(pin, Compare)
            and pin.ops == ("==",)
            and isinstance(pin.operands[0], Name)
            and pin.operands[0].id == name
        ):
            return None
        args.append(pin.operands[1])
    return args


def core_formula(obligation: Obligation, contract: Contract, exceptions: dict[str, str]) -> Expr:
    """The expression a core member asserts (see the module docstring).

    ``exceptions`` maps declared exception names to their bases
    (``TypeInfo.exceptions``).  A raises example whose call is not a call of its
    owner with one argument per parameter keeps the bare condition (the type checker
    rejects such an example, so this does not happen in a checked contract).
    """
    if obligation.kind == "raises":
        return Unary(op="not", operand=obligation.expr)
    if obligation.kind == "example" and obligation.exception is not None:
        condition = raises_example_condition(obligation, contract, exceptions)
        params = owner_params(contract, obligation.owner)
        call = obligation.expr
        if params is None or not isinstance(call, Call) or len(call.args) != len(params):
            return condition
        return _pin_conjunction(params, call.args, condition)
    return obligation.expr
