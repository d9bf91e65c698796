"""``--all-cores`` for realizability: every minimal conflict, at whatever input shows it.

A set S of a function's ensures is a *conflict* when some valid, normal input has no
result satisfying all of S; it is *minimal* when every proper subset is realizable.
Different conflicts may need different inputs (one shows at ``x == 3``, another at
``x == 7``), so enumerating the cores at the first input found, as a consistency
question does, misses some, and the corrections computed from those are wrong.

The enumeration is MARCO over the ensures with realizability itself as the oracle
(``_realize_oracle``): a map solver proposes the largest unexplored subset; a
realizable one grows to a maximal realizable subset, whose complement is a minimal
correction; a conflict shrinks to a minimal one.  Shrinking starts cheap: the deletion
at the input the oracle found (quantifier-free, ``Question.minimal_core``); then each
member's removal is put to the oracle, and a removal that still conflicts (at another
input) moves the search to that input's core of the rest.  Every core keeps the input
that shows it, and its minimality models are at that input.

Every correction listed is re-decided: realizability of all the ensures without it
must come back ``realizable``, or it is not listed (an ``unknown`` says so).  The
limits are those of any enumeration (``--max-cores``, ``--enumeration-work``), and an
incomplete one says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import z3

from derivative._ast import Obligation
from derivative._errors import OperationalTimeout
from derivative._record import record
from derivative._values import Value
from derivative._walk import free_names

from ._context import CallScope, Clauses, Ctx
from ._cores import corrections, stopped
from ._encode import Encoder
from ._question import CoreResult, Member, Question
from ._realize_oracle import Decision, Oracle
from ._result import Core, Limit, Method
from ._shapes import conversion_facts
from ._terms import Term, literal, var
from ._wording import values_text
from ._z3util import Unsupported, current, true, work_done

Explain = Callable[[CoreResult, Question, Encoder, dict[str, Value]], str]


@record(frozen=False)
class _At:
    """The ensures at one fixed input: the question (quantifier-free) and its encoder."""

    input: dict[str, Value]
    q: Question
    enc: Encoder
    method: Method | None
    """How the input was found (the method of the conflicts shown there)."""

    def members(self, obs: Sequence[Obligation]) -> list[Member]:
        wanted = {id(o) for o in obs}
        return [m for m in self.q.members if id(m.ob) in wanted]


@record(frozen=False)
class _Found:
    core: CoreResult
    at: _At
    method: Method | None
    settled: bool
    """Every member's removal was decided realizable (minimal across inputs); when not,
    the core is still minimal at its input (``core.minimal``, what a certificate shows)
    and an ``unknown`` says a smaller conflict elsewhere was not ruled out."""


def all_unrealizable(
    ctx: Ctx, cl: Clauses, first: dict[str, Value], method: Method, explain: Explain
) -> bool:
    """Every minimal conflict of ``cl.ensures`` and the verified corrections; False when
    none was recorded (the question's set-up is missing, or not even the core at
    ``first`` could be confirmed): the caller then records the core at ``first``."""
    rz = ctx.realizing
    if rz is None or rz.owner != cl.owner.name:
        return False
    run = _Enumeration(ctx, cl, Oracle(ctx, cl, rz), explain)
    return run.search(first, method) > 0


class _Enumeration:
    """One function's MARCO over its ensures (see the module docstring)."""

    def __init__(self, ctx: Ctx, cl: Clauses, oracle: Oracle, explain: Explain) -> None:
        self.ctx = ctx
        self.cl = cl
        self.obs = list(cl.ensures)
        self.oracle = oracle
        self.explain = explain
        self.name = f"{cl.owner.name} realizability"
        self.unsure: list[tuple[str, tuple[Limit, ...]]] = []
        """Why a core may not be minimal or an input was rejected (reason, limits)."""
        self.conflicts: list[tuple[frozenset[int], Decision]] = []
        """Subsets decided conflicts, with the decision that shows each (and its input)."""
        self.realizable: list[frozenset[int]] = []
        """Subsets decided realizable."""
        self.inputs: dict[str, _At | None] = {}
        """The questions at the inputs met so far, by their text."""

    # ------------------------------------------------------------------ the search

    def search(self, first: dict[str, Value], method: Method) -> int:
        """Run MARCO from the conflict at ``first``; how many cores were recorded."""
        ctx, obs = self.ctx, self.obs
        opts = ctx.options
        env = current()
        mapper = z3.SolverFor("QF_FD", ctx=env.ctx)
        mapper.set("random_seed", 0)
        mapper.set("phase", "always_true")
        work_start = work_done(mapper)
        marks = [z3.Bool(f"rmap!{i}", ctx=env.ctx) for i in range(len(obs))]
        found: list[_Found] = []
        mcses: list[list[int]] = []
        pending: Decision | None = Decision("conflict", first, method)
        complete, stop = False, None
        start = time.monotonic()
        while True:
            if len(found) >= opts.max_cores:
                stop = Limit("max cores", opts.max_cores, "--max-cores", "cores per function")
                break
            if work_done(mapper) - work_start > opts.enumeration_work:
                stop = Limit(
                    "enumeration work",
                    opts.enumeration_work,
                    "--enumeration-work",
                    "Z3 resource units per function",
                )
                break
            if time.monotonic() - start > opts.enumeration_seconds:
                raise OperationalTimeout(
                    f"the enumeration of cores ran into its wall-clock safety limit of "
                    f"{opts.enumeration_seconds:g} s before its deterministic bound (the "
                    "machine is overloaded); run it again"
                )
            if mapper.check() != z3.sat:
                complete = True
                break
            model = mapper.model()
            seed = [i for i, mk in enumerate(marks) if not z3.is_false(model.eval(mk))]
            d = pending if pending is not None else self._decide(seed)
            pending = None
            if d.verdict == "conflict":
                got = self._shrink(seed, d)
                if got is None:
                    break
                found.append(got)
                ids = self._indices(got.core.members)
                mapper.add(z3.Or([z3.Not(marks[i]) for i in ids]))
            elif d.verdict == "realizable":
                kept = self._grow(seed)
                if kept is None:
                    break
                mcs = [i for i in range(len(obs)) if i not in kept]
                if not mcs:  # everything realizable: cannot happen after a conflict
                    complete = True
                    break
                mcses.append(mcs)
                mapper.add(z3.Or([marks[i] for i in mcs]))
            else:
                self.unsure.append((d.reason, d.limits))
                break
        return self._record(found, mcses, complete, stop)

    def _decide(self, ids: Sequence[int]) -> Decision:
        """``Oracle.decide`` of the ensures ``ids``, without asking it when the answer is
        already known: a superset of a conflict conflicts at the same input, a subset of
        a realizable set is realizable, and a set unsatisfiable at an input met before
        conflicts there (a quantifier-free check; that input is valid and normal)."""
        chosen = frozenset(ids)
        for known, d in self.conflicts:
            if known <= chosen:
                return d
        if any(chosen <= known for known in self.realizable):
            return Decision("realizable")
        subset = [self.obs[i] for i in ids]
        for at in self.inputs.values():
            if at is not None and at.q.check(at.members(subset)).verdict == "unsat":
                d = Decision("conflict", at.input, at.method)
                self.conflicts.append((chosen, d))
                return d
        d = self.oracle.decide(subset)
        if d.verdict == "conflict":
            self.conflicts.append((chosen, d))
        elif d.verdict == "realizable":
            self.realizable.append(chosen)
        return d

    def _indices(self, members: Sequence[Member]) -> list[int]:
        pos = {id(o): i for i, o in enumerate(self.obs)}
        return sorted(pos[id(m.ob)] for m in members)

    def _shrink(self, seed: list[int], d: Decision) -> _Found | None:
        """A minimal conflict inside ``seed`` (which conflicts at ``d.input``); None when
        not even the core at that input could be confirmed."""
        assert d.input is not None
        at = self._at(d.input, d.method)
        if at is None:
            return None
        core = at.q.minimal_core(at.members([self.obs[i] for i in seed]))
        if core is None:
            self.unsure.append((f"{at.q.name}: the conflict could not be re-derived", ()))
            return None
        method = d.method
        necessary: set[int] = set()
        doubtful: set[int] = set()
        """Members kept because their removal was not decided: the core may not be minimal."""
        while True:
            ids = self._indices(core.members)
            todo = [i for i in ids if i not in necessary]
            if not todo:
                break
            i = todo[0]
            rest = [self.obs[k] for k in ids if k != i]
            e = self._decide([k for k in ids if k != i])
            if e.verdict == "conflict":
                assert e.input is not None
                there = self._at(e.input, e.method)
                smaller = None if there is None else there.q.minimal_core(there.members(rest))
                if there is not None and smaller is not None:
                    at, core, method = there, smaller, e.method
                    continue
                doubtful.add(i)  # a smaller conflict exists but was not confirmed
            elif e.verdict == "unknown":
                self.unsure.append((e.reason, e.limits))
                doubtful.add(i)
            necessary.add(i)
        settled = not doubtful & set(self._indices(core.members))
        return _Found(core, at, method, settled)

    def _grow(self, seed: list[int]) -> set[int] | None:
        """A maximal realizable subset containing ``seed`` (realizable), None if a
        question was undecided."""
        kept = set(seed)
        for i in range(len(self.obs)):
            if i in kept:
                continue
            d = self._decide(sorted(kept | {i}))
            if d.verdict == "unknown":
                self.unsure.append((d.reason, d.limits))
                return None
            if d.verdict == "realizable":
                kept.add(i)
        return kept

    # ------------------------------------------------------------------ one input

    def _at(self, values: dict[str, Value], method: Method | None) -> _At | None:
        """The ensures at the input ``values``, once the evaluator accepts it as a valid,
        normal call (None, noted, when it does not); built once per input."""
        key = values_text(values)
        if key not in self.inputs:
            self.inputs[key] = self._build_at(values, method)
        return self.inputs[key]

    def _build_at(self, values: dict[str, Value], method: Method | None) -> _At | None:
        cl, ev = self.cl, self.ctx.evaluator
        if any(ev.holds(o.expr, values) is not True for o in cl.requires) or any(
            ev.holds(o.expr, values) is True for o in cl.raises
        ):
            self.unsure.append(("the evaluator rejects the solver's input (an encoding bug)", ()))
            return None
        owner = cl.owner
        inputs = {n: Term(literal(values[n], t), true(), t) for n, t, _ in owner.params}
        result = var("result", owner.returns) if owner.has_result else None
        scope = CallScope(inputs, result)
        enc = self.ctx.encoder(scope.env)
        variables = {} if result is None else {"result": (result.value, result.ty)}
        q = self.ctx.question(
            f"{owner.name} at {values_text(values)}",
            cl.ensures,
            lambda ob: enc.encode(ob.expr).holds,
            scope.background(),
            variables,
        )
        for every in (False, True):
            # As in ``_unrealizable``: text-integer conversions may need their facts.
            facts = conversion_facts([*scope.background(), *(m.formula for m in q.members)], every)
            if q.check().verdict != "unknown" or not facts:
                break
            q = self.ctx.question(
                q.name,
                cl.ensures,
                lambda ob: enc.encode(ob.expr).holds,
                [*scope.background(), *facts],
                variables,
            )
        return _At(values, q, enc, method)

    # ------------------------------------------------------------------ the report

    def _record(
        self, found: list[_Found], mcses: list[list[int]], complete: bool, stop: Limit | None
    ) -> int:
        """The cores (in spec order), the notes on what is not certain, and the verified
        corrections; how many cores were listed."""
        ctx = self.ctx
        found.sort(key=lambda f: self._indices(f.core.members))
        listed = [f for f in found if self._from_free(f)]
        for f in listed:
            ctx.cores.append(self._core(f))
        limits: tuple[Limit, ...]
        if not complete:
            if stop is not None:
                reason, limits = stopped(stop), (stop,)
            elif self.unsure:
                reason = "the enumeration of cores stopped: " + self.unsure[-1][0]
                limits = self.unsure[-1][1]
            else:
                reason, limits = stopped(None), ()
            ctx.unknown(
                f"{self.name} (all cores)",
                self.obs,
                reason + "; the cores and corrections listed are real but there may be more",
                limits=limits,
            )
        for f in listed:
            if not f.settled:
                why, bounds = self.unsure[0] if self.unsure else ("undecided", ())
                ctx.unknown(
                    f"{self.name} (minimality)",
                    [m.ob for m in f.core.members],
                    "minimal at its input, but a smaller conflict inside it at another input "
                    "could not be ruled out: " + why,
                    limits=bounds,
                )
        if listed and len(listed) == len(found):
            # (a conflict left unlisted is not proven: then no correction is claimed)
            order = {id(o): i for i, o in enumerate(self.obs)}
            mcs_obs = [[self.obs[i] for i in mcs] for mcs in sorted(mcses)]
            corrections(ctx, order, self.cl.owner.name, [mcs_obs], self._verify)
        return len(listed)

    def _verify(self, dropped: Sequence[Obligation]) -> tuple[bool, str, tuple[Limit, ...]]:
        """Realizability of every ensures but ``dropped``, decided again."""
        gone = {id(o) for o in dropped}
        d = self.oracle.decide([o for o in self.obs if id(o) not in gone])
        if d.verdict == "realizable":
            return True, "", ()
        if d.verdict == "conflict":
            assert d.input is not None
            return False, f"a conflict remains at the input {values_text(d.input)}", ()
        return False, d.reason, d.limits

    def _from_free(self, f: _Found) -> bool:
        """Whether the conflict is independent of ``from op`` parameters (as in
        ``_unrealizable``: which values ``op`` returns is not check's to decide)."""
        params = self.cl.owner.from_params
        if not params:
            return True
        used: set[str] = set()
        for o in [*self.cl.requires, *self.cl.raises, *(m.ob for m in f.core.members)]:
            used |= free_names(o.expr)
        if not used & set(params):
            return True
        self.ctx.unknown(
            f.at.q.name,
            [m.ob for m in f.core.members],
            f"the conflict depends on the value of {', '.join(params)}, which only "
            "earlier operations supply; check does not decide which values they return",
        )
        return False

    def _core(self, f: _Found) -> Core:
        r, at = f.core, f.at
        names = sorted(set().union(*(m.names for m in r.members)))
        minimality: list[tuple[str, Mapping[str, Value]]] = []
        try:
            for m, model in r.models:
                values = at.q.values(model, names)
                values = {
                    k: v for k, v in values.items() if k not in at.input or at.input[k] != v
                }
                minimality.append((m.ob.id, values))
        except Unsupported:
            minimality = []
        return Core(
            kind="unrealizable",
            subject=self.cl.owner.name,
            members=tuple(m.ob for m in r.members),
            explanation=self.explain(r, at.q, at.enc, at.input),
            witness_input=at.input,
            minimality=tuple(minimality),
            minimal=r.minimal and len(minimality) == len(r.members),
            rechecked=r.rechecked,
            method=f.method,
        )
