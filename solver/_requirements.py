"""Question 1, ``inconsistent_requirements``: can the global requirements all hold?

Asked over the params, with their declared types as obligations of their own
(``x.range``) and the constants fixed.  Feasible: the params' witness, re-checked by
the evaluator, and the requirement-level warnings.
"""

from __future__ import annotations

from collections.abc import Mapping

from derivative._types import Ty
from derivative._values import Value

from ._context import Ctx
from ._cores import add_cores, undefined_only
from ._question import CoreResult
from ._result import Unknown
from ._scope import param_obligations
from ._terms import intrinsic_domain, var
from ._warnings import global_warnings
from ._wording import named, series, verb
from ._z3util import Unsupported


def requirements(ctx: Ctx) -> dict[str, Value] | None:
    """Question 1; the params' witness when the requirements are consistent."""
    info = ctx.info
    param_types: Mapping[str, Ty] = info.param_types  # type: ignore[attr-defined]
    env = {n: var(n, t) for n, t in param_types.items()}
    variables = {n: (t.value, t.ty) for n, t in env.items()}
    background = [intrinsic_domain(t.value, t.ty) for t in env.values()]
    synthetic = param_obligations(
        ctx.contract, param_types, {n: v for n, (v, _) in ctx.consts.items()}
    )
    ctx.synthetic.extend(synthetic)
    obligations = [
        o
        for o in [*(o for o in ctx.contract.obligations if o.kind == "requirement"), *synthetic]
        if o.id not in ctx.options.without
    ]
    enc = ctx.encoder(env)
    q = ctx.question(
        "requirements", obligations, lambda ob: enc.encode(ob.expr).holds, background, variables
    )
    ans = q.check_for_values()
    if ans.verdict == "unsat":

        def explain(r: CoreResult) -> str:
            members = [named(m.ob) for m in r.members]
            names = sorted(set().union(*[m.names for m in r.members]) or [])
            if len(r.members) == 1 and undefined_only(
                q, r.members[0], lambda ob: enc.encode(ob.expr).defined
            ):
                return f"{members[0]} is undefined for every value of {', '.join(names)}."
            where = f"no value of {', '.join(names)} satisfies " + (
                "it" if len(members) == 1 else "them at once"
            )
            return f"{series(members)} {verb(len(members))}: {where}."

        add_cores(ctx, q, "inconsistent_requirements", "requirements", explain)
        return None
    if q.unencodable:
        ctx.unknowns.extend(
            Unknown("requirements", (o.id,), f"cannot encode: {why}") for o, why in q.unencodable
        )
        return None
    if ans.verdict == "unknown":
        ctx.unknown("requirements", obligations, ans.reason, limits=ans.limits)
        return None
    try:
        values = q.values(ans.model)
    except Unsupported as exc:
        ctx.unknown("requirements", obligations, str(exc))
        return None
    bad = [o for o in obligations if ctx.evaluator.holds(o.expr, values) is not True]
    if bad:
        ctx.unknown(
            "requirements", bad, "the evaluator rejects the solver's witness (an encoding bug)"
        )
        return None
    global_warnings(ctx, q, enc)
    return values
