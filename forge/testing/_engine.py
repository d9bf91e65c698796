"""The test engine: runs the obligations of a contract against a target through a Caller.

One engine serves every way of testing: ``derivative tests`` and the pytest plugin use
an in-process caller (``InProcessCaller``), the build pipeline a caller whose calls cross
the sandbox channel (``SandboxCaller``).  The engine only ever sees ``Outcome``s (a
value, or the classes and message of a raised exception: per class its name, module and
whether it is the built-in of that name) and judges them with the oracle on the host.

Per function (and per operation, inside stateful tests):

1. the solver computes, once, the triggers and one valid input per possible trigger
   (``_boundary.plan_for``); the examples' inputs are added;
2. Hypothesis runs the owner's property with those inputs as explicit examples and
   ``--examples`` generated valid inputs (``_strategies.InputGen``); every input is
   judged for every obligation of the owner, and every trigger it hits is counted;
3. a failure is shrunk by Hypothesis and recorded in the obligation's words; the
   failed obligation is then masked and the run repeated, so that each failing
   obligation gets its own shrunk counterexample and the others complete evidence.

Systems (``_system.py``): a ``RuleBasedStateMachine`` is built per system with one rule per
operation; ``from op`` parameters are drawn from a Bundle of earlier results; count
invariants are checked after every call (upper bounds) and at the end of every run (lower
bounds; ``_tracker.py``).  Then each upper-bounded count invariant is hammered
(``_hammer.py``): the counted operation is called ``bound + 1`` times with one key, first
sequentially, then concurrently from threads under the deterministic interleaving explorer
(``forge/inside/_explore.py``), and the interleaving that broke the bound is reported.

The callers live in ``_callers.py`` (the protocols) and ``_inprocess.py``; what a run
counts in ``_counting.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, reject, seed, settings
from hypothesis.errors import FailedHealthCheck, Flaky, Unsatisfiable
from hypothesis.reporting import with_reporter

from derivative._ast import Expr, FunctionDecl, Obligation, SystemDecl
from derivative._canon import contract_identity
from derivative._typecheck import TypeInfo
from derivative.solver import Plan, Trigger, clear_cache, plan_for, space_for

from ._callers import Caller, Undefined, defined
from ._counting import _Counts
from ._evidence import ObligationEvidence, RunEvidence, TriggerEvidence
from ._flaky import first_failure, nondeterministic
from ._oracle import Failure, Judge, Outcome, describe_input, describe_outcome, make_evaluator
from ._storage import private_storage
from ._strategies import InputGen, Region, spec_alphabet, spec_regexes
from ._system import _SystemRunner
from ._whitebox import Constants, variants

__all__ = ["Engine", "EngineOptions", "reset_caches"]


class _Failed(AssertionError):
    """Raised inside a Hypothesis test so that it shrinks; carries the failures."""

    def __init__(self, failures: Sequence[Failure], detail: str = "") -> None:
        self.failures = list(failures)
        text = "\n".join(f.render() for f in failures)
        super().__init__(text + (("\n" + detail) if detail else ""))


def _counterexample(f: Failure, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    from ._evidence import json_value

    out: dict[str, Any] = {
        "input": {k: json_value(v) for k, v in f.input.items()},
        "call": f.call,
        "got": f.came_back,
        "required": f.required,
        "message": f.render(),
    }
    if extra:
        out.update(extra)
    return out


# --------------------------------------------------------------------------- the engine


def _silent(value: object) -> None:
    """Hypothesis's reporter while the engine runs: what it would print is evidence."""


@dataclass
class EngineOptions:
    """Knobs of a run (the CLI's flags)."""

    examples: int = 100
    """Generated inputs per function/operation (explicit solver inputs come on top)."""
    sequences: int | None = None
    """Random call sequences per system (default: ``max(10, examples // 4)``)."""
    steps: int = 20
    """Calls per sequence."""
    concurrency: bool = True
    threads: int | None = None
    """Concurrent calls per hammer (default: bound + 1, at least 2)."""
    interleavings: int = 2000
    """Interleavings explored per hammer at most."""
    settings: settings | None = None
    """Base Hypothesis settings (default: the active profile)."""
    seed: int | None = None
    """A Hypothesis seed for the property runs of functions (None: the settings decide)."""
    verbose: bool = False
    """Reports name the bytecode instructions of an interleaving (where each thread was
    preempted, what each row executed); by default only files, lines and source text."""
    hints: frozenset[str] = frozenset()
    """What the candidate's source does to strings (``_whitebox.hints_of``): explicit
    inputs get variants that differ there."""
    constants: Constants = field(default_factory=Constants)
    """The literals of the candidate's source (``_whitebox.constants_of``): explicit inputs
    get variants made of them."""
    growth: Callable[[], int] | None = None
    """New candidate coverage (lines and arcs) since it was last asked, or None when
    coverage is not measured.  With it, a function's property runs again, ``examples``
    fresh inputs a round, while the last round still added coverage."""
    max_examples: int = 800
    """Generated inputs per function at most while coverage still grows (the
    deterministic budget; docs/decisions.md gives its measurement)."""
    max_seconds: float = 120.0
    """Seconds of further rounds per function at most: only a safety net, whose firing
    is reported (``stats[...]["coverage_stop"] == "time"``) and never decides a verdict
    silently."""


class Engine:
    """Runs a contract's obligations against one target (see the module docstring)."""

    def __init__(
        self, info: TypeInfo, caller: Caller, options: EngineOptions | None = None,
        *, target: str = "", progress: Callable[[str, str], None] | None = None,
    ) -> None:
        self.info = info
        self.caller = caller
        self.options = options or EngineOptions()
        self.target = target
        self.progress = progress
        """Told ``("obligations", "2 of 3: parse_minutes; 150 calls so far")`` as each
        function or system starts and every ``TICK`` calls (for a status line)."""
        self.calls = 0
        self.where = ""
        self.evaluator = make_evaluator(info)
        self.judges: dict[str, Judge] = {}
        self.plans: dict[str, Plan] = {}
        self.unknowns: list[str] = []
        self.stats: dict[str, Any] = {}

    # ------------------------------------------------------------------ helpers

    TICK = 50

    def tick(self) -> None:
        """One more call made: every ``TICK`` calls the progress callback hears of it."""
        self.calls += 1
        if self.progress is not None and self.calls % self.TICK == 0:
            self.progress("obligations", f"{self.where}; {self.calls} calls so far")

    def judge_of(self, owner: str) -> Judge:
        if owner not in self.judges:
            self.judges[owner] = Judge(self.info, owner, self.evaluator)
        return self.judges[owner]

    def plan_of(self, owner: str) -> Plan:
        """The solver's plan for ``owner`` (computed once per contract and owner)."""
        if owner not in self.plans:
            judge = self.judge_of(owner)
            examples = []
            for o in judge.examples:
                try:
                    args, _ = judge.example_call(o)
                except ValueError:
                    continue
                if judge.admits(args):
                    examples.append(args)
            plan = plan_for(self.info, owner, judge.admits, examples)
            self.plans[owner] = plan
            self.unknowns.extend(plan.unknowns)
        return self.plans[owner]

    def _settings(self, **overrides: Any) -> settings:
        base = self.options.settings or settings()
        kw: dict[str, Any] = {
            "database": None,
            "deadline": None,
            "report_multiple_bugs": False,
            "suppress_health_check": [
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
                HealthCheck.large_base_example,
            ],
            "print_blob": False,
            # The explain phase re-runs a failure hundreds of times to say which parts
            # of it matter; the counterexample is reported in the obligation's words
            # instead, so it would only cost time (seconds per failing system).
            "phases": tuple(p for p in base.phases if p != Phase.explain),
        }
        kw.update(overrides)
        return settings(base, **kw)

    def _input_gen(self, owner: str, fixed: frozenset[str] = frozenset()) -> InputGen:
        judge = self.judge_of(owner)
        plan = self.plan_of(owner)
        space = space_for(self.info, owner, judge.admits)
        exprs = [o.expr for o in self.info.contract.obligations_of(owner)]
        return InputGen(
            judge.param_types,
            [o.expr for o in judge.requires],
            self.evaluator,
            judge.admits,
            fixed=fixed,
            near=space.near if space.encodable else None,
            pool=plan.pool,
            alphabet=spec_alphabet(exprs),
            regexes=spec_regexes(exprs),
        )

    def _regions(self, owner: str) -> list[Region]:
        """"No raises condition holds", where the owner has raises clauses and the
        solver finds such inputs: half of the draws aim there (see ``InputGen``)."""
        judge = self.judge_of(owner)
        plan = self.plan_of(owner)
        normal = [t for t in plan.triggers if t.kind == "normal"]
        if not judge.raises or not normal or normal[0].status == "vacuous":
            return []
        ev = self.evaluator

        def accepts(inp: Mapping[str, object]) -> bool:
            return all(ev.holds(r.expr, inp) is False for r in judge.raises)

        space = space_for(self.info, owner, judge.admits)
        near = None
        if space.encodable:
            try:
                cond = [space.encode(normal[0].expr)]
            except Exception:
                cond = None
            if cond is not None:
                def near(seed: Mapping[str, object], fixed: frozenset[str],
                         cond: list[Any] = cond) -> dict[str, object] | None:
                    return space.near(seed, fixed, ("normal", cond))
        return [Region("normal", accepts, near, tuple(r.expr for r in judge.raises))]

    def _hits(self, plan: Plan, args: Mapping[str, object]) -> list[bool]:
        return [self.evaluator.holds(t.expr, args) is True for t in plan.triggers]

    def _evidence(
        self, owner: str, o: Obligation | Any, counts: _Counts, plan: Plan | None
    ) -> ObligationEvidence:
        ev = ObligationEvidence(
            id=o.id, kind=o.kind, owner=owner, file=o.file, line=o.line, text=o.text,
            inputs=counts.inputs.get(o.id, 0),
        )
        if plan is not None:
            for t in plan.triggers_of(o.id):
                ev.triggers.append(
                    TriggerEvidence(t.id, t.kind, t.description, t.status,
                                    counts.hits.get(t.id, 0), required=t.required)
                )
            ev.vacuous = _is_vacuous(o, plan)
            if ev.vacuous:
                ev.note = "its condition is impossible for valid inputs (proved by the solver)"
        return ev

    # ------------------------------------------------------------------ the run

    def run(self, owners: Sequence[str] | None = None) -> RunEvidence:
        """Run every function and system of the contract (or only ``owners``)."""
        contract = self.info.contract
        spec = {"name": contract.name, "version": contract.version,
                "sha256": contract_identity(contract)}
        evidence = RunEvidence(spec=spec, target=self.target)
        # Hypothesis reports failing steps (stateful runs) on stdout by default; the engine
        # turns every failure into evidence, and stdout may be a JSON document; and it
        # writes nothing into the user's folder (_storage.py)
        with with_reporter(_silent), private_storage():
            chosen = [d for d in contract.declarations
                      if isinstance(d, (FunctionDecl, SystemDecl))
                      and (owners is None or d.name in owners)]
            for n, d in enumerate(chosen, start=1):
                self.where = f"{n} of {len(chosen)}: {d.name}"
                if self.progress is not None:
                    self.progress("obligations", f"{self.where}; {self.calls} calls so far")
                if isinstance(d, FunctionDecl):
                    evidence.obligations.extend(self.run_function(d.name))
                elif isinstance(d, SystemDecl):
                    evidence.obligations.extend(self.run_system(d.name))
        evidence.unknowns = list(dict.fromkeys(self.unknowns))
        evidence.stats = dict(self.stats)
        return evidence

    # ------------------------------------------------------------------ functions

    def run_function(self, name: str) -> list[ObligationEvidence]:
        """Every obligation of function ``name``: examples, then the property run."""
        try:
            return self._run_function(name)
        except Exception as exc:
            missing = first_failure(exc, Undefined)
            if missing is None:
                raise
            return self._undefined(name, missing.sentence)

    def _undefined(self, owner: str, sentence: str) -> list[ObligationEvidence]:
        """The candidate lacks ``owner`` (or part of it): each of its obligations fails
        with that one sentence, which the reports show once for all of them."""
        decl = self.info.contract.decl(owner)
        judged: list[tuple[str, Any]] = []
        for q in [op.qualname for op in decl.operations] if isinstance(decl, SystemDecl) \
                else [owner]:
            j = self.judge_of(q)
            judged.extend((q, o) for o in (*j.examples, *j.requires, *j.judged_obligations))
        judged.extend((owner, o) for o in self.info.contract.obligations_of(owner)
                      if o.kind == "invariant")
        out: list[ObligationEvidence] = []
        for q, o in judged:
            ev = ObligationEvidence(id=o.id, kind=o.kind, owner=q, file=o.file,
                                    line=o.line, text=o.text)
            ev.message = f"{o.id} ({o.file}:{o.line}) cannot be judged: {sentence}"
            ev.counterexample = {"undefined": sentence, "got": sentence,
                                 "required": f"{owner} as the contract declares it",
                                 "message": ev.message}
            out.append(ev)
        return _in_contract_order(self.info, out)

    def _run_function(self, name: str) -> list[ObligationEvidence]:
        judge = self.judge_of(name)
        plan = self.plan_of(name)
        out = [self._run_example(name, o, judge) for o in judge.examples]
        counts, failures, note = self._property_run(name, judge, plan)
        out.extend(self._owner_evidence(name, judge, plan, counts, failures, note))
        return _in_contract_order(self.info, out)

    def _owner_evidence(
        self, owner: str, judge: Judge, plan: Plan, counts: _Counts,
        failures: Mapping[str, tuple[Failure, dict[str, Any] | None]], note: str | None,
    ) -> list[ObligationEvidence]:
        out: list[ObligationEvidence] = []
        no_inputs = note == "vacuous"
        for o in (*judge.requires, *judge.judged_obligations):
            ev = self._evidence(owner, o, counts, plan)
            if o.kind == "requires":
                ev.inputs = counts.valid_inputs
            if no_inputs:
                ev.vacuous = True
                ev.note = "the preconditions of " + owner + " can never hold (proved by the solver)"
            elif note and not ev.inputs:
                ev.note = note
            if o.id in failures:
                f, extra = failures[o.id]
                ev.counterexample = _counterexample(f, extra)
                ev.message = ev.counterexample["message"]
            out.append(ev)
        return out

    def _run_example(self, owner: str, o: Obligation, judge: Judge) -> ObligationEvidence:
        ev = ObligationEvidence(id=o.id, kind=o.kind, owner=owner, file=o.file, line=o.line,
                                text=o.text, inputs=1)
        try:
            args, _ = judge.example_call(o)
        except ValueError as exc:
            ev.inputs = 0
            ev.note = str(exc)
            return ev
        names = [n for n, _, _ in judge.signature.params]
        if "." in owner:
            system, _, op = owner.partition(".")
            handle = self.caller.new_instance(system)
            if isinstance(handle, Outcome):
                outcome = defined(handle)
            else:
                outcome = defined(self.caller.method(handle, op, [args[n] for n in names]))
        else:
            outcome = defined(self.caller.call(owner, [args[n] for n in names]))
        failure = judge.judge_example(o, outcome)
        if failure is not None:
            ev.counterexample = _counterexample(failure)
            ev.message = failure.render()
        return ev

    def _property_run(
        self, name: str, judge: Judge, plan: Plan
    ) -> tuple[_Counts, dict[str, tuple[Failure, dict[str, Any] | None]], str | None]:
        names = [n for n, _, _ in judge.signature.params]
        if plan.encodable and not plan.pool:
            status, _ = space_for(self.info, name, judge.admits).solve()
            if status == "unsat":
                return _Counts(), {}, "vacuous"
        gen = self._input_gen(name)
        explicit = [inp for inp in plan.inputs if judge.admits(inp)]
        explicit += variants(explicit, judge.param_types, self.options.hints, judge.admits,
                             self.options.constants)
        failures: dict[str, tuple[Failure, dict[str, Any] | None]] = {}
        masked: set[str] = set()
        counts = _Counts()
        note: str | None = None
        limit = len(judge.judged_obligations) + 1
        for _ in range(limit):
            counts = _Counts()
            last: list[tuple[str, str]] = []
            body = self._function_body(name, names, judge, plan, counts, masked, last)
            test = given(gen.strategy(self._regions(name)))(body)
            # Hypothesis tries explicit examples in the order they were written as
            # decorators, i.e. the last applied first: applied in reverse, the plan's first
            # (simplest: a boundary) input is tried first, and the input a failure reports
            # is the one the written test module (codegen) reports too.
            for inp in reversed(explicit):
                test = example(inp)(test)
            test = self._settings(max_examples=self.options.examples)(test)
            if self.options.seed is not None:
                test = seed(self.options.seed)(test)
            try:
                test()
            except _Failed as exc:
                for f in exc.failures:
                    failures.setdefault(f.obligation_id, (f, None))
                    masked.add(f.obligation_id)
                continue
            except Flaky as exc:
                first = first_failure(exc, _Failed)
                if first is None:  # not the candidate's: our own strategies misbehaved
                    raise
                for f in first.failures:
                    replay = last[-1][1] if last and last[-1][0] == f.call else None
                    failures.setdefault(f.obligation_id, nondeterministic(f, replay))
                    masked.add(f.obligation_id)
                continue
            except (Unsatisfiable, FailedHealthCheck) as exc:
                note = f"Hypothesis found no valid inputs: {type(exc).__name__}: {exc}"
                if counts.valid_inputs == 0:
                    counts.stopped = False
            break
        rounds, stop = 1, None
        if not failures and note is None and self.options.growth is not None:
            rounds, stop = self._grow(name, names, judge, plan, gen, counts, masked, failures)
        self.stats[name] = {
            "valid_inputs": counts.valid_inputs,
            "explicit_inputs": len(explicit),
            "generated": vars(gen.stats),
        }
        if self.options.growth is not None:
            self.stats[name].update({"rounds": rounds, "coverage_stop": stop})
        return counts, failures, note

    def _grow(
        self, name: str, names: Sequence[str], judge: Judge, plan: Plan, gen: InputGen,
        counts: _Counts, masked: set[str],
        failures: dict[str, tuple[Failure, dict[str, Any] | None]],
    ) -> tuple[int, str]:
        """Further rounds of ``examples`` fresh inputs while the last round added candidate
        coverage: ``(rounds run in all, why they stopped)``, one of ``plateau`` (a round
        added nothing), ``examples`` (``max_examples`` spent), ``time`` (the safety net)
        and ``failed`` (a round found a counterexample, now in ``failures``).  Each round
        has its own seed, derived from the run's, so the inputs are the same on every
        machine; only the time net depends on speed, and its firing is reported."""
        growth = self.options.growth
        assert growth is not None
        per = max(self.options.examples, 1)
        started = time.monotonic()
        rounds = 1
        while growth() > 0:
            if (rounds + 1) * per > self.options.max_examples:
                return rounds, "examples"
            if time.monotonic() - started > self.options.max_seconds:
                return rounds, "time"
            rounds += 1
            body = self._function_body(name, names, judge, plan, counts, masked, [])
            test = given(gen.strategy(self._regions(name)))(body)
            test = self._settings(max_examples=per)(test)
            test = seed(((self.options.seed or 0) << 8) + rounds)(test)
            try:
                test()
            except _Failed as exc:
                for f in exc.failures:
                    failures.setdefault(f.obligation_id, (f, None))
                return rounds, "failed"
            except Flaky as exc:
                first = first_failure(exc, _Failed)
                if first is None:
                    raise
                for f in first.failures:
                    failures.setdefault(f.obligation_id, nondeterministic(f, None))
                return rounds, "failed"
            except (Unsatisfiable, FailedHealthCheck):
                return rounds, "plateau"
        return rounds, "plateau"

    def _function_body(
        self, name: str, names: Sequence[str], judge: Judge, plan: Plan, counts: _Counts,
        masked: set[str], last: list[tuple[str, str]],
    ) -> Callable[[dict[str, object]], None]:
        """The property of ``name``; ``last`` keeps the latest call and what it gave (when
        Hypothesis's replay of a failure does not fail, that is the replay)."""

        def body(inp: dict[str, object]) -> None:
            if not judge.admits(inp):
                reject()
            self.tick()
            outcome = defined(self.caller.call(name, [inp[n] for n in names]))
            last[:] = [(describe_input(judge.func, inp), describe_outcome(outcome))]
            j = judge.judge(inp, outcome)
            counts.record(j.judged, plan.triggers, self._hits(plan, inp))
            new = [f for f in j.failures if f.obligation_id not in masked]
            if new:
                counts.stopped = True
                raise _Failed(new)

        return body

    # ------------------------------------------------------------------ systems

    def run_system(self, name: str) -> list[ObligationEvidence]:
        """Operations' obligations and the system's invariants (stateful + concurrent)."""
        decl = self.info.contract.decl(name)
        assert isinstance(decl, SystemDecl)
        runner = _SystemRunner(self, decl)
        try:
            return _in_contract_order(self.info, runner.run())
        except Exception as exc:
            missing = first_failure(exc, Undefined)
            if missing is None:
                raise
            return self._undefined(name, missing.sentence)


def _is_vacuous(o: Obligation | Any, plan: Plan) -> bool:
    """Its own condition (raises condition / top-level antecedent) is impossible."""
    expr = getattr(o, "expr", None)
    if expr is None:
        return False
    own = [t for t in plan.triggers_of(o.id)
           if t.kind in ("raises", "normal")
           or (t.kind == "antecedent" and _is_top_antecedent(expr, t))]
    # A raises clause whose condition, or an ensures whose normal-return region or
    # top-level antecedent, can never hold has nothing to exercise.
    return any(t.status == "vacuous" for t in own)


def _is_top_antecedent(expr: Expr, t: Trigger) -> bool:
    from derivative._ast import BoolOp

    return isinstance(expr, BoolOp) and expr.op == "implies" and expr.operands[0] == t.expr


def _in_contract_order(info: TypeInfo, items: list[ObligationEvidence]) -> list[ObligationEvidence]:
    order = {o.id: i for i, o in enumerate(info.contract.obligations)}
    return sorted(items, key=lambda e: (order.get(e.id, len(order)), e.id))


def reset_caches() -> None:
    """Forget computed plans (tests that rebuild contracts with the same identity)."""
    clear_cache()
