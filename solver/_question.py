"""One question to Z3: an incremental solver with one assumption literal per obligation.

Every obligation of a question is asserted as ``lit → formula``; checking a subset
means assuming its literals.  That makes the three things we need cheap and exact:

- **cores by deletion** (docs/decisions.md): start from Z3's unsat core, drop one
  member at a time and re-check with an incremental solver (the question's own, or
  for a large question one holding just the core's members); a member whose
  removal makes the rest satisfiable is necessary, and that model is exactly its
  minimality model (every other member holds there).  Z3's own ``core.minimize`` is
  not trusted (it is a heuristic that may return a core that is not minimal, and it
  gives no model per member), and the final core is re-checked in a fresh
  solver, its members asserted directly.
- **all cores** (``--all-cores``): members are split into independent components
  (obligations that share no variable cannot conflict with each other), then each
  component is enumerated MARCO-style with a propositional map solver over the
  literals, giving every minimal core and every minimal correction set, within a
  bound and a time budget.  Every core found is deletion-minimal and re-checked in a
  fresh solver like any other (all of a component's cores at once when one fresh
  solver finds their disjunction unsat).
- **unknown is an answer**: a check that hits the resource limit says so, naming the
  limit and the flag that raises it (``Answer.limits``), and nothing downstream turns it
  into sat or unsat.  The limit grows with the question (``_limits``): a question
  asserting more constraints than ``RLIMIT_SCALE_SIZE`` gets proportionally more units.

Obligations whose expression cannot be encoded exactly are left out of the solver
and remembered: an ``unsat`` without them is still a proof (fewer constraints), a
``sat`` is then only ``unknown``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

import z3

from derivative._ast import Expr, Generator, ListComp, Obligation, Quantifier
from derivative._errors import OperationalTimeout
from derivative._record import record, replace
from derivative._types import Ty
from derivative._values import Value
from derivative._walk import children

from ._decode import from_model
from ._limits import reached, rlimit_of
from ._result import Limit
from ._z3util import (
    Unsupported,
    Z,
    Z3Env,
    ctx,
    current,
    fresh_name,
    implies,
    make_solver,
    safety_net,
    work_done,
)

Verdict: TypeAlias = Literal["sat", "unsat", "unknown"]

APART_MIN_MEMBERS = 256
"""A question with at least this many members ..."""
APART_RATIO = 8
"""... and this many times as many members as the core shrinks the core in a solver of
its own (``Question.minimal_core``)."""
PLAIN_MODEL_MIN = 20_000
"""A question asserting this many constraints or more reads a sat model from a plain copy
of itself (``Question.check_for_values``); below, the quadratic part costs nothing."""
SEEN_MODELS = 16
"""How many recent models an enumeration keeps to settle deletion steps without a
solver call (``Question.minimal_core``)."""


class Member:
    """An obligation as this question reads it: ``lit → formula``.

    Members compare by identity: each has its own assumption literal, so two members
    are the same member exactly when they are the same object (and comparing the
    obligations and Z3 terms field by field, as a dataclass would, is slow).
    ``names`` may be given as a function: it is then computed on first use (a large
    question that is consistent never needs the variables of its members).
    """

    __slots__ = ("_names", "_names_fn", "formula", "key", "lit", "ob")

    def __init__(
        self,
        ob: Obligation,
        formula: Z,
        names: frozenset[str] | Callable[[], frozenset[str]],
        lit: Z = None,
    ) -> None:
        self.ob = ob
        self.formula = formula
        if callable(names):
            self._names: frozenset[str] | None = None
            self._names_fn: Callable[[], frozenset[str]] | None = names
        else:
            self._names = names
            self._names_fn = None
        self.lit: Z = _bool_const(fresh_name(ob.id)) if lit is None else lit
        self.key: int = self.lit.ast.value
        """The literal's AST pointer: unique while the member lives (Z3 hash-conses),
        and how unsat cores name members without a foreign call per member."""

    @property
    def names(self) -> frozenset[str]:
        """The variables the member reads (for components and minimality models)."""
        if self._names is None:
            assert self._names_fn is not None
            self._names = self._names_fn()
            self._names_fn = None
        return self._names

    def __repr__(self) -> str:
        return f"Member({self.ob.id})"


def _bool_const(name: str) -> Z:
    """``z3.Bool(name)`` without z3py's per-call sort and argument checks (hot path)."""
    env = current()
    sym = z3.Z3_mk_string_symbol(env.ref, name)
    return z3.BoolRef(z3.Z3_mk_const(env.ref, sym, env.bool_sort.ast), env.ctx)


def _assert_direct(solver: Z, formula: Z) -> None:
    """``solver.add(formula)``, through the C API for a Boolean term of the solver's
    context (z3py's cast would be a no-op)."""
    env = current()
    if isinstance(formula, z3.BoolRef) and formula.ctx is env.ctx and solver.ctx is env.ctx:
        z3.Z3_solver_assert(env.ref, solver.solver, formula.ast)
    else:
        solver.add(formula)


def _assert_guarded(solver: Z, lit: Z, formula: Z) -> None:
    """``solver.add(implies(lit, formula))`` through Z3's C API for ordinary terms.

    The same term is built and asserted in the same order; only z3py's argument
    coercions (no-ops for two Boolean terms of the solver's context) are skipped.
    """
    env = current()
    c = solver.ctx
    if (
        isinstance(formula, z3.BoolRef)
        and formula.ctx is c
        and lit.ctx is c
        and c is env.ctx
        and env.literal_value(formula) is not True
    ):
        ref = env.ref
        term = z3.Z3_mk_implies(ref, lit.ast, formula.ast)
        z3.Z3_inc_ref(ref, term)
        try:
            z3.Z3_solver_assert(ref, solver.solver, term)
        finally:
            z3.Z3_dec_ref(ref, term)
        return
    solver.add(implies(lit, formula))


@record
class Answer:
    """``model`` is the model when sat, and the set of the core's member keys
    (``Member.key``) when unsat."""

    verdict: Verdict
    model: Z = None
    reason: str = ""
    limits: tuple[Limit, ...] = ()
    """For ``unknown``: the limits the check ran into (see ``_unknown``)."""


def _check_assuming(
    solver: Z, members: Iterable[Member], extra: Sequence[Z] = (), model: bool = True
) -> Answer:
    """``solver.check(*lits)`` of ``members`` (plus ``extra`` in a scope of its own).

    The assumption array is handed to Z3 directly: z3py would cast every literal
    through its sort first, a dozen foreign calls per member on large questions.  The
    unsat core is read back as AST pointers, which are the members' keys.  ``model``:
    read the model of a sat answer (else its ``model`` is None; see ``check_for_values``).
    """
    ref = solver.ctx.ref()
    lits = [m.lit.ast for m in members]
    if extra:
        solver.push()
        for e in extra:
            solver.add(e)
    try:
        started = time.monotonic()
        r = z3.Z3_solver_check_assumptions(
            ref, solver.solver, len(lits), (z3.Ast * len(lits))(*lits)
        )
        if r == z3.Z3_L_TRUE:
            return Answer("sat", solver.model() if model else None)
        if r == z3.Z3_L_FALSE:
            vector = z3.Z3_solver_get_unsat_core(ref, solver.solver)
            z3.Z3_ast_vector_inc_ref(ref, vector)
            try:
                core = {
                    z3.Z3_ast_vector_get(ref, vector, i).value
                    for i in range(z3.Z3_ast_vector_size(ref, vector))
                }
            finally:
                z3.Z3_ast_vector_dec_ref(ref, vector)
            return Answer("unsat", core)
        safety_net(started, getattr(solver, "timeout_ms", None), str(solver.reason_unknown()))
        return _unknown(solver)
    finally:
        if extra:
            solver.pop()


@record
class CoreResult:
    members: tuple[Member, ...]
    models: tuple[tuple[Member, Z], ...]
    minimal: bool
    rechecked: bool


RESOURCE_REASONS = frozenset(
    {"canceled", "max. resource limit exceeded", "resource limit exceeded"}
)
"""Z3's words for a check stopped by its rlimit (``canceled`` once ``safety_net`` has
ruled out the wall clock)."""


def _unknown(solver: Z) -> Answer:
    """Z3's ``unknown``, for a check that ``safety_net`` has already cleared of the wall
    clock: a resource limit names itself (the solver's ``limit``, set by the question
    that made it) and the flag that raises it; any other reason is Z3's own."""
    why = str(solver.reason_unknown())
    if why in RESOURCE_REASONS:
        limit: Limit | None = getattr(solver, "limit", None)
        if limit is None:  # a solver made outside a question: its own limit is all we know
            value = int(getattr(solver, "rlimit", 0))
            limit = Limit("rlimit", value, "--rlimit", f"--rlimit {value:,}")
        return Answer("unknown", None, reached(limit), (limit,))
    return Answer("unknown", None, why or "Z3 gave up")


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
        # A literal True constrains nothing: every fresh solver would assert it again
        # (one per integer param of a large sheet).
        env = current()
        self.background = [b for b in background if env.literal_value(b) is not True]
        self.variables = dict(variables)
        self.limit = rlimit_of(rlimit, len(self.members) + len(self.background))
        """The question's Z3 limit: ``rlimit`` (the ``--rlimit`` base) scaled by the
        number of constraints it asserts (``_limits``), for every solver it makes."""
        self.rlimit = self.limit.value
        self.base_rlimit = rlimit
        self.timeout_ms = timeout_ms
        self.unencodable = list(unencodable)
        self.solver = self._fresh()
        self._positions: dict[int, int] | None = None
        self._all_unsat: Answer | None = None
        """The answer "every member together is unsat" once known, with its core."""
        for m in self.members:
            _assert_guarded(self.solver, m.lit, m.formula)

    @property
    def all_unsat(self) -> Answer | None:
        """The unsat answer for every member together (no ``extra``), once ``check``
        has given it (with its core); None before, or if it was not unsat."""
        return self._all_unsat

    def _fresh(self, simple: bool = False) -> Z:
        s = make_solver(self.rlimit, self.timeout_ms, simple)
        s.limit = self.limit
        for b in self.background:
            _assert_direct(s, b)
        return s

    # ------------------------------------------------------------------ checking

    def check(self, members: Iterable[Member] | None = None, extra: Sequence[Z] = ()) -> Answer:
        """Satisfiability of ``members`` (default: all) plus ``extra`` hard constraints."""
        if members is None and not extra:
            ans = _check_assuming(self.solver, self.members)
            if ans.verdict == "unsat":
                self._all_unsat = ans
            return ans
        chosen = self.members if members is None else members
        return _check_assuming(self.solver, chosen, extra)

    def check_once(self, extra: Sequence[Z] = ()) -> Answer:
        """All members and ``extra`` in a new solver, asserted directly (no assumption
        literals, no push).

        Z3 runs its preprocessing (solving equations away, among others) only on a
        solver that has not been used incrementally; the string questions of
        ``_candidates`` (``s == p0 + "=" + p1`` and a term over ``p0``) are decided in
        milliseconds that way and not at all incrementally.
        """
        s = make_solver(self.rlimit, self.timeout_ms)
        s.limit = self.limit
        for b in self.background:
            _assert_direct(s, b)
        for m in self.members:
            s.add(m.formula)
        for e in extra:
            s.add(e)
        r = s.check()
        if r == z3.sat:
            return Answer("sat", s.model())
        if r == z3.unsat:
            return Answer("unsat", set())
        return _unknown(s)

    def check_for_values(self) -> Answer:
        """``check()`` of every member, for a caller that reads values from a sat model.

        The same answer, but a question asserting ``PLAIN_MODEL_MIN`` constraints or more
        takes its sat model from a plain solver holding the same constraints without
        literals: Z3 5.4 builds the model of a solver checked under assumptions in time
        quadratic in its size when variables are bounded by several members (6.5 s of a
        100,000-requirement check, against 3 s to solve the plain copy and 0.1 s for its
        model).  Should the plain solver not say sat, the question's own model is read.
        """
        if len(self.members) + len(self.background) < PLAIN_MODEL_MIN:
            return self.check()
        ans = _check_assuming(self.solver, self.members, model=False)
        if ans.verdict == "unsat":
            self._all_unsat = ans
        if ans.verdict != "sat":
            return ans
        plain = self._fresh()
        for m in self.members:
            _assert_direct(plain, m.formula)
        if plain.check() == z3.sat:
            return Answer("sat", plain.model())
        return self.check()

    def check_eliminating(self, extra: Sequence[Z]) -> Answer:
        """All members and ``extra`` after quantifier elimination (Z3's ``qe`` tactic).

        A second, complete route for linear integer and real arithmetic, where the
        default solver's quantifier instantiation can answer "incomplete quantifiers".
        """
        s = z3.Then("qe", "smt", ctx=ctx()).solver()
        s.set("random_seed", 0)
        s.set("rlimit", self.rlimit)
        s.set("timeout", self.timeout_ms)
        s.limit = self.limit
        for b in self.background:
            s.add(b)
        for m in self.members:
            s.add(m.formula)
        for e in extra:
            s.add(e)
        started = time.monotonic()
        try:
            r = s.check()
        except z3.Z3Exception as exc:  # a tactic that does not apply to this fragment
            return Answer("unknown", None, f"quantifier elimination failed: {exc}")
        if r == z3.sat:
            return Answer("sat", s.model())
        if r == z3.unsat:
            return Answer("unsat", set())
        safety_net(started, self.timeout_ms, str(s.reason_unknown()))
        return _unknown(s)

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
        self,
        start: Iterable[Member] | None = None,
        extra: Sequence[Z] = (),
        first: Answer | None = None,
        seen: list[Z] | None = None,
        recheck: bool = True,
        models: bool = True,
    ) -> CoreResult | None:
        """A minimal unsatisfiable subset of ``start`` (default: all members), or None.

        None means ``start`` is not (provably) unsatisfiable.  ``first``: the answer of
        checking exactly ``start`` with ``extra``, when the caller already has it.
        ``seen``: models of this question's solver under ``extra`` met so far (most
        recent first; the sat answers of the deletion are added): a deletion step whose
        remaining members all hold in one of them is satisfiable without asking the
        solver, and that model is the removed member's minimality model.  Only sat
        answers are taken from it, so the core is the one the solver alone would give.
        ``recheck=False`` leaves the re-check in a fresh solver to the caller
        (``rechecked`` is then False; see ``recheck_all``).  ``models=False``: the caller
        needs only the members (a warning's core), so the deletion's sat answers are not
        read as models (reading one costs more than the check of a small core) and the
        result's ``models`` is empty.

        The deletion starts from the unsat core of ``start`` and drops one member at a
        time (a member whose removal makes the rest satisfiable is necessary, and that
        model is its minimality model); a removal that stays unsat also drops every
        member outside the new core (clause-set refinement).  Where the steps run:

        - a question much larger than the core (``_apart``) shrinks in a solver of its
          own holding only the core's members (with the same literals) and the
          background, seeded with the core already known (``first``, or the remembered
          answer for every member): whether a subset of those is satisfiable does not
          depend on the other members, whose literals are simply not assumed, and each
          step then costs what the core costs, not what the whole question costs (at
          10,000 requirements, 50 ms a step in the question's solver against 1 ms);
        - any other question shrinks in its own solver: a second solver would not pay
          for itself there.  Without ``first`` it checks ``start`` again for the core
          to start from, as it always did, so that the models (and the reports and
          certificates that show them) stay the ones this sequence of checks has
          always given.
        """
        candidates = self.members if start is None else list(start)
        if first is None and start is None and not extra:
            known = self.all_unsat
            if known is not None and self._apart(len(known.model)):
                first = known
        if first is None:
            first = self.check(candidates, extra)
        if first.verdict != "unsat":
            return None
        in_core: set[int] = first.model
        pool = [m for m in candidates if m.key in in_core]
        if self._apart(len(pool)):
            solver = self._fresh()
            for e in extra:
                _assert_direct(solver, e)
            for m in pool:
                _assert_guarded(solver, m.lit, m.formula)
            scoped: Sequence[Z] = ()
        else:
            solver, scoped = self.solver, extra
        necessary, found, minimal = _deletion(solver, scoped, pool, seen, models)
        order = self._order()
        necessary.sort(key=lambda m: order.get(id(m), 0))
        rechecked = self.recheck(necessary, extra) if recheck else False
        return CoreResult(tuple(necessary), tuple(found), minimal, rechecked)

    def _order(self) -> dict[int, int]:
        """Each member's position (by identity), to give cores in the question's order;
        built once (a large question's warnings ask for it per core)."""
        if self._positions is None or len(self._positions) != len(self.members):
            self._positions = {id(m): i for i, m in enumerate(self.members)}
        return self._positions

    def restricted(self, members: Sequence[Member]) -> Question:
        """The same question over ``members`` only (same literals, background and limits).

        Whether a subset of ``members`` is satisfiable does not depend on the members
        left out, so cores searched here are cores of this question; each check then
        costs what those members cost.
        """
        return Question(
            self.name,
            members,
            self.background,
            self.variables,
            self.base_rlimit,  # scaled again, to the restricted question's own size
            self.timeout_ms,
            self.unencodable,
        )

    def _apart(self, core_size: int) -> bool:
        """Whether a core of this size is shrunk in a solver of its own (see
        ``minimal_core``): the question has at least ``APART_MIN_MEMBERS`` members and
        ``APART_RATIO`` times as many as the core."""
        n = len(self.members)
        return n >= APART_MIN_MEMBERS and n >= APART_RATIO * core_size

    def recheck(self, members: Sequence[Member], extra: Sequence[Z] = ()) -> bool:
        """Whether ``members`` are unsatisfiable in a fresh solver, asserted directly.

        First in a fresh plain SMT solver (``SimpleSolver``: a fifth of the set-up
        cost of the default solver, which matters when every core of an enumeration
        is re-checked); a core it does not find unsat goes to a fresh default solver
        (with its logic-specific tactics) as well, so the answer is never weaker than
        that solver's.
        """
        for simple in (True, False):
            s = self._fresh(simple)
            for f in [*(m.formula for m in members), *extra]:
                _assert_direct(s, f)
            if s.check() == z3.unsat:
                return True
        return False

    def recheck_all(self, cores: Sequence[Sequence[Member]], extra: Sequence[Z] = ()) -> list[bool]:
        """``recheck`` of every core, with one fresh solver for all of them when it can.

        The disjunction of the cores (each the conjunction of its members' formulas)
        is unsatisfiable exactly when every core is: one fresh solver that finds the
        disjunction unsat (with the background and ``extra``, asserted directly) has
        re-checked each core as strictly as a solver per core would, for the set-up
        cost of one.  Otherwise each core is re-checked on its own.
        """
        if len(cores) > 1:
            env = current()
            s = self._fresh(simple=True)
            for e in extra:
                _assert_direct(s, e)
            branches = [env.conj([m.formula for m in c]) for c in cores]
            _assert_direct(s, env.disj(branches))
            if s.check() == z3.unsat:
                return [True] * len(cores)
        return [self.recheck(c, extra) for c in cores]

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
        max_work: int,
        extra: Sequence[Z] = (),
        first: Answer | None = None,
        seconds: float | None = None,
    ) -> tuple[list[CoreResult], list[list[Member]], bool, Limit | None]:
        """MARCO over ``members``: (minimal cores, minimal correction sets, complete?,
        the limit that stopped an incomplete search).

        The search stops (incomplete) after ``max_cores`` cores or once it has spent
        ``max_work`` of Z3's resource units (``work_done``: the same count on any
        machine, so the same spec always lists the same cores), or when one of its
        checks runs out of the question's rlimit.  ``seconds`` is only a
        wall-clock safety net: reaching it raises ``OperationalTimeout``.

        The map solver holds one mark per member and the blocking clauses found so
        far; each of its models is a seed (unassigned marks count as taken).  A
        satisfiable seed grows to a maximal satisfiable subset, whose complement is a
        minimal correction set; an unsatisfiable one shrinks (``minimal_core``, from
        the seed's unsat core) to a minimal core.  ``first``: the answer for all of
        ``members`` (with ``extra``), when known: it is the first seed's.

        Cheaper than the textbook loop, with the same results: the map solver decides
        every free mark true first, so seeds start as large as the blocking clauses
        allow; growing skips the check of every member the last model already
        satisfies (``_grow``); each seed's core is the deletion's start.  Cores and
        corrections are returned in the members' order, whatever order the search
        met them in.
        """
        start = time.monotonic()
        env = current()
        # A propositional map: Z3's incremental SAT solver, deciding free marks true.
        mapper = z3.SolverFor("QF_FD", ctx=env.ctx)
        work_start = work_done(mapper)
        mapper.set("random_seed", 0)
        mapper.set("phase", "always_true")
        marks = [_bool_const(f"map!{i}") for i in range(len(members))]
        decls = [z3.Z3_get_app_decl(env.ref, mark.ast) for mark in marks]
        position = {id(m): i for i, m in enumerate(members)}
        cores: list[CoreResult] = []
        corrections: list[list[Member]] = []
        complete = False
        stop: Limit | None = None
        known = first
        seen: list[Z] = []
        while True:
            if len(cores) >= max_cores:
                stop = Limit(
                    "max cores",
                    max_cores,
                    "--max-cores",
                    "cores per independent group of obligations",
                )
                break
            if work_done(mapper) - work_start > max_work:
                stop = Limit(
                    "enumeration work",
                    max_work,
                    "--enumeration-work",
                    "Z3 resource units per independent group of obligations",
                )
                break
            if seconds is not None and time.monotonic() - start > seconds:
                raise OperationalTimeout(
                    f"the enumeration of cores ran into its wall-clock safety limit of "
                    f"{seconds:g} s before its deterministic bound (the machine is "
                    "overloaded); run it again"
                )
            if mapper.check() != z3.sat:
                complete = True
                break
            taken = _true_marks(mapper.model(), decls, env)
            seed = [m for m, t in zip(members, taken, strict=True) if t]
            ans = known if known is not None else self.check(seed, extra)
            known = None
            if ans.verdict == "sat":
                grown = self._grow(seed, members, extra, ans.model, seen)
                if grown is None:
                    stop = self.limit
                    break
                rest = [m for m in members if id(m) not in grown]
                if not rest:
                    complete = True
                    break
                corrections.append(rest)
                mapper.add(env.mk_or([marks[position[id(m)]] for m in rest]))
            elif ans.verdict == "unsat":
                core = self.minimal_core(seed, extra, first=ans, seen=seen, recheck=False)
                if core is None or not core.members:
                    break
                cores.append(core)
                mapper.add(env.mk_or([env.mk_not(marks[position[id(m)]]) for m in core.members]))
            else:
                stop = self.limit
                break
        flags = self.recheck_all([c.members for c in cores], extra)
        cores = [replace(c, rechecked=f) for c, f in zip(cores, flags, strict=True)]
        order = self._order()

        def rank(group: Iterable[Member]) -> list[int]:
            return sorted(order.get(id(m), 0) for m in group)

        cores.sort(key=lambda c: rank(c.members))
        corrections.sort(key=rank)
        return cores, corrections, complete, stop

    def _grow(
        self,
        seed: list[Member],
        members: Sequence[Member],
        extra: Sequence[Z],
        model: Z,
        seen: list[Z],
    ) -> set[int] | None:
        """A maximal satisfiable subset of ``members`` containing ``seed`` (satisfiable,
        with ``model``), as a set of ``id``s; None if a check was undecided.

        Every member the current model satisfies is consistent with the kept ones and
        is kept; then one check asks for a model of the kept members in which at least
        one of the others holds (a disjunction of their literals).  Unsat means no
        other member can join: the subset is maximal, after one check instead of one
        per member left out; sat gives a model with at least one more member.
        """
        env = current()
        kept: set[int] = set()
        chosen: list[Member] = []
        pending = list(members)
        in_seed = {id(m) for m in seed}
        while True:
            rest: list[Member] = []
            for m in pending:
                # A true literal means its formula holds (``lit → formula``): the
                # disjunction below always makes one true, so every round keeps more.
                if id(m) in in_seed or _holds_in(model, m.lit) or _holds_in(model, m.formula):
                    kept.add(id(m))
                    chosen.append(m)
                else:
                    rest.append(m)
            if not rest:
                break
            some = env.mk_or([m.lit for m in rest]) if len(rest) > 1 else rest[0].lit
            ans = self.check(chosen, [*extra, some])
            if ans.verdict == "unknown":
                return None
            if ans.verdict != "sat":
                break
            model = ans.model
            pending = rest
        # The last model satisfies the whole maximal subset: a good one to keep.
        seen.insert(0, model)
        del seen[SEEN_MODELS:]
        return kept


def _deletion(
    solver: Z, scoped: Sequence[Z], pool: list[Member], seen: list[Z] | None,
    want_models: bool = True,
) -> tuple[list[Member], list[tuple[Member, Z]], bool]:
    """Deletion over ``pool`` in ``solver`` (see ``Question.minimal_core``): the necessary
    members, each one's minimality model (none when not ``want_models``), and whether
    every step was decided."""
    necessary: list[Member] = []
    models: list[tuple[Member, Z]] = []
    minimal = True
    while pool:
        candidate = pool.pop(0)
        rest = necessary + pool
        known = _model_of(rest, seen) if seen is not None else None
        ans = Answer("sat", known) if known is not None else None
        if ans is None:
            ans = _check_assuming(solver, rest, scoped, model=want_models or seen is not None)
            if ans.verdict == "sat" and seen is not None:
                seen.insert(0, ans.model)
                del seen[SEEN_MODELS:]
        if ans.verdict == "unsat":
            # Clause-set refinement: the new core may drop more than one member.
            pool = [m for m in pool if m.key in ans.model]
        elif ans.verdict == "sat":
            necessary.append(candidate)
            if want_models:
                models.append((candidate, ans.model))
        else:
            necessary.append(candidate)
            minimal = False
    return necessary, models, minimal


def _model_of(members: Sequence[Member], models: Sequence[Z]) -> Z | None:
    """The first of ``models`` in which every member's formula holds, if any."""
    for model in models:
        if all(_holds_in(model, m.formula) for m in members):
            return model
    return None


def _true_marks(model: Z, decls: Sequence[Z], env: Z3Env) -> list[bool]:
    """For each mark (by its declaration): whether the map's model takes it (a mark
    the model leaves unassigned counts as taken)."""
    ref, m = env.ref, model.model
    false_ptr = env.false_ptr
    out: list[bool] = []
    for decl in decls:
        value = z3.Z3_model_get_const_interp(ref, m, decl)
        out.append(value is None or value.value != false_ptr)
    return out


def _holds_in(model: Z, formula: Z) -> bool:
    """Whether ``model`` makes ``formula`` literally true (completing it where needed)."""
    env = current()
    if not isinstance(formula, z3.ExprRef) or formula.ctx is not env.ctx:
        return bool(z3.is_true(model.eval(formula, model_completion=True)))
    out = (z3.Ast * 1)()
    ok = z3.Z3_model_eval(env.ref, model.model, formula.ast, True, out)
    return bool(ok) and out[0].value == env.true_ptr


def names_of(ob: Obligation) -> frozenset[str]:
    """The variables an obligation reads (``result`` included), for components.

    One pass over the expression: its free names (as ``_walk.free_names``: a
    quantifier's or generator's variable is bound in its body only) and whether it
    mentions ``result`` anywhere.
    """
    names: set[str] = set()
    stack: list[tuple[Expr, frozenset[str]]] = [(ob.expr, frozenset())]
    while stack:
        n, bound = stack.pop()
        kind = n.kind
        if kind == "name":
            name: Any = n
            if name.id not in bound:
                names.add(name.id)
        elif kind == "result":
            names.add("result")
        elif kind == "quant":
            assert isinstance(n, Quantifier)
            stack += [(n.lo, bound), (n.hi, bound), (n.body, bound | {n.var})]
        elif kind == "gen":
            assert isinstance(n, Generator)
            stack += [(n.iterable, bound), (n.body, bound | {n.var})]
        elif kind == "listcomp":
            assert isinstance(n, ListComp)
            inner = bound | {n.var}
            stack += [(n.iterable, bound), *((c, inner) for c in (n.cond, n.body) if c)]
        else:
            stack += [(c, bound) for c in children(n)]
    return frozenset(names)


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
