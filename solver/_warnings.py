"""Warnings: a set that is consistent, but only because of something the author did not mean.

``vacuous`` and ``latent_conflict`` (a condition that can never be true),
``ambiguous_raises`` (two exceptions both correct at one input), ``redundant``
(``--redundancy``: implied by the others) and ``unused_param``.  They never change the
verdict; they run on the questions the checks already built, after those are decided.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import z3

from derivative._ast import BoolOp, Expr, Obligation
from derivative._printer import to_source
from derivative._walk import free_names

from ._context import Clauses, Ctx, is_type_ob
from ._encode import Encoder
from ._question import Member, Question, _assert_direct, _holds_in
from ._result import Finding
from ._wording import named, series, values_text
from ._z3util import Unsupported, Z, current, make_solver


def antecedents(expr: Expr) -> list[Expr]:
    """Conditions of ``when``/``implies`` at the top of a clause (or of its conjuncts)."""
    if isinstance(expr, BoolOp):
        if expr.op == "implies":
            return [expr.operands[0]]
        if expr.op == "and":
            return [a for operand in expr.operands for a in antecedents(operand)]
    return []


def vacuity(
    ctx: Ctx,
    q: Question,
    subjects: Sequence[Obligation],
    conditions: Callable[[Obligation], list[Expr]],
    holds: Callable[[Expr], Z],
    extra: Sequence[Z] = (),
    members: Sequence[Member] | None = None,
) -> None:
    """``vacuous`` / ``latent_conflict`` warnings for conditions that can never be true.

    Which conditions can be true is decided for all of them at once
    (``_never_true_terms``); only the conditions that can never be true get a core, once per
    distinct condition term, and the warnings come out in the order of ``subjects``.
    """
    if not ctx.options.warnings:
        return
    asked: list[tuple[Obligation, Expr, Z]] = []
    for ob in subjects:
        for cond in conditions(ob):
            try:
                asked.append((ob, cond, holds(cond)))
            except Unsupported:
                continue
    if not asked:
        return
    if len(q.members if members is None else members) < BATCH_MIN_MEMBERS:
        _one_by_one(ctx, q, asked, extra, members)
        return
    never = _never_true_terms(q, [c for _, _, c in asked], extra, members)
    pool = _shared_pool(q, [c for _, _, c in asked if c.get_id() in never], extra, members)
    small, start = (q, members) if pool is None else (q.restricted(pool), None)
    seen: set[frozenset[str]] = set()
    cores: dict[int, list[Obligation] | None] = {}
    for ob, cond, c in asked:
        key = c.get_id()
        if key not in never:
            continue
        if key not in cores:
            found = small.minimal_core(start, extra=[*extra, c], models=False)
            cores[key] = None if found is None else [m.ob for m in found.members]
        core = cores[key]
        if core is not None:
            _report(ctx, seen, ob, cond, core)


BATCH_MIN_MEMBERS = 256
"""A question with fewer members checks its conditions one by one in its own solver, as
the pass always did: a few milliseconds, and the later warnings' example values (drawn
from that solver's models) stay the ones users have seen."""


def _one_by_one(
    ctx: Ctx,
    q: Question,
    asked: Sequence[tuple[Obligation, Expr, Z]],
    extra: Sequence[Z],
    members: Sequence[Member] | None,
) -> None:
    """The small questions' pass: a condition true in a model found so far is settled,
    any other gets a check of its own and, when never true, its core."""
    seen: set[frozenset[str]] = set()
    models: list[Z] = []
    for ob, cond, c in asked:
        if any(_holds_in(m, c) for m in models):
            continue
        ans = q.check(members, [*extra, c])
        if ans.verdict == "sat":
            models.append(ans.model)
            continue
        if ans.verdict != "unsat":
            continue
        found = q.minimal_core(members, extra=[*extra, c])
        if found is None:
            continue
        _report(ctx, seen, ob, cond, [m.ob for m in found.members])


def _report(ctx: Ctx, seen: set[frozenset[str]], ob: Obligation, cond: Expr,
            core: list[Obligation]) -> None:
    """The warning for a condition never true, once per core that holds its own clause."""
    ids = frozenset(o.id for o in core)
    if ob.id in ids and len(core) >= 2:
        if ids in seen:
            return
        seen.add(ids)
    ctx.warnings.append(_never_true(ob, to_source(cond), core))


def _never_true_terms(
    q: Question, terms: Sequence[Z], extra: Sequence[Z], members: Sequence[Member] | None
) -> set[int]:
    """The ids of the ``terms`` that no model of ``members`` (all: None), the
    question's background and ``extra`` makes true, as far as the solver decides.

    First by Z3's consequence finding (``_fixed_false``).  Where that is undecided,
    exact and batched rounds: a search solver holds the same constraints (asserted
    directly: every member is assumed anyway) and is asked for a model of the
    disjunction of the terms not yet seen true (behind a literal assumed for that
    round, so that what the solver learns carries over); each model settles every pending term
    it makes true (evaluated once per model, each distinct term once), and an unsat
    answer proves every pending term never true at once.  Z3 is told to decide
    Boolean atoms true first and to assign every atom (``phase_selection`` 1,
    ``relevancy`` 0), so that one model makes many conditions true.  A search that
    ends ``unknown`` leaves the pending terms to one check each in the question's
    own solver, as before; a term ``unknown`` there is not reported.
    """
    pending: dict[int, Z] = {}
    for t in terms:
        pending.setdefault(t.get_id(), t)
    chosen = q.members if members is None else list(members)
    search = make_solver(q.rlimit, q.timeout_ms)
    search.set("phase_selection", 1)
    search.set("relevancy", 0)
    for b in [*q.background, *(m.formula for m in chosen), *extra]:
        _assert_direct(search, b)
    fixed = _fixed_false(search, pending)
    if fixed is not None:
        return fixed
    env = current()
    while pending:
        # "some pending term is true", behind a fresh literal assumed for this round
        # only: unlike push/pop, the clauses the solver learns stay for the next rounds.
        some = list(pending.values())
        guard = z3.FreshBool("settle", ctx=search.ctx)
        _assert_direct(search, z3.Implies(guard, env.mk_or(some) if len(some) > 1 else some[0]))
        verdict = search.check(guard)
        model = search.model() if verdict == z3.sat else None
        if verdict == z3.unsat:
            return set(pending)
        if model is None:
            break
        pending = {k: t for k, t in pending.items() if not _holds_in(model, t)}
    never: set[int] = set()
    for k, t in pending.items():
        if q.check(members, [*extra, t]).verdict == "unsat":
            never.add(k)
    return never


def _fixed_false(search: Z, pending: dict[int, Z]) -> set[int] | None:
    """The pending terms no model makes true, by Z3's consequence finding; None when
    Z3 leaves it undecided (the settling rounds then take over).

    ``Solver.consequences`` computes which of a set of Boolean variables have the same
    value in every model (the backbone) inside Z3, with model-based filtering and one
    assumption check per candidate left: at 6,000 requirements it settles 2,856
    conditions in a tenth of the time the rounds below take.  A term that is not a
    Boolean constant is named by a fresh variable equal to it.  Exact: a variable is
    reported fixed to false only when Z3 proved it cannot be true, and "sat" means every
    other variable was seen true in some model.
    """
    names: dict[int, int] = {}
    variables: list[Z] = []
    for key, t in pending.items():
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            v = t
        else:
            v = z3.FreshBool("cond", ctx=search.ctx)
            _assert_direct(search, v == t)
        names[v.get_id()] = key
        variables.append(v)
    try:
        verdict, consequences = search.consequences([], variables)
    except z3.Z3Exception:
        return None
    if verdict == z3.unsat:
        return set(pending)
    if verdict != z3.sat:
        return None
    never: set[int] = set()
    for c in consequences:
        lit = c.arg(1) if z3.is_implies(c) else c
        if z3.is_not(lit) and lit.arg(0).get_id() in names:
            never.add(names[lit.arg(0).get_id()])
    return never


def _shared_pool(
    q: Question, never: Sequence[Z], extra: Sequence[Z], members: Sequence[Member] | None
) -> list[Member] | None:
    """The members some never-true term's core can be drawn from, found by one check.

    Every term in ``never`` is unsatisfiable with the members, so their disjunction is
    too, and the unsat core of that one check holds a core for each of them: each
    term's minimal core is then searched among those members only (a minimal
    unsatisfiable subset of a pool is minimal outright), instead of starting from
    every member of the question once per term.  None (search among ``members`` as
    before) when there is at most one term, or the check does not answer unsat.
    """
    chosen = q.members if members is None else list(members)
    distinct = list({t.get_id(): t for t in never}.values())
    if len(distinct) < 2:
        return None
    ans = q.check(chosen, [*extra, current().mk_or(distinct)])
    if ans.verdict != "unsat":
        return None
    return [m for m in chosen if m.key in ans.model]


def _never_true(ob: Obligation, text: str, core: list[Obligation]) -> Finding:
    """The warning for the condition ``text`` of ``ob``, ruled out by ``core``."""
    if ob.id in {o.id for o in core} and len(core) >= 2:
        others = [named(o) for o in core if o.id != ob.id]
        return Finding(
            "latent_conflict",
            tuple(core),
            f"the condition `{text}` of {ob.id} can never be true: together with "
            f"{series(others)}, {ob.id} would demand something impossible there, "
            f"so the set is consistent only because `{text}` never happens",
        )
    rest = [o for o in core if o.id != ob.id]
    if rest:
        why = f"it is ruled out by {series([named(o) for o in rest])}"
    elif core:
        why = f"when it holds, the rest of {ob.id} cannot, so {ob.id} rules it out itself"
    else:
        why = "it is false (or undefined) whatever the values"
    return Finding(
        "vacuous",
        (ob, *rest),
        f"the condition `{text}` of {ob.id} can never be true: {why}",
    )


def redundancy(
    ctx: Ctx,
    q: Question,
    subjects: Sequence[Member],
    extra: Sequence[Z] = (),
    pool: Sequence[Member] | None = None,
) -> None:
    """``redundant``: an obligation implied by the others (``--redundancy`` only)."""
    if not ctx.options.warnings:
        return
    everything = list(q.members if pool is None else pool)
    for m in subjects:
        if is_type_ob(m.ob):
            continue
        others = [o for o in everything if o is not m]
        found = q.minimal_core(others, extra=[*extra, z3.Not(m.formula)])
        if found is None:
            continue
        by = [o.ob for o in found.members]
        because = f"it follows from {series([named(o) for o in by])}" if by else "it always holds"
        ctx.warnings.append(
            Finding("redundant", (m.ob, *by), f"{named(m.ob)} is redundant: {because}")
        )


def global_warnings(ctx: Ctx, q: Question, enc: Encoder) -> None:
    """The warnings about the requirements (question 1)."""
    user = [m.ob for m in q.members if m.ob.kind == "requirement" and not is_type_ob(m.ob)]
    vacuity(ctx, q, user, lambda ob: antecedents(ob.expr), lambda e: enc.encode(e).holds)
    if ctx.options.redundancy:
        redundancy(ctx, q, [m for m in q.members if not is_type_ob(m.ob)])


def unused_params(ctx: Ctx) -> None:
    """``unused_param``: a param no requirement mentions."""
    if not ctx.options.warnings:
        return
    used: set[str] = set()
    for o in ctx.contract.obligations:
        if o.kind == "requirement":
            used |= free_names(o.expr)
    for p in ctx.contract.params():
        if p.name not in used:
            ctx.warnings.append(
                Finding(
                    "unused_param",
                    (),
                    f"param {p.name} ({p.file}:{p.line}) is declared but no requirement "
                    "constrains it",
                    names=(p.name,),
                    declarations=(p,),
                )
            )


def ambiguity(ctx: Ctx, pre: Question, cl: Clauses, raise_holds: list[Z]) -> None:
    """``ambiguous_raises``: two raises clauses of different exceptions that both hold."""
    if not ctx.options.warnings:
        return
    for i, a in enumerate(cl.raises):
        for j in range(i + 1, len(cl.raises)):
            b = cl.raises[j]
            if a.exception == b.exception:
                continue
            ans = pre.check(extra=[raise_holds[i], raise_holds[j]])
            if ans.verdict != "sat":
                continue
            try:
                values = pre.values(ans.model)
            except Unsupported:
                values = {}
            ctx.warnings.append(
                Finding(
                    "ambiguous_raises",
                    (a, b),
                    f"{named(a)} and {named(b)} both hold at the valid input "
                    f"{values_text(values)}: raising either {a.exception} or {b.exception} "
                    "is then correct",
                    values,
                )
            )
