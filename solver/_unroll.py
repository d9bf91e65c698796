"""Realizability of bounded lists by cases on their lengths (docs/decisions.md).

When ``requires`` bounds every list input to a few elements and everything is
arithmetic, each combination of lengths turns the lists into element variables:
bounded quantifiers unroll and ``forall result: not ensures`` becomes linear
arithmetic, which quantifier elimination decides completely (``maximum``, ``sort``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Literal

import z3

from derivative._types import TBool, TDate, TEnum, TInt, TList, TReal

from ._context import CallScope, Clauses, Ctx
from ._question import Question
from ._terms import Term, intrinsic_domain, seq_of, sort_of, var
from ._unrealizable import unrealizable
from ._z3util import Unsupported, Z, conj, true

UNROLL_MAX_LEN = 8
"""Lists whose valid lengths are all at most this are split into one case per length."""

UNROLL_MAX_CASES = 64
"""At most this many length combinations are tried."""

_ARITHMETIC = (TInt, TReal, TBool, TDate, TEnum)

Settled = Literal["realizable", "unrealizable"]
"""The method's conclusion (an unrealizable input is already handed on)."""


def realize_unrolled(
    ctx: Ctx, cl: Clauses, sc: CallScope, pre: Question, no_raise: Z
) -> Settled | None:
    """Realizability by cases on the lengths of bounded list inputs.

    When ``requires`` bounds every list input's length (at most ``UNROLL_MAX_LEN``) and
    the result and all elements are arithmetic, each combination of lengths turns the
    lists into that many element variables: bounded quantifiers over them unroll, and
    ``forall result: not post`` becomes linear arithmetic that quantifier elimination
    decides completely (``maximum``: ``forall i: xs[i] <= result`` and ``exists i:
    xs[i] == result``).  ``"realizable"`` when every case is unsat, ``"unrealizable"``
    once a case gave an input (handed to ``_unrealizable``, which confirms it), None when
    the method does not apply or a case stays undecided.
    """
    result = sc.result
    if (
        result is None
        or sc.origin
        or not (
            isinstance(result.ty, _ARITHMETIC)
            or (isinstance(result.ty, TList) and isinstance(result.ty.elem, _ARITHMETIC))
        )
    ):
        return None
    lists: list[str] = []
    for name, t in sc.inputs.items():
        if isinstance(t.ty, TList) and isinstance(t.ty.elem, _ARITHMETIC):
            lists.append(name)
        elif not isinstance(t.ty, _ARITHMETIC):
            return None
    if not lists:
        return None
    bounds: list[int] = []
    for name in lists:
        length = z3.Length(sc.inputs[name].value)
        bound = next(
            (
                b
                for b in range(UNROLL_MAX_LEN + 1)
                if pre.check(extra=[no_raise, length > b]).verdict == "unsat"
            ),
            None,
        )
        if bound is None:
            return None
        bounds.append(bound)
    cases = list(itertools.product(*(range(b + 1) for b in bounds)))
    if len(cases) > UNROLL_MAX_CASES:
        return None
    for lengths in cases:
        verdict = realize_case(ctx, cl, sc, dict(zip(lists, lengths, strict=True)))
        if verdict != "unsat":
            return None if verdict == "unknown" else "unrealizable"
    return "realizable"


def realize_case(ctx: Ctx, cl: Clauses, sc: CallScope, lengths: Mapping[str, int]) -> str:
    """One case of ``realize_unrolled``: ``unsat``, ``unknown``, or ``sat`` after handing
    the input found to ``_unrealizable``."""
    assert sc.result is not None
    inputs = dict(sc.inputs)
    background = [intrinsic_domain(t.value, t.ty) for n, t in sc.inputs.items() if n not in lengths]
    variables = {n: (t.value, t.ty) for n, t in sc.inputs.items() if n not in lengths}
    elements: dict[str, list[str]] = {}
    for name, n in lengths.items():
        ty = sc.inputs[name].ty
        assert isinstance(ty, TList)
        items, seq = _elements(name, ty, n)
        inputs[name] = seq
        background += [intrinsic_domain(e.value, e.ty) for e in items]
        elements[name] = [f"{name}[{k}]" for k in range(n)]
        variables.update({f"{name}[{k}]": (e.value, e.ty) for k, e in enumerate(items)})
    enc = ctx.encoder({**inputs, "result": sc.result})
    try:
        valid = [enc.encode(o.expr).holds for o in cl.requires]
        no_raise = conj(*[z3.Not(enc.encode(o.expr).holds) for o in cl.raises])
        ensures = conj(*[enc.encode(o.expr).holds for o in cl.ensures])
    except Unsupported:
        return "unknown"
    q = Question(
        f"{cl.owner.name} realizability",
        [],
        [*background, *valid, no_raise],
        variables,
        ctx.options.rlimit,
        ctx.options.timeout_ms,
    )
    shaped = _no_result(ctx, cl, sc, inputs, q, ensures)
    if shaped is None:
        return "unknown"
    quantified, complete = shaped
    ans = q.check_eliminating(quantified)
    if ans.verdict == "unknown":
        ans = q.check(extra=quantified)
    if ans.verdict != "sat":
        return ans.verdict
    if not complete:
        return "unknown"  # only results up to a length were tried: no conclusion
    try:
        found = q.values(ans.model)
    except Unsupported:
        return "unknown"
    bad_input = {n: v for n, v in found.items() if "[" not in n}
    for name, names in elements.items():
        bad_input[name] = tuple(found[k] for k in names)
    unrealizable(ctx, cl, bad_input, "unrolled lengths")
    return "sat"


def _elements(name: str, ty: TList, n: int) -> tuple[list[Term], Term]:
    """``n`` element variables ``name[k]`` and the list of exactly those elements."""
    items = [var(f"{name}[{k}]", ty.elem) for k in range(n)]
    return items, Term(seq_of([e.value for e in items], sort_of(ty)), true(), ty)


def _no_result(
    ctx: Ctx,
    cl: Clauses,
    sc: CallScope,
    inputs: Mapping[str, Term],
    q: Question,
    ensures: Z,
) -> tuple[list[Z], bool] | None:
    """ "No result satisfies every ensures" for one case of ``realize_case``, and
    whether that statement covers every result (``complete``).

    An arithmetic result is one universally quantified variable.  A list result is
    split by its length, one quantifier over that many element variables per length up
    to ``UNROLL_MAX_LEN``, so that everything stays linear arithmetic.  That covers every
    result when the ensures bound its length (no acceptable result is longer: an
    existential question); otherwise only the shorter results are covered, which can
    still prove realizability (some short result works for every input) but never the
    opposite, so the caller draws no conclusion from a "sat" then.
    """
    assert sc.result is not None
    r, ty = sc.result.value, sc.result.ty
    if not isinstance(ty, TList):
        return [z3.ForAll([r], z3.Implies(intrinsic_domain(r, ty), z3.Not(ensures)))], True
    longer = q.check(extra=[intrinsic_domain(r, ty), ensures, z3.Length(r) > UNROLL_MAX_LEN])
    complete = longer.verdict == "unsat"
    out: list[Z] = []
    for m in range(UNROLL_MAX_LEN + 1):
        items, seq = _elements(f"result#{m}", ty, m)
        enc = ctx.encoder({**inputs, "result": seq})
        try:
            ens = z3.simplify(conj(*[enc.encode(o.expr).holds for o in cl.ensures]))
        except Unsupported:
            return None
        if z3.is_false(ens):
            continue  # no result of this length is acceptable (``len(result) == len(xs)``)
        domain = conj(*[intrinsic_domain(e.value, e.ty) for e in items])
        body = z3.Implies(domain, z3.Not(ens))
        out.append(z3.ForAll([e.value for e in items], body) if items else body)
    return out, complete
