"""Solver-chosen inputs: triggers solved, range edges, near misses of regexes (``plan_for``).

Random inputs rarely land on ``len(password) == 12`` or inside a narrow ``raises``
condition, so Z3 computes one input per trigger (``_triggers``), once, and the engine
and the generated pytest module feed them as explicit examples.  A trigger that Z3
proves impossible under the owner's ``requires`` and parameter types is *vacuous*
(nothing to exercise); one it cannot decide is *unknown* and is left to random inputs.
Valid inputs near a seed come from ``Space`` (``_space``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import field
from typing import Final

import z3

from derivative._ast import Call, Compare, IntLit, Name, Obligation, StrLit
from derivative._canon import contract_identity
from derivative._printer import to_source
from derivative._record import record
from derivative._typecheck import TypeInfo
from derivative._types import TInt
from derivative._walk import free_names, walk

from ._construct import construct, int_constants, is_sequence
from ._space import Admits, Space, input_key, to_candidate_space
from ._triggers import Trigger, TriggerStatus, find_triggers
from ._z3util import Unsupported

__all__ = [
    "Plan",
    "Space",
    "Trigger",
    "TriggerStatus",
    "clear_cache",
    "plan_for",
    "to_candidate_space",
]


@record(frozen=False)
class Plan:
    """What the solver computed once for one owner: its triggers and explicit inputs."""

    owner: str
    triggers: list[Trigger] = field(default_factory=list)
    inputs: list[dict[str, object]] = field(default_factory=list)
    """Solver-chosen valid inputs (one per possible trigger, deduplicated), then the
    examples' inputs; in the language's representation with reals as floats."""
    origins: list[str] = field(default_factory=list)
    """Why each of ``inputs`` is there, when not for a trigger (an example, a range edge)."""
    pool: list[dict[str, object]] = field(default_factory=list)
    """A few distinct valid inputs (blocking clauses): the fallback of ``Space.near``."""
    encodable: bool = True
    reason: str | None = None
    unknowns: list[str] = field(default_factory=list)

    def triggers_of(self, obligation_id: str) -> list[Trigger]:
        return [t for t in self.triggers if t.obligation == obligation_id]


_MISS_CHARS: Final = (" ", "+", "-", "_", "\n", "\u0663", "a")
"""Characters that make a near miss of a regex where Python is lenient: ``int(" 5")``,
``int("+5")``, ``int("-5")``, ``int("1_0")``, ``int("5")`` followed by a newline and the
ARABIC-INDIC DIGIT THREE are all numbers to Python, and Python's ``\\d`` without
``re.ASCII`` matches that digit too."""


def _near_misses(
    info: TypeInfo, owner: str, space: Space, known: Sequence[Mapping[str, object]]
) -> Iterator[tuple[dict[str, object], str]]:
    """Inputs one character away from matching a ``matches(p, RE)`` of the owner.

    For each such call on a string parameter ``p``: take a known valid input whose
    ``p`` matches, and put one of ``_MISS_CHARS`` before, after or inside it.  These
    sit just outside the regex, where an implementation that leans on ``int()``,
    ``str.isdigit()`` or ``.strip()`` instead of the exact regex goes wrong.  No solver
    is needed; every candidate must still be a valid input (``admits``).
    """
    from derivative._regex import fullmatch

    params = {n for n, _ in space.params}
    seen: set[tuple[str, str]] = set()
    for o in info.contract.obligations_of(owner):
        for n in walk(o.expr):
            if not (isinstance(n, Call) and n.func == "matches" and len(n.args) == 2):
                continue
            subject, pattern = n.args
            if not (isinstance(subject, Name) and subject.id in params
                    and isinstance(pattern, StrLit)):
                continue
            key = (subject.id, pattern.value)
            if key in seen:
                continue
            seen.add(key)
            base_input = next(
                (dict(i) for i in known
                 if isinstance(i.get(subject.id), str)
                 and fullmatch(pattern.value, str(i[subject.id]))),
                None,
            )
            if base_input is None:
                continue
            member = str(base_input[subject.id])
            for ch in _MISS_CHARS:
                for text in (ch + member, member + ch, member[:1] + ch + member[1:]):
                    if fullmatch(pattern.value, text):
                        continue
                    candidate = dict(base_input)
                    candidate[subject.id] = text
                    if space.admits(candidate):
                        yield candidate, f"a near miss of {to_source(pattern)}"
                        break


# --------------------------------------------------------------------------- planning

_PLANS: dict[tuple[str, str], Plan] = {}
_SPACES: dict[tuple[str, str], Space] = {}


def clear_cache() -> None:
    _PLANS.clear()
    _SPACES.clear()


def space_for(info: TypeInfo, owner: str, admits: Admits) -> Space:
    """The (cached) input space of ``owner``; ``admits`` is the oracle's validity test."""
    key = (contract_identity(info.contract), owner)
    if key not in _SPACES:
        _SPACES[key] = Space(info, owner, admits)
    return _SPACES[key]


def plan_for(
    info: TypeInfo,
    owner: str,
    admits: Admits,
    example_inputs: Sequence[dict[str, object]] = (),
) -> Plan:
    """Triggers and solver-chosen inputs of ``owner``; computed once per contract.

    ``admits(input) -> bool`` is the oracle's validity test (the evaluator's reading
    of the requires and types): a model it refuses is not used.
    """
    # Each space has its own Z3 context (``Space.env``): in Z3's shared main context
    # the inputs chosen for a contract changed with whatever ran earlier in the process.
    key = (contract_identity(info.contract), owner)
    if key in _PLANS:
        return _PLANS[key]
    space = space_for(info, owner, admits)
    with space.z3():  # the space's own Z3 context: the plan never depends on other work
        plan = _plan(info, owner, space, example_inputs)
    _PLANS[key] = plan
    return plan


def _plan(info: TypeInfo, owner: str, space: Space,
          example_inputs: Sequence[dict[str, object]]) -> Plan:
    """The body of ``plan_for``, in the space's Z3 context."""
    plan = Plan(owner, encodable=space.encodable, reason=space.reason)
    plan.triggers = find_triggers(info, owner, info.contract.obligations_of(owner))
    raises = [o for o in info.contract.obligations_of(owner) if o.kind == "raises"]
    solved: dict[str, Solved] = {}
    keep = _keeper(plan, space)
    builder = _Builder(info, owner, space, plan)
    for t in plan.triggers:
        if not space.encodable:
            t.status, t.reason = "unknown", space.reason
            continue
        cache_key = f"{t.kind}:{t.description}:" + ";".join(to_source(c) for c in t.context)
        if cache_key in solved and t.kind != "raises":
            status, values = solved[cache_key]
        else:
            try:
                cond = space.encode(t.expr)
            except (Unsupported, z3.Z3Exception) as exc:
                t.status, t.reason = "unknown", str(exc)
                plan.unknowns.append(f"{t.obligation}: {t.description}: {exc}")
                continue
            status, values = _solve(t, cond, space, raises, builder)
            solved[cache_key] = (status, values)
        if status == "sat":
            t.status, t.input = "possible", values
            if values is not None and builder.made(values):
                t.reason = "built directly, not solved"
            keep(values)
        elif status == "unsat":
            t.status = "vacuous"
        else:
            t.status = "unknown"
            plan.unknowns.append(f"{t.obligation}: {t.description}: the solver could not decide")
    for values in example_inputs:
        keep(dict(values), "an example's input")
    if space.encodable:
        _range_edges(space, keep)
    plan.pool = space.pool()
    _built(builder, plan, keep)
    for values, origin in _near_misses(info, owner, space, [*plan.inputs, *plan.pool]):
        keep(values, origin)
    return plan


Solved = tuple[str, "dict[str, object] | None"]
CASE_LENGTHS: Final = (2, 3, 4, 5, 1, 0)
"""The lengths a trigger over a list or string is tried at when the open length is
undecided (``_staged``): the small cases first where most quantified conditions differ."""


def _solve(t: Trigger, cond: z3.BoolRef, space: Space, raises: Sequence[Obligation],
           builder: _Builder) -> Solved:
    """One trigger: in its context first, then (``raises``) with the other raises
    conditions false, then alone.  Each step asks the solver briefly, then tries to build
    the input (``_construct``: sizes no solver reaches in its limit), then asks at length."""
    status: str = "unknown"
    values: dict[str, object] | None = None
    if t.context:
        try:
            ctx = [space.encode(c) for c in t.context]
            status, values = _staged(space, [cond, *ctx], lambda: builder.build(t, True),
                                     builder.lengths(t, True))
        except (Unsupported, z3.Z3Exception):
            status, values = "unknown", None
        if status != "sat":
            status, values = "unknown", None
    if status != "sat" and t.kind == "raises":
        others = []
        for o in raises:
            if o.id != t.obligation:
                with contextlib.suppress(Unsupported, z3.Z3Exception):
                    others.append(z3.Not(space.encode(o.expr)))
        if others:
            status, values = space.solve(cond, *others)
    if status != "sat":
        status, values = _staged(space, [cond], lambda: builder.build(t, False),
                                 builder.lengths(t, False))
    return status, values


def _staged(space: Space, extra: Sequence[z3.BoolRef],
            build: Callable[[], dict[str, object] | None],
            lengths: Sequence[z3.BoolRef] = ()) -> Solved:
    """The brief solvers; then the brief solvers with a list or string of each small
    length (``len(l) == 3``: a quantifier over a sequence of fixed length is a finite
    conjunction, which Z3 decides at once where the open length defeats it); then a built
    input; then the long solvers."""
    status, values = space.solve(*extra, part="quick")
    if status != "unknown":
        return status, values
    for fixed in lengths:
        status, values = space.solve(*extra, fixed, part="quick")
        if status == "sat":
            return status, values
    built = build()
    if built is not None:
        return "sat", built
    return space.solve(*extra, part="slow")


class _Builder:
    """Inputs built for triggers (``_construct``), from the valid inputs known so far."""

    def __init__(self, info: TypeInfo, owner: str, space: Space, plan: Plan) -> None:
        from derivative._eval import Evaluator

        self.info, self.space, self.plan = info, space, plan
        self.evaluator = Evaluator(info.const_values)
        self.requires = [o.expr for o in info.contract.obligations_of(owner)
                         if o.kind == "requires"]
        self.seqs = frozenset(n for n, ty in space.params if is_sequence(ty))
        self.built: list[dict[str, object]] = []

    def build(self, t: Trigger, in_context: bool) -> dict[str, object] | None:
        """An input hitting ``t`` (and its context when ``in_context``), or None."""
        context = t.context if in_context else ()
        if not self._names(t, in_context) & self.seqs:
            return None
        known = [*self.plan.inputs, *(self.plan.pool or self.space.pool())]
        constants = int_constants([t.expr, *context, *self.requires], self.info.const_values)
        ev = self.evaluator
        values = construct(t.expr, context, self.space.params, known, constants,
                           holds=lambda e, i: ev.holds(e, i) is True, admits=self.space.admits,
                           strict=in_context)
        if values is not None:
            self.built.append(values)
        return values

    def lengths(self, t: Trigger, in_context: bool) -> list[z3.BoolRef]:
        """``len(p) == k`` for each list or string ``p`` of ``t`` and ``k`` in
        ``CASE_LENGTHS`` (see ``_staged``)."""
        names = sorted(self._names(t, in_context) & self.seqs)
        out: list[z3.BoolRef] = []
        for p in names[:2]:
            for k in CASE_LENGTHS:
                with contextlib.suppress(Unsupported, z3.Z3Exception):
                    out.append(self.space.encode(Compare(ops=("==",), operands=(
                        Call(func="len", args=(Name(id=p),)), IntLit(value=k)))))
        return out

    def _names(self, t: Trigger, in_context: bool) -> set[str]:
        names = set(free_names(t.expr))
        for c in t.context if in_context else ():
            names |= free_names(c)
        return names

    def made(self, values: dict[str, object]) -> bool:
        return any(values is b for b in self.built)


def _built(builder: _Builder, plan: Plan, keep: Callable[..., None]) -> None:
    """Undecided triggers, built once more from every valid input the plan now has."""
    for t in [t for t in plan.triggers if t.status == "unknown"]:
        values = builder.build(t, False)
        if values is None:
            continue
        prefix = f"{t.obligation}: {t.description}: "
        plan.unknowns = [u for u in plan.unknowns if not u.startswith(prefix)]
        t.status, t.input, t.reason = "possible", values, "built directly, not solved"
        keep(values, f"built directly for {t.description}")


def _keeper(plan: Plan, space: Space) -> Callable[..., None]:
    """``keep(values, origin="")``: add an input to the plan unless it is there already."""
    seen_inputs: set[object] = set()

    def keep(values: dict[str, object] | None, origin: str = "") -> None:
        if values is None:
            return
        k = tuple(input_key(values.get(n)) for n, _ in space.params)
        if k not in seen_inputs:
            seen_inputs.add(k)
            plan.inputs.append(values)
            plan.origins.append(origin)

    return keep


def _range_edges(space: Space, keep: Callable[[dict[str, object] | None, str], None]) -> None:
    """The edges of declared ranges (``int in LO..HI``) are preconditions too."""
    for n, pty in space.params:
        if isinstance(pty, TInt):
            for edge in (pty.lo, pty.hi):
                if edge is None:
                    continue
                status, values = space.solve(space.vars[n].value == edge)
                if status == "sat":
                    keep(values, f"the edge {n} == {edge} of its declared range")
