"""Questions 2 to 4 for one function or operation, in order, and its witness call.

``unsatisfiable_precondition`` (can any input be valid?), then every example
(``_examples``), then the precondition-level warnings, then realizability
(``_realize``), which builds the witness when the function is feasible.  A conflict
or an undecided precondition or example stops the owner there: later questions
would only repeat it.
"""

from __future__ import annotations

import z3

from derivative._ast import Obligation

from ._context import CallScope, Ctx, call_scope, clauses_of, is_type_ob
from ._cores import add_cores, undefined_only
from ._encode import Encoder
from ._examples import example
from ._question import CoreResult, Question
from ._realize import realize
from ._result import CallWitness
from ._scope import Owner, owners
from ._terms import intrinsic_domain, var
from ._warnings import ambiguity, antecedents, redundancy, vacuity
from ._wording import named, series, verb
from ._z3util import Unsupported, Z, conj


def owner_questions(ctx: Ctx, owner: Owner) -> CallWitness | None:
    """All questions about one function or operation; its witness if feasible."""
    # Z3 objects stay in the locals and closures they had before the split
    # (``_context``: frame layout matters).
    cl = clauses_of(ctx, owner)
    sc = call_scope(owner)
    sc.origin = origins(ctx, owner, sc)
    enc = ctx.encoder(sc.env)

    def holds(ob: Obligation) -> Z:
        return enc.encode(ob.expr).holds

    # 2. precondition ---------------------------------------------------------
    pre = ctx.question(owner.name, cl.requires, holds, sc.background(False), sc.variables(False))
    ans = pre.check()
    ok = True
    if ans.verdict == "unsat":

        def explain_pre(r: CoreResult) -> str:
            return _explain_precondition(r, pre, enc, owner)

        add_cores(ctx, pre, "unsatisfiable_precondition", owner.name, explain_pre)
        ok = False
    elif ans.verdict == "unknown" or pre.unencodable:
        undecided = ans.verdict == "unknown"
        why = ans.reason if undecided else pre.unencodable[0][1]
        ctx.unknown(
            f"{owner.name} precondition",
            cl.requires,
            why,
            limits=ans.limits if undecided else (),
        )
        ok = False

    # 3. examples -------------------------------------------------------------
    for ex in cl.examples:
        if not example(ctx, cl, ex):
            ok = False

    if not ok:
        return None

    # raises conditions (definedness and truth) under the input scope
    try:
        raise_holds = [enc.encode(r.expr).holds for r in cl.raises]
    except Unsupported as exc:
        ctx.unknown(f"{owner.name} raises", cl.raises, f"cannot encode: {exc}")
        return None
    no_raise = conj(*[z3.Not(h) for h in raise_holds])

    # warnings on the precondition level (vacuous raises, requires antecedents, ambiguity)
    vacuity(
        ctx,
        pre,
        [r for r in cl.requires if not is_type_ob(r)],
        lambda ob: antecedents(ob.expr),
        lambda e: enc.encode(e).holds,
    )
    vacuity(ctx, pre, cl.raises, lambda ob: [ob.expr], lambda e: enc.encode(e).holds)
    ambiguity(ctx, pre, cl, raise_holds)
    if ctx.options.redundancy:
        redundancy(ctx, pre, [m for m in pre.members if not is_type_ob(m.ob)])

    # 4. realizability and the witness ------------------------------------------
    return realize(ctx, cl, sc, enc, no_raise, pre)


def _explain_precondition(r: CoreResult, pre: Question, enc: Encoder, owner: Owner) -> str:
    """Why no input of ``owner`` is valid."""
    names = [named(m.ob) for m in r.members]
    if len(r.members) == 1 and undefined_only(
        pre, r.members[0], lambda ob: enc.encode(ob.expr).defined
    ):
        return f"{names[0]} is undefined for every input of {owner.name}: no input is valid."
    plural = "s" if len(names) > 1 else ""
    return (
        f"The requires clause{plural} {series(names)} of {owner.name} "
        f"{verb(len(names))}: no input is valid."
    )


def origins(ctx: Ctx, owner: Owner, sc: CallScope) -> list[Z]:
    """What ``p: T from op`` tells about ``p``: some valid, normal call of ``op`` returned it.

    Used where it can only remove false alarms (realizability and the witness), never
    to prove a conflict: which values ``op`` actually returns is the implementation's
    choice, so a conflict that depends on ``p`` stays ``unknown`` (see ``_unrealizable``).
    """
    out: list[Z] = []
    if owner.system is None:
        return out
    table = {o.name: o for o in owners(ctx.contract, ctx.info.signatures)}  # type: ignore[attr-defined]
    for name, _, source in owner.params:
        origin = table.get(f"{owner.system}.{source}") if source else None
        if origin is None or not origin.has_result:
            continue
        cl = clauses_of(ctx, origin, record=False)
        env = {n: var(f"{origin.name}.{n}!{name}", t) for n, t, _ in origin.params}
        env["result"] = sc.inputs[name]
        enc = ctx.encoder(env)
        try:
            parts = [enc.encode(o.expr).holds for o in cl.requires + cl.ensures]
            parts += [z3.Not(enc.encode(o.expr).holds) for o in cl.raises]
        except Unsupported:
            continue
        parts += [intrinsic_domain(t.value, t.ty) for n, t in env.items() if n != "result"]
        out.append(conj(*parts))
    return out
