"""An input at which no result satisfies the ensures: confirm it and record the core.

Whatever method found the input (Z3, the length cases, cvc5), nothing is taken on
trust: the ensures are re-asked at that fixed input (quantifier-free), the evaluator
checks that the input is valid and raises nothing, and a conflict that depends on a
``from op`` parameter stays ``unknown`` (which values ``op`` returns is the
implementation's choice).
"""

from __future__ import annotations

from derivative._values import Value
from derivative._walk import free_names

from ._context import CallScope, Clauses, Ctx
from ._cores import add_cores, undefined_only
from ._encode import Encoder
from ._hardness import hard_clauses, hard_text
from ._question import CoreResult, Question
from ._realize_all import Explain, all_unrealizable
from ._result import Method
from ._scope import Owner
from ._shapes import conversion_facts
from ._terms import Term, literal, var
from ._wording import named, series, values_text
from ._z3util import true


def unrealizable(ctx: Ctx, cl: Clauses, bad_input: dict[str, Value], method: Method) -> None:
    """Confirm ``bad_input`` (see the module docstring) and record the core there,
    with the ``method`` that found the input."""
    # Z3 objects stay in the locals and closures they had before the split
    # (``_context``: frame layout matters).
    owner = cl.owner
    inputs = {n: Term(literal(bad_input[n], t), true(), t) for n, t, _ in owner.params}
    result = var("result", owner.returns) if owner.has_result else None
    scope = CallScope(inputs, result)
    enc = ctx.encoder(scope.env)
    q = ctx.question(
        f"{owner.name} at {values_text(bad_input)}",
        cl.ensures,
        lambda ob: enc.encode(ob.expr).holds,
        scope.background(),
        {} if result is None else {"result": (result.value, result.ty)},
    )
    ans = q.check()
    for every in (False, True):
        # Z3 may need the defining facts of text-integer conversions (``_shapes``),
        # few first: they are theorems, so the core stays a conflict of the ensures.
        facts = conversion_facts([*scope.background(), *(m.formula for m in q.members)], every)
        if ans.verdict != "unknown" or not facts:
            break
        q = ctx.question(
            q.name,
            cl.ensures,
            lambda ob: enc.encode(ob.expr).holds,
            [*scope.background(), *facts],
            q.variables,
        )
        ans = q.check()
    if ans.verdict != "unsat":
        hard = hard_clauses(cl, ctx.consts)
        ctx.unknown(
            q.name,
            cl.ensures,
            (
                ans.reason
                if ans.verdict == "unknown"
                else "the solver found the input unrealizable but not the ensures at it "
                "(inconsistent answers)"
            )
            + hard_text(hard),
            hard=[ob for ob, _ in hard],
            limits=ans.limits,
        )
        return
    # An input must be a valid call the implementation can actually receive.
    ev = ctx.evaluator
    if any(ev.holds(o.expr, bad_input) is not True for o in cl.requires) or any(
        ev.holds(o.expr, bad_input) is True for o in cl.raises
    ):
        ctx.unknown(
            q.name, cl.ensures, "the evaluator rejects the solver's input (an encoding bug)"
        )
        return
    if owner.from_params:
        core = q.minimal_core()
        used: set[str] = set()
        for o in cl.requires + cl.raises + ([m.ob for m in core.members] if core else []):
            used |= free_names(o.expr)
        if used & set(owner.from_params):
            ctx.unknown(
                q.name,
                cl.ensures,
                f"the conflict depends on the value of {', '.join(owner.from_params)}, which only "
                "earlier operations supply; check does not decide which values they return",
            )
            return

    def explain(r: CoreResult) -> str:
        return _explain(r, q, enc, owner, bad_input)

    if ctx.options.all_cores and all_unrealizable(ctx, cl, bad_input, method, _explain_at(owner)):
        return
    add_cores(ctx, q, "unrealizable", owner.name, explain, witness_input=bad_input, method=method)


def _explain_at(owner: Owner) -> Explain:
    """``_explain`` for the cores that ``--all-cores`` finds at other inputs."""

    def explain(r: CoreResult, q: Question, enc: Encoder, at: dict[str, Value]) -> str:
        return _explain(r, q, enc, owner, at)

    return explain


def _explain(
    r: CoreResult, q: Question, enc: Encoder, owner: Owner, bad_input: dict[str, Value]
) -> str:
    """The explanation of a core at the unrealizable input."""
    names = [named(m.ob) for m in r.members]
    at = (
        f"At the input {values_text(bad_input)}, which satisfies every requires clause "
        f"and no raises condition of {owner.name}"
    )
    if len(names) == 1 and undefined_only(q, r.members[0], lambda ob: enc.encode(ob.expr).defined):
        return f"{at}, {names[0]} is undefined whatever the result."
    return f"{at}, no result satisfies {series(names)}."
