"""The witness call of a feasible function: an input and a result, re-checked by the evaluator.

Also where the ensures-level warnings run: on the question of a valid, normal call.
When every valid input raises, the witness is an input and the exception it raises.
"""

from __future__ import annotations

from collections.abc import Mapping

import z3

from derivative._ast import Obligation
from derivative._values import Value

from ._context import CallScope, Clauses, Ctx, is_type_ob
from ._encode import Encoder
from ._question import Answer, Question
from ._result import CallWitness
from ._warnings import antecedents, redundancy, vacuity
from ._z3util import Unsupported, Z


def witness(
    ctx: Ctx,
    cl: Clauses,
    sc: CallScope,
    enc: Encoder,
    pre: Question,
    example: Mapping[str, Value] | None = None,
) -> CallWitness | None:
    """An input and result for the feasible witness, re-checked with the evaluator.

    ``example``: an input and result (``"result"``) that the method proving the
    function realizable found acceptable; when the solver leaves the witness question
    undecided (a quantifier over symbolic bounds), it is the witness if the evaluator
    accepts every clause there (the ensures-level warnings, which need the solver's
    question, are then not computed)."""
    # Z3 objects stay in the locals they had before the split
    # (``_context``: frame layout matters).
    owner = cl.owner
    subject = owner.name

    def build(ob: Obligation) -> Z:
        # A normal return needs every raises condition false (the certificate's `not C`).
        h = enc.encode(ob.expr).holds
        return z3.Not(h) if ob.kind == "raises" else h

    behaviour = ctx.question(
        f"{subject} witness",
        [*cl.requires, *cl.raises, *cl.ensures],
        build,
        sc.background(origin=True),
        sc.variables(),
    )
    ans = behaviour.check()
    if ans.verdict == "unknown" and example is not None and _accepted(ctx, cl, example):
        inputs = {n: example[n] for n, _, _ in owner.params}
        return CallWitness(inputs, example.get("result"), None)
    if ans.verdict == "unsat":
        # Every valid input raises: the witness is an input and the exception it raises.
        ans = pre.check()
        return _raising(ctx, cl, pre, ans)
    if ans.verdict != "sat" or behaviour.unencodable:
        why = (
            ans.reason
            if ans.verdict == "unknown"
            else (behaviour.unencodable[0][1] if behaviour.unencodable else "no witness")
        )
        ctx.unknown(f"{subject} witness", cl.ensures, why, limits=ans.limits)
        return None
    try:
        values = behaviour.values(ans.model)
    except Unsupported as exc:
        ctx.unknown(f"{subject} witness", cl.ensures, str(exc))
        return None
    inputs = {n: values[n] for n, _, _ in owner.params}
    ev = ctx.evaluator
    env: dict[str, object] = dict(inputs)
    if sc.result is not None:
        env["result"] = values["result"]
    bad = [o for o in cl.requires + cl.ensures if ev.holds(o.expr, env) is not True]
    bad += [o for o in cl.raises if ev.holds(o.expr, env) is True]
    if bad:
        ctx.unknown(
            f"{subject} witness",
            bad,
            "the evaluator rejects the solver's witness (an encoding bug)",
        )
        return None
    _ensures_warnings(ctx, cl, behaviour, enc)
    return CallWitness(inputs, values.get("result") if sc.result is not None else None, None)


def _accepted(ctx: Ctx, cl: Clauses, env: Mapping[str, Value]) -> bool:
    """Whether the evaluator finds ``env`` a valid, normal call meeting every ensures."""
    ev = ctx.evaluator
    return all(ev.holds(o.expr, env) is True for o in cl.requires + cl.ensures) and not any(
        ev.holds(o.expr, env) is True for o in cl.raises
    )


def _raising(ctx: Ctx, cl: Clauses, pre: Question, ans: Answer) -> CallWitness | None:
    """The witness when every valid input raises, from the precondition's answer ``ans``."""
    raised_ob = None
    if ans.verdict == "sat":
        values = pre.values(ans.model)
        raised_ob = next(
            (r for r in cl.raises if ctx.evaluator.holds(r.expr, values) is True), None
        )
    if raised_ob is None:
        ctx.unknown(f"{cl.owner.name} witness", cl.ensures, "no witness input could be built")
        return None
    return CallWitness(values, None, raised_ob.exception)


def _ensures_warnings(ctx: Ctx, cl: Clauses, behaviour: Question, enc: Encoder) -> None:
    """Ensures-level warnings: antecedents that can never be true for a valid, normal call."""
    vacuity(
        ctx,
        behaviour,
        [o for o in cl.ensures if not is_type_ob(o)],
        lambda ob: antecedents(ob.expr),
        lambda e: enc.encode(e).holds,
    )
    if ctx.options.redundancy:
        redundancy(
            ctx,
            behaviour,
            [m for m in behaviour.members if m.ob.kind == "ensures" and not is_type_ob(m.ob)],
        )
