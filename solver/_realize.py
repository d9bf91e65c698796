"""Question 4, ``unrealizable``: is there a valid input at which no result satisfies the ensures?

The methods, in the order they run (docs/decisions.md):

- no result, or an ensures that pins ``result == E``: a quantifier-free question;
- otherwise ``∃ input ∀ result: not ensures``: bounded lists by cases on their lengths
  (``_unroll``), then result terms built from the inputs (``realized_by_candidates``),
  then Z3 (quantifier elimination first for pure arithmetic), then cvc5 (``_cvc5``).

An input found is handed to ``_unrealizable``, which confirms it and records the core;
a function shown realizable gets its witness call from ``_witness``.
"""

from __future__ import annotations

import dataclasses
import itertools

import z3

from derivative._ast import Compare, Expr, Obligation, Result, StrLit
from derivative._types import TBool, TDate, TEnum, TInt, TList, TReal, TStr, Ty
from derivative._walk import walk

from . import _cvc5
from ._context import CallScope, Clauses, Ctx
from ._encode import Encoder
from ._question import Answer, Question
from ._result import CallWitness
from ._terms import Term, coerce, intrinsic_domain, sort_of
from ._unrealizable import unrealizable
from ._unroll import realize_unrolled
from ._witness import witness
from ._z3util import Unsupported, Z, conj, str_val, true


def realize(
    ctx: Ctx, cl: Clauses, sc: CallScope, enc: Encoder, no_raise: Z, pre: Question
) -> CallWitness | None:
    """Question 4 for one owner; its witness call when it is realizable."""
    # Z3 objects stay in the locals they had before the split
    # (``_context``: frame layout matters).
    owner = cl.owner
    subject = owner.name
    valid = [m.formula for m in pre.members]
    inputs_bg = sc.background(False, origin=True)

    def ens_holds(env_enc: Encoder) -> Z:
        return conj(*[env_enc.encode(o.expr).holds for o in cl.ensures])

    try:
        all_ens = ens_holds(enc)
    except Unsupported as exc:
        ctx.unknown(f"{subject} realizability", cl.ensures, f"cannot encode: {exc}")
        return None

    # Find an input at which no result works.
    s_vars = sc.variables(False)
    q = Question(
        f"{subject} realizability",
        [],
        [*inputs_bg, *valid, no_raise],
        s_vars,
        ctx.options.rlimit,
        ctx.options.timeout_ms,
    )
    pins = [p for p in (_pinned(o) for o in cl.ensures) if p is not None]
    if sc.result is None:
        ans = q.check(extra=[z3.Not(all_ens)])
    elif pins:
        try:
            pin = enc.encode(pins[0])
            pinned = z3.Implies(pin.defined, sc.result.value == coerce(pin, sc.result.ty))
        except Unsupported as exc:
            ctx.unknown(q.name, cl.ensures, f"cannot encode: {exc}")
            return None
        ans = q.check(
            extra=[intrinsic_domain(sc.result.value, sc.result.ty), pinned, z3.Not(all_ens)]
        )
    else:
        r = sc.result.value
        body = z3.Implies(intrinsic_domain(r, sc.result.ty), z3.Not(all_ens))
        quantified = [z3.ForAll([r], body)]
        arithmetic = _arithmetic([sc.result.ty, *(t for _, t in s_vars.values())])
        if not arithmetic:
            # Bounded lists of arithmetic values: cases on their lengths are complete
            # and cheap, so they go first (``realize_unrolled``; None: not applicable).
            unrolled = realize_unrolled(ctx, cl, sc, pre, no_raise)
            if unrolled == "realizable":
                return witness(ctx, cl, sc, enc, pre)
            if unrolled == "unrealizable":
                return None
            # Result terms built from the inputs: quantifier-free, so cheap enough to
            # try before Z3's quantified attempt (which may spend its whole rlimit).
            if realized_by_candidates(ctx, cl, sc, q):
                return witness(ctx, cl, sc, enc, pre)
        ans = q.check_eliminating(quantified) if arithmetic else q.check(extra=quantified)
        if arithmetic and ans.verdict == "unknown":
            second = q.check(extra=quantified)
            if second.verdict != "unknown":
                ans = second
        if ans.verdict == "unknown":
            alt = _ask_cvc5(ctx, q, quantified)
            if alt.verdict == "unsat":
                return witness(ctx, cl, sc, enc, pre)
            if alt.verdict == "sat" and alt.values is not None:
                unrealizable(ctx, cl, alt.values)
                return None
            ans = dataclasses.replace(
                ans, reason=f"{ans.reason}; {alt.reason}", limits=(*ans.limits, *alt.limits)
            )
    if ans.verdict == "sat" or ans.verdict == "unknown":
        _no_result_at(ctx, cl, q, ans)
        return None
    return witness(ctx, cl, sc, enc, pre)


def _arithmetic(types: list[Ty]) -> bool:
    """Pure arithmetic (ints, reals, dates, bools, enums) is decided completely by
    quantifier elimination; everything else goes to the default solver first."""
    return all(isinstance(t, TInt | TReal | TBool | TDate | TEnum) for t in types)


def _ask_cvc5(ctx: Ctx, q: Question, quantified: list[Z]) -> _cvc5.Cvc5Answer:
    """Z3's instantiation gave up (strings, lists): ask cvc5 (``_cvc5``).

    Its "unsat" is followed by a witness that Z3 builds and the evaluator checks; its
    "sat" input is confirmed by Z3 at that fixed input (``_unrealizable``).
    """
    return _cvc5.decide([*q.background, *quantified], q.variables, q.limit, ctx.options.timeout_ms)


def _no_result_at(ctx: Ctx, cl: Clauses, q: Question, ans: Answer) -> None:
    """Undecided, or an input at which no result works (confirmed by ``_unrealizable``)."""
    if ans.verdict == "unknown":
        ctx.unknown(q.name, cl.ensures, ans.reason, ans.limits)
        return
    try:
        bad_input = q.values(ans.model)
    except Unsupported as exc:
        ctx.unknown(q.name, cl.ensures, str(exc))
        return
    unrealizable(ctx, cl, bad_input)


def _pinned(ob: Obligation) -> Expr | None:
    """``E`` when the ensures is ``result == E`` (or ``E == result``) with no ``result`` in E."""
    e = ob.expr
    if isinstance(e, Compare) and e.ops == ("==",):
        a, b = e.operands
        for side, other in ((a, b), (b, a)):
            if isinstance(side, Result) and not any(isinstance(n, Result) for n in walk(other)):
                return other
    return None


CANDIDATE_LIMIT = 64
"""Result terms tried together by ``realized_by_candidates`` at most."""


def realized_by_candidates(ctx: Ctx, cl: Clauses, sc: CallScope, q: Question) -> bool:
    """Realizability proved by a finite set of result terms built from the inputs.

    For a string result the terms are the string inputs, the string literals of the
    ensures and ``""``, and their concatenations of two and three parts (at most
    ``CANDIDATE_LIMIT``); for a list result, the list inputs of that type and ``[]``.
    If no valid input makes *every* term fail the ensures (a quantifier-free question),
    each input has an acceptable result and the function is realizable: ``wrap(s)``
    with ``startswith(result, "[")``, ``endswith(result, "]")`` and
    ``contains(result, s)`` is covered by ``"[" + s + "]"``, which quantifier
    instantiation does not find.  False means "not shown", never "unrealizable".
    """
    result = sc.result
    if result is None:
        return False
    ty = result.ty
    if isinstance(ty, TStr):
        atoms = [t.value for t in sc.inputs.values() if isinstance(t.ty, TStr)]
        literals = sorted(
            {n.value for o in cl.ensures for n in walk(o.expr) if isinstance(n, StrLit)}
        )
        atoms += [str_val(v) for v in literals]
        terms: list[Z] = [str_val("")]
        for size in (1, 2, 3):
            for parts in itertools.product(atoms, repeat=size):
                if len(terms) >= CANDIDATE_LIMIT:
                    break
                terms.append(parts[0] if size == 1 else z3.Concat(*parts))
    elif isinstance(ty, TList):
        terms = [z3.Empty(sort_of(ty))]
        terms += [t.value for t in sc.inputs.values() if t.ty == ty]
    else:
        return False
    failing: list[Z] = []
    for term in terms[:CANDIDATE_LIMIT]:
        enc = ctx.encoder({**sc.inputs, "result": Term(term, true(), ty)})
        try:
            failing.append(z3.Not(conj(*[enc.encode(o.expr).holds for o in cl.ensures])))
        except Unsupported:
            return False
    # A fresh solver: asking the question's own incremental solver would change the
    # models (and so the witnesses) that later checks of it give.
    fresh = Question(q.name, [], q.background, q.variables, q.base_rlimit, q.timeout_ms)
    return fresh.check(extra=failing).verdict == "unsat"
