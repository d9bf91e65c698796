"""Recording the minimal cores of an unsatisfiable question (and, with ``--all-cores``, all).

Every question that proves a conflict ends here: one deletion-minimal core by default,
or every core and every minimal correction set of the question's independent
components (docs/decisions.md, "--all-cores").  Each core is recorded with its
minimality models, the values that show every member is needed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TypeAlias

import z3

from derivative._ast import Obligation
from derivative._values import Value

from ._context import Ctx
from ._limits import reached
from ._question import Answer, CoreResult, Member, Question
from ._result import Core, Correction, Kind, Limit, Method
from ._z3util import Unsupported, Z

REDERIVE_FAILED = "the conflict could not be re-derived"


def add_cores(
    ctx: Ctx,
    q: Question,
    kind: Kind,
    subject: str,
    explain: Callable[[CoreResult], str],
    witness_input: Mapping[str, Value] | None = None,
    extra: Sequence[Z] = (),
    variables: Sequence[str] | None = None,
    require: Obligation | None = None,
    at_input: Sequence[Z] = (),
    method: Method | None = None,
) -> bool:
    """Find the minimal core(s) of an unsatisfiable question and record them.

    With ``require``, only cores containing that obligation are this kind's business
    (an example's conflict must involve the example).
    """
    found: CoreResult | None = None
    if not ctx.options.all_cores or require is not None:
        found = q.minimal_core(extra=extra)
        if (
            found is not None
            and require is not None
            and require not in [m.ob for m in found.members]
        ):
            return False
        if found is None:
            ctx.unknown(q.name, [m.ob for m in q.members], REDERIVE_FAILED)
            return False
    results = [] if found is None else [found]
    if ctx.options.all_cores:
        # The enumeration finds every core itself: a first core is computed beforehand
        # only where it decides whether this kind applies (``require``).
        # ``_held``: the last component's cores and answer, released when this frame ends,
        # as before the split (see ``_context``: frame layout matters).
        results, _held = _all_cores(ctx, q, subject, extra, require)
        if not results:
            if found is None:
                found = q.minimal_core(extra=extra)
            if found is None:
                ctx.unknown(q.name, [m.ob for m in q.members], REDERIVE_FAILED)
                return False
            results = [found]
    for r in results:
        # Minimality models name only the variables the core itself reads.
        names = (
            variables
            if variables is not None
            else sorted(set().union(*(m.names for m in r.members)))
        )
        minimality: list[tuple[str, Mapping[str, Value]]] = []
        try:
            for m, model in r.models:
                if m.ob is require and at_input:
                    # Prefer a model at the witness input itself, where there is one.
                    others = [o for o in r.members if o is not m]
                    there = q.check(others, [*extra, *at_input])
                    if there.verdict == "sat":
                        model = there.model
                values = q.values(model, names)
                if witness_input is not None and kind == "unrealizable":
                    values = _without_input(values, witness_input)
                minimality.append((m.ob.id, values))
        except Unsupported:
            minimality = []
        ctx.cores.append(
            Core(
                kind=kind,
                subject=subject,
                members=tuple(m.ob for m in r.members),
                explanation=explain(r),
                witness_input=witness_input,
                minimality=tuple(minimality),
                minimal=r.minimal and len(minimality) == len(r.members),
                rechecked=r.rechecked,
                method=method,
            )
        )
    return True


def _without_input(
    values: Mapping[str, Value], witness_input: Mapping[str, Value]
) -> dict[str, Value]:
    """A minimality model without the witness input's values.

    An unrealizable certificate fixes its witness input in the script, so it is given
    once, not repeated in every model.  A contradicting example's inputs stay free (its
    example pins them): its models assign them like any other variable.
    """
    return {k: v for k, v in values.items() if k not in witness_input or witness_input[k] != v}


def _all_cores(
    ctx: Ctx, q: Question, subject: str, extra: Sequence[Z], require: Obligation | None
) -> tuple[list[CoreResult], tuple[object, ...]]:
    """Every core of every conflicting component (``--all-cores``), and the corrections;
    also the last component's cores and first answer, for the caller to hold (a tuple
    releases its items last to first: the answer, then the cores, as before)."""
    results: list[CoreResult] = []
    per_component: list[list[list[Member]]] = []
    first: Answer | None = None
    cores: list[CoreResult] = []
    for component in q.components():
        if require is not None and require not in [m.ob for m in component]:
            continue
        whole = len(component) == len(q.members) and not extra
        first = q.all_unsat if whole else None
        if first is None:
            first = q.check(component, extra)
        if first.verdict != "unsat":
            continue
        cores, mcses, complete, stop = q.enumerate(
            component,
            ctx.options.max_cores,
            ctx.options.enumeration_work,
            extra,
            first=first,
            seconds=ctx.options.enumeration_seconds,
        )
        results.extend(c for c in cores if require is None or require in [m.ob for m in c.members])
        per_component.append(mcses)
        if not complete:
            ctx.unknown(
                f"{q.name} (all cores)",
                [m.ob for m in component],
                stopped(stop) + "; the cores listed are real but there may be more",
                limits=() if stop is None else (stop,),
            )
    order = {id(m.ob): i for i, m in enumerate(q.members)}
    obs = [[[m.ob for m in mcs] for mcs in mcses] for mcses in per_component]
    corrections(ctx, order, subject, obs, _verify_without(q, extra))
    return results, (cores, first)


Verify: TypeAlias = Callable[[Sequence[Obligation]], tuple[bool, str, tuple[Limit, ...]]]
"""Re-decides the question without the given obligations: (feasible, why not, limits)."""


def corrections(
    ctx: Ctx,
    order: Mapping[int, int],
    subject: str,
    per_component: Sequence[Sequence[Sequence[Obligation]]],
    verify: Verify,
) -> None:
    """The minimal corrections of the whole question, recorded up to the bound, each
    re-decided without its members first (``verify``): one that does not come back
    feasible is not listed, and an ``unknown`` names it.

    ``order``: each obligation's position (by ``id``), to list members in spec order."""
    # Every conflicting component must be fixed: a correction of the whole set takes
    # one minimal correction from each (the cross product), in member order.
    bound = ctx.options.max_cores
    unverified: list[tuple[tuple[Obligation, ...], str, tuple[Limit, ...]]] = []
    for combo in itertools.islice(itertools.product(*per_component), bound):
        chosen = tuple(
            sorted({id(o): o for mcs in combo for o in mcs}.values(), key=lambda o: order[id(o)])
        )
        ok, why, limits = verify(chosen)
        if ok:
            ctx.corrections.append(Correction(subject, chosen))
        else:
            unverified.append((chosen, why, limits))
    for chosen, why, limits in unverified:
        ctx.unknown(
            f"correction of {subject}",
            chosen,
            "this set was found as a correction, but the question without it was not "
            f"decided feasible ({why}); it is not listed",
            limits=limits,
        )
    total = math.prod(len(mcses) for mcses in per_component) if per_component else 0
    if total > bound:
        # The list is cut: say so, never silently (the count is exact: a product).
        involved = {id(o): o for mcses in per_component for mcs in mcses for o in mcs}
        limit = Limit("max cores", bound, "--max-cores", "corrections listed per subject")
        ctx.unknown(
            "all corrections",
            sorted(involved.values(), key=lambda o: order[id(o)]),
            f"enumeration bounded at {bound}; more exist ({total} in all for {subject}); "
            f"raise {limit.flag} to list more",
            limits=(limit,),
        )


def _verify_without(q: Question, extra: Sequence[Z]) -> Verify:
    """``Verify`` for a consistency question: its other members (with ``extra``) are
    satisfiable, asked again in the question's solver."""

    def verify(dropped: Sequence[Obligation]) -> tuple[bool, str, tuple[Limit, ...]]:
        gone = {id(o) for o in dropped}
        ans = q.check([m for m in q.members if id(m.ob) not in gone], extra)
        if ans.verdict == "sat":
            return True, "", ()
        if ans.verdict == "unsat":
            return False, "the rest is still unsatisfiable", ()
        return False, ans.reason, ans.limits

    return verify


def stopped(stop: Limit | None) -> str:
    """Why an enumeration of cores ended early, with the flag that lets it go further."""
    if stop is None:
        return "the enumeration of cores stopped early"
    if stop.name == "rlimit":
        return "the enumeration of cores stopped: " + reached(stop)
    return (
        f"the enumeration of cores stopped at its bound of {stop.value:,} "
        f"{stop.detail}; raise {stop.flag} to look further"
    )


def undefined_only(q: Question, m: Member, build_defined: Callable[[Obligation], Z]) -> bool:
    """Whether a lone member fails because it is undefined everywhere (for explanations)."""
    try:
        d = build_defined(m.ob)
    except Unsupported:
        return False
    s = q._fresh()
    s.add(d)
    return bool(s.check() == z3.unsat)
