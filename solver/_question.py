"""One question to Z3: an incremental solver with one assumption literal per obligation.

Every obligation of a question is asserted as ``lit → formula``; checking a subset
means assuming its literals.  That makes the three things we need cheap and exact:

- **cores by deletion** (ARCHITECTURE.md §4): start from Z3's unsat core, drop one
  member at a time and re-check with the *same* solver; a member whose removal makes
  the rest satisfiable is necessary, and that model is exactly its minimality model
  (every other member holds there).  Z3's own ``core.minimize`` is not trusted
  (PRIOR_ART.md "Solvers"), and the final core is re-checked in a fresh solver.
- **all cores** (``--all-cores``): members are split into independent components
  (obligations that share no variable cannot conflict with each other), then each
  component is enumerated MARCO-style with a propositional map solver over the
  literals, giving every minimal core and every minimal correction set, within a
  bound and a time budget.
- **unknown is an answer**: a check that hits the resource limit says so with Z3's
  reason, and nothing downstream turns it into sat or unsat.

Obligations whose expression cannot be encoded exactly are left out of the solver
and remembered: an ``unsat`` without them is still a proof (fewer constraints), a
``sat`` is then only ``unknown``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

import z3

from derivative._ast import Obligation
from derivative._types import Ty
from derivative._values import Value
from derivative._walk import free_names
from derivative.solver._encode import from_model
from derivative.solver._z3util import Unsupported, Z, ctx, fresh_name, implies, make_solver

Verdict: TypeAlias = Literal["sat", "unsat", "unknown"]

@dataclass
class Member:
    """An obligation as this question reads it: ``lit → formula``."""

    ob: Obligation
    formula: Z
    names: frozenset[str]
    lit: Z = field(default=None)

    def __post_init__(self) -> None:
        if self.lit is None:
            self.lit = _bool_const(fresh_name(self.ob.id))


def _bool_const(name: str) -> Z:
    """``z3.Bool(name)`` without z3py's per-call sort and argument checks (hot path)."""
    c = ctx()
    sort = z3.BoolSort(c)
    return z3.BoolRef(z3.Z3_mk_const(c.ref(), z3.to_symbol(name, c), sort.ast), c)


def _assert_guarded(solver: Z, lit: Z, formula: Z) -> None:
    """``solver.add(implies(lit, formula))`` through Z3's C API for ordinary terms.

    The same term is built and asserted in the same order; only z3py's argument
    coercions (no-ops for two Boolean terms of the solver's context) are skipped.
    """
    c = solver.ctx
    if (
        isinstance(formula, z3.BoolRef)
        and formula.ctx is c
        and lit.ctx is c
        and not z3.is_true(formula)
    ):
        term = z3.Z3_mk_implies(c.ref(), lit.as_ast(), formula.as_ast())
        z3.Z3_inc_ref(c.ref(), term)
        try:
            z3.Z3_solver_assert(c.ref(), solver.solver, term)
        finally:
            z3.Z3_dec_ref(c.ref(), term)
        return
    solver.add(implies(lit, formula))


@dataclass(frozen=True)
class Answer:
    """``model`` is the model when sat, and the set of core literal ids when unsat."""

    verdict: Verdict
    model: Z = None
    reason: str = ""


@dataclass(frozen=True)
class CoreResult:
    members: tuple[Member, ...]
    models: tuple[tuple[Member, Z], ...]
    minimal: bool
    rechecked: bool


def _reason(solver: Z) -> str:
    why = str(solver.reason_unknown())
    if why in ("canceled", "max. resource limit exceeded", "resource limit exceeded"):
        return f"resource limit reached ({why}); raise --rlimit to try harder"
    if why == "timeout":
        return "wall-clock safety timeout reached; raise --timeout to try harder"
    return why or "Z3 gave up"


class Question:
    """An incremental solver over ``members`` and hard ``background`` constraints."""

    def __init__(
        self,
        name: str,
        members: Sequence[Member],
        background: Iterable[Z],
        variables: Mapping[str, tuple[Z, Ty]],
        rlimit: int,
        timeout_ms: int,
        unencodable: Sequence[tuple[Obligation, str]] = (),
    ) -> None:
        self.name = name
        self.members = list(members)
        self.background = list(background)
        self.variables = dict(variables)
        self.rlimit = rlimit
        self.timeout_ms = timeout_ms
        self.unencodable = list(unencodable)
        self.solver = self._fresh()
        for m in self.members:
            _assert_guarded(self.solver, m.lit, m.formula)

    def _fresh(self) -> Z:
        s = make_solver(self.rlimit, self.timeout_ms)
        for b in self.background:
            s.add(b)
        return s

    # ------------------------------------------------------------------ checking

    def check(self, members: Iterable[Member] | None = None, extra: Sequence[Z] = ()) -> Answer:
        """Satisfiability of ``members`` (default: all) plus ``extra`` hard constraints."""
        chosen = self.members if members is None else list(members)
        s = self.solver
        if extra:
            s.push()
            for e in extra:
                s.add(e)
        try:
            r = s.check(*[m.lit for m in chosen])
            if r == z3.sat:
                return Answer("sat", s.model())
            if r == z3.unsat:
                core = {c.get_id() for c in s.unsat_core()}
                return Answer("unsat", core)
            return Answer("unknown", None, _reason(s))
        finally:
            if extra:
                s.pop()

    def check_eliminating(self, extra: Sequence[Z]) -> Answer:
        """All members and ``extra`` after quantifier elimination (Z3's ``qe`` tactic).

        A second, complete route for linear integer and real arithmetic, where the
        default solver's quantifier instantiation can answer "incomplete quantifiers".
        """
        s = z3.Then("qe", "smt", ctx=ctx()).solver()
        s.set("random_seed", 0)
        s.set("rlimit", self.rlimit)
        s.set("timeout", self.timeout_ms)
        for b in self.background:
            s.add(b)
        for m in self.members:
            s.add(m.formula)
        for e in extra:
            s.add(e)
        try:
            r = s.check()
        except z3.Z3Exception as exc:  # a tactic that does not apply to this fragment
            return Answer("unknown", None, f"quantifier elimination failed: {exc}")
        if r == z3.sat:
            return Answer("sat", s.model())
        if r == z3.unsat:
            return Answer("unsat", set())
        return Answer("unknown", None, _reason(s))

    def values(self, model: Z, names: Iterable[str] | None = None) -> dict[str, Value]:
        """The model's values of the question's variables (all, or ``names``)."""
        wanted = (
            self.variables
            if names is None
            else {n: self.variables[n] for n in names if n in self.variables}
        )
        return {n: from_model(model, term, ty) for n, (term, ty) in wanted.items()}

    # ------------------------------------------------------------------ cores

    def minimal_core(
        self, start: Iterable[Member] | None = None, extra: Sequence[Z] = ()
    ) -> CoreResult | None:
        """A minimal unsatisfiable subset of ``start`` (default: all members), or None.

        None means ``start`` is not (provably) unsatisfiable.
        """
        first = self.check(start, extra)
        if first.verdict != "unsat":
            return None
        in_core: set[int] = first.model
        pool = [m for m in (self.members if start is None else start) if m.lit.get_id() in in_core]
        necessary: list[Member] = []
        models: list[tuple[Member, Z]] = []
        minimal = True
        while pool:
            candidate = pool.pop(0)
            ans = self.check(necessary + pool, extra)
            if ans.verdict == "unsat":
                # Clause-set refinement: the new core may drop more than one member.
                pool = [m for m in pool if m.lit.get_id() in ans.model]
            elif ans.verdict == "sat":
                necessary.append(candidate)
                models.append((candidate, ans.model))
            else:
                necessary.append(candidate)
                minimal = False
        order = {id(m): i for i, m in enumerate(self.members)}
        necessary.sort(key=lambda m: order.get(id(m), 0))
        return CoreResult(tuple(necessary), tuple(models), minimal, self.recheck(necessary, extra))

    def recheck(self, members: Sequence[Member], extra: Sequence[Z] = ()) -> bool:
        """Whether ``members`` are unsatisfiable in a fresh solver, asserted directly."""
        s = self._fresh()
        for m in members:
            s.add(m.formula)
        for e in extra:
            s.add(e)
        return bool(s.check() == z3.unsat)

    # ------------------------------------------------------------------ all cores

    def components(self, members: Sequence[Member] | None = None) -> list[list[Member]]:
        """Members grouped by shared variables: different groups cannot conflict."""
        pool = list(self.members if members is None else members)
        parent = list(range(len(pool)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        seen: dict[str, int] = {}
        for i, m in enumerate(pool):
            for n in m.names:
                if n in seen:
                    parent[find(i)] = find(seen[n])
                else:
                    seen[n] = i
        groups: dict[int, list[Member]] = {}
        for i, m in enumerate(pool):
            groups.setdefault(find(i), []).append(m)
        return list(groups.values())

    def enumerate(
        self,
        members: Sequence[Member],
        max_cores: int,
        seconds: float,
        extra: Sequence[Z] = (),
    ) -> tuple[list[CoreResult], list[list[Member]], bool]:
        """MARCO over ``members``: (minimal cores, minimal correction sets, complete?)."""
        start = time.monotonic()
        mapper = z3.Solver(ctx=ctx())
        mapper.set("random_seed", 0)
        marks = {id(m): z3.Bool(f"map!{i}", ctx()) for i, m in enumerate(members)}
        cores: list[CoreResult] = []
        corrections: list[list[Member]] = []
        while True:
            if len(cores) >= max_cores or time.monotonic() - start > seconds:
                return cores, corrections, False
            if mapper.check() != z3.sat:
                return cores, corrections, True
            model = mapper.model()
            # Seeds lean towards "take everything": unassigned marks count as true.
            seed = [m for m in members if not z3.is_false(model.eval(marks[id(m)]))]
            ans = self.check(seed, extra)
            if ans.verdict == "sat":
                grown = self._grow(seed, members, extra)
                if grown is None:
                    return cores, corrections, False
                rest = [m for m in members if m not in grown]
                if not rest:
                    return cores, corrections, True
                corrections.append(rest)
                mapper.add(z3.Or([marks[id(m)] for m in rest]))
            elif ans.verdict == "unsat":
                core = self.minimal_core(seed, extra)
                if core is None or not core.members:
                    return cores, corrections, False
                cores.append(core)
                mapper.add(z3.Or([z3.Not(marks[id(m)]) for m in core.members]))
            else:
                return cores, corrections, False

    def _grow(
        self, seed: list[Member], members: Sequence[Member], extra: Sequence[Z]
    ) -> list[Member] | None:
        current = list(seed)
        for m in members:
            if m in current:
                continue
            ans = self.check([*current, m], extra)
            if ans.verdict == "sat":
                current.append(m)
            elif ans.verdict == "unknown":
                return None
        return current


def names_of(ob: Obligation) -> frozenset[str]:
    """The variables an obligation reads (``result`` included), for components."""
    names = set(free_names(ob.expr))
    if any(n.kind == "result" for n in _walk(ob)):
        names.add("result")
    return frozenset(names)


def _walk(ob: Obligation) -> Iterable[Z]:
    from derivative._walk import walk

    return walk(ob.expr)


def try_encode(
    obligations: Iterable[Obligation],
    build: Callable[[Obligation], Z],
    names: Callable[[Obligation], frozenset[str]] = names_of,
) -> tuple[list[Member], list[tuple[Obligation, str]]]:
    """Members for the obligations that encode, and (obligation, reason) for the rest."""
    members: list[Member] = []
    failed: list[tuple[Obligation, str]] = []
    for ob in obligations:
        try:
            members.append(Member(ob, build(ob), names(ob)))
        except Unsupported as exc:
            failed.append((ob, str(exc)))
    return members, failed
