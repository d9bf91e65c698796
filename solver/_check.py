"""``check``: the questions of docs/language.md §9, in order, and what they add up to.

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

This module runs the questions and adds up their answers; each question has a module
of its own: ``_requirements`` (1), ``_functions`` (2, and the order of 2-4 per owner),
``_examples`` (3), ``_realize`` with ``_unroll``, ``_unrealizable`` and ``_witness``
(4); ``_cores`` records conflicts, ``_warnings`` the warnings, ``_context`` holds what
they share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from derivative._ast import Contract
from derivative._eval import Evaluator
from derivative._gcpause import collector_paused
from derivative._types import Ty
from derivative._values import Value

from ._context import Ctx
from ._functions import owner_questions
from ._requirements import requirements
from ._result import KIND_ORDER, CallWitness, CheckOptions, CheckResult, Witness
from ._scope import owners
from ._warnings import unused_params
from ._z3util import fresh_context

Progress = Callable[[str, str], None]
"""``progress(step, detail)``: told as each question starts (for a status line)."""


def check(contract: Contract, info: object, options: CheckOptions | None = None, *,
          progress: Progress | None = None) -> CheckResult:
    """Decide the requirement set ``contract`` (type-checked: ``info`` is its ``TypeInfo``);
    ``progress``, when given, is told as each question starts."""
    with collector_paused(), fresh_context():
        return _check(contract, info, options or CheckOptions(), progress or _quiet)


def _quiet(step: str, detail: str) -> None:
    return None


def _check(contract: Contract, info: object, opts: CheckOptions,
           progress: Progress) -> CheckResult:
    ctx = _context(contract, info, opts)
    every = list(owners(contract, info.signatures))  # type: ignore[attr-defined]
    total = len(every) + 1
    progress("questions", f"1 of {total}: the global requirements")
    params_witness = requirements(ctx)
    function_witnesses: dict[str, CallWitness] = {}
    system_witnesses: dict[str, dict[str, CallWitness]] = {}
    witness_ok = params_witness is not None
    for n, owner in enumerate(every, start=2):
        progress("questions", f"{n} of {total}: {owner.name}")
        cw = owner_questions(ctx, owner)
        if cw is None:
            witness_ok = False
            continue
        if owner.system is None:
            function_witnesses[owner.name] = cw
        else:
            system_witnesses.setdefault(owner.system, {})[owner.name.split(".", 1)[1]] = cw
    unused_params(ctx)
    if ctx.cores or ctx.unknowns or not witness_ok:
        return _not_feasible(ctx)
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
        obligations=(*contract.obligations, *ctx.synthetic),
    )


def _context(contract: Contract, info: object, opts: CheckOptions) -> Ctx:
    """A check's shared state, with the constants' values and the evaluator."""
    const_types: Mapping[str, Ty] = info.const_types  # type: ignore[attr-defined]
    const_values: Mapping[str, Value] = info.const_values  # type: ignore[attr-defined]
    tolerance = float(contract.tolerance) if contract.tolerance else 1e-9
    return Ctx(
        contract=contract,
        info=info,
        options=opts,
        consts={n: (const_values[n], const_types[n]) for n in const_values},
        enums=dict(info.enums),  # type: ignore[attr-defined]
        exceptions=dict(info.exceptions),  # type: ignore[attr-defined]
        evaluator=Evaluator(const_values, rel_tol=tolerance),
    )


def _not_feasible(ctx: Ctx) -> CheckResult:
    """``infeasible_proven`` if any question proved a conflict, else ``unknown``."""
    cores = sorted(ctx.cores, key=lambda c: KIND_ORDER.index(c.kind))
    obligations = (*ctx.contract.obligations, *ctx.synthetic)
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
