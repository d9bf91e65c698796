"""Question 4, ``unrealizable``: is there a valid input at which no result satisfies the ensures?

The methods, in the order they run (docs/decisions.md):

- no result, or an ensures that pins ``result == E``: a quantifier-free question;
- otherwise ``∃ input ∀ result: not ensures``: bounded lists by cases on their lengths
  (``_unroll``), then result terms built from the inputs and refined at inputs where
  they fail (``_candidates``), then Z3 (quantifier elimination first for pure
  arithmetic), then cvc5 (``_cvc5``).

The method that decided is reported with the witness call or the core (``Method``);
an undecided question names the clauses that make it hard (``_hardness``).

An input found is handed to ``_unrealizable``, which confirms it and records the core;
a function shown realizable gets its witness call from ``_witness``.
"""

from __future__ import annotations

import z3

from derivative._record import replace

from . import _cvc5
from ._candidates import METHOD as TERMS
from ._candidates import realize_by_terms
from ._context import CallScope, Clauses, Ctx, Realizing
from ._encode import Encoder
from ._hardness import hard_clauses, hard_text
from ._question import Answer, Question
from ._realize_oracle import arithmetic as _arithmetic
from ._realize_oracle import pinned as _pinned
from ._result import CallWitness, Method
from ._terms import coerce, intrinsic_domain
from ._unrealizable import unrealizable
from ._unroll import realize_unrolled
from ._witness import witness
from ._z3util import Unsupported, Z, conj


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
    if ctx.options.all_cores:
        # What the enumeration across inputs asks again for subsets (``_realize_all``).
        ctx.realizing = Realizing(subject, sc, enc, no_raise, valid)

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
    method: Method = "quantifier-free"
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
            settled, cw = _built(ctx, cl, sc, enc, no_raise, pre, q)
            if settled:
                return cw
        method = "z3 quantifier elimination" if arithmetic else "z3"
        ans = q.check_eliminating(quantified) if arithmetic else q.check(extra=quantified)
        if arithmetic and ans.verdict == "unknown":
            second = q.check(extra=quantified)
            if second.verdict != "unknown":
                ans, method = second, "z3"
        if ans.verdict == "unknown":
            alt = _ask_cvc5(ctx, q, quantified)
            if alt.verdict == "unsat":
                return _by(witness(ctx, cl, sc, enc, pre), "cvc5")
            if alt.verdict == "sat" and alt.values is not None:
                unrealizable(ctx, cl, alt.values, "cvc5")
                return None
            ans = replace(
                ans, reason=f"{ans.reason}; {alt.reason}", limits=(*ans.limits, *alt.limits)
            )
    if ans.verdict == "sat" or ans.verdict == "unknown":
        _no_result_at(ctx, cl, q, ans, method)
        return None
    return _by(witness(ctx, cl, sc, enc, pre), method)


def _built(
    ctx: Ctx,
    cl: Clauses,
    sc: CallScope,
    enc: Encoder,
    no_raise: Z,
    pre: Question,
    q: Question,
) -> tuple[bool, CallWitness | None]:
    """The methods that run before Z3's quantified attempt for a result that is not
    arithmetic: (whether one settled the question, the witness call if realizable)."""
    # Bounded lists of arithmetic values: cases on their lengths are complete and
    # cheap, so they go first (``realize_unrolled``; None: not applicable).
    unrolled = realize_unrolled(ctx, cl, sc, pre, no_raise)
    if unrolled is not None and unrolled.settled == "realizable":
        cw = witness(ctx, cl, sc, enc, pre, unrolled.example)
        return True, _by(cw, "unrolled lengths")
    if unrolled is not None:
        return True, None
    # Result terms built from the inputs, refined at inputs where they all fail:
    # quantifier-free questions, cheap enough to try before Z3's quantified attempt
    # (which may spend its whole rlimit).
    by_terms = realize_by_terms(ctx, cl, sc, q)
    if by_terms.settled == "realizable":
        return True, _by(witness(ctx, cl, sc, enc, pre, by_terms.example), TERMS)
    return by_terms.settled == "unrealizable", None


def _by(cw: CallWitness | None, method: Method) -> CallWitness | None:
    """The witness call with the method that showed the function realizable."""
    return None if cw is None else replace(cw, method=method)


def _ask_cvc5(ctx: Ctx, q: Question, quantified: list[Z]) -> _cvc5.Cvc5Answer:
    """Z3's instantiation gave up (strings, lists): ask cvc5 (``_cvc5``).

    Its "unsat" is followed by a witness that Z3 builds and the evaluator checks; its
    "sat" input is confirmed by Z3 at that fixed input (``_unrealizable``).
    """
    return _cvc5.decide([*q.background, *quantified], q.variables, q.limit, ctx.options.timeout_ms)


def _no_result_at(ctx: Ctx, cl: Clauses, q: Question, ans: Answer, method: Method) -> None:
    """Undecided (with the clauses that make it hard, ``_hardness``), or an input at
    which no result works (confirmed by ``_unrealizable``)."""
    if ans.verdict == "unknown":
        hard = hard_clauses(cl, ctx.consts)
        ctx.unknown(
            q.name,
            cl.ensures,
            ans.reason + hard_text(hard),
            hard=[ob for ob, _ in hard],
            limits=ans.limits,
        )
        return
    try:
        bad_input = q.values(ans.model)
    except Unsupported as exc:
        ctx.unknown(q.name, cl.ensures, str(exc))
        return
    unrealizable(ctx, cl, bad_input, method)
