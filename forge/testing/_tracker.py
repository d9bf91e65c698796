"""One instance's life in a system's tests: calls, judgements, counts, invariant checks.

A ``_Tracker`` makes the calls on one instance and judges each with the oracle; a
failure inside a state machine run is a ``_StatefulFailure``, filed with the runner by
``record``.  Upper count bounds are checked after every call, lower ones at ``finish``;
``commit`` adds a completed run's counts to the evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from derivative._ast import Count, Obligation
from derivative._eval import Evaluator
from derivative._printer import to_source
from derivative._values import _Undefined

from ._callers import defined
from ._counting import _CallRecord, _count_hit, _Counts, _ref_key
from ._oracle import (
    NOT_CONFORMING,
    Failure,
    Judgement,
    Outcome,
    describe,
    describe_input,
    describe_outcome,
    normalize,
)

if TYPE_CHECKING:
    from ._system import _SystemRunner

__all__ = ["_StatefulFailure", "_Tracker"]


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
            defined(handle)
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
        self.engine.tick()
        outcome = defined(runner.caller.method(self.handle, op, args))
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
