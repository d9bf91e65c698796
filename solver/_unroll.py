"""Realizability of bounded lists by cases on their lengths (docs/decisions.md).

When ``requires`` bounds every list input to a few elements and everything is
arithmetic, each combination of lengths turns the lists into element variables:
bounded quantifiers unroll and ``forall result: not ensures`` becomes linear
arithmetic, which quantifier elimination decides completely (``maximum``, ``sort``).
An int input with a few valid values that a quantifier's bound still reads after the
lists are unrolled (``make_a_pile(n)``: ``forall i in 0..n - 2``) is split by value too.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Literal

import z3

from derivative._ast import Name, Quantifier
from derivative._record import record
from derivative._types import TBool, TDate, TEnum, TInt, TList, TReal
from derivative._values import Value
from derivative._walk import walk

from ._context import CallScope, Clauses, Ctx
from ._question import Question
from ._terms import Term, intrinsic_domain, seq_of, sort_of, var
from ._unrealizable import unrealizable
from ._z3util import Unsupported, Z, conj, true
from ._z3util import ctx as z3_context

UNROLL_MAX_LEN = 12
"""List inputs whose valid lengths are all at most this are split into one case per length."""

UNROLL_MAX_CASES = 160
"""At most this many length combinations are tried."""

RESULT_MAX_LEN = 24
"""A list result is split into one quantifier per length up to this many elements."""

_ARITHMETIC = (TInt, TReal, TBool, TDate, TEnum)

UNROLL_MAX_VALUES = 32
"""An int input that bounds a quantifier is split by value when it has at most this many."""

Settled = Literal["realizable", "unrealizable"]
"""The method's conclusion (an unrealizable input is already handed on)."""


@record
class Unrolled:
    """What ``realize_unrolled`` concluded, and for a realizable function an input and
    an acceptable result found in one case (``example``: the witness when the solver
    cannot build one over symbolic lengths)."""

    settled: Settled
    example: Mapping[str, Value] | None = None


@record
class _Case:
    """One combination of list lengths and fixed int values, encoded."""

    inputs: Mapping[str, Term]
    question: Question
    elements: Mapping[str, list[str]]
    ensures: Z


def realize_unrolled(
    ctx: Ctx, cl: Clauses, sc: CallScope, pre: Question, no_raise: Z
) -> Unrolled | None:
    """Realizability by cases on the lengths of bounded list inputs.

    When ``requires`` bounds every list input's length (at most ``UNROLL_MAX_LEN``) and
    the result and all elements are arithmetic, each combination of lengths turns the
    lists into that many element variables: bounded quantifiers over them unroll, and
    ``forall result: not post`` becomes linear arithmetic that quantifier elimination
    decides completely (``maximum``: ``forall i: xs[i] <= result`` and ``exists i:
    xs[i] == result``).  Realizable when every case is unsat; unrealizable once a case
    gave an input (handed to ``_unrealizable``, which confirms it); None when the method
    does not apply or a case stays undecided.
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
    split = [n for n in _bounding_ints(cl, sc) if n not in lists]
    if not lists and not split and not isinstance(result.ty, TList):
        return None
    ranges: list[range] = []
    for name in lists:
        bound = _upper(pre, no_raise, z3.Length(sc.inputs[name].value), 0, UNROLL_MAX_LEN)
        if bound is None:
            return None
        ranges.append(range(bound + 1))
    kept: list[str] = []
    for name in split:
        span = _int_values(pre, no_raise, sc.inputs[name].value)
        if span is not None:
            kept.append(name)
            ranges.append(span)
    cases = list(itertools.product(*ranges))
    if len(cases) > UNROLL_MAX_CASES:
        return None
    names = [*lists, *kept]
    for values in cases:
        case = _case(ctx, cl, sc, dict(zip(names, values, strict=True)), len(lists))
        verdict = "unknown" if case is None else realize_case(ctx, cl, sc, case)
        if verdict != "unsat":
            return None if verdict == "unknown" else Unrolled("unrealizable")
    return Unrolled("realizable", _example(ctx, cl, sc, names, cases, len(lists)))


def _bounding_ints(cl: Clauses, sc: CallScope) -> list[str]:
    """Int inputs that a quantifier's range reads (candidates for a split by value)."""
    ints = {n for n, t in sc.inputs.items() if isinstance(t.ty, TInt)}
    found: list[str] = []
    for ob in [*cl.requires, *cl.ensures]:
        for node in walk(ob.expr):
            if isinstance(node, Quantifier):
                for bound in (node.lo, node.hi):
                    for leaf in walk(bound):
                        if isinstance(leaf, Name) and leaf.id in ints and leaf.id not in found:
                            found.append(leaf.id)
    return found


def _upper(pre: Question, no_raise: Z, term: Z, lo: int, hi: int) -> int | None:
    """The least ``b`` in ``lo..hi`` with ``term <= b`` for every valid input (None:
    none is), by bisection over "``term > b``" questions."""
    if pre.check(extra=[no_raise, term > hi]).verdict != "unsat":
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if pre.check(extra=[no_raise, term > mid]).verdict == "unsat":
            hi = mid
        else:
            lo = mid + 1
    return lo


def _int_values(pre: Question, no_raise: Z, term: Z) -> range | None:
    """The valid values of an int input when there are at most ``UNROLL_MAX_VALUES``."""
    low = pre.check(extra=[no_raise])
    if low.verdict != "sat":
        return None
    seen = low.model.eval(term, model_completion=True).as_long()
    top = _upper(pre, no_raise, term, seen, seen + UNROLL_MAX_VALUES)
    bottom = _upper(pre, no_raise, -term, -seen, -seen + UNROLL_MAX_VALUES)
    if top is None or bottom is None or top + bottom >= UNROLL_MAX_VALUES:
        return None
    return range(-bottom, top + 1)


def _case(
    ctx: Ctx, cl: Clauses, sc: CallScope, fixed: Mapping[str, int], n_lists: int
) -> _Case | None:
    """The encoding of one case: the first ``n_lists`` names of ``fixed`` are lists of
    that many element variables, the others ints fixed to that value."""
    assert sc.result is not None
    inputs = dict(sc.inputs)
    background = [intrinsic_domain(t.value, t.ty) for n, t in sc.inputs.items() if n not in fixed]
    variables = {n: (t.value, t.ty) for n, t in sc.inputs.items() if n not in fixed}
    elements: dict[str, list[str]] = {}
    for k, (name, n) in enumerate(fixed.items()):
        ty = sc.inputs[name].ty
        if k >= n_lists:
            inputs[name] = Term(z3.IntVal(n, z3_context()), true(), ty)
            continue
        assert isinstance(ty, TList)
        items, seq = _elements(name, ty, n)
        inputs[name] = seq
        background += [intrinsic_domain(e.value, e.ty) for e in items]
        elements[name] = [f"{name}[{j}]" for j in range(n)]
        variables.update({f"{name}[{j}]": (e.value, e.ty) for j, e in enumerate(items)})
    enc = ctx.encoder({**inputs, "result": sc.result})
    try:
        valid = [enc.encode(o.expr).holds for o in cl.requires]
        no_raise = conj(*[z3.Not(enc.encode(o.expr).holds) for o in cl.raises])
        ensures = conj(*[enc.encode(o.expr).holds for o in cl.ensures])
    except Unsupported:
        return None
    q = Question(
        f"{cl.owner.name} realizability",
        [],
        [*background, *valid, no_raise],
        variables,
        ctx.options.rlimit,
        ctx.options.timeout_ms,
    )
    return _Case(inputs, q, elements, ensures)


def realize_case(ctx: Ctx, cl: Clauses, sc: CallScope, case: _Case) -> str:
    """One case of ``realize_unrolled``: ``unsat``, ``unknown``, or ``sat`` after handing
    the input found to ``_unrealizable``."""
    q = case.question
    shaped = _no_result(ctx, cl, sc, case.inputs, q, case.ensures)
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
    unrealizable(ctx, cl, _assembled(case, found, {}), "unrolled lengths")
    return "sat"


def _assembled(
    case: _Case, found: Mapping[str, Value], fixed: Mapping[str, int]
) -> dict[str, Value]:
    """The inputs of a model of one case, lists assembled from their elements."""
    out: dict[str, Value] = {n: v for n, v in found.items() if "[" not in n and "#" not in n}
    out.update(fixed)
    for name, names in case.elements.items():
        out[name] = tuple(found[k] for k in names)
    return out


def _example(
    ctx: Ctx,
    cl: Clauses,
    sc: CallScope,
    names: list[str],
    cases: list[tuple[int, ...]],
    n_lists: int,
) -> Mapping[str, Value] | None:
    """An input and an acceptable result from the first case that has one: a
    quantifier-free question once the result is element variables of one length."""
    result = sc.result
    assert result is not None
    # A witness with a few elements says more than the empty list: cases nearest two
    # elements per list first.
    ordered = sorted(cases, key=lambda vs: sum(abs(v - 2) for v in vs[:n_lists]))
    for values in ordered[:8]:
        fixed = dict(zip(names, values, strict=True))
        case = _case(ctx, cl, sc, fixed, n_lists)
        if case is None:
            return None
        lengths: list[int | None] = (
            list(range(RESULT_MAX_LEN + 1)) if isinstance(result.ty, TList) else [None]
        )
        for m in lengths:
            term, extra = result, {}
            if m is not None:
                assert isinstance(result.ty, TList)
                items, term = _elements("result", result.ty, m)
                extra = {f"result[{j}]": (e.value, e.ty) for j, e in enumerate(items)}
            enc = ctx.encoder({**case.inputs, "result": term})
            try:
                ens = conj(*[enc.encode(o.expr).holds for o in cl.ensures])
            except Unsupported:
                return None
            if z3.is_false(z3.simplify(ens)):
                continue
            q = case.question
            if m is None:
                extra = {"result": (result.value, result.ty)}
            probe = Question(
                q.name,
                [],
                [*q.background, ens],
                {**q.variables, **extra},
                q.base_rlimit,
                q.timeout_ms,
            )
            ans = probe.check()
            if ans.verdict == "sat":
                try:
                    found = probe.values(ans.model)
                except Unsupported:
                    return None
                scalars = {n: v for n, v in fixed.items() if n not in case.elements}
                env = _assembled(case, found, scalars)
                env["result"] = (
                    found["result"] if m is None else tuple(found[f"result[{j}]"] for j in range(m))
                )
                return env
    return None


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
    split by its length, one quantifier over that many element variables per length
    that some input of this case accepts (``_result_lengths``), so that everything stays
    linear arithmetic.  That covers every result when the ensures bound its length (no
    acceptable result is longer than ``RESULT_MAX_LEN``: an existential question);
    otherwise only the shorter results are covered, which can still prove realizability
    (some short result works for every input) but never the opposite, so the caller
    draws no conclusion from a "sat" then.
    """
    assert sc.result is not None
    r, ty = sc.result.value, sc.result.ty
    if not isinstance(ty, TList):
        return [z3.ForAll([r], z3.Implies(intrinsic_domain(r, ty), z3.Not(ensures)))], True
    out: list[Z] = []
    for m in range(RESULT_MAX_LEN + 1):
        items, seq = _elements(f"result#{m}", ty, m)
        enc = ctx.encoder({**inputs, "result": seq})
        try:
            ens = z3.simplify(conj(*[enc.encode(o.expr).holds for o in cl.ensures]))
        except Unsupported:
            return None
        if z3.is_false(ens):
            continue  # no result of this length is acceptable (``len(result) == len(xs)``)
        domain = conj(*[intrinsic_domain(e.value, e.ty) for e in items])
        if m and q.check(extra=[domain, ens]).verdict == "unsat":
            continue  # no input of this case accepts a result this long (distinct items)
        body = z3.Implies(domain, z3.Not(ens))
        out.append(z3.ForAll([e.value for e in items], body) if items else body)
    longer = q.check(extra=[intrinsic_domain(r, ty), ensures, z3.Length(r) > RESULT_MAX_LEN])
    return out, longer.verdict == "unsat"
