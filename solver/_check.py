"""``check``: the questions of LANGUAGE.md §6, in order, and what they add up to.

1. ``inconsistent_requirements``: the global requirements, with the params' type
   obligations (``x.range``) and the constants fixed;
2. ``unsatisfiable_precondition``: per function and operation, its requires clauses
   and its parameters' type obligations;
3. ``contradicting_example``: per example, at the example's input: the requires
   (the input must be valid), the raises clauses (a result example needs every
   condition false; a raises example needs a related condition true) and the ensures
   with the call standing for ``result``;
4. ``unrealizable``: per function, an input that satisfies the requires and no raises
   condition and at which no result satisfies the ensures.  When an ensures pins
   ``result == E`` the question is quantifier-free (E must be defined and satisfy the
   rest); otherwise ``∃ input ∀ result`` is asked, and may honestly be ``unknown``.
   The core is then computed at that input, over the ensures.

How an obligation is read: a requirement, requires or ensures *holds* where it is
defined and true; a requires counts only where defined (an input where it is
undefined is not valid); an ensures that is undefined is a failure; a ``raises``
condition triggers where it is defined and true.

Every question is its own incremental solver (``_question.Question``).  Unknown
answers are collected with their reasons and never become a verdict: the status is
``infeasible_proven`` if any question proved a conflict, else ``unknown`` if any
question was undecided (or no witness could be built), else ``feasible``.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import z3

from derivative._ast import (
    BoolOp,
    Call,
    Compare,
    Contract,
    Expr,
    Obligation,
    Result,
    StrLit,
)
from derivative._eval import Evaluator
from derivative._gcpause import collector_paused
from derivative._printer import to_source
from derivative._types import TBool, TDate, TEnum, TInt, TList, TReal, TStr, Ty
from derivative._values import Value
from derivative._walk import free_names, walk

from ._encode import Encoder
from ._exceptions import is_subclass
from ._question import CoreResult, Member, Question, names_of
from ._result import (
    KIND_ORDER,
    CallWitness,
    CheckOptions,
    CheckResult,
    Core,
    Correction,
    Finding,
    Kind,
    Unknown,
    Witness,
)
from ._scope import Owner, owner_obligations, owners, param_obligations
from ._terms import Term, coerce, intrinsic_domain, seq_of, sort_of, var
from ._z3util import Unsupported, Z, conj, ctx, disj, fresh_context, str_val, true

# --------------------------------------------------------------------------- context


@dataclass
class _Ctx:
    contract: Contract
    info: object
    options: CheckOptions
    consts: dict[str, tuple[Value, Ty]]
    enums: dict[str, TEnum]
    exceptions: dict[str, str]
    evaluator: Evaluator
    cores: list[Core] = field(default_factory=list)
    corrections: list[Correction] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    unknowns: list[Unknown] = field(default_factory=list)
    synthetic: list[Obligation] = field(default_factory=list)

    def encoder(
        self,
        env: Mapping[str, Term],
        call_hook: Callable[[Call, list[Term]], Term | None] | None = None,
    ) -> Encoder:
        return Encoder(env, self.consts, self.enums, call_hook)

    def question(
        self,
        name: str,
        obligations: Sequence[Obligation],
        build: Callable[[Obligation], Z],
        background: Sequence[Z],
        variables: Mapping[str, tuple[Z, Ty]],
        names: Callable[[Obligation], frozenset[str]] = names_of,
    ) -> Question:
        members: list[Member] = []
        failed: list[tuple[Obligation, str]] = []
        known = frozenset(variables)

        def names_in(ob: Obligation) -> Callable[[], frozenset[str]]:
            # Computed when first asked for (cores, components), not for every member.
            return lambda: names(ob) & known

        for ob in obligations:
            try:
                members.append(Member(ob, build(ob), names_in(ob)))
            except Unsupported as exc:
                failed.append((ob, str(exc)))
        return Question(
            name,
            members,
            background,
            variables,
            self.options.rlimit,
            self.options.timeout_ms,
            failed,
        )

    def unknown(self, question: str, obs: Sequence[Obligation], reason: str) -> None:
        self.unknowns.append(Unknown(question, tuple(o.id for o in obs), reason))


@dataclass
class _Clauses:
    """An owner's obligations, by role (type obligations included)."""

    owner: Owner
    requires: list[Obligation]
    ensures: list[Obligation]
    raises: list[Obligation]
    examples: list[Obligation]


def _shown(ob: Obligation) -> str:
    if ob.kind == "raises":
        return f"raises {ob.exception} when {to_source(ob.expr)}"
    if ob.kind == "example" and ob.exception is not None:
        return f"{to_source(ob.expr)} raises {ob.exception}"
    return to_source(ob.expr)


def _named(ob: Obligation) -> str:
    return f"{ob.id} ({_shown(ob)})"


def _series(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _verb(n: int) -> str:
    if n == 1:
        return "can never hold"
    return "cannot both hold" if n == 2 else "cannot all hold together"


def _values_text(values: Mapping[str, Value]) -> str:
    from ._report import value_text

    return ", ".join(f"{k} = {value_text(v)}" for k, v in values.items())


# --------------------------------------------------------------------------- entry point


def check(contract: Contract, info: object, options: CheckOptions | None = None) -> CheckResult:
    """Decide the requirement set ``contract`` (type-checked: ``info`` is its ``TypeInfo``)."""
    with collector_paused(), fresh_context():
        return _check(contract, info, options or CheckOptions())


def _check(contract: Contract, info: object, opts: CheckOptions) -> CheckResult:
    const_types: Mapping[str, Ty] = info.const_types  # type: ignore[attr-defined]
    const_values: Mapping[str, Value] = info.const_values  # type: ignore[attr-defined]
    tolerance = float(contract.tolerance) if contract.tolerance else 1e-9
    ctx = _Ctx(
        contract=contract,
        info=info,
        options=opts,
        consts={n: (const_values[n], const_types[n]) for n in const_values},
        enums=dict(info.enums),  # type: ignore[attr-defined]
        exceptions=dict(info.exceptions),  # type: ignore[attr-defined]
        evaluator=Evaluator(const_values, rel_tol=tolerance),
    )
    params_witness = _global(ctx)
    function_witnesses: dict[str, CallWitness] = {}
    system_witnesses: dict[str, dict[str, CallWitness]] = {}
    witness_ok = params_witness is not None
    for owner in owners(contract, info.signatures):  # type: ignore[attr-defined]
        cw = _owner(ctx, owner)
        if cw is None:
            witness_ok = False
            continue
        if owner.system is None:
            function_witnesses[owner.name] = cw
        else:
            system_witnesses.setdefault(owner.system, {})[owner.name.split(".", 1)[1]] = cw
    _unused_params(ctx)
    cores = sorted(ctx.cores, key=lambda c: KIND_ORDER.index(c.kind))
    obligations = (*contract.obligations, *ctx.synthetic)
    if cores:
        first = cores[0]
        reason = f"{first.kind.replace('_', ' ')}: {first.explanation}"
        return CheckResult(
            "infeasible_proven",
            reason,
            None,
            tuple(cores),
            tuple(ctx.corrections),
            tuple(ctx.warnings),
            tuple(ctx.unknowns),
            obligations=obligations,
        )
    if ctx.unknowns or not witness_ok:
        n = len(ctx.unknowns)
        reason = (
            f"{n} question{'s' if n != 1 else ''} could not be decided"
            if n
            else "no witness could be built"
        )
        return CheckResult(
            "unknown",
            reason,
            None,
            (),
            (),
            tuple(ctx.warnings),
            tuple(ctx.unknowns),
            obligations=obligations,
        )
    assert params_witness is not None
    witness = Witness(params_witness, function_witnesses, system_witnesses)
    return CheckResult(
        "feasible",
        "every requirement, precondition, example and postcondition can be met",
        witness,
        (),
        (),
        tuple(ctx.warnings),
        (),
        obligations=obligations,
    )


# --------------------------------------------------------------------------- cores


def _add_cores(
    ctx: _Ctx,
    q: Question,
    kind: Kind,
    subject: str,
    explain: Callable[[CoreResult], str],
    witness_input: Mapping[str, Value] | None = None,
    extra: Sequence[Z] = (),
    variables: Sequence[str] | None = None,
    require: Obligation | None = None,
    at_input: Sequence[Z] = (),
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
            ctx.unknown(q.name, [m.ob for m in q.members], "the conflict could not be re-derived")
            return False
    results = [] if found is None else [found]
    if ctx.options.all_cores:
        # The enumeration finds every core itself: a first core is computed beforehand
        # only where it decides whether this kind applies (``require``).
        results = []
        per_component: list[list[list[Member]]] = []
        for component in q.components():
            if require is not None and require not in [m.ob for m in component]:
                continue
            whole = len(component) == len(q.members) and not extra
            first = q.all_unsat if whole else None
            if first is None:
                first = q.check(component, extra)
            if first.verdict != "unsat":
                continue
            cores, mcses, complete = q.enumerate(
                component,
                ctx.options.max_cores,
                ctx.options.enumeration_seconds,
                extra,
                first=first,
            )
            results.extend(
                c for c in cores if require is None or require in [m.ob for m in c.members]
            )
            per_component.append(mcses)
            if not complete:
                ctx.unknown(
                    f"{q.name} (all cores)",
                    [m.ob for m in component],
                    "the enumeration of cores stopped at its bound or time limit; "
                    "the cores listed are real but there may be more",
                )
        # Every conflicting component must be fixed: a correction of the whole set takes
        # one minimal correction from each (the cross product), in member order.
        order = {id(m): i for i, m in enumerate(q.members)}
        bound = ctx.options.max_cores
        for combo in itertools.islice(itertools.product(*per_component), bound):
            chosen = sorted(
                {id(m): m for mcs in combo for m in mcs}.values(), key=lambda m: order[id(m)]
            )
            ctx.corrections.append(Correction(subject, tuple(m.ob for m in chosen)))
        total = math.prod(len(mcses) for mcses in per_component) if per_component else 0
        if total > bound:
            # The list is cut: say so, never silently (the count is exact: a product).
            involved = {id(m): m for mcses in per_component for mcs in mcses for m in mcs}
            ctx.unknown(
                "all corrections",
                [m.ob for m in sorted(involved.values(), key=lambda m: order[id(m)])],
                f"enumeration bounded at {bound}; more exist ({total} in all for {subject})",
            )
        if not results:
            if found is None:
                found = q.minimal_core(extra=extra)
            if found is None:
                ctx.unknown(
                    q.name, [m.ob for m in q.members], "the conflict could not be re-derived"
                )
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
                    # An unrealizable certificate fixes its witness input in the script, so
                    # it is given once, not repeated in every model.  A contradicting
                    # example's inputs stay free (its example pins them): its models
                    # assign them like any other variable.
                    values = {
                        k: v
                        for k, v in values.items()
                        if k not in witness_input or witness_input[k] != v
                    }
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
            )
        )
    return True


def _undefined_only(q: Question, m: Member, build_defined: Callable[[Obligation], Z]) -> bool:
    """Whether a lone member fails because it is undefined everywhere (for explanations)."""
    try:
        d = build_defined(m.ob)
    except Unsupported:
        return False
    s = q._fresh()
    s.add(d)
    return bool(s.check() == z3.unsat)


# --------------------------------------------------------------------------- 1. requirements


def _global(ctx: _Ctx) -> dict[str, Value] | None:
    info = ctx.info
    param_types: Mapping[str, Ty] = info.param_types  # type: ignore[attr-defined]
    env = {n: var(n, t) for n, t in param_types.items()}
    variables = {n: (t.value, t.ty) for n, t in env.items()}
    background = [intrinsic_domain(t.value, t.ty) for t in env.values()]
    synthetic = param_obligations(
        ctx.contract, param_types, {n: v for n, (v, _) in ctx.consts.items()}
    )
    ctx.synthetic.extend(synthetic)
    obligations = [o for o in ctx.contract.obligations if o.kind == "requirement"] + synthetic
    enc = ctx.encoder(env)
    q = ctx.question(
        "requirements", obligations, lambda ob: enc.encode(ob.expr).holds, background, variables
    )
    ans = q.check()
    if ans.verdict == "unsat":

        def explain(r: CoreResult) -> str:
            members = [_named(m.ob) for m in r.members]
            names = sorted(set().union(*[m.names for m in r.members]) or [])
            if len(r.members) == 1 and _undefined_only(
                q, r.members[0], lambda ob: enc.encode(ob.expr).defined
            ):
                return f"{members[0]} is undefined for every value of {', '.join(names)}."
            verb = _verb(len(members))
            where = f"no value of {', '.join(names)} satisfies " + (
                "it" if len(members) == 1 else "them at once"
            )
            return f"{_series(members)} {verb}: {where}."

        _add_cores(ctx, q, "inconsistent_requirements", "requirements", explain)
        return None
    if q.unencodable:
        ctx.unknowns.extend(
            Unknown("requirements", (o.id,), f"cannot encode: {why}") for o, why in q.unencodable
        )
        return None
    if ans.verdict == "unknown":
        ctx.unknown("requirements", obligations, ans.reason)
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
    _global_warnings(ctx, q, enc)
    return values


def _antecedents(expr: Expr) -> list[Expr]:
    """Conditions of ``when``/``implies`` at the top of a clause (or of its conjuncts)."""
    if isinstance(expr, BoolOp):
        if expr.op == "implies":
            return [expr.left]
        if expr.op == "and":
            return _antecedents(expr.left) + _antecedents(expr.right)
    return []


def _vacuity(
    ctx: _Ctx,
    q: Question,
    subjects: Sequence[Obligation],
    conditions: Callable[[Obligation], list[Expr]],
    holds: Callable[[Expr], Z],
    extra: Sequence[Z] = (),
    members: Sequence[Member] | None = None,
) -> None:
    """``vacuous`` / ``latent_conflict`` warnings for conditions that can never be true."""
    seen: set[frozenset[str]] = set()
    # A condition true in any model already found is not vacuous: most conditions are
    # settled by evaluation in a handful of models, without a solver call each.
    models: list[Z] = []
    for ob in subjects:
        for cond in conditions(ob):
            try:
                c = holds(cond)
            except Unsupported:
                continue
            if any(z3.is_true(m.eval(c, model_completion=True)) for m in models):
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
            core = [m.ob for m in found.members]
            ids = frozenset(o.id for o in core)
            text = to_source(cond)
            if ob.id in ids and len(core) >= 2:
                if ids in seen:
                    continue
                seen.add(ids)
                others = [_named(o) for o in core if o.id != ob.id]
                ctx.warnings.append(
                    Finding(
                        "latent_conflict",
                        tuple(core),
                        f"the condition `{text}` of {ob.id} can never be true: together with "
                        f"{_series(others)}, {ob.id} would demand something impossible there, "
                        f"so the set is consistent only because `{text}` never happens",
                    )
                )
                continue
            rest = [o for o in core if o.id != ob.id]
            if rest:
                why = f"it is ruled out by {_series([_named(o) for o in rest])}"
            elif core:
                why = f"when it holds, the rest of {ob.id} cannot, so {ob.id} rules it out itself"
            else:
                why = "it is false (or undefined) whatever the values"
            ctx.warnings.append(
                Finding(
                    "vacuous",
                    (ob, *rest),
                    f"the condition `{text}` of {ob.id} can never be true: {why}",
                )
            )


def _redundancy(
    ctx: _Ctx,
    q: Question,
    subjects: Sequence[Member],
    extra: Sequence[Z] = (),
    pool: Sequence[Member] | None = None,
) -> None:
    """``redundant``: an obligation implied by the others (``--redundancy`` only)."""
    everything = list(q.members if pool is None else pool)
    for m in subjects:
        if _is_type_ob(m.ob):
            continue
        others = [o for o in everything if o is not m]
        found = q.minimal_core(others, extra=[*extra, z3.Not(m.formula)])
        if found is None:
            continue
        by = [o.ob for o in found.members]
        because = f"it follows from {_series([_named(o) for o in by])}" if by else "it always holds"
        ctx.warnings.append(
            Finding("redundant", (m.ob, *by), f"{_named(m.ob)} is redundant: {because}")
        )


def _global_warnings(ctx: _Ctx, q: Question, enc: Encoder) -> None:
    user = [m.ob for m in q.members if m.ob.kind == "requirement" and not _is_type_ob(m.ob)]
    _vacuity(ctx, q, user, lambda ob: _antecedents(ob.expr), lambda e: enc.encode(e).holds)
    if ctx.options.redundancy:
        _redundancy(ctx, q, [m for m in q.members if not _is_type_ob(m.ob)])


def _is_type_ob(ob: Obligation) -> bool:
    return ob.generated_id and (ob.text or "").startswith("declared type")


def _unused_params(ctx: _Ctx) -> None:
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
                )
            )


# --------------------------------------------------------------------------- functions


def _clauses(ctx: _Ctx, owner: Owner, record: bool = True) -> _Clauses:
    syn_requires, syn_ensures = owner_obligations(owner, {n: v for n, (v, _) in ctx.consts.items()})
    if record:
        ctx.synthetic.extend(syn_requires + syn_ensures)
    obs = ctx.contract.obligations_of(owner.name)
    return _Clauses(
        owner,
        syn_requires + [o for o in obs if o.kind == "requires"],
        [o for o in obs if o.kind == "ensures"] + syn_ensures,
        [o for o in obs if o.kind == "raises"],
        [o for o in obs if o.kind == "example"],
    )


@dataclass
class _Scope:
    """An owner's variables: its parameters and ``result``."""

    inputs: dict[str, Term]
    result: Term | None
    origin: list[Z] = field(default_factory=list)
    """For ``p: T from op``: ``p`` is something ``op`` may return (see ``_origins``)."""

    @property
    def env(self) -> dict[str, Term]:
        env = dict(self.inputs)
        if self.result is not None:
            env["result"] = self.result
        return env

    def variables(self, with_result: bool = True) -> dict[str, tuple[Z, Ty]]:
        out = {n: (t.value, t.ty) for n, t in self.inputs.items()}
        if with_result and self.result is not None:
            out["result"] = (self.result.value, self.result.ty)
        return out

    def background(self, with_result: bool = True, origin: bool = False) -> list[Z]:
        out = [intrinsic_domain(t.value, t.ty) for t in self.inputs.values()]
        if origin:
            out.extend(self.origin)
        if with_result and self.result is not None:
            out.append(intrinsic_domain(self.result.value, self.result.ty))
        return out


def _scope(owner: Owner) -> _Scope:
    inputs = {n: var(n, t) for n, t, _ in owner.params}
    result = var("result", owner.returns) if owner.has_result else None
    return _Scope(inputs, result)


def _owner(ctx: _Ctx, owner: Owner) -> CallWitness | None:
    """All questions about one function or operation; its witness if feasible."""
    cl = _clauses(ctx, owner)
    sc = _scope(owner)
    sc.origin = _origins(ctx, owner, sc)
    enc = ctx.encoder(sc.env)

    def holds(ob: Obligation) -> Z:
        return enc.encode(ob.expr).holds

    # 2. precondition ---------------------------------------------------------
    pre = ctx.question(owner.name, cl.requires, holds, sc.background(False), sc.variables(False))
    ans = pre.check()
    ok = True
    if ans.verdict == "unsat":

        def explain_pre(r: CoreResult) -> str:
            named = [_named(m.ob) for m in r.members]
            if len(r.members) == 1 and _undefined_only(
                pre, r.members[0], lambda ob: enc.encode(ob.expr).defined
            ):
                return (
                    f"{named[0]} is undefined for every input of {owner.name}: no input is valid."
                )
            verb = _verb(len(named))
            plural = "s" if len(named) > 1 else ""
            return (
                f"The requires clause{plural} {_series(named)} of {owner.name} {verb}: "
                "no input is valid."
            )

        _add_cores(ctx, pre, "unsatisfiable_precondition", owner.name, explain_pre)
        ok = False
    elif ans.verdict == "unknown" or pre.unencodable:
        why = ans.reason if ans.verdict == "unknown" else pre.unencodable[0][1]
        ctx.unknown(f"{owner.name} precondition", cl.requires, why)
        ok = False

    # 3. examples -------------------------------------------------------------
    for ex in cl.examples:
        if not _example(ctx, cl, ex):
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
    _vacuity(
        ctx,
        pre,
        [r for r in cl.requires if not _is_type_ob(r)],
        lambda ob: _antecedents(ob.expr),
        lambda e: enc.encode(e).holds,
    )
    _vacuity(ctx, pre, cl.raises, lambda ob: [ob.expr], lambda e: enc.encode(e).holds)
    _ambiguity(ctx, pre, cl, raise_holds)
    if ctx.options.redundancy:
        _redundancy(ctx, pre, [m for m in pre.members if not _is_type_ob(m.ob)])

    # 4. realizability and the witness ------------------------------------------
    return _realize(ctx, cl, sc, enc, no_raise, pre)


def _origins(ctx: _Ctx, owner: Owner, sc: _Scope) -> list[Z]:
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
        cl = _clauses(ctx, origin, record=False)
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


def _ambiguity(ctx: _Ctx, pre: Question, cl: _Clauses, raise_holds: list[Z]) -> None:
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
                    f"{_named(a)} and {_named(b)} both hold at the valid input "
                    f"{_values_text(values)}: raising either {a.exception} or {b.exception} "
                    "is then correct",
                    values,
                )
            )


def _call_args(ex: Obligation) -> Call | None:
    """The call of the owner in an example (``f(args) == V`` or ``f(args) raises E``)."""
    calls = [n for n in walk(ex.expr) if isinstance(n, Call) and n.func not in _BUILTINS]
    if len(calls) != 1:
        return None
    return calls[0]


_BUILTINS = frozenset(
    {
        "len", "abs", "min", "max", "sum", "int", "str", "matches", "startswith",
        "endswith", "contains", "occurrences", "sorted",
    }
)  # fmt: skip


def _example(ctx: _Ctx, cl: _Clauses, ex: Obligation) -> bool:
    """Question 3 for one example; False if it found a conflict or could not decide."""
    owner = cl.owner
    call = _call_args(ex)
    if call is None or call.func not in owner.call_names or len(call.args) != len(owner.params):
        ctx.unknown(ex.id, [ex], "the example does not call its function exactly once")
        return False
    const_enc = ctx.encoder({})
    # The inputs are variables and the example pins them to its arguments: so a requires
    # or raises clause alone is satisfiable, and the example is always part of a core.
    inputs = {name: var(name, ty) for name, ty, _ in owner.params}
    try:
        arg_terms = [const_enc.encode(a) for a in call.args]
        pinned = [
            inputs[name].value == coerce(t, ty)
            for (name, ty, _), t in zip(owner.params, arg_terms, strict=True)
        ]
        arg_values = {
            name: Term(coerce(t, ty), true(), ty)
            for (name, ty, _), t in zip(owner.params, arg_terms, strict=True)
        }
    except Unsupported as exc:
        ctx.unknown(ex.id, [ex], f"cannot encode the example's arguments: {exc}")
        return False
    args_defined = conj(*[t.defined for t in arg_terms], *pinned)
    result = var("result", owner.returns) if owner.has_result else None
    scope = _Scope(inputs, result)
    enc = ctx.encoder(scope.env)

    def hook(node: Call, args: list[Term]) -> Term | None:
        if node.func in owner.call_names and result is not None:
            return Term(result.value, args_defined, result.ty)
        return None

    ex_enc = ctx.encoder({}, hook)
    raises_example = ex.exception is not None
    try:
        witness = {n: _const_value(t) for n, t in arg_values.items()}
    except Unsupported as exc:
        ctx.unknown(ex.id, [ex], f"cannot evaluate the example's arguments: {exc}")
        return False
    raises_for: dict[str, Z] = {}

    def build(ob: Obligation) -> Z:
        if ob is ex:
            if raises_example:
                related = [
                    enc.encode(r.expr).holds
                    for r in cl.raises
                    if r.exception is not None
                    and ex.exception is not None
                    and (
                        is_subclass(r.exception, ex.exception, ctx.exceptions)
                        or is_subclass(ex.exception, r.exception, ctx.exceptions)
                    )
                ]
                return conj(args_defined, disj(*related))
            return conj(args_defined, ex_enc.encode(ob.expr).holds)
        if ob.kind == "raises":
            # A result example returns normally: every raises condition must be false.
            raises_for[ob.id] = enc.encode(ob.expr).holds
            return z3.Not(raises_for[ob.id])
        return enc.encode(ob.expr).holds

    obligations = [ex, *cl.requires]
    if not raises_example:
        obligations += [*cl.raises, *cl.ensures]
    everything = frozenset(scope.variables())

    def names(ob: Obligation) -> frozenset[str]:
        # The example pins every input (and reads the result): it shares them all.
        return everything if ob is ex else names_of(ob)

    q = ctx.question(ex.id, obligations, build, scope.background(), scope.variables(), names)
    if not any(m.ob is ex for m in q.members):
        ctx.unknown(ex.id, [ex], q.unencodable[0][1] if q.unencodable else "cannot encode")
        return False
    ans = q.check()
    if ans.verdict == "sat":
        if q.unencodable:
            ctx.unknown(ex.id, [o for o, _ in q.unencodable], q.unencodable[0][1])
            return False
        return True
    if ans.verdict == "unknown":
        ctx.unknown(ex.id, obligations, ans.reason)
        return False
    # The example must take part: clauses that conflict at its input on their own are
    # a precondition or realizability problem, found (and certified) by those questions.
    ensures_ids = {o.id for o in cl.ensures}
    at_input = [args_defined]
    ens_only = [m for m in q.members if m.ob.id in ensures_ids]
    call_ok = [m for m in q.members if m.ob is not ex and m.ob.id not in ensures_ids]
    if (
        q.check(ens_only, at_input).verdict == "unsat"
        and q.check(call_ok, at_input).verdict == "sat"
    ):
        return True

    def explain(r: CoreResult) -> str:
        at = _values_text(witness)
        others = [m.ob for m in r.members if m.ob is not ex]
        if ex not in [m.ob for m in r.members]:
            return (
                f"At the input {at}, {_series([_named(o) for o in others])} cannot all hold "
                f"(the example {ex.id} is not even needed)."
            )
        if raises_example and not others:
            return (
                f"The example {_named(ex)} says the call raises {ex.exception}, but at the "
                f"input {at} no raises clause of {owner.name} for {ex.exception} (or a related "
                "exception) holds, so the call must return normally."
            )
        if not others:
            return (
                f"The example {_named(ex)} cannot hold on its own: its call or its expected "
                "value is undefined."
            )
        parts = []
        for o in others:
            if o.kind == "raises":
                parts.append(f"{_named(o)}, which holds there, so the call must raise")
            elif o.kind == "requires":
                parts.append(f"{_named(o)}, which makes that input invalid")
            else:
                parts.append(_named(o))
        return f"At the input {at}, the example {_named(ex)} contradicts {_series(parts)}."

    _add_cores(
        ctx,
        q,
        "contradicting_example",
        owner.name,
        explain,
        witness_input=witness,
        require=ex,
        at_input=at_input,
    )
    return False


def _const_value(t: Term) -> Value:
    """The value of a closed (constant) term."""
    s = z3.Solver(ctx=ctx())
    out = z3.FreshConst(t.value.sort(), "arg")
    s.add(out == t.value)
    if s.check() != z3.sat:
        raise Unsupported("the example's arguments have no value")
    from ._decode import from_model

    return from_model(s.model(), out, t.ty)


def _pinned(ob: Obligation) -> Expr | None:
    """``E`` when the ensures is ``result == E`` (or ``E == result``) with no ``result`` in E."""
    e = ob.expr
    if isinstance(e, Compare) and e.ops == ("==",):
        a, b = e.operands
        for side, other in ((a, b), (b, a)):
            if isinstance(side, Result) and not any(isinstance(n, Result) for n in walk(other)):
                return other
    return None


def _realize(
    ctx: _Ctx, cl: _Clauses, sc: _Scope, enc: Encoder, no_raise: Z, pre: Question
) -> CallWitness | None:
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
        # Pure arithmetic (ints, reals, dates, bools, enums) is decided completely by
        # quantifier elimination; everything else goes to the default solver first.
        arithmetic = all(
            isinstance(t, TInt | TReal | TBool | TDate | TEnum)
            for t in [sc.result.ty, *(t for _, t in s_vars.values())]
        )
        if not arithmetic:
            # Bounded lists of arithmetic values: cases on their lengths are complete
            # and cheap, so they go first (``_realize_unrolled``; None: not applicable).
            unrolled = _realize_unrolled(ctx, cl, sc, pre, no_raise)
            if unrolled == "realizable":
                return _witness(ctx, cl, sc, enc, no_raise, pre, all_ens)
            if unrolled == "unrealizable":
                return None
            # Result terms built from the inputs: quantifier-free, so cheap enough to
            # try before Z3's quantified attempt (which may spend its whole rlimit).
            if _realized_by_candidates(ctx, cl, sc, q):
                return _witness(ctx, cl, sc, enc, no_raise, pre, all_ens)
        ans = q.check_eliminating(quantified) if arithmetic else q.check(extra=quantified)
        if arithmetic and ans.verdict == "unknown":
            second = q.check(extra=quantified)
            if second.verdict != "unknown":
                ans = second
        if ans.verdict == "unknown":
            # Z3's instantiation gave up (strings, lists): ask cvc5 (solver/_cvc5.py).
            # Its "unsat" is followed by a witness that Z3 builds and the evaluator
            # checks; its "sat" input is confirmed by Z3 at that fixed input below.
            from derivative.solver import _cvc5

            alt = _cvc5.decide([*q.background, *quantified], q.variables,
                               ctx.options.rlimit, ctx.options.timeout_ms)
            if alt.verdict == "unsat":
                return _witness(ctx, cl, sc, enc, no_raise, pre, all_ens)
            if alt.verdict == "sat" and alt.values is not None:
                _unrealizable(ctx, cl, alt.values)
                return None
            ans = dataclasses.replace(ans, reason=f"{ans.reason}; {alt.reason}")
    if ans.verdict == "unknown":
        ctx.unknown(q.name, cl.ensures, ans.reason)
        return None
    if ans.verdict == "sat":
        try:
            bad_input = q.values(ans.model)
        except Unsupported as exc:
            ctx.unknown(q.name, cl.ensures, str(exc))
            return None
        _unrealizable(ctx, cl, bad_input)
        return None
    return _witness(ctx, cl, sc, enc, no_raise, pre, all_ens)


CANDIDATE_LIMIT = 64
"""Result terms tried together by ``_realized_by_candidates`` at most."""


def _realized_by_candidates(ctx: _Ctx, cl: _Clauses, sc: _Scope, q: Question) -> bool:
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
        literals = sorted({n.value for o in cl.ensures for n in walk(o.expr)
                           if isinstance(n, StrLit)})
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
    fresh = Question(q.name, [], q.background, q.variables, q.rlimit, q.timeout_ms)
    return fresh.check(extra=failing).verdict == "unsat"


UNROLL_MAX_LEN = 8
"""Lists whose valid lengths are all at most this are split into one case per length."""

UNROLL_MAX_CASES = 64
"""At most this many length combinations are tried."""

_ARITHMETIC = (TInt, TReal, TBool, TDate, TEnum)


def _realize_unrolled(
    ctx: _Ctx, cl: _Clauses, sc: _Scope, pre: Question, no_raise: Z
) -> str | None:
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
    if result is None or sc.origin or not (
        isinstance(result.ty, _ARITHMETIC)
        or (isinstance(result.ty, TList) and isinstance(result.ty.elem, _ARITHMETIC))
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
        bound = next((b for b in range(UNROLL_MAX_LEN + 1)
                      if pre.check(extra=[no_raise, length > b]).verdict == "unsat"), None)
        if bound is None:
            return None
        bounds.append(bound)
    cases = list(itertools.product(*(range(b + 1) for b in bounds)))
    if len(cases) > UNROLL_MAX_CASES:
        return None
    for lengths in cases:
        verdict = _realize_case(ctx, cl, sc, dict(zip(lists, lengths, strict=True)))
        if verdict != "unsat":
            return None if verdict == "unknown" else "unrealizable"
    return "realizable"


def _realize_case(ctx: _Ctx, cl: _Clauses, sc: _Scope, lengths: Mapping[str, int]) -> str:
    """One case of ``_realize_unrolled``: ``unsat``, ``unknown``, or ``sat`` after handing
    the input found to ``_unrealizable``."""
    assert sc.result is not None
    inputs = dict(sc.inputs)
    background = [intrinsic_domain(t.value, t.ty) for n, t in sc.inputs.items()
                  if n not in lengths]
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
    q = Question(f"{cl.owner.name} realizability", [], [*background, *valid, no_raise],
                 variables, ctx.options.rlimit, ctx.options.timeout_ms)
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
    _unrealizable(ctx, cl, bad_input)
    return "sat"


def _elements(name: str, ty: TList, n: int) -> tuple[list[Term], Term]:
    """``n`` element variables ``name[k]`` and the list of exactly those elements."""
    items = [var(f"{name}[{k}]", ty.elem) for k in range(n)]
    return items, Term(seq_of([e.value for e in items], sort_of(ty)), true(), ty)


def _no_result(
    ctx: _Ctx, cl: _Clauses, sc: _Scope, inputs: Mapping[str, Term], q: Question,
    ensures: Z,
) -> tuple[list[Z], bool] | None:
    """"No result satisfies every ensures" for one case of ``_realize_case``, and
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


def _unrealizable(ctx: _Ctx, cl: _Clauses, bad_input: dict[str, Value]) -> None:
    owner = cl.owner
    from ._terms import literal

    inputs = {n: Term(literal(bad_input[n], t), true(), t) for n, t, _ in owner.params}
    result = var("result", owner.returns) if owner.has_result else None
    scope = _Scope(inputs, result)
    enc = ctx.encoder(scope.env)
    q = ctx.question(
        f"{owner.name} at {_values_text(bad_input)}",
        cl.ensures,
        lambda ob: enc.encode(ob.expr).holds,
        scope.background(),
        {} if result is None else {"result": (result.value, result.ty)},
    )
    ans = q.check()
    if ans.verdict != "unsat":
        ctx.unknown(
            q.name,
            cl.ensures,
            ans.reason
            if ans.verdict == "unknown"
            else "the solver found the input unrealizable but not the ensures at it "
            "(inconsistent answers)",
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
        named = [_named(m.ob) for m in r.members]
        if len(named) == 1 and _undefined_only(
            q, r.members[0], lambda ob: enc.encode(ob.expr).defined
        ):
            return (
                f"At the input {_values_text(bad_input)}, which satisfies every requires clause "
                f"and no raises condition of {owner.name}, {named[0]} is undefined whatever "
                "the result."
            )
        return (
            f"At the input {_values_text(bad_input)}, which satisfies every requires clause and no "
            f"raises condition of {owner.name}, no result satisfies {_series(named)}."
        )

    _add_cores(ctx, q, "unrealizable", owner.name, explain, witness_input=bad_input)


def _witness(
    ctx: _Ctx,
    cl: _Clauses,
    sc: _Scope,
    enc: Encoder,
    no_raise: Z,
    pre: Question,
    all_ens: Z,
) -> CallWitness | None:
    """An input and result for the feasible witness, re-checked with the evaluator."""
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
    raised: str | None = None
    if ans.verdict == "unsat":
        # Every valid input raises: the witness is an input and the exception it raises.
        ans = pre.check()
        raised_ob = None
        if ans.verdict == "sat":
            values = pre.values(ans.model)
            raised_ob = next(
                (r for r in cl.raises if ctx.evaluator.holds(r.expr, values) is True), None
            )
        if raised_ob is None:
            ctx.unknown(f"{subject} witness", cl.ensures, "no witness input could be built")
            return None
        raised = raised_ob.exception
        return CallWitness(values, None, raised)
    if ans.verdict != "sat" or behaviour.unencodable:
        why = (
            ans.reason
            if ans.verdict == "unknown"
            else (behaviour.unencodable[0][1] if behaviour.unencodable else "no witness")
        )
        ctx.unknown(f"{subject} witness", cl.ensures, why)
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
    # ensures-level warnings: antecedents that can never be true for a valid, normal call
    _vacuity(
        ctx,
        behaviour,
        [o for o in cl.ensures if not _is_type_ob(o)],
        lambda ob: _antecedents(ob.expr),
        lambda e: enc.encode(e).holds,
    )
    if ctx.options.redundancy:
        _redundancy(
            ctx,
            behaviour,
            [m for m in behaviour.members if m.ob.kind == "ensures" and not _is_type_ob(m.ob)],
        )
    return CallWitness(inputs, values.get("result") if sc.result is not None else None, raised)
