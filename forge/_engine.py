"""The test engine: runs the obligations of a contract against a target through a Caller.

One engine serves every way of testing: ``derivative tests`` and the pytest plugin use
an in-process caller (``InProcessCaller``), the build pipeline a caller whose calls cross
the sandbox channel (``SandboxCaller``).  The engine only ever sees ``Outcome``s (a
value, or the class names and message of a raised exception) and judges them with the
oracle on the host.

Per function (and per operation, inside stateful tests):

1. the solver computes, once, the triggers and one valid input per possible trigger
   (``_boundary.plan_for``); the examples' inputs are added;
2. Hypothesis runs the owner's property with those inputs as explicit examples and
   ``--examples`` generated valid inputs (``_strategies.InputGen``); every input is
   judged for every obligation of the owner, and every trigger it hits is counted;
3. a failure is shrunk by Hypothesis and recorded in the obligation's words; the
   failed obligation is then masked and the run repeated, so that each failing
   obligation gets its own shrunk counterexample and the others complete evidence.

Systems: a ``RuleBasedStateMachine`` is built per system with one rule per operation;
``from op`` parameters are drawn from a Bundle of earlier results; count invariants are
checked after every call (upper bounds) and at the end of every run (lower bounds).
Then each upper-bounded count invariant is hammered: the counted operation is called
``bound + 1`` times with one key, first sequentially, then concurrently from threads
under the deterministic interleaving explorer (``forge/_explore.py``), and the
interleaving that broke the bound is reported.
"""

from __future__ import annotations

import enum
import importlib
import importlib.util
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

from hypothesis import HealthCheck, Phase, example, given, reject, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck, Unsatisfiable

from derivative._ast import (
    BindDecl,
    Compare,
    Count,
    Expr,
    FunctionDecl,
    Obligation,
    SystemDecl,
)
from derivative._canon import contract_identity
from derivative._errors import DerivativeError, OperationalTimeout
from derivative._eval import Evaluator
from derivative._printer import to_source
from derivative._typecheck import TypeInfo
from derivative._types import TNone
from derivative._values import EnumValue, _Undefined
from derivative.forge._boundary import Plan, Trigger, clear_cache, plan_for, space_for
from derivative.forge._channel import ExploreBatch, SetupRef, WireOutcome
from derivative.forge._evidence import ObligationEvidence, RunEvidence, TriggerEvidence
from derivative.forge._oracle import (
    NOT_CONFORMING,
    Failure,
    Judge,
    Judgement,
    Outcome,
    Raised,
    describe,
    describe_input,
    describe_outcome,
    make_evaluator,
    normalize,
)
from derivative.forge._strategies import InputGen, Region, spec_alphabet

__all__ = [
    "Caller",
    "ConcurrentCaller",
    "Engine",
    "EngineError",
    "InProcessCaller",
    "Outcome",
    "Raised",
    "Ref",
    "SandboxCaller",
    "load_target",
]


class EngineError(DerivativeError):
    """The engine could not run at all (a target that cannot be imported, say)."""


# --------------------------------------------------------------------------- callers


@runtime_checkable
class Caller(Protocol):
    """How the engine reaches the implementation.

    Arguments are language values (``int``, ``bool``, ``float`` for reals, ``str``,
    ``date``, ``tuple`` for lists, ``EnumValue``), positional in declared order; the
    caller converts them to what the candidate expects (lists, the candidate's Enum
    members or member names).  Results come back as ``Outcome``: whatever was returned,
    or the raised exception's class names (MRO) and message.  A caller never raises
    for something the candidate did.
    """

    def call(self, func_name: str, args: Sequence[object]) -> Outcome: ...

    def new_instance(self, system: str) -> object:
        """A fresh instance of ``system`` (a handle), or an ``Outcome`` that raised."""
        ...

    def method(self, handle: object, op: str, args: Sequence[object]) -> Outcome: ...


@dataclass(frozen=True)
class Ref:
    """In a concurrent scenario: "the value returned by set-up call number ``index``"."""

    index: int


@dataclass
class Interleaving:
    """One explored schedule: its description and each thread's outcome, in order."""

    schedule: str
    setup: list[Outcome]
    outcomes: list[Outcome]
    trace: str = ""
    deadlock: bool = False


@runtime_checkable
class ConcurrentCaller(Protocol):
    """A caller that can explore thread interleavings where the candidate runs.

    ``explore(system, setup, calls, limit)``: for each explored interleaving, a fresh
    instance, the ``setup`` calls ``(op, args)`` in order, then the ``calls`` from one
    thread each; ``Ref(i)`` in arguments stands for setup call ``i``'s result.  Yields
    one ``Interleaving`` per schedule (at most ``limit``); the caller may stop early
    when ``stop(interleaving)`` returns true.
    """

    def explore(
        self,
        system: str,
        setup: Sequence[tuple[str, Sequence[object]]],
        calls: Sequence[tuple[str, Sequence[object]]],
        limit: int,
        stop: Callable[[Interleaving], bool],
    ) -> Iterator[Interleaving]: ...


def load_target(target: str, module: str | None = None) -> ModuleType:
    """Import the candidate: a ``.py`` file, a package directory (with ``module``), or
    a dotted module name importable from the current directory."""
    path = Path(target)
    try:
        if path.suffix == ".py" and path.is_file():
            name = f"_derivative_target_{abs(hash(str(path.resolve()))):x}"
            folder = str(path.resolve().parent)
            if folder not in sys.path:
                sys.path.insert(0, folder)
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise EngineError(f"cannot import {target}")
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
            return mod
        if path.is_dir():
            if not module:
                raise EngineError(f"{target} is a directory: name the module with --module")
            folder = str(path.resolve())
            if folder not in sys.path:
                sys.path.insert(0, folder)
            return importlib.import_module(module)
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        return importlib.import_module(module or target)
    except EngineError:
        raise
    except Exception as exc:
        raise EngineError(
            f"cannot import the target {target}: {type(exc).__name__}: {exc}"
        ) from exc


_MISSING = object()


class InProcessCaller:
    """Calls the candidate in this interpreter (``derivative tests``, the pytest plugin).

    No isolation at all: use it only for code you trust.  ``binds`` maps spec names to
    ``"module:attr"`` (``bind NAME to "..."`` in the spec).
    """

    def __init__(self, module: ModuleType, binds: Mapping[str, str] | None = None) -> None:
        self.module = module
        self.binds = dict(binds or {})
        self._lock = threading.Lock()

    @classmethod
    def for_contract(cls, module: ModuleType, info: TypeInfo) -> InProcessCaller:
        binds = {d.name: d.target for d in info.contract.declarations if isinstance(d, BindDecl)}
        return cls(module, binds)

    def resolve(self, name: str) -> object:
        target = self.binds.get(name)
        if target is not None:
            mod_name, _, attr = target.partition(":")
            mod = importlib.import_module(mod_name) if mod_name else self.module
            obj: object = mod
            for part in (attr or name).split("."):
                obj = getattr(obj, part)
            return obj
        value = getattr(self.module, name, _MISSING)
        if value is _MISSING:
            raise AttributeError(f"the target has no {name!r}")
        return value

    def to_candidate(self, value: object) -> object:
        """A language value as the candidate takes it (LANGUAGE.md §3)."""
        if isinstance(value, EnumValue):
            cls = getattr(self.module, value.enum, None)
            if isinstance(cls, type) and issubclass(cls, enum.Enum):
                try:
                    return cls[value.member]
                except KeyError:
                    return value.member
            return value.member
        if isinstance(value, tuple):
            return [self.to_candidate(v) for v in value]
        if isinstance(value, Fraction):
            return float(value)
        return value

    def _invoke(self, fn: Callable[..., object], args: Sequence[object]) -> Outcome:
        converted = [self.to_candidate(a) for a in args]
        try:
            return Outcome.returned(fn(*converted))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            return Outcome.error(exc)

    def call(self, func_name: str, args: Sequence[object]) -> Outcome:
        try:
            fn = self.resolve(func_name)
        except Exception as exc:
            return Outcome.error(exc)
        if not callable(fn):
            return Outcome(raised=Raised(("TypeError", "Exception", "BaseException"),
                                         f"{func_name} is not callable"))
        return self._invoke(fn, args)

    def new_instance(self, system: str) -> object:
        try:
            cls = self.resolve(system)
            if not callable(cls):
                raise TypeError(f"{system} is not a class")
            return cls()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            return Outcome.error(exc)

    def method(self, handle: object, op: str, args: Sequence[object]) -> Outcome:
        try:
            fn = getattr(handle, op)
        except Exception as exc:
            return Outcome.error(exc)
        return self._invoke(fn, args)

    def explore(
        self,
        system: str,
        setup: Sequence[tuple[str, Sequence[object]]],
        calls: Sequence[tuple[str, Sequence[object]]],
        limit: int,
        stop: Callable[[Interleaving], bool],
    ) -> Iterator[Interleaving]:
        yield from explore_in_process(self, system, setup, calls, limit, stop)


def _sandbox_class(status: str) -> str:
    """The class name a failed sandbox request shows as: ``timeout`` -> ``SandboxTimeout``."""
    return "Sandbox" + "".join(p.capitalize() for p in status.split("_"))


class SandboxCaller:
    """Adapts a sandbox session (``forge/_sandbox.py``: ``call``/``new_instance``/
    ``method`` returning ``CallResult``) to the ``Caller`` protocol, and its ``explore``
    (the interleaving explorer running inside the sandbox) to ``ConcurrentCaller``.

    Anything but a normal return or a raise by the candidate's own code (a timeout, a
    crash, a protocol error, a stale instance, a worker-side error) becomes a raised
    outcome with a ``Sandbox...`` class name, so it can only ever fail an obligation.
    """

    def __init__(self, sandbox: Any) -> None:
        self.sandbox = sandbox

    @staticmethod
    def _outcome(result: Any) -> Outcome:
        status = getattr(result, "status", "error")
        if status == "returned":
            return Outcome.returned(result.value)
        exc = getattr(result, "exc", None)
        if status == "raised" and exc is not None:
            return Outcome(raised=Raised(tuple(exc.classes), str(exc.message)))
        detail = getattr(result, "detail", "") or (exc.message if exc is not None else "")
        return Outcome(raised=Raised((_sandbox_class(str(status)),), str(detail)))

    def call(self, func_name: str, args: Sequence[object]) -> Outcome:
        return self._outcome(self.sandbox.call(func_name, list(args)))

    def new_instance(self, system: str) -> object:
        result = self.sandbox.new_instance(system)
        if getattr(result, "status", None) == "returned":
            return result.value
        return self._outcome(result)

    def method(self, handle: object, op: str, args: Sequence[object]) -> Outcome:
        return self._outcome(self.sandbox.method(handle, op, list(args)))

    @staticmethod
    def _wire_outcome(out: WireOutcome) -> Outcome:
        if out.ok:
            return Outcome.returned(out.value)
        exc = out.exc
        if exc is not None and exc.phase in ("call", "load"):
            return Outcome(raised=Raised(tuple(exc.classes), str(exc.message)))
        return Outcome(raised=Raised(("SandboxError",), exc.message if exc else ""))

    def explore(
        self,
        system: str,
        setup: Sequence[tuple[str, Sequence[object]]],
        calls: Sequence[tuple[str, Sequence[object]]],
        limit: int,
        stop: Callable[[Interleaving], bool],
    ) -> Iterator[Interleaving]:
        """The interleavings explored inside the sandbox, batch by batch.

        A timeout, a crash or a protocol error while exploring ends the exploration
        with one last interleaving marked as a deadlock (the calls never finished), so
        that it fails the invariant instead of leaving it passed on what came before;
        a request the worker could not serve (no such class, an argument it cannot
        decode) is an ``EngineError``, and the invariant keeps its note.
        """

        def wire(args: Sequence[object]) -> list[object]:
            return [SetupRef(a.index) if isinstance(a, Ref) else a for a in args]

        started = time.monotonic()
        seen = 0
        try:
            result = self.sandbox.explore(
                system, [(op, wire(a)) for op, a in setup], [(op, wire(a)) for op, a in calls],
                limit=limit,
            )
        except (TypeError, ValueError) as exc:
            raise EngineError(f"the calls cannot be sent to the sandbox: {exc}") from exc
        try:
            while True:
                status = str(getattr(result, "status", "error"))
                if status != "returned":
                    raised = getattr(result, "exc", None)
                    detail = str(getattr(result, "detail", "") or
                                 (raised.message if raised is not None else status))
                    if status in ("timeout", "crashed", "protocol_error"):
                        failed = Outcome(raised=Raised((_sandbox_class(status),), detail))
                        yield Interleaving(f"sandbox {status.replace('_', ' ')}: {detail}",
                                           [], [failed for _ in calls], trace=detail,
                                           deadlock=True)
                        return
                    raise EngineError(f"the sandbox did not explore interleavings: {detail}")
                batch: ExploreBatch = result.value
                for run in batch.runs:
                    inter = Interleaving(
                        run.schedule,
                        [self._wire_outcome(o) for o in run.setup],
                        [self._wire_outcome(o) for o in run.outcomes],
                        trace=run.trace,
                        deadlock=run.deadlock,
                    )
                    seen += 1
                    yield inter
                    if stop(inter):
                        return
                if not batch.more:
                    budget = getattr(getattr(self.sandbox, "limits", None), "explore_timeout", None)
                    if seen < limit and budget is not None and time.monotonic() - started >= budget:
                        # Neither the schedule bound nor the end of the search space: the
                        # exploration's wall-clock safety net stopped it, after a number of
                        # schedules that depends on the machine's speed.
                        raise OperationalTimeout(
                            f"the exploration of interleavings of {system} ran into its "
                            f"wall-clock safety limit of {budget:g} s after {seen} of at most "
                            f"{limit} schedules"
                        )
                    return
                result = self.sandbox.explore_next()
        finally:
            # the worker's search may still be going: end it (a no-op when it is over)
            self.sandbox.explore_close()


# --------------------------------------------------------------------------- recording


class _Failed(AssertionError):
    """Raised inside a Hypothesis test so that it shrinks; carries the failures."""

    def __init__(self, failures: Sequence[Failure], detail: str = "") -> None:
        self.failures = list(failures)
        text = "\n".join(f.render() for f in failures)
        super().__init__(text + (("\n" + detail) if detail else ""))


@dataclass
class _Counts:
    """Inputs and trigger hits of one owner during one complete run."""

    inputs: dict[str, int] = field(default_factory=dict)
    hits: dict[str, int] = field(default_factory=dict)
    valid_inputs: int = 0
    stopped: bool = False

    def record(self, judged: set[str], triggers: Sequence[Trigger], hit: Sequence[bool]) -> None:
        if self.stopped:
            return
        self.valid_inputs += 1
        for oid in judged:
            self.inputs[oid] = self.inputs.get(oid, 0) + 1
        for t, h in zip(triggers, hit, strict=True):
            if h:
                self.hits[t.id] = self.hits.get(t.id, 0) + 1


def _counterexample(f: Failure, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    from derivative.forge._evidence import json_value

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


# --------------------------------------------------------------------------- count invariants


@dataclass(frozen=True)
class _CountCheck:
    """One ``count(OP where P, per X) CMP N`` link of an invariant (count on the left)."""

    obligation: Obligation
    count: Count
    cmp: str
    bound: int

    @property
    def upper(self) -> bool:
        return self.cmp in ("<=", "<", "==")

    @property
    def limit(self) -> int:
        """The largest count allowed (upper bounds) / the least required (lower)."""
        if self.cmp == "<":
            return self.bound - 1
        if self.cmp == ">":
            return self.bound + 1
        return self.bound

    def holds(self, n: int) -> bool:
        return n <= self.limit if self.upper else n >= self.limit

    def describe(self) -> str:
        per = f", per {self.count.per}" if self.count.per else ""
        where = f" where {to_source(self.count.where)}" if self.count.where is not None else ""
        return f"count({self.count.op}{where}{per}) {self.cmp} {self.bound}"


_MIRROR = {"<=": ">=", "<": ">", ">=": "<=", ">": "<", "==": "=="}


def count_checks(o: Obligation, evaluator: Evaluator) -> list[_CountCheck] | None:
    """The count links of an invariant, or None when it is not a conjunction of them."""
    from derivative.forge._strategies import conjuncts

    out: list[_CountCheck] = []
    for c in conjuncts(o.expr):
        if not isinstance(c, Compare):
            return None
        for i, op in enumerate(c.ops):
            a, b = c.operands[i], c.operands[i + 1]
            cmp: str
            if isinstance(a, Count) and not isinstance(b, Count):
                count, other, cmp = a, b, op
            elif isinstance(b, Count) and not isinstance(a, Count):
                count, other, cmp = b, a, _MIRROR.get(op, op)
            else:
                return None
            value = evaluator.eval(other)
            if not isinstance(value, int) or isinstance(value, bool) or cmp not in _MIRROR:
                return None
            out.append(_CountCheck(o, count, cmp, value))
    return out


@dataclass
class _CallRecord:
    op: str
    args: dict[str, object]
    outcome: Outcome
    result: object = None
    name: str = ""

    def text(self, instance: str = "s") -> str:
        call = describe_input(self.op, self.args)
        prefix = f"{self.name} = " if self.name else ""
        return f"{prefix}{instance}.{call} -> {describe_outcome(self.outcome)}"


# --------------------------------------------------------------------------- the engine


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


class Engine:
    """Runs a contract's obligations against one target (see the module docstring)."""

    def __init__(
        self, info: TypeInfo, caller: Caller, options: EngineOptions | None = None,
        *, target: str = "",
    ) -> None:
        self.info = info
        self.caller = caller
        self.options = options or EngineOptions()
        self.target = target
        self.evaluator = make_evaluator(info)
        self.judges: dict[str, Judge] = {}
        self.plans: dict[str, Plan] = {}
        self.unknowns: list[str] = []
        self.stats: dict[str, Any] = {}

    # ------------------------------------------------------------------ helpers

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
        return [Region("normal", accepts, near)]

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
                    TriggerEvidence(t.id, t.kind, t.description, t.status, counts.hits.get(t.id, 0))
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
        for d in contract.declarations:
            if owners is not None and d.name not in owners:
                continue
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
                outcome = handle
            else:
                outcome = self.caller.method(handle, op, [args[n] for n in names])
        else:
            outcome = self.caller.call(owner, [args[n] for n in names])
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
        failures: dict[str, tuple[Failure, dict[str, Any] | None]] = {}
        masked: set[str] = set()
        counts = _Counts()
        note: str | None = None
        limit = len(judge.judged_obligations) + 1
        for _ in range(limit):
            counts = _Counts()
            body = self._function_body(name, names, judge, plan, counts, masked)
            test = given(gen.strategy(self._regions(name)))(body)
            for inp in explicit:
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
            except (Unsatisfiable, FailedHealthCheck) as exc:
                note = f"Hypothesis found no valid inputs: {type(exc).__name__}: {exc}"
                if counts.valid_inputs == 0:
                    counts.stopped = False
            break
        self.stats[name] = {
            "valid_inputs": counts.valid_inputs,
            "explicit_inputs": len(explicit),
            "generated": vars(gen.stats),
        }
        return counts, failures, note

    def _function_body(
        self, name: str, names: Sequence[str], judge: Judge, plan: Plan, counts: _Counts,
        masked: set[str],
    ) -> Callable[[dict[str, object]], None]:
        def body(inp: dict[str, object]) -> None:
            if not judge.admits(inp):
                reject()
            outcome = self.caller.call(name, [inp[n] for n in names])
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
        return _in_contract_order(self.info, runner.run())


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

    return isinstance(expr, BoolOp) and expr.op == "implies" and expr.left == t.expr


def _in_contract_order(info: TypeInfo, items: list[ObligationEvidence]) -> list[ObligationEvidence]:
    order = {o.id: i for i, o in enumerate(info.contract.obligations)}
    return sorted(items, key=lambda e: (order.get(e.id, len(order)), e.id))


# --------------------------------------------------------------------------- systems


class _SystemRunner:
    """The stateful and concurrent testing of one system."""

    def __init__(self, engine: Engine, decl: SystemDecl) -> None:
        self.engine = engine
        self.info = engine.info
        self.caller = engine.caller
        self.decl = decl
        self.name = decl.name
        self.ops = {op.name: op for op in decl.operations}
        self.owners = {op.name: op.qualname for op in decl.operations}
        self.judges = {n: engine.judge_of(q) for n, q in self.owners.items()}
        self.invariants = [
            o for o in self.info.contract.obligations_of(self.name) if o.kind == "invariant"
        ]
        self.checks: dict[str, list[_CountCheck] | None] = {
            o.id: count_checks(o, engine.evaluator) for o in self.invariants
        }
        self.sources = {
            p.from_op for op in decl.operations for p in op.params if p.from_op is not None
        }
        self.failures: dict[str, tuple[Failure, dict[str, Any] | None]] = {}
        self.inv_failures: dict[str, dict[str, Any]] = {}
        self.counts: dict[str, _Counts] = {q: _Counts() for q in self.owners.values()}
        self.inv_inputs: dict[str, int] = {o.id: 0 for o in self.invariants}
        self.inv_reached: dict[str, int] = {o.id: 0 for o in self.invariants}
        self.witnesses: dict[str, list[_CallRecord]] = {}
        """Per invariant: a call sequence whose last call was counted (for the hammer)."""
        self.notes: dict[str, str] = {}
        self.explored: dict[str, int] = {o.id: 0 for o in self.invariants}
        """Per invariant: interleavings explored by the concurrent hammer."""

    # ------------------------------------------------------------------ tracking

    def new_tracker(self) -> _Tracker:
        return _Tracker(self)

    def _args(self, op: str, values: Mapping[str, object]) -> list[object]:
        return [values[p.name] for p in self.ops[op].params]

    # ------------------------------------------------------------------ phases

    def run(self) -> list[ObligationEvidence]:
        plans = {n: self.engine.plan_of(q) for n, q in self.owners.items()}
        self._explicit_runs(plans)
        self._stateful(plans)
        for o in self.invariants:
            checks = self.checks[o.id]
            if checks is None:
                self.notes[o.id] = "not a conjunction of count comparisons: checked only as a whole"
                continue
            for c in checks:
                if c.upper and o.id not in self.inv_failures:
                    self._hammer(c)
        out: list[ObligationEvidence] = []
        for n, q in self.owners.items():
            judge = self.judges[n]
            out.extend(self.engine._run_example(q, o, judge) for o in judge.examples)
            out.extend(self.engine._owner_evidence(q, judge, plans[n], self.counts[q],
                                                   self.failures, None))
        for o in self.invariants:
            ev = ObligationEvidence(id=o.id, kind=o.kind, owner=self.name, file=o.file,
                                    line=o.line, text=o.text, inputs=self.inv_inputs[o.id])
            checks = self.checks[o.id] or []
            for i, c in enumerate(checks):
                if c.upper:
                    ev.triggers.append(TriggerEvidence(
                        f"{o.id}#{i + 1}", "boundary",
                        f"count reaches {c.limit} ({c.describe()})", "possible",
                        self.inv_reached[o.id],
                    ))
                    if self.engine.options.concurrency:
                        # Concurrent calls with one key are evidence too: an invariant
                        # whose interleavings were never explored is not passed.
                        ev.triggers.append(TriggerEvidence(
                            f"{o.id}#concurrent{i + 1}", "concurrency",
                            f"interleavings of concurrent {c.count.op} calls explored",
                            "possible", self.explored[o.id],
                        ))
            if o.id in self.inv_failures:
                ev.counterexample = self.inv_failures[o.id]
                ev.message = self.inv_failures[o.id]["message"]
            ev.note = self.notes.get(o.id)
            out.append(ev)
        return out

    def _source_args(self, op: str, plans: Mapping[str, Plan]) -> dict[str, object] | None:
        """A valid input for a source operation (its first solver input or pool model)."""
        judge = self.judges[op]
        plan = plans[op]
        for inp in (*plan.inputs, *plan.pool):
            if judge.admits(inp):
                return dict(inp)
        return None

    def _explicit_runs(self, plans: Mapping[str, Plan]) -> None:
        """Each solver-chosen input of each operation, on a fresh instance."""
        for op, plan in plans.items():
            judge = self.judges[op]
            for inp in plan.inputs:
                tracker = self.new_tracker()
                if not tracker.start():
                    return
                values = dict(inp)
                ok = True
                for p in self.ops[op].params:
                    if p.from_op is None:
                        continue
                    src_args = self._source_args(p.from_op, plans)
                    if src_args is None:
                        ok = False
                        break
                    try:
                        rec = tracker.call(p.from_op, src_args, masked=self.masked())
                    except _StatefulFailure as exc:
                        exc.record(self)
                        ok = False
                        break
                    if rec.outcome.raised is not None or rec.result is NOT_CONFORMING:
                        ok = False
                        break
                    values[p.name] = rec.result
                if not ok or not judge.admits(values):
                    continue
                try:
                    tracker.call(op, values, masked=self.masked())
                    tracker.finish()
                    tracker.commit()
                except _StatefulFailure as exc:
                    exc.record(self)

    def _stateful(self, plans: Mapping[str, Plan]) -> None:
        from hypothesis.stateful import (
            Bundle,
            RuleBasedStateMachine,
            multiple,
            rule,
            run_state_machine_as_test,
        )

        runner = self
        bundles = {src: Bundle(f"{src}_results") for src in self.sources}
        gens = {
            n: self.engine._input_gen(
                q, frozenset(p.name for p in self.ops[n].params if p.from_op is not None)
            )
            for n, q in self.owners.items()
        }

        class Machine(RuleBasedStateMachine):
            def __init__(self) -> None:
                super().__init__()
                self.tracker = runner.new_tracker()
                self.started = self.tracker.start()

        def make_rule(op: str) -> Any:
            froms = {p.name: bundles[p.from_op] for p in self.ops[op].params
                     if p.from_op is not None}
            gen = gens[op]
            returns_to = bundles.get(op)

            def body(self: Machine, data: st.DataObject, **fixed: object) -> object:
                from hypothesis import assume

                assume(self.started)
                values = gen.complete(data.draw, fixed)
                assume(values is not None)
                assert values is not None
                rec = self.tracker.call(op, values, masked=runner.masked())
                if returns_to is None:
                    return None
                if rec.outcome.raised is not None or rec.result is NOT_CONFORMING:
                    return multiple()
                return rec.result

            body.__name__ = f"call_{op}"
            strategies: dict[str, Any] = {"data": st.data(), **froms}
            if returns_to is not None:
                decorator = rule(target=returns_to, **strategies)
            else:
                decorator = rule(**strategies)
            return decorator(body)

        for op in self.ops:
            setattr(Machine, f"call_{op}", make_rule(op))

        def teardown(self: Machine) -> None:
            if self.started:
                self.tracker.finish()
                self.tracker.commit()

        Machine.teardown = teardown  # type: ignore[method-assign, assignment]
        sequences = self.engine.options.sequences or max(10, self.engine.options.examples // 4)
        limit = len(self.invariants) + sum(len(j.judged_obligations) for j in self.judges.values())
        for _ in range(limit + 1):
            try:
                run_state_machine_as_test(  # type: ignore[no-untyped-call]
                    Machine,
                    settings=self.engine._settings(
                        max_examples=sequences,
                        stateful_step_count=self.engine.options.steps,
                    ),
                )
            except _StatefulFailure as exc:
                exc.record(self)
                continue
            except (Unsatisfiable, FailedHealthCheck) as exc:
                for o in self.invariants:
                    self.notes.setdefault(o.id, f"Hypothesis found no valid call sequences: {exc}")
            break

    def masked(self) -> set[str]:
        return set(self.failures) | set(self.inv_failures)

    # ------------------------------------------------------------------ hammering

    def _hammer(self, c: _CountCheck) -> None:
        """Call the counted operation ``limit + 1`` times with one key: in sequence,
        then concurrently under the interleaving explorer."""
        o = c.obligation
        witness = self.witnesses.get(o.id)
        if witness is None:
            self.notes.setdefault(
                o.id, f"no call of {c.count.op} was ever counted, so its bound was not hammered"
            )
            return
        *before, last = witness
        used = {_ref_key(v) for v in last.args.values()}
        prefix = [r for r in before if r.op in self.sources and _ref_key(r.result) in used]
        times = max(c.limit + 1, 2)
        # Sequentially on a fresh instance.
        tracker = self.new_tracker()
        if not tracker.start():
            return
        try:
            refs = tracker.replay(prefix)
            if refs is None:
                return
            args = {k: refs.get(_ref_key(v), v) for k, v in last.args.items()}
            for _ in range(times):
                tracker.call(c.count.op, args, masked=self.masked())
            tracker.finish()
            tracker.commit()
        except _StatefulFailure as exc:
            exc.record(self)
        if o.id in self.inv_failures or not self.engine.options.concurrency:
            return
        if not isinstance(self.caller, ConcurrentCaller):
            self.notes.setdefault(o.id, "the caller cannot explore interleavings")
            return
        self._concurrent(c, prefix, last, times)

    def _concurrent(
        self, c: _CountCheck, prefix: list[_CallRecord], last: _CallRecord, times: int
    ) -> None:
        setup: list[tuple[str, list[object]]] = []
        by_name: dict[object, Ref] = {}
        for i, rec in enumerate(prefix):
            args = [by_name.get(_ref_key(v), v) for v in self._args(rec.op, rec.args)]
            setup.append((rec.op, args))
            by_name[_ref_key(rec.result)] = Ref(i)
        args = [by_name.get(_ref_key(v), v) for v in self._args(last.op, last.args)]
        threads = self.engine.options.threads or times
        calls = [(last.op, list(args)) for _ in range(max(threads, 2))]
        judge = self.judges[c.count.op]
        o = c.obligation
        explored = 0

        def violated(run: Interleaving) -> str | None:
            if run.deadlock:
                return "deadlock: the calls never finished"
            if any(out.raised is not None for out in run.setup):
                return None
            env_by_ref = [normalize(out.value, self.judges[op].signature.returns)
                          for (op, _), out in zip(setup, run.setup, strict=True)]
            counted: dict[object, int] = {}
            for (op, raw), out in zip(calls, run.outcomes, strict=True):
                if out.raised is not None:
                    continue
                values = {
                    p.name: (env_by_ref[a.index] if isinstance(a, Ref) else a)
                    for p, a in zip(self.ops[op].params, raw, strict=True)
                }
                result = normalize(out.value, judge.signature.returns)
                hit = _count_hit(self.engine.evaluator, c.count, values, result, judge)
                if hit is None:
                    continue
                key = values.get(c.count.per) if c.count.per else None
                counted[_ref_key(key)] = counted.get(_ref_key(key), 0) + (1 if hit else 0)
            worst = max(counted.values(), default=0)
            if not c.holds(worst):
                return f"{c.describe()} broken: the count reached {worst}"
            return None

        def stop(run: Interleaving) -> bool:
            nonlocal explored
            explored += 1
            return violated(run) is not None

        try:
            assert isinstance(self.caller, ConcurrentCaller)
            explored_runs = self.caller.explore(
                self.name, setup, calls, self.engine.options.interleavings, stop
            )
            for run in explored_runs:
                why = violated(run)
                self.inv_inputs[o.id] += 1
                if why is not None:
                    lines = [f"{self.name}() -> s"]
                    lines += [f"{r.text()}" for r in prefix]
                    for i, ((op, raw), out) in enumerate(zip(calls, run.outcomes, strict=True)):
                        shown = ", ".join(
                            f"{p.name}="
                            + (prefix[a.index].name if isinstance(a, Ref) else describe(a))
                            for p, a in zip(self.ops[op].params, raw, strict=True)
                        )
                        lines.append(f"thread {i + 1}: s.{op}({shown})"
                                     f" -> {describe_outcome(out)}")
                    message = (
                        f"{o.id}" + (f' "{o.text}"' if o.text else "")
                        + f" ({o.file}:{o.line}) failed under concurrency\n  calls:    "
                        + "\n            ".join(lines)
                        + f"\n  schedule: {run.schedule}\n  got:      {why}\n"
                        f"  required: {c.describe()}"
                        + (f"\n  interleaving:\n{_indent(run.trace, 4)}" if run.trace else "")
                    )
                    self.inv_failures[o.id] = {
                        "concurrent": True,
                        "calls": lines,
                        "schedule": run.schedule,
                        "trace": run.trace,
                        "got": why,
                        "required": c.describe(),
                        "message": message,
                    }
                    break
        except OperationalTimeout:
            raise  # no evidence either way: the run stops (exit 75)
        except DerivativeError as exc:
            self.notes.setdefault(o.id, f"interleavings not explored: {exc}")
        self.explored[o.id] += explored
        self.engine.stats.setdefault(self.name, {})[f"{o.id}:interleavings"] = explored


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.splitlines())


def _ref_key(value: object) -> object:
    try:
        hash(value)
        return (type(value).__name__, value)
    except TypeError:
        return ("id", id(value))


def _count_hit(
    evaluator: Evaluator, count: Count, args: Mapping[str, object], result: object, judge: Judge
) -> bool | None:
    """Whether a normal return of the counted op is counted; None if undefined."""
    if count.where is None:
        return True
    env = dict(args)
    if not isinstance(judge.signature.returns, TNone):
        if result is NOT_CONFORMING:
            return None
        env["result"] = result
    h = evaluator.holds(count.where, env)
    return None if isinstance(h, _Undefined) else h


class _StatefulFailure(AssertionError):
    """A failure inside a state machine run; ``record`` files it with the runner."""

    def __init__(self, message: str, failures: Sequence[Failure] = (),
                 invariant: tuple[str, dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.failures = list(failures)
        self.invariant = invariant

    def record(self, runner: _SystemRunner) -> None:
        for f in self.failures:
            runner.failures.setdefault(f.obligation_id, (f, {"calls": self.calls}))
        if self.invariant is not None:
            runner.inv_failures.setdefault(*self.invariant)

    @property
    def calls(self) -> list[str]:
        return getattr(self, "_calls", [])


class _Tracker:
    """One instance's life: calls, judgements, counts and invariant checks."""

    def __init__(self, runner: _SystemRunner) -> None:
        self.runner = runner
        self.engine = runner.engine
        self.handle: object = None
        self.records: list[_CallRecord] = []
        self.counts: dict[tuple[str, int], dict[object, int]] = {}
        self.keys: dict[tuple[str, int], set[object]] = {}
        self.obl_counts: dict[str, _Counts] = {}
        self.inv_reached: dict[str, int] = {}
        self.witness: dict[str, list[_CallRecord]] = {}
        self.names = 0

    def start(self) -> bool:
        handle = self.runner.caller.new_instance(self.runner.name)
        if isinstance(handle, Outcome):
            message = (f"{self.runner.name}() could not be created: "
                       f"{describe_outcome(handle)}")
            for o in self.runner.invariants:
                self.runner.inv_failures.setdefault(o.id, {"message": message, "got": message,
                                                           "required": "a fresh instance"})
            return False
        self.handle = handle
        return True

    def replay(self, prefix: Sequence[_CallRecord]) -> dict[object, object] | None:
        """Make the calls of ``prefix`` again; old results → new results."""
        refs: dict[object, object] = {}
        for rec in prefix:
            args = {k: refs.get(_ref_key(v), v) for k, v in rec.args.items()}
            new = self.call(rec.op, args, masked=self.runner.masked())
            if new.outcome.raised is not None or new.result is NOT_CONFORMING:
                return None
            refs[_ref_key(rec.result)] = new.result
        return refs

    def call(self, op: str, values: Mapping[str, object], masked: set[str]) -> _CallRecord:
        runner = self.runner
        judge = runner.judges[op]
        owner = runner.owners[op]
        plan = self.engine.plan_of(owner)
        args = runner._args(op, values)
        outcome = runner.caller.method(self.handle, op, args)
        result: object = NOT_CONFORMING
        if outcome.raised is None:
            result = normalize(outcome.value, judge.signature.returns)
        self.names += 1
        rec = _CallRecord(op, dict(values), outcome, result,
                          f"r{self.names}" if op in runner.sources else "")
        self.records.append(rec)
        j: Judgement = judge.judge(values, outcome)
        counts = self.obl_counts.setdefault(owner, _Counts())
        counts.record(j.judged, plan.triggers, self.engine._hits(plan, values))
        new = [f for f in j.failures if f.obligation_id not in masked]
        if new:
            exc = _StatefulFailure("\n".join(f.render() for f in new), new)
            exc._calls = self.trace()  # type: ignore[attr-defined]
            raise exc
        if outcome.raised is None:
            self._count(op, values, result)
        return rec

    def trace(self) -> list[str]:
        return [f"{self.runner.name}() -> s", *(r.text() for r in self.records)]

    def _count(self, op: str, values: Mapping[str, object], result: object) -> None:
        runner = self.runner
        for o in runner.invariants:
            checks = runner.checks[o.id]
            if checks is None:
                self._whole(o)
                continue
            for i, c in enumerate(checks):
                if c.count.op != op:
                    continue
                hit = _count_hit(self.engine.evaluator, c.count, values, result,
                                 runner.judges[op])
                key = _ref_key(values.get(c.count.per)) if c.count.per else None
                bucket = self.counts.setdefault((o.id, i), {})
                self.keys.setdefault((o.id, i), set()).add(key)
                if hit is None:
                    self._violate(o, f"the predicate of {c.describe()} is undefined for "
                                     f"{describe_input(op, values)}", c.describe())
                if not hit:
                    continue
                bucket[key] = bucket.get(key, 0) + 1
                n = bucket[key]
                if c.upper and n >= c.limit:
                    self.inv_reached[o.id] = self.inv_reached.get(o.id, 0) + 1
                if not self.witness.get(o.id):
                    self.witness[o.id] = list(self.records)
                if c.upper and not c.holds(n):
                    per = f" for {c.count.per} = {describe(values.get(c.count.per))}" \
                        if c.count.per else ""
                    self._violate(o, f"the count reached {n}{per}", c.describe())

    def _whole(self, o: Obligation) -> None:
        """An invariant that is not a conjunction of count links: evaluate it whole."""
        def hook(node: Count) -> Any:
            total = 0
            for rec in self.records:
                if rec.op != node.op or rec.outcome.raised is not None:
                    continue
                hit = _count_hit(self.engine.evaluator, node, rec.args, rec.result,
                                 self.runner.judges[rec.op])
                total += 1 if hit else 0
            return total

        ev = Evaluator(self.engine.evaluator.consts, self.engine.evaluator.rel_tol, hook)
        h = ev.holds(o.expr, {})
        if h is not True:
            self._violate(o, "it is " + ("undefined" if isinstance(h, _Undefined) else "false"),
                          to_source(o.expr))

    def _violate(self, o: Obligation, got: str, required: str) -> None:
        if o.id in self.runner.inv_failures:
            return
        calls = self.trace()
        message = (
            f"{o.id}" + (f' "{o.text}"' if o.text else "") + f" ({o.file}:{o.line}) failed\n"
            f"  calls:    " + "\n            ".join(calls) + f"\n  got:      {got}\n"
            f"  required: {required}"
        )
        raise _StatefulFailure(message, invariant=(o.id, {
            "calls": calls, "got": got, "required": required, "message": message,
        }))

    def finish(self) -> None:
        """Lower bounds, at the end of the run."""
        runner = self.runner
        for o in runner.invariants:
            for i, c in enumerate(runner.checks[o.id] or []):
                if c.upper:
                    continue
                bucket = self.counts.get((o.id, i), {})
                keys = self.keys.get((o.id, i), set()) or ({None} if not c.count.per else set())
                for key in keys:
                    n = bucket.get(key, 0)
                    if not c.holds(n):
                        self._violate(o, f"the count ended at {n}", c.describe())

    def commit(self) -> None:
        """A run that completed: its counts join the evidence."""
        runner = self.runner
        for owner, counts in self.obl_counts.items():
            total = runner.counts[owner]
            total.valid_inputs += counts.valid_inputs
            for k, v in counts.inputs.items():
                total.inputs[k] = total.inputs.get(k, 0) + v
            for k, v in counts.hits.items():
                total.hits[k] = total.hits.get(k, 0) + v
        for o in runner.invariants:
            runner.inv_inputs[o.id] += 1
            runner.inv_reached[o.id] += self.inv_reached.get(o.id, 0)
            if o.id in self.witness and o.id not in runner.witnesses:
                runner.witnesses[o.id] = self.witness[o.id]


EXPLORE_SAFETY_SECONDS = 300.0
"""Wall-clock safety net of one in-process exploration.  The number of schedules
(``EngineOptions.interleavings``) and the steps per schedule bound the search
deterministically; reaching this raises ``OperationalTimeout`` instead of passing on
however many schedules a loaded machine got through."""


def explore_in_process(
    caller: InProcessCaller,
    system: str,
    setup: Sequence[tuple[str, Sequence[object]]],
    calls: Sequence[tuple[str, Sequence[object]]],
    limit: int,
    stop: Callable[[Interleaving], bool],
) -> Iterator[Interleaving]:
    """Interleavings of ``calls`` explored with ``forge/_explore.py`` in this process.

    Scheduling points are placed only in the candidate's own files, so the engine's
    conversions between values never add schedules; the candidate's module is handed
    to the explorer so that its locks become cooperative.
    """
    from derivative.forge import _explore

    module_file = getattr(caller.module, "__file__", None)
    folder = os.path.dirname(os.path.abspath(module_file)) if module_file else None
    own = os.path.dirname(os.path.abspath(__file__))

    def trace_filter(filename: str) -> bool:
        if folder is None or not filename or filename.startswith("<"):
            return False
        path = os.path.abspath(filename)
        return path.startswith(folder + os.sep) and not path.startswith(own)

    state: dict[str, Any] = {}

    def fresh() -> object:
        handle = caller.new_instance(system)
        outcomes: list[Outcome] = []
        if isinstance(handle, Outcome):
            state["setup"] = [handle]
            state["calls"] = []
            return handle
        for op, args in setup:
            resolved = [_resolve(a, outcomes) for a in args]
            outcomes.append(caller.method(handle, op, resolved))
        state["setup"] = outcomes
        state["calls"] = [[_resolve(a, outcomes) for a in args] for _, args in calls]
        return handle

    def body(i: int) -> Callable[[object], object]:
        op = calls[i][0]

        def run(handle: object) -> object:
            if isinstance(handle, Outcome):
                return handle
            return caller.method(handle, op, state["calls"][i])

        return run

    runs = _explore.runs(
        fresh,
        [body(i) for i in range(len(calls))],
        max_schedules=limit,
        max_preemptions=2,
        timeout=EXPLORE_SAFETY_SECONDS,
        # A candidate without a file (built in memory): the explorer's default filter.
        trace_filter=trace_filter if folder is not None else None,
        names=[f"thread {i + 1}" for i in range(len(calls))],
        modules=[caller.module],
    )
    seen = 0
    exhausted = False
    for run in runs:
        seen += 1
        exhausted = run.exhausted
        outcomes: list[Outcome] = []
        for r in run.results:
            if r.status == "returned" and isinstance(r.value, Outcome):
                outcomes.append(r.value)
            elif r.error is not None:
                outcomes.append(Outcome.error(r.error))
            else:
                outcomes.append(Outcome(raised=Raised((f"Thread{r.status.capitalize()}",),
                                                      r.status)))
        setup_out = list(state.get("setup", []))
        inter = Interleaving(run.summary(), setup_out, outcomes)
        inter.trace = run.trace_text(max_lines=60)
        inter.deadlock = bool(run.deadlock)
        yield inter
        if stop(inter):
            return
    if seen < limit and not exhausted:
        # The search ends at ``limit``, at the end of its space or at its time budget:
        # only the last depends on the machine's speed.
        raise OperationalTimeout(
            f"the exploration of interleavings of {system} ran into its wall-clock safety "
            f"limit of {EXPLORE_SAFETY_SECONDS:g} s after {seen} of at most {limit} schedules"
        )


def _resolve(value: object, outcomes: Sequence[Outcome]) -> object:
    if isinstance(value, Ref):
        out = outcomes[value.index] if value.index < len(outcomes) else None
        return None if out is None or out.raised is not None else out.value
    return value


def reset_caches() -> None:
    """Forget computed plans (tests that rebuild contracts with the same identity)."""
    clear_cache()

