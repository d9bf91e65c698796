"""Checking a timed component up to a depth: consistency, then realizability.

1. **Consistency**: is there a run of K steps that breaks no requirement?  The unrolled
   requirement set (``_unroll.contract_at``) goes to the untimed checker; a conflict is
   its minimal core, with its certificate; the trace shown is the longest run the core
   allows (the step after it is where the core bites).
2. **Realizability, clairvoyant**: for every input trace of K steps, are there outputs?
   Asked as a game (``solver.play``); a failure comes with the input trace, and the
   requirement set with that trace pinned (``input.x__t`` requirements) goes to the
   untimed checker again, which finds the minimal core and its certificate: a
   quantifier-free question both solvers re-check.
3. **Realizability, causal**: outputs chosen at each step after that step's inputs and
   without knowing later ones (one quantifier block per step).  A failure here that the
   clairvoyant question did not see means the requirements need the future; its core is
   found by deletion, each step a new game.

Every answer says "up to depth K": the report never claims more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from derivative._ast import BoolLit, Contract, EnumMember, Expr, IntLit, RealLit, Unary
from derivative._errors import SourcePos, SpecError
from derivative._record import record
from derivative._timed_ast import TimedComponent
from derivative._timed_unroll import contract_at, step_name
from derivative._values import EnumValue, Value

Status = Literal["no_conflict", "infeasible_proven", "unknown"]
Kind = Literal["inconsistent", "unrealizable", "unrealizable_causal"]


@dataclass(frozen=True, kw_only=True)
class TimedOptions:
    """``depth``: the number of steps unrolled (``--depth``); ``realizability``: also
    ask whether outputs can always be chosen; ``rlimit``: Z3's resource limit per call."""

    depth: int = 20
    realizability: bool = True
    causal_depth: int = 10
    """The causal game has one quantifier alternation per step, and its cost grows much
    faster than the other questions' with the depth: it is played up to
    ``min(depth, causal_depth)`` steps (``--causal-depth``), and the report says so."""
    rlimit: int = 2_000_000
    timeout: float = 60.0


@record
class TimedResult:
    """What ``check`` found for one component up to ``depth`` steps."""

    component: str
    depth: int
    status: Status
    explanation: str
    kind: Kind | None = None
    core: tuple[str, ...] = ()
    trace: tuple[Mapping[str, Value], ...] = ()
    """A run: for a conflict, the longest run the core allows (consistency) or the input
    trace that no outputs can answer (realizability); when there is no conflict, a run of
    all ``depth`` steps that breaks no requirement."""
    untimed: Any = field(default=None, repr=False)
    """The untimed ``CheckResult`` the answer comes from (its core has the certificate)."""
    unrolled: Any = field(default=None, repr=False)
    """The ``LoadedContract`` of the unrolled set ``untimed`` answers."""


def _literal(v: Value) -> Expr:
    if isinstance(v, bool):
        return BoolLit(value=v)
    if isinstance(v, int):
        return IntLit(value=v) if v >= 0 else Unary(op="-", operand=IntLit(value=-v))
    if isinstance(v, EnumValue):
        return EnumMember(enum=v.enum, member=v.member)
    return RealLit(value=str(v))


def _trace(comp: TimedComponent, values: Mapping[str, Value], depth: int,
           only: Sequence[str] | None = None) -> tuple[dict[str, Value], ...]:
    names = [s.name for s in comp.signals if only is None or s.name in only]
    return tuple(
        {n: values[step_name(n, t)] for n in names if step_name(n, t) in values}
        for t in range(depth)
    )


@record
class Unrolled:
    """An unrolled requirement set and its ``TypeInfo`` (what ``api.LoadedContract``
    holds; the API wraps it to certify a timed conflict)."""

    contract: Contract
    types: Any


class _Checker:
    def __init__(self, contract: Contract, comp: TimedComponent, options: TimedOptions) -> None:
        self.contract = contract
        self.comp = comp
        self.opts = options
        from derivative import solver

        self.solver = solver
        self.check_opts = solver.CheckOptions(rlimit=options.rlimit, timeout=options.timeout,
                                              warnings=False)

    def loaded(self, depth: int, fixed: Mapping[str, Expr] | None = None) -> Unrolled:
        from derivative import _typecheck

        unrolled = contract_at(self.contract, self.comp, depth, fixed)
        return Unrolled(unrolled, _typecheck.check(unrolled))

    def decide(self, loaded: Unrolled, options: Any = None) -> Any:
        return self.solver.check(loaded.contract, loaded.types, options or self.check_opts)

    def run(self) -> TimedResult:
        k = self.opts.depth
        loaded = self.loaded(k)
        result = self.decide(loaded)
        if result.status == "infeasible_proven":
            return self.inconsistent(loaded, result)
        if result.status == "unknown":
            return self.unknown(loaded, result, "consistency")
        values = result.witness.params if result.witness is not None else {}
        run = _trace(self.comp, values, k)
        if self.opts.realizability and self.comp.inputs() and self.comp.outputs():
            answer = self.realizability(loaded)
            if answer is not None:
                return answer
        kc = min(k, self.opts.causal_depth)
        what = f"consistency and realizability; causal realizability up to depth {kc}" if (
            self.opts.realizability and self.comp.inputs() and self.comp.outputs()
        ) else "consistency"
        return TimedResult(
            self.comp.name, k, "no_conflict",
            f"no conflict up to depth {k} ({what}); a run of {k} steps that breaks no "
            "requirement is shown", trace=run, untimed=result, unrolled=loaded,
        )

    def unknown(self, loaded: Any, result: Any, question: str) -> TimedResult:
        reasons = "; ".join(u.reason for u in result.unknowns) or result.reason
        return TimedResult(self.comp.name, self.opts.depth, "unknown",
                           f"the {question} question up to depth {self.opts.depth} was not "
                           f"decided: {reasons}", untimed=result, unrolled=loaded)

    def _timed_ids(self, core: Any) -> tuple[str, ...]:
        return tuple(i for i in core.ids)

    def inconsistent(self, loaded: Any, result: Any) -> TimedResult:
        core = result.cores[0]
        ids = self._timed_ids(core)
        names = {r.id for r in self.comp.requirements}
        members = [i for i in ids if i in names]
        bite, run = self._where_it_bites(frozenset(ids))
        where = (f"no run of {bite} steps meets them" if bite else "they cannot all hold")
        return TimedResult(
            self.comp.name, self.opts.depth, "infeasible_proven",
            f"{', '.join(members) or ', '.join(ids)} conflict: {where}; the longest run they "
            f"allow has {len(run)} step{'s' if len(run) != 1 else ''}",
            kind="inconsistent", core=ids, trace=run, untimed=result, unrolled=loaded,
        )

    def _where_it_bites(self, ids: frozenset[str]) -> tuple[int, tuple[dict[str, Value], ...]]:
        """The smallest depth at which the core's members conflict, and a run one step
        shorter that they allow (empty when they conflict at the first step)."""
        last_run: tuple[dict[str, Value], ...] = ()
        for depth in range(1, self.opts.depth + 1):
            loaded = self.loaded(depth)
            everything = {o.id for o in loaded.contract.obligations}
            drop = frozenset(everything - self._base(ids, depth))
            opts = self.solver.CheckOptions(rlimit=self.opts.rlimit, timeout=self.opts.timeout,
                                            warnings=False, without=drop)
            r = self.decide(loaded, opts)
            if r.status == "infeasible_proven":
                return depth, last_run
            if r.status != "feasible" or r.witness is None:
                return 0, last_run
            last_run = _trace(self.comp, r.witness.params, depth)
        return 0, last_run

    @staticmethod
    def _base(ids: frozenset[str], depth: int) -> frozenset[str]:
        """The core's ids at a smaller depth (range obligations of later steps vanish)."""
        return ids

    def realizability(self, loaded: Any) -> TimedResult | None:
        """The two games, each by increasing depths (5, 10, 20, ... up to its own): a
        failure at a smaller depth is a failure at every larger one (safety), and is far
        cheaper to find; a game undecided at some depth stops its ladder, and is reported
        only if the other game proves no conflict."""
        k = self.opts.depth
        undecided: str | None = None
        decided = 0
        for d in _ladder(k):
            at = loaded if d == k else self.loaded(d)
            inputs = [step_name(s.name, t) for t in range(d) for s in self.comp.inputs()]
            outputs = [step_name(s.name, t) for t in range(d) for s in self.comp.outputs()]
            answer = self.solver.play(at.contract, at.types,
                                      [("forall", inputs), ("exists", outputs)], self.check_opts)
            if answer.verdict == "fails" and answer.values is not None:
                return self.pinned_conflict(d, answer.values)
            if answer.verdict != "holds":
                undecided = (
                    f"no run of {k} steps breaks a requirement, and outputs answer every "
                    f"input trace of {decided} steps, but realizability at depth {d} was not "
                    f"decided ({answer.reason}); --depth {decided} decides, or raise --rlimit"
                    if decided else
                    f"realizability at depth {d} was not decided: {answer.reason}")
                break
            decided = d
        kc = min(k, self.opts.causal_depth)
        for d in _ladder(kc):
            at = self.loaded(d) if d != k else loaded
            blocks: list[Any] = []
            for t in range(d):
                blocks.append(("forall", [step_name(s.name, t) for s in self.comp.inputs()]))
                blocks.append(("exists", [step_name(s.name, t) for s in self.comp.outputs()]))
            causal = self.solver.play(at.contract, at.types, blocks, self.check_opts)
            if causal.verdict == "fails":
                core = self._causal_core(at, blocks)
                return TimedResult(
                    self.comp.name, k, "infeasible_proven",
                    f"{', '.join(core)} can be met only by outputs that know later inputs: no "
                    "controller that sees the inputs up to the current step meets them for "
                    f"{d} steps", kind="unrealizable_causal", core=core,
                )
            if causal.verdict != "holds":
                undecided = undecided or (
                    f"causal realizability at depth {d} was not decided: {causal.reason}")
                break
        if undecided is not None:
            return TimedResult(self.comp.name, k, "unknown", undecided)
        return None

    def pinned_conflict(self, d: int, values: Mapping[str, Value]) -> TimedResult:
        """The clairvoyant game's input trace of ``d`` steps pinned: the untimed checker
        finds the minimal core (and its certificate) of the requirements under it."""
        k = self.opts.depth
        fixed = {n: _literal(v) for n, v in values.items()}
        pinned = self.loaded(d, fixed)
        result = self.decide(pinned)
        if result.status != "infeasible_proven":
            return TimedResult(
                self.comp.name, k, "unknown",
                "the game says no outputs answer an input trace, but the requirement "
                f"set with that trace pinned was not refuted ({result.status})")
        # the same question with only the pins the core needs: the certificate's
        # spec is then exactly what ``certificate verify --spec`` unrolls again
        needed = {i[len("input."):] for i in result.cores[0].ids if i.startswith("input.")}
        pinned = self.loaded(d, {n: e for n, e in fixed.items() if n in needed})
        result = self.decide(pinned)
        if result.status != "infeasible_proven":
            return TimedResult(
                self.comp.name, k, "unknown",
                f"the input trace's core did not refute the requirements again ({result.status})")
        ids = tuple(i for i in result.cores[0].ids if not i.startswith("input."))
        run = _trace(self.comp, values, d, [s.name for s in self.comp.inputs()])
        return TimedResult(
            self.comp.name, k, "infeasible_proven",
            f"{', '.join(ids)} cannot be met for the input trace shown: whatever the outputs, "
            f"one of them breaks within {d} steps", kind="unrealizable", core=ids, trace=run,
            untimed=result, unrolled=pinned,
        )

    def _causal_core(self, loaded: Any, blocks: Sequence[Any]) -> tuple[str, ...]:
        """Deletion: drop each requirement in turn; keep it if the rest then win."""
        keep = [r.id for r in self.comp.requirements]
        for rid in list(keep):
            trial = frozenset(r.id for r in self.comp.requirements if r.id not in keep or
                              r.id == rid)
            answer = self.solver.play(loaded.contract, loaded.types, blocks, self.check_opts,
                                      without=trial)
            if answer.verdict == "fails":
                keep.remove(rid)
        return tuple(keep)


def _ladder(k: int) -> list[int]:
    """5, 10, 20, ... below ``k``, then ``k``."""
    out: list[int] = []
    d = 5
    while d < k:
        out.append(d)
        d *= 2
    return [*out, k]


def check_component(contract: Contract, comp: TimedComponent,
                    options: TimedOptions) -> TimedResult:
    """Decide one component up to ``options.depth`` steps (see the module docstring)."""
    try:
        return _Checker(contract, comp, options).run()
    except RecursionError:
        raise SpecError(
            f"timed block {comp.name!r} nests too deeply to unroll (modes defined through "
            "modes, each with past-time forms)",
            SourcePos(comp.file, comp.line, comp.column),
            hint="flatten the modes' conditions",
        ) from None
