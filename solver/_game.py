"""Bounded games: can the requirements be met whatever values some params take?

``play(contract, info, blocks)`` asks whether ``Q1 X1. Q2 X2. ... requirements`` holds,
where each block is ``("forall", names)`` (values an adversary picks: they are assumed
to lie in their declared ranges) or ``("exists", names)`` (values we pick: they must lie
in their ranges), in order, and every param in no block is chosen first (outermost
``exists``).  The timed checker asks it with the inputs of every step universal and the
outputs existential, in step order: a *causal* controller, which sees the inputs up to
now and never the future.  With one ``forall`` block and one ``exists`` block it is the
weaker, clairvoyant question, whose failure comes with one concrete assignment of the
universal params (an input trace) under which nothing satisfies the requirements.

Z3's ``qsat`` (quantifier elimination by model-based projection, complete for booleans,
enums and linear arithmetic) decides it under the deterministic resource limit; what it
cannot decide is ``unknown``, with the reason, never either answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import z3

from derivative._ast import Contract, Obligation
from derivative._gcpause import collector_paused
from derivative._record import record
from derivative._types import Ty
from derivative._values import Value
from derivative._walk import free_names

from ._check import _context
from ._decode import from_model
from ._result import CheckOptions
from ._scope import param_obligations
from ._terms import intrinsic_domain, var
from ._z3util import Unsupported, ctx, fresh_context

Block = tuple[Literal["forall", "exists"], Sequence[str]]


@record
class GameAnswer:
    """``holds`` (the requirements can always be met), ``fails`` (they cannot: ``values``
    are the outermost universal params' values that show it, when the first block is
    universal) or ``unknown`` (``reason`` says why)."""

    verdict: Literal["holds", "fails", "unknown"]
    reason: str = ""
    values: Mapping[str, Value] | None = None


def play(contract: Contract, info: object, blocks: Sequence[Block],
         options: CheckOptions, *, without: frozenset[str] = frozenset()) -> GameAnswer:
    """Decide the game (see the module docstring); ``without``: obligation ids left out."""
    with collector_paused(), fresh_context():
        return _play(contract, info, blocks, options, without)


def _play(contract: Contract, info: object, blocks: Sequence[Block], options: CheckOptions,
          without: frozenset[str]) -> GameAnswer:
    c = _context(contract, info, options)
    param_types: Mapping[str, Ty] = info.param_types  # type: ignore[attr-defined]
    env = {n: var(n, t) for n, t in param_types.items()}
    ranges: dict[str, list[z3.ExprRef]] = {n: [] for n in env}
    consts = {n: v for n, (v, _) in c.consts.items()}
    for ob in param_obligations(contract, param_types, consts):
        name = ob.id.split(".", 1)[0]
        if name in ranges and ob.id not in without:
            ranges[name].append(_encoded(c, env, ob))
    # params no requirement mentions cannot matter: left out of every block (an unused
    # input quantified over its range only makes the solver's work larger)
    used: set[str] = set()
    for ob in contract.obligations:
        if ob.kind == "requirement" and ob.id not in without:
            used |= free_names(ob.expr)
    blocks = [(kind, [n for n in names if n in used]) for kind, names in blocks]
    env = {n: t for n, t in env.items() if n in used}
    enc = c.encoder(env)
    body: list[z3.ExprRef] = []
    for ob in contract.obligations:
        if ob.kind == "requirement" and ob.id not in without:
            try:
                body.append(enc.encode(ob.expr).holds)
            except Unsupported as exc:
                return GameAnswer("unknown", f"cannot encode {ob.id}: {exc}")
    for term in env.values():
        body.append(intrinsic_domain(term.value, term.ty))
    formula: z3.ExprRef = z3.And(*body) if body else z3.BoolVal(True, ctx())
    free = [n for n in env if not any(n in names for _, names in blocks)]
    outer: Sequence[str] = free
    inner_blocks = list(blocks)
    if not free and inner_blocks and inner_blocks[0][0] == "forall":
        # a failure shows the first universal block's values: they stay free
        outer = inner_blocks.pop(0)[1]
    for kind, names in reversed(inner_blocks):
        consts_ = [env[n].value for n in names]
        rng = [r for n in names for r in ranges[n]]
        if kind == "forall":
            inner = z3.Implies(z3.And(*rng), formula) if rng else formula
            formula = z3.ForAll(consts_, inner) if consts_ else inner
        else:
            inner = z3.And(*rng, formula) if rng else formula
            formula = z3.Exists(consts_, inner) if consts_ else inner
    negated = z3.And(*(r for n in outer for r in ranges[n]), z3.Not(formula))
    if outer is free and free:
        # the free params are ours to choose: the game fails only if no choice wins
        negated = z3.ForAll([env[n].value for n in free], z3.Not(z3.And(
            *(r for n in free for r in ranges[n]), formula)))
    # qsat for alternations; for one universal block Z3's default (model-based
    # instantiation), then elimination of the outputs followed by a plain check, then
    # qsat: each is tried where the one before gives up (none dominates: on the mixer
    # at depth 10 elimination is 16 times faster than the default, on the FSM at depth
    # 20 four times slower)
    engines = (["qsat", "default"] if len(inner_blocks) > 1 or free
               else ["default", "qe", "qsat"])
    reason = ""
    for engine in engines:
        if engine == "qe":
            # eliminate the outputs first, then decide what is left over the inputs
            solver = z3.Then(z3.Tactic("qe", ctx()), z3.Tactic("smt", ctx())).solver()
        elif engine == "qsat":
            solver = z3.Tactic("qsat", ctx()).solver()
        else:
            solver = z3.Solver(ctx=ctx())
        solver.set("rlimit", options.rlimit * max(1, len(env) // 16))
        solver.set("timeout", options.timeout_ms)
        solver.add(negated)
        answer = solver.check()
        if answer != z3.unknown:
            break
        reason = solver.reason_unknown()
    if answer == z3.unsat:
        return GameAnswer("holds")
    if answer == z3.unknown:
        return GameAnswer("unknown", f"the solver gave up: {reason}")
    model = solver.model()
    shown = [] if outer is free else outer
    values: dict[str, Value] = {}
    for n in shown:
        try:
            values[n] = from_model(model, env[n].value, env[n].ty)
        except Unsupported:
            return GameAnswer("fails", "a value could not be read back", None)
    return GameAnswer("fails", "", values)


def _encoded(c: object, env: Mapping[str, object], ob: Obligation) -> z3.ExprRef:
    enc = c.encoder(env)  # type: ignore[attr-defined]
    result: z3.ExprRef = enc.encode(ob.expr).holds
    return result
