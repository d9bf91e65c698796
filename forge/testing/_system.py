"""The stateful and concurrent testing of one system (``Engine.run_system``).

Three phases per system: each solver-chosen input of each operation on a fresh instance,
random call sequences from a ``RuleBasedStateMachine`` (one rule per operation, ``from``
parameters drawn from Bundles of earlier results), then the hammer of each upper-bounded
count invariant (``_hammer.py``).  One instance's life is a ``_Tracker`` (``_tracker.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck, Flaky, Unsatisfiable

from derivative._ast import SystemDecl
from derivative.solver import Plan

from ._counting import _CallRecord, _CountCheck, _Counts, count_checks
from ._evidence import ObligationEvidence, TriggerEvidence
from ._flaky import REASON, first_failure, nondeterministic
from ._hammer import hammer
from ._oracle import NOT_CONFORMING, Failure, describe_outcome
from ._tracker import _StatefulFailure, _Tracker

if TYPE_CHECKING:
    from hypothesis.stateful import Bundle

    from ._engine import Engine

__all__ = ["_SystemRunner"]


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
        self.last_tracker: _Tracker | None = None
        """The latest instance's life: after a failure Hypothesis could not replay, the
        replay (``record_nondeterministic``)."""

    # ------------------------------------------------------------------ tracking

    def new_tracker(self) -> _Tracker:
        self.last_tracker = _Tracker(self)
        return self.last_tracker

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
                    hammer(self, c)
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
        """Random call sequences, repeated with each failed obligation masked."""
        from hypothesis.stateful import run_state_machine_as_test

        # typed Any: older Hypothesis releases leave it untyped, newer ones type it, so no
        # `type: ignore` fits both
        run_machine: Any = run_state_machine_as_test

        machine = self._machine()
        sequences = self.engine.options.sequences or max(10, self.engine.options.examples // 4)
        limit = len(self.invariants) + sum(len(j.judged_obligations) for j in self.judges.values())
        for _ in range(limit + 1):
            try:
                run_machine(
                    machine,
                    settings=self.engine._settings(
                        max_examples=sequences,
                        stateful_step_count=self.engine.options.steps,
                    ),
                )
            except _StatefulFailure as exc:
                exc.record(self)
                continue
            except Flaky as exc:
                first = first_failure(exc, _StatefulFailure)
                if first is not None:
                    self.record_nondeterministic(first)
                    continue
                self.unreplayable(exc)
            except (Unsatisfiable, FailedHealthCheck) as exc:
                for o in self.invariants:
                    self.notes.setdefault(o.id, f"Hypothesis found no valid call sequences: {exc}")
            break

    # ------------------------------------------------------------------ nondeterminism

    def _replayed(self, calls: list[str]) -> str | None:
        """What the replay's call at the failing call's place gave (``calls`` is the first
        run's trace: the constructor, then one line per call); None if it never got there."""
        tracker = self.last_tracker
        index = len(calls) - 2
        if tracker is None or index < 0 or index >= len(tracker.records):
            return None
        rec = tracker.records[index]
        if rec.text().split(" -> ")[0] != calls[-1].split(" -> ")[0]:
            return None
        return describe_outcome(rec.outcome)

    def record_nondeterministic(self, exc: _StatefulFailure) -> None:
        """A failure of a call sequence that its replay did not repeat: the candidate gave
        two outcomes for the same calls (``_flaky.py``)."""
        replay = self._replayed(exc.calls)
        for f in exc.failures:
            failure, extra = nondeterministic(f, replay)
            self.failures.setdefault(f.obligation_id, (failure, {"calls": exc.calls, **extra}))
        if exc.invariant is not None:
            oid, info = exc.invariant
            replay = self._replayed(list(info.get("calls") or []))
            again = f"the last call {replay}" if replay else "did not break it"
            got = (f"nondeterministic: the first run: {info.get('got')}; the same calls made "
                   f"again: {again}")
            self.inv_failures.setdefault(oid, {
                **info, "reason": REASON, "first": info.get("got"), "replay": again,
                "got": got, "message": f"{info.get('message')}\n  {got}",
            })

    def unreplayable(self, exc: Flaky) -> None:
        """Hypothesis could not replay a call sequence and no failure of ours was in it: the
        calls drew different data because results that feed later calls differed.  Only the
        candidate's results feed the draws, so every obligation of the system not failed
        already is failed for it: none of its evidence can be trusted."""
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        got = (f"nondeterministic: the same call sequence of {self.name} went differently when "
               f"made again (Hypothesis: {why})")
        required = "the same outcome every time the same calls are made"
        extra = {"reason": REASON, "first": "one sequence of results",
                 "replay": "different results for the same calls"}
        for judge in self.judges.values():
            for o in judge.judged_obligations:
                self.failures.setdefault(o.id, (Failure(
                    o.id, o.kind, o.text, o.file, o.line, f"calls of {self.name}", got,
                    required), extra))
        for inv in self.invariants:
            self.inv_failures.setdefault(inv.id, {
                "got": got, "required": required, "message": f"{inv.id} failed\n  got:      "
                f"{got}\n  required: {required}", **extra})

    def _machine(self) -> type[Any]:
        """A ``RuleBasedStateMachine``: a fresh tracked instance per sequence, one rule per
        operation, lower count bounds checked at the end."""
        from hypothesis.stateful import Bundle, RuleBasedStateMachine

        runner = self
        bundles = {src: Bundle(f"{src}_results") for src in self.sources}

        class Machine(RuleBasedStateMachine):
            def __init__(self) -> None:
                super().__init__()
                self.tracker = runner.new_tracker()
                self.started = self.tracker.start()
                self.used: dict[str, list[object]] = {}

        for op in self.ops:
            setattr(Machine, f"call_{op}", self._rule(op, bundles))

        def teardown(self: Machine) -> None:
            if self.started:
                self.tracker.finish()
                self.tracker.commit()

        Machine.teardown = teardown  # type: ignore[method-assign, assignment]
        return Machine

    def _rule(self, op: str, bundles: Mapping[str, Bundle[Any]]) -> Any:
        """The rule that calls ``op``: ``from`` parameters from the bundles, the rest drawn
        valid; a source operation's conforming results go to its own bundle."""
        from hypothesis.stateful import multiple, rule

        runner = self
        froms = {p.name: bundles[p.from_op] for p in self.ops[op].params
                 if p.from_op is not None}
        gen = self.engine._input_gen(
            self.owners[op], frozenset(p.name for p in self.ops[op].params if p.from_op is not None)
        )
        returns_to = bundles.get(op)
        types = self.engine.judge_of(self.owners[op]).param_types
        plain = [(p.name, types[p.name].show()) for p in self.ops[op].params
                 if p.from_op is None and p.name in types]

        def body(self: Any, data: st.DataObject, **fixed: object) -> object:
            from hypothesis import assume

            assume(self.started)
            values = gen.complete(data.draw, _reused(data, self.used, plain, fixed))
            if values is None:
                values = gen.complete(data.draw, fixed)
            assume(values is not None)
            assert values is not None
            _remember(self.used, plain, values)
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

    def masked(self) -> set[str]:
        return set(self.failures) | set(self.inv_failures)


REUSED = 16
"""Argument values remembered per type in one sequence (the latest), for ``_reused``."""


def _reused(data: st.DataObject, used: Mapping[str, list[object]],
            plain: Sequence[tuple[str, str]], fixed: Mapping[str, object]) -> dict[str, object]:
    """``fixed`` and, for some plain parameters, a value an earlier call of the sequence
    passed for one of the same type: a free ``user: str`` of ``remaining`` otherwise almost
    never names a user ``try_send`` has counted, so per-key state is never read back
    (mutation benchmark: ``USER_DAILY_LIMIT - sent`` -> ``+`` survived)."""
    out = dict(fixed)
    for name, ty in plain:
        earlier = used.get(ty)
        if earlier and data.draw(st.booleans(), label=f"reuse {name}"):
            out[name] = data.draw(st.sampled_from(earlier), label=name)
    return out


def _remember(used: dict[str, list[object]], plain: Sequence[tuple[str, str]],
              values: Mapping[str, object]) -> None:
    for name, ty in plain:
        seen = used.setdefault(ty, [])
        value = values.get(name)
        if value not in seen:
            seen.append(value)
            del seen[:-REUSED]
