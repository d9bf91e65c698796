"""What every question of one ``check`` shares: the contract, the options, the findings.

``Ctx`` is handed to every question (``_requirements``, ``_functions``, ``_examples``,
``_realize`` ...) so that each can record cores, warnings and unknowns in one place,
in the order the questions run (the report lists them in that order).  ``Clauses``
and ``CallScope`` are an owner's obligations by role and its variables: several
questions about one function read the same ones.

Frame layout matters here.  Z3 recycles the ids of the terms, models and solvers it
frees, and the ids steer its search: which model a later question gets, and so the
witnesses in reports.  CPython frees a function's locals when it returns, in the order
of its local variables (variables captured by a closure last, alphabetically).  So the
functions that hold Z3 objects (``owner_questions``, ``example``, ``realize``,
``witness``, ``unrealizable``, ``add_cores``) keep the locals and closure captures they
had before ``_check`` was split: their helpers either compute from their arguments and
return what the caller keeps, or hold nothing Z3 the original function did not free
at the same point.  Moving a Z3 object from such a frame into a helper's changes the
witnesses of later questions (measured: ``examples/password_policy.req``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field

from derivative._ast import Call, Contract, Obligation
from derivative._eval import Evaluator
from derivative._record import record
from derivative._types import TEnum, Ty
from derivative._values import Value

from ._encode import Encoder
from ._question import Member, Question, names_of
from ._result import CheckOptions, Core, Correction, Finding, Limit, Unknown
from ._scope import Owner, owner_obligations
from ._terms import Term, intrinsic_domain, var
from ._z3util import Unsupported, Z


@record(frozen=False)
class Ctx:
    """One check's inputs and what its questions found so far."""

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
    realizing: Realizing | None = None
    """``--all-cores``: the realizability question of the owner being decided, for the
    enumeration across inputs (``_realize_all``); set by ``_realize`` in that mode only."""

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

    def unknown(
        self,
        question: str,
        obs: Sequence[Obligation],
        reason: str,
        *,
        hard: Sequence[Obligation] = (),
        limits: Sequence[Limit] = (),
    ) -> None:
        """Record an undecided question; ``hard``: the clauses that make it hard;
        ``limits``: the limits it ran into, if any."""
        self.unknowns.append(
            Unknown(
                question,
                tuple(o.id for o in obs),
                reason,
                tuple(o.id for o in hard),
                tuple(limits),
            )
        )


@record(frozen=False)
class Clauses:
    """An owner's obligations, by role (type obligations included)."""

    owner: Owner
    requires: list[Obligation]
    ensures: list[Obligation]
    raises: list[Obligation]
    examples: list[Obligation]


def clauses_of(ctx: Ctx, owner: Owner, record: bool = True) -> Clauses:
    """``owner``'s clauses with its type obligations (``record``: report those too)."""
    syn_requires, syn_ensures = owner_obligations(owner, {n: v for n, (v, _) in ctx.consts.items()})
    if record:
        ctx.synthetic.extend(syn_requires + syn_ensures)
    out = ctx.options.without
    obs = [o for o in ctx.contract.obligations_of(owner.name) if o.id not in out]
    return Clauses(
        owner,
        [o for o in syn_requires if o.id not in out] + [o for o in obs if o.kind == "requires"],
        [o for o in obs if o.kind == "ensures"] + [o for o in syn_ensures if o.id not in out],
        [o for o in obs if o.kind == "raises"],
        [o for o in obs if o.kind == "example"],
    )


@record(frozen=False)
class CallScope:
    """An owner's variables: its parameters and ``result``."""

    inputs: dict[str, Term]
    result: Term | None
    origin: list[Z] = field(default_factory=list)
    """For ``p: T from op``: ``p`` is something ``op`` may return (see ``_functions.origins``)."""

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


@record
class Realizing:
    """What ``_realize`` built for an owner's realizability question: its variables,
    encoder, the no-raise condition and the requires, for asking it again of subsets."""

    owner: str
    sc: CallScope
    enc: Encoder
    no_raise: Z
    valid: list[Z]


def call_scope(owner: Owner) -> CallScope:
    """Fresh variables for ``owner``'s parameters and result."""
    inputs = {n: var(n, t) for n, t, _ in owner.params}
    result = var("result", owner.returns) if owner.has_result else None
    return CallScope(inputs, result)


def is_type_ob(ob: Obligation) -> bool:
    """Whether ``ob`` is a declared type's obligation (no warning is about those)."""
    return ob.generated_id and (ob.text or "").startswith("declared type")
